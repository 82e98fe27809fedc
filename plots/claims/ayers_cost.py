# SPDX-License-Identifier: MIT
"""Ayers, Accuracy/Notes/Scalability: what the switch-over 2^T buys (accuracy)
and costs (time), and what counting to N costs each variant."""

from claims.core import FEW_PERCENT, NM, Claim, f_n, f_rho
from claims.rules import compare_medians, on_figure, startup_dominated, verdict
from resultset import threshold_of
from stats import percentile, spearman

UNTIMED = ("most runs at this N read 0 s: their count-to-N time is below what the "
           "harness resolves, so the rest are not a fair sample")
MIN_RUNS_PCT = 20


def t_of(series):
    return int(series[1:])


def thresholds(stats):
    """The T<k> series in order of k, and the N they all have."""
    ts = sorted(stats, key=t_of)
    return ts, set.intersection(*[set(stats[s]) for s in ts]) if ts else set()


def untimed(stats, n, series):
    """measured text if half or more of the runs of a point read 0 s, else None."""
    if any(stats[s][n]["n"] < 0.5 * stats[s][n]["total"] for s in series):
        return "at N = %s: %s" % (f_n(n), ", ".join(
            "%s %d of %d runs timed" % (s, stats[s][n]["n"], stats[s][n]["total"])
            for s in series))
    return None


def trend_with_t(measure, what, nmin_exp, sign, rho_min):
    """The one rule of the threshold claims: at every common N > 2^nmin_exp (timed, for
    a time), each T's measure(point) over the mean of all T's at that N; per T the
    median of these over N; Spearman rho(T, that) * sign >= rho_min."""
    @on_figure
    def rule(ctx, c, st):
        ts, common = thresholds(st)
        nbig = sorted(n for n in common if n > 2 ** nmin_exp)
        if len(ts) < 3 or not nbig:
            return "", NM, ("needs at least 3 thresholds and an N above 2^%d = %d for all "
                            "(largest N here: %s)" % (nmin_exp, 2 ** nmin_exp,
                                                      f_n(max(common)) if common else "none"))
        timed = [n for n in nbig if not untimed(st, n, ts)]
        if not timed:
            return untimed(st, nbig[-1], ts), NM, UNTIMED
        rel = {s: [] for s in ts}
        for n in timed:
            mean = sum(measure(st[s][n]) for s in ts) / len(ts)
            for s in ts:
                rel[s].append(measure(st[s][n]) / mean if mean > 0 else 1.0)
        per_t = [percentile(sorted(rel[s]), 0.5) for s in ts]
        rho = spearman([t_of(s) for s in ts], per_t)
        meas = ("%s over the mean of all T at the same N, median over %d N > 2^%d (%s..%s): %s; "
                "rho = %s" % (what, len(timed), nmin_exp, f_n(timed[0]), f_n(timed[-1]),
                              ", ".join("%s %.2f" % (s, v) for s, v in zip(ts, per_t)),
                              f_rho(rho)))
        if len(timed) < len(nbig):
            meas += " (%d N left out: most runs read 0 s)" % (len(nbig) - len(timed))
        runs = min(st[s][n]["n"] for s in ts for n in timed)
        word = "falls" if sign < 0 else "rises"
        return (meas,) + verdict(rho is not None and sign * rho >= rho_min,
                                 "%s %s with T (rho %s %g)" % (what, word, "<=" if sign < 0
                                                                else ">=", sign * rho_min),
                                 "no clear %s with T" % word[:-1]) + (runs,)
    return rule


def spread(p):
    return p["p95"] - p["p5"]


def median_time(p):
    return p["median"]


def timed_n(above_switch):
    """xsel of compare_medians on a count-to-N figure: N where most runs were timed
    (and, with above_switch, N > 2^(T+1) of Scalable in ayers.csv: "at high counts",
    where most of the N increments come after the exact 2^T and are no longer exact)."""
    def sel(ctx, c, stats, n, series):
        if untimed(stats, n, series):
            return False
        if above_switch:
            sc = [r for r in ctx.count_rows("ayers.csv") if r["counter"] == "Scalable"]
            return n > 2 ** ((threshold_of(sc[0]) if sc else 13) + 1)
        return True
    return sel


def time_ratio(a, b, ok, yes, no, above_switch=False):
    """a's median time over b's at every timed N (above 2^T with above_switch) where
    neither time is dominated by start-up (the "condition" rule)."""
    return compare_medians([(a, [b])], ok, yes, no, xsel=timed_n(above_switch),
                           xtext=lambda n: "N = %s" % f_n(n), xname="N",
                           exclude=[startup_dominated])


CLAIMS = [
    Claim("ayers-higher-T-more-accurate", "Ayers, Accuracy",
          "The higher the switch-over 2^T, the more accurate Scalable is (verdict: at every "
          "N > 2^15 each T's 5th-95th spread relative to the mean of all T; its median over "
          "N falls with T, Spearman rho <= -0.8; at least 20 runs per N)",
          "ayers-accuracy-tunable", trend_with_t(spread, "5th-95th spread", 15, -1, 0.8),
          min_runs=20),
    Claim("ayers-higher-T-more-costly", "Ayers, Notes",
          "The higher the switch-over 2^T, the more costly Scalable is (verdict: the same "
          "rule on the median time: rises with T, Spearman rho >= 0.8)",
          "ayers-scaling-detail", trend_with_t(median_time, "median time", 15, 1, 0.8),
          threads=2, paper_threads=12, threads_why=" (contention)"),
    Claim("ayers-interlocked-costlier", "Ayers, Scalability",
          "Interlocked becomes quite a bit more costly than Scalable at high counts "
          "(verdict: FetchAdd's median time >= 1.5x Scalable's at every timed N > 2^(T+1), "
          "where most increments are no longer exact, not dominated by start-up)",
          "ayers-scaling", time_ratio("FetchAdd", "Scalable", lambda r: r >= 1.5,
                                      "at least 1.5x at every N > 2^(T+1)", "below 1.5x",
                                      above_switch=True),
          threads=2, paper_threads=12, threads_why=" (contention)"),
    Claim("ayers-scalable-like-racing", "Ayers, Scalability",
          "Scalable and racing have similar costs (verdict: \"similar\": Scalable's median "
          "time within %gx of racing's either way at every timed N not dominated by "
          "start-up)" % FEW_PERCENT,
          "ayers-scaling", time_ratio("Scalable", "Serial",
                                      lambda r: 1 / FEW_PERCENT <= r <= FEW_PERCENT,
                                      "within %gx at every N" % FEW_PERCENT,
                                      "beyond %gx" % FEW_PERCENT),
          threads=2, paper_threads=12, threads_why=" (contention)"),
    Claim("ayers-interlocked-more-overhead", "Ayers, Precision",
          "Interlocked fixes racing's accuracy but costs even more time than racing "
          "(verdict: FetchAdd's median time above Serial's at every timed N not dominated by "
          "start-up)",
          "ayers-scaling", time_ratio("FetchAdd", "Serial", lambda r: r > 1.0,
                                      "slower than racing at every N", "not slower"),
          threads=2, paper_threads=12, threads_why=" (contention)"),
]
