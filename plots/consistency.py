# SPDX-License-Identifier: MIT
"""Checks across figures that the papers draw from one data set: Dice's Fig. 3
(99.02% external work) and Fig. 4 top (99%) differ by 2% of the work only, so
each point of one should lie within the other's min-max band. The
result is a note of the report, not a claim of the papers. Standard library
only."""

# (figure a, its work %, figure b, its work %)
SAME_DATA = [("dice-fig3", 99.02, "dice-fig4-low", 99.0)]


def why_apart(wa, wb, levels):
    """Why two figures the paper draws from one data set may have bands apart
    here: their runs are separate invocations, at the pause counts of the
    set's one calibration per level (levels: resultset.calibration), or, in
    a set without one, each run calibrating its own."""
    m = dict((lv["work_pct"], lv["work_iters"]) for lv in levels or [])
    if wa in m and wb in m:
        return ("the paper draws both from one data set; here they are separate invocations "
                "at the set's one calibration of each level: %g%% as %.4g pauses, %g%% as "
                "%.4g" % (wa, m[wa], wb, m[wb]))
    return ("the paper draws both from one data set; here each figure's runs are separate "
            "invocations with their own --work calibration, which moves the pause count m "
            "by about 10% between invocations")


# The points whose bands are apart, one per line, in the result set's figdata/.
BANDS_FILE = "bands-apart.tsv"


def compared(stats, levels=None):
    """[(a, b, why, common, apart)] per pair of SAME_DATA with common points
    where both figures have 2 or more runs (with one, min is max: a band of
    one run says nothing); apart: (series, threads, a's min, max, b's min, max)."""
    out = []
    for a, wa, b, wb in SAME_DATA:
        why = why_apart(wa, wb, levels)
        sa, sb = stats.get((a, "")), stats.get((b, ""))
        if not sa or not sb:
            continue
        common, apart = 0, []
        for series in sa:
            for x in sorted(sa[series]):
                pa, pb = sa[series][x], (sb.get(series) or {}).get(x)
                if pb is None or pa.get("n", 0) < 2 or pb.get("n", 0) < 2:
                    continue
                common += 1
                if pa["max"] < pb["min"] or pb["max"] < pa["min"]:
                    apart.append((series, x, pa["min"], pa["max"], pb["min"], pb["max"]))
        if common:
            out.append((a, b, why, common, apart))
    return out


def band_notes(stats, levels=None):
    """One line per pair of SAME_DATA: at how many common points (2 or more
    runs each) the min-max bands overlap; the points apart are counted here
    and listed in figdata/BANDS_FILE (band_table). stats: Figures.stats;
    levels: the set's calibration (why_apart)."""
    out = []
    for a, b, why, common, apart in compared(stats, levels):
        text = ("%s and %s: the min-max bands overlap at %d of %d common points with 2 or "
                "more runs each" % (a, b, common - len(apart), common))
        if apart:
            text += "; the %d apart are listed in figdata/%s (%s)" % (len(apart), BANDS_FILE, why)
        out.append(text)
    return out


def band_table(stats):
    """The text of figdata/BANDS_FILE: a header and one line per point apart;
    None when no point is."""
    rows = ["%s\t%s\t%s\t%g\t%.0f\t%.0f\t%.0f\t%.0f\n" % ((a, b) + r)
            for a, b, _, _, apart in compared(stats) for r in apart]
    if not rows:
        return None
    return "".join(["# figure a\tfigure b\tseries\tthreads\ta min\ta max\tb min\tb max "
                    "(ops/ms): points whose min-max bands are apart; written by "
                    "plots/aggregate.py\n"] + rows)
