# SPDX-License-Identifier: MIT
"""Every claim judged (evaluate): its rule's verdict, then the general rules of
claims/core.py's RULES applied whatever the rule says (the declared threads
and nodes, an emulated CPU, the runs behind a verdict, an up-to claim measured
at fewer thread counts, the paper's machine, by construction), and the notes
said beside a measurement (the timer's real step, bimodal throughput points).
Standard library only.
"""

import re

from claims.core import (BY_CONSTRUCTION, CONSISTENT, DATA, FAILS, HOLDS, INCONCLUSIVE, JUDGED,
                         NM, NO_TEST)
from stats import BIMODAL_GAP

def unmet_needs(ctx, c):
    """The generated reason why claim c cannot be judged here because it declares
    more threads or NUMA nodes than this result set has, or None."""
    why = ctx.nodes_reason(c)
    if why or c.threads <= 1 or c.threads_upto:
        return why
    for fid in c.figure.split(", "):
        panels = [st for (f, _), st in ctx.figs.stats.items() if f == fid]
        if not panels:
            continue   # no data: the rule says so
        fig = ctx.figs.entry(fid)
        if fig.mode == "count":
            used = ctx.count_threads(fig.source)
            if used < c.threads:
                return ctx.threads_reason(c, used=used)
        else:
            stats = {}
            for st in panels:
                stats.update(st)
            if ctx.xs(stats, list(stats))[-1] < c.threads:
                return ctx.threads_reason(c, stats)
    return None


def measured_threads(ctx, c):
    """The thread counts of the claim's figures (timed ones), sorted."""
    xs = set()
    for fid in c.figure.split(", "):
        for (f, _), st in ctx.figs.stats.items():
            if f == fid and ctx.figs.entry(fid).mode != "count":
                xs.update(x for pts in st.values() for x in pts)
    return sorted(xs)


def paper_machine_threads(ctx, c):
    """The thread count a paper_threads claim was judged at: the largest of its
    figures (count-to-N: the threads of their runs)."""
    used = 0
    for fid in c.figure.split(", "):
        fig = ctx.figs.entry(fid)
        if fig.mode == "count":
            used = max(used, ctx.count_threads(fig.source))
        else:
            used = max([used] + measured_threads(ctx, c))
    return used


def span(xs):
    return "%d" % xs[0] if len(xs) == 1 else "%d-%d" % (xs[0], xs[-1])


# Figures whose claims are about error or accuracy, not time: the only ones judged
# on an emulated CPU (where every timing measures the emulator, not a CPU).
ERROR_FIGURES = ("dice-fig6-low", "dice-fig6-high", "ayers-accuracy", "ayers-accuracy-detail",
                 "ayers-accuracy-tunable")


def emulated_reason(ctx, c):
    """Why claim c is not measurable on an emulated CPU (meta.json cpu_emulation,
    results/README.md), or None: a claim with a figure that is not an error or
    accuracy figure is a timing claim."""
    emu = ctx.m.get("cpu_emulation") or {}
    if emu.get("emulated") is not True:
        return None
    if all(f.strip() in ERROR_FIGURES for f in c.figure.split(",")):
        return None
    return ("emulated CPU (%s): its timings measure the emulator, not a processor"
            % emu.get("hypervisor", "unknown"))


def bimodal_text(points):
    """'MultilineAdapt at 2 thr: 1 of 3 runs 1.4x above the rest; ...'."""
    return "; ".join("%s at %g thr: %d of %d runs %.2gx %s the rest" % (
        s, x, min(lo, hi), lo + hi, g, "above" if hi <= lo else "below")
        for s, x, lo, hi, g in points)


def bimodal_notes(ctx):
    """{figure id: the note on its bimodal throughput points} (REPORT.md's figures)."""
    out = {}
    for (fid, panel), pts in sorted(ctx.bimodal().items()):
        out.setdefault(fid, []).append(
            "bimodal throughput%s (runs split by more than %gx, two regimes rather than "
            "noise; a median of them is one regime's): %s"
            % (" (%s)" % panel.lstrip("-") if panel else "", BIMODAL_GAP, bimodal_text(pts)))
    return out


