#!/usr/bin/env python3
"""aggregate.py DIR - the one aggregator of a result set (STYLE.md principle 7).

Reads the scbench CSVs of result set DIR (results/README.md has the schema) and
writes everything the figures and the report need, so that neither renderer nor
the report computes a statistic:

  DIR/figdata/<figure>.dat    per-figure tidy data (format: plots/figdata.py):
                              one row per (series, x) with n, median, min, max,
                              mean, p5, p95 over the runs of that point, and the
                              analytic envelope where one exists
  DIR/figdata/figures.tsv     every figure id of SPEC §6: ok + its .dat files,
                              or skipped + why (a missing CSV is skipped, not fatal)
  DIR/figdata/claims.json     the result-set summary and one entry per claim of
                              the two papers: what was measured here and the verdict

Standard library only; any Python 3.5+ (run by /usr/bin/python3 or the first
python3 on PATH). Exit status 0 (also when files are missing), 2 on bad usage.
"""

import csv
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree (it may be read-only)
sys.path.insert(0, HERE)
import figdata  # noqa: E402

PCT_METHOD = ("linear interpolation between order statistics (Hyndman-Fan type 7, "
              "numpy's default): with the n values sorted x[0..n-1], h = (n-1)p and "
              "P(p) = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h])")
STATS_TEXT = ("over the runs of each point: n (runs used), median, min, max, mean, "
              "p5, p95 (5th and 95th percentiles)")
Z_5_95 = 1.6448536269514722  # standard normal quantile of 0.95: the 5th-95th band is mean +- z sigma

HOLDS, FAILS, NM = "holds", "does not hold", "not measurable"
UNTIMED = ("most runs at this N read 0 s: their count-to-N time is below what the "
           "harness resolves, so the rest are not a fair sample")

# Variant groups of Dice §5 (canonical names, SPEC §3).
DICE_PROB = ["Morris", "MorrisAdapt", "BFP-DUP", "BFP-CSUP"]
DICE_SCALABLE = ["Multiline", "MultilineAdapt"] + DICE_PROB
DICE_UNSCALABLE_PRECISE = ["CAS", "RBO", "RBONuma", "RBONumaAdapt"]


# --- statistics ---------------------------------------------------------------

def percentile(xs, p):
    """p in [0, 1] of the sorted list xs, by PCT_METHOD."""
    if not xs:
        return None
    h = (len(xs) - 1) * p
    lo = int(math.floor(h))
    if lo + 1 >= len(xs):
        return xs[-1]
    return xs[lo] + (h - lo) * (xs[lo + 1] - xs[lo])


def summarize(values):
    xs = sorted(v for v in values if v is not None and not math.isnan(v))
    if not xs:
        return None
    return {"n": len(xs), "median": percentile(xs, 0.5), "min": xs[0], "max": xs[-1],
            "mean": sum(xs) / len(xs), "p5": percentile(xs, 0.05),
            "p95": percentile(xs, 0.95), "values": xs}


def spearman(xs, ys):
    """Spearman's rank correlation (average ranks for ties); None if undefined."""
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2.0
            i = j + 1
        return r
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


# --- analytic envelopes -----------------------------------------------------------

def morris_rstdv(params):
    """Dice §3.1: the RSTDV of Morris's counter is below 1/sqrt(2a), a = 1/(2 acc^2)."""
    acc = float(params.get("accuracy", 1.0)) / 100.0
    a = 1.0 / (2.0 * acc * acc)
    return 1.0 / math.sqrt(2.0 * a)


def bfp_dup_rstdv(params):
    """Dice §4.2: limsup RSTDV <= sqrt(3/(8M - 3)), M = MantissaThreshold/2, with
    MantissaThreshold = 2 floor((30000/acc%^2 + 3)/8) (7500, M = 3750 at 1%)."""
    if "mantissa-threshold" in params:
        m = float(params["mantissa-threshold"]) / 2.0
    else:
        acc = float(params.get("accuracy", 1.0))
        m = math.floor((30000.0 / (acc * acc) + 3.0) / 8.0)
    return math.sqrt(3.0 / (8.0 * m - 3.0))


def scalable_sigma(n, t):
    """Standard deviation of Scalable's value after n increments, threshold T = t.

    Ayers models the updates as binomial; carried through every doubling:
    while the count is in [2^k, 2^(k+1)), k >= T, an increment adds
    d = 2^(k-T+1) with probability 1/d, so it adds d*B with B ~ Bernoulli(1/d):
    mean 1 (unbiased) and variance d^2 (1/d)(1 - 1/d) = d - 1. The count being
    unbiased, about 2^k increments are spent in that range (and n - 2^k in the
    last, partial one); increments are independent, so
        Var(value) = sum over k >= T with 2^k < n of (min(2^(k+1), n) - 2^k)(2^(k-T+1) - 1).
    Below 2^T every increment adds exactly 1 (variance 0). For n = 2^K >> 2^T
    this tends to (2/3) 4^K / 2^T, a relative sigma of sqrt(2/(3 * 2^T)) (0.90%
    at T = 13); the 5th-95th percentile band is 1 +- 1.645 sigma/n (+-1.5%).
    Ayers's own back-of-envelope (one doubling, 2 sigma over the 8192 increments
    of that doubling) gives +-2.2%. Stale reads of the count under contention only
    pick smaller steps, so this is an upper estimate.
    """
    var = 0.0
    k = t
    while 2 ** k < n:
        lo, hi = 2 ** k, min(2 ** (k + 1), n)
        var += (hi - lo) * (2.0 ** (k - t + 1) - 1.0)
        k += 1
    return math.sqrt(var)


# --- reading the result set ------------------------------------------------------

TEXT_COLUMNS = {"counter", "kind", "mode", "placement", "params", "pmu_status"}


def parse_params(text):
    out = {}
    for part in (text or "").split(";"):
        if "=" in part:
            k, _, v = part.partition("=")
            out[k.strip()] = v.strip()
    return out


class ResultSet:
    def __init__(self, path):
        self.path = path
        self.cache = {}
        self.notes = []   # problems met while reading, for the report

    def csv(self, name):
        """Rows of DIR/name as dicts (numbers as floats, empty as None), or None if missing."""
        if name in self.cache:
            return self.cache[name]
        path = os.path.join(self.path, name)
        rows = None
        if os.path.isfile(path):
            rows = []
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                for lineno, raw in enumerate(reader, 2):
                    if None in raw or any(v is None for v in raw.values()):
                        self.notes.append("%s line %d: wrong number of fields, ignored"
                                          % (name, lineno))
                        continue
                    row = {}
                    try:
                        for k, v in raw.items():
                            if k in TEXT_COLUMNS:
                                row[k] = v
                            else:
                                row[k] = float(v) if v != "" else None
                    except ValueError:
                        self.notes.append("%s line %d: a number does not parse, ignored"
                                          % (name, lineno))
                        continue
                    row["params_map"] = parse_params(row.get("params"))
                    rows.append(row)
        self.cache[name] = rows
        return rows

    def meta(self, name):
        path = os.path.join(self.path, name + ".meta.json")
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None


# --- figure data -------------------------------------------------------------------

def first_order(rows, key):
    """Distinct key(row) values in order of first appearance."""
    seen, out = set(), []
    for r in rows:
        k = key(r)
        if k not in seen:
            seen.add(k)
            out.append(k)
    return out


def series_namer(rows):
    """Series = variant name, plus its parameters when one file holds several sets."""
    sets = {}
    for r in rows:
        sets.setdefault(r["counter"], set()).add(r.get("params") or "")
    def name(r):
        if len(sets[r["counter"]]) > 1 and r.get("params"):
            return "%s[%s]" % (r["counter"], r["params"])
        return r["counter"]
    return name


def group_stats(rows, series_of, x_of, y_of, envelope=None):
    """{series: {x: stats}} in order; stats has the summary plus env_lo/env_hi and oversub."""
    order = first_order(rows, series_of)
    out = {}
    buckets = {}
    for r in rows:
        y = y_of(r)
        buckets.setdefault((series_of(r), x_of(r)), []).append((y, r))
    for s in order:
        out[s] = {}
    for (s, x), items in buckets.items():
        st = summarize([y for y, _ in items])
        if st is None:
            continue
        st["total"] = len(items)  # runs of the point, n of them with a value
        st["oversub"] = any((r.get("oversubscribed") or 0) > 0 for _, r in items)
        st["env_lo"], st["env_hi"] = envelope(s, x, items[0][1]) if envelope else (None, None)
        out[s][x] = st
    return {s: pts for s, pts in out.items() if pts}


