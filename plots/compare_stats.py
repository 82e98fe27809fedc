# SPDX-License-Identifier: MIT
"""compare_stats.py - the statistics of plots/compare.py: Benjamini-Hochberg's
correction, the smallest detectable change, the
percentile bootstrap of a ratio of medians, and the empirical-Bayes moderated
t-test of log values (Smyth 2004) with its Mann-Whitney fallback. numpy and
scipy are passed in (np, sp) by the caller, which has checked they import.
The method as a whole is stated in compare.py's docstring and in COMPARE.md."""

import math
import multiprocessing
import os
import signal

SEED = 8            # numpy default_rng seed, restarted for every point's bootstrap
RESAMPLES = 10000   # bootstrap resamples of each set's runs
CONFIDENCE = 0.95   # of the ratio's interval
BLOCK = 1 << 20     # resampled values drawn at once (16 MiB of indices and values)


def bh(ps):
    """Benjamini-Hochberg adjusted p-values (false discovery rate) of the list ps
    (None stays None): p_(i) m / i, made monotone from the largest down."""
    idx = sorted((i for i, p in enumerate(ps) if p is not None), key=lambda i: ps[i])
    m = len(idx)
    adj = [None] * len(ps)
    run = 1.0
    for rank in range(m - 1, -1, -1):
        i = idx[rank]
        run = min(run, ps[i] * m / (rank + 1))
        adj[i] = run
    return adj


def detectable(sp, var, n_a, n_b, alpha, power):
    """The smallest ratio (> 1) a lone changed point of a family of m tests is
    flagged with probability `power`: its p must be below alpha (the caller
    passes alpha / m, the first step of Benjamini-Hochberg), so the log ratio
    must reach (t_{1-alpha/2} + t_power) x its standard error, with the
    moderated variance var = (s^2, df)."""
    v, df = var
    se = math.sqrt(v * (1.0 / n_a + 1.0 / n_b))
    dist = sp.stats.norm if math.isinf(df) else sp.stats.t(df)
    return math.exp((dist.ppf(1 - alpha / 2) + dist.ppf(power)) * se)


def ratio(a, b):
    if a == 0:
        return 1.0 if b == 0 else math.inf
    return b / a


