# SPDX-License-Identifier: MIT
"""The points of plots/compare and their rows: what a point of two result sets
is (one panel of a figure of plots/figures.py, one series, one x, with the same
parameters, external work and counter-array size in both: figure_points), or
of two plain scbench CSVs (one measure of CSV_MEASURES, one variant, one
thread count or N, with the same parameters, external work and array size:
csv_points), and for each its row of compare.csv (medians, ratio, bootstrap
interval, test, the correction within its figure, the flag) and each figure's
power. The method is stated in COMPARE.md (plots/compare_report.py's METHOD);
numpy and scipy are passed in (np, sp) by the caller, which has checked they
import.
"""

import math

from compare_stats import (bh, bootstrap_all, detectable, log_variances, moderated, ratio,
                           test_point, variance_prior)
from figbuild import count_n, threads
from figures import FIGURES, OPS_PER_MS, resolution
from stats import median

ALPHA = 0.05
MIN_EFFECT = 0.10
QUANT_STEPS = 20    # a timed ns value under 20 timer steps moves by >= 5% per step
# The timed-ns sources and their columns: their values move in timer steps.
TIMER_COLUMNS = {"latency.csv": ("lat_p50_ns", "lat_p99_ns", "lat_p999_ns", "lat_p90_ns"),
                 "read-cost.csv": ("read_ns",)}
# The figures not compared: value/N is not a cost that can regress (REPORT.md judges it).
SKIPPED = ("ayers-accuracy", "ayers-accuracy-detail", "ayers-accuracy-tunable")


def collect(groups):
    """The points of groups, [(panel, (figure id, measure, x is N, source), rows,
    series of a row, x of a row, y of a row)]: {(panel, series, x, params, work,
    counters, threads): [values]}, {panel: (figure id, measure, x is N, source)}
    and {point: busy runs}."""
    out, panels, busy = {}, {}, {}
    for pid, info, rows, name, x, y in groups:
        panels[pid] = info
        for r in rows:
            key = (pid, name(r), x(r), r.get("params") or "", r["work_pct"], r["counters"],
                   r["threads"])
            v = y(r)
            vals = out.setdefault(key, [])
            if v is not None and not math.isnan(v):
                vals.append(v)
                busy[key] = busy.get(key, 0) + (r.get("busy") == 1)
    return out, panels, busy


def figure_points(figs):
    """collect()'s points of every compared figure of a result set."""
    def groups():
        for fig in figs.table:
            if fig.id in SKIPPED or figs.rs.csv(fig.source) is None:
                continue
            got = figs.groups(fig)
            if isinstance(got, str):
                continue
            for suffix, rows, name in got:
                for panel in fig.panels:
                    yield (fig.id + suffix + panel.suffix,
                           (fig.id, panel.ylabel, fig.mode == "count", fig.source), rows, name,
                           fig.x, panel.y)
    return collect(groups())


def figure_steps(figs):
    """{source: the timer's step in ns} of the timed-ns sources of a set."""
    out = {}
    for name, cols in TIMER_COLUMNS.items():
        if figs.rs.csv(name) is not None:
            out[name] = resolution(figs.rs, name, cols)
    return out


def entry(fid):
    return next(f for f in FIGURES if f.id == fid)


# The measures of a plain scbench CSV (plots/compare A.csv B.csv), each the panel of
# the figure that shows it in a result set: (figure, mode, kinds measured or None
# for all, Panel, the TIMER_COLUMNS source whose step quantizes it or None).
CSV_MEASURES = ([("throughput", "timed", None, OPS_PER_MS, None),
                 ("time", "count", None, entry("ayers-scaling").panels[0], None),
                 ("error", "timed", ("probabilistic", "racy"), entry("dice-fig6-low").panels[0],
                  None),
                 ("read-cost", "timed", None, entry("read-cost").panels[0], "read-cost.csv")]
                + [("latency", "timed", None, p, "latency.csv") for p in entry("latency").panels])


