# SPDX-License-Identifier: MIT
"""ATLAS.md's section "Which paper claims hold on which machine": the verdict
of every claim on each machine (claims.evaluate's, as REPORT.md's), the counts
per machine, and the claims judged differently with each machine's reason.
"""

import claims
from claims.core import JUDGED
from report import VERDICT_MD, VERDICT_TEXT, cell


def verdict_cell(c):
    text = VERDICT_MD.get(c["verdict"], c["verdict"])
    if c.get("cause"):
        text += " (%s)" % c["cause"]
    return text


def claims_section(ms, judged, figure):
    out = ["## Which paper claims hold on which machine", "",
           "The verdict of every claim of REPORT.md on each machine, computed by the same "
           "rules (`plots/claims`; the reasons are in each set's REPORT.md); a *not "
           "measurable* verdict keeps its cause: %s." % "; ".join(
               "%s: %s" % kv for kv in claims.NM_CAUSES.items()), ""]
    for m in ms:
        counts = {}
        for c in judged[m.label]:
            counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
        out.append("- **%s**: %s%s." % (cell(m.label), ", ".join(
            phrase % counts.get(v, 0) for v, _, phrase in VERDICT_TEXT if phrase),
            "; %d by construction" % counts["by construction"]
            if counts.get("by construction") else ""))
    out.append("")
    if figure:
        out += ["![claims per machine](%s)" % figure, ""]
    out += ["| # | Claim (source) | %s |" % " | ".join(cell(m.label) for m in ms),
            "|---|---|" + "---|" * len(ms)]
    first = judged[ms[0].label]
    for i, c in enumerate(first):
        out.append("| %d | %s (%s) | %s |" % (i + 1, cell(c["claim"]), cell(c["source"]),
                                              " | ".join(verdict_cell(judged[m.label][i])
                                                         for m in ms)))
    out += ["", "### Claims judged differently", "",
            "Claims that hold on one machine and do not hold on another (a verdict that "
            "was judged on both), with each machine's reason:", ""]
    diff = []
    for i, c in enumerate(first):
        vs = [(m, judged[m.label][i]) for m in ms]
        judged_vs = set(x["verdict"] for _, x in vs if x["verdict"] in JUDGED)
        if len(judged_vs) > 1:
            diff.append("- #%d %s: %s" % (i + 1, cell(c["claim"]), "; ".join(
                "%s: %s (%s)" % (cell(m.label), x["verdict"], cell(x["reason"]))
                for m, x in vs)))
    out += diff or ["None."]
    out.append("")
    return out
