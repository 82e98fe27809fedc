# SPDX-License-Identifier: MIT
"""Which counter to use on this machine (doc/design.md §10): one recommendation per usage
scenario, computed from the figures' statistics, for REPORT.md's last section and
for plots/atlas (answers(): one set's answers, with the caveats that hold for all of them).

A scenario is a declaration (Scenario): the panels whose points are candidates,
the thread count (the most measured without oversubscription, or 1), the
measure and its sense, and the filters on a candidate: its kind (racy Serial
is never recommended: it loses updates), the worst |relative error| of its runs,
its bytes per counter. The rule text stated in the report is generated from the
declaration, so it cannot drift from what is computed. To add a scenario: add
one Scenario(...) to SCENARIOS. Standard library only.
"""

from claims.core import MIN_RUNS, f_rate
from stats import median
import marks
from resultset import calibration

PRECISE = ("precise",)
NOT_RACY = ("precise", "probabilistic")
HIGH = [("dice-fig4-high", ""), ("baselines", "-w0")]
LOW = [("dice-fig4-low", ""), ("baselines", "-w99")]
HIGH_ROWS = [("dice-fig4-high.csv", 0.0), ("baselines.csv", 0.0)]


class Scenario:
    """One row of the table.

    panels: [(figure id, panel suffix)] whose series are the candidates;
    at: "most" (the largest thread count of the first panel with data that is
    not oversubscribed) or a thread count; lower: the measure is a cost (lower
    is better), else a throughput; kinds: the kinds allowed; max_error_pct:
    the worst |relative error| allowed over every run in error_rows
    [(csv, work_pct)]; memory_factor: only variants whose bytes per counter
    (median over the first panel's runs at that thread count) are at most this
    factor times the smallest among the candidates; max_bytes: only variants
    whose bytes per counter (the same median) are at most this; fresh: only
    variants whose get returns every completed increment (not those of
    STALE_READ); reading: instead of the panel's measure, each candidate's
    own measure per run of the panel's source, a Reading (the panel then only
    gives the thread count and the figure the row links to)."""

    def __init__(self, id, text, panels, at="most", lower=False, kinds=NOT_RACY,
                 max_error_pct=None, error_rows=(), memory_factor=None, fresh=False,
                 max_bytes=None, reading=None):
        self.id, self.text, self.panels, self.at, self.lower = id, text, panels, at, lower
        self.kinds, self.max_error_pct, self.error_rows = kinds, max_error_pct, error_rows
        self.memory_factor, self.fresh, self.max_bytes = memory_factor, fresh, max_bytes
        self.reading = reading

    def rule(self):
        what = "lowest median ns per get" if self.lower else "highest median throughput"
        if self.reading:
            what = "lowest median ns per reading (%s)" % self.reading.text
        where = " or ".join(fid + sfx for fid, sfx in self.panels)
        at = ("at 1 thread" if self.at == 1 else
              "at the most threads measured without oversubscription")
        out = "%s in %s %s, among the %s variants" % (what, where, at, " and ".join(self.kinds))
        if self.max_error_pct is not None:
            out += " whose worst |relative error| over every run of %s is at most %g%%" % (
                " and ".join("%s at %g%% work" % (c, w) for c, w in self.error_rows),
                self.max_error_pct)
        if self.memory_factor:
            out += (" using at most %gx the smallest bytes per counter among them"
                    % self.memory_factor)
        if self.max_bytes:
            out += " using at most %g bytes per counter" % self.max_bytes
        if self.fresh:
            out += ", leaving out those whose get is stale (%s)" % ", ".join(sorted(STALE_READ))
        out += ("; every variant whose min-max band overlaps the best's is named with it "
                "(a tie)")
        if self.lower:
            out += "; " + READ_TIE_RULE
        return out


# What a reader must know before using a variant that wins a scenario, beyond
# its measure (the counters' headers state these contracts).
# The variants whose get is stale: it may miss completed increments.
STALE_READ = {
    "Batched": "its get reads the shared word only: until every thread flushes it lags the "
               "count by up to threads x (batch - 1) increments (sc_distributed.h)",
}
CAVEATS = dict(STALE_READ)
PROBABILISTIC_CAVEAT = ("approximate by contract: a probabilistic counter, its error bounded "
                        "in probability only (its relative standard deviation; any one read "
                        "may be further off: dice-fig6, its family header states the bound)")


