#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""figures_drawn.py SET... - what matplotlib's figures draw, checked from its
artists (run by test_figures_drawn.sh, as TAP on standard output).
figures_drawn.py --svg FILE... - no two text boxes of gnuplot's SVG drawing
of a figure overlap (each text's box estimated from its anchor, font size and
length: 0.55 em a character, 1 em high, turned as drawn; tick labels,
under 6 characters, left out).
figures_drawn.py --table SET TABLE... - gnuplot's "set table" output of the
figures of SET (TABLE: FIGURE.tab, the scripts' plots written as tables, the
axis formats made exact): every row's drawn value (as for matplotlib) is the
y of a point gnuplot marks in range ("i"); one clipped by an axis range
("o") or undefined ("u") is not drawn.

For every figure of plots/mpl_figures.py whose data each result set SET has
(plots/aggregate.py run before): every row's median of the figure's .dat
files is a y value of some drawn Line2D or collection (a value under the
file's zero_floor is drawn at the floor); and no two text boxes of the
rendered figure (suptitle, subtitles, captions, panel titles, axis labels,
legends, annotations: get_window_extent on the Agg canvas) overlap. And the
overlay of plots/compare: a significant point's ring lies under B's open
marker and is larger than it (B's marker shows inside the ring).
Exit status 0 (the TAP lines say what failed), 2 on bad usage.
"""

import html
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PLOTS = os.path.join(HERE, os.pardir, "plots")
sys.dont_write_bytecode = True
sys.path.insert(0, PLOTS)
sys.path.insert(0, os.path.join(PLOTS, os.pardir, "harness"))
os.environ.setdefault("MPLBACKEND", "Agg")

N = [0]
# The column a figure draws as its points, where not the median (the gnuplot
# scripts' "using" columns): the worst error, the mean or p95 of value/N.
DRAWN = {"dice-fig6-low": "max", "dice-fig6-high": "max", "ayers-accuracy": "mean",
         "ayers-accuracy-detail": "mean", "ayers-accuracy-tunable": "p95"}


def tap(ok, name):
    N[0] += 1
    print("%s %d - %s" % ("ok" if ok else "not ok", N[0], name))


def drawn_ys(fig):
    """Every y value a Line2D or a collection of fig draws."""
    from matplotlib.collections import Collection
    from matplotlib.lines import Line2D
    ys = []
    for ax in fig.axes:
        for a in ax.get_children():
            if isinstance(a, Line2D):
                ys.extend(float(y) for y in a.get_ydata() if y is not None)
            elif isinstance(a, Collection):
                offs = a.get_offsets()
                ys.extend(float(p[1]) for p in offs)
                for path in getattr(a, "get_paths", lambda: [])():
                    ys.extend(float(v[1]) for v in path.vertices)
    return [y for y in ys if not math.isnan(y)]


def missing_points(ys, dats, col):
    """The (file, series, x, value) of rows whose value of column col is
    none of the drawn y values ys."""
    out = []
    for name, dat in dats:
        floor = dat["meta"].get("zero_floor")
        floor = float(floor) if floor else None
        for r in dat["rows"]:
            m = r.get(col)
            if m is None or math.isnan(m) or math.isinf(m):
                continue
            want = floor if floor is not None and m < floor else m
            if not any(abs(y - want) <= 1e-9 * max(1.0, abs(want)) for y in ys):
                out.append((name, r["series"], r.get("x"), m))
    return out


def text_boxes(fig):
    """[(what, Bbox)] of every visible, non-empty text and legend of fig."""
    r = fig.canvas.get_renderer()
    out = []
    texts = list(fig.texts) + ([fig._suptitle] if fig._suptitle else [])
    for ax in fig.axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label,
                  ax.yaxis.label] + list(ax.texts)
        leg = ax.get_legend()
        if leg is not None and leg.get_visible():
            out.append(("legend of %s" % ax.get_title(), leg.get_window_extent(r)))
    for t in dict.fromkeys(texts):
        if t.get_visible() and t.get_text().strip():
            out.append((t.get_text()[:40].replace("\n", " "), t.get_window_extent(r)))
    return out


def overlaps(fig):
    fig.canvas.draw()
    boxes = text_boxes(fig)
    bad = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            a, b = boxes[i][1], boxes[j][1]
            if a.overlaps(b) and a.intersection(a, b).width > 1 and \
               a.intersection(a, b).height > 1:
                bad.append("%r / %r" % (boxes[i][0], boxes[j][0]))
    return bad


def check_set(d):
    import figdata
    import mpl_figures
    rows = figdata.read_index(os.path.join(d, "figdata", "figures.tsv"))
    files = {}
    for fid, status, what in rows:
        if status == "ok" and fid in mpl_figures.DRAW:
            files.setdefault(fid, []).extend(what.split())
    for fid, names in files.items():
        paths = [os.path.join(d, "figdata", n) for n in names]
        fig = mpl_figures.DRAW[fid](paths)
        dats = [(n, figdata.read_dat(p)) for n, p in zip(names, paths)]
        miss = missing_points(drawn_ys(fig), dats, DRAWN.get(fid, "median"))
        tap(not miss, "%s %s: every point drawn (%d missing%s)"
            % (os.path.basename(d), fid, len(miss), ": %s" % (miss[:3],) if miss else ""))
        bad = overlaps(fig)
        tap(not bad, "%s %s: no two text boxes overlap%s"
            % (os.path.basename(d), fid, " (%s)" % "; ".join(bad[:3]) if bad else ""))
        mpl_figures.plt.close(fig)


def check_overlay():
    import compare_overlay
    plt = compare_overlay.plt
    for trend, xs in ((True, (1, 2, 4, 8)), (False, (1, 2))):
        rows = [{"figure": "dice-fig3", "figure_id": "dice-fig3", "counter": "CAS",
                 "threads": x, "median_a": 100.0 * x, "median_b": 50.0 * x,
                 "measure": "ops/ms", "significant": "yes" if x == 2 else "no"} for x in xs]
        fig, ax = plt.subplots()
        compare_overlay.panel(ax, "dice-fig3", rows)
        rings = [ln for ln in ax.lines if ln.get_markeredgecolor() == compare_overlay.FLAG]
        opens = [ln for ln in ax.lines if ln.get_markerfacecolor() == "none"
                 and ln not in rings and 100.0 in list(ln.get_ydata())]
        ok = len(rings) == 1 and len(opens) == 1
        if ok:
            ring, b = rings[0], opens[0]
            ok = (ring.get_zorder() < b.get_zorder() and ring.get_markersize()
                  >= 2 * b.get_markersize() + 2 * b.get_markeredgewidth())
        tap(ok, "overlay (%s): the ring lies under B's open marker and is twice its size"
            % ("lines" if trend else "points"))
        plt.close(fig)


SVG_TEXT = re.compile(r'<g transform="translate\(([-0-9.]+),([-0-9.]+)\)( rotate\([-0-9.]+\))?"'
                      r'[^>]*font-size="([0-9.]+)"[^>]*text-anchor="(\w+)">\s*<text>(.*?)</text>')


def svg_boxes(path):
    """[(text, (x0, y0, x1, y1))] of the texts of gnuplot's SVG file."""
    with open(path, encoding="utf-8") as f:
        svg = f.read()
    out = []
    for m in SVG_TEXT.finditer(svg):
        x, y, rot, size, anchor = float(m[1]), float(m[2]), m[3], float(m[4]), m[5]
        text = html.unescape(re.sub(r"<[^>]*>", "", m[6]))
        if len(text) < 6:
            continue
        w, h = 0.55 * size * len(text), size
        x0 = {"start": 0, "middle": -w / 2, "end": -w}.get(anchor, 0)
        # the text's corners about its anchor, turned as the SVG turns them
        t = math.radians(float(rot[8:-1])) if rot else 0.0
        c, s = math.cos(t), math.sin(t)
        out.append((text, [(x + u * c - v * s, y + u * s + v * c)
                           for u, v in ((x0, -0.8 * h), (x0 + w, -0.8 * h),
                                        (x0 + w, 0.2 * h), (x0, 0.2 * h))]))
    return out


def polygons_overlap(a, b):
    """Two convex polygons (their corners in order) overlap by more than a
    pixel: no edge direction of either separates them (separating axes)."""
    for poly in (a, b):
        for k in range(len(poly)):
            (x0, y0), (x1, y1) = poly[k], poly[(k + 1) % len(poly)]
            nx, ny = y0 - y1, x1 - x0
            norm = math.hypot(nx, ny) or 1.0
            pa = [(px * nx + py * ny) / norm for px, py in a]
            pb = [(px * nx + py * ny) / norm for px, py in b]
            if min(max(pa), max(pb)) - max(min(pa), min(pb)) <= 1:
                return False
    return True


def check_svg(path):
    boxes = svg_boxes(path)
    bad = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            (ta, a), (tb, b) = boxes[i], boxes[j]
            if polygons_overlap(a, b):
                bad.append("%r / %r" % (ta[:40], tb[:40]))
    tap(boxes and not bad, "gnuplot %s: no two of its %d text boxes overlap%s"
        % (os.path.basename(path), len(boxes), " (%s)" % "; ".join(bad[:3]) if bad else ""))


def table_ys(path):
    """The y of every point of gnuplot table file path that it marks in
    range: each curve's block is headed '# x y ... type', its last column
    the type (i in range, o out of range, u undefined)."""
    ys = []
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) >= 3 and not line.startswith("#") and w[-1] == "i":
                ys.append(float(w[1]))
    return ys


def check_tables(d, paths):
    import figdata
    files = {}
    for fid, status, what in figdata.read_index(os.path.join(d, "figdata", "figures.tsv")):
        if status == "ok":
            files.setdefault(fid, []).extend(what.split())
    for path in paths:
        fid = os.path.basename(path)[:-len(".tab")]
        names = files.get(fid)
        if not names:
            tap(False, "gnuplot table %s: a figure of %s" % (fid, os.path.basename(d)))
            continue
        dats = [(n, figdata.read_dat(os.path.join(d, "figdata", n))) for n in names]
        miss = missing_points(table_ys(path), dats, DRAWN.get(fid, "median"))
        tap(not miss, "gnuplot %s %s: every point drawn in range (%d missing%s)"
            % (os.path.basename(d), fid, len(miss), ": %s" % (miss[:3],) if miss else ""))


def main(argv):
    if len(argv) > 3 and argv[1] == "--table":
        check_tables(argv[2], argv[3:])
        print("1..%d" % N[0])
        return 0
    if len(argv) > 2 and argv[1] == "--svg":
        for path in argv[2:]:
            check_svg(path)
        print("1..%d" % N[0])
        return 0
    if len(argv) < 2:
        print("usage: figures_drawn.py SET...", file=sys.stderr)
        return 2
    for d in argv[1:]:
        check_set(d)
    check_overlay()
    print("1..%d" % N[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
