# SPDX-License-Identifier: MIT
"""The figure table: one entry per figure id of doc/design.md §6 (the vocabulary and how
an entry is built: plots/figbuild.py).

To add a figure: add one Figure(...) below (its id, the CSV it reads, which
rows, the x measure, one Panel per y measure, the envelope and texts), then its
drawing scripts plots/gnuplot/<id>.gp (listed in PLOT_FILES of Makefile.am) and
a DRAW entry in plots/mpl_figures.py. The drawings read only what the entry
writes to DIR/figdata/<id>*.dat; tests/test_plots.sh draws every id listed here.
"""

from envelopes import (REL_ERROR_TEXT, SCALABLE_TEXT, expected_worst_of, rel_error_envelope,
                       scalable_envelope)
from figbuild import (Figure, Panel, at_most_threads, by_threshold, by_work, column,
                      count_n, kinds, leave_out, only, threads)
from resultset import seconds_of
from stats import batched_reads, batched_text, percentile

BAND = "line: median, band: min-max"
N_LABEL = "N (increments: the true final count)"

OPS_PER_MS = Panel(column("ops_per_ms"), "throughput (ops/ms)",
                   "ops_per_ms: increments of all counters per ms of the measured phase")
THROUGHPUT = dict(source=None, mode="timed", x=threads, xlabel="threads", panels=[OPS_PER_MS],
                  drawn=BAND,
                  selection="mode timed, external work {works}%, {counters} counter(s)")


def rel_error_pct(r):
    return None if r.get("rel_error") is None else 100.0 * r["rel_error"]


def value_over_n(r):
    return r["value"] / r["ops"]


def fig6_extra(rs, stats):
    """Both Fig. 6 figures on one y scale (the worst probabilistic error of either
    file); one line per distinct RSTDV bound; the expected worst of n runs at it."""
    rows = [r for name in ("dice-fig4-low.csv", "dice-fig4-high.csv")
            for r in rs.rows(name, "timed")
            if r["kind"] == "probabilistic" and r.get("rel_error") is not None]
    bounds = {}
    for s, pts in stats.items():
        for p in pts.values():
            if p["env_hi"] is not None:
                bounds.setdefault(float("%.3g" % p["env_hi"]), set()).add(s)
    out = []
    n = min([p["n"] for s, pts in stats.items() if s != "Serial" for p in pts.values()] or [0])
    worst = 0.0
    if bounds:
        b = max(bounds)
        worst = expected_worst_of(n) * b if n else 0.0
        out += [("bound_values", " ".join("%g" % v for v in sorted(bounds))),
                ("bound_labels", " ".join("/".join(sorted(bounds[v])) for v in sorted(bounds))),
                ("worst_of_n", "%.4g" % worst),
                ("worst_of_n_label", "expected worst of %d runs at the %g%% bound" % (n, b))]
    top = max([100.0 * r["rel_error"] for r in rows] + [worst] + list(bounds))
    out.append(("y_max", "%.4g" % (1.1 * top)))
    out.append(("y_max_about", "both Fig. 6 figures use 0..y_max: 1.1 x the largest of the "
                               "worst probabilistic error in dice-fig4-low.csv and "
                               "dice-fig4-high.csv, the bounds and the worst-of-n line"))
    serial = [p["max"] for p in stats.get("Serial", {}).values() if p.get("max") is not None]
    if serial:
        # Serial's panel from its own data: 0..1% where it lost no update
        out.append(("serial_y_max", "%.4g" % (1.1 * max(serial) if max(serial) > 0 else 1)))
    return out


FIG6 = dict(mode="timed", x=threads, xlabel="threads", select=[kinds("probabilistic", "racy")],
            extra=fig6_extra,
            drawn_points="point: worst run (max); dashed: RSTDV bound; dotted: expected worst of "
                         "n runs, normal errors with sigma = bound",
            drawn="line: worst run (max), dashed: analytic RSTDV bound, dotted: expected worst "
                  "of n runs at that bound; Serial in its own panel",
            panels=[Panel(rel_error_pct, "|relative error| (%)",
                          "100 |value - ops| / ops of the hot counter; Dice plot the worst "
                          "run: the max column")],
            selection="probabilistic and racy variants of {source}, external work {works}%",
            envelope=rel_error_envelope, envelope_text=REL_ERROR_TEXT)

