# SPDX-License-Identifier: MIT
"""The answer REPORT.md opens with, and run-all prints last: which counter to
use on this machine, one row per usage scenario (the rows plots/advice.py
computed, read from claims.json's "advice"), under one caveat line that says
why every answer of the set is provisional (too few runs per point, a
--quick run, a busy machine, an emulated CPU), not one per cell.
Nothing is computed here but the wording. Standard library only."""

import re

from advice import set_caveats
import marks

# The smallest run-all mode whose timed points have enough runs to name a
# winner (plots/claims/core.py MIN_RUNS; harness/runall/plan.py PROTOCOL).
SMALLEST_DECIDING_MODE = "the default mode (3 runs per point)"


def runs_per_point(rows):
    """The fewest runs per point an advice row was decided on when it was too
    few (advice.py's provisional note names the count), else None."""
    counts = []
    for r in rows or []:
        m = re.match(r"provisional: (\d+) run", r.get("provisional") or "")
        if m:
            counts.append(int(m.group(1)))
    return min(counts) if counts else None


def caveats(rs, rows):
    """[(headline, detail)]: every reason the answers are provisional, once."""
    out = []
    runs = runs_per_point(rows)
    quick = rs.get("run_all_mode") == "quick"
    if runs is not None or quick:
        what = "%d run%s per point" % (runs, "" if runs == 1 else "s") if runs is not None \
            else "a --quick run"
        out.append(("provisional, %s" % what,
                    "%sat least 3 runs per point are needed to tell a winner from run-to-run "
                    "noise; %s is the smallest run-all.sh mode that names one" % (
                        "the --quick mode only checks the pipeline; " if quick else "",
                        SMALLEST_DECIDING_MODE)))
    out.extend(set_caveats(rs))
    for lv in rs.get("work_calibration") or []:
        if lv["off_target"]:
            out.append(("%g%% work off its target" % lv["work_pct"], "there single-thread CAS ran "
                        "at %.3g of its 0%% throughput, not %.3g (%.0f%% off, beyond run-all's "
                        "tolerance): the answers at that work compare counters at another work "
                        "than the papers'" % (lv["share"], lv["target"],
                                              100 * abs(lv["share"] / lv["target"] - 1))))
    if any(r.get("marked") or r.get("runner_marked") for r in rows or []):
        out.append(("marked numbers", "a number followed by %s comes from a point drawn "
                    "boxed in its figure: %s" % (marked_flag("b t o"), MARK_WHY)))
    return out


def work_line(rs):
    """The set's one calibration of its external work, or None (REPORT.md's answer)."""
    lv = rs.get("work_calibration")
    return lv and "External work, calibrated once for every counter of the set: %s." % "; ".join(
        "%g%% as %.4g pauses (calibrations %.1f%% apart), single-thread CAS at %.3g of its 0%% "
        "throughput for %.3g" % (v["work_pct"], v["work_iters"], 100 * v["spread"], v["share"],
                                 v["target"]) for v in lv)


MARK_WHY = ", ".join("%s %s" % (c, why) for _, c, why in marks.WHY)


def marked_flag(letters):
    """The short flag after a number read from a marked point."""
    return "[marked: %s]" % letters


def caveat_line(rs, rows):
    """The one line above the table, or None when nothing is provisional:
    each caveat's headline in bold, then its detail, in short sentences."""
    c = caveats(rs, rows)
    if not c:
        return None
    return " ".join("**Caveat: %s.** %s" % (h, sentences(d)) for h, d in c)


def busy_shared(rows):
    """Every answered scenario's point is flagged busy (and there are two or
    more): the flag is said once, not in every answer."""
    answered = [r for r in rows or [] if r.get("best")]
    return len(answered) > 1 and all(r.get("busy") for r in answered)


BUSY_SHARED = "Every answer's point ran on a busy machine (the busy column of its runs)."


def cell(text):
    """Table-safe Markdown: pipes escaped, no line breaks."""
    return (text or "").replace("|", "\\|").replace("\n", " ").strip()


def thread_text(n):
    return "%d thread%s" % (n, "" if n == 1 else "s")


