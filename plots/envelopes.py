# SPDX-License-Identifier: MIT
"""The analytic envelopes of the statistical figures (doc/design.md §6) and the models
behind them: Morris 1/sqrt(2a), BFP-DUP sqrt(3/(8M-3)), Scalable's binomial
estimate. Used by the figure table (plots/figures.py) and by the claims that
compare a measurement with a model. Standard library only.
"""

import math

from resultset import threshold_of
from stats import Z_5_95


def morris_rstdv(params):
    """Dice §3.1: the RSTDV of Morris's counter is below 1/sqrt(2a), a = 1/(2 acc^2)."""
    acc = float(params.get("accuracy", 1.0)) / 100.0
    a = 1.0 / (2.0 * acc * acc)
    return 1.0 / math.sqrt(2.0 * a)


def bfp_dup_rstdv(params):
    """Dice §4.2: limsup RSTDV <= sqrt(3/(8M - 3)), M = MantissaThreshold/2, with
    MantissaThreshold = 2 floor((30000/acc%^2 + 3)/8) (7500, M = 3750 at 1%)."""
    if "mantissa-threshold" in params:
        m = float(params["mantissa-threshold"]) / 2.0
    else:
        acc = float(params.get("accuracy", 1.0))
        m = math.floor((30000.0 / (acc * acc) + 3.0) / 8.0)
    return math.sqrt(3.0 / (8.0 * m - 3.0))


def scalable_sigma(n, t):
    """Standard deviation of Scalable's value after n increments, threshold T = t.

    Ayers models the updates as binomial; carried through every doubling:
    while the count is in [2^k, 2^(k+1)), k >= T, an increment adds
    d = 2^(k-T+1) with probability 1/d, so it adds d*B with B ~ Bernoulli(1/d):
    mean 1 (unbiased) and variance d^2 (1/d)(1 - 1/d) = d - 1. The count being
    unbiased, about 2^k increments are spent in that range (and n - 2^k in the
    last, partial one); increments are independent, so
        Var(value) = sum over k >= T with 2^k < n of (min(2^(k+1), n) - 2^k)(2^(k-T+1) - 1).
    Below 2^T every increment adds exactly 1 (variance 0). For n = 2^K >> 2^T
    this tends to (2/3) 4^K / 2^T, a relative sigma of sqrt(2/(3 * 2^T)) (0.90%
    at T = 13); the 5th-95th percentile band is 1 +- 1.645 sigma/n (+-1.5%).
    Ayers's own back-of-envelope (one doubling, 2 sigma over the 8192 increments
    of that doubling) gives +-2.2%. Stale reads of the count under contention only
    pick smaller steps, so this is an upper estimate.
    """
    var = 0.0
    k = t
    while 2 ** k < n:
        lo, hi = 2 ** k, min(2 ** (k + 1), n)
        var += (hi - lo) * (2.0 ** (k - t + 1) - 1.0)
        k += 1
    return math.sqrt(var)


# --- envelopes of figures: (series, x, a row of the point) -> (env_lo, env_hi) ---------

def rel_error_envelope(series, x, row):
    """Dice Fig. 6: the RSTDV bound in % above Morris and BFP-DUP."""
    if row["counter"] == "Morris":
        return (None, 100.0 * morris_rstdv(row["params_map"]))
    if row["counter"] == "BFP-DUP":
        return (None, 100.0 * bfp_dup_rstdv(row["params_map"]))
    return (None, None)


REL_ERROR_TEXT = ("env_hi = the analytic RSTDV bound in %: Morris 1/sqrt(2a) with "
                  "a = 1/(2 acc^2) (Dice §3.1), BFP-DUP sqrt(3/(8M-3)) with M = "
                  "MantissaThreshold/2 (Dice §4.2, in the limit); env_lo NaN")


def scalable_envelope(series, x, row):
    """Ayers accuracy figures: the binomial model's 5th-95th band of value/N."""
    if row["counter"] not in ("Scalable",):
        return (None, None)
    t = threshold_of(row)
    if x <= 2 ** t:
        return (None, None)   # exact below the switch-over: no band to draw
    half = Z_5_95 * scalable_sigma(x, t) / x
    return (1.0 - half, 1.0 + half)


SCALABLE_TEXT = ("env_lo env_hi = 1 -+ 1.645 sigma/N, the 5th-95th percentile band of the "
                 "binomial model of Scalable at its threshold T (normal approximation; "
                 "sigma from scalable_sigma in plots/envelopes.py: Var = sum over k >= T, "
                 "2^k < N of (min(2^(k+1), N) - 2^k)(2^(k-T+1) - 1)); NaN for other series "
                 "and for N <= 2^T, where Scalable counts exactly")


def expected_worst_of(n):
    """E[max of n |Z|], Z standard normal: the expected worst |error| of n runs in
    units of their sigma (1 run: 0.80; 3 runs: 1.33; 5 runs: 1.57).
    By the trapezoid rule on 1 - P(|Z| <= x)^n over [0, 12] (the tail beyond is
    below 1e-30)."""
    h, total = 1e-3, 0.0
    prev = 1.0
    for i in range(1, 12001):
        cur = 1.0 - math.erf(i * h / math.sqrt(2.0)) ** n
        total += (prev + cur) * h / 2.0
        prev = cur
    return total
