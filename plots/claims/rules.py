# SPDX-License-Identifier: MIT
"""Verdict rules shared by a family of claims. Each factory returns a rule
rule(ctx, claim) -> (measured, verdict, reason) (see claims/core.py); the
figure the rule reads is the claim's unless the factory is told otherwise.
"""

import math

from claims.core import (ABOUT, CONDITION, CONSISTENT, FAILS, FEW_PERCENT, HOLDS,  # noqa: F401
                         INCONCLUSIVE, NM, STARTUP_FACTOR, f_n, f_pct, f_rate, f_ratio,
                         not_measurable)
from endstates import never_switched
from stats import (SEQ_BAND, SEQ_LOOKS, hl_interval, median_interval, percentile,
                   ratio_false_verdict, seq_first_look, seq_look_rate)


# The papers' scale of words (FEW_PERCENT, ABOUT) is declared once in claims/core.py.


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
            "%s not above %g%% at some thread count >= %d" % (what, bound, c.threads))
            + (min(stats["Serial"][x]["n"] for x in good),))
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


# --- one rule for every comparison of medians: every point in range, each checked
# --- for whether a single run decides it (leave one run out, each in turn) ----------

def loo_medians(values):
    """The medians of the runs with one run left out, each in turn (a jackknife)."""
    if len(values) < 2:
        return list(values)
    return [percentile(values[:i] + values[i + 1:], 0.5) for i in range(len(values))]


def div(a, b):
    return a / b if b > 0 else float("inf")


def ratio_interval(va, vb):
    """(lo, hi, rate): the interval on median(a)/median(b) from the two series'
    order-statistic median intervals (stats.median_interval), and the most it
    decides a ratio on its line under the null (stats.ratio_false_verdict)."""
    la, ha, qa = median_interval(va)
    lb, hb, qb = median_interval(vb)
    return div(la, hb), div(ha, lb), ratio_false_verdict(qa, qb)


class Fragile(str):
    """Why a point is not decided (ratio_point's fragile); near: the point lies
    within SEQ_BAND of its line on fewer than SEQ_LOOKS[-1] runs a side, so more
    runs may decide it (run-all's --confirm adds them)."""
    near = False


def fragile(text, near):
    out = Fragile(text)
    out.near = near
    return out


def line_gap(r, ok, band=SEQ_BAND, steps=400):
    """The ratio's distance from its line, as a factor: the smallest f > 1 on a
    geometric grid of steps up to band with ok(r f) or ok(r / f) unlike ok(r);
    None when the answer does not change within band either way."""
    if not 0 < r < float("inf"):
        return None
    base = ok(r)
    for i in range(1, steps + 1):
        f = band ** (i / steps)
        if ok(r * f) != base or ok(r / f) != base:
            return f
    return None


def ratio_point(pa, pb, ok):
    """(median(a)/median(b), ok of it, fragile): fragile is why the point clears
    its line by less than the noise (the "noise" rule), or "": the ratio's
    verdict changes when one run of a or of b is left out, or the line falls
    inside the interval on the ratio of medians (ratio_interval: each median's
    distribution-free order-statistic interval; it narrows as runs are added,
    unlike the min-max bands it replaced, which only widen). Within SEQ_BAND of
    its line (the "sequential" rule) a point is decided only by near_point."""
    r = div(pa["median"], pb["median"])
    base = ok(r)
    va, vb = pa["values"], pb["values"]
    gap = line_gap(r, ok)
    if gap is not None:
        return r, base, near_point(va, vb, ok, base, gap)
    alts = [ok(div(a, pb["median"])) for a in loo_medians(va)]
    alts += [ok(div(pa["median"], b)) for b in loo_medians(vb)]
    if any(x != base for x in alts):
        return r, base, fragile("one run decides it: leaving one run out changes the answer",
                                min(len(va), len(vb)) < seq_first_look())
    if min(len(va), len(vb)) < seq_first_look():
        lo, hi, w = first_look_band(va, vb)
        if ok(lo) != base or ok(hi) != base:
            return r, base, fragile(
                "within the noise at the first look: on %d and %d runs the band of every run "
                "of a over every run of b, widened by the larger spread within a side "
                "(%s), %s-%s, does not clear the line" % (len(va), len(vb), f_ratio(w),
                                                          f_ratio(lo), f_ratio(hi)), True)
    if len(va) > 1 and len(vb) > 1:
        lo, hi, rate = ratio_interval(va, vb)
        if ok(lo) != base or ok(hi) != base:
            return r, base, fragile(
                "within the noise: the interval on the ratio of medians, %s-%s "
                "(%d and %d runs; false-verdict rate on the line at most %.3g%%), "
                "straddles the line" % (f_ratio(lo), f_ratio(hi), len(va), len(vb),
                                        100 * rate), False)
    return r, base, ""