def to_series_rows(stats):
    out = []
    for s, pts in stats.items():
        rows = []
        for x in sorted(pts):
            st = dict(pts[x])
            st["x"] = int(x) if float(x).is_integer() else x
            rows.append(st)
        out.append((s, rows))
    return out


def fmt_pct_level(w):
    return ("%g" % w)


def seconds_of(r):
    """Seconds of a run. The seconds column has 6 decimals; below 1 ms the
    ops_per_ms column (6 significant digits) gives more precision when there is
    one counter. A run timed at 0 s (faster than the clock's reading) is None."""
    s = r.get("seconds")
    opm = r.get("ops_per_ms")
    if (s is None or s < 1e-3) and opm and r.get("counters", 1) == 1 and r.get("ops"):
        return r["ops"] / (opm * 1e3)
    return s if s and s > 0 else None


class Figures:
    """Builds every figure's data; keeps the statistics in memory for the claims."""

    def __init__(self, rs, machine):
        self.rs = rs
        self.machine = machine
        self.stats = {}      # (figure id, panel) -> {series: {x: stats}}
        self.index = []      # (id, status, files or reason)
        self.notes = []

    def timed_rows(self, name, pred=None):
        rows = self.rs.csv(name)
        if rows is None:
            return None
        return [r for r in rows if r.get("mode") == "timed" and (pred is None or pred(r))]

    def count_rows(self, name):
        rows = self.rs.csv(name)
        if rows is None:
            return None
        return [r for r in rows if r.get("mode") == "count" and r.get("ops")]

    def emit(self, fid, panels, outdir):
        """panels: [(suffix, header list, stats)]; writes the .dat files."""
        files = []
        for suffix, header, stats in panels:
            if not stats:
                continue
            fname = fid + suffix + ".dat"
            self.stats[(fid, suffix)] = stats
            header = header + self.derived_header(spec_of(fid), stats)
            figdata.write_dat(os.path.join(outdir, fname), header, to_series_rows(stats))
            files.append(fname)
        if files:
            self.index.append((fid, "ok", " ".join(files)))
        else:
            self.index.append((fid, "skipped", "no usable rows"))

    def derived_header(self, spec, stats):
        """Header lines that depend on the data: runs, envelope series, caption."""
        ns = [p["n"] for pts in stats.values() for p in pts.values()]
        runs = "%d" % min(ns) if min(ns) == max(ns) else "%d-%d" % (min(ns), max(ns))
        env = [s for s, pts in stats.items()
               if any(p["env_hi"] is not None for p in pts.values())]
        m = self.machine
        where = m.get("host") or "unknown host"
        if m.get("topology"):
            where += ": " + m["topology"]
        if m.get("nodes_virtual"):
            where += ", virtual nodes"
        out = [("runs", "%s runs per point" % runs),
               ("envelope_series", " ".join(env)),
               ("drawn", spec["drawn"]),
               ("caption", "%s; %s runs per point" % (where, runs))]
        if spec.get("switch_over"):
            ts = sorted(set(threshold_of(r) for r in (self.rs.csv(spec["source"]) or [])
                            if r["counter"] == "Scalable"))
            if len(ts) == 1:
                out.append(("switch_over", "%d" % 2 ** ts[0]))
                out.append(("switch_over_exp", "%d" % ts[0]))
        return out

    def skip(self, fid, reason):
        self.index.append((fid, "skipped", reason))

    def build(self, outdir):
        for spec in FIGURE_SPECS:
            fid, source = spec["id"], spec["source"]
            if self.rs.csv(source) is None:
                self.skip(fid, "%s is not in this result set" % source)
                continue
            panels = spec["build"](self, spec)
            if isinstance(panels, str):
                self.skip(fid, "%s: %s" % (source, panels))
            elif panels is None:
                self.skip(fid, "%s has no %s-mode rows" % (
                    source, "count" if source.startswith("ayers") else "timed"))
            else:
                self.emit(fid, panels, outdir)


def header(spec, **kw):
    h = [("figure", spec["id"]), ("title", spec["title"])]
    if spec.get("reproduces"):
        h.append(("reproduces", spec["reproduces"]))
    h.append(("source", spec["source"]))
    for key in ("panel", "selection", "xlabel", "ylabel", "y", "envelope", "notes"):
        if kw.get(key):
            h.append((key, kw[key]))
    h.append(("statistics", STATS_TEXT))
    h.append(("percentiles", PCT_METHOD))
    if not kw.get("envelope"):
        h.append(("envelope", "env_lo env_hi are NaN: no analytic envelope in this figure"))
    return h


def build_throughput(fig, spec):
    extra = spec.get("filter")
    rows = fig.timed_rows(spec["source"], extra)
    if not rows:
        return None
    name = series_namer(rows)
    stats = group_stats(rows, name, lambda r: r["threads"], lambda r: r.get("ops_per_ms"))
    works = sorted(set(r["work_pct"] for r in rows))
    sel = "mode timed, external work %s%%, %s counter(s)" % (
        "/".join(fmt_pct_level(w) for w in works),
        "/".join("%d" % c for c in sorted(set(r["counters"] for r in rows))))
    return [("", header(spec, selection=sel, xlabel="threads",
                        ylabel="throughput (ops/ms)",
                        y="ops_per_ms: increments of all counters per ms of the measured phase"),
             stats)]


def rel_error_envelope(series, x, row):
    if row["counter"] == "Morris":
        return (None, 100.0 * morris_rstdv(row["params_map"]))
    if row["counter"] == "BFP-DUP":
        return (None, 100.0 * bfp_dup_rstdv(row["params_map"]))
    return (None, None)


def build_fig6(fig, spec):
    rows = fig.timed_rows(spec["source"],
                          lambda r: r["kind"] in ("probabilistic", "racy"))
    if not rows:
        return None
    name = series_namer(rows)
    stats = group_stats(rows, name, lambda r: r["threads"],
                        lambda r: None if r.get("rel_error") is None else 100.0 * r["rel_error"],
                        envelope=rel_error_envelope)
    works = sorted(set(r["work_pct"] for r in rows))
    return [("", header(
        spec, selection="probabilistic and racy variants of %s, external work %s%%"
        % (spec["source"], "/".join(fmt_pct_level(w) for w in works)),
        xlabel="threads", ylabel="|relative error| (%)",
        y="100 |value - ops| / ops of the hot counter; Dice plot the worst run: the max column",
        envelope="env_hi = the analytic RSTDV bound in %: Morris 1/sqrt(2a) with "
                 "a = 1/(2 acc^2) (Dice §3.1), BFP-DUP sqrt(3/(8M-3)) with M = "
                 "MantissaThreshold/2 (Dice §4.2, in the limit); env_lo NaN"),
        stats)]


def threshold_of(row):
    try:
        return int(float(row["params_map"].get("threshold", 13)))
    except ValueError:
        return 13


def scalable_envelope(series, x, row):
    if row["counter"] not in ("Scalable",):
        return (None, None)
    t = threshold_of(row)
    half = Z_5_95 * scalable_sigma(x, t) / x
    return (1.0 - half, 1.0 + half)


AYERS_ENV_TEXT = ("env_lo env_hi = 1 -+ 1.645 sigma/N, the 5th-95th percentile band of the "
                  "binomial model of Scalable at its threshold T (normal approximation; "
                  "sigma from scalable_sigma in plots/aggregate.py: Var = sum over k >= T, "
                  "2^k < N of (min(2^(k+1), N) - 2^k)(2^(k-T+1) - 1)); NaN for other series")


def build_ayers_accuracy(fig, spec):
    rows = fig.count_rows(spec["source"])
    if rows and spec.get("exclude"):
        rows = [r for r in rows if r["counter"] not in spec["exclude"]]
    if not rows:
        return None
    if spec.get("by_threshold"):
        name = lambda r: "T%d" % threshold_of(r)  # noqa: E731
        rows = [r for r in rows if r["counter"] == "Scalable"]
        if not rows:
            return None
        order = sorted(set(name(r) for r in rows), key=lambda s: int(s[1:]))
        rows = sorted(rows, key=lambda r: order.index(name(r)))
    else:
        name = series_namer(rows)
    stats = group_stats(rows, name, lambda r: r["ops"], lambda r: r["value"] / r["ops"],
                        envelope=scalable_envelope)
    threads = sorted(set(int(r["threads"]) for r in rows))
    return [("", header(
        spec, selection="mode count, %s thread(s) each doing N/threads increments"
        % "/".join(str(t) for t in threads),
        xlabel="N (increments: the true final count)", ylabel="value / N",
        y="the counter's value divided by the true count N (1 = exact)",
        envelope=AYERS_ENV_TEXT), stats)]