def timing_notes(ctx, c, measured):
    """The notes said beside claim c's measurement: the timer's real step for a
    read-cost claim on ns, the bimodal throughput points of its figures among the
    series it names at the thread counts its measurement names."""
    out = []
    figs = [f.strip() for f in c.figure.split(",")]
    if "read-cost" in figs and ("read cost" in c.text or "ns of a get" in c.text
                                or "ns per get" in c.text):
        note = ctx.timer_note("read-cost.csv")
        if note:
            out.append(note)
    pts = [p for (fid, _), ps in ctx.bimodal().items() if fid in figs for p in ps
           if re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(p[0]), c.text)
           and re.search(r"\b%g thr" % p[1], measured or "")]
    if pts:
        out.append("bimodal throughput: " + bimodal_text(pts))
    return out


def runs_could_decide(ctx, c):
    """Whether more runs of the points already measured could decide claim c: not
    when it speaks of more threads than were measured (an up-to claim or one at
    the paper's machine's count), whatever the runs say."""
    xs = measured_threads(ctx, c)
    if c.threads_upto and xs and xs[-1] < c.threads:
        return False
    return not (c.paper_threads and 0 < paper_machine_threads(ctx, c) < c.paper_threads)


def evaluate(ctx, claims):
    """Every claim's entry of claims.json, in order. A rule decides the verdict
    and says first why a claim is not measurable; then, whatever the rule says:
    a claim whose declared threads or nodes this result set does not have is
    not measurable; a judged verdict resting on fewer than claim.min_runs runs
    (the rule's fourth value, required with a judged verdict: without it the
    verdict is inconclusive), or a "holds" of an up-to claim measured
    at fewer thread counts than it speaks of, is inconclusive; a claim true by
    construction that holds gets that verdict, with its measurement (one that
    fails shows the construction broken, and is counted as failed); a claim whose
    opposite() says its measurement could not have failed it here has no test
    here, with that reason."""
    out = []
    for c in claims:
        ctx.needs = []
        res = c.rule(ctx, c)
        measured, verdict, reason = res[:3]
        runs = res[3] if len(res) > 3 else None
        if verdict != NM:
            why = unmet_needs(ctx, c) or emulated_reason(ctx, c)
            if why:
                verdict, reason = NM, why
        if verdict in JUDGED and runs is None:
            verdict, reason = INCONCLUSIVE, ("the rule did not say how many runs its %s "
                                             "rests on (%s)" % (verdict, reason))
        elif verdict in JUDGED and runs < c.min_runs:
            verdict, reason = INCONCLUSIVE, (
                "too few runs: %d per point (or group) here, this verdict needs at least %d; "
                "the rule alone would say %s (%s)" % (runs, c.min_runs, verdict, reason))
        if verdict in (HOLDS, CONSISTENT) and c.threads_upto:
            xs = measured_threads(ctx, c)
            if xs and xs[-1] < c.threads:
                verdict, reason = INCONCLUSIVE, (
                    "evidence only at %s threads; the claim speaks of thread counts up to %d "
                    "(machine: %s PUs); at the counts measured: %s"
                    % (span(xs), c.threads, ctx.m.get("pus", "?"), reason))
        if c.paper_threads and verdict in JUDGED:
            used = paper_machine_threads(ctx, c)
            if used and used < c.paper_threads:
                verdict, reason = INCONCLUSIVE, (
                    "evidence only at %d threads (the most here; machine: %s PUs); %s ran "
                    "this experiment with %d, all its machine's threads; at %d threads: %s, %s"
                    % (used, ctx.m.get("pus", "?"), c.paper, c.paper_threads, used, verdict,
                       reason))
        if c.opposite and verdict in JUDGED + (INCONCLUSIVE,):
            blind = c.opposite(ctx, c)
            if blind:
                verdict, reason = NO_TEST, type(blind)(
                    "%s; the rule alone would say %s (%s)" % (blind, verdict, reason))
                reason.cause = blind.cause
        if c.design_note and verdict == FAILS:
            reason = "%s; by design: %s" % (reason, c.design_note)
        if c.by_construction and verdict in (HOLDS, CONSISTENT):
            verdict, reason = BY_CONSTRUCTION, "%s; measured: %s" % (c.by_construction, reason)
        notes = timing_notes(ctx, c, measured)
        if notes and verdict != NM:
            measured = "; ".join([measured] + notes) if measured else "; ".join(notes)
        entry = {"id": c.id, "source": c.source, "claim": c.text, "figure": c.figure,
                 "measured": measured, "verdict": verdict, "reason": reason, "runs": runs}
        if verdict in (NM, NO_TEST):
            entry["cause"] = getattr(reason, "cause", DATA)
        if verdict == INCONCLUSIVE and res[1] == INCONCLUSIVE and ctx.needs \
                and runs_could_decide(ctx, c):
            entry["needs_runs"] = ctx.needs
        out.append(entry)
    return out