def resampled_medians(np, rng, x):
    """The medians of RESAMPLES resamples of x, drawn BLOCK values at a time
    (an even number of resamples per block: the generator's stream, and so
    every median, is that of one draw of all RESAMPLES x len(x) indices, which
    took 16 bytes x RESAMPLES per run: 1.9 GB for 40,000 rows)."""
    n, out = len(x), np.empty(RESAMPLES)
    k = max(2, BLOCK // n // 2 * 2)
    for s in range(0, RESAMPLES, k):
        m = min(k, RESAMPLES - s)
        out[s:s + m] = np.median(x[rng.integers(0, n, size=(m, n))], axis=1)
    return out


def bootstrap_ci(np, a, b):
    """Percentile bootstrap interval of median(b)/median(a), seeded per point."""
    rng = np.random.default_rng(SEED)
    a, b = np.asarray(a, float), np.asarray(b, float)
    ma = resampled_medians(np, rng, a)
    mb = resampled_medians(np, rng, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(ma == 0, np.where(mb == 0, 1.0, np.inf), mb / np.where(ma == 0, 1, ma))
    tail = (1 - CONFIDENCE) / 2 * 100
    # Order statistics on the outer side (no interpolation: an infinite ratio stays one).
    return (float(np.percentile(r, tail, method="lower")),
            float(np.percentile(r, 100 - tail, method="higher")))


# Below this many resampled values in all (a few tenths of a second of work) the
# bootstrap runs in this process: a pool of workers would cost more than it saves.
PARALLEL_VALUES = 50_000_000


def _ignore_interrupt():
    # A Ctrl-C reaches the workers too; the parent alone answers it (the guard's
    # one line), and ends them by leaving the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _bootstrap_pair(pair):
    import numpy
    return bootstrap_ci(numpy, *pair)


def bootstrap_all(np, pairs):
    """[bootstrap_ci(np, a, b) for (a, b) in pairs], the points shared among
    this process's CPUs when there is enough work: each point is seeded on its
    own, so the intervals are those of one process, in the same order."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    work = RESAMPLES * sum(len(a) + len(b) for a, b in pairs)
    if cpus < 2 or len(pairs) < 2 or work < PARALLEL_VALUES:
        return [bootstrap_ci(np, a, b) for a, b in pairs]
    # fork: the workers share the points already in memory and import nothing anew
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(cpus, len(pairs)), initializer=_ignore_interrupt) as pool:
        return pool.map(_bootstrap_pair, pairs, chunksize=1)


def log_variances(pts):
    """{point key: (s^2, d)}: the within-set variance of log values of a point,
    A's and B's runs each about their own mean, with d = n_a + n_b - 2 degrees
    of freedom; only points with all values positive and d > 0."""
    out = {}
    for key, sets in pts.items():
        if min(min(v) for v in sets) <= 0:
            continue
        ss, d = 0.0, 0
        for vals in sets:
            logs = [math.log(v) for v in vals]
            mu = sum(logs) / len(logs)
            ss += sum((x - mu) ** 2 for x in logs)
            d += len(logs) - 1
        if d > 0:
            out[key] = (ss / d, d)
    return out


def variance_prior(sp, variances):
    """(s0^2, d0): the prior of the empirical Bayes moderated t (Smyth 2004,
    section 6.2) from the points' (s^2, d) of one figure panel: the moments of
    log s^2 give d0 (how alike the points' variances are; inf when they are as
    alike as sampling allows) and s0^2 (their typical size). Points with s^2 = 0
    (a deterministic measure) do not enter. (None, 0) when fewer than 3 points."""
    vs = [(v, d) for v, d in variances if v > 0]
    if len(vs) < 3:
        return None, 0
    special = sp.special
    e = [math.log(v) - special.digamma(d / 2.0) + math.log(d / 2.0) for v, d in vs]
    mean = sum(e) / len(e)
    spread = sum((x - mean) ** 2 for x in e) / (len(e) - 1) - \
        sum(special.polygamma(1, d / 2.0) for _, d in vs) / len(vs)
    if spread <= 0:
        return math.exp(mean), math.inf
    # trigamma(d0 / 2) = spread: Newton's method on the decreasing trigamma (Smyth's start).
    y = 0.5 + 1.0 / spread
    for _ in range(50):
        step = (special.polygamma(1, y) - spread) / special.polygamma(2, y)
        y -= step
        if y <= 0:
            y = 1e-8
        if abs(step) < 1e-10 * y:
            break
    d0 = 2 * y
    return math.exp(mean + special.digamma(y) - math.log(y)), d0


def moderated(variances, priors):
    """{point key: (moderated s^2, degrees of freedom)}: each point's variance
    shrunk towards its panel's prior, (d0 s0^2 + d s^2) / (d0 + d), d0 + d df."""
    out = {}
    for key, (v, d) in variances.items():
        s0, d0 = priors.get(key[0], (None, 0))
        if s0 is None or d0 == 0:
            out[key] = (v, d)
        elif math.isinf(d0):
            out[key] = (s0, math.inf)
        else:
            out[key] = ((d0 * s0 + d * v) / (d0 + d), d0 + d)
    return out


def test_point(sp, a, b, var):
    """(p-value, test name) of one point; var: its (moderated s^2, df) or None."""
    if var is not None:
        v, df = var
        la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
        diff = sum(lb) / len(lb) - sum(la) / len(la)
        se = math.sqrt(v * (1.0 / len(a) + 1.0 / len(b)))
        if se == 0:
            return (1.0 if diff == 0 else 0.0), "log t (no variance)"
        dist = sp.stats.norm if math.isinf(df) else sp.stats.t(df)
        return float(2 * dist.sf(abs(diff) / se)), "moderated log t (df %.3g)" % df
    if len(a) < 2 or len(b) < 2:
        return None, "none (fewer than 2 runs)"
    if min(a) == max(a) == min(b) == max(b):
        return 1.0, "Mann-Whitney U"
    res = sp.stats.mannwhitneyu(b, a, alternative="two-sided", method="auto")
    return float(res.pvalue), "Mann-Whitney U"
