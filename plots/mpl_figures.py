#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mpl_figures.py DIR [FIGURE...] - draw every figure of result set DIR with matplotlib.

Reads only DIR/figdata (written by plots/aggregate.py; nothing is computed
here) and writes DIR/figures/<figure>.pdf and .svg. Colours, markers and line
styles come from plots/style.json through plots/style.py, the same palette the
gnuplot scripts use. Needs matplotlib (Debian: python3-matplotlib, run by
/usr/bin/python3); plots/regen picks the interpreter and sets MPLBACKEND=Agg.
Exit status: 0 if every figure with data was drawn, 1 if one failed, 2 on usage.
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree (it may be read-only)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "harness"))  # runall.guard
from runall.guard import guarded  # noqa: E402

if __name__ == "__main__" and sys.argv[1:2] in (["-h"], ["--help"]):
    # answered before matplotlib is imported (an import writes its config directory)
    print(__doc__.strip().splitlines()[0], file=sys.stderr)
    sys.exit(0)

import figdata  # noqa: E402
import style  # noqa: E402
from marks import figure_caption  # noqa: E402
from writing import OutsideSet, set_subdir  # noqa: E402
import mpl_home  # noqa: E402,F401 - before matplotlib: its config directory where HOME is read-only
from mpl_common import (col, draw_series, mark_points, n_axis, nan, series_band,  # noqa: E402
                        series_line, series_points, threads_axis, xlabel_text,
                        y_linear_eng, y_log)

import matplotlib  # noqa: E402
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

plt.rcParams.update({
    "font.size": 9,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "legend.fontsize": 8,
    "svg.hashsalt": "scbench",   # stable ids: the same data gives the same SVG
    "pdf.compression": 6,
})
NO_DATE = {"pdf": {"CreationDate": None}, "svg": {"Date": None}}


def titles(fig, dat, top=None):
    m = dat["meta"]
    head = (m.get("reproduces") + ": " if m.get("reproduces") else "") + m.get("title", "")
    fig.suptitle(head, fontsize=11, y=0.995 if top is None else top)
    lines = ["measured: " + m["measured"]] if m.get("measured") else []
    lines += [m.get("drawn", ""), m.get("caption", "")] + ([m["note"]] if m.get("note") else [])
    fig.text(0.5, (0.955 if top is None else top - 0.04), "\n".join(lines),
             ha="center", va="top", fontsize=8, color="#444444", wrap=True)


def legend_right(ax, handles=None, **kw):
    if handles is None:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False, **kw)
    else:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                  frameon=False, **kw)


def new_figure(w=9.5, h=6.0):
    fig, ax = plt.subplots(figsize=(w, h))
    fig.subplots_adjust(left=0.08, right=0.78, top=0.8, bottom=0.1)
    return fig, ax


def one_panel(files):
    """A one-panel figure: its figure data, the data's series, a new figure and axes."""
    dat = figdata.read_dat(files[0])
    fig, ax = new_figure()
    return dat, figdata.by_series(dat), fig, ax


def finish(fig, ax, dat, ylabel_suffix="", handles=None):
    """Axis labels from the figure data, the titles, the legend on the right."""
    ax.set_xlabel(xlabel_text(dat))
    ax.set_ylabel(dat["meta"]["ylabel"] + ylabel_suffix)
    titles(fig, dat)
    legend_right(ax, handles)
    return fig


# --- figures -------------------------------------------------------------------

def draw_throughput(files, logy):
    dat, groups, fig, ax = one_panel(files)
    draw_series(ax, dat, groups)
    threads_axis(ax, groups)
    if logy:
        y_log(ax)
    else:
        ax.set_ylim(bottom=0)
        y_linear_eng(ax)
    return finish(fig, ax, dat)


