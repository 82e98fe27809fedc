# SPDX-License-Identifier: MIT
"""Dice §3.1, §4.2, §5.4: the probabilistic counters' relative error (Fig. 6)
against the paper's statements and the analytic RSTDV bounds."""

import os
import re

from claims.core import NM, RUN_LENGTH, Claim, f_n, f_pct, not_measurable
from claims.dice_scaling import DICE_PROB
from claims.rules import judge_points, ratio_point, rstdv_within, verdict
from stats import percentile
from envelopes import bfp_dup_rstdv, morris_rstdv

FIG6 = "dice-fig6-low, dice-fig6-high"


def bfp_exp_max():
    """The largest exponent a BFP counter can hold (SC_BFP_EXP_MAX of the library's
    sc_bfp.h, read from the source tree), or None when the header is not there."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "counters",
                        "scounters", "sc_bfp.h")
    try:
        with open(path) as f:
            m = re.search(r"#define\s+SC_BFP_EXP_MAX\s+(\d+)", f.read())
    except OSError:
        return None
    return int(m.group(1)) if m else None


def exponent_saturated(row):
    """Why a BFP run has left the chain its RSTDV bound describes: its exponent
    ended at the largest the counter holds, so from then on the update probability
    stopped halving and the mantissa grew past the threshold (end_state exp=...)."""
    top = bfp_exp_max()
    m = re.search(r"(?:^|;)exp=(\d+)", row.get("end_state") or "")
    if top is None or not m or int(m.group(1)) < top:
        return None
    return ("their exponent ended at its maximum (%d): saturated, they left the chain the "
            "bound describes" % top)

# The paper's protocol (Dice §5): 8 s measured after a 2 s warm-up. A run at least
# PAPER_SHARE of that long counts as paper-length.
PAPER_SECONDS = 8.0
PAPER_SHARE = 0.95
# A claim on how large an error gets is judged only when the paper's runs would not
# have counted more than this many times higher than the runs here.
MUCH_HIGHER = 2.0


def counts_text(rows):
    """The true counts (ops) of the runs a claim judged."""
    ops = sorted(r["ops"] for r in rows)
    return "true counts of these %d runs: %s..%s increments" % (len(ops), f_n(ops[0]),
                                                                  f_n(ops[-1]))


def paper_regime(rows):
    """(rows, None): the runs to judge, the paper-length ones when there are any;
    or (rows, reason) when every run is short and 8 s at its measured throughput
    would have counted more than MUCH_HIGHER times higher: the reason names the
    count needed."""
    paper = [r for r in rows if (r.get("seconds") or 0) >= PAPER_SHARE * PAPER_SECONDS]
    if paper:
        return paper, None
    need = [(r["ops"] * PAPER_SECONDS / r["seconds"], r) for r in rows if r.get("seconds")]
    short = [(n, r) for n, r in need if n > MUCH_HIGHER * r["ops"]]
    if not short:
        return rows, None
    lo, hi = min(n for n, _ in short), max(n for n, _ in short)
    secs = sorted(x["seconds"] for x in rows if x.get("seconds"))
    return rows, not_measurable(RUN_LENGTH,
        "at this count: these runs measured %s s and counted up to %s increments; the "
        "paper's 8 s runs at the throughputs measured here would count about %s..%s "
        "(%.0fx), and a probabilistic counter's error depends on how high it counts "
        "(BFP-CSUP's falls once contention stops growing its exponent); it needs runs of "
        "the paper's length (./run-all.sh --paper-errors)"
        % ("%.2g" % secs[0] if "%.2g" % secs[0] == "%.2g" % secs[-1]
           else "%.2g-%.2g" % (secs[0], secs[-1]), f_n(max(x["ops"] for x in rows)), f_n(lo), f_n(hi),
           PAPER_SECONDS / secs[-1]))


def at_paper_count(judge, variants=None):
    """judge(ctx, have, rows) on the paper-length runs when there are some, else
    judged only if the paper's runs would not have counted much higher (else not
    measurable at this count); its measurement gains the true counts of the runs
    (of variants, if given) it rests on."""
    def wrapped(ctx, have, rows):
        mine = [r for r in rows if variants is None or r["counter"] in variants]
        if not mine:
            return judge(ctx, have, rows)
        mine, why = paper_regime(mine)
        if variants is None:
            rows = mine
        else:
            rows = [r for r in rows if r["counter"] not in variants] + mine
        res = judge(ctx, have, rows)
        measured = "; ".join(x for x in (res[0], counts_text(mine)) if x)
        if why:
            return measured, NM, why
        return (measured,) + tuple(res[1:])
    return wrapped


def fig6_runs(ctx):
    """(figures with data, timed runs of DICE_PROB with an error, None), or
    (None, None, reason) when there is nothing to judge; shared by this family."""
    if "fig6" not in ctx.cache:
        have = [(f, ctx.st(f)) for f in ("dice-fig6-low", "dice-fig6-high") if ctx.st(f)]
        if not have:
            ctx.cache["fig6"] = (None, None, ctx.missing("dice-fig6-low"))
        else:
            rows = ctx.timed_rows([ctx.figs.entry(f).source for f, _ in have], DICE_PROB)
            ctx.cache["fig6"] = (have, rows, None) if rows else (None, None,
                                                                 "no probabilistic runs")
    return ctx.cache["fig6"]


def fig6_rule(judge):
    """A rule over fig6_runs: judge(ctx, have, rows) -> (measured, verdict, reason)."""
    def rule(ctx, c):
        have, rows, why = fig6_runs(ctx)
        if why:
            return "", NM, why
        return judge(ctx, have, rows)
    return rule


def worst_under(bound_pct):
    def judge(ctx, have, rows):
        worst = max(rows, key=lambda r: r["rel_error"])
        return (("worst of %d runs: %s (%s, %d thr, %g%% work, true count %s)"
                 % (len(rows), f_pct(100 * worst["rel_error"]), worst["counter"],
                    worst["threads"], worst["work_pct"], f_n(worst["ops"])),)
                + verdict(worst["rel_error"] <= bound_pct / 100.0, "max <= %g%%" % bound_pct,
                          "a run above %g%%" % bound_pct) + (len(rows),))
    return judge


def exact_points(have):
    """The points of the probabilistic counters where every run was exact: an adaptive
    counter that never left its precise mode is exact by construction there."""
    return [(fid, s, x) for fid, st in have for s in DICE_PROB if s in st
            for x, p in st[s].items() if p["max"] == 0]


def mostly_under(bound_pct):
    def judge(ctx, have, rows):
        exact = exact_points(have)
        pts = [p for fid, st in have for s in DICE_PROB if s in st
               for x, p in st[s].items() if (fid, s, x) not in exact]
        k = sum(1 for p in pts if p["max"] <= bound_pct)
        share = k / float(len(pts)) if pts else 0
        left = ("; left out: %d points exact in every run (%s: never left the precise mode)"
                % (len(exact), ", ".join(sorted(set(s for _, s, _ in exact))))) if exact else ""
        if not pts:
            return "no point with an inexact run" + left, NM, "nothing probabilistic to judge"
        return (("%d of %d points (%.0f%%) have a worst error <= %g%%%s"
                 % (k, len(pts), 100 * share, bound_pct, left),)
                + verdict(share > 0.5, "more than half", "half or fewer")
                + (min(p["n"] for p in pts),))
    return judge


def variant_under(variant, bound_pct):
    def judge(ctx, have, rows):
        cs = [r for r in rows if r["counter"] == variant]
        if not cs:
            return "", NM, "%s was not measured" % variant
        w = max(cs, key=lambda r: r["rel_error"])
        # BFP-CSUP's growth rule: grow-after=1 is the paper's literal reading.
        rule = ""
        if variant == "BFP-CSUP":
            ks = sorted(set((r.get("params_map") or {}).get("grow-after", "1") for r in cs))
            rule = "; grow-after=%s%s" % (",".join(ks),
                                          " (the literal reading)" if ks == ["1"] else "")
        return (("worst of %d %s runs: %s (%d thr, %g%% work, true count %s)%s"
                 % (len(cs), variant, f_pct(100 * w["rel_error"]), w["threads"],
                    w["work_pct"], f_n(w["ops"]), rule),)
                + verdict(w["rel_error"] <= bound_pct / 100.0, "max <= %g%%" % bound_pct,
                          "a run above %g%%" % bound_pct) + (len(cs),))
    return judge


def higher_at_0pct(series, higher=True):
    """Per variant: its runs' errors at 0% work against those at 99% work, over
    the thread counts both have; a variant exact in every run at both levels is
    not compared. Holds when the 0% median is above the 99% median (with
    higher=False: not above it) for every variant compared; a comparison that
    one run decides makes it inconclusive."""
    def judge(ctx, have, rows):
        lo, hi = ctx.st("dice-fig6-low"), ctx.st("dice-fig6-high")
        if not lo or not hi:
            return "", NM, "needs both dice-fig4-low.csv and dice-fig4-high.csv"
        parts, pts, exact = [], [], []
        for s in series:
            if s not in lo or s not in hi:
                return "", NM, "needs %s in both files" % s
            ts = sorted(set(lo[s]) & set(hi[s]))
            vl = sorted(v for t in ts for v in lo[s][t]["values"])
            vh = sorted(v for t in ts for v in hi[s][t]["values"])
            if not any(vl) and not any(vh):
                exact.append(s)
                continue
            a = {"median": percentile(vh, 0.5), "values": vh}
            b = {"median": percentile(vl, 0.5), "values": vl}
            r, good, frag = ratio_point(a, b, (lambda x: x > 1.0) if higher
                                        else (lambda x: x <= 1.0))
            parts.append("%s %s (0%%, %d runs) vs %s (99%%, %d runs)"
                         % (s, f_pct(a["median"]), len(vh), f_pct(b["median"]), len(vl)))
            pts.append((s, r, good, frag, min(len(vh), len(vl))))
        meas = "median |error| of the runs: " + "; ".join(parts)
        if exact:
            meas += "; not compared: %s (exact in every run at both levels)" % ", ".join(exact)
        if not pts:
            return meas, NM, "every variant exact"
        word = "higher" if higher else "not higher"
        v, reason, runs = judge_points(pts, "%s at 0%% work for every variant compared" % word,
                                       "%s at 0%% work" % ("not higher" if higher
                                                          else "higher"))
        return meas, v, reason, runs
    return judge


def typically_within(lo_pct, hi_pct, variants):
    """The median over the points of variants (leaving out points exact in every
    run) of each point's worst |error| is within lo_pct-hi_pct %."""
    def judge(ctx, have, rows):
        exact = exact_points(have)
        worst = sorted(p["max"] for fid, st in have for s in variants if s in st
                       for x, p in st[s].items() if (fid, s, x) not in exact)
        if not worst:
            return "", NM, "no point of %s with an inexact run" % ", ".join(variants)
        med = percentile(worst, 0.5)
        return (("worst |error| per point of %s: median %s over %d points (range %s-%s)"
                 % (", ".join(variants), f_pct(med), len(worst), f_pct(worst[0]),
                    f_pct(worst[-1])),)
                + verdict(lo_pct <= med <= hi_pct, "median in %g-%g%%" % (lo_pct, hi_pct),
                          "median outside %g-%g%%" % (lo_pct, hi_pct))
                + (min(p["n"] for fid, st in have for s in variants if s in st
                       for p in st[s].values()),))
    return judge