def answer_section(rows, rs, links):
    """The report's first section (links(fig_ids) -> Markdown links)."""
    if rows is None:
        return []
    out = ["## Which counter to use on this machine", ""]
    line = caveat_line(rs, rows)
    shared = busy_shared(rows)
    if line or shared:
        out += [" ".join(t for t in (line, shared and "**Flag:** " + BUSY_SHARED) if t), ""]
    line = work_line(rs)
    if line:
        out += [line, ""]
    out += ["| Scenario | Best here | Figure | Runner-up | Rule |", "|---|---|---|---|---|"]
    for r in rows:
        if not r.get("best"):
            out.append("| %s | - | - | - | %s; %s |" % (cell(r["scenario"]), cell(r["rule"]),
                                                    cell(r.get("reason"))))
            continue
        best = "**%s**: %s at %s" % (r["best"], r["value"], thread_text(r["threads"]))
        if r.get("marked"):
            best += " " + marked_flag(r["marked"])
        if r.get("margin"):
            best += " (%s)" % r["margin"]
        if r.get("caveat"):
            best += ". Caveat: %s" % r["caveat"]
        if r.get("busy") and not shared:
            best += ". Flag: %s" % r["busy"]
        runner = "-"
        if r.get("runner_up"):
            runner = "%s: %s%s (%s)" % (r["runner_up"], r["runner_value"],
                                        (" " + marked_flag(r["runner_marked"])
                                         if r.get("runner_marked") else ""),
                                        links([r["runner_figure"]]))
        out.append("| %s | %s | %s | %s | %s |" % (
            cell(r["scenario"]), cell(best), cell(links([r["figure"]])), cell(runner),
            cell(r["rule"])))
    out += ["",
            "The best variant measured here for each usage scenario and the runner-up, by "
            "the rule in the last column (`plots/advice.py`). Serial (racy: it loses "
            "updates) is never a candidate. Every variant tied with the best (its min-max "
            "band overlaps the best's) is named; a probabilistic counter's accuracy is a "
            "contract in probability (an RSTDV), not a bound on each read; a stale get (it "
            "may miss completed increments) competes only where the scenario says it is "
            "acceptable. `plots/compare` tells whether another machine differs, "
            "`plots/atlas` puts several machines side by side.", ""]
    return out


def sentences(text, first_upper=True):
    """text's clauses ("a; b") as short sentences: "A. B." (the first one's
    case kept when not first_upper)."""
    parts = [p.strip().rstrip(".") for p in text.split("; ") if p.strip()]
    return " ".join("%s." % (p if i == 0 and not first_upper else p[0].upper() + p[1:])
                    for i, p in enumerate(parts))


def wrapped(line, width):
    """line wrapped (never cut) to width columns, each continuation indented
    two more than its first line."""
    import textwrap
    lead = line[:len(line) - len(line.lstrip(" "))]
    return textwrap.wrap(line, width=max(width, 40), subsequent_indent=lead + "  ",
                         break_long_words=False, break_on_hyphens=False) or [line]


def terminal_width():
    """The terminal's columns ($COLUMNS first, as the shell sets it); None
    (lines left whole) when standard output is no terminal and COLUMNS is
    not set: a file or a pipe reads one answer per line."""
    import os
    import sys
    try:
        return int(os.environ.get("COLUMNS", ""))
    except ValueError:
        pass
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns if sys.stdout.isatty() else None
    except (OSError, ValueError):
        return None


def terminal_lines(rows, rs, report_path, width=None):
    """The scenario lines run-all prints when it ends: per scenario the
    counter, its figure and the runner-up, under the caveats, each in short
    sentences, every line wrapped to width (the terminal's). A busy flag
    every answer shares is said once, above them. [] when the set has no
    advice."""
    if not rows:
        return []
    width = width or terminal_width()
    out = ["Which counter to use here (the table that opens %s):" % report_path]
    for h, d in caveats(rs, rows):
        out.append("  Caveat: %s %s" % (sentences(h, False), sentences(d)))
    shared = busy_shared(rows)
    if shared:
        out.append("  " + BUSY_SHARED)
    for r in rows:
        out.append("  %s" % r["scenario"])
        if not r.get("best"):
            out.append("    none: %s" % (r.get("reason") or "no answer"))
            continue
        line = "    %s: %s at %s [%s]" % (r["best"], r["value"], thread_text(r["threads"]),
                                          r["figure"])
        if r.get("marked"):
            line += " " + marked_flag(r["marked"])
        if r.get("runner_up"):
            gap = re.match(r"(the runner-up costs [0-9.]+x as much|[0-9.]+x the runner-up's "
                           r"\w+)", r.get("margin") or "")
            line += "; runner-up %s, %s%s%s" % (
                r["runner_up"], r["runner_value"],
                " " + marked_flag(r["runner_marked"]) if r.get("runner_marked") else "",
                " (%s)" % gap.group(1) if gap else "")
            if r.get("ties"):
                line += "; tied within noise with %d more" % len(r["ties"])
        if r.get("busy") and not shared:
            line += " [%s]" % r["busy"]
        out.append(line)
    return out if not width else [w for line in out for w in wrapped(line, width)]
