# SPDX-License-Identifier: MIT
"""The overlay figures of plots/compare: for each Dice or baselines experiment
(of two plain scbench CSVs, their throughput), both sides' medians against
threads (A solid, B dashed, the variant's colour and marker from
plots/style.json), significant differences ringed (a red ring three times
B's marker, drawn below the medians, so B's open marker shows inside it).
Draws only what plots/compare.py computed (its compare.csv rows). Needs
matplotlib; importing this module fails without it.
"""

import math
import os

import mpl_home  # noqa: F401 - before matplotlib: its config directory where HOME is read-only
import style
from figbuild import MIN_TREND
from mpl_common import y_linear_eng, y_log

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

plt.rcParams.update({"font.size": 9, "axes.grid": True, "grid.color": "#dddddd",
                     "legend.fontsize": 7, "svg.hashsalt": "scbench"})
LOG_Y = {"dice-fig3", "dice-fig4-high"}   # as the figures themselves
FLAG = "#d62728"
RING = 3   # a significant point's ring: RING times B's marker, under it


def line(ax, rows, key, look, dashed, trend):
    """A's (solid) or B's (dashed) medians of one series; with fewer than MIN_TREND
    thread counts, points only (a line between two thread counts is no trend),
    B's a little to the right of A's."""
    pts = sorted((r["threads"], r[key]) for r in rows if r[key] is not None
                 and not math.isinf(r[key]))
    if not pts:
        return
    shift = 1.0 if trend or not dashed else 1.04
    ax.plot([p[0] * shift for p in pts], [p[1] for p in pts], color=look["color"],
            marker=look["marker"], linestyle=("--" if dashed else "-") if trend else "none",
            linewidth=1.2, markersize=4 if trend else 6,
            markerfacecolor="none" if dashed else look["color"], zorder=3)


def panel(ax, pid, rows):
    series = []
    for r in rows:
        if r["counter"] not in series:
            series.append(r["counter"])
    xs = sorted(set(r["threads"] for r in rows))
    trend = len(xs) >= MIN_TREND
    for s in series:
        rr = [r for r in rows if r["counter"] == s]
        look = style.look(s)
        line(ax, rr, "median_a", look, False, trend)
        line(ax, rr, "median_b", look, True, trend)
        for r in rr:
            if r["significant"] == "yes":
                # a ring RING times B's marker, drawn below the medians: B's open
                # marker stays visible inside it
                ax.plot([r["threads"] * (1.0 if trend else 1.04)], [r["median_b"]], "o",
                        markersize=RING * (4 if trend else 6), zorder=2,
                        markerfacecolor="none", markeredgecolor=FLAG, markeredgewidth=1.5)
    ax.set_title(pid, fontsize=9)
    ax.set_xlabel("threads")
    ax.set_ylabel(rows[0]["measure"])
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs)
    ax.set_xticklabels(["%d" % x for x in xs])
    ax.minorticks_off()
    ax.set_xlim(xs[0] / 1.3, xs[-1] * 1.3)
    if pid.split("-w")[0] in LOG_Y:
        y_log(ax)
    else:
        y_linear_eng(ax)   # 1.5M, not an offset "1e6" above the axis
    handles = [Line2D([], [], color=style.look(s)["color"], marker=style.look(s)["marker"],
                      label=style.look(s)["label"]) for s in series]
    handles += [Line2D([], [], color="black", linestyle="-" if trend else "none", marker="o",
                       label="A (solid, filled)" if trend else "A (filled)"),
                Line2D([], [], color="black", linestyle="--" if trend else "none", marker="o",
                       markerfacecolor="none",
                       label="B (dashed, open)" if trend else "B (open, right of A)"),
                Line2D([], [], color=FLAG, marker="o", linestyle="none", markerfacecolor="none",
                       markersize=8, label="significant")]
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)


def draw(out, rows, ids):
    """Writes out/<id>.png and .pdf for each experiment id in ids with rows in
    both sets; returns the ids drawn."""
    drawn = []
    for fid in ids:
        rr = [r for r in rows if r["figure_id"] == fid and r["median_a"] is not None
              and r["median_b"] is not None]
        if not rr:
            continue
        pids = []
        for r in rr:
            if r["figure"] not in pids:
                pids.append(r["figure"])
        fig, axes = plt.subplots(len(pids), 1, figsize=(7.5, 3.6 * len(pids)), squeeze=False)
        for ax, pid in zip(axes[:, 0], pids):
            panel(ax, pid, [r for r in rr if r["figure"] == pid])
        fig.suptitle("%s: median of the runs, A filled, B open%s" % (
            fid, "" if len(set(r["threads"] for r in rr)) >= MIN_TREND else
            " (under %d thread counts: points, no lines)" % MIN_TREND), fontsize=10)
        fig.tight_layout()
        for ext in ("png", "pdf"):
            fig.savefig(os.path.join(out, "%s.%s" % (fid, ext)), dpi=110,
                        metadata={"CreationDate": None} if ext == "pdf" else None)
        plt.close(fig)
        drawn.append(fid)
    return drawn
