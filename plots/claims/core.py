# SPDX-License-Identifier: MIT
"""What a claim is, the verdicts, and what a verdict rule may ask of the result set.

A claim is a declaration (Claim): its id, the paper section it comes from, its
sentence (with the threshold the verdict uses for words like "about"), the
figure that shows it, the thread count and NUMA nodes it needs, and its verdict
rule. A rule is a function rule(ctx, claim) -> (measured, verdict, reason):
what was measured here (text), one of VERDICTS, and why. The "not measurable"
reasons for too few threads or nodes are generated here from the declared
needs (threads_reason, nodes_reason), never written per claim, and evaluate()
enforces the needs whatever the rule says.
Standard library only.
"""

import re

from stats import (BIMODAL_GAP, MEDIAN_TAIL, bimodal_split, group_stats, ratio_false_verdict,
                   timer_step)

HOLDS, FAILS, NM = "holds", "does not hold", "not measurable"
CONSISTENT, INCONCLUSIVE, BY_CONSTRUCTION = "consistent with", "inconclusive", "by construction"
# The verdicts and their meaning (REPORT.md's legend); plots/report.py's
# VERDICT_TEXT says how each is written and counted.
VERDICTS = {HOLDS: "the measurement here agrees with the claim, at every point in range and "
                   "with every point decided by more than one run",
            CONSISTENT: "the measurement agrees only within the stated tolerance for sampling "
                        "error (it does not pass the claim's bound itself)",
            FAILS: "it was measured here and disagrees (at a point not decided by one run)",
            INCONCLUSIVE: "measured, but the evidence is too thin to decide: too few runs, a "
                          "point that one run decides, or evidence only at thread counts other "
                          "than the claim's (the reason says which)",
            NM: "this result set cannot test it (the reason says why)",
            BY_CONSTRUCTION: "true because the harness makes it so (a calibration or a "
                             "definition); listed apart and not counted"}
JUDGED = (HOLDS, CONSISTENT, FAILS)
# Runs per point below which no claim is judged: the papers report the median of 5;
# with fewer than 3 a median is a single run or the mean of two.
MIN_RUNS = 3

# Why a claim is not measurable here: each "not measurable" verdict has one cause,
# and REPORT.md's summary counts them apart. A rule names its cause with
# not_measurable(cause, text); the reasons made by threads_reason and nodes_reason
# are MACHINE, any other reason is DATA. A new cause is one line here.
MACHINE, PLAN, RUN_LENGTH, CONDITION, DATA = ("machine", "plan", "run length", "condition",
                                              "data")
NM_CAUSES = {MACHINE: "too few PUs or NUMA nodes on this machine",
             PLAN: "the experiment is not in run-all.sh's plan, or scbench does not record "
                   "what it needs",
             RUN_LENGTH: "runs too short for the count the claim speaks of (run "
                         "./run-all.sh --paper-errors)",
             CONDITION: "the claim's condition never arose in these runs (e.g. an adaptive "
                        "counter that never switched)",
             DATA: "a result file or series is missing from this set"}


class Reason(str):
    """A reason with the cause of a "not measurable" verdict (one of NM_CAUSES)."""
    cause = DATA


def not_measurable(cause, text):
    """The reason of a "not measurable" verdict, tagged with its cause."""
    r = Reason(text)
    r.cause = cause
    return r


# The "condition" rule: a count-to-N time is compared only where every series takes
# at least STARTUP_FACTOR times its time at the smallest N (its start-up: thread
# creation and the barrier); claims/rules.py's startup_dominated applies it.
STARTUP_FACTOR = 10

# The fewest runs whose min-max band alone reaches the noise rule's one-sided miss.
FULL_CONFIDENCE_RUNS = next(n for n in range(1, 64) if 2.0 ** -n <= MEDIAN_TAIL)

