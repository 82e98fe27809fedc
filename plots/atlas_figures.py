# SPDX-License-Identifier: MIT
"""The figures of plots/atlas (matplotlib, imported only when drawing): the
normalised throughputs as a heat map per panel (atlas-<panel>.png/.pdf: the
ratio in each cell, log colour scale, one column per level and machine,
rotated column labels checked for overlap) and the verdicts as a grid, claim x
machine (atlas-claims.png/.pdf).
"""

import io
import math
import os
import sys

from atlas_normalise import BASELINE, col_title, panels_of
from report import VERDICT_TEXT
from writing import write_atomically


def draw_figures(out, ms, values, levels, judged):
    """atlas-<panel>.png/.pdf and atlas-claims.png/.pdf; ({panel: file}, claims
    file or None), or raises ImportError without matplotlib."""
    plt = pyplot()
    made = {}
    cols = [(lname, at, m) for lname, at in levels for m in ms]
    for pid, fid, key in panels_of(ms):
        name = heat_map(plt, out, ms, values, cols, pid, key)
        if name:
            made[pid] = name
    return made, claims_grid(plt, out, ms, judged)


def pyplot():
    """matplotlib.pyplot, set up for the atlas (Agg, its font size, a fixed SVG salt)."""
    import mpl_home  # noqa: F401 - before matplotlib: its config directory where HOME is read-only
    del mpl_home  # imported for that alone (pyflakes reads no noqa)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams.update({"font.size": 8, "svg.hashsalt": "scbench"})
    return plt


def save(plt, fig, out, name):
    """Writes fig as out/name.png and .pdf (no creation date), closes it; name.png."""
    for ext in ("png", "pdf"):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=110, bbox_inches="tight",
                    metadata={"CreationDate": None} if ext == "pdf" else None)
        write_atomically(os.path.join(out, "%s.%s" % (name, ext)), buf.getvalue())
    plt.close(fig)
    return name + ".png"


def heat_map(plt, out, ms, values, cols, pid, key):
    """atlas-<pid>.png/.pdf, the heat map of panel pid (figure statistics key) over
    the columns cols [(level name, at, machine)]; its file, or None without values."""
    variants = []
    for m in ms:
        variants += [s for s in (m.figs.stats.get(key) or {}) if s not in variants]
    grid = [[values.get((pid, v, c[0], c[2].label)) for c in cols] for v in variants]
    if not any(x for row in grid for x in row):
        return None
    logs = [[math.log2(x["ratio"]) if x and x["ratio"] > 0 else float("nan")
             for x in row] for row in grid]
    span = max([1.0] + [abs(x) for row in logs for x in row if x == x])
    span = min(span, 10.0)
    fig, ax = plt.subplots(figsize=(1.6 + 1.05 * len(cols), 1.2 + 0.3 * len(variants)))
    cmap = plt.get_cmap("RdBu").copy()
    cmap.set_bad("#e0e0e0")
    im = ax.imshow(logs, cmap=cmap, vmin=-span, vmax=span, aspect="auto")
    for i, row in enumerate(grid):
        for j, x in enumerate(row):
            text = "-" if x is None else short_ratio(x["ratio"])
            dark = x is not None and abs(logs[i][j]) > 0.6 * span
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")
    ax.set_yticks(range(len(variants)))
    ax.set_yticklabels(variants)
    ax.set_xticks(range(len(cols)))
    # Rotated, one line each: side by side, machine names of any length
    # overlapped once there were more than a few columns.
    ax.set_xticklabels([col_title(m, lname, at) for lname, at, m in cols], fontsize=7,
                       rotation=40, ha="right", rotation_mode="anchor")
    for j in range(len(ms), len(cols), len(ms)):
        ax.axvline(j - 0.5, color="black", linewidth=1.2)
    colour_bar(fig, ax, im, span)
    ax.set_title("%s: each variant's median throughput over %s's at the same thread "
                 "count, per machine\n(grey '-': not matched on that machine)"
                 % (pid, BASELINE), fontsize=8)
    crowded = overlapping_labels(fig, ax.get_xticklabels())
    if crowded:
        print("plots/atlas: warning: atlas-%s: %d column labels overlap their neighbours"
              % (pid, crowded), file=sys.stderr)
    return save(plt, fig, out, "atlas-" + pid)