ACCURACY = dict(mode="count", x=count_n, xlabel=N_LABEL,
                panels=[Panel(value_over_n, "value / N",
                              "the counter's value divided by the true count N (1 = exact)")],
                selection="mode count, {threads} thread(s) each doing N/threads increments",
                envelope=scalable_envelope, envelope_text=SCALABLE_TEXT)

SCALING = dict(mode="count", x=count_n, xlabel=N_LABEL, drawn=BAND,
               panels=[Panel(seconds_of, "time (seconds)",
                             "seconds from the start barrier to the last thread's finish")],
               selection="mode count (see the accuracy figures)",
               notes="seconds: from ops/ops_per_ms when the seconds column (6 decimals) reads "
                     "below 1 ms; {unvalued} run(s) timed at 0 s are left out (n counts the "
                     "runs used)",
               note="{id}: {unvalued} run(s) of {source} read 0 s (below the clock's "
                    "resolution) and are left out of the time statistics")


MODE_GAP = 1.3     # a jump between consecutive sorted runs that splits a point in two
MODE_SHARE = 0.10  # ... with at least this share of the runs on each side


def two_modes(values):
    """(low median, high median) when the sorted values fall in two clusters: a
    ratio of at least MODE_GAP between two consecutive values with at least
    MODE_SHARE of them on each side; else None."""
    xs = sorted(v for v in values if v > 0)
    k = max(1, int(len(xs) * MODE_SHARE))
    if len(xs) < 10:
        return None
    gaps = [(xs[i + 1] / xs[i], i) for i in range(k - 1, len(xs) - k)]
    if not gaps:
        return None
    g, i = max(gaps)
    if g < MODE_GAP:
        return None
    return percentile(xs[:i + 1], 0.5), percentile(xs[i + 1:], 0.5)


def startup_extra(rs, stats):
    """Ayers's scaling figures: the largest N up to which some point's runs fall in
    two clusters (start-up: a run either has its threads running from the first
    increment or pays a late start), said in the figure and marked on the axis."""
    xs = sorted(set(x for pts in stats.values() for x in pts))
    if not xs:
        return []
    # The start-up cost: the median time at the smallest N, where counting is nothing.
    start = percentile(sorted(v for pts in stats.values() if xs[0] in pts
                              for v in pts[xs[0]].get("values") or []), 0.5)
    mixed = {}
    for s, pts in stats.items():
        for x, p in pts.items():
            m = two_modes(p.get("values") or [])
            # Two clusters of start-up, not of counting: the slower no more than
            # twice the start-up cost.
            if m and start and m[1] <= 2 * start:
                mixed.setdefault(x, []).append((s, m))
    if not mixed:
        return []
    upto = max(mixed)
    lo = percentile(sorted(m[0] for ms in mixed.values() for _, m in ms), 0.5)
    hi = percentile(sorted(m[1] for ms in mixed.values() for _, m in ms), 0.5)
    return [("note", "N <= %s (dotted): %d points' runs fall in two start-up modes, about "
                     "%.2g and %.2g us: their bands span both"
                     % (figdata_fmt(upto), sum(len(v) for v in mixed.values()), lo * 1e6,
                        hi * 1e6)),
            ("startup_upto", figdata_fmt(upto))]


def figdata_fmt(x):
    return "%d" % x if float(x).is_integer() else "%g" % x


def resolution(rs, name, cols):
    """The smallest step between distinct values of cols over the runs of name (ns):
    what the timer resolves there."""
    vals = sorted(set(r[c] for r in rs.rows(name, "timed") for c in cols
                      if r.get(c) is not None))
    steps = [b - a for a, b in zip(vals, vals[1:]) if b - a > 1e-9]
    return min(steps) if steps else None


def timing_cost(rs):
    """Median over variants of the ns per increment that timing each increment adds:
    1 thread, latency.csv against dice-fig4-high.csv (both 0% external work)."""
    def ns(name):
        out = {}
        for r in rs.rows(name, "timed"):
            if r["threads"] == 1 and r.get("ops_per_ms"):
                out.setdefault(r["counter"], []).append(1e6 / r["ops_per_ms"])
        return {k: percentile(sorted(v), 0.5) for k, v in out.items()}
    lat, plain = ns("latency.csv"), ns("dice-fig4-high.csv")
    d = sorted(lat[k] - plain[k] for k in lat if k in plain)
    return percentile(d, 0.5) if d else None