def first_look_band(va, vb):
    """(lo, hi, w): the band [min(a)/max(b), max(a)/min(b)] widened by w either way, w
    the larger of max/min within a side. Before the sequential rule's first deciding
    look no exact interval reaches its rate, so a point far from its line must clear
    it by more than its own runs' spread: a test free of the noise's scale (doc/design.md
    gives its simulated rate)."""
    w = max(div(max(va), min(va)), div(max(vb), min(vb)))
    return div(min(va), max(vb)) / w, div(max(va), min(vb)) * w, w


def near_point(va, vb, ok, base, gap):
    """Why a point within SEQ_BAND of its line (gap: its distance, a factor) is not
    decided, or "": the sequential rule's look is the largest of SEQ_LOOKS at most
    its runs a side, and there the Mann-Whitney interval on the Hodges-Lehmann
    ratio (stats.hl_interval, one-sided tail half the look's rate) must lie wholly
    on the side of the ratio of medians. Before the last look it is "near" (run-all's
    --confirm adds runs to it)."""
    n = min(len(va), len(vb))
    near = n < SEQ_LOOKS[-1]
    look = max((k for k in SEQ_LOOKS if k <= n), default=None)
    where = "near its line (%.3g%% from it) on %d runs a side" % (100 * (gap - 1), n)
    if look is None or look < seq_first_look():
        return fragile("%s: the sequential rule decides so near a line only at its looks, "
                       "%s runs a side, the first that can decide at %d (each look's "
                       "false-verdict rate at most %.3g%%)"
                       % (where, ", ".join(map(str, SEQ_LOOKS)), seq_first_look(),
                          100 * seq_look_rate()), near)
    hl = hl_interval(va, vb, seq_look_rate() / 2)
    if hl is None:
        return fragile("%s: no Hodges-Lehmann interval (a value at or below zero)" % where, near)
    lo, hi = math.exp(hl[1]), math.exp(hl[2])
    if ok(lo) != base or ok(hi) != base:
        return fragile("within the noise: %s the Mann-Whitney interval on the Hodges-Lehmann "
                       "ratio %s, %s-%s (%d and %d runs, look %d; false-verdict rate at this "
                       "look at most %.3g%%), does not clear the line"
                       % (where, f_ratio(math.exp(hl[0])), f_ratio(lo), f_ratio(hi), len(va),
                          len(vb), look, 200 * hl[3]), near)
    return ""


def judge_points(pts, yes, no, unit=f_ratio):
    """pts: [(where, ratio, ok, fragile, runs)] -> (verdict, reason, runs). A point
    that fails and no single run decides is a failure; otherwise a point that
    one run decides makes the claim inconclusive."""
    runs = min(p[4] for p in pts)
    bad = [p for p in pts if not p[2] and not p[3]]
    frag = [p for p in pts if p[3]]
    if bad:
        return FAILS, "%s (%s)" % (no, "; ".join("%s %s" % (p[0], unit(p[1])) for p in bad[:4])), runs
    if frag:
        return INCONCLUSIVE, "not decided beyond the noise: %s" % "; ".join(
            "at %s %s" % (p[0], p[3]) if isinstance(p[3], str) else "at %s one run decides it"
            % p[0] for p in frag[:4]), runs
    if any(not p[2] for p in pts):
        return FAILS, no, runs
    return HOLDS, yes, runs


def describe(points, xname):
    """'A/B: 1.2x at 1 thr, 0.9x at 2 thr' per pair, or a range over many x."""
    out = []
    for pair, pp in points:
        if len(pp) <= 3:
            out.append("%s: %s" % (pair, ", ".join("%s at %s" % (f_ratio(r), x)
                                                    for x, r in pp)))
        else:
            rs = [r for _, r in pp]
            out.append("%s: %s-%s over %d %s (%s..%s)" % (
                pair, f_ratio(min(rs)), f_ratio(max(rs)), len(pp), xname, pp[0][0], pp[-1][0]))
    return "; ".join(out)


