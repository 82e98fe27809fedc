"""Dice §3.1, §4.2, §5.4: the probabilistic counters' relative error (Fig. 6)
against the paper's statements and the analytic RSTDV bounds."""

from claims.core import FAILS, HOLDS, NM, Claim, f_n, f_pct
from claims.dice_scaling import DICE_PROB
from claims.rules import rstdv_within, verdict
from envelopes import bfp_dup_rstdv, morris_rstdv

FIG6 = "dice-fig6-low, dice-fig6-high"


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
        maxcount = max(r["ops"] for r in rows)
        countnote = ("largest true count of these runs: %s increments (the paper's 8 s runs "
                     "counted higher; error grows with the count)" % f_n(maxcount))
        return (("worst of %d runs: %s (%s, %d thr, %g%% work); %s"
                 % (len(rows), f_pct(100 * worst["rel_error"]), worst["counter"],
                    worst["threads"], worst["work_pct"], countnote),)
                + verdict(worst["rel_error"] <= bound_pct / 100.0, "max <= %g%%" % bound_pct,
                          "a run above %g%%" % bound_pct))
    return judge


def mostly_under(bound_pct):
    def judge(ctx, have, rows):
        pts = [p["max"] for _, st in have for s in DICE_PROB if s in st
               for p in st[s].values()]
        k = sum(1 for v in pts if v <= bound_pct)
        share = k / float(len(pts)) if pts else 0
        return (("%d of %d points (%.0f%%) have a worst error <= %g%%"
                 % (k, len(pts), 100 * share, bound_pct),)
                + verdict(share > 0.5, "more than half", "half or fewer"))
    return judge


def variant_under(variant, bound_pct):
    def judge(ctx, have, rows):
        cs = [r for r in rows if r["counter"] == variant]
        if not cs:
            return "", NM, "%s was not measured" % variant
        w = max(cs, key=lambda r: r["rel_error"])
        return (("worst of %d %s runs: %s (%d thr, %g%% work)"
                 % (len(cs), variant, f_pct(100 * w["rel_error"]), w["threads"],
                    w["work_pct"]),)
                + verdict(w["rel_error"] <= bound_pct / 100.0, "max <= %g%%" % bound_pct,
                          "a run above %g%%" % bound_pct))
    return judge


def higher_at_0pct(series):
    def judge(ctx, have, rows):
        lo, hi = ctx.st("dice-fig6-low"), ctx.st("dice-fig6-high")
        if not lo or not hi:
            return "", NM, "needs both dice-fig4-low.csv and dice-fig4-high.csv"
        parts, wins, used = [], 0, 0
        for s in series:
            if s not in lo or s not in hi:
                continue
            ml = sum(p["max"] for p in lo[s].values()) / len(lo[s])
            mh = sum(p["max"] for p in hi[s].values()) / len(hi[s])
            used += 1
            wins += mh > ml
            parts.append("%s %s (0%%) vs %s (99%%)" % (s, f_pct(mh), f_pct(ml)))
        if used < len(series):
            return "; ".join(parts), NM, "needs %s in both files" % (
                ", ".join(series[:-1]) + " and " + series[-1])
        return ("mean worst error: " + "; ".join(parts), HOLDS if wins >= 2 else FAILS,
                "%d of %d higher at 0%% work" % (wins, len(series)))
    return judge


CLAIMS = [
    Claim("dice-prob-error-under-3pct", "Dice §5.4",
          "No probabilistic counter's relative error exceeds 3% (Morris, MorrisAdapt, "
          "BFP-DUP, BFP-CSUP; every run of Fig. 6)", FIG6, fig6_rule(worst_under(3))),
    Claim("dice-prob-error-mostly-1.5pct", "Dice §5.4",
          "In most cases the worst relative error of a point is within 1.5% "
          "(verdict: more than half of the points)", FIG6, fig6_rule(mostly_under(1.5))),
    Claim("dice-bfpcsup-under-0.25pct", "Dice §5.4",
          "BFP-CSUP's relative error never exceeds 0.25%", FIG6,
          fig6_rule(variant_under("BFP-CSUP", 0.25))),
    Claim("dice-error-higher-under-contention", "Dice §5.4",
          "Morris, MorrisAdapt and BFP-DUP show higher error at 0% than at 99% work, "
          "as they count higher (verdict: mean of the worst errors over thread "
          "counts is higher for at least 2 of the 3)", FIG6,
          fig6_rule(higher_at_0pct(["Morris", "MorrisAdapt", "BFP-DUP"]))),
    Claim("dice-morris-rstdv", "Dice §3.1",
          "Morris's relative standard deviation stays below 1/sqrt(2a) "
          "(1% with a = 5000)", FIG6, rstdv_within("Morris", morris_rstdv)),
    Claim("dice-bfpdup-rstdv", "Dice §4.2",
          "BFP-DUP's relative standard deviation stays below sqrt(3/(8M-3)) "
          "(1% with M = 3750)", FIG6, rstdv_within("BFP-DUP", bfp_dup_rstdv)),
]
