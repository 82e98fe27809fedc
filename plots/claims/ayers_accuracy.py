# SPDX-License-Identifier: MIT
"""Ayers, Accuracy and The Scalable Counter: how exact racing (Serial),
interlocked (FetchAdd) and Scalable are when all PUs count to N."""

import math

from claims.core import INCONCLUSIVE, NM, Claim, f_n, f_pct, f_rho
from claims.rules import verdict
from envelopes import scalable_sigma
from resultset import threshold_of
from stats import Z_5_95, spearman

ACC = "ayers-accuracy"
MIN_RUNS_PCT = 20   # runs per N below which 5th/95th percentiles say little


def series_rule(series, judge):
    """A rule on one series of ayers-accuracy: judge(ctx, c, pts, rows, thr) where
    pts is {N: stats}, rows the count rows of ayers.csv, thr their thread count.
    A judge returns its measurement first and is told when thr < claim.threads."""
    def rule(ctx, c):
        acc = ctx.st(ACC)
        if not acc or series not in acc:
            return "", NM, ctx.missing(ACC) if not acc else "%s was not measured" % series
        thr = ctx.count_threads("ayers.csv")
        meas, judged = judge(ctx, acc[series], ctx.count_rows("ayers.csv"), thr)
        if thr < c.threads:
            return meas, NM, ctx.threads_reason(c, used=thr)
        return (meas,) + judged + (min(p["n"] for p in acc[series].values()),)
    return rule


def interlocked_exact(ctx, pts, rows, thr):
    fa = [r for r in rows if r["counter"] == "FetchAdd"]
    bad = [r for r in fa if r["value"] != r["ops"]]
    return ("%d runs, N = %s..%s, %d threads: %d inexact"
            % (len(fa), f_n(min(pts)), f_n(max(pts)), thr, len(bad)),
            verdict(not bad, "every run exact", "some run inexact"))


def racing_loses_at_smallest_n(ctx, pts, rows, thr):
    n0 = min(pts)
    return ("mean value/N at N = %s: %.4f (%d threads)" % (f_n(n0), pts[n0]["mean"], thr),
            verdict(pts[n0]["mean"] < 1.0, "counts lost", "no count lost"))


def racing_worse_with_n(ctx, pts, rows, thr):
    ns = sorted(pts)
    means = [pts[n]["mean"] for n in ns]
    rho = spearman(ns, means)
    meas = "mean value/N: %.3f at N = %s, %.3f at N = %s; Spearman rho(N, mean) = %s" % (
        means[0], f_n(ns[0]), means[-1], f_n(ns[-1]), f_rho(rho))
    rises = [(a, b) for a, b, ma, mb in zip(ns, ns[1:], means, means[1:])
             if mb > ma and ma < 1.0]
    return meas, verdict(means[-1] < means[0] and not rises,
                         "worse at every larger N once counts are lost (no step up)",
                         "does not get worse at every step%s" % (
                             " (up from N = %s to %s)" % (f_n(rises[0][0]), f_n(rises[0][1]))
                             if rises else ""))


def racing_keeps_at_most(share):
    def judge(ctx, pts, rows, thr):
        nmax = max(pts)
        return ("at N = %s: value/N mean %.3f, max %.3f (%d threads)"
                % (f_n(nmax), pts[nmax]["mean"], pts[nmax]["max"], thr),
                verdict(pts[nmax]["max"] <= share, "max <= %g" % share,
                        "keeps more than %g%%" % (100 * share)))
    return judge


def exact_below_switch(ctx, c):
    sc = [r for r in ctx.count_rows("ayers.csv") if r["counter"] == "Scalable"]
    allr = sc + [r for r in ctx.count_rows("ayers-tunable.csv") if r["counter"] == "Scalable"]
    below = [r for r in allr if r["ops"] <= 2 ** threshold_of(r)]
    if not allr:
        return "", NM, "ayers.csv and ayers-tunable.csv have no Scalable runs"
    if not below:
        return "", NM, "no run with N <= 2^T"
    bad = [r for r in below if r["value"] != r["ops"]]
    return (("%d runs with N <= 2^T (%d thresholds): %d inexact"
             % (len(below), len(set(threshold_of(r) for r in below)), len(bad)),)
            + verdict(not bad, "all exact", "some run inexact below 2^T") + (len(below),))