def compare_medians(pairs, ok, yes, no, figures=None, at=None, xsel=None,
                    xtext=lambda x: "%d thr" % x, xname="thread counts", den_best=False,
                    panel="", exclude=(), none_left=None):
    """The one rule of the throughput and time comparisons: for each (a, [b...])
    of pairs, median(a)/median(b) (b: the first, or with den_best the largest
    median among them at that point) must satisfy ok(ratio) at every point in
    range: every thread count (or N) of every figure measured, or with at
    (an int, or "claim": claim.threads) only that thread count; xsel(ctx, c,
    stats, x) may exclude x. Oversubscribed points are left out. exclude: the
    "condition" rule's filters (outside_condition below), each
    f(ctx, stats, x, series) -> why the point is outside the claim's condition,
    or None; the points left out are named, and with none left the claim is not
    measurable (none_left: (cause, why), by default the condition never arose)."""
    def rule(ctx, c):
        figs = figures or c.figure.split(", ")
        pts, shown, left = [], [], []
        for fid in figs:
            stats = ctx.st(fid, panel)
            if not stats:
                return "", NM, ctx.missing(fid)
            for a, den in pairs:
                for s in [a] + den:
                    if s not in stats:
                        return "", NM, "%s was not measured" % s
                want = c.threads if at == "claim" else at
                if want is not None:
                    for s in [a] + den:
                        p, why = ctx.point(c, stats, s, want)
                        if p is None:
                            num = [x for x, _ in pairs]
                            return context_ratio(ctx, stats, num, den), NM, why
                    xs = [want]
                else:
                    xs = sorted(set(stats[a]).intersection(*[set(stats[b]) for b in den]))
                    xs = [x for x in xs if not any(stats[s][x]["oversub"] for s in [a] + den)]
                    if xsel:
                        xs = [x for x in xs if xsel(ctx, c, stats, x, [a] + den)]
                kept = []
                for x in xs:
                    why = [w for w in (f(ctx, stats, x, [a] + den) for f in exclude) if w]
                    if why:
                        left.append("%s%s: %s" % (xtext(x), "" if len(figs) == 1
                                                  else " (%s)" % fid, why[0]))
                    else:
                        kept.append(x)
                pp = []
                for x in kept:
                    b = max(den, key=lambda s: stats[s][x]["median"]) if den_best else den[0]
                    r, good, frag = ratio_point(stats[a][x], stats[b][x], ok)
                    if getattr(frag, "near", False):
                        ctx.need_runs(fid, panel, [a, b], x, min(stats[a][x]["n"],
                                                                  stats[b][x]["n"]))
                    where = "%s%s" % (xtext(x), "" if len(figs) == 1 else " (%s)" % fid)
                    pts.append(("%s/%s at %s" % (a, b, where) if len(pairs) > 1 or den_best
                                else where,
                                r, good, frag, min(stats[a][x]["n"], stats[b][x]["n"])))
                    pp.append((xtext(x) + ("" if len(figs) == 1 else " " + fid.split("-")[-1]), r))
                if pp:
                    shown.append(("%s/%s" % (a, "best of " + "/".join(den) if den_best
                                             else den[0]), pp))
        left_text = ("left out (outside the claim's condition): %s" % "; ".join(
            sorted(set(left)))) if left else ""
        if not pts:
            if left:
                return left_text, NM, not_measurable(*(none_left or (
                    CONDITION, "no point in range meets the claim's condition (%s)"
                    % sorted(set(left))[0])))
            return "", NM, "no %s in range with every series measured" % xname
        verdict_, reason, runs = judge_points(pts, yes, no)
        meas = "median ratios " + describe(shown, xname)
        return (meas + ("; " + left_text if left else ""), verdict_, reason, runs)
    return rule


# --- the "condition" rule's filters (exclude= of compare_medians) ---------------------

def never_switched_among(variants):
    """Leave out a point where an adaptive variant of variants never left its
    initial mode in any run (a claim about its switched mode)."""
    def f(ctx, stats, x, series):
        for s in series:
            if s in variants and never_switched(stats[s][x], s):
                return "%s never switched (every run ended in its initial mode)" % s
        return None
    return f


def exact_probabilistic(probabilistic):
    """Leave out a point where a probabilistic variant was exact in every run: it
    never left its precise mode there, by design (BFP-CSUP grows its exponent only
    under contention), so it is not what the claim compares."""
    def f(ctx, stats, x, series):
        for s in series:
            rows = stats[s][x].get("rows", [])
            errs = [r.get("rel_error") for r in rows]
            if s in probabilistic and errs and all(e == 0 for e in errs):
                return ("%s exact in every run (it never left its precise mode here, by "
                        "design)" % s)
        return None
    return f


