# SPDX-License-Identifier: MIT
"""The sequential rule (plots/claims/rules.py ratio_point, plots/stats.py) simulated
from the reference result sets' run-to-run residuals: its false-verdict rate with the
true ratio exactly on a claim's line, and its power at 5%, 10% and 20% effects, the
runs added look by look (3, then 6, then 12 a side) as run-all's --confirm adds them.

The residuals are each timed point's log throughput less its point's mean (times
sqrt(n/(n-1)), undoing the shrinkage of a residual from a mean of n), pooled by noise:
"median" pools the points whose standard deviation lies between the 40th and 60th
percentiles, "noisy" those at or above the 90th. A trial draws each side's runs from
a pool with replacement, from a fixed seed. Each check states the probability that it
would fail with another seed if the true rate were the one simulated (binomial,
exact): its false-failure probability. Prints the figures as TAP lines.
Usage: test_decision.py TOP_SRCDIR
"""

import csv
import glob
import math
import os
import random
import statistics
import sys

TOP = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
sys.path.insert(0, os.path.join(TOP, "plots"))

from claims.rules import ratio_point  # noqa: E402
from stats import SEQ_LOOKS, SEQ_TOTAL, median  # noqa: E402

SEED = 20130623
LINE = 1.1          # a claim "a over b above 1.1x" (the report's "similar" scale)
TRIALS = 2000
JITTER = 0.05
_SD = {}
POWER_TARGET, POWER_EFFECT = 0.80, 0.10


def pools():
    """{"median": [...], "noisy": [...]} of log residuals and the two noise levels."""
    points = {}
    for path in sorted(glob.glob(os.path.join(TOP, "results", "reference", "*", "*.csv"))):
        with open(path, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                if row.get("mode") != "timed" or not row.get("ops_per_ms"):
                    continue
                v = float(row["ops_per_ms"])
                key = (path, row["counter"], row["threads"], row.get("work_pct"),
                       row.get("params"), row.get("counters"), row.get("read_k"))
                if v > 0:
                    points.setdefault(key, []).append(math.log(v))
    resid = []
    for logs in points.values():
        if len(logs) >= 3:
            m, n = statistics.fmean(logs), len(logs)
            sd = statistics.stdev(logs)
            if sd > 0:
                resid.append((sd, [(x - m) * math.sqrt(n / (n - 1)) for x in logs]))
    resid.sort()
    sds = [s for s, _ in resid]
    q = statistics.quantiles(sds, n=10)
    med = [r for s, rs in resid if q[3] <= s <= q[5] for r in rs]
    noisy = [r for s, rs in resid if s >= q[8] for r in rs]
    return {"median": med, "noisy": noisy}, len(resid), statistics.median(sds), q[8]


def point(rng, pool, logshift, n):
    """n runs: residuals drawn from pool, each with a Gaussian jitter of JITTER times
    the pool's sd (a smoothed bootstrap: the pool's repeated values would otherwise
    tie, which measured throughputs do not)."""
    if id(pool) not in _SD:
        _SD[id(pool)] = JITTER * statistics.pstdev(pool)
    h = _SD[id(pool)]
    vals = [math.exp(logshift + rng.choice(pool) + rng.gauss(0.0, h)) for _ in range(n)]
    return {"median": median(vals), "values": vals}


def trial(rng, pool, ratio):
    """The verdict of one simulated point, runs added look by look: (decided, ok) and
    the runs a side it ended on."""
    a, b = point(rng, pool, math.log(ratio), SEQ_LOOKS[0]), point(rng, pool, 0.0, SEQ_LOOKS[0])
    while True:
        _, good, frag = ratio_point(a, b, lambda r: r > LINE)
        n = len(a["values"])
        if not frag:
            return True, good, n
        more = next((k for k in SEQ_LOOKS if k > n), None)
        if not getattr(frag, "near", False) or more is None:
            return False, good, n
        for p, s in ((a, math.log(ratio)), (b, 0.0)):
            p["values"] += point(rng, pool, s, more - n)["values"]
            p["median"] = median(p["values"])


def binom_tail_above(n, p, k):
    """P(Bin(n, p) > k) (terms in logs: no overflow at n in the thousands)."""
    if p <= 0.0 or p >= 1.0:
        return 1.0 if p >= 1.0 and k < n else 0.0
    return sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                        + i * math.log(p) + (n - i) * math.log1p(-p)) for i in range(k + 1, n + 1))


def main():
    pool, npoints, sd_med, sd_90 = pools()
    print("1..%d" % 7)
    print("# residuals of %d timed points; log sd: median %.4f, 90th percentile %.4f; "
          "pools: median %d values, noisy %d; seed %d, %d trials a condition"
          % (npoints, sd_med, sd_90, len(pool["median"]), len(pool["noisy"]), SEED, TRIALS))
    rng = random.Random(SEED)
    t = 0
    failed = 0
    for noise in ("median", "noisy"):
        for side in (1, -1):
            # the true ratio on the line, the runs drawn a hair above or below it
            ratio = LINE * (1 + side * 1e-9)
            got = [trial(rng, pool[noise], ratio) for _ in range(TRIALS)]
            wrong = sum(1 for d, good, _ in got if d)
            limit = int(SEQ_TOTAL * TRIALS)
            pf = binom_tail_above(TRIALS, wrong / TRIALS, limit)
            t += 1
            ok = wrong <= limit
            failed += not ok
            print("%s %d - on the line (%s noise, from %s): decided %.1f%% of trials, at most "
                  "%.0f%% allowed # false-failure probability %.2g"
                  % ("ok" if ok else "not ok", t, noise, "above" if side > 0 else "below",
                     100.0 * wrong / TRIALS, 100 * SEQ_TOTAL, pf))
    for effect in (0.05, 0.10, 0.20):
        got = [trial(rng, pool["median"], LINE * (1 + effect)) for _ in range(TRIALS)]
        right = sum(1 for d, good, n in got if d and good)
        by = {k: sum(1 for d, good, n in got if d and good and n <= k) for k in SEQ_LOOKS}
        t += 1
        text = ("power at a %g%% effect (median noise): %.1f%% decided right within %d runs "
                "a side (%s)" % (100 * effect, 100.0 * right / TRIALS, SEQ_LOOKS[-1], ", ".join(
                    "%.1f%% by %d" % (100.0 * by[k] / TRIALS, k) for k in SEQ_LOOKS)))
        if effect == POWER_EFFECT:
            need = math.ceil(POWER_TARGET * TRIALS)
            ok = right >= need
            pf = 1 - binom_tail_above(TRIALS, right / TRIALS, need - 1)
            failed += not ok
            print("%s %d - %s, at least %.0f%% wanted # false-failure probability %.2g"
                  % ("ok" if ok else "not ok", t, text, 100 * POWER_TARGET, pf))
        else:
            wrong = sum(1 for d, good, n in got if d and not good)
            print("ok %d - %s; decided wrong %d times" % (t, text, wrong))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
