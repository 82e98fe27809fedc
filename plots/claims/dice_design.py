# SPDX-License-Identifier: MIT
"""Dice abstract, §2.1, §3.2, §4.2, §4.3, §5.1, §5.3, §5.5: what the design of each
counter promises (cost at low contention, exactness, accuracy, the cost of a read),
measured on the figures of §5 and on read-cost."""

from claims.core import (ABOUT, CONDITION, FAILS, NM, PLAN, Claim, f_n, f_pct, f_ratio,
                         not_measurable)
from claims.dice_error import paper_regime
from claims.opposite import timer_hides, work_hides
from claims.dice_scaling import DICE_PROB, DICE_SCALABLE
from claims.rules import (FEW_PERCENT, compare_medians, counts_at_most, judge_points,
                          never_switched_among, ratio_point, verdict)
from stats import percentile

LOW = ["dice-fig3", "dice-fig4-low"]
# Morris's "low projected value" (Dice §3.2): at most 10a (a = 5000), where it still
# updates on about one increment in 11 or more, as often as a CAS counter writes.
MORRIS_LOW_COUNT = 50000
BOTH = ["dice-fig4-low", "dice-fig4-high"]
# "Slightly" on the paper's own scale (claims.rules.FEW_PERCENT): a gain of a few percent.
SLIGHT = FEW_PERCENT
FIG6_SOURCES = ("dice-fig4-low.csv", "dice-fig4-high.csv")


def exact_below_mantissa_threshold(variant, threshold):
    """Every count-mode run of variant with a true count <= threshold is exact."""
    def rule(ctx, c):
        rows = [r for name in ("ayers.csv", "ayers-tunable.csv") + FIG6_SOURCES
                for r in ctx.rs.rows(name, "count") if r["counter"] == variant]
        timed = [r for name in FIG6_SOURCES for r in ctx.rs.rows(name, "timed")
                 if r["counter"] == variant and r.get("ops")]
        small = [r for r in rows + timed if r["ops"] <= threshold]
        if not small:
            least = min([r["ops"] for r in rows + timed] or [0])
            return ("", NM, not_measurable(PLAN, "no %s run counted to %s or less (the "
                                           "smallest true count of a %s run here: %s); "
                                           "scbench --ops with a count-to-N run would test it"
                                           % (variant, f_n(threshold), variant,
                                              f_n(least) if least else "none")))
        bad = [r for r in small if r["value"] != r["ops"]]
        return (("%d runs with N <= %s: %d inexact" % (len(small), f_n(threshold), len(bad)),)
                + verdict(not bad, "all exact", "a run inexact") + (len(small),))
    return rule


def error_median_below(a, b, keep_exact=False):
    """a's median |relative error| over the Fig. 6 runs below b's (one run may not
    decide), over the points (figure, thread count) both have; without keep_exact
    only where neither was exact in every run (a variant exact by construction
    there is then not what the claim compares)."""
    def rule(ctx, c):
        runs, left = {a: [], b: []}, []
        for fid in ("dice-fig6-low", "dice-fig6-high"):
            st = ctx.st(fid)
            if not st or a not in st or b not in st:
                continue
            for x in sorted(set(st[a]) & set(st[b])):
                exact = [s for s in (a, b) if st[s][x]["max"] == 0 and not keep_exact]
                if exact:
                    left.append("%s at %d thr (%s): exact in every run" % (
                        "/".join(exact), x, fid.split("-")[-1]))
                    continue
                for s in (a, b):
                    runs[s] += st[s][x]["values"]
        left_text = "; left out: %s" % "; ".join(left) if left else ""
        if not runs[a] or not runs[b]:
            return (left_text[2:], NM, not_measurable(
                CONDITION, "no point where both %s and %s have an inexact run" % (a, b))
                if left else "no %s or %s run with a relative error" % (a, b))
        for s in (a, b):
            runs[s].sort()
        pa, pb = [{"median": percentile(runs[s], 0.5), "values": runs[s]} for s in (a, b)]
        r, good, frag = ratio_point(pa, pb, lambda x: x < 1.0)
        meas = "median |relative error|: %s %s (%d runs), %s %s (%d runs)%s" % (
            a, f_pct(pa["median"]), len(runs[a]), b, f_pct(pb["median"]), len(runs[b]),
            left_text)
        v, reason, n = judge_points([("all runs", r, good, frag,
                                      min(len(runs[a]), len(runs[b])))],
                                    "%s's below %s's" % (a, b), "%s's not below" % a)
        return meas, v, reason, n
    return rule


