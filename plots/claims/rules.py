"""Verdict rules shared by a family of claims. Each factory returns a rule
rule(ctx, claim) -> (measured, verdict, reason) (see claims/core.py); the
figure the rule reads is the claim's unless the factory is told otherwise.
"""

import math

from claims.core import FAILS, HOLDS, NM, f_pct, f_rate, f_ratio


def verdict(ok, yes, no):
    """(HOLDS, yes) or (FAILS, no)."""
    return (HOLDS, yes) if ok else (FAILS, no)


def on_figure(judge):
    """A rule on the statistics of the claim's figure: judge(ctx, claim, stats);
    not measurable, with the reason, when that figure has no data."""
    def rule(ctx, c):
        stats = ctx.st(c.figure)
        if not stats:
            return "", NM, ctx.missing(c.figure)
        return judge(ctx, c, stats)
    return rule


def serial_error_above(bound, use):
    """Serial's |error| (the use column of each point: min or median of the runs)
    is above bound % at every thread count >= claim.threads."""
    def rule(ctx, c):
        stats = ctx.st(c.figure)
        if not stats or "Serial" not in stats:
            return "", NM, ctx.missing(c.figure) if not stats else "Serial was not measured"
        xs = [x for x in sorted(stats["Serial"]) if x >= c.threads]
        good = [x for x in xs if not stats["Serial"][x]["oversub"]]
        if not good:
            return ("Serial |error| " + ctx.context_at_max(stats, ["Serial"], f_pct, use),
                    NM, ctx.threads_reason(c, stats))
        parts = ["%d thr: %s" % (x, f_pct(stats["Serial"][x][use])) for x in good]
        ok = all(stats["Serial"][x][use] > bound for x in good)
        what = "least of the runs" if use == "min" else "median of the runs"
        return (("Serial |error| (%s): %s" % (what, "; ".join(parts)),) + verdict(
            ok, "%s above %g%% at every thread count >= %d" % (what, bound, c.threads),
            "%s not above %g%% at some thread count >= %d" % (what, bound, c.threads)))
    return rule


def context_ratio(ctx, stats, num, den):
    xs = ctx.xs(stats, num + den)
    if not xs:
        return ""
    t = xs[-1]
    dv = stats.get(den[0], {}).get(t)
    if not dv or not dv["median"]:
        return ""
    parts = ["%s %s" % (s, f_ratio(stats[s][t]["median"] / dv["median"]))
             for s in num if s in stats and t in stats[s]]
    return "at %d threads (the most here), over %s: %s" % (t, den[0], ", ".join(parts))


def throughput_ratio_above(num, den, bound, den_max=False):
    """median(num series) / median(den series) at claim.threads threads, every
    ratio > bound. den_max: divide by the largest median among the den series."""
    @on_figure
    def rule(ctx, c, stats):
        t = c.threads
        why = ctx.nodes_reason(c)
        if why:
            return context_ratio(ctx, stats, num, den), NM, why
        pts = {}
        for s in num + den:
            p, why = ctx.point(c, stats, s, t)
            if p is None:
                return context_ratio(ctx, stats, num, den), NM, why
            pts[s] = p["median"]
        if den_max:
            dname = max(den, key=lambda s: pts[s])
            dtext = "the best of %s (%s, %s)" % ("/".join(den), dname, f_rate(pts[dname]))
        else:
            dname = den[0]
            dtext = "%s (%s)" % (dname, f_rate(pts[dname]))
        dv = pts[dname]
        ratios = [(s, pts[s] / dv if dv > 0 else float("inf")) for s in num]
        meas = "median throughput at %d threads over %s: %s" % (
            t, dtext, ", ".join("%s %s" % (s, f_ratio(r)) for s, r in ratios))
        return (meas,) + verdict(all(r > bound for _, r in ratios),
                                 "every ratio above %gx" % bound,
                                 "some ratio at or below %gx" % bound)
    return rule


def pairwise_faster(pairs):
    """For each (a, b): a's median throughput above b's at every common thread count."""
    @on_figure
    def rule(ctx, c, stats):
        parts, ok = [], True
        for a, b in pairs:
            if a not in stats or b not in stats:
                return "", NM, "%s or %s was not measured" % (a, b)
            ts = sorted(set(stats[a]) & set(stats[b]))
            rs = [(t, stats[a][t]["median"] / stats[b][t]["median"]) for t in ts
                  if stats[b][t]["median"] > 0]
            ok = ok and all(r > 1.0 for _, r in rs)
            parts.append("%s/%s: %s" % (a, b, ", ".join("%s at %d thr" % (f_ratio(r), t)
                                                          for t, r in rs)))
        tmax = max(x for pts in stats.values() for x in pts)
        return (("median throughput ratios " + "; ".join(parts),) + verdict(
            ok, "faster at every thread count measured (1-%d)" % tmax,
            "not faster at some thread count"))
    return rule


def one_thread_work_ratio(variant, judge):
    """variant's 1-thread median at 0% work (dice-fig4-high) over 99% work
    (dice-fig4-low); judge(ratio) -> (ok, holds reason, fails reason)."""
    def rule(ctx, c):
        lo, hi = ctx.st("dice-fig4-low"), ctx.st("dice-fig4-high")
        if not lo or not hi:
            return "", NM, ctx.missing("dice-fig4-low" if not lo else "dice-fig4-high")
        a, why = ctx.point(c, hi, variant, 1)
        b, why2 = ctx.point(c, lo, variant, 1)
        if a is None or b is None:
            return "", NM, why or why2
        r = a["median"] / b["median"]
        measured = "%s at 1 thread: %s (0%% work) / %s (99%% work) = %s" % (
            variant, f_rate(a["median"]), f_rate(b["median"]), f_ratio(r))
        return (measured,) + verdict(*judge(r))
    return rule


def rstdv_within(variant, bound_of):
    """The RMS relative error of every timed run of variant (dice-fig4-low/high)
    within bound_of(params), allowing two standard errors of an RMS of k values."""
    def rule(ctx, c):
        rows = ctx.timed_rows(("dice-fig4-low.csv", "dice-fig4-high.csv"), [variant])
        k = len(rows)
        if k < 10:
            return ("%d %s runs" % (k, variant), NM,
                    "needs at least 10 runs of %s in dice-fig4-low/high.csv" % variant)
        rms = math.sqrt(sum(r["rel_error"] ** 2 for r in rows) / k)
        bound = max(bound_of(r["params_map"]) for r in rows)
        tol = 1.0 + 2.0 / math.sqrt(2.0 * k)  # two standard errors of an RMS estimate of k values
        return (("RMS relative error over %d runs (all thread counts, both work levels): %s; "
                 "bound %s (verdict allows x%.2f for sampling error)"
                 % (k, f_pct(100 * rms), f_pct(100 * bound), tol),)
                + verdict(rms <= bound * tol, "RMS within the bound", "RMS above the bound"))
    return rule
