# SPDX-License-Identifier: MIT
"""The statistics of the aggregator (STYLE.md principle 7: computed once, here).

Standard library only, so that the aggregator runs under any python3.

Why hand-written: statistics.quantiles(xs, n=20, method="inclusive") and
statistics.median define the same percentiles as percentile() below (type 7,
numpy's default), but round differently in the last bit (checked on the
reference result set most points differ by an ulp or two), and the claims
compare these numbers with bounds; statistics.correlation(method="ranked")
(Spearman) needs Python 3.12. plots/tests/test_aggregate.py checks percentile() against
statistics.quantiles to 1e-12, so the two can never drift apart in substance.
"""

import math

PCT_METHOD = ("linear interpolation between order statistics (Hyndman-Fan type 7, "
              "numpy's default): with the n values sorted x[0..n-1], h = (n-1)p and "
              "P(p) = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h])")
STATS_TEXT = ("over the runs of each point: n (runs used), median, min, max, mean, "
              "p5, p95 (5th and 95th percentiles)")
Z_5_95 = 1.6448536269514722  # standard normal quantile of 0.95: the 5th-95th band is mean +- z sigma


def percentile(xs, p):
    """p in [0, 1] of the sorted list xs, by PCT_METHOD."""
    if not xs:
        return None
    h = (len(xs) - 1) * p
    lo = int(math.floor(h))
    if lo + 1 >= len(xs):
        return xs[-1]
    return xs[lo] + (h - lo) * (xs[lo + 1] - xs[lo])


def median(xs):
    """The median of the values xs (any order), by PCT_METHOD; None if empty."""
    return percentile(sorted(xs), 0.5)


def summarize(values):
    """n, median, min, max, mean, p5, p95 and the sorted values; None when none is a number."""
    xs = sorted(v for v in values if v is not None and not math.isnan(v))
    if not xs:
        return None
    return {"n": len(xs), "median": percentile(xs, 0.5), "min": xs[0], "max": xs[-1],
            "mean": sum(xs) / len(xs), "p5": percentile(xs, 0.05),
            "p95": percentile(xs, 0.95), "values": xs}


# The "noise" rule's interval (plots/claims/rules.py ratio_point): a
# distribution-free (order-statistic) interval on a median. With n runs sorted
# x[1..n], [x[k], x[n+1-k]] misses the true median on one side with probability
# P(Bin(n, 1/2) <= k-1), whatever the distribution; k is the largest with that
# miss at most MEDIAN_TAIL (at least 1: with fewer than 7 runs no k qualifies
# and the interval is the min-max band, its one-sided miss 2^-n).
MEDIAN_TAIL = 0.0125


def binom_half_cdf(n, k):
    """P(Bin(n, 1/2) <= k), exactly (as a float)."""
    if k < 0:
        return 0.0
    return sum(math.comb(n, i) for i in range(min(k, n) + 1)) / 2.0 ** n


def median_order(n, tail=MEDIAN_TAIL):
    """(k, miss): the order statistic k (from 1) of the median interval of n runs
    and its one-sided miss P(Bin(n, 1/2) <= k-1)."""
    k = 1
    while k + 1 <= (n + 1) // 2 and binom_half_cdf(n, k) <= tail:
        k += 1
    return k, binom_half_cdf(n, k - 1)


def median_interval(xs, tail=MEDIAN_TAIL):
    """(lo, hi, miss): the order-statistic interval on the median of the values xs
    (any order) and its one-sided miss; None if empty."""
    v = sorted(xs)
    if not v:
        return None
    k, miss = median_order(len(v), tail)
    return v[k - 1], v[len(v) - k], miss


def ratio_false_verdict(miss_a, miss_b):
    """The most a ratio interval [lo_a/hi_b, hi_a/lo_b] built from two median
    intervals with these one-sided misses can decide a ratio whose true value lies
    on the line, either way: lying wholly on one side needs one of the two
    intervals to miss on the matching side, so at most 1 - (1 - miss_a)(1 - miss_b)
    per side, twice that in all (any distributions, independent series)."""
    return 2.0 * (1.0 - (1.0 - miss_a) * (1.0 - miss_b))


# Bimodal throughput: a point's runs split in two groups when two
# neighbours of its sorted runs differ by more than BIMODAL_GAP (a ratio): more than
# run-to-run noise (a few percent here), e.g. one run of three 1.3-3.5x faster.
BIMODAL_GAP = 1.25


def bimodal_split(values):
    """(runs below the gap, runs above it, ratio of the gap) of a point's values
    when they split in two by more than BIMODAL_GAP, else None (fewer than 3 runs
    cannot show two groups beside noise)."""
    v = sorted(x for x in values if x is not None and x > 0)
    if len(v) < 3:
        return None
    gaps = [(v[i + 1] / v[i], i) for i in range(len(v) - 1)]
    g, i = max(gaps)
    return (i + 1, len(v) - i - 1, g) if g > BIMODAL_GAP else None


