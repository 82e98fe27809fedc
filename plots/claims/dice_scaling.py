# SPDX-License-Identifier: MIT
"""Dice §5, §5.1, §5.2: the single counter's throughput as threads are added
(Figs. 3 and 4), and what the external-work setting means."""

import math

from claims.core import NM, Claim, f_n, f_rate, f_ratio
from claims.rules import (ABOUT, FEW_PERCENT, compare_medians, judge_points, on_figure,
                          one_thread_work_ratio, ratio_point, throughput_ratio_above)
from stats import hl_interval, seq_look_rate

# Variant groups of Dice §5 (canonical names, doc/design.md §3).
DICE_PROB = ["Morris", "MorrisAdapt", "BFP-DUP", "BFP-CSUP"]
DICE_SCALABLE = ["Multiline", "MultilineAdapt"] + DICE_PROB
DICE_UNSCALABLE_PRECISE = ["CAS", "RBO", "RBONuma", "RBONumaAdapt"]


def similar_up_to(tmax, factor):
    """Every pair of medians within factor of each other at every thread count <= tmax,
    decided by intervals (similar_point): the fastest median over the slowest is
    what the report shows."""
    @on_figure
    def rule(ctx, c, stats):
        pts, parts = [], []
        for t in sorted(set(x for pts_ in stats.values() for x in pts_)):
            if t > tmax:
                continue
            meds = {s: p[t] for s, p in stats.items() if t in p and not p[t]["oversub"]}
            if len(meds) < 2:
                continue
            base = {s: p["median"] for s, p in meds.items()}
            hi, lo = max(base, key=base.get), min(base, key=base.get)
            r = base[hi] / base[lo] if base[lo] > 0 else float("inf")
            good, frag = similar_point(meds, factor)
            parts.append("%d thr: %s/%s = %s" % (t, hi, lo, f_ratio(r)))
            pts.append(("%d thr" % t, r, good, frag, min(p["n"] for p in meds.values())))
        if not pts:
            return "", NM, "no thread count <= %d with two variants" % tmax
        v, reason, runs = judge_points(pts, "within %gx" % factor, "beyond %gx" % factor)
        return "fastest/slowest median: " + "; ".join(parts), v, reason, runs
    return rule


def similar_point(meds, factor):
    """(every pair within factor, why undecided or ""): the Mann-Whitney interval on
    the Hodges-Lehmann ratio of every pair of series (stats.hl_interval), each at the
    sequential rule's per-look rate shared among the k(k-1)/2 pairs (Bonferroni: the
    extreme pair is chosen from the data, so every pair is counted). Within: every
    interval inside [1/factor, factor]; beyond: some interval wholly outside it."""
    names = sorted(meds)
    m = len(names) * (len(names) - 1) // 2
    tail = seq_look_rate() / 2 / m
    beyond, unsure = [], []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            hl = hl_interval(meds[a]["values"], meds[b]["values"], tail)
            if hl is None:
                unsure.append("%s/%s (no interval on %d and %d runs at rate %.3g%%)" % (
                    a, b, len(meds[a]["values"]), len(meds[b]["values"]), 200 * tail))
                continue
            lo, hi = math.exp(hl[1]), math.exp(hl[2])
            if lo > factor or hi < 1 / factor:
                beyond.append((a, b))
            elif lo < 1 / factor or hi > factor:
                unsure.append("%s/%s %s-%s" % (a, b, f_ratio(lo), f_ratio(hi)))
    if beyond:
        return False, ""
    if unsure:
        return True, ("within the noise: the Mann-Whitney intervals on the Hodges-Lehmann "
                      "ratios of %d pairs (each at a false-verdict rate of %.3g%%, %.3g%% in "
                      "all) do not settle %gx: %s" % (m, 200 * tail, 100 * seq_look_rate(),
                                                      factor, "; ".join(unsure[:2])))
    return True, ""