def startup_dominated(ctx, stats, x, series):
    """Leave out an N where some series' median time is below STARTUP_FACTOR times
    its median at the smallest N (its start-up): "at high counts"."""
    for s in series:
        first = stats[s][min(stats[s])]["median"]
        if stats[s][x]["median"] < STARTUP_FACTOR * first:
            return ("%s's time is under %dx its start-up time (%.3g us at the smallest N)"
                    % (s, STARTUP_FACTOR, 1e6 * first))
    return None


def counts_at_most(limit, what):
    """Leave out a point where the median true count of a run is above limit: the
    claim's condition is a low count (what says whose words)."""
    def f(ctx, stats, x, series):
        for s in series:
            ops = sorted(r["ops"] for r in stats[s][x].get("rows", []) if r.get("ops"))
            if ops and percentile(ops, 0.5) > limit:
                return ("%s counted %s-%s (%s; here a low count is at most %s)"
                        % (s, f_n(ops[0]), f_n(ops[-1]), what, f_n(limit)))
        return None
    return f


def throughput_ratio_above(num, den, bound, den_max=False):
    """median(num series) / median(den series) at exactly claim.threads threads,
    every ratio > bound. den_max: divide by the largest median among the den series."""
    return compare_medians([(s, den) for s in num], lambda r: r > bound,
                           "every ratio above %gx" % bound, "some ratio at or below %gx" % bound,
                           at="claim", den_best=den_max)


def pairwise_faster(pairs):
    """For each (a, b): a's median throughput above b's at every thread count measured."""
    return compare_medians([(a, [b]) for a, b in pairs], lambda r: r > 1.0,
                           "faster at every thread count measured", "not faster")


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
        r, good, frag = ratio_point(a, b, lambda x: judge(x)[0])
        measured = "%s at 1 thread: %s (0%% work) / %s (99%% work) = %s" % (
            variant, f_rate(a["median"]), f_rate(b["median"]), f_ratio(r))
        runs = min(a["n"], b["n"])
        if frag:
            return measured, INCONCLUSIVE, "not decided beyond the noise: " + frag, runs
        return (measured,) + verdict(*judge(r)) + (runs,)
    return rule


def rstdv_within(variant, bound_of, limit_only=False, outside=None):
    """The RMS relative error of every timed run of variant (dice-fig4-low/high)
    within bound_of(params), allowing two standard errors of an RMS of k values.
    limit_only: the paper's bound holds only as the count tends to infinity (a
    heuristic at any finite count), and the measurement says so. outside(row):
    why a run has left the process the bound describes (the "condition" rule),
    or None; such runs are named and not judged."""
    def rule(ctx, c):
        rows = ctx.timed_rows(("dice-fig4-low.csv", "dice-fig4-high.csv"), [variant])
        left = [(r, outside(r)) for r in rows if outside and outside(r)]
        rows = [r for r in rows if not (outside and outside(r))]
        left_text = ("; left out (outside the claim's condition): %d runs, %s"
                     % (len(left), left[0][1]) if left else "")
        k = len(rows)
        if not k:
            if left:
                return left_text[2:], NM, not_measurable(CONDITION, "every run of %s is "
                                                         "outside the claim's condition" % variant)
            return "", NM, "no run of %s in dice-fig4-low/high.csv" % variant
        rms = math.sqrt(sum(r["rel_error"] ** 2 for r in rows) / k)
        bound = max(bound_of(r["params_map"]) for r in rows)
        tol = 1.0 + 2.0 / math.sqrt(2.0 * k)  # two standard errors of an RMS estimate of k values
        ops = sorted(r["ops"] for r in rows)
        meas = ("RMS relative error over %d runs (all thread counts, both work levels): %s; "
                "bound %s (sampling tolerance x%.2f: two standard errors of an RMS of %d values); "
                "true counts %s..%s increments %s"
                % (k, f_pct(100 * rms), f_pct(100 * bound), tol, k, f_n(ops[0]), f_n(ops[-1]),
                   "(the paper's bound holds only in the limit: at these counts it is the "
                   "heuristic the paper uses)" if limit_only else
                   "(the bound holds at every count, so runs of any length test it)")) + left_text
        if rms <= bound:
            return meas, HOLDS, "RMS within the bound", k
        if rms <= bound * tol:
            return (meas, CONSISTENT, "RMS above the bound by x%.2f, within the sampling "
                    "tolerance x%.2f" % (rms / bound, tol), k)
        return meas, FAILS, "RMS above the bound beyond the sampling tolerance", k
    return rule
