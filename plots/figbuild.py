# SPDX-License-Identifier: MIT
"""How a figure entry of plots/figures.py becomes figure data (plots/figdata.py).

An entry (Figure) says where its rows come from and what to plot of them: the
source CSV and mode, row selections, how rows are named as series, the x
measure, one Panel per y measure (and optionally a split of the rows into
panels), the envelope and the header texts. Texts may name facts of the rows
they describe as {field}: id, source, works, counters, threads, contention,
unvalued (runs of the panel without a y value). Figures.build turns every entry
into DIR/figdata/<id><suffix>.dat and keeps the statistics for the claims.
Standard library only.
"""

import os

import figdata
import marks
from endstates import end_modes, end_state_reading, modes_text
from resultset import SCHEMA, SOURCES, NOT_RECORDED, ResultSet, ResultSetError, threshold_of
from resultset_summary import machine_summary
from stats import (HIST_PCT_METHOD, PCT_METHOD, STATS_TEXT, group_stats,
                   histogram_percentile, percentile, pool_histograms, summarize)


class Panel:
    """One .dat file of a figure: y(row) -> number or None, its axis label and
    the header line 'y' saying what it is; label names the panel (multi-panel).
    pooled: (num, den) makes the median column the percentile num/den of the
    point's runs' latency histograms added together (the source CSV's sidecar,
    resultset.histograms), where every run of the point has one; the other
    columns stay statistics over the runs' own y values."""

    def __init__(self, y, ylabel, about, suffix="", label=None, pooled=None):
        self.y, self.ylabel, self.about, self.suffix, self.label = y, ylabel, about, suffix, label
        self.pooled = pooled


class Figure:
    """One figure id of doc/design.md §6; see the module comment and plots/figures.py."""

    def __init__(self, id, title, reproduces, drawn, source, mode, x, xlabel, panels,
                 select=(), series=None, split=None, selection=None, envelope=None,
                 envelope_text=None, notes=None, note=None, requires=None, switch_over=False,
                 extra=None, drawn_points=None, drawn_pooled=None):
        self.id, self.title, self.reproduces, self.drawn = id, title, reproduces, drawn
        self.source, self.mode, self.x, self.xlabel, self.panels = source, mode, x, xlabel, panels
        self.select, self.split = select, split
        self.series = series or by_variant
        self.selection, self.notes, self.note = selection, notes, note
        self.envelope, self.envelope_text = envelope, envelope_text
        self.requires, self.switch_over = requires, switch_over
        self.extra = extra   # extra(rs, stats) -> [(key, text)]: header lines of the data
        self.drawn_points = drawn_points   # drawn, when there are too few x for lines
        self.drawn_pooled = drawn_pooled or drawn


# --- the vocabulary of entries ----------------------------------------------------

def threads(r):
    return r["threads"]


def count_n(r):
    return r["ops"]


def column(name):
    return lambda r: r.get(name)


def by_variant(rows):
    """Series = variant name, plus its parameters when one file holds several sets."""
    sets = {}
    for r in rows:
        sets.setdefault(r["counter"], set()).add(r.get("params") or "")

    def name(r):
        if len(sets[r["counter"]]) > 1 and r.get("params"):
            return "%s[%s]" % (r["counter"], r["params"])
        return r["counter"]
    return rows, name


def by_threshold(rows):
    """Series = T<threshold> (one variant at several thresholds), in order of T."""
    def name(r):
        return "T%d" % threshold_of(r)
    order = sorted(set(name(r) for r in rows), key=lambda s: int(s[1:]))
    return sorted(rows, key=lambda r: order.index(name(r))), name


def kinds(*names):
    return lambda rows: [r for r in rows if r["kind"] in names]


def only(*variants):
    return lambda rows: [r for r in rows if r["counter"] in variants]


def leave_out(*variants):
    return lambda rows: [r for r in rows if r["counter"] not in variants]


def at_most_threads(rows):
    """The rows at the largest thread count."""
    tmax = max(r["threads"] for r in rows)
    return [r for r in rows if r["threads"] == tmax]


def by_work(rows):
    """One panel per external work level, suffix -w<pct>."""
    return [("-w%g" % w, [r for r in rows if r["work_pct"] == w])
            for w in sorted(set(r["work_pct"] for r in rows))]


MIN_TREND = 4