def latency_extra(rs, stats):
    step = resolution(rs, "latency.csv", ("lat_p50_ns",))
    cost = timing_cost(rs)
    about = ("every increment of every run is timed (two tick reads around it) into one "
             "histogram per run; the p50 values move in steps of %s ns (the timer's "
             "resolution here)" % ("%.3g" % step if step else "?"))
    if cost is not None:
        about += ("; timing adds about %.0f ns per increment (1 thread: latency.csv against "
                  "dice-fig4-high.csv), of which the cost of an empty pair of tick reads is "
                  "subtracted from each sample" % cost)
    floor = step / 2 if step else 1
    zeros = sum(1 for pts in stats.values() for p in pts.values() if p["min"] < floor)
    note = "every increment timed; p50 moves in %s ns steps (the timer's resolution)" % (
        "%.3g" % step if step else "?")
    if cost is not None:
        note += "; timing adds about %.0f ns per increment" % cost
    out = [("sampling", about),
           ("note", note + "; 0 = under half a step (at the subtracted timing cost)"),
           ("zero_floor", "%g" % floor),
           ("zero_about", "%d point(s) have a run under %g ns, half the timer's resolution: "
                          "indistinguishable from the subtracted timing cost, drawn at the "
                          "axis floor labelled 0" % (zeros, floor))]
    return out


def read_sampling(rs):
    """How often read-cost's reader sampled, from the metadata: once a millisecond
    before schema 2; since, the reader reports its wake-ups (about every 20 ms)."""
    m = rs.meta("read-cost.csv") or {}
    rate = ((m.get("helper_threads") or {}).get("reader") or {}).get("wakeups_per_s")
    if rate:
        return ("about %.0f times a second (the first at the phase start)" % rate,
                "about %.0f times a second (the first at the start of the phase)" % rate)
    return ("every ms (about 1000 a second)",
            "millisecond (about 1000 samples a second, at most 1024 per run)")


def read_cost_extra(rs, stats):
    step = resolution(rs, "read-cost.csv", ("read_ns",))
    ts = "/".join("%d" % t for t in sorted(set(r["threads"] for r in rs.rows("read-cost.csv",
                                                                           "timed"))))
    short, long_ = read_sampling(rs)
    every = "every " + long_ if long_.startswith("millisecond") else long_
    batch = batched_reads(rs.rows("read-cost.csv", "timed"))
    if batch is not None:
        # over 1% of a sample: the one-step caution of a single timed get, per get
        what = batched_text(batch) + ("" if batch["resolved"] else
                                      "; a difference below that step is not resolved")
        return [("note", "ns per get, sampled %s while %s threads increment: %s"
                         % (short, ts, what)),
                ("sampling", "a reader thread that never increments samples %s while the "
                 "others increment; read_ns is the median of a run's samples, in ns per "
                 "get: %s" % (every, what))]
    return [("note", "one get timed %s while %s threads increment: "
                     "mostly whether the line was written since the last sample; %s ns steps"
                     % (short, ts, "%.3g" % step if step else "?")),
            ("sampling", "a reader thread that never increments times one get %s while the "
             "others increment; read_ns is the median of a run's samples, so it measures "
             "mostly whether the counter's line was written since the last sample; values "
             "move in steps of %s ns (the timer's resolution here)"
             % (every, "%.3g" % step if step else "?"))]


def latency_panel(key, label, fraction):
    col = "lat_%s_ns" % key
    return Panel(column(col), "%s latency (ns)" % label,
                 "%s: per-increment latency percentile of each run (ns), timing cost "
                 "subtracted; the statistics are over runs (but see latency_percentile)" % col,
                 suffix="-" + key, label="%s latency of one increment" % label,
                 pooled=fraction)