def caveat(variant, kind):
    """The caveat of a recommended variant, or None."""
    if variant in CAVEATS:
        return CAVEATS[variant]
    return PROBABILISTIC_CAVEAT if kind == "probabilistic" else None


class Reading:
    """Which reading of a run a scenario measures: column(variant) names the
    CSV column of that variant's reading (None: the variant has none that
    qualifies); text says so in the rule."""

    def __init__(self, text, column):
        self.text, self.column = text, column


# A reading whose error has a stated bound: PerCPUTree's O(1) get_fast, the
# exact value within its interval's width above it (sc_tree.h, the
# read_fast_ns column); every other precise variant's get, exact, or for
# Batched within its stated lag. A file without read_fast_ns has no
# PerCPUTree reading to offer.
BOUNDED_READ = Reading(
    "PerCPUTree's O(1) get_fast, whose interval bounds the exact count, for PerCPUTree; "
    "get, exact or within its stated lag, for the other precise variants",
    lambda variant: "read_fast_ns" if variant == "PerCPUTree" else "read_ns")


TREE_FAST_CAVEAT = ("its get_fast is the root of a carry tree: the exact count lies up to the "
                    "interval's width above it (the fast_width column; at most batch x CPUs x "
                    "log2(CPUs) plus batch - 1 for a binary tree, sc_tree.h), more while carries "
                    "are in flight; get_sum is exact at O(CPUs)")


SCENARIOS = [
    Scenario("precise-low", "Precise count, one hot counter, low contention (99% external "
             "work)", LOW, kinds=PRECISE),
    Scenario("precise-high", "Precise count, one hot counter, high contention (0% external "
             "work)", HIGH, kinds=PRECISE),
    Scenario("approx-high", "Approximate count acceptable, one hot counter, high contention "
             "(no run here off by more than 1%: an observation, not a guarantee)",
             HIGH, max_error_pct=1.0, error_rows=HIGH_ROWS),
    Scenario("many-counters", "Many counters, one hot (7500 counters; memory per counter "
             "matters)", [("dice-fig5", "")], memory_factor=2),
    Scenario("many-exact", "Many exact counters, one hot (7500 counters, precise only; at "
             "most 1 KiB per counter, 7.3 MiB for the array)", [("dice-fig5", "")],
             kinds=PRECISE, max_bytes=1024),
    Scenario("read-heavy", "Read-heavy, fresh reads: the cost of a get that sees every "
             "completed increment", [("read-cost", "-ns")], lower=True, fresh=True),
    Scenario("read-heavy-stale", "Read-heavy, a stale get acceptable: the cost of a get",
             [("read-cost", "-ns")], lower=True),
    Scenario("read-heavy-bounded", "Read-heavy, precise within a stated bound: the cost of a "
             "reading that comes with the interval the exact count lies in",
             [("read-cost", "-ns")], lower=True, kinds=PRECISE, reading=BOUNDED_READ),
    Scenario("single-thread", "Single-threaded cost (one thread, 0% external work)",
             HIGH, at=1),
]


def reading_points(rs, source, reading, t):
    """{variant: {t: point}} of one reading over the timed runs of source at t
    threads, points as the figures' statistics (median, min, max, n, oversub)."""
    vals, runs = {}, {}
    for r in rs.rows(source, "timed"):
        v = r.get(reading.column(r["counter"]))
        if r["threads"] == t and isinstance(v, (int, float)):
            vals.setdefault(r["counter"], []).append(v)
            runs.setdefault(r["counter"], []).append(r)
    target = marks.target_seconds((rs.meta(source) or {}).get("command_line"))
    return {c: {t: {"median": median(v), "min": min(v), "max": max(v), "n": len(v),
                    "oversub": False, "marked": marks.point_marks(runs[c], target)}}
            for c, v in vals.items()}


def busy_runs(rs, sources, variant, t):
    """(busy, runs) of variant's timed runs at t threads in the CSVs sources: how
    many ran on a busy machine (the CSV's busy column, load.h's rule)."""
    busy = runs = 0
    for name in sources:
        for r in rs.rows(name, "timed"):
            if r["counter"] == variant and r["threads"] == t:
                runs += 1
                busy += r.get("busy") == 1
    return busy, runs


def f_value(v, lower):
    return "%.3g ns per get" % v if lower else f_rate(v)