def measured_text(fig, xs, m, rs):
    """'1-2 threads (2 values), 2 PUs', what a figure measured (or the N range and
    threads of a count-to-N figure): the titles say it after the paper's words."""
    pus = m.get("pus") or "?"
    if fig.mode == "count":
        ts = sorted(set(int(r["threads"]) for r in rs.rows(fig.source, "count")))
        return "N = %s..%s (%d values), %s thread(s), %s PUs" % (
            fmt_n(xs[0]), fmt_n(xs[-1]), len(xs), "/".join(map(str, ts)), pus)
    span = "%d" % xs[0] if len(xs) == 1 else "%d-%d" % (xs[0], xs[-1])
    return "%s thread%s (%d value%s), %s PUs" % (
        span, "" if span == "1" else "s", len(xs), "" if len(xs) == 1 else "s", pus)


def work_text(rows, levels):
    """The set's one calibration of the external work levels that a figure's
    rows ran at ('' when the set has none): the pause count every counter ran
    at and the share single-thread CAS achieved (resultset.calibration)."""
    used = set(float(r["work_pct"]) for r in rows if r.get("work_pct") is not None)
    return "; ".join(
        "%g%% work: %.4g pauses for every counter, single-thread CAS at %.3g of its 0%% "
        "throughput (target %.3g%s)" % (lv["work_pct"], lv["work_iters"], lv["share"],
                                        lv["target"], ", off target" if lv["off_target"] else "")
        for lv in levels or [] if lv["work_pct"] in used)


def ctx_switches_text(rows):
    """Context switches of the workers per run (the ctx_switches column), by thread
    count: median and range, or None when the rows have none."""
    by = {}
    for r in rows:
        if r.get("ctx_switches") is not None:
            by.setdefault(int(r["threads"]), []).append(r["ctx_switches"])
    if not by:
        return None
    return "context switches of the workers per run, by threads: " + "; ".join(
        "%d: median %g, %g-%g over %d run%s" % (t, percentile(sorted(v), 0.5), min(v), max(v),
                                                 len(v), "" if len(v) == 1 else "s")
        for t, v in sorted(by.items()))


def fmt_n(v):
    v = int(v)
    for div, suffix in ((10 ** 9, " G"), (10 ** 6, " M")):
        if v >= div:
            return "%.3g%s" % (v / div, suffix)
    return "{:,}".format(v)


# The baseline variants (doc/design.md §3), in the order a title names them
# (the registry's, as scbench lists them: plots/schema.py).
BASELINES = tuple(SCHEMA["baselines"])


def and_list(names):
    """"A", "A and B", "A, B and C"."""
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def facts(fig, rows):
    """The fields that header texts may name."""
    works = sorted(set(r["work_pct"] for r in rows))
    present = set(r["counter"] for r in rows)
    return {"id": fig.id, "source": fig.source,
            "baselines": and_list([v for v in BASELINES if v in present]),
            "works": "/".join("%g" % w for w in works),
            "contention": "high contention" if works and works[-1] < 50 else "low contention",
            "counters": "/".join("%d" % c for c in sorted(set(r["counters"] for r in rows))),
            "threads": "/".join("%d" % t for t in sorted(set(r["threads"] for r in rows)))}


def header(fig, panel, fx):
    """The '# key: value' lines that describe a panel's data (before the derived ones)."""
    def text(t):
        return t.format(**fx) if t else t
    h = [("figure", fig.id), ("title", text(fig.title))]
    if fig.reproduces:
        h.append(("reproduces", fig.reproduces))
    h.append(("source", fig.source))
    for key, value in (("panel", panel.label), ("selection", fig.selection),
                       ("xlabel", fig.xlabel), ("ylabel", panel.ylabel), ("y", panel.about),
                       ("envelope", fig.envelope_text), ("notes", fig.notes)):
        if value:
            h.append((key, text(value)))
    h.append(("statistics", STATS_TEXT))
    h.append(("percentiles", PCT_METHOD))
    if not fig.envelope_text:
        h.append(("envelope", "env_lo env_hi are NaN: no analytic envelope in this figure"))
    return h


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


def x_text_of(fig):
    if fig.xlabel == "threads" or fig.xlabel == "variant":
        return lambda x: "%d thr" % x
    return lambda x: "N = %s" % fmt_n(x)


# --- building -------------------------------------------------------------------

