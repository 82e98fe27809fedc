# SPDX-License-Identifier: MIT
"""What the runs' end states (the end_state column, results/README.md) say about
the points of a figure: which mode each run of an adaptive variant ended in,
the points whose runs ended in different modes (a bimodal min-max band), and
the sentences of the report's reading. Used by plots/figbuild.py. Standard
library only."""

from resultset import NOT_RECORDED, end_mode


def end_modes(stats, x_text):
    """What the runs' end states say about the points of a figure (results/README.md,
    end_state): (recorded, [(series, x, {mode: runs})] of every point of a series
    with modes, [(series, x text, {mode: runs})] of the points whose runs ended in
    different modes)."""
    recorded, points, mixed = True, [], []
    for s, pts in stats.items():
        for x in sorted(pts):
            counts = {}
            for r in pts[x].get("rows", []):
                m = end_mode(r)
                if m == NOT_RECORDED:
                    recorded = False
                elif m:
                    counts[m] = counts.get(m, 0) + 1
            if counts:
                points.append((s, x, counts))
                if len(counts) > 1:
                    mixed.append((s, x_text(x), counts))
    return recorded, points, mixed


def modes_text(counts):
    return ", ".join("%s %d" % (m, k) for m, k in sorted(counts.items()))


# The variants whose end_state has a `mode` (results/README.md).
ADAPTIVE = ("RBONumaAdapt", "MultilineAdapt", "MorrisAdapt", "Striped", "ScalableCAS")
# The mode each adaptive variant starts in (results/README.md, "End states"): a run
# that ended in it never switched.
INITIAL_MODE = {"RBONumaAdapt": "plain", "MultilineAdapt": "word", "MorrisAdapt": "exact",
                "Striped": "base", "ScalableCAS": "cas"}


def never_switched(point, variant):
    """True when every run of an adaptive variant's point ended in its initial mode
    (its end states recorded); False otherwise, or when they were not recorded."""
    first = INITIAL_MODE.get(variant)
    modes = [end_mode(r) for r in point.get("rows", [])]
    return bool(first and modes) and all(m == first for m in modes)


def end_state_reading(series, recorded, points, mixed, x_text):
    """The sentences of the report's reading of a figure on its runs' end states."""
    if not recorded:
        adaptive = [s for s in series if s.split("[")[0] in ADAPTIVE]
        if not adaptive:
            return None
        return ("not recorded (the CSV predates the end_state column, schema 3), so a wide "
                "min-max band of %s cannot be told from a switch of mode in some of its runs"
                % "/".join(adaptive))
    if not points:
        return None
    out = []
    if mixed:
        out.append("bimodal points: " + "; ".join(
            "%s at %s: its %d runs ended in different modes (%s), so its min-max band spans "
            "two regimes, not noise" % (s, xt, sum(c.values()), modes_text(c))
            for s, xt, c in mixed))
    by = {}
    for s, x, c in points:
        if len(c) == 1:
            by.setdefault(s, []).append("%s at %s" % (list(c)[0], x_text(x)))
    if by:
        out.append("runs that all ended in one mode: " + "; ".join(
            "%s %s" % (s, ", ".join(v)) for s, v in by.items()))
    return ". ".join(out)