def kinds_of(rs, sources):
    out = {}
    for name in sources:
        for r in rs.csv(name) or []:
            out.setdefault(r["counter"], r["kind"])
    return out


def worst_error_pct(rs, rows_spec):
    """{variant: worst 100 |rel_error|} over the timed rows of [(csv, work_pct)]."""
    out = {}
    for name, work in rows_spec:
        for r in rs.rows(name, "timed"):
            if r["work_pct"] == work and r.get("rel_error") is not None:
                out[r["counter"]] = max(out.get(r["counter"], 0.0), 100.0 * r["rel_error"])
    return out


def bytes_at(rs, source, t):
    vals = {}
    for r in rs.rows(source, "timed"):
        if r["threads"] == t and r.get("bytes_per_counter") is not None:
            vals.setdefault(r["counter"], []).append(r["bytes_per_counter"])
    return {c: median(v) for c, v in vals.items()}


def thread_count(figs, sc):
    """The thread count a scenario is judged at, or None."""
    for fid, sfx in sc.panels:
        st = figs.stats.get((fid, sfx))
        if not st:
            continue
        if sc.at != "most":
            return sc.at
        xs = [x for pts in st.values() for x, p in pts.items() if not p["oversub"]]
        if xs:
            return max(xs)
    return None


# Dice §5.5: where GetVal runs often, BFP-based counters may be preferable to Morris's
# (whose GetVal does floating-point work). The advice compares only Dice's Morris-family
# counters (READ_FAMILY), so it breaks a read-heavy tie only when every tied variant is
# one of them; any other tie goes to the data: the lowest median, then the smaller
# spread, then the name (READ_TIE_RULE), never to the order of the result files.
READ_PREFERRED = ("BFP-DUP", "BFP-CSUP")
READ_FAMILY = ("Morris", "MorrisAdapt") + READ_PREFERRED
READ_TIE_RULE = ("a tie for the best read cost (min-max bands overlapping the lowest "
                 "median's) among Dice's Morris-family counters (%s) only goes to the "
                 "variant Dice §5.5 recommends for frequent reads (%s); any other tie to the "
                 "lowest median, then the smaller spread (max - min over median), then by "
                 "name" % (", ".join(READ_FAMILY), ", ".join(READ_PREFERRED)))


def break_read_tie(ranked):
    """ranked [(series, (panel, stats))], lowest median first: the pick among the
    variants whose min-max band overlaps the first's (READ_TIE_RULE) put first, the
    others left in the order of their medians."""
    bp = ranked[0][1][1]
    tied = [kv for kv in ranked if kv[1][1]["min"] <= bp["max"]]
    rest = [kv for kv in ranked if kv not in tied]
    family = all(kv[0].split("[")[0] in READ_FAMILY for kv in tied)

    def key(kv):
        p = kv[1][1]
        spread = (p["max"] - p["min"]) / p["median"] if p["median"] else float("inf")
        if family:
            return (kv[0].split("[")[0] not in READ_PREFERRED, spread, kv[0])
        return (p["median"], spread, kv[0])
    pick = min(tied, key=key)
    return [pick] + [kv for kv in tied + rest if kv is not pick]


def candidates(rs, figs, sc, t, kind, errors):
    """{series: ((figure id, panel suffix), point)}: each series' best point at t
    threads over sc's panels, among the variants sc's kinds and error filter allow."""
    cands = {}
    for fid, sfx in sc.panels:
        stats = (reading_points(rs, figs.entry(fid).source, sc.reading, t) if sc.reading
                 else figs.stats.get((fid, sfx)) or {})
        for series, pts in stats.items():
            p = pts.get(t)
            variant = series.split("[")[0]
            if p is None or p["oversub"] or kind.get(variant) not in sc.kinds:
                continue
            if sc.fresh and variant in STALE_READ:
                continue
            if sc.max_error_pct is not None and errors.get(variant, float("inf")) > \
                    sc.max_error_pct:
                continue
            better = (series not in cands or
                      (p["median"] < cands[series][1]["median"] if sc.lower
                       else p["median"] > cands[series][1]["median"]))
            if better:
                cands[series] = ((fid, sfx), p)
    return cands