def peak_between(series, lo, hi):
    """Each series peaks at lo..hi threads and falls after it, decided by intervals
    (ratio_point), not by where the largest median lies: the best median at lo..hi
    (the peak) against every count outside lo..hi, each at most the peak, and the
    largest count below it."""
    @on_figure
    def rule(ctx, c, stats):
        xs = ctx.xs(stats, series)
        if not xs or xs[-1] < c.threads:
            return ctx.context_at_max(stats, series, f_rate), NM, ctx.threads_reason(c, stats)
        parts, judged = [], []
        for s in series:
            if s not in stats:
                return "", NM, "%s was not measured" % s
            pts = {x: p for x, p in stats[s].items() if not p["oversub"]}
            inside = [x for x in pts if lo <= x <= hi]
            if not inside:
                return "", NM, "%s was not measured at %d-%d threads" % (s, lo, hi)
            peak = max(inside, key=lambda x: pts[x]["median"])
            last = max(pts)
            tests = [(x, "%d/%d thr" % (x, peak), lambda r: r <= 1.0)
                     for x in sorted(pts) if not lo <= x <= hi and x != last]
            tests.append((last, "%d/%d thr, the fall" % (last, peak), lambda r: r < 1.0))
            for x, where, ok in tests:
                r, good, frag = ratio_point(pts[x], pts[peak], ok)
                if getattr(frag, "near", False):
                    ctx.need_runs(c.figure, "", [s], x, min(pts[x]["n"], pts[peak]["n"]))
                judged.append(("%s %s" % (s, where), r, good, frag,
                               min(pts[x]["n"], pts[peak]["n"])))
            best = max(pts, key=lambda x: pts[x]["median"])
            parts.append("%s peaks at %d threads (%s), %s at %d"
                         % (s, best, f_rate(pts[best]["median"]), f_rate(pts[last]["median"]),
                            last))
        v, reason, n = judge_points(judged, "as described",
                                    "a count outside %d-%d above the peak, or no fall after it"
                                    % (lo, hi))
        return "; ".join(parts), v, reason, n
    return rule


def flat_after(series, knee, factor):
    """series' median at claim.threads within factor of its median at knee threads."""
    @on_figure
    def rule(ctx, c, stats):
        pa, why = ctx.point(c, stats, series, c.threads)
        pb, why2 = ctx.point(c, stats, series, knee)
        if pa is None or pb is None:
            return ctx.context_at_max(stats, [series], f_rate), NM, why or why2
        r, good, frag = ratio_point(pa, pb, lambda x: 1 / factor <= x <= factor)
        v, reason, n = judge_points([("%d/%d thr" % (c.threads, knee), r, good, frag,
                                      min(pa["n"], pb["n"]))],
                                    "within %gx" % factor, "beyond %gx" % factor)
        return ("%s: %s at %d threads over %d" % (series, f_ratio(r), c.threads, knee), v,
                reason, n)
    return rule


def orders_of_magnitude(k):
    """k orders of magnitude in the usual reading: 10^k <= ratio < 10^(k+1)."""
    return lambda r: (10 ** k <= r < 10 ** (k + 1),
                      "%s is in %s-%sx (log10 %.2f)" % (f_ratio(r), f_n(10 ** k),
                                                        f_n(10 ** (k + 1) - 1), math.log10(r)),
                      "%s is outside %s-%sx (log10 %.2f)" % (f_ratio(r), f_n(10 ** k),
                                                             f_n(10 ** (k + 1) - 1),
                                                             math.log10(r)))


def between(lo, hi, yes, no):
    return lambda r: (lo <= r <= hi, yes, no)


