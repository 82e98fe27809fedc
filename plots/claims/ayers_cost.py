"""Ayers, Accuracy/Notes/Scalability: what the switch-over 2^T buys (accuracy)
and costs (time), and what counting to N costs each variant."""

from claims.core import NM, Claim, f_n, f_pct, f_ratio, f_rho
from claims.rules import on_figure, verdict
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


def spread_falls_with_t(nmin_exp, rho_max):
    """At every common N > 2^nmin_exp the median p95-p5 spread over N falls with T."""
    @on_figure
    def rule(ctx, c, acc):
        ts, common = thresholds(acc)
        nbig = [n for n in common if n > 2 ** nmin_exp]
        if len(ts) < 3 or not nbig:
            return "", NM, ("needs at least 3 thresholds and an N above 2^%d = %d for all "
                            "(largest N here: %s)" % (nmin_exp, 2 ** nmin_exp,
                                                      f_n(max(common)) if common else "none"))
        spreads = [percentile(sorted(acc[s][n]["p95"] - acc[s][n]["p5"] for n in nbig), 0.5)
                   for s in ts]
        rho = spearman([t_of(s) for s in ts], spreads)
        nmin = min(acc[s][n]["n"] for s in ts for n in nbig)
        meas = "median p95-p5 spread over %d N > 2^%d: %s; rho = %s" % (
            len(nbig), nmin_exp,
            ", ".join("%s %s" % (s, f_pct(100 * v)) for s, v in zip(ts, spreads)), f_rho(rho))
        if nmin < MIN_RUNS_PCT:
            return meas, NM, ("needs at least %d runs per N for 5th/95th percentiles; this "
                              "set has %d" % (MIN_RUNS_PCT, nmin))
        return (meas,) + verdict(rho is not None and rho <= rho_max, "spread falls with T",
                                 "no clear fall with T")
    return rule


def time_rises_with_t(nmin_exp, rho_min):
    """At the largest common N the median time rises with T."""
    @on_figure
    def rule(ctx, c, sca):
        ts, common = thresholds(sca)
        if len(ts) < 3 or not common:
            return "", NM, "needs at least 3 thresholds at a common N"
        n = max(common)
        short = untimed(sca, n, ts)
        if short:
            return short, NM, UNTIMED
        meds = [sca[s][n]["median"] for s in ts]
        rho = spearman([t_of(s) for s in ts], meds)
        meas = "median time at N = %s: %s; rho = %s" % (
            f_n(n), ", ".join("%s %.3g ms" % (s, 1e3 * v) for s, v in zip(ts, meds)), f_rho(rho))
        thr = ctx.count_threads(ctx.figs.entry(c.figure).source)
        if thr < c.threads:
            return meas, NM, ctx.threads_reason(c, used=thr)
        if n <= 2 ** nmin_exp:
            return meas, NM, ("needs N above 2^%d = %d so that every T counts "
                              "probabilistically" % (nmin_exp, 2 ** nmin_exp))
        return (meas,) + verdict(rho is not None and rho >= rho_min, "time rises with T",
                                 "no clear rise with T")
    return rule


def time_ratio(a, b, judge):
    """a's median time over b's at the largest common N; judge(ratio) -> ok."""
    def rule(ctx, c):
        sca = ctx.st(c.figure)
        if not sca or a not in sca or b not in sca:
            return "", NM, (ctx.missing(c.figure) if not sca else
                            "%s or %s was not measured" % (a, b))
        common = set(sca[a]) & set(sca[b])
        if not common:
            return "", NM, "no common N"
        n = max(common)
        short = untimed(sca, n, (a, b))
        if short:
            return short, NM, UNTIMED
        thr = ctx.count_threads(ctx.figs.entry(c.figure).source)
        r = sca[a][n]["median"] / sca[b][n]["median"]
        meas = "at N = %s (%d threads): %s %.3g ms, %s %.3g ms, ratio %s" % (
            f_n(n), thr, a, 1e3 * sca[a][n]["median"], b, 1e3 * sca[b][n]["median"],
            f_ratio(r))
        if thr < c.threads:
            return meas, NM, ctx.threads_reason(c, used=thr)
        return (meas,) + verdict(judge(r), "ratio %s" % f_ratio(r), "ratio %s" % f_ratio(r))
    return rule


CLAIMS = [
    Claim("ayers-higher-T-more-accurate", "Ayers, Accuracy",
          "The higher the switch-over 2^T, the more accurate Scalable is (verdict: at "
          "N > 2^15 the 5th-95th spread falls with T, Spearman rho <= -0.8)",
          "ayers-accuracy-tunable", spread_falls_with_t(15, -0.8)),
    Claim("ayers-higher-T-more-costly", "Ayers, Notes",
          "The higher the switch-over 2^T, the more costly Scalable is (verdict: at the "
          "largest N the median time rises with T, Spearman rho >= 0.8)",
          "ayers-scaling-detail", time_rises_with_t(15, 0.8),
          threads=2, threads_why=" (contention)"),
    Claim("ayers-interlocked-costlier", "Ayers, Scalability",
          "Interlocked becomes quite a bit more costly than Scalable at high counts "
          "(verdict: median time at the largest N >= 1.5x Scalable's)",
          "ayers-scaling", time_ratio("FetchAdd", "Scalable", lambda r: r >= 1.5),
          threads=2, threads_why=" (contention)"),
    Claim("ayers-scalable-like-racing", "Ayers, Scalability",
          "Scalable and racing have similar costs (verdict: Scalable's median time at the "
          "largest N within 1.5x of racing's)",
          "ayers-scaling", time_ratio("Scalable", "Serial", lambda r: 1 / 1.5 <= r <= 1.5),
          threads=2, threads_why=" (contention)"),
]