OTHERS = ["Morris", "MorrisAdapt", "BFP-DUP"]
CLAIMS = [
    Claim("dice-prob-error-under-3pct", "Dice §5.4",
          "No probabilistic counter's relative error exceeds 3% (Morris, MorrisAdapt, "
          "BFP-DUP, BFP-CSUP; every run of Fig. 6)", FIG6, fig6_rule(at_paper_count(worst_under(3)))),
    Claim("dice-prob-error-mostly-1.5pct", "Dice §5.4",
          "In most cases the worst relative error of a point is within 1.5% "
          "(verdict: more than half of the points, leaving out points exact in every run, "
          "where an adaptive counter never left its precise mode)", FIG6,
          fig6_rule(at_paper_count(mostly_under(1.5))), variants=DICE_PROB),
    Claim("dice-bfpcsup-under-0.25pct", "Dice §5.4",
          "BFP-CSUP's relative error never exceeds 0.25%", FIG6,
          fig6_rule(at_paper_count(variant_under("BFP-CSUP", 0.25), ["BFP-CSUP"]))),
    Claim("dice-error-higher-under-contention", "Dice §5.4",
          "Morris, MorrisAdapt and BFP-DUP show higher error at 0% than at 99% work, "
          "as they count higher (verdict: the median |error| of a variant's runs is higher "
          "at 0% work, for every variant not exact in all its runs; at least 10 runs per "
          "variant and level)", FIG6,
          fig6_rule(at_paper_count(higher_at_0pct(["Morris", "MorrisAdapt", "BFP-DUP"]),
                                   ["Morris", "MorrisAdapt", "BFP-DUP"])), min_runs=10),
    Claim("dice-csup-error-not-growing", "Dice §5.4",
          "BFP-CSUP's relative error does not grow just because it counts more: it raises its "
          "exponent only under contention or a full mantissa (verdict: unlike the others, its "
          "median |error| at 0% work, where it counts higher, is not above its median at 99% "
          "work; at least 10 runs per level)", FIG6,
          fig6_rule(at_paper_count(higher_at_0pct(["BFP-CSUP"], higher=False), ["BFP-CSUP"])),
          min_runs=10),
    Claim("dice-others-error-0.75-2pct", "Dice §5.4",
          "Morris, MorrisAdapt and BFP-DUP typically show a relative error in the 0.75-2% "
          "range (verdict: the median over their points of each point's worst |error| is in "
          "0.75-2%, leaving out points exact in every run)", FIG6,
          fig6_rule(at_paper_count(typically_within(0.75, 2.0, OTHERS), OTHERS))),
    Claim("dice-morris-rstdv", "Dice §3.1",
          "Morris's relative standard deviation stays below 1/sqrt(2a) "
          "(1% with a = 5000; at least 10 runs)", FIG6, rstdv_within("Morris", morris_rstdv),
          min_runs=10),
    Claim("dice-bfpdup-rstdv", "Dice §4.2",
          "BFP-DUP's relative standard deviation tends to at most sqrt(3/(8M-3)) as the "
          "count grows (1% with M = 3750): a bound only in the limit, which the paper uses "
          "as a heuristic guide for M (verdict: the RMS error of the runs within it, "
          "judged only on runs still in the regime the bound describes: a run whose "
          "exponent saturated at its maximum has left it; at least 10 runs)", FIG6,
          rstdv_within("BFP-DUP", bfp_dup_rstdv, limit_only=True, outside=exponent_saturated),
          min_runs=10),
]
