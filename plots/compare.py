#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""compare.py A B [--out DIR] - compare two result sets point by point (doc/design.md §10).

Run through plots/compare, which finds a Python with numpy and scipy
(Debian: python3-scipy). A point is one figure panel of plots/figures.py, one
series (variant), one x (thread count, or N for count-to-N figures), with the
same parameters, external work and counter-array size in both sets. The
measure is the figure's own: throughput for the timed figures, time for the
count-to-N figures, |relative error| for the error figures, ns for latency and
read cost, bytes per counter. The value/N accuracy figures are left out: their
claims are judged in REPORT.md, and value/N is not a cost that can regress.

Writes DIR/compare.csv, DIR/COMPARE.md and DIR/<figure>.png/.pdf overlays
(drawn by plots/compare_overlay.py from compare.csv, when matplotlib imports).
The method (METHOD below, repeated in COMPARE.md):

  test      per point, a two-sided moderated t-test (empirical Bayes, Smyth
            2004) of the difference of mean log values: each point's run-to-run
            variance is shrunk towards the typical variance of its figure panel
            by as much as the points' variances are alike (their spread decides
            the prior degrees of freedom), so it keeps its own noise where the
            variants differ and borrows degrees of freedom where they agree.
            With 3-5 runs per point an exact rank test cannot reach significance
            after a correction (3 vs 3 runs: smallest two-sided p = 0.1).
            Points with a value <= 0 (an exact count, a 0 ns bucket) have no
            log: Mann-Whitney U (exact for small samples without ties, else the
            normal approximation).
  CI        95% percentile bootstrap of median_b / median_a, 10,000 resamples of
            each set's runs, numpy default_rng(SEED) restarted for every point.
  correction Benjamini-Hochberg within each figure (false discovery rate 5%
            per figure), not over every point of every figure.
  flag      significant when the adjusted p < 0.05 AND the CI excludes 1
            AND the ratio is at least 1 + MIN_EFFECT (or at most its inverse).
  quantized latency and read-cost points whose median is under QUANT_STEPS
            steps of the timer (the smallest step between the set's values)
            are compared but not tested: their values are not continuous.
  power     per figure, the smallest change a lone changed point is flagged
            at (50% and 80% of the time), and the largest changes not flagged.
  caveats   different modes, timers (ns_per_tick), machines, busy runs and
            points with fewer than 2 runs are stated at the top (and on
            standard error).

Exit status 0, 1 on a failure (a file of A or B that cannot be read: as aggregate.py and
atlas), 2 on bad usage or when A or B is not a result set.
"""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "harness"))  # runall.guard
from runall.guard import guarded  # noqa: E402

from figbuild import load_set  # noqa: E402
from figures import FIGURES  # noqa: E402
from resultset import SOURCES, load_summary  # noqa: E402
from resultset import ResultSetError, csv_text, is_result_set, write_atomically  # noqa: E402
from compare_stats import (RESAMPLES, SEED, bh, bootstrap_ci, detectable,  # noqa: E402
                           log_variances, moderated, ratio, test_point, variance_prior)
from figures import resolution  # noqa: E402
from stats import median, percentile  # noqa: E402

ALPHA = 0.05
MIN_EFFECT = 0.10
QUANT_STEPS = 20    # a timed ns value under 20 timer steps moves by >= 5% per step
LISTED = 10         # largest changes not flagged, listed in COMPARE.md
COLUMNS = ["figure", "counter", "threads", "median_a", "median_b", "ratio", "ci_low", "ci_high",
           "p_value", "significant", "point", "params", "n_a", "n_b", "p_adj", "test",
           "busy_a", "busy_b"]
# The timed-ns sources and their columns: their values move in timer steps.
TIMER_COLUMNS = {"latency.csv": ("lat_p50_ns", "lat_p99_ns", "lat_p999_ns", "lat_p90_ns"),
                 "read-cost.csv": ("read_ns",)}
# The figures compared: what the measure is and whether higher is better.
SKIPPED = ("ayers-accuracy", "ayers-accuracy-detail", "ayers-accuracy-tunable")
HIGHER_IS_BETTER = {"throughput (ops/ms)"}
# The experiments that get an overlay figure (Dice's and the baselines).
OVERLAY = ("dice-fig3", "dice-fig4-low", "dice-fig4-high", "dice-fig5", "baselines")

METHOD = [
    ("Points", "a point is one panel of a figure of plots/figures.py, one variant, one "
     "thread count (N for count-to-N figures), with the same parameters, external work and "
     "counter-array size in both sets; ratio = median of B's runs / median of A's runs. "
     "The value/N accuracy figures (%s) are left out: REPORT.md judges them."
     % ", ".join(SKIPPED)),
    ("Test", "two-sided moderated t-test of the difference of the mean log values of the "
     "two sets' runs (empirical Bayes, Smyth 2004, as limma does for few replicates): each "
     "point's run-to-run variance of log values (A's and B's runs each about their own "
     "mean, n_a + n_b - 2 degrees of freedom) is shrunk towards the typical variance of its "
     "figure panel, (d0 s0^2 + d s^2) / (d0 + d) with d0 + d degrees of freedom, where s0^2 "
     "and d0 come from the moments of the panel's log variances: when the variants' noise "
     "differs (d0 small) a point keeps its own, when it is alike (d0 large) the point "
     "borrows the panel's degrees of freedom. Why not an exact rank test alone: with 3 runs "
     "against 3 the smallest two-sided exact p-value (Mann-Whitney U or permutation) is "
     "2/20 = 0.1, so no point could ever be significant after a correction for hundreds of "
     "points. It assumes log-normal run-to-run noise. Points with a value <= 0 (an exact "
     "count, a 0 ns latency) have no log and use Mann-Whitney U (exact for small samples "
     "without ties, else the normal approximation), which with 3 vs 3 runs cannot flag "
     "anything. A measure without run-to-run variance (bytes per counter) differs or not: "
     "p = 1 when equal, 0 when not."),
    ("Confidence interval", "95%% percentile bootstrap of the ratio of medians (the "
     "2.5th and 97.5th percentiles of the resampled ratios, each the order statistic on the "
     "outer side): %d resamples with replacement of each set's runs, numpy.random.default_rng(%d) started "
     "afresh for every point (the same input gives the same interval). With 3 runs per set "
     "it excludes 1 only when the two sets' ranges do not overlap." % (RESAMPLES, SEED)),
    ("Correction", "Benjamini-Hochberg within each figure (all panels of one figure, "
     "e.g. every variant and thread count of dice-fig4-high): false discovery rate %g per "
     "figure, p_adj is the adjusted p-value. Not over every point of every figure: a "
     "user who changed one counter looks at its figures, and a correction over hundreds of "
     "points hides a 20%% change at 3 runs per point." % ALPHA),
    ("Quantized", "a latency or read-cost point (ns, timed with the tick counter) whose "
     "median in A or B is under %d steps of its set's timer (the smallest step between "
     "the set's values in that file, i.e. its resolution) moves by 5%% or more per step: "
     "its values are not continuous, so it is compared (ratio, interval) but not tested, "
     "and it is listed apart." % QUANT_STEPS),
    ("Power", "per figure, the smallest change of a lone changed point that is flagged "
     "half the time (and 80%% of the time): its p must be below %g / m for m points "
     "tested in the figure, so the log ratio must reach (t(1 - %g / 2m) + t(power)) "
     "standard errors at the figure's median moderated variance and run counts; a change "
     "is also never flagged under %d%%." % (ALPHA, ALPHA, round(MIN_EFFECT * 100))),
    ("Significant", "p_adj < %g, and the bootstrap interval excludes 1, and the ratio is "
     "at least %.2f or at most %.3f (a minimum effect of %d%%). Each condition only removes "
     "flags, so if the test's assumptions hold at most a fraction %g of a figure's flags "
     "are expected to be false. The runs of one set share a session: slow drift between sessions "
     "(another tenant, a thermal state) is not in the run-to-run variance, which is why "
     "changes under %d%% are never flagged."
     % (ALPHA, 1 + MIN_EFFECT, 1 / (1 + MIN_EFFECT), round(MIN_EFFECT * 100), ALPHA,
        round(MIN_EFFECT * 100))),
]


class NotAResultSet(Exception):
    pass


def load(path):
    """(ResultSet, machine summary, Figures) of a result set directory:
    NotAResultSet (status 2) when path is none, ResultSetError (status 1, as
    aggregate.py and atlas) when a file of it cannot be read."""
    if not is_result_set(path):
        raise NotAResultSet("%s: not a result set (no directory holding any of %s)"
                            % (path, ", ".join(SOURCES)))
    return load_set(path, FIGURES)


def points(figs):
    """{(panel, series, x, params, work, counters, threads): [values]},
    {panel: (figure id, measure, x is N, source)} and {point: busy runs} of every
    compared figure."""
    out, panels, busy = {}, {}, {}
    for fig in figs.table:
        if fig.id in SKIPPED or figs.rs.csv(fig.source) is None:
            continue
        groups = figs.groups(fig)
        if isinstance(groups, str):
            continue
        for suffix, rows, name in groups:
            for panel in fig.panels:
                pid = fig.id + suffix + panel.suffix
                panels[pid] = (fig.id, panel.ylabel, fig.mode == "count", fig.source)
                for r in rows:
                    key = (pid, name(r), fig.x(r), r.get("params") or "", r["work_pct"],
                           r["counters"], r["threads"])
                    v = panel.y(r)
                    vals = out.setdefault(key, [])
                    if v is not None and not math.isnan(v):
                        vals.append(v)
                        busy[key] = busy.get(key, 0) + (r.get("busy") == 1)
    return out, panels, busy


def steps(figs):
    """{source: the timer's step in ns} of the timed-ns sources of a set."""
    out = {}
    for name, cols in TIMER_COLUMNS.items():
        if figs.rs.csv(name) is not None:
            out[name] = resolution(figs.rs, name, cols)
    return out


def quantized(row, source, steps_a, steps_b):
    """The timer step that makes this point's values quantized, or None."""
    if source not in TIMER_COLUMNS or "ns" not in row["measure"]:
        return None
    st = max(x for x in (steps_a.get(source), steps_b.get(source), 0) if x is not None)
    if st > 0 and min(row["median_a"], row["median_b"]) < QUANT_STEPS * st:
        return st
    return None


def compare(np, sp, figs_a, figs_b):
    """The rows of compare.csv (dicts), in figure-table order, and the power of
    each figure {figure id: (points tested, 50% change, 80% change)}."""
    pa, panels, busy_a = points(figs_a)
    pb, panels_b, busy_b = points(figs_b)
    for k, v in panels_b.items():
        panels.setdefault(k, v)
    sa, sb = steps(figs_a), steps(figs_b)
    order = {}
    for k in list(pa) + [k for k in pb if k not in pa]:
        order.setdefault(k, len(order))
    both = {k: (pa[k], pb[k]) for k in pa if k in pb and pa[k] and pb[k]}
    variances = log_variances(both)
    priors = {}
    for pid in panels:
        priors[pid] = variance_prior(sp, [v for k, v in variances.items() if k[0] == pid])
    var = moderated(variances, priors)
    rows = []
    for key in sorted(order, key=lambda k: (list(panels).index(k[0]), order[k])):
        pid, series, x, params, work, counters, threads = key
        fid, measure, x_is_n, source = panels[pid]
        a, b = pa.get(key) or [], pb.get(key) or []
        row = {"figure": pid, "figure_id": fid, "measure": measure, "counter": series,
               "threads": int(threads), "point": "N=%d" % x if x_is_n else "",
               "params": params, "n_a": len(a), "n_b": len(b),
               "median_a": median(a) if a else None, "median_b": median(b) if b else None,
               "ratio": None, "ci_low": None, "ci_high": None, "p_value": None,
               "p_adj": None, "test": "", "significant": "n/a",
               "busy_a": busy_a.get(key, 0), "busy_b": busy_b.get(key, 0), "var": None}
        if a and b:
            row["ratio"] = ratio(row["median_a"], row["median_b"])
            row["ci_low"], row["ci_high"] = bootstrap_ci(np, a, b)
            step = quantized(row, source, sa, sb)
            if step is not None:
                row["test"] = "quantized (timer step %.3g ns): not tested" % step
            else:
                row["p_value"], row["test"] = test_point(sp, a, b, var.get(key))
                row["var"] = var.get(key)
        else:
            row["test"] = "only in %s" % ("A" if a else "B") if (a or b) else "no values"
        rows.append(row)
    power = {}
    for fid in dict.fromkeys(r["figure_id"] for r in rows):
        fam = [r for r in rows if r["figure_id"] == fid]
        for row, adj in zip(fam, bh([r["p_value"] for r in fam])):
            row["p_adj"] = adj
            if adj is None:
                continue
            r, lo, hi = row["ratio"], row["ci_low"], row["ci_high"]
            big = r >= 1 + MIN_EFFECT or r <= 1 / (1 + MIN_EFFECT)
            # a point one run decides in either set is never significant (issue 28)
            one = min(row["n_a"], row["n_b"]) < 2
            if one:
                row["test"] += "; one run in a set: never significant"
            row["significant"] = "yes" if (adj < ALPHA and (lo > 1 or hi < 1) and big
                                           and not one) else "no"
        tested = [r for r in fam if r["p_value"] is not None]
        vv = [r for r in tested if r["var"] is not None and r["var"][0] > 0]
        if vv:
            v = median([r["var"][0] for r in vv])
            df = median([r["var"][1] for r in vv])
            na = median([r["n_a"] for r in vv])
            nb = median([r["n_b"] for r in vv])
            m = len(tested)
            power[fid] = (m, na, nb, detectable(sp, (v, df), na, nb, ALPHA / m, 0.5),
                          detectable(sp, (v, df), na, nb, ALPHA / m, 0.8))
    return rows, power


def set_runs(figs):
    """{figure id: smallest run count of a point} of a set."""
    pts, panels, _ = points(figs)
    out = {}
    for k, vals in pts.items():
        fid = panels[k[0]][0]
        out[fid] = min(out.get(fid, len(vals)), len(vals))
    return out


def tick(rs):
    ticks = [(rs.meta(n) or {}).get("ns_per_tick") for n in SOURCES]
    ticks = [t for t in ticks if isinstance(t, (int, float)) and t > 0]
    return ticks[0] if ticks else None


def caveats(rs_a, rs_b, ma, mb, figs_a, figs_b):
    """Lines that say why the two sets are not like for like."""
    out = []
    mode_a, mode_b = ma.get("run_all_mode"), mb.get("run_all_mode")
    if mode_a != mode_b:
        out.append("**Different modes**: A was taken in %s mode, B in %s mode (run lengths "
                   "and run counts differ: a difference may be the protocol's)."
                   % (mode_a or "an unrecorded", mode_b or "an unrecorded"))
    ta, tb = tick(rs_a), tick(rs_b)
    if ta and tb and abs(ta / tb - 1) > 0.01:
        out.append("**Different timers**: ns_per_tick %.4g in A, %.4g in B: latency and "
                   "read-cost values move in different steps (points under %d steps are "
                   "not tested, see Quantized)." % (ta, tb, QUANT_STEPS))
    ca, cb = (ma.get("cpu") or {}).get("model"), (mb.get("cpu") or {}).get("model")
    if ma.get("host") != mb.get("host") or ca != cb or ma.get("pus") != mb.get("pus"):
        out.append("**Different machines**: A on %s (%s, %s PUs), B on %s (%s, %s PUs): "
                   "every difference includes the machine's." % (
                       ma.get("host"), ca, ma.get("pus"), mb.get("host"), cb, mb.get("pus")))
    for label, figs in (("A", figs_a), ("B", figs_b)):
        few = sorted(f for f, n in set_runs(figs).items() if n < 2)
        if few:
            out.append("**Fewer than 2 runs** in %s for some points of %s: those points "
                       "have no run-to-run variance and are not tested." % (label, ", ".join(few)))
    for label, rs in (("A", rs_a), ("B", rs_b)):
        load = load_summary(rs) or {"busy_runs": 0, "runs": 0}
        b, n = load["busy_runs"], load["runs"]
        if b:
            out.append("**Busy machine**: %d of %d runs of %s were taken while other "
                       "processes used the machine (the busy column; compare.csv busy_a, "
                       "busy_b per point): their figures measure the load too."
                       % (b, n, label))
    return out


def write_csv(path, rows):
    write_atomically(path, csv_text(COLUMNS, rows))


def f_num(v):
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf"
    if abs(v) >= 100:
        return "{:,.0f}".format(v)
    return "%.3g" % v


def f_p(v):
    return "-" if v is None else ("%.2g" % v if v >= 1e-4 else "%.1e" % v)


def point_text(r):
    where = "%d thr" % r["threads"]
    if r["point"]:
        where += ", " + r["point"]
    if r["params"]:
        where += ", " + r["params"]
    return where


def direction(r):
    """'better' or 'worse' for B, by the measure's sense."""
    up = r["ratio"] > 1
    return "better" if up == (r["measure"] in HIGHER_IS_BETTER) else "worse"


def describe(label, path, m):
    bits = [m.get("host") or "unknown host"]
    if m.get("topology"):
        bits.append(m["topology"])
    cpu = m.get("cpu")
    if cpu:
        bits.append("%s, governor %s, boost %s" % (cpu.get("model"), cpu.get("governor"),
                                                   cpu.get("boost")))
    if m.get("source_revision"):
        bits.append("revision %s" % m["source_revision"])
    dates = m.get("dates") or []
    if dates:
        bits.append(dates[0])
    return "| %s | `%s` | %s |" % (label, path, "; ".join(bits).replace("|", "\\|"))


def change_row(r):
    return "| %s | %s | %s | %s | %s | %.3gx (%.3g-%.3g) | %s |" % (
        r["figure"], r["counter"], point_text(r), f_num(r["median_a"]), f_num(r["median_b"]),
        r["ratio"], r["ci_low"], r["ci_high"], f_p(r["p_adj"]))


def logsize(r):
    return abs(math.log(r["ratio"])) if 0 < r["ratio"] < math.inf else math.inf


def blind_text(power):
    """What a comparison could not have seen: per figure, the change it flags 80% of
    the time (smaller ones may pass unflagged), from the power table."""
    if not power:
        return "it could not have seen any change (no figure had points to test)"
    return "it could not have seen changes smaller than these (flagged 80%% of the time): %s" % (
        ", ".join("%s %+.0f%%/%+.0f%%" % (fid, 100 * (max(d80, 1 + MIN_EFFECT) - 1),
                                          100 * (1 / max(d80, 1 + MIN_EFFECT) - 1))
                  for fid, (m, na, nb, d50, d80) in power.items()))


def render(rows, a, b, ma, mb, figures, power, warn):
    compared = [r for r in rows if r["p_value"] is not None]
    sig = [r for r in rows if r["significant"] == "yes"]
    only = [r for r in rows if r["test"].startswith("only in")]
    quant = [r for r in rows if r["test"].startswith("quantized")]
    out = ["# Comparison of two result sets", "",
           "B against A, point by point; generated by `plots/compare`. "
           "Ratio = B / A of the medians of the runs. Every point is in `compare.csv`.", "",
           "| set | path | machine |", "|---|---|---|",
           describe("A", a, ma), describe("B", b, mb), "",
           "**%d points compared: %d significant differences (%d better in B, %d worse); "
           "%d points in only one set; %d quantized points compared but not tested; %d "
           "points with one run in a set (never significant); %s.**" % (
               len(compared), len(sig), sum(1 for r in sig if direction(r) == "better"),
               sum(1 for r in sig if direction(r) == "worse"), len(only), len(quant),
               sum(1 for r in compared if min(r["n_a"], r["n_b"]) < 2), blind_text(power)),
           ""]
    out += ["## Caveats", ""]
    out += ["- " + w for w in warn] if warn else [
        "None: same mode, timer and machine, at least 2 runs per point, no busy run."]
    out += ["", "## Significant differences", ""]
    if sig:
        out += ["| figure | variant | point | median A | median B | ratio (95% CI) | "
                "p (BH, per figure) | B is |", "|---|---|---|---|---|---|---|---|"]
        for r in sorted(sig, key=lambda r: -abs(math.log(r["ratio"]))
                        if 0 < r["ratio"] < math.inf else -math.inf):
            out.append("| %s | %s | %s | %s | %s | %.3gx (%.3g-%.3g) | %s | %s |" % (
                r["figure"], r["counter"], point_text(r), f_num(r["median_a"]),
                f_num(r["median_b"]), r["ratio"], r["ci_low"], r["ci_high"], f_p(r["p_adj"]),
                direction(r)))
    else:
        out.append("None: no point differs by the rule below.")
    out += ["", "## Per figure", "",
            "| figure | measure | points compared | significant (better / worse in B) | "
            "median ratio | ratio range | overlay |",
            "|---|---|---|---|---|---|---|"]
    for pid in sorted(set(r["figure"] for r in rows),
                      key=lambda p: [r["figure"] for r in rows].index(p)):
        rr = [r for r in compared if r["figure"] == pid]
        if not rr:
            continue
        ratios = sorted(r["ratio"] for r in rr)
        s = [r for r in rr if r["significant"] == "yes"]
        fid = rr[0]["figure_id"]
        out.append("| %s | %s | %d | %d (%d / %d) | %.3g | %.3g-%.3g | %s |" % (
            pid, rr[0]["measure"].replace("|", "\\|"), len(rr), len(s),
            sum(1 for r in s if direction(r) == "better"),
            sum(1 for r in s if direction(r) == "worse"),
            percentile(ratios, 0.5), ratios[0], ratios[-1],
            "[%s.png](%s.png)" % (fid, fid) if fid in figures else "-"))
    out += ["", "## Power: the smallest change each figure can flag", "",
            "With these sets' run counts, a lone changed point of the figure is flagged "
            "half the time at the first change, 80%% of the time at the second (both at the "
            "figure's median run-to-run noise; never under %d%%, and the bootstrap interval "
            "must also exclude 1)." % round(MIN_EFFECT * 100), "",
            "| figure | points tested | runs A / B (median) | flagged half the time | "
            "flagged 80% of the time |", "|---|---|---|---|---|"]
    for fid, (m, na, nb, d50, d80) in power.items():
        out.append("| %s | %d | %g / %g | %+.1f%% / %+.1f%% | %+.1f%% / %+.1f%% |" % (
            fid, m, na, nb, 100 * (max(d50, 1 + MIN_EFFECT) - 1),
            100 * (1 / max(d50, 1 + MIN_EFFECT) - 1), 100 * (max(d80, 1 + MIN_EFFECT) - 1),
            100 * (1 / max(d80, 1 + MIN_EFFECT) - 1)))
    if not power:
        out.append("| - | 0 | - | - | - |")
    out += ["", "## Largest changes not flagged", "",
            "The %d largest changes of the points tested and not flagged (largest first): "
            "a change here is within what these run counts can tell from noise." % LISTED, ""]
    quiet = sorted((r for r in compared if r["significant"] != "yes"), key=lambda r: -logsize(r))
    if quiet:
        out += ["| figure | variant | point | median A | median B | ratio (95% CI) | "
                "p (BH, per figure) |", "|---|---|---|---|---|---|---|"]
        out += [change_row(r) for r in quiet[:LISTED]]
    else:
        out.append("None.")
    out += ["", "## Quantized points: compared, not tested", ""]
    if quant:
        out += ["Latency and read-cost values under %d timer steps (see Method): their "
                "ratios and intervals are in compare.csv." % QUANT_STEPS, "",
                "| figure | points | timer step | largest change |", "|---|---|---|---|"]
        for pid in dict.fromkeys(r["figure"] for r in quant):
            qq = [r for r in quant if r["figure"] == pid]
            big = max(qq, key=logsize)
            out.append("| %s | %d | %s | %s %s %.3gx |" % (
                pid, len(qq), big["test"].split("(")[1].split(")")[0].replace("timer step ", ""),
                big["counter"], point_text(big), big["ratio"]))
    else:
        out.append("None.")
    out += ["", "## Points in only one set", ""]
    if only:
        out += ["| figure | variant | point | in |", "|---|---|---|---|"]
        for r in only:
            out.append("| %s | %s | %s | %s |" % (r["figure"], r["counter"], point_text(r),
                                                  r["test"][len("only in "):]))
    else:
        out.append("None.")
    out += ["", "## Method", ""]
    out += ["- **%s**: %s" % (k, v) for k, v in METHOD]
    out.append("")
    return "\n".join(out)


def main(argv):
    import cli  # the parser of the plots tools (plots/cli.py)
    ap = cli.Parser(
        "plots/compare",
        description="Compare result set B with result set A point by point: writes "
                    "compare.csv, COMPARE.md and overlay figures (see results/README.md).")
    ap.add_argument("a", metavar="A", help="the first result set (the baseline)")
    ap.add_argument("b", metavar="B", help="the second result set")
    ap.add_argument("--out", metavar="DIR",
                    help="output directory (default: compare-<A>-vs-<B> in the current "
                         "directory; created if missing)")
    ap.add_argument("--no-figures", action="store_true",
                    help="write compare.csv and COMPARE.md only (no overlay figures)")
    args = ap.parse_args(argv[1:])
    try:
        import numpy as np
        import scipy.stats  # noqa: F401
        import scipy as sp
    except ImportError as e:
        print("plots/compare: needs numpy and scipy (%s): apt-get install python3-scipy, "
              "and run it with that Python (/usr/bin/python3)" % e, file=sys.stderr)
        return 1
    out = args.out or "compare-%s-vs-%s" % (
        os.path.basename(os.path.abspath(args.a)), os.path.basename(os.path.abspath(args.b)))
    if os.path.exists(out) and not os.path.isdir(out):
        print("plots/compare: --out %s: exists and is not a directory" % out, file=sys.stderr)
        return 2
    try:
        rs_a, ma, figs_a = load(args.a)
        rs_b, mb, figs_b = load(args.b)
    except NotAResultSet as e:
        print("plots/compare: %s" % e, file=sys.stderr)
        return 2
    except ResultSetError as e:
        print("plots/compare: %s" % e, file=sys.stderr)
        return 1
    try:
        return write_comparison(args, out, np, sp, rs_a, rs_b, ma, mb, figs_a, figs_b)
    except ResultSetError as e:
        print("plots/compare: %s" % e, file=sys.stderr)
    except OSError as e:
        print("plots/compare: %s: %s" % (e.filename or out, e.strerror or e), file=sys.stderr)
    return 1


def write_comparison(args, out, np, sp, rs_a, rs_b, ma, mb, figs_a, figs_b):
    """compare.csv, the overlays and COMPARE.md in out; 0."""
    os.makedirs(out, exist_ok=True)
    rows, power = compare(np, sp, figs_a, figs_b)
    warn = caveats(rs_a, rs_b, ma, mb, figs_a, figs_b)
    for w in warn:
        print("plots/compare: warning: %s" % w.replace("**", ""), file=sys.stderr)
    write_csv(os.path.join(out, "compare.csv"), rows)
    figures = []
    if not args.no_figures:
        try:
            import compare_overlay
            figures = compare_overlay.draw(out, rows, OVERLAY)
        except ImportError as e:
            print("plots/compare: no overlay figures: %s (apt-get install python3-matplotlib)"
                  % e, file=sys.stderr)
    text = render(rows, args.a, args.b, ma, mb, figures, power, warn)
    write_atomically(os.path.join(out, "COMPARE.md"), text)
    sig = [r for r in rows if r["significant"] == "yes"]
    print("plots/compare: %d points compared, %d significant, %d in only one set; %s; %s"
          % (sum(1 for r in rows if r["p_value"] is not None), len(sig),
             sum(1 for r in rows if r["test"].startswith("only in")), blind_text(power),
             os.path.join(out, "COMPARE.md")))
    for r in sig:
        print("plots/compare: significant: %s %s %s: %.3gx (%s in B)"
              % (r["figure"], r["counter"], point_text(r), r["ratio"], direction(r)))
    return 0


if __name__ == "__main__":
    sys.exit(guarded("plots/compare", main, sys.argv))