def draw_relerror(files):
    """Dice Fig. 6: the probabilistic counters' worst errors on the y scale both Fig. 6
    figures share, one line per distinct bound and the expected worst of n runs at it;
    Serial in its own panel."""
    dat = figdata.read_dat(files[0])
    m = dat["meta"]
    groups = figdata.by_series(dat)
    prob = [(n, r) for n, r in groups if n != "Serial"]
    serial = [r for n, r in groups if n == "Serial"]
    fig, axes = plt.subplots(1, 2, figsize=(11.5, 5.8), squeeze=False,
                             gridspec_kw={"width_ratios": [2.2, 1]})
    ax, ax2 = axes[0]
    fig.subplots_adjust(left=0.07, right=0.74, top=0.8, bottom=0.1, wspace=0.3)
    points = m.get("draw") == "points"
    handles = []
    for i, (name, rows) in enumerate(prob):
        if points:
            handles.append(series_points(ax, name, rows, i, len(prob), "max", whiskers=False))
        else:
            handles.append(series_line(ax, name, rows, y="max"))
    for v, who in zip(m.get("bound_values", "").split(), m.get("bound_labels", "").split()):
        handles.append(ax.axhline(float(v), color="#444444", linestyle="--", linewidth=1.2,
                                  label="RSTDV bound %s%% (%s)" % (v, who)))
    if m.get("worst_of_n"):
        handles.append(ax.axhline(float(m["worst_of_n"]), color="#444444", linestyle=":",
                                  linewidth=1.2, label=m.get("worst_of_n_label", "")))
    ym = float(m.get("y_max", "0") or 0) or None
    ax.set_ylim(-0.03 * ym if ym else 0, ym)
    threads_axis(ax, groups)
    if points:
        xs = [float(x) for x in m.get("x_values", "1").split()]
        ax.set_xlim(xs[0] / 1.45, xs[-1] * 1.45)
    ax.set_title("probabilistic counters (y scale shared by both Fig. 6 figures)", fontsize=9)
    ax.set_xlabel(xlabel_text(dat))
    ax.set_ylabel("worst %s" % m["ylabel"])
    if serial:
        if points:
            series_points(ax2, "Serial", serial[0], 0, 1, "max", whiskers=False)
        else:
            series_line(ax2, "Serial", serial[0], y="max")
        ax2.set_ylim(bottom=-0.03 * max(r["max"] for r in serial[0]))
        threads_axis(ax2, [("Serial", serial[0])])
        if points:
            ax2.set_xlim(ax.get_xlim())
        ax2.set_title("Serial (own scale)", fontsize=9)
        ax2.set_xlabel(m["xlabel"])
        ax2.set_ylabel("worst |relative error| of Serial (%)")
    else:
        ax2.set_visible(False)
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.75, 0.8), frameon=False)
    titles(fig, dat)
    return fig


def switch_over(ax, dat, text="switch-over"):
    so = dat["meta"].get("switch_over")
    if so:
        ax.axvline(float(so), color="#777777", linestyle=":", linewidth=1)
        ax.annotate("%s $2^{%s}$" % (text, dat["meta"].get("switch_over_exp", "?")),
                    xy=(float(so), 0.03), xycoords=("data", "axes fraction"),
                    xytext=(4, 0), textcoords="offset points", fontsize=8, color="#555555")


def draw_ayers_accuracy(files):
    dat, groups, fig, ax = one_panel(files)
    flat = dat["meta"].get("flat_series", "").split()
    for name, rows in groups:
        series_band(ax, name, rows)
        # every run exact: its line lies under Scalable's at 1, the label says so
        series_line(ax, name, rows, y="mean", ayers=True,
                    label=("%s (every run exact)" % style.look(name)["ayers_label"]
                           if name in flat else None))
    n_axis(ax)
    ax.set_ylim(bottom=0)
    switch_over(ax, dat, "Scalable switch-over")
    return finish(fig, ax, dat, " (1 = exact)")