def falls_beyond(series, tmin):
    """series' median at the largest thread count is below its best at counts >= tmin."""
    def rule(ctx, c):
        stats = ctx.st(c.figure)
        if not stats or series not in stats:
            return "", NM, ctx.missing(c.figure) if not stats else "%s not measured" % series
        pts = {x: p for x, p in stats[series].items() if x >= tmin and not p["oversub"]}
        if len(pts) < 2:
            return ctx.context_at_max(stats, [series], lambda v: "%.0f ops/ms" % v), NM, \
                ctx.threads_reason(c, stats)
        best = max(pts, key=lambda x: pts[x]["median"])
        last = max(pts)
        r, good, frag = ratio_point(pts[last], pts[best], lambda x: x < 1.0)
        if getattr(frag, "near", False):
            for x in (last, best):
                ctx.need_runs(c.figure, "", [series], x, min(pts[last]["n"], pts[best]["n"]))
        v, reason, n = judge_points([("%d thr" % last, r, good, frag,
                                      min(p["n"] for p in pts.values()))],
                                    "falls after its best", "no fall after its best")
        return ("%s: best at %d threads, %.3gx of it at %d" % (series, best, r, last), v,
                reason, n)
    return rule


def and_space_within(throughput, a, b, factor, figures):
    """The throughput rule and a's median bytes per counter (bytes_per_counter of
    the runs, a layout: no noise) at most factor times b's at every point of
    figures: a failure of either half fails the claim; else the throughput's verdict."""
    def rule(ctx, c):
        res = throughput(ctx, c)
        meas, v, reason = res[:3]
        worst = None
        for fid in figures:
            st = ctx.st(fid) or {}
            for x in sorted(set(st.get(a, {})) & set(st.get(b, {}))):
                ba, bb = [percentile(sorted(r["bytes_per_counter"] for r in st[s][x]["rows"]
                                            if r.get("bytes_per_counter")), 0.5)
                          for s in (a, b)]
                if ba is None or bb is None:
                    continue
                if worst is None or ba / bb > worst[0]:
                    worst = (ba / bb, ba, bb, x, fid)
        if worst is None:
            return meas, NM, "no bytes per counter of %s and %s recorded" % (a, b)
        meas = "%s; bytes per counter, the largest ratio: %s %.0f / %s %.0f = %s at %d thr (%s)" % (
            meas, a, worst[1], b, worst[2], f_ratio(worst[0]), worst[3], worst[4])
        if worst[0] > factor:
            return meas, FAILS, "space: %s's bytes per counter above %gx %s's" % (a, factor, b), \
                res[3] if len(res) > 3 else None
        if v == NM:
            return meas, v, reason
        return (meas, v, "%s; space: at most %gx %s's bytes per counter" % (reason, factor, b)) \
            + tuple(res[3:])
    return rule


def reads_not_recorded(ctx, c):
    return ("", NM, not_measurable(PLAN, "scbench records no sequence of reads of one "
                                   "counter, so a value that decreases between two reads "
                                   "cannot be seen in any result file"))


def prob_error_within(figure, bound_pct):
    """Every run of the probabilistic counters in figure's CSV within bound_pct %."""
    def rule(ctx, c):
        rows = ctx.timed_rows([ctx.figs.entry(figure).source], DICE_PROB)
        if not rows:
            return "", NM, ctx.missing(figure)
        rows, short = paper_regime(rows)
        w = max(rows, key=lambda r: r["rel_error"])
        meas = ("worst hot-counter |error| of %d runs: %s (%s, %d thr)"
                % (len(rows), f_pct(100 * w["rel_error"]), w["counter"], w["threads"]))
        if short:
            return meas, NM, short
        return ((meas,)
                + verdict(w["rel_error"] <= bound_pct / 100.0, "every run <= %g%%" % bound_pct,
                          "a run above %g%%" % bound_pct) + (len(rows),))
    return rule


# Dice §3.2: n(v) from the stored p(v) "is about 5 times faster than computing n(v)
# directly from v"; "about" within a factor ABOUT either side (claims/core.py).
DECODE_X = 5.0
DECODE_LO, DECODE_HI = DECODE_X / ABOUT, DECODE_X * ABOUT
DECODE_VARIANTS = ("Morris", "MorrisAdapt")