def colour_bar(fig, ax, im, span):
    """The heat map's colour bar: ticks at powers of 2 of the ratio, up to 2^span."""
    bar = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
    step = max(1, int(span) // 4)
    ticks = [t for t in range(-int(span), int(span) + 1) if t % step == 0]
    bar.set_ticks(ticks)
    bar.set_ticklabels(["%dx" % 2 ** t if t >= 0 else "1/%dx" % 2 ** -t for t in ticks])
    bar.set_label("throughput / %s's (log scale)" % BASELINE)


def claims_grid(plt, out, ms, judged):
    """atlas-claims.png/.pdf, the verdicts as a grid, claim x machine; its file."""
    from matplotlib.colors import ListedColormap
    order = [v for v, _, _ in VERDICT_TEXT]
    colours = {"holds": "#2ca02c", "consistent with": "#98df8a", "does not hold": "#d62728",
               "inconclusive": "#ffdd57", "no test here": "#c5b0d5",
               "not measurable": "#d9d9d9",
               "by construction": "#9ecae1"}
    first = judged[ms[0].label]
    grid = [[order.index(judged[m.label][i]["verdict"]) if judged[m.label][i]["verdict"]
             in order else float("nan") for m in ms] for i in range(len(first))]
    fig, ax = plt.subplots(figsize=(3.2 + 1.3 * len(ms), 1.0 + 0.16 * len(first)))
    cmap = ListedColormap([colours.get(v, "#ffffff") for v in order])
    ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=len(order) - 0.5, aspect="auto",
              interpolation="nearest")
    for i in range(len(first)):
        for j, m in enumerate(ms):
            c = judged[m.label][i]
            if c.get("cause"):
                ax.text(j, i, c["cause"], ha="center", va="center", fontsize=5)
    ax.set_yticks([i - 0.5 for i in range(1, len(first))], minor=True)
    ax.set_xticks([j - 0.5 for j in range(1, len(ms))], minor=True)
    ax.grid(which="minor", color="white", linewidth=0.6)
    ax.tick_params(which="minor", length=0)
    ax.set_yticks(range(len(first)))
    ax.set_yticklabels(["%d %s" % (i + 1, c["id"]) for i, c in enumerate(first)], fontsize=5)
    ax.set_xticks(range(len(ms)))
    ax.set_xticklabels([m.label for m in ms], fontsize=7)
    ax.xaxis.tick_top()
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[v]) for v in order]
    ax.legend(handles, order, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False,
              fontsize=7, title="verdict (text: the not-measurable cause)", title_fontsize=7)
    return save(plt, fig, out, "atlas-claims")


def overlapping_labels(fig, labels):
    """How many x tick labels overlap the next one, as drawn: side by side
    (unrotated) when their boxes meet; rotated by the same angle, when the
    distance between their parallel baselines, the ticks' spacing times the
    sine of the angle, is less than a line of their text."""
    renderer = fig.canvas.get_renderer()
    texts = [t for t in labels if t.get_text()]
    n = 0
    for a, b in zip(texts, texts[1:]):
        angle = math.radians(a.get_rotation())
        if angle == 0:
            n += a.get_window_extent(renderer).overlaps(b.get_window_extent(renderer))
            continue
        xa = a.get_transform().transform(a.get_position())[0]
        xb = b.get_transform().transform(b.get_position())[0]
        line = a.get_fontsize() * fig.dpi / 72 * 1.2
        n += abs(xb - xa) * math.sin(angle) < line
    return n


def short_ratio(r):
    """A ratio in a heat-map cell: 3 characters or so (1.2k, not 1.2e+03)."""
    if r >= 999.5:
        return "%.2gk" % (r / 1000.0) if r < 99500 else "%.0fk" % (r / 1000.0)
    return "%.0f" % r if r >= 99.5 else "%.2g" % r
