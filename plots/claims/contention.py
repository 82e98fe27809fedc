# SPDX-License-Identifier: MIT
"""Dice §1, §2.2, §3, §5.1, §5.3, §5.4 and Ayers's design note: what contention does
to the counters, the claims the earlier rounds left out, each with the
paper's words paraphrased, its rule and, where its measurement could be blind, what
the opposite outcome would look like here (claims/opposite.py)."""

from claims.core import FEW_PERCENT, NM, REGIME, Claim, f_pct, f_ratio, no_test
from claims.dice_error import at_paper_count, fig6_rule
from claims.dice_more import scaling_rule
from claims.dice_scaling import DICE_PROB
from claims.opposite import uncontended
from claims.rules import compare_medians, judge_points, never_switched_among, ratio_point

SIMILAR = (lambda r: 1 / FEW_PERCENT <= r <= FEW_PERCENT)
FIG3_SIMILAR = ["Multiline", "MultilineAdapt", "Morris", "MorrisAdapt", "BFP-DUP", "BFP-CSUP"]


def serial_error_worse_with_contention(ctx, c):
    """Serial's median |error| with no external work (more contention) above its
    median at 99% work, at every thread count from 2 measured in both."""
    hi, lo = ctx.st("dice-fig6-high"), ctx.st("dice-fig6-low")
    if not hi or not lo:
        return "", NM, ctx.missing("dice-fig6-high" if not hi else "dice-fig6-low")
    if "Serial" not in hi or "Serial" not in lo:
        return "", NM, "Serial was not measured"
    pts, shown = [], []
    for x in sorted(set(hi["Serial"]) & set(lo["Serial"])):
        if x < 2 or hi["Serial"][x]["oversub"]:
            continue
        r, good, frag = ratio_point(hi["Serial"][x], lo["Serial"][x], lambda v: v > 1.0)
        if getattr(frag, "near", False):
            for fid in ("dice-fig6-high", "dice-fig6-low"):
                ctx.need_runs(fid, "", ["Serial"], x, min(hi["Serial"][x]["n"],
                                                          lo["Serial"][x]["n"]))
        pts.append(("%d thr" % x, r, good, frag, min(hi["Serial"][x]["n"],
                                                    lo["Serial"][x]["n"])))
        shown.append("%s (0%% work) / %s (99%%) = %s at %d thr" % (
            f_pct(hi["Serial"][x]["median"]), f_pct(lo["Serial"][x]["median"]), f_ratio(r), x))
    if not pts:
        return "", NM, ctx.threads_reason(c, hi)
    v, reason, runs = judge_points(pts, "more lost with more contention at every count",
                                   "not more lost with more contention")
    return "Serial median |error|: " + "; ".join(shown), v, reason, runs


def serial_loses_significant(ctx, c):
    """Serial's median |error| at 99% external work above 1 - 1/FEW_PERCENT (a
    significant fraction of the updates) at every thread count from 2."""
    lo = ctx.st("dice-fig6-low")
    if not lo or "Serial" not in lo:
        return "", NM, ctx.missing("dice-fig6-low") if not lo else "Serial was not measured"
    line = 100.0 * (1.0 - 1.0 / FEW_PERCENT)
    xs = [x for x in sorted(lo["Serial"]) if x >= 2 and not lo["Serial"][x]["oversub"]]
    if not xs:
        return "", NM, ctx.threads_reason(c, lo)
    pts = [("%d thr" % x, lo["Serial"][x]["median"], lo["Serial"][x]["median"] > line,
            False, lo["Serial"][x]["n"]) for x in xs]
    v, reason, runs = judge_points(pts, "above %.3g%% at every count" % line,
                                   "not above %.3g%%" % line, unit=f_pct)
    return ("Serial median |error| at 99%% work: %s" % "; ".join(
        "%s at %d thr" % (f_pct(lo["Serial"][x]["median"]), x) for x in xs), v, reason, runs)


def csup_lower_max_error(ctx, have, rows):
    """BFP-CSUP's worst |error| over the runs below each other probabilistic
    counter's worst."""
    worst = {}
    for r in rows:
        if r["counter"] in DICE_PROB:
            worst[r["counter"]] = max(worst.get(r["counter"], 0.0), abs(r["rel_error"]))
    if "BFP-CSUP" not in worst or len(worst) < 2:
        return "", NM, "BFP-CSUP and another probabilistic counter were not both measured"
    others = sorted((s for s in worst if s != "BFP-CSUP"), key=lambda s: worst[s])
    meas = "worst |error|: BFP-CSUP %s; %s" % (f_pct(100 * worst["BFP-CSUP"]), ", ".join(
        "%s %s" % (s, f_pct(100 * worst[s])) for s in others))
    ok = all(worst["BFP-CSUP"] < worst[s] for s in others)
    n = min(sum(1 for r in rows if r["counter"] == s) for s in worst)
    return (meas, "holds" if ok else "does not hold",
            "below every other's" if ok else "not below %s's" % others[0], n)


def line_contended(control="CAS", fid="hot-line", panel=""):
    """The opposite of a claim that a counter escapes the cost of a contended line
    (false sharing, interlocked updates) shows in fid only if a counter that writes
    the line at every increment (control) loses more than a slight share of linear
    there; where it does not, the line was not contended (the regime)."""
    def check(ctx, c):
        st = (ctx.st(fid, panel) or {}).get(control)
        if not st or 1 not in st:
            return None
        ok = [t for t in st if t >= 2 and st[t]["median"] >= t * st[1]["median"] / FEW_PERCENT]
        if not ok:
            return None
        t = ok[0]
        return no_test(REGIME, "%s, which writes the line at every increment, keeps %s of "
                       "linear at %d thr: the line was not contended, so the cost the "
                       "claim says is avoided could not show"
                       % (control, f_ratio(st[t]["median"] / (t * st[1]["median"])), t))
    return check