def decode_ratio(ctx, c):
    """decode_v_ns over decode_p_ns (scbench times both decodes of the same
    thresholds in every read-cost run of Morris and MorrisAdapt, after the phase:
    harness/run_decode.c): per variant, the ratio of the medians over its runs (all
    thread counts: the decode does not depend on them), each a point of the noise
    rule (ratio_point). Holds when every point is decided inside DECODE_LO..DECODE_HI,
    fails when one is decided outside; not measurable without the columns (schema 6
    and older: no decode was timed)."""
    rows = ([r for r in ctx.rs.rows("read-cost.csv", "timed") if r["counter"] in DECODE_VARIANTS]
            if ctx.rs is not None else [])
    if not rows:
        return "", NM, ctx.missing(c.figure)
    pts, parts = [], []
    for s in DECODE_VARIANTS:
        runs = [r for r in rows if r["counter"] == s and r.get("decode_p_ns")
                and r.get("decode_v_ns") is not None]
        if not runs:
            continue
        pv = sorted(float(r["decode_v_ns"]) for r in runs)
        pp = sorted(float(r["decode_p_ns"]) for r in runs)
        pa, pb = [{"median": percentile(v, 0.5), "values": v} for v in (pv, pp)]
        r, good, frag = ratio_point(pa, pb, lambda x: DECODE_LO <= x <= DECODE_HI)
        pts.append((s, r, good, frag, len(runs)))
        parts.append("%s: from v %.3g ns, from p(v) %.3g ns per decode, %s (%d runs)"
                     % (s, pa["median"], pb["median"], f_ratio(r), len(runs)))
    if not pts:
        return "", NM, not_measurable(
            PLAN, "read-cost.csv has no decode_p_ns and decode_v_ns (scbench times the "
            "decode from v in read-cost runs since schema version 7; this set's did not)")
    v, reason, n = judge_points(pts, "decided in %g-%gx" % (DECODE_LO, DECODE_HI),
                                "outside %g-%gx" % (DECODE_LO, DECODE_HI))
    return "; ".join(parts), v, reason, n


READ = dict(figures=["read-cost"], panel="-ns")
# What read-cost can say about GetVal: its read_ns is the median of gets sampled
# periodically (every ms before schema 2, about every 20 ms since) while the others
# increment, so a miss (the line was written since the last sample) or a hit dominates
# it more than the work of the read itself.
READ_NOTE = (" (verdict on read-cost's median ns per get, sampled periodically while the "
             "others increment: what a get costs depends on whether the lines it reads were "
             "written since the reader last read them)")