def above_switch(judge, doublings=0):
    """A rule on Scalable's points of ayers-accuracy with N > 2^(T + doublings):
    judge(ctx, above, t) -> (measured, verdict, reason)."""
    def rule(ctx, c):
        pts = (ctx.st(ACC) or {}).get("Scalable")
        sc = [r for r in ctx.count_rows("ayers.csv") if r["counter"] == "Scalable"]
        t = threshold_of(sc[0]) if sc else 13
        above = {n: p for n, p in (pts or {}).items() if n > 2 ** (t + doublings)}
        if not above:
            return "", NM, ("no Scalable point above 2^%s" % ("T" if not doublings else
                                                              "(T+%d)" % doublings)
                            if pts else ctx.missing(ACC))
        return judge(ctx, above, t)
    return rule


def too_few_runs(nmin):
    return ("needs at least %d runs per N for 5th/95th percentiles; this set has %d"
            % (MIN_RUNS_PCT, nmin))


def spread_within(bound):
    def judge(ctx, above, t):
        nmin = min(p["n"] for p in above.values())
        lo = min(above.values(), key=lambda p: p["p5"])
        hi = max(above.values(), key=lambda p: p["p95"])
        meas = ("over %d N values > 2^%d (true counts N = %s..%s): lowest p5 %.4f, highest "
                "p95 %.4f (%d+ runs per N)" % (len(above), t, f_n(min(above)), f_n(max(above)),
                                               lo["p5"], hi["p95"], nmin))
        if nmin < MIN_RUNS_PCT:
            return meas, INCONCLUSIVE, too_few_runs(nmin)
        return (meas,) + verdict(lo["p5"] >= 1 - bound and hi["p95"] <= 1 + bound,
                                 "within +-%g%%" % (100 * bound),
                                 "beyond +-%g%%" % (100 * bound)) + (nmin,)
    return judge


def worst_within(bound):
    def judge(ctx, above, t):
        worst = max(max(abs(p["min"] - 1), abs(p["max"] - 1)) for p in above.values())
        runs = sum(p["n"] for p in above.values())
        return (("worst |value/N - 1| over %d runs, true counts N = %s..%s: %s"
                 % (runs, f_n(min(above)), f_n(max(above)), f_pct(100 * worst)),)
                + verdict(worst <= bound, "<= %g%%" % (100 * bound),
                          "a run beyond %g%%" % (100 * bound))
                + (min(p["n"] for p in above.values()),))
    return judge


def unbiased(zmax):
    def judge(ctx, above, t):
        worst, wn, ok = 0.0, None, True
        for n, p in sorted(above.items()):
            se = scalable_sigma(n, t) / n / math.sqrt(p["n"])
            z = abs(p["mean"] - 1) / se if se > 0 else 0
            ok = ok and z <= zmax
            if z >= worst:
                worst, wn = z, n
        p = above[wn]
        return (("largest deviation: mean %.5f at N = %s (%.1f standard errors, n = %d)"
                 % (p["mean"], f_n(wn), worst, p["n"]),)
                + verdict(ok, "unbiased within sampling error",
                          "a mean beyond %g standard errors" % zmax)
                + (min(p["n"] for p in above.values()),))
    return judge