def draw_ayers_detail(files):
    dat, groups, fig, ax = one_panel(files)
    env = dat["meta"].get("envelope_series", "").split()
    flat = dat["meta"].get("flat_series", "").split()
    handles = []
    for name, rows in groups:
        lk = style.look(name)
        if name in flat:   # every run agrees (interlocked: exact): one line, nothing hidden
            handles.append(series_line(ax, name, rows, y="mean", ayers=True,
                                       label="%s (every run exact)" % lk["ayers_label"]))
            continue
        series_band(ax, name, rows, "p5", "p95")
        handles.append(Patch(color=lk["color"], alpha=0.3, label="%s 5th-95th pct" % lk["ayers_label"]))
        handles.append(series_line(ax, name, rows, y="mean", ayers=True,
                                   label="%s mean" % lk["ayers_label"]))
        for k in ("min", "max"):
            h = ax.plot(col(rows, "x"), col(rows, k), color=lk["color"], linestyle=":",
                        linewidth=1, label="%s min, max" % lk["ayers_label"])[0]
        handles.append(h)
        if name in env:
            for k in ("env_lo", "env_hi"):
                pts = [r for r in rows if not nan(r[k])]
                h = ax.plot(col(pts, "x"), col(pts, k), color=lk["color"], linestyle="--",
                            linewidth=1.2,
                            label="%s binomial model 5th-95th (N > 2^T)" % lk["ayers_label"])[0]
            handles.append(h)
    n_axis(ax)
    switch_over(ax, dat)
    return finish(fig, ax, dat, " (1 = exact)", handles)


def draw_ayers_tunable(files):
    dat, groups, fig, ax = one_panel(files)
    for name, rows in groups:
        lk = style.look(name)
        series_line(ax, name, rows, y="p95", ayers=True)
        series_line(ax, name, rows, y="p5", label="_nolegend_")
        for k in ("env_lo", "env_hi"):
            ax.plot(col(rows, "x"), col(rows, k), color=lk["color"], linestyle="--", linewidth=0.9)
    ax.plot([], [], color="#555555", linestyle="--", linewidth=0.9, label="binomial model 5th-95th")
    n_axis(ax)
    return finish(fig, ax, dat, " (1 = exact): 5th and 95th percentiles")


def draw_ayers_time(files):
    dat, groups, fig, ax = one_panel(files)
    for name, rows in groups:
        series_band(ax, name, rows)
        series_line(ax, name, rows, ayers=True)
    n_axis(ax)
    y_log(ax)
    upto = dat["meta"].get("startup_upto")
    if upto:  # the N up to which runs fall in two start-up modes (the note says so)
        ax.axvline(float(upto), color="#555555", linestyle=":", linewidth=1)
    return finish(fig, ax, dat)


def draw_panels(files, logy):
    dats = [figdata.read_dat(f) for f in files]
    n = len(dats)
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n + 2.2, 5.8), squeeze=False)
    # the boxed points' caption once for the figure, under the panels
    cap = figure_caption([d["meta"].get("marked_caption", "") for d in dats])
    right = 0.84 if n > 2 else 0.8
    fig.subplots_adjust(left=0.06, right=right, top=0.74, bottom=0.15 if cap else 0.11,
                        wspace=0.28)
    if cap:
        fig.text((0.06 + right) / 2, 0.01, cap, ha="center", va="bottom")
    handles = {}
    for ax, dat in zip(axes[0], dats):
        groups = figdata.by_series(dat)
        floor = float(dat["meta"]["zero_floor"]) if dat["meta"].get("zero_floor") else None
        handles.update(draw_series(ax, dat, groups, floor=floor))
        threads_axis(ax, groups)
        if logy:
            y_log(ax, floor)
        ax.set_title(dat["meta"].get("panel", ""), fontsize=9)
        ax.set_xlabel(dat["meta"]["xlabel"])
        ax.set_ylabel(dat["meta"]["ylabel"])
    titles(fig, dats[0])
    axes[0][-1].legend(handles=list(handles.values()), loc="upper left",
                       bbox_to_anchor=(1.04, 1.0), frameon=False)
    return fig