def build_ayers_scaling(fig, spec):
    rows = fig.count_rows(spec["source"])
    if not rows:
        return None
    if spec.get("by_threshold"):
        rows = [r for r in rows if r["counter"] == "Scalable"]
        if not rows:
            return None
        name = lambda r: "T%d" % threshold_of(r)  # noqa: E731
        order = sorted(set(name(r) for r in rows), key=lambda s: int(s[1:]))
        rows = sorted(rows, key=lambda r: order.index(name(r)))
    else:
        name = series_namer(rows)
    dropped = sum(1 for r in rows if seconds_of(r) is None)
    stats = group_stats(rows, name, lambda r: r["ops"], seconds_of)
    notes = ("seconds: from ops/ops_per_ms when the seconds column (6 decimals) reads "
             "below 1 ms; %d run(s) timed at 0 s are left out (n counts the runs used)"
             % dropped)
    if dropped:
        fig.notes.append("%s: %d run(s) of %s read 0 s (below the clock's resolution) "
                         "and are left out of the time statistics"
                         % (spec["id"], dropped, spec["source"]))
    return [("", header(spec, selection="mode count (see the accuracy figures)",
                        xlabel="N (increments: the true final count)",
                        ylabel="time (seconds)",
                        y="seconds from the start barrier to the last thread's finish",
                        notes=notes), stats)]


def build_baselines(fig, spec):
    rows = fig.timed_rows(spec["source"])
    if not rows:
        return None
    panels = []
    for w in sorted(set(r["work_pct"] for r in rows)):
        sub = [r for r in rows if r["work_pct"] == w]
        name = series_namer(sub)
        stats = group_stats(sub, name, lambda r: r["threads"], lambda r: r.get("ops_per_ms"))
        label = "%s%% external work" % fmt_pct_level(w)
        label += " (high contention)" if w < 50 else " (low contention)"
        panels.append(("-w" + fmt_pct_level(w), header(
            spec, panel=label, selection="mode timed, external work %s%%" % fmt_pct_level(w),
            xlabel="threads", ylabel="throughput (ops/ms)",
            y="ops_per_ms: increments per ms of the measured phase"), stats))
    return panels


LATENCY_PANELS = [("p50", "lat_p50_ns", "median (p50)"), ("p99", "lat_p99_ns", "p99"),
                  ("p999", "lat_p999_ns", "p99.9")]


def build_latency(fig, spec):
    rows = fig.timed_rows(spec["source"])
    if not rows:
        return None
    if "lat_p50_ns" not in rows[0]:
        return "no latency columns (not run with --latency)"
    panels = []
    name = series_namer(rows)
    for suffix, col, label in LATENCY_PANELS:
        stats = group_stats(rows, name, lambda r: r["threads"], lambda r, c=col: r.get(c))
        panels.append(("-" + suffix, header(
            spec, panel="%s latency of one increment" % label,
            xlabel="threads", ylabel="%s latency (ns)" % label,
            y="%s: per-increment latency percentile of each run (ns), timing cost "
              "subtracted; the statistics are over runs" % col), stats))
    return panels


def build_read_cost(fig, spec):
    rows = fig.timed_rows(spec["source"])
    if not rows:
        return None
    tmax = max(r["threads"] for r in rows)
    rows = [r for r in rows if r["threads"] == tmax]
    name = series_namer(rows)
    ns = group_stats(rows, name, lambda r: r["threads"], lambda r: r.get("read_ns"))
    by = group_stats(rows, name, lambda r: r["threads"], lambda r: r.get("bytes_per_counter"))
    sel = "mode timed, %d incrementing threads, one reader thread" % tmax
    return [("-ns", header(spec, panel="cost of one get (read) while %d threads increment" % tmax,
                           selection=sel, xlabel="variant", ylabel="read cost (ns per get)",
                           y="read_ns: each run's median ns of one get"), ns),
            ("-bytes", header(spec, panel="memory per counter", selection=sel,
                              xlabel="variant", ylabel="bytes per counter",
                              y="bytes_per_counter: array stride plus allocated memory"), by)]


FIGURE_SPECS = [
    {"id": "dice-fig3", "drawn": "line: median, band: min-max", "source": "dice-fig3.csv", "build": build_throughput,
     "reproduces": "Dice et al. Fig. 3",
     "title": "Single counter, low contention (99.02% external work), up to 64 threads"},
    {"id": "dice-fig4-low", "drawn": "line: median, band: min-max", "source": "dice-fig4-low.csv", "build": build_throughput,
     "reproduces": "Dice et al. Fig. 4 (top)",
     "title": "Single counter, low contention (99% external work), all thread counts"},
    {"id": "dice-fig4-high", "drawn": "line: median, band: min-max", "source": "dice-fig4-high.csv", "build": build_throughput,
     "reproduces": "Dice et al. Fig. 4 (bottom)",
     "title": "Single counter, high contention (0% external work), all thread counts"},
    {"id": "dice-fig5", "drawn": "line: median, band: min-max", "source": "dice-fig5.csv", "build": build_throughput,
     "reproduces": "Dice et al. Fig. 5",
     "title": "7500 counters, one hot, 0% external work"},
    {"id": "dice-fig6-low", "drawn": "line: worst run (max), dashed: analytic RSTDV bound, Serial on the right axis", "source": "dice-fig4-low.csv", "build": build_fig6,
     "reproduces": "Dice et al. Fig. 6 (top)",
     "title": "Worst |relative error| of the runs, low contention (99% external work)"},
    {"id": "dice-fig6-high", "drawn": "line: worst run (max), dashed: analytic RSTDV bound, Serial on the right axis", "source": "dice-fig4-high.csv", "build": build_fig6,
     "reproduces": "Dice et al. Fig. 6 (bottom)",
     "title": "Worst |relative error| of the runs, high contention (0% external work)"},
    {"id": "ayers-accuracy", "drawn": "line: mean, band: min-max", "switch_over": True, "source": "ayers.csv", "build": build_ayers_accuracy,
     "reproduces": "Ayers, counter-accuracy",
     "title": "Counting to N with all PUs: value/N (mean, min-max)"},
    {"id": "ayers-accuracy-detail", "drawn": "line: mean, band: 5th-95th percentile, dotted: min and max, dashed: binomial model (5th-95th)", "source": "ayers.csv", "build": build_ayers_accuracy,
     "exclude": ["Serial"], "switch_over": True, "reproduces": "Ayers, counter-accuracy-detail",
     "title": "Counting to N, racing left out: value/N (5th-95th pct, min-max, binomial model)"},
    {"id": "ayers-accuracy-tunable", "drawn": "lines: 5th and 95th percentiles, dashed: binomial model", "source": "ayers-tunable.csv",
     "build": build_ayers_accuracy, "by_threshold": True,
     "reproduces": "Ayers, counter-accuracy-tunable",
     "title": "Scalable with switch-over 2^T, T = 10..15: 5th and 95th percentiles of value/N"},
    {"id": "ayers-scaling", "drawn": "line: median, band: min-max", "source": "ayers.csv", "build": build_ayers_scaling,
     "reproduces": "Ayers, counter-scaling",
     "title": "Counting to N with all PUs: time (median, min-max)"},
    {"id": "ayers-scaling-detail", "drawn": "line: median, band: min-max", "source": "ayers-tunable.csv", "build": build_ayers_scaling,
     "by_threshold": True, "reproduces": "Ayers, counter-scaling-detail",
     "title": "Scalable with switch-over 2^T, T = 10..15: time (median, min-max)"},
    {"id": "baselines", "drawn": "line: median, band: min-max", "source": "baselines.csv", "build": build_baselines,
     "reproduces": "",
     "title": "The papers' best counters against Sharded, Striped, Batched and PerCPU"},
    {"id": "latency", "drawn": "line: median over runs, band: min-max", "source": "latency.csv", "build": build_latency, "reproduces": "",
     "title": "Latency of one increment, single counter, 0% external work"},
    {"id": "read-cost", "drawn": "bar: median, whisker: min-max", "source": "read-cost.csv", "build": build_read_cost,
     "reproduces": "", "title": "Cost of reading a counter, and its memory"},
]

FIGURE_IDS = [s["id"] for s in FIGURE_SPECS]


def spec_of(fid):
    return [s for s in FIGURE_SPECS if s["id"] == fid][0]


# --- claims -----------------------------------------------------------------------

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