def model_predicts_spread(factor, first_doubling=False):
    """The measured 5th-95th half-spread of value/N against the binomial model's
    1.645 sigma/N; first_doubling: only at N in (2^T, 2^(T+1)], where the model is
    Ayers's own one step (updates of 2 with probability 1/2)."""
    def judge(ctx, far, t):
        if first_doubling:
            far = {n: p for n, p in far.items() if n <= 2 ** (t + 1)}
            if not far:
                return "", NM, "no Scalable point between 2^T and 2^(T+1)"
        nmin = min(p["n"] for p in far.values())
        ratios = []
        for n, p in sorted(far.items()):
            pred = Z_5_95 * scalable_sigma(n, t) / n
            ratios.append((n, (p["p95"] - p["p5"]) / 2 / pred, pred))
        nl = ratios[-1]
        meas = ("measured/predicted half-spread %.2f..%.2f over %d N; at N = %s "
                "predicted +-%s" % (min(r for _, r, _ in ratios), max(r for _, r, _ in ratios),
                                    len(ratios), f_n(nl[0]), f_pct(100 * nl[2])))
        if nmin < MIN_RUNS_PCT:
            return meas, INCONCLUSIVE, too_few_runs(nmin)
        return (meas,) + verdict(all(1.0 / factor <= r <= factor for _, r, _ in ratios),
                                 "within a factor %g" % factor,
                                 "off by more than a factor %g" % factor) + (nmin,)
    return judge


DETAIL = "ayers-accuracy-detail"
CLAIMS = [
    Claim("ayers-interlocked-exact", "Ayers, Accuracy",
          "Interlocked (FetchAdd) counts exactly: value/N = 1 at every N",
          ACC, series_rule("FetchAdd", interlocked_exact),
          by_construction="every increment is one atomic add of one, which cannot lose an "
                          "update"),
    Claim("ayers-racing-loses-at-12", "Ayers, Accuracy",
          "Racing (Serial) already loses counts at N = 12 (Ayers: 12 threads, one increment "
          "each)",
          ACC, series_rule("Serial", racing_loses_at_smallest_n), threads=2, paper_threads=12,
          threads_why=" (one thread cannot race)"),
    Claim("ayers-racing-worse-with-n", "Ayers, Accuracy",
          "Racing's loss gets worse and worse the higher it counts (verdict: once it loses "
          "counts, its mean value/N is lower at every larger N, never a step up)",
          ACC, series_rule("Serial", racing_worse_with_n), threads=2, paper_threads=12,
          threads_why=" (one thread cannot race)"),
    Claim("ayers-racing-20pct", "Ayers, Accuracy",
          "At the highest N racing keeps at best about 20% of the count "
          "(verdict: max value/N <= 0.25)",
          ACC, series_rule("Serial", racing_keeps_at_most(0.25)), threads=2, paper_threads=12,
          threads_why=" (one thread cannot race)"),
    Claim("ayers-scalable-exact-below-2T", "Ayers, The Scalable Counter",
          "Scalable counts exactly up to its switch-over 2^T (8192 at T = 13; here also "
          "T = 10..15 of ayers-tunable.csv)", DETAIL, exact_below_switch,
          data=["ayers-tunable.csv"],
          by_construction="below 2^T every increment is an atomic add of one (the "
                          "algorithm's exact mode, by definition)"),
    Claim("ayers-scalable-5-95-within-2pct", "Ayers, Accuracy",
          "At T = 13 Scalable's 5th-95th percentile spread of value/N stays within "
          "about 2% (verdict: p5 >= 0.98 and p95 <= 1.02 at every N > 2^T)",
          DETAIL, above_switch(spread_within(0.02))),
    Claim("ayers-scalable-worst-3pct", "Ayers, Accuracy",
          "At T = 13 Scalable's worst-case deviation is about 3% "
          "(verdict: every run within 3%)", DETAIL, above_switch(worst_within(0.03))),
    Claim("ayers-scalable-unbiased", "Ayers, Accuracy",
          "On average Scalable is very accurate (verdict: at every N the mean value/N "
          "is within 4 standard errors sigma/sqrt(n) of 1, sigma from the binomial model)",
          DETAIL, above_switch(unbiased(4))),
    Claim("ayers-binomial-model", "Ayers, Notes",
          "Modelling the first 2^T probabilistic updates (by 2, with probability 1/2) as "
          "binomial gives a two-standard-deviation range of about +-2.2% of the count they "
          "add, in reasonable agreement with the measured spread (verdict: at every N "
          "between 2^T and 2^(T+1), the model's one step, the measured (p95 - p5)/2 of "
          "value/N within a factor 2 of the model's 1.645 sigma/N; the project's model "
          "carried through every doubling draws the figure's envelope)",
          DETAIL, above_switch(model_predicts_spread(2.0, first_doubling=True))),
]
