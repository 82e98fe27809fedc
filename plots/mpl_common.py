# SPDX-License-Identifier: MIT
"""Drawing helpers of plots/mpl_figures.py: tick labels, log axes, and how a series
is drawn (a median line with its min-max band, or, with fewer than 4 x values,
points with min-max whiskers offset per series). Colours and markers come from
plots/style.json through plots/style.py. Needs matplotlib.
"""

import mpl_home  # noqa: F401 - before matplotlib: its config directory where HOME is read-only
import style

from matplotlib.ticker import (FixedLocator, FuncFormatter, NullFormatter, NullLocator,
                               ScalarFormatter)

BAND_ALPHA = 0.15


def eng(v, _pos=None):
    """Tick label with an SI suffix: 500k, 1.5M, 20m, 5µ (as gnuplot's %s%c)."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return "%g%s" % (round(v / div, 3), suffix)
    if v and abs(v) < 1:
        for div, suffix in ((1e-3, "m"), (1e-6, "\u00b5"), (1e-9, "n")):
            if abs(v) >= div * 0.9999:
                return "%g%s" % (round(v / div, 3), suffix)
    return "%g" % round(v, 6)


def y_log(ax, floor=None):
    """Log y labelled at 1, 2 and 5 of every decade (1..8 when the data spans under
    30x); with floor, a 0 is drawn at floor and labelled 0."""
    ax.set_yscale("log")
    lo, hi = ax.get_ylim()
    narrow = lo > 0 and hi / lo < 30
    ms = (1, 2, 3, 4, 5, 6, 7, 8) if narrow else (1, 2, 5)
    ticks = [m * 10.0 ** k for k in range(-9, 11) for m in ms
             if lo <= m * 10.0 ** k <= hi and (not floor or m * 10.0 ** k >= 1.6 * floor)]
    labels = [eng(t) for t in ticks]
    if floor:
        ticks, labels = [floor] + ticks, ["0"] + labels
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, p: labels[ticks.index(v)]
                                               if v in ticks else ""))
    ax.yaxis.set_minor_formatter(NullFormatter())


def y_linear_eng(ax):
    ax.yaxis.set_major_formatter(FuncFormatter(eng))


def nan(v):
    return v != v


def col(rows, key):
    return [r[key] for r in rows]


def at_floor(v, floor):
    """A value below floor (log-axis panels that show 0, e.g. latency at the subtracted
    timing cost) is drawn at floor, where the axis says 0; no floor: v."""
    return floor if floor and v < floor else v


def mark_points(ax, name, rows, xs, ys):
    """Over the points of rows (at xs, ys) whose 'marked' column is set
    (plots/marks.py: a busy run, a run off its time target, an outlier run):
    an open square around the point's own marker, in the series' colour (the
    variant's marker stays visible). Nothing when none is."""
    at = [k for k, r in enumerate(rows) if (r.get("marked") or 0) > 0]
    if not at:
        return
    c = style.look(name)["color"]
    px, py = [xs[k] for k in at], [ys[k] for k in at]
    ax.plot(px, py, linestyle="none", marker="s", markersize=12, markerfacecolor="none",
            markeredgecolor=c, markeredgewidth=1.3, zorder=5, label="_nolegend_")


def xlabel_text(dat):
    """The x axis label of a figure's data, and under it, when the data has a
    marked point, the caption saying what a boxed marker means and how many."""
    m = dat["meta"]
    return m["xlabel"] + ("\n" + m["marked_caption"] if m.get("marked_caption") else "")


def series_line(ax, name, rows, y="median", label=None, ayers=False, floor=None, **kw):
    lk = style.look(name)
    if label is None:
        label = lk["ayers_label"] if ayers else lk["label"]
    pts = [r for r in rows if not nan(r[y])]
    xs = [r["x"] for r in pts]
    ys = [at_floor(r[y], floor) for r in pts]
    opts = dict(color=lk["color"], marker=lk["marker"], linestyle=lk["linestyle"],
                linewidth=1.6, markersize=5, label=label)
    if lk["fill"] == "none":
        opts.update(markerfacecolor="white")
    opts.update(kw)
    h = ax.plot(xs, ys, **opts)[0]
    mark_points(ax, name, pts, xs, ys)
    return h


def series_band(ax, name, rows, lo="min", hi="max", alpha=BAND_ALPHA, label=None, floor=None):
    pts = [r for r in rows if not nan(r[lo]) and not nan(r[hi])]
    if len(pts) < 2:
        return None
    return ax.fill_between(col(pts, "x"), [at_floor(v, floor) for v in col(pts, lo)],
                           [at_floor(v, floor) for v in col(pts, hi)],
                           color=style.look(name)["color"], alpha=alpha, linewidth=0, label=label)


def series_points(ax, name, rows, i, n, y="median", whiskers=True, floor=None, label=None):
    """Fewer than 4 x values: the median as a point with min-max whiskers, series i of
    n offset along the log x axis so that equal values stay apart; no line."""
    lk = style.look(name)
    f = 2.0 ** ((i - (n - 1) / 2.0) * 0.03)
    pts = [r for r in rows if not nan(r[y])]
    xs = [r["x"] * f for r in pts]
    ys = [at_floor(r[y], floor) for r in pts]
    err = None
    if whiskers:
        err = [[ys[k] - at_floor(r["min"], floor) for k, r in enumerate(pts)],
               [at_floor(r["max"], floor) - ys[k] for k, r in enumerate(pts)]]
    h = ax.errorbar(xs, ys, yerr=err, color=lk["color"], marker=lk["marker"], linestyle="none",
                    markersize=6, capsize=2, elinewidth=1.2,
                    markerfacecolor="white" if lk["fill"] == "none" else lk["color"],
                    label=lk["label"] if label is None else label)
    mark_points(ax, name, pts, xs, ys)
    return h


def draw_series(ax, dat, groups, y="median", floor=None):
    """Lines and min-max bands, or points (dat's draw: points) for every series."""
    handles = {}
    for i, (name, rows) in enumerate(groups):
        if dat["meta"].get("draw") == "points":
            handles[name] = series_points(ax, name, rows, i, len(groups), y, floor=floor)
        else:
            series_band(ax, name, rows, floor=floor)
            handles[name] = series_line(ax, name, rows, y, floor=floor)
    if dat["meta"].get("draw") == "points":
        xs = [float(x) for x in dat["meta"].get("x_values", "1").split()]
        ax.set_xlim(xs[0] / 1.45, xs[-1] * 1.45)
    return handles


def threads_axis(ax, rows_by_series):
    ax.set_xscale("log", base=2)
    xs = sorted(set(r["x"] for _, rows in rows_by_series for r in rows))
    ticks = [2 ** k for k in range(0, 12) if xs and xs[0] <= 2 ** k <= xs[-1]]
    ticks = sorted(set(ticks + [x for x in xs if x == int(x)]))
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(ScalarFormatter())
    if len(xs) == 1:
        ax.set_xlim(xs[0] / 1.5, xs[0] * 1.5)


def n_axis(ax):
    ax.set_xscale("log", base=10)