# A batched read sample (results/README.md, read_k) resolves its gets when one
# timer step is at most this share of the sample (at least 100 steps).
BATCH_MAX_STEP_SHARE = 0.01


def batched_reads(rows):
    """How read-cost's samples were timed, from its rows (schema 6: read_k,
    read_sample_steps, timer_step_ns, and PerCPUTree's read_fast_*), or None
    when a row with a reading lacks them (one get per sample, schema 5 or
    older). A dict: k_min, k_max (gets per sample), step_ns (the largest
    timer step of the runs), steps_min (the shortest median sample, in
    steps), share (step over sample at steps_min), per_get_ns (the largest
    step / K: what one get's figure resolves), resolved (share at most
    BATCH_MAX_STEP_SHARE for every run)."""
    ks, steps, per_get, step_ns = [], [], [], []
    for r in rows:
        for ns, k, st in (("read_ns", "read_k", "read_sample_steps"),
                          ("read_fast_ns", "read_fast_k", "read_fast_sample_steps")):
            if r.get(ns) is None:
                continue
            if not r.get(k) or r.get(st) is None or not r.get("timer_step_ns"):
                return None
            ks.append(r[k])
            steps.append(r[st])
            step_ns.append(r["timer_step_ns"])
            per_get.append(r["timer_step_ns"] / r[k])
    if not ks:
        return None
    lo = min(steps)
    share = 1.0 / lo if lo > 0 else float("inf")
    return {"k_min": min(ks), "k_max": max(ks), "step_ns": max(step_ns), "steps_min": lo,
            "share": share, "per_get_ns": max(per_get),
            "resolved": share <= BATCH_MAX_STEP_SHARE}


def batched_ks(b):
    """The gets per sample of batched_reads b: "512" or "256-2048"."""
    return ("%d" % b["k_min"] if b["k_min"] == b["k_max"] else
            "%d-%d" % (b["k_min"], b["k_max"]))


def batched_text(b):
    """The sentence saying how batched read samples resolve (b: batched_reads)."""
    ks = batched_ks(b)
    return ("each sample times %s consecutive gets; the timer's step (%.3g ns) is %.2g%% "
            "of the shortest sample (%.0f steps), so a get's figure moves in steps of at "
            "most %.2g ns" % (ks, b["step_ns"], 100.0 * b["share"], b["steps_min"],
                              b["per_get_ns"]))


def timer_step(values, resolution):
    """The step in which a timer's readings move (ns), measured: the smallest gap
    between distinct values larger than half the nominal resolution (ns per
    tick), then the mean of the gaps within half a step of it; None with fewer than
    3 distinct values. A coarser step than the tick means the clock source
    advances in steps of several ticks."""
    v = sorted(set(round(x, 6) for x in values if x is not None))
    gaps = [b - a for a, b in zip(v, v[1:]) if b - a > resolution / 2.0]
    if len(v) < 3 or not gaps:
        return None
    g0 = min(gaps)
    near = [g for g in gaps if abs(g - g0) <= g0 / 2.0]
    return sum(near) / len(near)


def ranks(v):
    """Ranks from 0, ties given the average of their positions."""
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0.0] * len(v)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r


def spearman(xs, ys):
    """Spearman's rank correlation (average ranks for ties); None if undefined."""
    if len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def first_order(rows, key):
    """Distinct key(row) values in order of first appearance."""
    seen, out = set(), []
    for r in rows:
        k = key(r)
        if k not in seen:
            seen.add(k)
            out.append(k)
    return out


def group_stats(rows, series_of, x_of, y_of, envelope=None):
    """{series: {x: stats}} in order of first appearance; stats is summarize()'s
    plus total (runs of the point), oversub, and env_lo/env_hi from envelope."""
    out = {}
    buckets = {}
    for r in rows:
        buckets.setdefault((series_of(r), x_of(r)), []).append((y_of(r), r))
    for s in first_order(rows, series_of):
        out[s] = {}
    for (s, x), items in buckets.items():
        st = summarize([y for y, _ in items])
        if st is None:
            continue
        st["total"] = len(items)  # runs of the point, n of them with a value
        st["oversub"] = any((r.get("oversubscribed") or 0) > 0 for _, r in items)
        st["rows"] = [r for _, r in items]   # the runs themselves (end states, counts)
        st["env_lo"], st["env_hi"] = envelope(s, x, items[0][1]) if envelope else (None, None)
        out[s][x] = st
    return {s: pts for s, pts in out.items() if pts}


HIST_PCT_METHOD = ("the percentile p of a histogram of n counts is the midpoint of the bucket "
                   "holding rank ceil(p n) (the rank scbench uses for its lat_* columns)")