def draw_read_cost(files):
    """Per variant the median of the runs as a point, min-max as a whisker: read ns on a
    linear axis from 0, bytes per counter on a log axis (no bars)."""
    dats = [figdata.read_dat(f) for f in files]
    fig, axes = plt.subplots(len(dats), 1, figsize=(9.5, 3.6 * len(dats) + 1.6), squeeze=False)
    fig.subplots_adjust(left=0.09, right=0.98, top=0.8 if len(dats) > 1 else 0.72,
                        bottom=0.1, hspace=0.6)
    for ax, dat in zip(axes[:, 0], dats):
        groups = figdata.by_series(dat)
        for i, (name, rows) in enumerate(groups, 1):
            r = rows[-1]
            lk = style.look(name)
            ax.errorbar([i], [r["median"]], yerr=[[r["median"] - r["min"]], [r["max"] - r["median"]]],
                        color=lk["color"], marker=lk["marker"], markersize=7, capsize=3,
                        markerfacecolor="white" if lk["fill"] == "none" else lk["color"],
                        linestyle="none")
            mark_points(ax, name, [r], [i], [r["median"]])
        if "bytes" in dat["meta"].get("ylabel", ""):
            y_log(ax)
        else:
            ax.set_ylim(bottom=0)
        ax.set_xticks(range(1, len(groups) + 1))
        ax.set_xticklabels([style.look(n)["label"] for n, _ in groups], rotation=35, ha="right")
        ax.set_xlim(0.3, len(groups) + 0.7)
        ax.grid(axis="x", visible=False)
        ax.set_title(dat["meta"].get("panel", ""), fontsize=9)
        ax.set_ylabel(dat["meta"]["ylabel"])
        if dat["meta"].get("marked_caption"):
            ax.set_xlabel(dat["meta"]["marked_caption"])
    titles(fig, dats[0])
    return fig


DRAW = {
    "dice-fig3": lambda f: draw_throughput(f, True),
    "dice-fig4-low": lambda f: draw_throughput(f, False),
    "dice-fig4-high": lambda f: draw_throughput(f, True),
    "dice-fig5": lambda f: draw_throughput(f, False),
    "dice-fig6-low": draw_relerror,
    "dice-fig6-high": draw_relerror,
    "ayers-accuracy": draw_ayers_accuracy,
    "ayers-accuracy-detail": draw_ayers_detail,
    "ayers-accuracy-tunable": draw_ayers_tunable,
    "ayers-scaling": draw_ayers_time,
    "ayers-scaling-detail": draw_ayers_time,
    "baselines": lambda f: draw_panels(f, True),
    "latency": lambda f: draw_panels(f, True),
    "read-cost": draw_read_cost,
}


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 0 if len(argv) >= 2 else 2
    d = argv[1]
    only = set(argv[2:])
    index_path = os.path.join(d, "figdata", "figures.tsv")
    if not os.path.isfile(index_path):
        print("mpl_figures.py: %s missing: run plots/aggregate.py %s first" % (index_path, d),
              file=sys.stderr)
        return 1
    try:
        outdir = set_subdir(d, "figures")
    except OutsideSet as e:
        print("mpl_figures.py: %s" % e, file=sys.stderr)
        return 1
    failed = 0
    for fid, status, what in figdata.read_index(index_path):
        if only and fid not in only:
            continue
        if status != "ok" or fid not in DRAW:
            continue
        files = [os.path.join(d, "figdata", f) for f in what.split()]
        try:
            fig = DRAW[fid](files)
            for ext in ("pdf", "svg"):
                fig.savefig(os.path.join(outdir, "%s.%s" % (fid, ext)), metadata=NO_DATE[ext],
                            bbox_inches="tight", pad_inches=0.15)
            plt.close(fig)
            print("mpl_figures.py: %s/%s.pdf .svg" % (outdir, fid))
        except Exception as e:  # one broken figure must not stop the others
            failed += 1
            print("mpl_figures.py: %s failed: %s: %s" % (fid, type(e).__name__, e), file=sys.stderr)
            plt.close("all")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(guarded("mpl_figures.py", main, sys.argv))