# The general rules every verdict follows, stated in REPORT.md (in this order). A
# rule in plots/claims that changes what is judged where gets a line here.
RULES = [
    ("named threads", "A claim that names a thread count (\"at 256 threads\") is judged only "
     "at that count, never rescaled to a smaller machine: without it, not measurable (too few "
     "PUs); the measured column shows the largest count here for context."),
    ("paper's machine", "A claim from an experiment the paper ran with all its machine's "
     "threads without naming a count (Ayers's 12) is judged at the largest thread count here; "
     "when that is below the paper's, its verdict is shown but counted inconclusive (evidence "
     "only at another thread count). A claim over a range (\"up to 8 threads\", a figure's "
     "whole axis) is judged at every count measured in it and holds only if the range was "
     "measured; a failure at a measured count stands."),
    ("noise", "A comparison is decided at a point only if it clears its line by more than the "
     "noise: a point where leaving one run out changes the answer (a point one run decides), "
     "or where the line falls inside the interval on the ratio of the two medians, is "
     "inconclusive. The interval is distribution-free (order statistics, no resampling and "
     "no seed): each series' median lies in [x(k), x(n+1-k)] of its n sorted runs, k the "
     "largest whose one-sided miss P(Bin(n, 1/2) < k) is at most %.4g%% (the min-max band, k "
     "= 1, below %d runs), and the ratio's interval is [lo(a)/hi(b), hi(a)/lo(b)]. It "
     "narrows as runs are added (about as 1/sqrt(n)), so more runs decide more points. Its "
     "false-verdict rate under the null (the true ratio of medians on the line) is at most "
     "2(1 - (1 - q(a))(1 - q(b))) for any distributions, q the one-sided misses: at most "
     "%.3g%% with %d or more runs per series, %.3g%% at 5 and %.3g%% at 3, where the min-max band "
     "is the best interval those runs give (each point's reason states its rate)."
     % (100 * MEDIAN_TAIL, FULL_CONFIDENCE_RUNS,
        100 * ratio_false_verdict(MEDIAN_TAIL, MEDIAN_TAIL), FULL_CONFIDENCE_RUNS,
        100 * ratio_false_verdict(2.0 ** -5, 2.0 ** -5),
        100 * ratio_false_verdict(2.0 ** -3, 2.0 ** -3))),
    ("condition", "A claim is judged only where the paper's condition applies: points where "
     "an adaptive counter never left its initial mode are left out of a claim about its "
     "switched mode (end_state), points where a probabilistic counter was exact in every run "
     "(it never left its precise mode by design, e.g. BFP-CSUP without contention) are left "
     "out only of the error-range claims about counters in their probabilistic mode (never "
     "out of a comparison the paper states without a contention condition, such as "
     "BFP-CSUP's speed against BFP-DUP's or the adaptive counters in the array), runs whose "
     "BFP exponent saturated at its maximum are left out of the RSTDV bound they no longer "
     "follow, a count-to-N time is compared only at N where "
     "every series takes at least %dx its start-up time (the time at the smallest N: \"at "
     "high counts\"), and a claim on low projected values only at counts that are low; "
     "points left out are named, and with none left the claim is not measurable."
     % STARTUP_FACTOR),
    ("run length", "A claim on how large a probabilistic counter's error gets (every one: Fig. "
     "6's and the array's) is judged on runs of the paper's length (8 s), or on shorter runs "
     "only when 8 s at their throughput would not have counted more than 2x higher; else not "
     "measurable (runs too short)."),
    ("runs", "No claim is judged on fewer than %d runs per point (more where the claim says)."
     % MIN_RUNS),
    ("what the timer and the runs hide", "Beside every read-cost claim on nanoseconds the "
     "report states the timer's real step, measured from the values (the usual gap between "
     "distinct readings), next to the ns per tick meta.json states: a difference below a step "
     "is not resolved. A throughput point whose runs split in two by more than %gx is "
     "bimodal (two regimes, not noise): its figure's notes list it, and so does every claim "
     "that names that variant at that thread count." % BIMODAL_GAP),
    ("by construction", "A claim that holds because the harness or the algorithm makes it so "
     "(a calibration, an exact mode by definition) is listed apart and not counted."),
]