# What a point of two plain CSVs is: said in --help and in COMPARE.md's method.
CSV_POINTS = ("a point is one group of rows of the two CSVs, its runs: one measure, one "
              "variant (run with --param, its own series variant[params]), one thread count "
              "(N for count-to-N rows), with the same parameters, external work and "
              "counter-array size in both; the measures: throughput (ops/ms) of the timed "
              "rows, time (seconds) of the count-to-N rows, |relative error| (%%) of the "
              "variants that are not precise, and where recorded read cost (ns per get) "
              "and the p50, p99 and p99.9 latency (ns). A measure (%s) is a figure: its "
              "panels are its external work levels and array sizes (throughput-w0, ...), "
              "and the correction and the power are per measure"
              % ", ".join(dict.fromkeys(m[0] for m in CSV_MEASURES)))


def csv_series(r):
    """A plain CSV's series: the variant, variant[params] when run with --param."""
    return "%s[%s]" % (r["counter"], r["params"]) if r.get("params") else r["counter"]


def csv_points(rs, name):
    """collect()'s points of the plain scbench CSV name of rs: for each measure of
    CSV_MEASURES that some row has, one panel per external work and array size,
    its points by series, thread count (N for count-to-N rows) and parameters."""
    def groups():
        for fid, mode, kinds, panel, timer in CSV_MEASURES:
            rows = [r for r in rs.rows(name, mode) if kinds is None or r["kind"] in kinds]
            if not any(panel.y(r) is not None for r in rows):
                continue
            for work, counters in sorted(set((r["work_pct"], r["counters"]) for r in rows)):
                pid = "%s%s-w%g%s" % (fid, panel.suffix, work,
                                      "-c%d" % counters if counters != 1 else "")
                yield (pid, (fid, panel.ylabel, mode == "count", timer),
                       [r for r in rows if (r["work_pct"], r["counters"]) == (work, counters)],
                       csv_series, count_n if mode == "count" else threads, panel.y)
    return collect(groups())


def csv_steps(rs, name):
    """{source: the timer's step in ns} of the timed-ns measures of a plain CSV."""
    return {src: resolution(rs, name, cols) for src, cols in TIMER_COLUMNS.items()}


def quantized(row, source, steps_a, steps_b):
    """The timer step that makes this point's values quantized, or None."""
    if source not in TIMER_COLUMNS or "ns" not in row["measure"]:
        return None
    st = max(x for x in (steps_a.get(source), steps_b.get(source), 0) if x is not None)
    if st > 0 and min(row["median_a"], row["median_b"]) < QUANT_STEPS * st:
        return st
    return None


def compare(np, sp, side_a, side_b):
    """The rows of compare.csv (dicts), in figure-table order, and the power of
    each figure {figure id: (points tested, 50% change, 80% change)}; side_a and
    side_b: compare_io.Side (their points and timer steps)."""
    pa, panels, busy_a = side_a.points
    pb, panels_b, busy_b = side_b.points
    panels = dict(panels)
    for k, v in panels_b.items():
        panels.setdefault(k, v)
    sa, sb = side_a.steps, side_b.steps
    order = {}
    for k in list(pa) + [k for k in pb if k not in pa]:
        order.setdefault(k, len(order))
    both = {k: (pa[k], pb[k]) for k in pa if k in pb and pa[k] and pb[k]}
    variances = log_variances(both)
    priors = {}
    for pid in panels:
        priors[pid] = variance_prior(sp, [v for k, v in variances.items() if k[0] == pid])
    var = moderated(variances, priors)
    keys = sorted(order, key=lambda k: (list(panels).index(k[0]), order[k]))
    both_keys = [k for k in keys if pa.get(k) and pb.get(k)]
    cis = dict(zip(both_keys, bootstrap_all(np, [(pa[k], pb[k]) for k in both_keys])))
    rows = []
    for key in keys:
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
            row["ci_low"], row["ci_high"] = cis[key]
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
            # a point one run decides in either set is never significant
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


def set_runs(points):
    """{figure id: smallest run count of a point} of a side's points."""
    pts, panels, _ = points
    out = {}
    for k, vals in pts.items():
        fid = panels[k[0]][0]
        out[fid] = min(out.get(fid, len(vals)), len(vals))
    return out