FIGURES = [
    Figure("dice-fig3", reproduces="Dice et al. Fig. 3",
           title="Single counter, low contention (99.02% external work)",
           **dict(THROUGHPUT, source="dice-fig3.csv")),
    Figure("dice-fig4-low", reproduces="Dice et al. Fig. 4 (top)",
           title="Single counter, low contention (99% external work)",
           **dict(THROUGHPUT, source="dice-fig4-low.csv")),
    Figure("dice-fig4-high", reproduces="Dice et al. Fig. 4 (bottom)",
           title="Single counter, high contention (0% external work); log y: on the "
                 "paper's linear axis Serial's racy rate squeezes the precise counters",
           **dict(THROUGHPUT, source="dice-fig4-high.csv")),
    Figure("dice-fig5", reproduces="Dice et al. Fig. 5",
           title="7500 counters, one hot, 0% external work",
           **dict(THROUGHPUT, source="dice-fig5.csv")),
    Figure("dice-fig6-low", reproduces="Dice et al. Fig. 6 (top)", source="dice-fig4-low.csv",
           title="Worst |relative error| of the runs, low contention (99% external work)",
           **FIG6),
    Figure("dice-fig6-high", reproduces="Dice et al. Fig. 6 (bottom)",
           source="dice-fig4-high.csv",
           title="Worst |relative error| of the runs, high contention (0% external work)",
           **FIG6),
    Figure("ayers-accuracy", reproduces="Ayers, counter-accuracy", source="ayers.csv",
           title="Counting to N with all PUs: value/N (mean, min-max)",
           drawn="line: mean, band: min-max", switch_over=True, **ACCURACY),
    Figure("ayers-accuracy-detail", reproduces="Ayers, counter-accuracy-detail",
           source="ayers.csv", select=[leave_out("Serial")], switch_over=True,
           title="Counting to N, racing left out: value/N (5th-95th pct, min-max, "
                 "binomial model)",
           drawn="line: mean, band: 5th-95th percentile, dotted: min and max, dashed: "
                 "binomial model (5th-95th)", **ACCURACY),
    Figure("ayers-accuracy-tunable", reproduces="Ayers, counter-accuracy-tunable",
           source="ayers-tunable.csv", select=[only("Scalable")], series=by_threshold,
           title="Scalable with switch-over 2^T, T = 10..15: 5th and 95th percentiles of "
                 "value/N",
           drawn="lines: 5th and 95th percentiles, dashed: binomial model", **ACCURACY),
    Figure("ayers-scaling", reproduces="Ayers, counter-scaling", source="ayers.csv",
           title="Counting to N with all PUs: time (median, min-max)", extra=startup_extra,
           **SCALING),
    Figure("ayers-scaling-detail", reproduces="Ayers, counter-scaling-detail",
           source="ayers-tunable.csv", select=[only("Scalable")], series=by_threshold,
           title="Scalable with switch-over 2^T, T = 10..15: time (median, min-max)",
           extra=startup_extra, **SCALING),
    Figure("baselines", reproduces="", source="baselines.csv", mode="timed", drawn=BAND,
           title="The papers' best counters against {baselines}",
           x=threads, xlabel="threads", split=by_work,
           selection="mode timed, external work {works}%",
           panels=[Panel(column("ops_per_ms"), "throughput (ops/ms)",
                         "ops_per_ms: increments per ms of the measured phase",
                         label="{works}% external work ({contention})")]),
    Figure("latency", reproduces="", source="latency.csv", mode="timed",
           title="Latency of one increment, single counter, 0% external work",
           drawn="line: median over runs, band: min-max", x=threads, xlabel="threads",
           drawn_pooled="line: percentile of all increments (runs' histograms pooled), "
                        "band: min-max of the runs' own percentiles",
           requires=("lat_p50_ns", "no latency columns (not run with --latency)"),
           extra=latency_extra,
           panels=[latency_panel("p50", "median (p50)", (1, 2)),
                   latency_panel("p99", "p99", (99, 100)),
                   latency_panel("p999", "p99.9", (999, 1000))]),
    Figure("read-cost", reproduces="", source="read-cost.csv", mode="timed",
           title="Cost of reading a counter, and its memory",
           drawn="point: median, whisker: min-max", x=threads, xlabel="variant",
           extra=read_cost_extra,
           select=[at_most_threads],
           selection="mode timed, {threads} incrementing threads, one reader thread",
           panels=[Panel(column("read_ns"), "read cost (ns per get)",
                         "read_ns: each run's median ns per get", suffix="-ns",
                         label="cost of a get (read) while {threads} threads increment"),
                   Panel(column("bytes_per_counter"), "bytes per counter",
                         "bytes_per_counter: array stride plus allocated memory",
                         suffix="-bytes", label="memory per counter")]),
]

FIGURE_IDS = [f.id for f in FIGURES]