class Claim:
    """One claim of a paper.

    threads: the thread count the claim speaks of; threads_at: the claim is
    judged at exactly that count ("needs 256 threads"), else at that count and
    more ("needs at least 32 threads"); threads_text overrides the phrase
    ({threads} is the count); threads_why is appended to the reason.
    threads_upto: the claim speaks of every thread count up to threads ("up
    to 8 threads", or a paper figure's whole range): it is judged on the counts
    measured, and a "holds" on fewer than those counts becomes inconclusive
    (evidence only at other thread counts) while a failure at a measured count stands.
    nodes: the real NUMA nodes it needs; nodes_why is said after the count.
    min_runs: the least runs per point (or per group, as the rule says) behind
    a verdict; a rule reports the runs it used and evaluate() makes a verdict
    on fewer inconclusive.
    by_construction: why the claim holds by construction (a calibration, a
    definition): it is still measured, and when it holds it is listed apart
    and not counted.
    paper_threads: the thread count of the paper's machine, for a claim from an
    experiment run with all its threads that names no count: judged at the
    largest count here; below paper_threads the verdict is inconclusive (the
    "paper's machine" rule of RULES).
    design_note: why the algorithm, by design, departs from the claim where it
    does; said with a verdict that does not hold.
    """

    def __init__(self, id, source, text, figure, rule, threads=1, threads_at=False,
                 threads_text=None, threads_why="", nodes=1, nodes_why="",
                 threads_upto=False, min_runs=MIN_RUNS, by_construction=None,
                 paper_threads=None, design_note=None):
        self.id, self.source, self.text, self.figure, self.rule = id, source, text, figure, rule
        self.threads, self.threads_at = threads, threads_at
        self.threads_text, self.threads_why = threads_text, threads_why
        self.threads_upto = threads_upto
        self.nodes, self.nodes_why = nodes, nodes_why
        self.min_runs, self.by_construction = min_runs, by_construction
        self.paper_threads = paper_threads
        self.design_note = design_note

    @property
    def paper(self):
        return re.split("[ ,]", self.source)[0]


# --- numbers as the report writes them ---------------------------------------------

def f_rate(v):
    if v is None:
        return "n/a"
    if v >= 100:
        return "{:,.0f} ops/ms".format(v)
    return "%.3g ops/ms" % v


def f_pct(v, digits=3):
    return "n/a" if v is None else ("%." + str(digits) + "g%%") % v


def f_ratio(v):
    if v is None:
        return "n/a"
    return "{:,.0f}x".format(v) if v >= 1000 else "%.3gx" % v


def f_n(v):
    v = int(v)
    if v >= 10 ** 9:
        return "%.3g G" % (v / 1e9)
    if v >= 10 ** 6:
        return "%.3g M" % (v / 1e6)
    return "{:,}".format(v)


def f_rho(rho):
    return "n/a" if rho is None else "%.2f" % rho


# --- what a rule may ask ---------------------------------------------------------------

# Experiments of run-all's plan with no figure yet (issue 28): their CSV, read by
# Context.st as throughput by thread count; a set measured before they were planned
# has none, and a claim on them is not measurable for that reason.
EXPERIMENT_CSV = {"dice-fig5-low": "dice-fig5-low.csv", "hot-line": "hot-line.csv"}