CLAIMS = [
    Claim("dice-competitive-low-contention", "Dice, abstract",
          "The new counters stay competitive with the naive ones when contention is low "
          "(verdict: with 99-99.02% external work each of Multiline, MultilineAdapt, Morris, "
          "MorrisAdapt, BFP-DUP and BFP-CSUP gets at least 0.8x the median throughput of the "
          "faster of Serial and CAS, at every thread count measured)",
          "dice-fig3, dice-fig4-low",
          compare_medians([(s, ["Serial", "CAS"]) for s in DICE_SCALABLE], lambda r: r >= 0.8,
                          "at least 0.8x everywhere", "below 0.8x", figures=LOW,
                          den_best=True),
          opposite=work_hides(0.8, LOW, DICE_SCALABLE + ["Serial", "CAS"]),
          data=["dice-fig4-high.csv"]),
    Claim("dice-serial-latency-vs-cas", "Dice §1",
          "Where a counter is modified by several threads, separate load and store "
          "instructions may slightly reduce an increment's latency compared with CAS, but do "
          "not avoid the dominant cost of the remote cache miss (verdict: no external work, "
          "at every count from 2 threads, where each increment finds the line written by "
          "another thread: Serial's median throughput above CAS's by at most \"slightly\"; "
          "at one thread there is no remote miss, and the one-thread gap is measured by the "
          "claim of Dice §5.2 on Serial's two orders of magnitude)", "dice-fig4-high",
          compare_medians([("Serial", ["CAS"])], lambda r: 1.0 < r <= SLIGHT,
                          "Serial faster, by at most %gx" % SLIGHT,
                          "not a slight gain (Serial/CAS outside 1-%gx)" % SLIGHT,
                          xsel=lambda ctx, c, st, x, series: x >= 2),
          threads=2, threads_why=" (a remote cache miss needs a second thread)",
          nodes=2, nodes_why=" (the paper's condition: the remote cache miss of a NUMA "
          "system, a line last written on another node)"),
    Claim("dice-rbonuma-low-contention-overhead", "Dice §2.1",
          "RBONuma imposes significant overhead in low-contention scenarios (verdict where "
          "an increment's own cost shows: one thread, no external work: RBONuma's median "
          "throughput below 0.9x RBO's; with 99% external work the work hides it)",
          "dice-fig4-high", compare_medians([("RBONuma", ["RBO"])], lambda r: r < 0.9,
                                            "below 0.9x", "not below 0.9x", at=1)),
    Claim("dice-rbonumaadapt-competitive", "Dice §2.1",
          "RBONumaAdapt is competitive with the better of RBO and RBONuma at every contention "
          "level (verdict: at least 0.8x the faster one's median at every thread count, "
          "99% and 0% external work)", "dice-fig4-low, dice-fig4-high",
          compare_medians([("RBONumaAdapt", ["RBO", "RBONuma"])], lambda r: r >= 0.8,
                          "at least 0.8x everywhere", "below 0.8x", figures=BOTH,
                          den_best=True),
          threads=256, threads_upto=True),
    Claim("dice-morris-slower-than-cas-low", "Dice §3.2",
          "When contention is low and the projected counter value is low, Morris is "
          "significantly slower than a CAS counter (the reason MorrisAdapt exists; verdict: "
          "one thread, counts of at most %s, Morris's median throughput below 0.9x CAS's at "
          "99%% and at 0%% external work)" % f_n(MORRIS_LOW_COUNT),
          "dice-fig4-low, dice-fig4-high",
          compare_medians([("Morris", ["CAS"])], lambda r: r < 0.9, "below 0.9x",
                          "not below 0.9x", figures=BOTH, at=1,
                          exclude=[counts_at_most(MORRIS_LOW_COUNT,
                                                  "the paper: when the projected value is low")],
                          none_left=(PLAN, "every run counted far above a low projected value; "
                                     "run-all.sh has no count-to-N run of Morris and CAS at "
                                     "low N, where the condition applies"))),
    Claim("dice-morris-decode-from-probability", "Dice §3.2",
          "Computing a Morris counter's value from the stored probability p(v) is about "
          "5 times faster than computing it from the exponent v (verdict: \"about\" within "
          "a factor %g either side: Morris's and MorrisAdapt's median ns per decode from v "
          "(pow) over from p(v) (the library's reading) in %g-%gx, each timed by scbench in "
          "the read-cost runs on thresholds spread over the range)"
          % (ABOUT, DECODE_LO, DECODE_HI), "read-cost", decode_ratio),
    Claim("dice-bfpdup-exact-to-threshold", "Dice §4.2",
          "BFP-DUP counts exactly until the count reaches MantissaThreshold (7,500 at a 1% "
          "bound)", "dice-fig6-low, dice-fig6-high",
          exact_below_mantissa_threshold("BFP-DUP", 7500)),
    Claim("dice-csup-speed-like-dup", "Dice §5.4",
          "BFP-CSUP's approach of not raising its exponent unnecessarily achieves similar "
          "performance to BFP-DUP's (verdict: \"similar\": median throughput within %gx of "
          "BFP-DUP's either way at every thread count, 99%% and 0%% external work)"
          % FEW_PERCENT, "dice-fig4-low, dice-fig4-high",
          compare_medians([("BFP-CSUP", ["BFP-DUP"])],
                          lambda r: 1 / FEW_PERCENT <= r <= FEW_PERCENT,
                          "within %gx everywhere" % FEW_PERCENT,
                          "not within %gx" % FEW_PERCENT, figures=BOTH),
          threads=256, threads_upto=True,
          design_note="with one thread there is no contention, so BFP-CSUP raises its exponent "
                      "only when its mantissa fills and keeps updating on nearly every "
                      "increment (nearly exact), while BFP-DUP raises it every "
                      "MantissaThreshold increments and updates ever more rarely; the paper "
                      "states no contention condition for \"similar performance\", so the "
                      "uncontended point is judged"),
    Claim("dice-csup-more-accurate", "Dice §4.3",
          "BFP-CSUP is more accurate than BFP-DUP in practice, over the paper's 1-256 thread "
          "range (verdict: its median |relative error| over the Fig. 6 runs at every thread "
          "count, exact runs included, is below BFP-DUP's; at least 10 runs each)",
          "dice-fig6-low, dice-fig6-high", error_median_below("BFP-CSUP", "BFP-DUP",
                                                              keep_exact=True),
          min_runs=10, threads=256, threads_upto=True),
    Claim("dice-rbo-negative-scalability", "Dice §5.1",
          "With 99.02% external work RBO scales negatively once contention arises beyond 8 "
          "threads (verdict: its median at the largest count is below its best at >= 8)",
          "dice-fig3", falls_beyond("RBO", 8), threads=16,
          threads_text="thread counts beyond 8 (at least {threads})"),
    Claim("dice-serial-goes-backwards", "Dice §5.1",
          "A Serial counter regularly goes backwards: a later read returns less than an "
          "earlier one", "dice-fig4-high", reads_not_recorded),
    Claim("dice-array-error-low", "Dice §5.3",
          "In the 7500-counter array the probabilistic counters keep a low relative error "
          "on the hot counter (verdict: every run within 3%, the bound of §5.4)",
          "dice-fig5", prob_error_within("dice-fig5", 3.0), variants=DICE_PROB),
    Claim("dice-getval-morris-float", "Dice §5.5",
          "Morris's and MorrisAdapt's GetVal entail several floating-point operations that "
          "add noticeable overhead if executed often, where BFP-based counters may be "
          "preferable (verdict: \"noticeable\" on the \"significantly\" scale: Morris's and "
          "MorrisAdapt's median read cost above %gx BFP-DUP's and BFP-CSUP's)" % FEW_PERCENT
          + READ_NOTE, "read-cost",
          compare_medians([(a, [b]) for a in ("Morris", "MorrisAdapt")
                           for b in ("BFP-DUP", "BFP-CSUP")], lambda r: r > FEW_PERCENT,
                          "above %gx" % FEW_PERCENT, "not above %gx" % FEW_PERCENT, **READ),
          opposite=timer_hides([(a, b) for a in ("Morris", "MorrisAdapt")
                                for b in ("BFP-DUP", "BFP-CSUP")], FEW_PERCENT)),
    Claim("dice-getval-multiline-lines", "Dice §5.5",
          "Multiline's GetVal reads several cache lines, one per node (verdict: its median "
          "read cost above CAS's single line)" + READ_NOTE, "read-cost",
          compare_medians([("Multiline", ["CAS"])], lambda r: r > 1.0, "above", "not above",
                          **READ),
          nodes=2, nodes_why=" (one component line per node)"),
    Claim("dice-getval-multilineadapt-serial-misses", "Dice §5.5",
          "An inflated MultilineAdapt's GetVal takes at least two cache misses in series "
          "(pointer, then lines) (verdict: its median read cost above CAS's)" + READ_NOTE,
          "read-cost",
          compare_medians([("MultilineAdapt", ["CAS"])], lambda r: r > 1.0, "above",
                          "not above", exclude=[never_switched_among(["MultilineAdapt"])],
                          **READ),
          nodes=2, nodes_why=" (on one node an inflated counter has one component line and "
                             "its pointer's line is never written again, so the reader keeps "
                             "it cached and the second miss in series cannot arise)"),
    Claim("dice-multilineadapt-like-rbo-low", "Dice §2.2",
          "MultilineAdapt is competitive in both space overhead and throughput with the basic "
          "RBO counter at low contention (verdict: with 99-99.02% external work at least 0.8x "
          "RBO's median throughput and at most 1.25x its bytes per counter, the same band "
          "inverted, at every thread count measured)", "dice-fig3, dice-fig4-low",
          and_space_within(compare_medians([("MultilineAdapt", ["RBO"])], lambda r: r >= 0.8,
                                           "at least 0.8x everywhere", "below 0.8x",
                                           figures=LOW), "MultilineAdapt", "RBO", 1.25, LOW),
          opposite=work_hides(0.8, LOW, ["MultilineAdapt", "RBO"]),
          data=["dice-fig4-high.csv"]),
    Claim("dice-multilineadapt-700x-rbo", "Dice §2.2",
          "Under high contention MultilineAdapt gives more than 700x RBO's throughput "
          "(verdict: 256 threads, no external work)", "dice-fig4-high",
          compare_medians([("MultilineAdapt", ["RBO"])], lambda r: r > 700, "above 700x",
                          "not above 700x", at="claim"),
          threads=256, threads_at=True),
    Claim("dice-array-morris-beats-rbo", "Dice §5.3",
          "In the 7500-counter array Morris dramatically outperforms RBO (verdict: at least "
          "2x RBO's median at every thread count measured from 2, where threads contend)",
          "dice-fig5",
          compare_medians([("Morris", ["RBO"])], lambda r: r >= 2.0, "at least 2x everywhere",
                          "below 2x", xsel=lambda ctx, c, st, x, series: x >= 2),
          threads=256, threads_upto=True, threads_text="Fig. 5's thread counts, 1-{threads}"),
]