CLAIMS = [
    Claim("dice-fig3-similar-to-8", "Dice §5.1",
          "With 99.02%% external work all counters perform similarly up to 8 threads "
          "(verdict: every pair's interval on its ratio within %gx either way at every count "
          "<= 8, the intervals' rate shared among the pairs; the paper "
          "counts a counter a few percent \"slightly\" slower among those that perform "
          "similarly)" % FEW_PERCENT,
          "dice-fig3", similar_up_to(8, FEW_PERCENT), threads=8, threads_upto=True),
    Claim("dice-rbonuma-20x-rbo", "Dice §5.1",
          "At 256 threads (99%% work) RBONuma and RBONumaAdapt give about 20x the "
          "throughput of RBO (verdict: \"about\" within a factor %g either side: every "
          "ratio in %g-%gx)" % (ABOUT, 20 / ABOUT, 20 * ABOUT),
          "dice-fig4-low", compare_medians([(s, ["RBO"]) for s in ("RBONuma", "RBONumaAdapt")],
                                           lambda r: 20 / ABOUT <= r <= 20 * ABOUT,
                                           "every ratio in %g-%gx" % (20 / ABOUT, 20 * ABOUT),
                                           "a ratio outside %g-%gx" % (20 / ABOUT, 20 * ABOUT),
                                           at="claim"),
          threads=256, threads_at=True, nodes=2, nodes_why=" (node-aware counters)"),
    Claim("dice-scalable-3x-serial", "Dice §5.1",
          "At 256 threads (99% work) Multiline, MultilineAdapt, Morris, MorrisAdapt, "
          "BFP-DUP and BFP-CSUP each give at least 3x Serial's throughput",
          "dice-fig4-low", throughput_ratio_above(DICE_SCALABLE, ["Serial"], 3.0),
          threads=256, threads_at=True),
    Claim("dice-scalable-13x-precise", "Dice §5.1",
          "At 256 threads (99% work) those six give more than 13x the throughput of any "
          "other precise counter (CAS, RBO, RBONuma, RBONumaAdapt)",
          "dice-fig4-low",
          throughput_ratio_above(DICE_SCALABLE, DICE_UNSCALABLE_PRECISE, 13.0, den_max=True),
          threads=256, threads_at=True, variants=DICE_SCALABLE + DICE_UNSCALABLE_PRECISE),
    Claim("dice-scalable-260x-rbo", "Dice §5.1",
          "At 256 threads (99% work) those six give more than 260x RBO's throughput",
          "dice-fig4-low", throughput_ratio_above(DICE_SCALABLE, ["RBO"], 260.0),
          threads=256, threads_at=True, variants=DICE_SCALABLE + ["RBO"]),
    Claim("dice-multiline-slight-edge", "Dice §5.1",
          "At 256 threads (99%% work), amongst the good performers, the precise Multiline and "
          "MultilineAdapt have a slight edge in throughput over the probabilistic ones "
          "(verdict: \"slightly\": each above the fastest of Morris, MorrisAdapt, BFP-DUP "
          "and BFP-CSUP, by at most %gx)" % FEW_PERCENT,
          "dice-fig4-low",
          compare_medians([(s, DICE_PROB) for s in ("Multiline", "MultilineAdapt")],
                          lambda r: 1.0 < r <= FEW_PERCENT,
                          "a slight edge (above, by at most %gx)" % FEW_PERCENT,
                          "not a slight edge", at="claim", den_best=True),
          threads=256, threads_at=True),
    Claim("dice-serial-100x-at-0pct", "Dice §5.2",
          "With no external work Serial's single-thread throughput is two orders of "
          "magnitude above its 99%-work throughput (verdict: ratio in 100-999x)",
          "dice-fig4-low, dice-fig4-high", one_thread_work_ratio("Serial", orders_of_magnitude(2)),
          threads=1, threads_at=True),
    Claim("dice-work-99pct-is-1pct", "Dice §5",
          "99% external work means a single-thread CAS run reaches 1/100 of its "
          "no-work throughput (the workload's definition; verdict: ratio in 50-200)",
          "dice-fig4-low, dice-fig4-high",
          one_thread_work_ratio("CAS", between(50, 200, "the calibration works",
                                               "the calibration is off")),
          threads=1, threads_at=True,
          by_construction="run-all.sh calibrates the external work so that one CAS thread "
                          "spends 99% of its time in it"),
    Claim("dice-prob-33x-serial-high", "Dice §5.2",
          "At 256 threads and 0% external work Morris, MorrisAdapt, BFP-DUP and BFP-CSUP "
          "give over 33x Serial's throughput",
          "dice-fig4-high", throughput_ratio_above(DICE_PROB, ["Serial"], 33.0),
          threads=256, threads_at=True),
    Claim("dice-serial-flat-32", "Dice §5.2",
          "At 0% external work Serial fails to scale, flattening out at about 32 threads "
          "(verdict: its median at 256 threads within 1.5x of its median at 32)",
          "dice-fig4-high", flat_after("Serial", 32, 1.5), threads=256, threads_at=True),
    Claim("dice-multiline-peak-32", "Dice §5.2",
          "At 0% external work Multiline and MultilineAdapt peak around 32 threads and "
          "scale negatively beyond (verdict: no count outside 16-64 threads above the "
          "best median within them, and the largest count below it, each by an interval)",
          "dice-fig4-high", peak_between(["Multiline", "MultilineAdapt"], 16, 64),
          threads=64, threads_text="thread counts beyond 32 (at least {threads})"),
]