def histogram_percentile(buckets, p):
    """p in (0, 1) of a histogram {(low, high): count} by HIST_PCT_METHOD; None if empty.
    p is given as a fraction num/den (e.g. (999, 1000)) so the rank is exact."""
    num, den = p
    total = sum(buckets.values())
    if total == 0:
        return None
    rank = max(1, -(-num * total // den))
    seen = 0
    for (lo, hi) in sorted(buckets):
        seen += buckets[(lo, hi)]
        if seen >= rank:
            return (lo + hi) / 2.0
    return None


def pool_histograms(hists):
    """The sum, bucket by bucket, of histograms {(low, high): count}."""
    out = {}
    for h in hists:
        for b, n in h.items():
            out[b] = out.get(b, 0) + n
    return out


# The sequential rule: a point whose ratio lies near its line, within a factor
# SEQ_BAND of it, is decided by the Hodges-Lehmann shift of log values (the median
# of the m n differences log a_i - log b_j) with its Mann-Whitney interval: with the
# differences sorted d[1..mn], [d[k], d[mn+1-k]] misses the true shift on one side
# with probability P(U <= k-1), U the Mann-Whitney count under the null of two
# samples from one distribution shifted (exact, distribution-free, any continuous
# distribution). One interval on the ratio (exp of its ends), not two median
# intervals multiplied. It is decided only at the looks of SEQ_LOOKS (runs a side;
# the first is the planned rounds', the last the most run-all's --confirm adds),
# each look's two-sided rate at most SEQ_TOTAL / len(SEQ_LOOKS), so that the rate
# over every look, the first included, is at most SEQ_TOTAL by the union bound
# (Bonferroni spending), whatever the dependence between looks. A look whose
# smallest attainable rate, 2 / C(2n, n), is above its share (3 runs a side: 10%)
# decides nothing there: the first look that can decide is seq_first_look().
SEQ_BAND = 1.25
SEQ_LOOKS = (3, 6, 12)
SEQ_TOTAL = 0.05


def seq_look_rate():
    """The two-sided false-verdict rate allowed at one look of the schedule."""
    return SEQ_TOTAL / len(SEQ_LOOKS)


def mw_null_cdf(m, n):
    """[P(U <= u) for u in 0..m n]: the exact null distribution of the Mann-Whitney
    count U of m against n values (no ties), by the recurrence on the count of
    arrangements."""
    # ways[i][j][u]: arrangements of i values against j with count u, built row by row
    prev = [[1] for _ in range(n + 1)]        # i = 0: one arrangement, u = 0
    for i in range(1, m + 1):
        cur = [[1]]                           # j = 0: one arrangement, u = 0
        for j in range(1, n + 1):
            a, b = prev[j], cur[j - 1]        # the largest value an a (U += j) or a b
            w = [0] * (i * j + 1)
            for u, c in enumerate(a):
                w[u + j] += c
            for u, c in enumerate(b):
                w[u] += c
            cur.append(w)
        prev = cur
    total = math.comb(m + n, m)
    out, acc = [], 0
    for c in prev[n]:
        acc += c
        out.append(acc / total)
    return out


_MW_ORDER = {}


def mw_order(m, n, tail):
    """(k, miss): the order statistic k (from 1) of the m n sorted differences whose
    interval [d[k], d[mn+1-k]] misses on one side with probability miss = P(U <= k-1)
    <= tail, k the largest such; (0, 1.0) when even k = 1 misses more often."""
    key = (m, n, tail)
    if key not in _MW_ORDER:
        cdf = mw_null_cdf(m, n)
        k = 0
        while k < (m * n + 1) // 2 and cdf[k] <= tail:
            k += 1
        _MW_ORDER[key] = (k, cdf[k - 1] if k else 1.0)
    return _MW_ORDER[key]


def hl_interval(xs, ys, tail):
    """(shift, lo, hi, miss): the Hodges-Lehmann shift of log(xs) over log(ys) and its
    Mann-Whitney interval at one-sided tail (miss attained), or None when the
    values cannot be logged or no interval reaches tail at these sizes."""
    if not xs or not ys or min(xs) <= 0 or min(ys) <= 0:
        return None
    k, miss = mw_order(len(xs), len(ys), tail)
    if not k:
        return None
    d = sorted(math.log(x) - math.log(y) for x in xs for y in ys)
    return percentile(d, 0.5), d[k - 1], d[len(d) - k], miss


def seq_first_look():
    """The fewest runs a side at a look of SEQ_LOOKS where the rule can decide."""
    return next(n for n in SEQ_LOOKS if mw_order(n, n, seq_look_rate() / 2)[0])


def seq_total_rate():
    """The two-sided rate over every look of SEQ_LOOKS (union bound): the sum of the
    rates the intervals attain at equal sizes (below the budget: U is discrete)."""
    return sum(2.0 * mw_order(n, n, seq_look_rate() / 2)[1] for n in SEQ_LOOKS
               if mw_order(n, n, seq_look_rate() / 2)[0])
