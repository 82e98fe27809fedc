# SPDX-License-Identifier: MIT
"""The overlay figures of plots/compare: for each Dice or baselines experiment,
both result sets' medians against threads (A solid, B dashed, the variant's
colour and marker from plots/style.json), significant differences ringed.
Draws only what plots/compare.py computed (its compare.csv rows). Needs
matplotlib; importing this module fails without it.
"""

import math
import os

import style

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

plt.rcParams.update({"font.size": 9, "axes.grid": True, "grid.color": "#dddddd",
                     "legend.fontsize": 7, "svg.hashsalt": "scbench"})
LOG_Y = {"dice-fig3"}   # as the figure itself (doc/design.md §6: log y)
FLAG = "#d62728"


def line(ax, rows, key, look, dashed):
    pts = sorted((r["threads"], r[key]) for r in rows if r[key] is not None
                 and not math.isinf(r[key]))
    if not pts:
        return
    ax.plot([p[0] for p in pts], [p[1] for p in pts], color=look["color"],
            marker=look["marker"], linestyle="--" if dashed else "-", linewidth=1.2,
            markersize=4, markerfacecolor="none" if dashed else look["color"])


def panel(ax, pid, rows):
    series = []
    for r in rows:
        if r["counter"] not in series:
            series.append(r["counter"])
    for s in series:
        rr = [r for r in rows if r["counter"] == s]
        look = style.look(s)
        line(ax, rr, "median_a", look, False)
        line(ax, rr, "median_b", look, True)
        for r in rr:
            if r["significant"] == "yes":
                ax.plot([r["threads"]], [r["median_b"]], "o", markersize=11,
                        markerfacecolor="none", markeredgecolor=FLAG, markeredgewidth=1.5)
    ax.set_title(pid, fontsize=9)
    ax.set_xlabel("threads")
    ax.set_ylabel(rows[0]["measure"])
    xs = sorted(set(r["threads"] for r in rows))
    ax.set_xticks(xs)
    if pid.split("-w")[0] in LOG_Y:
        ax.set_yscale("log")
    handles = [Line2D([], [], color=style.look(s)["color"], marker=style.look(s)["marker"],
                      label=style.look(s)["label"]) for s in series]
    handles += [Line2D([], [], color="black", linestyle="-", label="A (solid)"),
                Line2D([], [], color="black", linestyle="--", label="B (dashed)"),
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
        fig.suptitle("%s: median of the runs, A solid, B dashed" % fid, fontsize=10)
        fig.tight_layout()
        for ext in ("png", "pdf"):
            fig.savefig(os.path.join(out, "%s.%s" % (fid, ext)), dpi=110,
                        metadata={"CreationDate": None} if ext == "pdf" else None)
        plt.close(fig)
        drawn.append(fid)
    return drawn
