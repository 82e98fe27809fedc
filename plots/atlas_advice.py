# SPDX-License-Identifier: MIT
"""ATLAS.md's section "Which counter to use, per machine": the answer of every
scenario of plots/advice.py on each machine, with its caveats in short, and
the scenarios whose best variant differs between machines. Nothing is judged
here: the answers are advice.answers'.
"""

import advice
from claims.core import MIN_RUNS
from report import cell

PROV = "provisional: "


def tags(row, set_cav):
    """The caveats of one answer, short (the legend gives advice's full text)."""
    out = []
    if row.get("provisional"):
        out.append(PROV + "few runs")
    out += [PROV + h for h, _ in set_cav]
    if row.get("busy"):
        out.append("busy point")
    best = (row.get("best") or "").split("[")[0]
    if best in advice.STALE_READ:
        out.append("stale get")
    elif row.get("caveat") == advice.PROBABILISTIC_CAVEAT:
        out.append("by contract")
    return out


def answer_cell(row, set_cav):
    if not row.get("best"):
        return "- (%s)" % row.get("reason")
    text = "**%s**" % row["best"]
    if row["ties"]:
        text += " = %s" % ", ".join(row["ties"])
    text += " (%s, %d thr)" % (row["value"], row["threads"])
    t = tags(row, set_cav)
    if t:
        text += " [%s]" % "; ".join(t)
    return text


def disagreement(sc, ms, rows, answers):
    """One line on a scenario whose best differs between machines, or None."""
    named = [(m, rows[m.label]) for m in ms if rows[m.label].get("best")]
    why = [(m, [t[len(PROV):] for t in tags(r, answers[m.label]["set_caveats"])
                if t.startswith(PROV)]) for m, r in named]
    shaky = ["%s (%s)" % (m.label, "; ".join(w)) for m, w in why if w]
    shaky = (" Provisional on %s: the difference may be that set's noise or load."
             % ", ".join(shaky)) if shaky else ""

    def measured(m):
        return set(s for p in sc.panels for s in (m.figs.stats.get(p) or {}))
    absent = ["%s on %s" % (r["best"], o.label) for m, r in named for o, _ in named
              if o is not m and r["best"] not in measured(o)]
    if absent:
        shaky += " Not measured everywhere: %s." % ", ".join(sorted(set(absent)))
    verdict, common, _ = advice.judge({m.label: r for m, r in named})
    if verdict == "same":
        return None
    where = "; ".join("%s on %s (%d thr)" % (r["best"], m.label, r["threads"]) for m, r in named)
    if verdict == "noise":
        return ("*%s*: %s; within run-to-run noise: %s tied for best on every machine.%s"
                % (sc.text, where, ", ".join(common), shaky))
    threads = set(r["threads"] for _, r in named)
    why = (" (judged at different thread counts: the contention differs)"
           if len(threads) > 1 else "")
    return ("*%s*: %s; no variant is tied for best on every machine%s.%s"
            % (sc.text, where, why, shaky))


def advice_section(ms, answers):
    out = ["## Which counter to use, per machine", "",
           "For each usage scenario of REPORT.md's \"Which counter to use on this machine\" "
           "(`plots/advice.py`: the same rules, computed from each set), the best variant on "
           "each machine, every variant tied with it (`=`: its min-max band overlaps the "
           "best's), its measure and the thread count judged (the most measured without "
           "oversubscription, so it differs between machines). Serial (racy) is never a "
           "candidate. Caveats in brackets: *by contract* (a probabilistic counter: %s), "
           "*stale get* (%s), *provisional: few runs* (under %d runs per point: no winner "
           "with confidence), *provisional: the machine was busy* / *the CPU was emulated* "
           "(the whole set)." % (advice.PROBABILISTIC_CAVEAT,
                                 "; ".join("%s: %s" % kv for kv in advice.STALE_READ.items()),
                                 MIN_RUNS), "",
           "| Scenario | %s |" % " | ".join(cell(m.label) for m in ms),
           "|---|" + "---|" * len(ms)]
    for i, sc in enumerate(advice.SCENARIOS):
        out.append("| %s | %s |" % (cell(sc.text), " | ".join(
            cell(answer_cell(answers[m.label]["rows"][i], answers[m.label]["set_caveats"]))
            for m in ms)))
    out += ["", "Rules (as REPORT.md states them):", ""]
    out += ["- *%s*: %s" % (sc.text, sc.rule()) for sc in advice.SCENARIOS]
    out += ["", "### Where the machines disagree", ""]
    lines = [disagreement(sc, ms, {m.label: answers[m.label]["rows"][i] for m in ms}, answers)
             for i, sc in enumerate(advice.SCENARIOS)]
    lines = [x for x in lines if x]
    out += ["- " + x for x in lines] if lines else [
        "Nowhere: every scenario has the same best variant on every machine where one was "
        "named."]
    out.append("")
    return out