class Context:
    """The result set (rs), the figures' statistics (figs) and the machine (m)."""

    def __init__(self, rs, figs, machine):
        self.rs = rs
        self.figs = figs
        self.m = machine
        self.cache = {}   # data shared by the rules of one family, by key

    def st(self, fid, panel=""):
        """{series: {x: stats}} of a figure's panel, or None; for an experiment of
        EXPERIMENT_CSV its median ops/ms by thread count, from its CSV."""
        got = self.figs.stats.get((fid, panel))
        if got is None and fid in EXPERIMENT_CSV and not panel and self.rs is not None:
            rows = [r for r in self.rs.rows(EXPERIMENT_CSV[fid], "timed")
                    if r.get("ops_per_ms") is not None]
            if rows:
                got = group_stats(rows, lambda r: r["counter"], lambda r: int(r["threads"]),
                                  lambda r: r["ops_per_ms"])
        return got

    def missing(self, fid):
        """Why figure fid has no statistics."""
        if fid in EXPERIMENT_CSV:
            return not_measurable(DATA, "no data: %s is an experiment new to run-all's plan "
                                  "(issue 28), not in this result set; the next sweep "
                                  "measures it" % EXPERIMENT_CSV[fid])
        for fig in self.figs.table:
            if fig.id == fid:
                if self.rs.csv(fig.source) is None:
                    return "%s is not in this result set" % fig.source
                return "%s has no usable rows" % fig.source
        return "no data"

    def timer_note(self, name):
        """What the timer of CSV name (read-cost.csv: read_ns; latency.csv: its
        histograms' buckets) resolves, measured: its real step beside the ns per
        tick its meta.json states; "" when it cannot be measured."""
        key = ("timer", name)
        if key not in self.cache:
            tick = ((self.rs.meta(name) or {}).get("ns_per_tick")
                    if self.rs is not None else None)
            if name == "latency.csv":
                found = self.rs.histograms(name) if self.rs is not None else None
                hists = found[0] if found else {}   # (histograms, paths read)
                # only buckets one tick wide can show the step (wider ones are the
                # histogram's own log-linear resolution)
                vals = [lo for h in hists.values() for (lo, hi), n in h.items()
                        if n > 0 and tick and hi - lo <= 1.01 * tick]
                what = "the occupied one-tick latency buckets"
            else:
                vals = [r.get("read_ns") for r in (self.rs.rows(name, "timed")
                                                  if self.rs is not None else [])]
                what = "the distinct read_ns values"
            step = timer_step(vals, tick or 0.0) if tick else None
            self.cache[key] = "" if step is None else (
                "timer step here %.3g ns (measured: the usual gap between %s of %s; "
                "meta.json states %.3g ns per tick)%s"
                % (step, what, name, tick, "; a difference below a step is not resolved"
                   if step > 1.5 * tick else ""))
        return self.cache[key]

    def bimodal(self):
        """{(figure, panel): [(series, x, low runs, high runs, gap)]}: the throughput
        points whose runs split in two (stats.bimodal_split)."""
        if "bimodal" not in self.cache:
            out = {}
            for fig in getattr(self.figs, "table", []):
                for panel in fig.panels:
                    if not panel.ylabel.startswith("throughput"):
                        continue
                    st = self.figs.stats.get((fig.id, panel.suffix)) or {}
                    for s, pts in st.items():
                        for x in sorted(pts):
                            sp = bimodal_split(pts[x]["values"])
                            if sp:
                                out.setdefault((fig.id, panel.suffix), []).append(
                                    (s, x) + sp)
            self.cache["bimodal"] = out
        return self.cache["bimodal"]

    def count_rows(self, name):
        return self.rs.rows(name, "count")

    def timed_rows(self, names, variants):
        """Timed rows of the CSVs names of these variants that have a relative error."""
        return [r for name in names for r in self.rs.rows(name, "timed")
                if r["counter"] in variants and r.get("rel_error") is not None]

    def count_threads(self, name):
        rows = self.count_rows(name)
        return max(int(r["threads"]) for r in rows) if rows else 0

    @staticmethod
    def xs(stats, series):
        return sorted(x for s in series if s in stats for x in stats[s])

    def largest_threads_text(self, stats):
        xs = [x for pts in stats.values() for x in pts]
        t = int(max(xs)) if xs else 0
        return ("the largest thread count in this result set is %d (machine: %s PUs, %s)"
                % (t, self.m.get("pus", "?"), self.m.get("nodes_text", "? nodes")))

    def threads_reason(self, claim, stats=None, used=None):
        """Why claim cannot be judged with the thread counts here: against the
        largest thread count of stats (a threads axis), or against used, the one
        thread count of a count-to-N set."""
        t = claim.threads
        if used is not None:
            if claim.threads_at:
                why = ("%s counted with %d threads; this set used %d (machine: %s PUs)"
                       % (claim.paper, t, used, self.m.get("pus", "?")))
            else:
                why = "needs at least %d threads" % t
        else:
            phrase = claim.threads_text or ("{threads} threads" if claim.threads_at
                                            else "at least {threads} threads")
            why = "needs %s; %s" % (phrase.format(threads=t), self.largest_threads_text(stats))
        return not_measurable(MACHINE, why + claim.threads_why)

    def nodes_reason(self, claim):
        """Why claim cannot be judged on this machine's NUMA nodes, or None."""
        if claim.nodes <= 1:
            return None
        if self.m.get("nodes_virtual") or (self.m.get("nodes") or 1) < claim.nodes:
            return not_measurable(MACHINE, "needs at least %d real NUMA nodes%s; this machine "
                                  "has %s" % (claim.nodes, claim.nodes_why,
                                              self.m.get("nodes_text", "1 node")))
        return None

    def point(self, claim, stats, series, t):
        """(stats dict, None) or (None, reason) for one series at exactly t threads."""
        if series not in stats:
            return None, "%s was not measured" % series
        if t not in stats[series]:
            return None, self.threads_reason(claim, stats)
        p = stats[series][t]
        if p["oversub"]:
            return None, not_measurable(MACHINE, "needs %d threads on %d PUs; the %d-thread "
                                        "point here was oversubscribed (%s PUs)"
                                        % (t, t, t, self.m.get("pus", "?")))
        return p, None

    def context_at_max(self, stats, series, fmt, col="median"):
        """'at 2 threads (the most here): A x, B y' for a claim that cannot be checked."""
        xs = self.xs(stats, series)
        if not xs:
            return ""
        t = xs[-1]
        parts = ["%s %s" % (s, fmt(stats[s][t][col])) for s in series
                 if s in stats and t in stats[s]]
        return "at %d threads (the most here): %s" % (t, ", ".join(parts))


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