class Figures:
    """Builds every figure's data; keeps the statistics in memory for the claims."""

    def __init__(self, rs, machine, table):
        self.rs = rs
        self.machine = machine
        self.table = table
        self.stats = {}      # (figure id, panel suffix) -> {series: {x: stats}}
        self.index = []      # (id, status, files or reason)
        self.notes = []
        self.pooled_figs = set()  # ids whose medians all come from pooled histograms
        self.readings = {}   # figure id -> [sentences on the runs' end states, per panel]

    def entry(self, fid):
        return [f for f in self.table if f.id == fid][0]

    def groups(self, fig):
        """[(panel suffix, rows, series name of a row)] of a figure's selected rows,
        in .dat order (one per panel: the split's suffix plus the Panel's), or a
        reason (text) why the figure has no data. plots/compare.py reads the
        same points through this."""
        rows = self.rs.rows(fig.source, fig.mode)
        for sel in fig.select:
            if rows:
                rows = sel(rows)
        if not rows:
            return "%s has no %s-mode rows" % (fig.source, fig.mode)
        if fig.requires and fig.requires[0] not in rows[0]:
            return "%s: %s" % (fig.source, fig.requires[1])
        out = []
        for suffix, group in (fig.split(rows) if fig.split else [("", rows)]):
            group, name = fig.series(group)
            out.append((suffix, group, name))
        return out

    def panels(self, fig):
        """[(suffix, header, stats)], or a reason (text) why the figure has no data."""
        groups = self.groups(fig)
        if isinstance(groups, str):
            return groups
        out = []
        target = marks.target_seconds((self.rs.meta(fig.source) or {}).get("command_line"))
        for suffix, group, name in groups:
            for panel in fig.panels:
                fx = facts(fig, group)
                fx["unvalued"] = sum(1 for r in group if panel.y(r) is None)
                if fig.note and fx["unvalued"]:
                    self.notes.append(fig.note.format(**fx))
                stats = group_stats(group, name, fig.x, panel.y, envelope=fig.envelope)
                for pts in stats.values():
                    for st in pts.values():
                        st["marked"] = marks.point_marks(st["rows"], target)
                head = header(fig, panel, fx)
                if panel.pooled:
                    head = head + self.pool(fig, panel, group, name, stats)
                out.append((suffix + panel.suffix, head, stats))
        return out

    def pool(self, fig, panel, rows, name, stats):
        """Replace each point's median by the percentile of its runs' pooled
        histograms (Panel.pooled); the header line saying which was used."""
        found = self.rs.histograms(fig.source)
        runs = {}
        for r in rows:
            runs.setdefault((name(r), fig.x(r)), []).append((r["counter"], r["threads"], r["run"]))
        pooled = kept = 0
        for (s, x), keys in runs.items():
            st = stats.get(s, {}).get(x)
            if st is None:
                continue
            hists = [found[0].get(k) for k in keys] if found else [None]
            if all(hists):
                # One definition for the line and the band: each run's percentile
                # from its own histogram, the median column from their sum.
                st.update(summarize([histogram_percentile(h, panel.pooled) for h in hists]))
                st["median"] = histogram_percentile(pool_histograms(hists), panel.pooled)
                pooled += 1
            else:
                kept += 1
        num, den = panel.pooled
        pct = "p%g" % (100.0 * num / den)
        if pooled and not kept:
            self.pooled_figs.add(fig.id)
            return [("latency_percentile",
                     "pooled: the median column is the %s of all the point's increments: "
                     "the histograms of its runs (%s) added bucket by bucket; min, max, "
                     "mean, p5, p95 are over the runs' own %s, each from its run's histogram "
                     "(not the CSV's %s column, which may differ by half a bucket); %s"
                     % (pct, ", ".join(found[1]), pct, panel.about.split(":")[0],
                        HIST_PCT_METHOD))]
        if pooled:
            self.notes.append("%s: %d point(s) pooled from histograms, %d without a histogram "
                              "for every run use the median of the runs' %s"
                              % (fig.id, pooled, kept, pct))
            return [("latency_percentile",
                     "mixed: %d point(s) pooled from the runs' histograms (%s), %d point(s) "
                     "(a run without a histogram) the median of the runs' own %s"
                     % (pooled, ", ".join(found[1]), kept, pct))]
        return [("latency_percentile",
                 "per run: no latency histogram sidecar (%s.latency.csv, written by scbench "
                 "schema 2 and later), so the median column is the median over runs of each "
                 "run's %s, not the %s of the pooled increments" % (fig.source, pct, pct))]

    def build(self, outdir=None):
        """Every figure's statistics (self.stats, self.index); with outdir, also
        its .dat files there (without, nothing is written: plots/atlas)."""
        for fig in self.table:
            if self.rs.csv(fig.source) is None:
                self.index.append((fig.id, "skipped", "%s is not in this result set" % fig.source))
                continue
            panels = self.panels(fig)
            if isinstance(panels, str):
                self.index.append((fig.id, "skipped", panels))
            else:
                self.emit(fig, panels, outdir)

    def emit(self, fig, panels, outdir):
        """panels: [(suffix, header list, stats)]; writes the .dat files into
        outdir (none when outdir is None)."""
        files = []
        for suffix, head, stats in panels:
            if not stats:
                continue
            fname = fig.id + suffix + ".dat"
            self.stats[(fig.id, suffix)] = stats
            head = head + self.derived_header(fig, stats, suffix)
            if outdir is not None:
                figdata.write_dat(os.path.join(outdir, fname), head, to_series_rows(stats))
            files.append(fname)
        if files:
            self.index.append((fig.id, "ok", " ".join(files)))
        else:
            self.index.append((fig.id, "skipped", "no usable rows"))

    def derived_header(self, fig, stats, suffix=""):
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
        xs = sorted(set(x for pts in stats.values() for x in pts))
        measured = measured_text(fig, xs, m, self.rs)
        # Under MIN_TREND x values: points, whiskers, series offset along x; no trend lines.
        draw = "points" if len(xs) < MIN_TREND else "lines"
        drawn = fig.drawn
        if draw == "points" and fig.xlabel != "variant":
            drawn = ("%s (under %d x values: points, no lines; series offset along x)"
                     % (fig.drawn_points or "point: median, whisker: min-max", MIN_TREND))
        per = "%s run%s per point" % (runs, "" if runs == "1" else "s")
        rows = self.rs.rows(fig.source, fig.mode)
        out = [("runs", per),
               ("envelope_series", " ".join(env)),
               ("measured", measured),
               ("draw", draw),
               ("x_values", " ".join(figdata.fmt(x) for x in xs)),
               ("flat_series", " ".join(s for s, pts in stats.items()
                                        if all(p["min"] == p["max"] for p in pts.values()))),
               ("drawn", fig.drawn_pooled if fig.id in self.pooled_figs else drawn),
               ("caption", "; ".join(filter(None, (
                   where, per, work_text(rows, m.get("work_calibration"))))))]
        cs = ctx_switches_text(rows)
        if cs:
            out.append(("ctx_switches", cs))
        if fig.extra:
            out += fig.extra(self.rs, stats)
            notes = [v for k, v in out if k == "note"]
            if len(notes) > 1:
                out = [(k, v) for k, v in out if k != "note"] + [("note", "; ".join(notes))]
        xt = x_text_of(fig)
        recorded, points, mixed = end_modes(stats, xt)
        if not recorded:
            out.append(("end_states", NOT_RECORDED + " (the CSV has no end_state column)"))
        elif points:
            out.append(("end_states", "; ".join("%s %s: %s" % (s, xt(x), modes_text(c))
                                                for s, x, c in points)))
        if mixed:
            text = "bimodal: " + "; ".join("%s at %s ended in different modes (%s)"
                                           % (s, x, modes_text(c)) for s, x, c in mixed)
            notes = [v for k, v in out if k == "note"]
            out = [(k, v) for k, v in out if k != "note"]
            out.append(("note", "; ".join(notes + [text])))
            out.append(("mixed_modes", " ".join("%s@%s" % (s, x.replace(" ", "")) for s, x, _ in mixed)))
        marked = [(s, x, p["marked"]) for s, pts in stats.items() for x, p in sorted(pts.items())
                  if p.get("marked")]
        if marked:
            out.append(("marked", "; ".join("%s %s: %s" % (s, xt(x), marks.letters(b))
                                            for s, x, b in marked)))
            out.append(("marked_caption", marks.caption(len(marked))))
        reading = end_state_reading(list(stats), recorded, points, mixed, xt)
        if reading and reading not in [r for _, r in self.readings.get(fig.id, [])]:
            self.readings.setdefault(fig.id, []).append((fig.id + suffix, reading))
        if fig.switch_over:
            ts = sorted(set(threshold_of(r) for r in (self.rs.csv(fig.source) or [])
                            if r["counter"] == "Scalable"))
            if len(ts) == 1:
                out.append(("switch_over", "%d" % 2 ** ts[0]))
                out.append(("switch_over_exp", "%d" % ts[0]))
        return out


def load_set(path, table, build=False):
    """(ResultSet, machine summary, Figures over table) of the result set at
    path, read only; with build, the figures' statistics computed in memory
    (Figures.build without an outdir: nothing is written into the set).
    ResultSetError (one line) when path is no directory or holds none of SOURCES,
    or a file in it cannot be read."""
    if not os.path.isdir(path):
        raise ResultSetError("%s: not a directory" % path)
    rs = ResultSet(path)
    if not any(rs.csv(n) is not None for n in SOURCES):
        raise ResultSetError("%s: not a result set (none of %s)" % (path, ", ".join(SOURCES)))
    m = machine_summary(rs)
    figs = Figures(rs, m, table)
    if build:
        figs.build()
    return rs, m, figs