class Claims:
    def __init__(self, rs, figs, machine):
        self.rs = rs
        self.figs = figs
        self.m = machine
        self.out = []

    # helpers ---------------------------------------------------------------
    def add(self, cid, source, text, figure, measured, verdict, reason):
        self.out.append({"id": cid, "source": source, "claim": text, "figure": figure,
                         "measured": measured, "verdict": verdict, "reason": reason})

    def st(self, fid, panel=""):
        return self.figs.stats.get((fid, panel))

    def missing(self, fid):
        for spec in FIGURE_SPECS:
            if spec["id"] == fid:
                if self.rs.csv(spec["source"]) is None:
                    return "%s is not in this result set" % spec["source"]
                return "%s has no usable rows" % spec["source"]
        return "no data"

    def xs(self, stats, series):
        return sorted(x for s in series if s in stats for x in stats[s])

    def largest_threads_text(self, stats):
        xs = [x for pts in stats.values() for x in pts]
        t = int(max(xs)) if xs else 0
        return ("the largest thread count in this result set is %d (machine: %s PUs, %s)"
                % (t, self.m.get("pus", "?"), self.m.get("nodes_text", "? nodes")))

    def point(self, stats, series, t):
        """(stats dict, None) or (None, reason) for one series at exactly t threads."""
        if series not in stats:
            return None, "%s was not measured" % series
        if t not in stats[series]:
            return None, "needs %d threads; %s" % (t, self.largest_threads_text(stats))
        p = stats[series][t]
        if p["oversub"]:
            return None, ("needs %d threads on %d PUs; the %d-thread point here was "
                          "oversubscribed (%s PUs)" % (t, t, t, self.m.get("pus", "?")))
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

    # claims ----------------------------------------------------------------
    def serial_error(self, cid, source, text, fid, tmin, bound, use):
        stats = self.st(fid)
        if not stats or "Serial" not in stats:
            self.add(cid, source, text, fid, "", NM,
                     self.missing(fid) if not stats else "Serial was not measured")
            return
        xs = [x for x in sorted(stats["Serial"]) if x >= tmin]
        good = [x for x in xs if not stats["Serial"][x]["oversub"]]
        if not good:
            self.add(cid, source, text, fid,
                     "Serial |error| " + self.context_at_max(stats, ["Serial"], f_pct, use),
                     NM, "needs at least %d threads; %s" % (tmin, self.largest_threads_text(stats)))
            return
        parts = ["%d thr: %s" % (x, f_pct(stats["Serial"][x][use])) for x in good]
        ok = all(stats["Serial"][x][use] > bound for x in good)
        what = "least of the runs" if use == "min" else "median of the runs"
        self.add(cid, source, text, fid, "Serial |error| (%s): %s" % (what, "; ".join(parts)),
                 HOLDS if ok else FAILS,
                 "%s above %g%% at every thread count >= %d" % (what, bound, tmin) if ok else
                 "%s not above %g%% at some thread count >= %d" % (what, bound, tmin))

    def ratio_at(self, cid, source, text, fid, t, num, den, bound, need_nodes=False,
                 den_max=False):
        """median(num series) / median(den series) at t threads, every ratio > bound.
        den_max: divide by the largest median among the den series."""
        stats = self.st(fid)
        if not stats:
            self.add(cid, source, text, fid, "", NM, self.missing(fid))
            return
        if need_nodes and (self.m.get("nodes_virtual") or (self.m.get("nodes") or 1) < 2):
            self.add(cid, source, text, fid, self.context_ratio(stats, num, den), NM,
                     "needs at least 2 real NUMA nodes (node-aware counters); this machine "
                     "has %s" % self.m.get("nodes_text", "1 node"))
            return
        pts = {}
        for s in num + den:
            p, why = self.point(stats, s, t)
            if p is None:
                self.add(cid, source, text, fid, self.context_ratio(stats, num, den), NM, why)
                return
            pts[s] = p["median"]
        if den_max:
            dname = max(den, key=lambda s: pts[s])
            dv = pts[dname]
            ratios = [(s, pts[s] / dv if dv > 0 else float("inf")) for s in num]
            dtext = "the best of %s (%s, %s)" % ("/".join(den), dname, f_rate(dv))
        else:
            dv = pts[den[0]]
            ratios = [(s, pts[s] / dv if dv > 0 else float("inf")) for s in num]
            dtext = "%s (%s)" % (den[0], f_rate(dv))
        ok = all(r > bound for _, r in ratios)
        meas = "median throughput at %d threads over %s: %s" % (
            t, dtext, ", ".join("%s %s" % (s, f_ratio(r)) for s, r in ratios))
        self.add(cid, source, text, fid, meas, HOLDS if ok else FAILS,
                 "every ratio above %gx" % bound if ok else "some ratio at or below %gx" % bound)

    def context_ratio(self, stats, num, den):
        xs = self.xs(stats, num + den)
        if not xs:
            return ""
        t = xs[-1]
        dv = stats.get(den[0], {}).get(t)
        if not dv or not dv["median"]:
            return ""
        parts = ["%s %s" % (s, f_ratio(stats[s][t]["median"] / dv["median"]))
                 for s in num if s in stats and t in stats[s]]
        return "at %d threads (the most here), over %s: %s" % (t, den[0], ", ".join(parts))

    def dice(self):
        self.serial_error(
            "dice-serial-loses-90pct", "Dice §1",
            "A Serial (unsynchronized load/store) counter shared by 32 or more threads "
            "consistently loses over 90% of its increments",
            "dice-fig6-high", 32, 90.0, "min")
        self.serial_error(
            "dice-serial-99pct-256", "Dice §5.1",
            "At 0% external work and 256 threads Serial's relative error exceeds 99%",
            "dice-fig6-high", 256, 99.0, "median")
        self.serial_error(
            "dice-serial-75pct-64", "Dice §5.1",
            "With 99% external work Serial's relative error exceeds 75% at 64 threads and more",
            "dice-fig6-low", 64, 75.0, "median")
        self.serial_error(
            "dice-serial-10pct-8", "Dice §5.1",
            "With 99% external work Serial's relative error exceeds 10% at 8 threads and more",
            "dice-fig6-low", 8, 10.0, "median")
        self.fig3_similar()
        self.ratio_at(
            "dice-rbonuma-20x-rbo", "Dice §5.1",
            "At 256 threads (99% work) RBONuma and RBONumaAdapt give about 20x the "
            "throughput of RBO (verdict: holds at >= 10x)",
            "dice-fig4-low", 256, ["RBONuma", "RBONumaAdapt"], ["RBO"], 10.0, need_nodes=True)
        self.ratio_at(
            "dice-scalable-3x-serial", "Dice §5.1",
            "At 256 threads (99% work) Multiline, MultilineAdapt, Morris, MorrisAdapt, "
            "BFP-DUP and BFP-CSUP each give at least 3x Serial's throughput",
            "dice-fig4-low", 256, DICE_SCALABLE, ["Serial"], 3.0)
        self.ratio_at(
            "dice-scalable-13x-precise", "Dice §5.1",
            "At 256 threads (99% work) those six give more than 13x the throughput of any "
            "other precise counter (CAS, RBO, RBONuma, RBONumaAdapt)",
            "dice-fig4-low", 256, DICE_SCALABLE, DICE_UNSCALABLE_PRECISE, 13.0, den_max=True)
        self.ratio_at(
            "dice-scalable-260x-rbo", "Dice §5.1",
            "At 256 threads (99% work) those six give more than 260x RBO's throughput",
            "dice-fig4-low", 256, DICE_SCALABLE, ["RBO"], 260.0)
        self.serial_single_thread()
        self.calibration()
        self.ratio_at(
            "dice-prob-33x-serial-high", "Dice §5.2",
            "At 256 threads and 0% external work Morris, MorrisAdapt, BFP-DUP and BFP-CSUP "
            "give over 33x Serial's throughput",
            "dice-fig4-high", 256, DICE_PROB, ["Serial"], 33.0)
        self.multiline_peak()
        self.ratio_at(
            "dice-fig5-multiline-2x", "Dice §5.3",
            "In the 7500-counter array at 32 threads, Multiline gives more than 2x "
            "MultilineAdapt's throughput",
            "dice-fig5", 32, ["Multiline"], ["MultilineAdapt"], 2.0)
        self.pairwise_faster(
            "dice-fig5-adaptive-wins", "Dice §5.3",
            "In the 7500-counter array the adaptive probabilistic counters beat their "
            "non-adaptive versions: MorrisAdapt > Morris, BFP-CSUP > BFP-DUP",
            "dice-fig5", [("MorrisAdapt", "Morris"), ("BFP-CSUP", "BFP-DUP")])
        self.pairwise_faster(
            "dice-fig5-bfp-beats-morris", "Dice §5.3",
            "In the 7500-counter array the BFP counters beat the Morris ones: "
            "BFP-DUP > Morris, BFP-CSUP > MorrisAdapt",
            "dice-fig5", [("BFP-DUP", "Morris"), ("BFP-CSUP", "MorrisAdapt")])
        self.prob_errors()
        self.rstdv("dice-morris-rstdv", "Dice §3.1",
                   "Morris's relative standard deviation stays below 1/sqrt(2a) "
                   "(1% with a = 5000)", "Morris", morris_rstdv)
        self.rstdv("dice-bfpdup-rstdv", "Dice §4.2",
                   "BFP-DUP's relative standard deviation stays below sqrt(3/(8M-3)) "
                   "(1% with M = 3750)", "BFP-DUP", bfp_dup_rstdv)

    def fig3_similar(self):
        cid, src, fid = "dice-fig3-similar-to-8", "Dice §5.1", "dice-fig3"
        text = ("With 99.02% external work all counters perform similarly up to 8 threads "
                "(verdict: fastest median within 2x of the slowest at every count <= 8)")
        stats = self.st(fid)
        if not stats:
            self.add(cid, src, text, fid, "", NM, self.missing(fid))
            return
        parts, ok = [], True
        for t in sorted(set(x for pts in stats.values() for x in pts)):
            if t > 8:
                continue
            meds = [(s, pts[t]["median"]) for s, pts in stats.items()
                    if t in pts and not pts[t]["oversub"]]
            if len(meds) < 2:
                continue
            lo = min(meds, key=lambda a: a[1])
            hi = max(meds, key=lambda a: a[1])
            r = hi[1] / lo[1] if lo[1] > 0 else float("inf")
            ok = ok and r <= 2.0
            parts.append("%d thr: %s/%s = %s" % (t, hi[0], lo[0], f_ratio(r)))
        if not parts:
            self.add(cid, src, text, fid, "", NM, "no thread count <= 8 with two variants")
            return
        reach = max(int(p.split(" ")[0]) for p in parts)
        note = "" if reach >= 8 else " (checked up to %d threads only)" % reach
        self.add(cid, src, text, fid, "fastest/slowest median: " + "; ".join(parts),
                 HOLDS if ok else FAILS,
                 ("within 2x" if ok else "beyond 2x at some count") + note)

    def one_thread_work_ratio(self, cid, src, text, variant):
        """variant's 1-thread median at 0% work over 99% work, or None (claim added as NM)."""
        lo, hi = self.st("dice-fig4-low"), self.st("dice-fig4-high")
        fid = "dice-fig4-low, dice-fig4-high"
        if not lo or not hi:
            self.add(cid, src, text, fid, "", NM,
                     self.missing("dice-fig4-low" if not lo else "dice-fig4-high"))
            return None
        a, why = self.point(hi, variant, 1)
        b, why2 = self.point(lo, variant, 1)
        if a is None or b is None:
            self.add(cid, src, text, fid, "", NM, why or why2)
            return None
        r = a["median"] / b["median"]
        measured = "%s at 1 thread: %s (0%% work) / %s (99%% work) = %s" % (
            variant, f_rate(a["median"]), f_rate(b["median"]), f_ratio(r))
        return fid, r, measured

    def serial_single_thread(self):
        cid, src = "dice-serial-100x-at-0pct", "Dice §5.2"
        text = ("With no external work Serial's single-thread throughput is two orders of "
                "magnitude above its 99%-work throughput (verdict: ratio rounds to 10^2)")
        got = self.one_thread_work_ratio(cid, src, text, "Serial")
        if got:
            fid, r, measured = got
            ok = round(math.log10(r)) == 2
            self.add(cid, src, text, fid, measured, HOLDS if ok else FAILS,
                     "log10 of the ratio is %.2f" % math.log10(r))

    def calibration(self):
        cid, src = "dice-work-99pct-is-1pct", "Dice §5"
        text = ("99% external work means a single-thread CAS run reaches 1/100 of its "
                "no-work throughput (the workload's definition; verdict: ratio in 50-200)")
        got = self.one_thread_work_ratio(cid, src, text, "CAS")
        if got:
            fid, r, measured = got
            ok = 50 <= r <= 200
            self.add(cid, src, text, fid, measured, HOLDS if ok else FAILS,
                     "the calibration works" if ok else "the calibration is off")

    def multiline_peak(self):
        cid, src, fid = "dice-multiline-peak-32", "Dice §5.2", "dice-fig4-high"
        text = ("At 0% external work Multiline and MultilineAdapt peak around 32 threads and "
                "scale negatively beyond (verdict: best median at 16-64 threads and the "
                "largest count below it)")
        stats = self.st(fid)
        if not stats:
            self.add(cid, src, text, fid, "", NM, self.missing(fid))
            return
        series = ["Multiline", "MultilineAdapt"]
        xs = self.xs(stats, series)
        if not xs or xs[-1] < 64:
            self.add(cid, src, text, fid,
                     self.context_at_max(stats, series, f_rate), NM,
                     "needs thread counts beyond 32 (at least 64); %s"
                     % self.largest_threads_text(stats))
            return
        parts, ok = [], True
        for s in series:
            if s not in stats:
                self.add(cid, src, text, fid, "", NM, "%s was not measured" % s)
                return
            pts = {x: p["median"] for x, p in stats[s].items() if not p["oversub"]}
            peak = max(pts, key=lambda x: pts[x])
            last = max(pts)
            good = 16 <= peak <= 64 and pts[last] < pts[peak]
            ok = ok and good
            parts.append("%s peaks at %d threads (%s), %s at %d"
                         % (s, peak, f_rate(pts[peak]), f_rate(pts[last]), last))
        self.add(cid, src, text, fid, "; ".join(parts), HOLDS if ok else FAILS,
                 "as described" if ok else "peak elsewhere, or no decline after it")

    def pairwise_faster(self, cid, src, text, fid, pairs):
        stats = self.st(fid)
        if not stats:
            self.add(cid, src, text, fid, "", NM, self.missing(fid))
            return
        parts, ok = [], True
        for a, b in pairs:
            if a not in stats or b not in stats:
                self.add(cid, src, text, fid, "", NM, "%s or %s was not measured" % (a, b))
                return
            ts = sorted(set(stats[a]) & set(stats[b]))
            rs = [(t, stats[a][t]["median"] / stats[b][t]["median"]) for t in ts
                  if stats[b][t]["median"] > 0]
            ok = ok and all(r > 1.0 for _, r in rs)
            parts.append("%s/%s: %s" % (a, b, ", ".join("%s at %d thr" % (f_ratio(r), t)
                                                          for t, r in rs)))
        tmax = max(x for pts in stats.values() for x in pts)
        self.add(cid, src, text, fid, "median throughput ratios " + "; ".join(parts),
                 HOLDS if ok else FAILS,
                 ("faster at every thread count measured (1-%d)" % tmax) if ok else
                 "not faster at some thread count")

    def prob_errors(self):
        fids = ["dice-fig6-low", "dice-fig6-high"]
        have = [(f, self.st(f)) for f in fids if self.st(f)]
        srcs = "Dice §5.4"
        t3 = ("No probabilistic counter's relative error exceeds 3% (Morris, MorrisAdapt, "
              "BFP-DUP, BFP-CSUP; every run of Fig. 6)")
        t15 = ("In most cases the worst relative error of a point is within 1.5% "
               "(verdict: more than half of the points)")
        t025 = "BFP-CSUP's relative error never exceeds 0.25%"
        tcont = ("Morris, MorrisAdapt and BFP-DUP show higher error at 0% than at 99% work, "
                 "as they count higher (verdict: mean of the worst errors over thread "
                 "counts is higher for at least 2 of the 3)")
        fig = "dice-fig6-low, dice-fig6-high"
        if not have:
            why = self.missing("dice-fig6-low")
            for cid, t in (("dice-prob-error-under-3pct", t3), ("dice-prob-error-mostly-1.5pct", t15),
                           ("dice-bfpcsup-under-0.25pct", t025),
                           ("dice-error-higher-under-contention", tcont)):
                self.add(cid, srcs, t, fig, "", NM, why)
            return
        rows = []
        for f, _ in have:
            spec = [s for s in FIGURE_SPECS if s["id"] == f][0]
            rows += [r for r in self.rs.csv(spec["source"])
                     if r.get("mode") == "timed" and r["counter"] in DICE_PROB
                     and r.get("rel_error") is not None]
        runs = len(rows)
        if not runs:
            for cid, t in (("dice-prob-error-under-3pct", t3), ("dice-prob-error-mostly-1.5pct", t15),
                           ("dice-bfpcsup-under-0.25pct", t025),
                           ("dice-error-higher-under-contention", tcont)):
                self.add(cid, srcs, t, fig, "", NM, "no probabilistic runs")
            return
        worst = max(rows, key=lambda r: r["rel_error"])
        maxcount = max(r["ops"] for r in rows)
        countnote = ("largest true count of these runs: %s increments (the paper's 8 s runs "
                     "counted higher; error grows with the count)" % f_n(maxcount))
        ok = worst["rel_error"] <= 0.03
        self.add("dice-prob-error-under-3pct", srcs, t3, fig,
                 "worst of %d runs: %s (%s, %d thr, %g%% work); %s"
                 % (runs, f_pct(100 * worst["rel_error"]), worst["counter"],
                    worst["threads"], worst["work_pct"], countnote),
                 HOLDS if ok else FAILS, "max <= 3%" if ok else "a run above 3%")
        pts = [p["max"] for _, st in have for s in DICE_PROB if s in st
               for p in st[s].values()]
        share = sum(1 for v in pts if v <= 1.5) / float(len(pts)) if pts else 0
        self.add("dice-prob-error-mostly-1.5pct", srcs, t15, fig,
                 "%d of %d points (%.0f%%) have a worst error <= 1.5%%"
                 % (sum(1 for v in pts if v <= 1.5), len(pts), 100 * share),
                 HOLDS if share > 0.5 else FAILS,
                 "more than half" if share > 0.5 else "half or fewer")
        cs = [r for r in rows if r["counter"] == "BFP-CSUP"]
        if cs:
            w = max(cs, key=lambda r: r["rel_error"])
            ok = w["rel_error"] <= 0.0025
            self.add("dice-bfpcsup-under-0.25pct", srcs, t025, fig,
                     "worst of %d BFP-CSUP runs: %s (%d thr, %g%% work)"
                     % (len(cs), f_pct(100 * w["rel_error"]), w["threads"], w["work_pct"]),
                     HOLDS if ok else FAILS, "max <= 0.25%" if ok else "a run above 0.25%")
        else:
            self.add("dice-bfpcsup-under-0.25pct", srcs, t025, fig, "", NM,
                     "BFP-CSUP was not measured")
        lo, hi = self.st("dice-fig6-low"), self.st("dice-fig6-high")
        if not lo or not hi:
            self.add("dice-error-higher-under-contention", srcs, tcont, fig, "", NM,
                     "needs both dice-fig4-low.csv and dice-fig4-high.csv")
            return
        parts, wins, used = [], 0, 0
        for s in ["Morris", "MorrisAdapt", "BFP-DUP"]:
            if s not in lo or s not in hi:
                continue
            ml = sum(p["max"] for p in lo[s].values()) / len(lo[s])
            mh = sum(p["max"] for p in hi[s].values()) / len(hi[s])
            used += 1
            wins += mh > ml
            parts.append("%s %s (0%%) vs %s (99%%)" % (s, f_pct(mh), f_pct(ml)))
        if used < 3:
            self.add("dice-error-higher-under-contention", srcs, tcont, fig, "; ".join(parts),
                     NM, "needs Morris, MorrisAdapt and BFP-DUP in both files")
            return
        self.add("dice-error-higher-under-contention", srcs, tcont, fig,
                 "mean worst error: " + "; ".join(parts), HOLDS if wins >= 2 else FAILS,
                 "%d of 3 higher at 0%% work" % wins)

    def rstdv(self, cid, src, text, variant, bound_of):
        fig = "dice-fig6-low, dice-fig6-high"
        rows = []
        for name in ("dice-fig4-low.csv", "dice-fig4-high.csv"):
            rows += [r for r in (self.rs.csv(name) or [])
                     if r.get("mode") == "timed" and r["counter"] == variant
                     and r.get("rel_error") is not None]
        k = len(rows)
        if k < 10:
            self.add(cid, src, text, fig, "%d %s runs" % (k, variant), NM,
                     "needs at least 10 runs of %s in dice-fig4-low/high.csv" % variant)
            return
        rms = math.sqrt(sum(r["rel_error"] ** 2 for r in rows) / k)
        bound = max(bound_of(r["params_map"]) for r in rows)
        tol = 1.0 + 2.0 / math.sqrt(2.0 * k)  # two standard errors of an RMS estimate of k values
        ok = rms <= bound * tol
        self.add(cid, src, text, fig,
                 "RMS relative error over %d runs (all thread counts, both work levels): %s; "
                 "bound %s (verdict allows x%.2f for sampling error)"
                 % (k, f_pct(100 * rms), f_pct(100 * bound), tol),
                 HOLDS if ok else FAILS, "RMS within the bound" if ok else "RMS above the bound")

    # Ayers ---------------------------------------------------------------------
    def ayers_rows(self, name):
        return [r for r in (self.rs.csv(name) or []) if r.get("mode") == "count" and r.get("ops")]

    def ayers_threads(self, rows):
        return max(int(r["threads"]) for r in rows) if rows else 0

    def ayers(self):
        src = "Ayers, Accuracy"
        acc = self.st("ayers-accuracy")
        rows = self.ayers_rows("ayers.csv")
        fid = "ayers-accuracy"
        why = self.missing(fid)
        thr = self.ayers_threads(rows)

        def need(cid, text, series, figure=fid):
            if not acc or series not in acc:
                self.add(cid, src, text, figure, "", NM,
                         why if not acc else "%s was not measured" % series)
                return None
            return acc[series]

        # interlocked exact
        text = "Interlocked (FetchAdd) counts exactly: value/N = 1 at every N"
        pts = need("ayers-interlocked-exact", text, "FetchAdd")
        if pts:
            fa = [r for r in rows if r["counter"] == "FetchAdd"]
            bad = [r for r in fa if r["value"] != r["ops"]]
            self.add("ayers-interlocked-exact", src, text, fid,
                     "%d runs, N = %s..%s, %d threads: %d inexact"
                     % (len(fa), f_n(min(pts)), f_n(max(pts)), thr, len(bad)),
                     HOLDS if not bad else FAILS, "every run exact" if not bad else
                     "some run inexact")
        # racing
        text = "Racing (Serial) already loses counts at N = 12 (12 threads, one increment each)"
        pts = need("ayers-racing-loses-at-12", text, "Serial")
        if pts:
            n0 = min(pts)
            meas = "mean value/N at N = %s: %.4f (%d threads)" % (f_n(n0), pts[n0]["mean"], thr)
            if thr < 12:
                self.add("ayers-racing-loses-at-12", src, text, fid, meas, NM,
                         "Ayers counted with 12 threads; this set used %d (machine: %s PUs)"
                         % (thr, self.m.get("pus", "?")))
            else:
                ok = pts[n0]["mean"] < 1.0
                self.add("ayers-racing-loses-at-12", src, text, fid, meas,
                         HOLDS if ok else FAILS, "counts lost" if ok else "no count lost")
        text = "Racing loses a larger share the higher it counts (value/N falls as N grows)"
        pts = need("ayers-racing-worse-with-n", text, "Serial")
        if pts:
            ns = sorted(pts)
            means = [pts[n]["mean"] for n in ns]
            rho = spearman(ns, means)
            meas = "mean value/N: %.3f at N = %s, %.3f at N = %s; Spearman rho(N, mean) = %s" % (
                means[0], f_n(ns[0]), means[-1], f_n(ns[-1]),
                "n/a" if rho is None else "%.2f" % rho)
            if thr < 2:
                self.add("ayers-racing-worse-with-n", src, text, fid, meas, NM,
                         "needs at least 2 threads")
            else:
                ok = means[-1] < means[0] and rho is not None and rho < 0
                self.add("ayers-racing-worse-with-n", src, text, fid, meas,
                         HOLDS if ok else FAILS,
                         "falls (last < first, rho < 0)" if ok else "does not fall")
        text = "At the highest N racing keeps at best about 20% of the count (verdict: max value/N <= 0.25)"
        pts = need("ayers-racing-20pct", text, "Serial")
        if pts:
            nmax = max(pts)
            meas = "at N = %s: value/N mean %.3f, max %.3f (%d threads)" % (
                f_n(nmax), pts[nmax]["mean"], pts[nmax]["max"], thr)
            if thr < 12:
                self.add("ayers-racing-20pct", src, text, fid, meas, NM,
                         "Ayers counted with 12 threads; this set used %d (machine: %s PUs); "
                         "the share kept depends on the thread count" % (thr, self.m.get("pus", "?")))
            else:
                ok = pts[nmax]["max"] <= 0.25
                self.add("ayers-racing-20pct", src, text, fid, meas, HOLDS if ok else FAILS,
                         "max <= 0.25" if ok else "keeps more than 25%")
        self.scalable_claims(acc, rows, thr)
        self.tunable_claims()
        self.scaling_claims(thr)

    def scalable_claims(self, acc, rows, thr):
        src, fid = "Ayers, The Scalable Counter", "ayers-accuracy-detail"
        sc = [r for r in rows if r["counter"] == "Scalable"]
        text = ("Scalable counts exactly up to its switch-over 2^T (8192 at T = 13; here also "
                "T = 10..15 of ayers-tunable.csv)")
        trows = [r for r in self.ayers_rows("ayers-tunable.csv") if r["counter"] == "Scalable"]
        allr = sc + trows
        below = [r for r in allr if r["ops"] <= 2 ** threshold_of(r)]
        if not allr:
            self.add("ayers-scalable-exact-below-2T", src, text, fid, "", NM,
                     "ayers.csv and ayers-tunable.csv have no Scalable runs")
        elif not below:
            self.add("ayers-scalable-exact-below-2T", src, text, fid, "", NM,
                     "no run with N <= 2^T")
        else:
            bad = [r for r in below if r["value"] != r["ops"]]
            self.add("ayers-scalable-exact-below-2T", src, text, fid,
                     "%d runs with N <= 2^T (%d thresholds): %d inexact"
                     % (len(below), len(set(threshold_of(r) for r in below)), len(bad)),
                     HOLDS if not bad else FAILS,
                     "all exact" if not bad else "some run inexact below 2^T")

        pts = (acc or {}).get("Scalable")
        src2 = "Ayers, Accuracy"
        t = threshold_of(sc[0]) if sc else 13
        above = {n: p for n, p in (pts or {}).items() if n > 2 ** t}
        text = ("At T = 13 Scalable's 5th-95th percentile spread of value/N stays within "
                "about 2% (verdict: p5 >= 0.98 and p95 <= 1.02 at every N > 2^T)")
        cid = "ayers-scalable-5-95-within-2pct"
        if not above:
            self.add(cid, src2, text, fid, "", NM,
                     "no Scalable point above 2^T" if pts else self.missing("ayers-accuracy"))
        else:
            nmin = min(p["n"] for p in above.values())
            lo = min(above.values(), key=lambda p: p["p5"])
            hi = max(above.values(), key=lambda p: p["p95"])
            meas = "over %d N values > 2^%d: lowest p5 %.4f, highest p95 %.4f (%d+ runs per N)" % (
                len(above), t, lo["p5"], hi["p95"], nmin)
            if nmin < 20:
                self.add(cid, src2, text, fid, meas, NM,
                         "needs at least 20 runs per N for 5th/95th percentiles; this set has %d"
                         % nmin)
            else:
                ok = lo["p5"] >= 0.98 and hi["p95"] <= 1.02
                self.add(cid, src2, text, fid, meas, HOLDS if ok else FAILS,
                         "within +-2%" if ok else "beyond +-2%")
        text = "At T = 13 Scalable's worst-case deviation is about 3% (verdict: every run within 3%)"
        cid = "ayers-scalable-worst-3pct"
        if not above:
            self.add(cid, src2, text, fid, "", NM,
                     "no Scalable point above 2^T" if pts else self.missing("ayers-accuracy"))
        else:
            worst = max(max(abs(p["min"] - 1), abs(p["max"] - 1)) for p in above.values())
            runs = sum(p["n"] for p in above.values())
            ok = worst <= 0.03
            self.add(cid, src2, text, fid, "worst |value/N - 1| over %d runs: %s"
                     % (runs, f_pct(100 * worst)), HOLDS if ok else FAILS,
                     "<= 3%" if ok else "a run beyond 3%")
        text = ("On average Scalable is very accurate (verdict: at every N the mean value/N "
                "is within 4 standard errors sigma/sqrt(n) of 1, sigma from the binomial model)")
        cid = "ayers-scalable-unbiased"
        if not above:
            self.add(cid, src2, text, fid, "", NM,
                     "no Scalable point above 2^T" if pts else self.missing("ayers-accuracy"))
        else:
            worst, wn, ok = 0.0, None, True
            for n, p in sorted(above.items()):
                se = scalable_sigma(n, t) / n / math.sqrt(p["n"])
                z = abs(p["mean"] - 1) / se if se > 0 else 0
                ok = ok and z <= 4
                if z >= worst:
                    worst, wn = z, n
            p = above[wn]
            self.add(cid, src2, text, fid,
                     "largest deviation: mean %.5f at N = %s (%.1f standard errors, n = %d)"
                     % (p["mean"], f_n(wn), worst, p["n"]), HOLDS if ok else FAILS,
                     "unbiased within sampling error" if ok else "a mean beyond 4 standard errors")
        src2 = "Ayers, Notes"
        text = ("Ayers's binomial model predicts Scalable's spread (verdict: measured "
                "(p95 - p5)/2 within a factor 2 of 1.645 sigma/N at every N > 2^(T+1))")
        cid = "ayers-binomial-model"
        far = {n: p for n, p in above.items() if n > 2 ** (t + 1)}
        if not far:
            self.add(cid, src2, text, fid, "", NM, "no Scalable point above 2^(T+1)"
                     if pts else self.missing("ayers-accuracy"))
        else:
            nmin = min(p["n"] for p in far.values())
            ratios = []
            for n, p in sorted(far.items()):
                pred = Z_5_95 * scalable_sigma(n, t) / n
                ratios.append((n, (p["p95"] - p["p5"]) / 2 / pred, pred))
            nl = ratios[-1]
            meas = ("measured/predicted half-spread %.2f..%.2f over %d N; at N = %s "
                    "predicted +-%s" % (min(r for _, r, _ in ratios), max(r for _, r, _ in ratios),
                                        len(ratios), f_n(nl[0]), f_pct(100 * nl[2])))
            if nmin < 20:
                self.add(cid, src2, text, fid, meas, NM,
                         "needs at least 20 runs per N for 5th/95th percentiles; this set has %d"
                         % nmin)
            else:
                ok = all(0.5 <= r <= 2.0 for _, r, _ in ratios)
                self.add(cid, src2, text, fid, meas, HOLDS if ok else FAILS,
                         "within a factor 2" if ok else "off by more than a factor 2")

    def tunable_claims(self):
        src = "Ayers, Accuracy"
        acc = self.st("ayers-accuracy-tunable")
        sca = self.st("ayers-scaling-detail")
        text = ("The higher the switch-over 2^T, the more accurate Scalable is (verdict: at "
                "N > 2^15 the 5th-95th spread falls with T, Spearman rho <= -0.8)")
        cid, fid = "ayers-higher-T-more-accurate", "ayers-accuracy-tunable"
        if not acc:
            self.add(cid, src, text, fid, "", NM, self.missing(fid))
        else:
            ts = sorted(acc, key=lambda s: int(s[1:]))
            common = set.intersection(*[set(acc[s]) for s in ts]) if ts else set()
            nbig = [n for n in common if n > 2 ** 15]
            if len(ts) < 3 or not nbig:
                self.add(cid, src, text, fid, "", NM,
                         "needs at least 3 thresholds and an N above 2^15 = 32768 for all "
                         "(largest N here: %s)" % (f_n(max(common)) if common else "none"))
            else:
                spreads = []
                for s in ts:
                    vals = sorted(acc[s][n]["p95"] - acc[s][n]["p5"] for n in nbig)
                    spreads.append(percentile(vals, 0.5))
                rho = spearman([int(s[1:]) for s in ts], spreads)
                nmin = min(acc[s][n]["n"] for s in ts for n in nbig)
                meas = "median p95-p5 spread over %d N > 2^15: %s; rho = %s" % (
                    len(nbig), ", ".join("%s %s" % (s, f_pct(100 * v)) for s, v in zip(ts, spreads)),
                    "n/a" if rho is None else "%.2f" % rho)
                if nmin < 20:
                    self.add(cid, src, text, fid, meas, NM,
                             "needs at least 20 runs per N for 5th/95th percentiles; this set "
                             "has %d" % nmin)
                else:
                    ok = rho is not None and rho <= -0.8
                    self.add(cid, src, text, fid, meas, HOLDS if ok else FAILS,
                             "spread falls with T" if ok else "no clear fall with T")
        text = ("The higher the switch-over 2^T, the more costly Scalable is (verdict: at the "
                "largest N the median time rises with T, Spearman rho >= 0.8)")
        cid, fid = "ayers-higher-T-more-costly", "ayers-scaling-detail"
        src = "Ayers, Notes"
        if not sca:
            self.add(cid, src, text, fid, "", NM, self.missing(fid))
            return
        ts = sorted(sca, key=lambda s: int(s[1:]))
        common = set.intersection(*[set(sca[s]) for s in ts]) if ts else set()
        if len(ts) < 3 or not common:
            self.add(cid, src, text, fid, "", NM, "needs at least 3 thresholds at a common N")
            return
        n = max(common)
        short = [s for s in ts if sca[s][n]["n"] < 0.5 * sca[s][n]["total"]]
        if short:
            self.add(cid, src, text, fid, "at N = %s: %s" % (f_n(n), ", ".join(
                "%s %d of %d runs timed" % (s, sca[s][n]["n"], sca[s][n]["total"]) for s in ts)),
                NM, UNTIMED)
            return
        meds = [sca[s][n]["median"] for s in ts]
        rho = spearman([int(s[1:]) for s in ts], meds)
        meas = "median time at N = %s: %s; rho = %s" % (
            f_n(n), ", ".join("%s %.3g ms" % (s, 1e3 * v) for s, v in zip(ts, meds)),
            "n/a" if rho is None else "%.2f" % rho)
        thr = self.ayers_threads(self.ayers_rows("ayers-tunable.csv"))
        if thr < 2:
            self.add(cid, src, text, fid, meas, NM, "needs at least 2 threads (contention)")
            return
        if n <= 2 ** 15:
            self.add(cid, src, text, fid, meas, NM,
                     "needs N above 2^15 = 32768 so that every T counts probabilistically")
            return
        ok = rho is not None and rho >= 0.8
        self.add(cid, src, text, fid, meas, HOLDS if ok else FAILS,
                 "time rises with T" if ok else "no clear rise with T")

    def scaling_claims(self, thr):
        src, fid = "Ayers, Scalability", "ayers-scaling"
        sca = self.st(fid)
        t1 = ("Interlocked becomes quite a bit more costly than Scalable at high counts "
              "(verdict: median time at the largest N >= 1.5x Scalable's)")
        t2 = ("Scalable and racing have similar costs (verdict: Scalable's median time at the "
              "largest N within 1.5x of racing's)")
        for cid, text, a, b in (("ayers-interlocked-costlier", t1, "FetchAdd", "Scalable"),
                                ("ayers-scalable-like-racing", t2, "Scalable", "Serial")):
            if not sca or a not in sca or b not in sca:
                self.add(cid, src, text, fid, "", NM, self.missing(fid) if not sca else
                         "%s or %s was not measured" % (a, b))
                continue
            common = set(sca[a]) & set(sca[b])
            if not common:
                self.add(cid, src, text, fid, "", NM, "no common N")
                continue
            n = max(common)
            short = [s for s in (a, b) if sca[s][n]["n"] < 0.5 * sca[s][n]["total"]]
            if short:
                self.add(cid, src, text, fid, "at N = %s: %s" % (f_n(n), ", ".join(
                    "%s %d of %d runs timed" % (s, sca[s][n]["n"], sca[s][n]["total"])
                    for s in (a, b))), NM, UNTIMED)
                continue
            r = sca[a][n]["median"] / sca[b][n]["median"]
            meas = "at N = %s (%d threads): %s %.3g ms, %s %.3g ms, ratio %s" % (
                f_n(n), thr, a, 1e3 * sca[a][n]["median"], b, 1e3 * sca[b][n]["median"],
                f_ratio(r))
            if thr < 2:
                self.add(cid, src, text, fid, meas, NM, "needs at least 2 threads (contention)")
                continue
            ok = r >= 1.5 if cid == "ayers-interlocked-costlier" else (1 / 1.5 <= r <= 1.5)
            self.add(cid, src, text, fid, meas, HOLDS if ok else FAILS,
                     "ratio %s" % f_ratio(r))