def same_fact(other):
    """A claim whose measurement is another claim's: counted there, once."""
    return lambda ctx, c: no_test(REGIME, "its measurement is that of %s (the same runs "
                                  "and the same line): one measured fact, counted there"
                                  % other)


CLAIMS = [
    Claim("dice-loss-worse-with-contention", "Dice §1",
          "The lost updates of an unsynchronized counter become worse as contention "
          "increases (verdict: Serial's median |error| with no external work above its "
          "median at 99% work, at every thread count from 2)",
          "dice-fig6-high, dice-fig6-low", serial_error_worse_with_contention, threads=2,
          threads_why=" (one thread cannot race)"),
    Claim("dice-loss-moderate-contention", "Dice §3",
          "Unsynchronized counters lose significant fractions of their updates even at "
          "moderate levels of contention (verdict: \"significantly\": Serial's median "
          "|error| at 99%% work above %.3g%%, the share a %gx gap loses, at every thread "
          "count from 2, where the counter is contended)"
          % (100 * (1 - 1 / FEW_PERCENT), FEW_PERCENT), "dice-fig6-low",
          serial_loses_significant, threads=2, threads_why=" (one thread cannot race)",
          opposite=uncontended("CAS", "dice-fig4-low", "the counter at 99% work"),
          data=["dice-fig4-low.csv"],
          variants=["Serial", "CAS"]),
    Claim("dice-serial-slightly-lower-fig3", "Dice §5.1",
          "In Fig. 3 Serial gives slightly lower throughput than the other counters that "
          "perform similarly (verdict: \"slightly\": the fastest of Multiline, "
          "MultilineAdapt, Morris, MorrisAdapt, BFP-DUP and BFP-CSUP above Serial, by at "
          "most %gx, at every thread count)" % FEW_PERCENT, "dice-fig3",
          compare_medians([(s, ["Serial"]) for s in FIG3_SIMILAR],
                          lambda r: 1.0 < r <= FEW_PERCENT,
                          "each above Serial, by at most %gx" % FEW_PERCENT,
                          "not slightly above Serial"),
          threads=256, threads_upto=True, threads_text="Fig. 3's thread counts, 1-{threads}"),
    Claim("dice-multiline-adapt-same-single", "Dice §5.3",
          "In the single-counter experiment with no external work Multiline and "
          "MultilineAdapt perform about the same (verdict: \"similar\": within %gx either "
          "way at every thread count)" % FEW_PERCENT, "dice-fig4-high",
          compare_medians([("Multiline", ["MultilineAdapt"])], SIMILAR,
                          "within %gx everywhere" % FEW_PERCENT, "not within %gx" % FEW_PERCENT),
          threads=256, threads_upto=True),
    Claim("dice-morris-no-false-sharing", "Dice §5.3",
          "Morris avoids the pitfalls of false sharing by updating its counters ever more "
          "rarely (verdict: 8 hot counters in one cache line, no external work: Morris's "
          "median at t >= 2 threads at least %.3gx of linear, where a counter writing its "
          "line at every increment loses more)" % (1 / FEW_PERCENT), "hot-line",
          scaling_rule(["Morris"], at_least=1 / FEW_PERCENT),
          opposite=line_contended(), variants=["Morris", "CAS"]),
    Claim("dice-csup-lower-max-error", "Dice §5.4",
          "BFP-CSUP's approach of not raising its exponent unnecessarily reduces the "
          "maximum error in practice (verdict: its worst |error| over the Fig. 6 runs below "
          "each of Morris's, MorrisAdapt's and BFP-DUP's)", "dice-fig6-low, dice-fig6-high",
          fig6_rule(at_paper_count(csup_lower_max_error)), variants=DICE_PROB),
    Claim("dice-multilineadapt-slower-fine-contended", "Dice §2.2",
          "MultilineAdapt's indirection slows an increment, but not a problem when the "
          "counter is contended (verdict: no external work, from 2 threads, where it "
          "inflated: its median at least %.3gx Multiline's, a loss of at most a slight "
          "share)" % (1 / FEW_PERCENT), "dice-fig4-high",
          compare_medians([("MultilineAdapt", ["Multiline"])], lambda r: r >= 1 / FEW_PERCENT,
                          "at least %.3gx everywhere" % (1 / FEW_PERCENT),
                          "below %.3gx" % (1 / FEW_PERCENT),
                          xsel=lambda ctx, c, st, x, series: x >= 2,
                          exclude=[never_switched_among(["MultilineAdapt"])]),
          threads=2, threads_why=" (contention)"),
    Claim("ayers-interlocked-scales-when-rare", "Ayers, Introduction",
          "As the total number of updates is limited, Scalable can update with interlocked "
          "operations without unduly harming scalability (verdict: no external work, "
          "Scalable's median at t >= 2 threads at least %.3gx of linear, where FetchAdd, "
          "interlocked at every increment, loses more)" % (1 / FEW_PERCENT), "baselines",
          scaling_rule(["Scalable"], at_least=1 / FEW_PERCENT, panel="-w0"),
          opposite=line_contended("FetchAdd", "baselines", "-w0"),
          variants=["Scalable", "FetchAdd"]),
    Claim("ayers-good-scaling", "Ayers, Summary",
          "The technique gives approximately correct counters with relatively low overhead "
          "and good scaling properties (verdict: the scaling half, the same rule as the "
          "previous claim)", "baselines",
          scaling_rule(["Scalable"], at_least=1 / FEW_PERCENT, panel="-w0"),
          opposite=same_fact("the claim before it"), variants=["Scalable"]),
]
