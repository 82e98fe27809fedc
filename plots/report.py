#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""report.py DIR - write DIR/REPORT.md: which claims of the two papers hold here.

Formats DIR/figdata/claims.json (the claims, measurements and verdicts that
plots/aggregate.py computed) as Markdown: a header on the machine and the run,
a legend of the verdicts, one table row per claim, the figures made, notes. A
run restricted to some experiments or variants lists only the claims it can
speak to, and says in one line how many it left out and why (claims.json's
"left_out", plots/claims/restriction.py).
Nothing is computed here. Standard library only. Exit status 0, 1 if
claims.json is missing, 2 on bad usage.
"""

import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "harness"))  # runall.guard
from runall.guard import guarded  # noqa: E402
from report_answer import answer_section, terminal_lines  # noqa: E402
from resultset_summary import load_text  # noqa: E402
from writing import write_atomically  # noqa: E402
from needs import needs_runs  # noqa: E402


# How each verdict of claims.json is written: in a row, and counted in the summary
# (in this order). A new verdict of plots/claims/core.py gets a line here.
# A verdict with no count phrase (None) is listed apart and not counted.
VERDICT_TEXT = [("holds", "**holds**", "%d hold"),
                ("consistent with", "**consistent with**", "%d consistent with it (within a "
                 "stated tolerance)"),
                ("does not hold", "**does not hold**", "%d do not hold"),
                ("inconclusive", "*inconclusive*", "%d are inconclusive"),
                ("no test here", "*no test here*", "%d have no test here (the measurement "
                 "could not have failed them)"),
                ("not measurable", "*not measurable*", "%d are not measurable here"),
                ("by construction", "*by construction*", None)]
VERDICT_MD = {v: md for v, md, _ in VERDICT_TEXT}
APART = [v for v, _, phrase in VERDICT_TEXT if phrase is None]


def cell(text):
    """Table-safe Markdown: pipes escaped, no line breaks."""
    return (text or "").replace("|", "\\|").replace("\n", " ").strip()


def figure_links(d, ids):
    out = []
    for fid in ids:
        fid = fid.strip()
        for ext in ("png", "svg", "pdf"):
            if os.path.isfile(os.path.join(d, "figures", "%s.%s" % (fid, ext))):
                out.append("[%s](figures/%s.%s)" % (fid, fid, ext))
                break
        else:
            out.append(fid)
    return ", ".join(out)


def provenance_rows(rs):
    """The schema version, the CPU (doc/design.md §10 provenance) and the build. A result
    set written before schema 2 has no cpu record: it says so, never guesses."""
    versions = rs.get("schema_versions")
    if not versions:
        return []
    rows = [("Result schema", "%s%s" % (", ".join("%d" % v for v in versions),
                                         " (mixed: files from different scbench versions)"
                                         if len(versions) > 1 else ""))]
    cpu = rs.get("cpu")
    if cpu:
        def f(key):
            v = cpu.get(key)
            return "unknown" if v is None else "%s" % v

        def mhz():
            lo, hi = f("min_mhz"), f("max_mhz")
            return "unknown" if lo == hi == "unknown" else "%s-%s MHz" % (lo, hi)
        n = cpu.get("sockets")
        rows.append(("CPU", "%s (%s); %s socket%s, %s cores, %s PUs; SMT %s" % (
            f("model"), f("vendor"), f("sockets"), "" if n == 1 else "s", f("cores"),
            f("pus"), f("smt"))))
        freq = "governor %s, boost %s, frequency %s" % (f("governor"), f("boost"), mhz())
        if (f("governor") not in ("performance", "unknown")) or f("boost") == "on":
            freq += " (not a fixed clock: throughput may drift between runs and machines)"
        rows.append(("Frequency", freq))
    else:
        rows.append(("CPU", "not recorded (schema %d)" % versions[0]))
        rows.append(("Frequency", "governor and boost not recorded (schema %d)" % versions[0]))
    if rs.get("compiler"):
        cc = rs["compiler"]
        if rs.get("compiler_command"):
            cc += " (`%s`)" % rs["compiler_command"]
        elif 1 in versions:
            cc += " (version only: schema 1)"
        rows.append(("Build", "compiler %s, CFLAGS %s" % (cc, rs.get("cflags") or "(none)")))
    return rows


def header_rows(rs):
    rows = []
    if rs.get("host"):
        hosts = ("from %d machines (%s)" % (len(rs["hosts"]), ", ".join(map(str, rs["hosts"])))
                 if rs.get("hosts") else rs["host"])
        topo = rs.get("topology") or "topology unknown"
        nodes = rs.get("nodes_text", "")
        rows.append(("Machine", "%s: %s; %s; cache line %s B; kernel %s" % (
            hosts, topo, nodes, rs.get("cache_line", "?"), rs.get("kernel", "?"))))
    dates = rs.get("dates") or []
    if dates:
        rows.append(("Date (UTC)", dates[0] if len(dates) == 1 else "%s to %s" % (dates[0], dates[-1])))
    mode = []
    if rs.get("run_all_mode"):
        mode.append("run-all.sh %s mode" % ("--" + rs["run_all_mode"]
                                              if rs["run_all_mode"] != "default" else "default"))
    for key, what in (("run_all_experiments", "experiments"), ("run_all_variants", "variants")):
        if rs.get(key):
            mode.append("only the %s %s" % (what, ", ".join(rs[key])))
    pt = rs.get("protocol_timed")
    if pt:
        mode.append("timed points: %s s warm-up + %s s measured, %s run%s per point"
                    % (pt["warmup_s"], pt["duration_s"], pt["runs"],
                       "" if str(pt["runs"]) == "1" else "s"))
    pc = rs.get("protocol_count")
    if pc:
        mode.append("count-to-N: %s run%s per N" % (pc["runs"], "" if str(pc["runs"]) == "1" else "s"))
    order = rs.get("run_all_order")
    if order:
        mode.append("timed: each run its own scbench invocation, repetition r of every point "
                    "before r+1, each round shuffled (order seed %s, run-all.order)"
                    % order.get("order_seed"))
    if mode:
        rows.append(("Mode", "; ".join(mode) + " (the papers: 2 s + 8 s, median of 5)"))
    if rs.get("scbench_version") or rs.get("source_revision"):
        rev = rs.get("source_revision")
        if rs.get("source_revisions"):
            rev = ", ".join(rs["source_revisions"]) + " (mixed!)"
        rows.append(("Source", "scbench %s, revision %s" % (rs.get("scbench_version", "?"), rev)))
    rows.extend(provenance_rows(rs))
    emu = rs.get("cpu_emulation")
    if emu:
        rows.append(("CPU emulation", "%s: %s" % (emu.get("hypervisor"), {
            True: "emulated CPU: no timing claim is judged (not measurable), error and "
                  "accuracy claims are", False: "not emulated",
            None: "unknown whether emulated"}.get(emu.get("emulated"), "unknown"))))
    rows.append(("Machine load", load_text(rs.get("load"))))
    if rs.get("binding"):
        rows.append(("Placement", rs["binding"]))
    if rs.get("pmu_status"):
        rows.append(("Hardware events", rs["pmu_status"]))
    present = rs.get("files_present", [])
    missing = rs.get("files_missing") or []
    rows.append(("Result files", "%d of %d present%s" % (
        len(present), len(present) + len(missing),
        "; missing: " + ", ".join(missing) if missing else "")))
    return rows


FAILED_POINTS = "failed-points.csv"


def failed_points(d):
    """The points run-all.sh recorded as failed (DIR/failed-points.csv: experiment,
    part, args, reason; results/README.md), as (experiment, part, reason). Data,
    checked field by field: a malformed row is reported as such, never guessed at."""
    import csv
    import re
    path = os.path.join(d, FAILED_POINTS)
    if not os.path.isfile(path):
        return []
    rows = []
    try:
        with open(path, newline="", encoding="utf-8") as f:
            for i, r in enumerate(csv.reader(f)):
                if i == 0:
                    if r != ["experiment", "part", "args", "reason"]:
                        return [("?", "?", "%s: unexpected header, not read" % FAILED_POINTS)]
                    continue
                ok = (len(r) == 4 and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", r[0])
                      and re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", r[1]))
                if not ok:
                    rows.append(("?", "?", "line %d of %s is malformed" % (i + 1, FAILED_POINTS)))
                    continue
                rows.append((r[0], r[1], r[3][:600]))
    except (UnicodeDecodeError, csv.Error) as e:
        why = "not UTF-8 text" if isinstance(e, UnicodeDecodeError) else "not a CSV file"
        rows = [("?", "?", "%s is %s, not read" % (FAILED_POINTS, why))]
    return rows


def failed_points_section(d):
    rows = failed_points(d)
    if not rows:
        return []
    out = ["## Failed points", "",
           "%d point%s could not be measured; run-all.sh recorded %s and went on (`%s`; "
           "`./run-all.sh --resume DIR` tries them again). Figures and claims lack them." % (
               len(rows), "" if len(rows) == 1 else "s", "it" if len(rows) == 1 else "them",
               FAILED_POINTS), "",
           "| Experiment | Part | Why |", "|---|---|---|"]
    for exp, part, why in rows:
        out.append("| %s | %s | %s |" % (cell(exp), cell(part), cell(why)))
    out.append("")
    return out


def runs_text(runs):
    """'3 runs': what the verdict rests on, as the claim's rule counts them."""
    return "%d run%s" % (runs, "" if runs == 1 else "s")