def within_memory(rs, sc, source, t, cands, row):
    """cands less those over sc's bytes per counter limits (median at t threads in
    source); a memory_factor's limit in bytes is added to row's rule."""
    if sc.memory_factor and cands:
        mem = bytes_at(rs, source, t)
        known = [mem[s] for s in cands if s in mem]
        if known:
            limit = sc.memory_factor * min(known)
            cands = {s: c for s, c in cands.items() if mem.get(s, float("inf")) <= limit}
            row["rule"] += " (here: at most %g bytes)" % limit
    if sc.max_bytes and cands:
        mem = bytes_at(rs, source, t)
        cands = {s: c for s, c in cands.items() if mem.get(s, float("inf")) <= sc.max_bytes}
    return cands


def ranking(sc, cands):
    """cands' items [(series, (panel, point))], best first (a read cost's tie broken)."""
    # best median first; equal medians by name, so that no order depends on the
    # order of the result files' rows
    ranked = sorted(cands.items(), key=lambda kv: (kv[1][1]["median"] if sc.lower
                                                   else -kv[1][1]["median"], kv[0]))
    if sc.lower and ranked:
        ranked = break_read_tie(ranked)
    return ranked


def best_fields(row, rs, figs, sc, t, ranked, kind, errors, source):
    """Fills in row's best, its value, caveat, busy and marked notes, its runs and
    whether it is provisional."""
    (best, (bfig, bp)) = ranked[0]
    row.update(best=best, figure=bfig[0], panel=bfig[0] + bfig[1],
               value=f_value(bp["median"], sc.lower),
               caveat=caveat(best.split("[")[0], kind.get(best.split("[")[0])))
    if sc.reading:
        row["value"] = "%.3g ns per reading" % bp["median"]
        if best.split("[")[0] == "PerCPUTree":
            row["caveat"] = TREE_FAST_CAVEAT
    if sc.memory_factor or sc.max_bytes:
        row["value"] += ", %g bytes per counter" % bytes_at(rs, source, t)[best]
    if sc.max_error_pct is not None:
        row["value"] += ", worst |error| %.3g%%" % errors.get(best, 0.0)
    # the point's own runs: those of the figure its value was read from
    nbusy, nruns = busy_runs(rs, [figs.entry(bfig[0]).source], best.split("[")[0], t)
    if nbusy:
        row["busy"] = ("busy point: %d of its %d runs ran on a busy machine (the busy column)"
                       % (nbusy, nruns))
    if bp.get("marked"):   # the flag of a number read from a point drawn boxed
        row["marked"] = marks.letters(bp["marked"])
    runs = min(c[1]["n"] for _, c in ranked)
    row["runs"] = runs
    if runs < MIN_RUNS:
        row["provisional"] = (
            "provisional: %d run%s per point here (a --quick or smoke set?); at least %d are "
            "needed to tell a winner from run-to-run noise, so this names no winner with "
            "confidence" % (runs, "" if runs == 1 else "s", MIN_RUNS))


def runner_fields(row, rs, sc, ranked):
    """Fills in row's ties with the best, its runner-up and the margin between them."""
    bp = ranked[0][1][1]
    ties = [s for s, (_, p) in ranked[1:]
            if (bp["max"] >= p["min"] if sc.lower else bp["min"] <= p["max"])]
    # at external work: a median closer to the best's than the calibration's
    # own spread is a tie too (run-all.calibration: the work is known no better)
    sp = max([lv["spread"] for lv in calibration(getattr(rs, "path", "")) if lv["work_pct"] == 99]
             if sc.id == "precise-low" else [], default=0.0)
    near = [s for s, (_, p) in ranked[1:]
            if s not in ties and bp["median"] <= p["median"] * (1 + sp)]
    ties = ties + near if sp else ties
    row["ties"] = ties
    if len(ranked) > 1:
        run, (rfig, rp) = ranked[1]
        row.update(runner_up=run, runner_figure=rfig[0],
                   runner_value=("%.3g ns per reading" % rp["median"] if sc.reading
                                 else f_value(rp["median"], sc.lower)))
        if rp.get("marked"):
            row["runner_marked"] = marks.letters(rp["marked"])
        gap = rp["median"] / bp["median"] if sc.lower else bp["median"] / rp["median"]
        row["margin"] = ("the runner-up costs %.2fx as much" if sc.lower else
                         "%.2fx the runner-up's throughput") % gap
        if ties:
            row["margin"] += ("; a %d-way tie within run-to-run noise, every one whose min-max "
                              "band overlaps the best's%s: %s" % (
                                  len(ties) + 1, " or whose median is within the %.1f%% spread "
                                  "of the work's calibration" % (100 * sp) if sp else "",
                                  ", ".join(ties)))


