# SPDX-License-Identifier: MIT
"""Checks across figures that the papers draw from one data set: Dice's Fig. 3
(99.02% external work) and Fig. 4 top (99%) differ by 2% of the work only, so
each point of one should lie within the other's min-max band (issue 12). The
result is a note of the report, not a claim of the papers. Standard library
only."""

SAME_DATA = [("dice-fig3", "dice-fig4-low",
              "the paper draws both from one data set; here each figure's runs are separate "
              "invocations with their own --work calibration, which moves the pause count m "
              "by about 10% between invocations")]


def band_notes(stats):
    """Notes on each pair of SAME_DATA: how many common points have overlapping
    min-max bands, and which do not. stats: Figures.stats."""
    out = []
    for a, b, why in SAME_DATA:
        sa, sb = stats.get((a, "")), stats.get((b, ""))
        if not sa or not sb:
            continue
        common, apart = 0, []
        for series in sa:
            for x in sorted(sa[series]):
                pa, pb = sa[series][x], (sb.get(series) or {}).get(x)
                if pb is None:
                    continue
                common += 1
                if pa["max"] < pb["min"] or pb["max"] < pa["min"]:
                    apart.append("%s at %g thr (%s: %.0f-%.0f, %s: %.0f-%.0f ops/ms)"
                                 % (series, x, a, pa["min"], pa["max"], b, pb["min"], pb["max"]))
        if not common:
            continue
        text = ("%s and %s: the min-max bands overlap at %d of %d common points"
                % (a, b, common - len(apart), common))
        if apart:
            text += "; apart at %s (%s)" % ("; ".join(apart), why)
        out.append(text)
    return out