def evaluate(ctx, claims):
    """Every claim's entry of claims.json, in order. A rule decides the verdict
    and says first why a claim is not measurable; then, whatever the rule says:
    a claim whose declared threads or nodes this result set does not have is
    not measurable; a judged verdict resting on fewer than claim.min_runs runs
    (the rule's fourth value, required with a judged verdict: without it the
    verdict is inconclusive), or a "holds" of an up-to claim measured
    at fewer thread counts than it speaks of, is inconclusive; a claim true by
    construction that holds gets that verdict, with its measurement (one that
    fails shows the construction broken, and is counted as failed)."""
    out = []
    for c in claims:
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
        if c.design_note and verdict == FAILS:
            reason = "%s; by design: %s" % (reason, c.design_note)
        if c.by_construction and verdict in (HOLDS, CONSISTENT):
            verdict, reason = BY_CONSTRUCTION, "%s; measured: %s" % (c.by_construction, reason)
        notes = timing_notes(ctx, c, measured)
        if notes and verdict != NM:
            measured = "; ".join([measured] + notes) if measured else "; ".join(notes)
        entry = {"id": c.id, "source": c.source, "claim": c.text, "figure": c.figure,
                 "measured": measured, "verdict": verdict, "reason": reason, "runs": runs}
        if verdict == NM:
            entry["cause"] = getattr(reason, "cause", DATA)
        out.append(entry)
    return out