def recommend(rs, figs, sc):
    """One row of the table (a dict)."""
    row = {"id": sc.id, "scenario": sc.text, "rule": sc.rule(), "best": None,
           "figure": None, "panel": None, "value": None, "runner_up": None, "runner_figure": None,
           "runner_value": None, "margin": None, "caveat": None, "reason": None,
           "ties": [], "provisional": None}
    t = thread_count(figs, sc)
    if t is None:
        row["reason"] = "not measured: no data in %s" % ", ".join(f for f, _ in sc.panels)
        return row
    sources = [figs.entry(fid).source for fid, _ in sc.panels]
    kind = kinds_of(rs, sources)
    errors = worst_error_pct(rs, sc.error_rows) if sc.max_error_pct is not None else {}
    cands = within_memory(rs, sc, sources[0], t, candidates(rs, figs, sc, t, kind, errors), row)
    ranked = ranking(sc, cands)
    row["threads"] = t
    if not ranked:
        row["reason"] = "no variant qualifies at %d thread(s)" % t
        return row
    best_fields(row, rs, figs, sc, t, ranked, kind, errors, sources[0])
    runner_fields(row, rs, sc, ranked)
    return row


def judge(rows):
    """The one judgement of whether a scenario's answer differs between result
    sets (plots/compare's headline, plots/atlas's disagreements). rows: the
    scenario's row of each set, {label: row}; those naming no best are left
    out. Returns (verdict, tied, few): verdict "same" (one best everywhere),
    "noise" (the bests differ, but the variants in tied are tied for best in
    every set: their min-max bands overlap each best's, so the difference is
    within run-to-run noise) or "changed" (no variant is tied for best
    everywhere); few, the labels whose answer rests on fewer than MIN_RUNS
    runs per point (provisional: no winner with confidence)."""
    named = {k: r for k, r in rows.items() if r.get("best")}
    few = sorted(k for k, r in named.items() if r.get("runs", MIN_RUNS) < MIN_RUNS)
    bests = set(r["best"] for r in named.values())
    if len(bests) < 2:
        return "same", sorted(bests), few
    tied = set.intersection(*(set([r["best"]] + r["ties"]) for r in named.values()))
    return ("noise" if tied else "changed"), sorted(tied), few


def advise(rs, figs):
    """The table: one dict per scenario of SCENARIOS, in order."""
    return [recommend(rs, figs, sc) for sc in SCENARIOS]


def set_caveats(machine):
    """Why every answer of a set is provisional, from its machine summary
    (resultset_summary.machine_summary): [(headline, detail)]; [] when none. A busy
    machine (its runs measure the other load too), an emulated CPU (its
    timings measure the emulator)."""
    out = []
    load = machine.get("load")
    if load and load.get("busy_runs"):
        # the share in the headline: "busy" alone read the same for 3 runs in
        # 3,567 as for all of them; the timed runs (those the answers read)
        # apart from the count-to-N ones, which no answer reads
        share = ["%d of %d runs" % (load["busy_runs"], load["runs"])]
        if (load.get("timed") or [0, 0])[1] and (load.get("count") or [0, 0])[1]:
            share = ["%d of %d timed runs (the answers read these)" % tuple(load["timed"]),
                     "%d of %d count-to-N runs" % tuple(load["count"])]
        out.append(("the machine was busy during %s" % " and ".join(share),
                    "a busy run was taken while %s; its numbers measure that load as much as "
                    "the counters" % load["rule"]))
    emu = machine.get("cpu_emulation") or {}
    if emu.get("emulated") is True:
        out.append(("the CPU was emulated", "%s: every throughput and cost here measures the "
                    "emulator, not a processor" % emu.get("hypervisor", "unknown")))
    return out


def answers(rs, figs, machine):
    """The scenario answers of one result set, for REPORT.md and plots/atlas:
    {"rows": advise()'s table (one dict per scenario, with its own caveat and
    provisional note), "set_caveats": set_caveats(machine)}. figs must hold
    the statistics (Figures.build)."""
    return {"rows": advise(rs, figs), "set_caveats": set_caveats(machine)}