def confirm_added(d):
    """(rounds, {experiment: runs}) that run-all's --confirm added, counted from the
    confirmation rounds recorded in d/run-all.order (each under its "# confirmation
    round K" comment), never inferred from run counts; (0, {}) without that file."""
    rounds, added, inside = 0, {}, False
    try:
        with open(os.path.join(d, "run-all.order"), encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return 0, {}
    for line in lines:
        if line.startswith("#"):
            inside = line.startswith("# confirmation round ")
            rounds += inside
        elif inside and line.split():
            added[line.split()[0]] = added.get(line.split()[0], 0) + 1
    return rounds, added


def confirm_text(d):
    """The line under the claims' heading on the runs --confirm added, or None."""
    rounds, added = confirm_added(d)
    if not added:
        return None
    return ("Runs added by --confirm (counted from run-all.order's confirmation rounds): %d "
            "in %d round%s, %s; every other run was planned." % (
                sum(added.values()), rounds, "" if rounds == 1 else "s",
                ", ".join("%d to %s" % (n, e) for e, n in sorted(added.items()))))


def claim_table(out, d, claims, number):
    out.append("| # | Claim (source) | Figure | Measured here | Verdict |")
    out.append("|---|---|---|---|---|")
    for i, c in enumerate(claims, 1):
        verdict = VERDICT_MD.get(c["verdict"], c["verdict"])
        if c.get("cause"):
            verdict += " (%s)" % c["cause"]
        if c.get("runs") is not None and c["verdict"] not in ("not measurable", "no test here"):
            verdict += " (%s)" % runs_text(c["runs"])
        if c.get("reason"):
            verdict += ": " + c["reason"]
        out.append("| %s | %s (%s) | %s | %s | %s |" % (
            number % i, cell(c["claim"]), cell(c["source"]),
            cell(figure_links(d, c["figure"].split(","))),
            cell(c["measured"]) or "-", cell(verdict)))
    out.append("")


def measured_section(d, rs):
    """REPORT.md's "What was measured": what the report judges, and the header table."""
    out = ["## What was measured", ""]
    out.append("Which claims of Dice, Lev and Moir, *Scalable Statistics Counters* (SPAA 2013) "
               "and of Ayers, *Scalable Approximate Counting* (2023) hold on this machine, "
               "measured by scbench in result set `%s`. Generated by `plots/report.py` from "
               "`figdata/claims.json` (computed by `plots/aggregate.py`); regenerate with "
               "`plots/regen %s`." % (os.path.basename(os.path.abspath(d)), "DIR"))
    out.append("")
    out.append("| | |")
    out.append("|---|---|")
    for k, v in header_rows(rs):
        out.append("| %s | %s |" % (k, cell(v)))
    out.append("")
    return out


def summary_lines(doc, claims, apart):
    """The claims counted by verdict, what a restricted run left out, and the claims
    not measurable by cause: the lines under "## Claims"."""
    counts = {}
    for c in claims + apart:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    out = ["**%d claims: %s.**%s" % (len(claims), ", ".join(
        phrase % counts.get(v, 0) for v, _, phrase in VERDICT_TEXT if phrase),
        " (Not counted: %d that hold%s by construction, listed apart below.)"
        % (len(apart), "s" if len(apart) == 1 else "") if apart else "")]
    left_out = doc.get("left_out")
    if left_out:
        out.append("")
        out.append(left_out["text"])
    causes = doc.get("not_measurable_causes") or {}
    by_cause = {}
    for c in claims:
        if c["verdict"] == "not measurable":
            by_cause[c.get("cause")] = by_cause.get(c.get("cause"), 0) + 1
    if by_cause:
        out.append("")
        out.append("Not measurable here, by cause: %s." % "; ".join(
            "%d: %s" % (by_cause[k], causes.get(k, k or "cause not recorded"))
            for k in list(causes) + sorted((k for k in by_cause if k not in causes), key=str)
            if k in by_cause))
    return out


def legend_lines(doc):
    """What each verdict means and the rules applied to every claim, as lines."""
    out = ["", "Verdicts:"]
    for v, meaning in doc.get("verdicts", {}).items():
        out.append("- %s: %s." % (VERDICT_MD.get(v, v), meaning))
    out.append("")
    out.append("Rules applied to every claim (plots/claims/core.py):")
    for r in doc.get("rules", []):
        out.append("- *%s*: %s" % (r["name"], r["text"]))
    out.append("")
    out.append("")
    return out


def figures_section(d, doc):
    """REPORT.md's "Figures": each figure's images and data, or why it was not made."""
    out = ["## Figures", ""]
    out.append("Each figure as PNG (gnuplot) and PDF/SVG (matplotlib) under `figures/`; "
               "its data (median, min, max, mean, 5th/95th percentiles per point, and the "
               "analytic envelope) in `figdata/<figure>.dat`.")
    out.append("")
    for f in doc.get("figures", []):
        fid = f["id"]
        if f["status"] != "ok":
            out.append("- `%s`: not made: %s" % (fid, f["detail"]))
            continue
        made = [ext for ext in ("png", "pdf", "svg")
                if os.path.isfile(os.path.join(d, "figures", "%s.%s" % (fid, ext)))]
        links = " ".join("[%s](figures/%s.%s)" % (e, fid, e) for e in made) or \
            "no image (renderer missing or failed)"
        out.append("- `%s`: %s; data: %s" % (fid, links, ", ".join(
            "`figdata/%s`" % x for x in f["detail"].split())))
        for reading in f.get("end_states") or []:
            out.append("  - End states of its runs: %s." % reading)
        for note in f.get("measured_notes") or []:
            out.append("  - %s%s." % (note[0].upper(), note[1:]))
    return out


def render(d, doc):
    """REPORT.md of result set d from its claims.json doc."""
    rs = doc.get("result_set", {})
    # a restricted run lists only the claims it can speak to (claims/restriction.py)
    claims = [c for c in doc.get("claims", []) if not c.get("left_out")]
    out = []
    title = "Report"
    if rs.get("host"):
        title += ": %s" % rs["host"]
    out.append("# %s" % title)
    out.append("")
    out.extend(answer_section(doc.get("advice"), rs, lambda ids: figure_links(d, ids)))
    out.extend(measured_section(d, rs))
    out.append("## Claims")
    out.append("")
    apart = [c for c in claims if c["verdict"] in APART]
    claims = [c for c in claims if c["verdict"] not in APART]
    out.extend(summary_lines(doc, claims, apart))
    out.extend(legend_lines(doc))
    if confirm_text(d):
        out.extend([confirm_text(d), ""])
    claim_table(out, d, claims, "%d")
    if apart:
        out.append("## Claims that hold by construction (not counted)")
        out.append("")
        claim_table(out, d, apart, "C%d")
    out.extend(failed_points_section(d))
    out.extend(figures_section(d, doc))
    notes = doc.get("notes") or []
    if notes:
        out.append("")
        out.append("## Notes")
        out.append("")
        for n in notes:
            out.append("- %s" % n)
    out.append("")
    out.append("Percentiles: %s." % doc.get("percentile_method", "see plots/aggregate.py"))
    out.append("")
    return "\n".join(out)


USAGE = ("usage: report.py DIR            writes DIR/REPORT.md from DIR/figdata/claims.json\n"
         "       report.py --answer DIR   prints which counter to use (REPORT.md's first "
         "table) as plain lines\n"
         "       report.py --needs-runs DIR   prints as JSON the points near their line "
         "whose claims more runs may decide (run-all's --confirm)")


def main(argv):
    answer = len(argv) == 3 and argv[1] == "--answer"
    needs = len(argv) == 3 and argv[1] == "--needs-runs"
    if answer or needs:
        argv = argv[:1] + argv[2:]
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print(USAGE, file=sys.stdout if len(argv) == 2 else sys.stderr)
        return 0 if len(argv) == 2 else 2
    d = argv[1]
    path = os.path.join(d, "figdata", "claims.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("report.py: %s: %s (run plots/aggregate.py %s first)"
              % (path, str(e).splitlines()[0], d), file=sys.stderr)
        return 1
    if not isinstance(doc, dict):
        print("report.py: %s: not a JSON object (run plots/aggregate.py %s)" % (path, d),
              file=sys.stderr)
        return 1
    if needs:
        print(json.dumps(needs_runs(doc)))
        return 0
    if answer:
        lines = terminal_lines(doc.get("advice"), doc.get("result_set", {}),
                               os.path.join(d, "REPORT.md"))
        if lines:
            print("\n".join(lines))
        return 0
    text = render(d, doc)
    try:
        write_atomically(os.path.join(d, "REPORT.md"), text)
    except OSError as e:
        print("report.py: %s: %s" % (e.filename or d, e.strerror or e), file=sys.stderr)
        return 1
    entries = doc.get("claims", [])
    left = sum(1 for c in entries if c.get("left_out"))
    print("report.py: %s (%d claims%s)" % (os.path.join(d, "REPORT.md"), len(entries) - left,
                                           ", %d left out" % left if left else ""))
    return 0


if __name__ == "__main__":
    sys.exit(guarded("report.py", main, sys.argv))