# --- the result set summary ----------------------------------------------------------

SOURCES = ["dice-fig3.csv", "dice-fig4-low.csv", "dice-fig4-high.csv", "dice-fig5.csv",
           "ayers.csv", "ayers-tunable.csv", "baselines.csv", "latency.csv", "read-cost.csv"]


def option_of(cmd, name):
    for a in cmd or []:
        if a.startswith("--%s=" % name):
            return a.split("=", 1)[1]
    return None


def machine_summary(rs):
    metas = [(n, rs.meta(n)) for n in SOURCES]
    metas = [(n, m) for n, m in metas if m]
    present = [n for n in SOURCES if rs.csv(n) is not None]
    out = {"files_present": present,
           "files_missing": [n for n in SOURCES if n not in present],
           "meta_missing": [n for n in present if not rs.meta(n)]}
    if not metas:
        return out
    m = metas[0][1]
    topo = m.get("topology") or {}
    out.update({
        "host": m.get("host"), "kernel": m.get("kernel"),
        "dates": sorted(set(mm.get("date") for _, mm in metas if mm.get("date"))),
        "scbench_version": m.get("scbench_version"),
        "source_revision": m.get("source_revision"),
        "compiler": m.get("compiler"), "cflags": m.get("cflags"),
        "topology": topo.get("description"), "pus": topo.get("pus"),
        "cores": topo.get("cores"), "nodes": topo.get("nodes"),
        "cache_line": topo.get("cache_line"),
        "nodes_virtual": bool(m.get("nodes_virtual")),
        "binding": m.get("binding"), "pmu_status": m.get("pmu_status"),
        "clock": m.get("clock"),
    })
    nodes = out.get("nodes") or 1
    out["nodes_text"] = "%d %sNUMA node%s" % (nodes, "virtual " if out["nodes_virtual"] else "",
                                                "s" if nodes != 1 else "")
    # The protocol, from the command lines.
    timed = [(n, mm) for n, mm in metas if not option_of(mm.get("command_line"), "ops")]
    if timed:
        cmd = timed[0][1].get("command_line")
        out["protocol_timed"] = {"warmup_s": option_of(cmd, "warmup") or "2 (default)",
                                 "duration_s": option_of(cmd, "duration") or "8 (default)",
                                 "runs": option_of(cmd, "runs") or "5 (default)"}
    counted = [(n, mm) for n, mm in metas if option_of(mm.get("command_line"), "ops")]
    if counted:
        out["protocol_count"] = {"runs": option_of(counted[0][1].get("command_line"), "runs")
                                 or "5 (default)"}
    conf = os.path.join(rs.path, "run-all.conf")
    if os.path.isfile(conf):
        with open(conf) as f:
            for line in f:
                if line.startswith("mode="):
                    out["run_all_mode"] = line.split("=", 1)[1].strip().strip('"')
    revs = sorted(set(mm.get("source_revision") for _, mm in metas))
    if len(revs) > 1:
        out["source_revisions"] = revs
    hosts = sorted(set(mm.get("host") for _, mm in metas))
    if len(hosts) > 1:
        out["hosts"] = hosts
    return out


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: aggregate.py DIR\n  writes DIR/figdata/*.dat, figures.tsv and claims.json "
              "from the scbench CSVs in DIR", file=sys.stderr)
        return 0 if len(argv) == 2 else 2
    d = argv[1]
    if not os.path.isdir(d):
        print("aggregate.py: %s: not a directory" % d, file=sys.stderr)
        return 2
    rs = ResultSet(d)
    outdir = os.path.join(d, "figdata")
    os.makedirs(outdir, exist_ok=True)
    for old in os.listdir(outdir):
        if old.endswith(".dat"):
            os.remove(os.path.join(outdir, old))
    machine = machine_summary(rs)
    figs = Figures(rs, machine)
    figs.build(outdir)
    claims = Claims(rs, figs, machine)
    claims.dice()
    claims.ayers()
    with open(os.path.join(outdir, "figures.tsv.tmp"), "w") as f:
        f.write("# figure id\tstatus\t.dat files (ok) or reason (skipped); written by "
                "plots/aggregate.py\n")
        for fid, status, what in figs.index:
            f.write("%s\t%s\t%s\n" % (fid, status, what))
    os.replace(os.path.join(outdir, "figures.tsv.tmp"), os.path.join(outdir, "figures.tsv"))
    doc = {"generated_by": "plots/aggregate.py", "result_set": machine,
           "percentile_method": PCT_METHOD,
           "verdicts": {HOLDS: "the measurement here agrees with the claim",
                        FAILS: "it was measured here and disagrees",
                        NM: "this result set cannot test it (the reason says why)"},
           "notes": rs.notes + figs.notes,
           "figures": [{"id": i, "status": s, "detail": w} for i, s, w in figs.index],
           "claims": claims.out}
    tmp = os.path.join(outdir, "claims.json.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, os.path.join(outdir, "claims.json"))
    made = [w for _, s, w in figs.index if s == "ok"]
    skipped = [(i, w) for i, s, w in figs.index if s != "ok"]
    print("aggregate.py: %d figure(s) with data in %s (%d .dat files), %d claims"
          % (len(made), outdir, sum(len(w.split()) for w in made), len(claims.out)))
    for i, w in skipped:
        print("aggregate.py: skipped %s: %s" % (i, w))
    for n in rs.notes + figs.notes:
        print("aggregate.py: note: %s" % n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
