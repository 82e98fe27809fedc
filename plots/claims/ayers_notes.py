# SPDX-License-Identifier: MIT
"""Ayers, Notes and End Notes: the binomial model's flat spread, the seeding of
the per-thread RNGs, and the two variants the note proposes (CAS first, capped
granularity), measured by count-to-N runs and by the timed runs of latency.csv."""

import math
import random

from claims.core import (FAILS, HOLDS, INCONCLUSIVE, NM, PLAN, Claim, f_n, f_pct,
                         not_measurable)
from claims.dice_design import READ_NOTE
from claims.rules import FEW_PERCENT, compare_medians, verdict
from claims.ayers_accuracy import ACC, DETAIL, MIN_RUNS_PCT, above_switch, too_few_runs
from resultset import threshold_of
from stats import percentile


# The bootstrap behind "about the same" for a spread: BOOT resamples of each N's runs
# from a fixed seed (the verdict is reproducible), percentile intervals at a two-sided
# rate of SPREAD_RATE shared among the doublings compared (Bonferroni).
BOOT, BOOT_SEED, SPREAD_RATE = 2000, 20130623, 0.05


def half_spread(values):
    v = sorted(values)
    return (percentile(v, 0.95) - percentile(v, 0.05)) / 2


def spread_ratio_interval(a, b, rate, rng):
    """The percentile bootstrap interval, two-sided rate, on half_spread(a)/half_spread(b)."""
    rs = []
    for _ in range(BOOT):
        ha = half_spread(rng.choices(a, k=len(a)))
        hb = half_spread(rng.choices(b, k=len(b)))
        rs.append(ha / hb if hb > 0 else float("inf"))
    rs.sort()
    return percentile(rs, rate / 2), percentile(rs, 1 - rate / 2)


def spread_flat(factor):
    """Scalable's half-spread (p95 - p5)/2 about the same (within factor either way) at
    each doubling of N > 2^(T+1): a seeded bootstrap interval on each doubling's ratio of
    half-spreads must lie within [1/factor, factor] (holds), or one lie wholly outside
    it (does not hold); otherwise inconclusive."""
    def judge(ctx, far, t):
        nmin = min(p["n"] for p in far.values())
        half = [(n, (p["p95"] - p["p5"]) / 2) for n, p in sorted(far.items())]
        meas = "half-spread of value/N over %d N (%s..%s): %s" % (
            len(half), f_n(half[0][0]), f_n(half[-1][0]),
            ", ".join(f_pct(100 * h) for _, h in half))
        if nmin < MIN_RUNS_PCT:
            return meas, INCONCLUSIVE, too_few_runs(nmin)
        ns = sorted(far)
        pairs = list(zip(ns, ns[1:]))
        if not pairs:
            return meas, INCONCLUSIVE, "one N above 2^(T+1): no doubling to compare", nmin
        rng = random.Random(BOOT_SEED)
        rate = SPREAD_RATE / len(pairs)
        ivs = [spread_ratio_interval(far[b]["values"], far[a]["values"], rate, rng)
               for a, b in pairs]
        meas += ("; bootstrap intervals on each doubling's ratio (%d resamples, seed %d, "
                 "%.3g%% each): %s" % (BOOT, BOOT_SEED, 100 * rate, ", ".join(
                     "%.2f-%.2f" % iv for iv in ivs)))
        out = [iv for iv in ivs if iv[0] > factor or iv[1] < 1 / factor]
        if out:
            return meas, FAILS, "a doubling's interval wholly beyond %gx" % factor, nmin
        if all(1 / factor <= lo and hi <= factor for lo, hi in ivs):
            return meas, HOLDS, "every doubling's interval within %gx" % factor, nmin
        return (meas, INCONCLUSIVE, "not decided beyond the noise: some doubling's interval "
                "straddles %gx" % factor, nmin)
    return judge


def rms(values):
    return math.sqrt(sum(v * v for v in values) / len(values)) if values else None


def seeds_matter(ctx, c):
    """Runs with same-seed=1 (every thread's RNG seeded alike) against the normal runs
    at the same N > 2^T: the RMS error at least twice the normal one."""
    rows = [r for name in ("ayers.csv", "ayers-tunable.csv") for r in ctx.count_rows(name)
            if r["counter"] == "Scalable" and r["ops"] > 2 ** threshold_of(r)]
    same = [r for r in rows if r["params_map"].get("same-seed") == "1"]
    if not same:
        return ("", NM, not_measurable(PLAN, "no Scalable run with same-seed=1 (every "
                                       "thread's RNG seeded alike) in ayers.csv or "
                                       "ayers-tunable.csv; run-all.sh does not run that "
                                       "experiment"))
    keys = set((r["ops"], threshold_of(r), r["threads"]) for r in same)
    normal = [r for r in rows if r["params_map"].get("same-seed") != "1"
              and (r["ops"], threshold_of(r), r["threads"]) in keys]
    if not normal:
        return "", NM, "no normally seeded runs at the N of the same-seed runs"
    a = rms([r["value"] / r["ops"] - 1 for r in same])
    b = rms([r["value"] / r["ops"] - 1 for r in normal])
    return (("RMS |value/N - 1|: same seed %s (%d runs), own seeds %s (%d runs)"
             % (f_pct(100 * a), len(same), f_pct(100 * b), len(normal)),)
            + verdict(a >= 2 * b, "same seed at least 2x worse", "not 2x worse")
            + (min(len(same), len(normal)),))


def timed_errors(ctx, variant):
    return [r["rel_error"] for r in ctx.rs.rows("latency.csv", "timed")
            if r["counter"] == variant and r.get("rel_error") is not None]


def exact_single_thread(variant):
    def rule(ctx, c):
        errs = [r["rel_error"] for name in ("latency.csv", "baselines.csv")
                for r in ctx.rs.rows(name, "timed")
                if r["counter"] == variant and r["threads"] == 1
                and r.get("rel_error") is not None]
        if not errs:
            return "", NM, "no one-thread timed run of %s (latency.csv, baselines.csv)" % variant
        bad = sum(1 for e in errs if e != 0)
        return (("%d one-thread runs of %s: %d inexact (worst %s)"
                 % (len(errs), variant, bad, f_pct(100 * max(errs))),)
                + verdict(not bad, "every run exact", "a run inexact") + (len(errs),))
    return rule


def rms_below(a, b):
    def rule(ctx, c):
        ea, eb = timed_errors(ctx, a), timed_errors(ctx, b)
        if not ea or not eb:
            return "", NM, "needs timed runs of %s and %s in latency.csv" % (a, b)
        ra, rb = rms(ea), rms(eb)
        return (("RMS relative error of the timed runs: %s %s (%d runs), %s %s (%d runs)"
                 % (a, f_pct(100 * ra), len(ea), b, f_pct(100 * rb), len(eb)),)
                + verdict(ra < rb, "%s's below" % a, "%s's not below" % a)
                + (min(len(ea), len(eb)),))
    return rule


CLAIMS = [
    Claim("ayers-spread-flat", "Ayers, Notes",
          "Doubling N while the update probability halves leaves Scalable's relative spread "
          "about the same (verdict: \"about the same\" within %gx: at each doubling of N > "
          "2^(T+1) a seeded bootstrap interval on the ratio of the 5th-95th half-spreads of "
          "value/N within %gx either way; at least 20 runs per N)" % (FEW_PERCENT, FEW_PERCENT),
          DETAIL, above_switch(spread_flat(FEW_PERCENT), doublings=1), min_runs=MIN_RUNS_PCT),
    Claim("ayers-seeds-critical", "Ayers, Notes",
          "Scalable needs per-thread RNGs seeded differently (verdict: with every thread "
          "seeded alike, the RMS error is at least 2x that of own seeds at the same N)",
          ACC, seeds_matter, threads=2, min_runs=MIN_RUNS_PCT, data=["ayers-tunable.csv"],
          threads_why=" (one thread has no other seed to collide with)"),
    Claim("ayers-cas-first-exact-alone", "Ayers, End Notes",
          "Trying a compare-exchange first and going probabilistic only when it fails keeps a "
          "single-threaded count exact (ScalableCAS; verdict: every one-thread run exact)",
          "latency", exact_single_thread("ScalableCAS"),
          by_construction="with one thread no compare-exchange fails, so every increment is "
                          "the exact add of one"),
    Claim("ayers-sharded-read-cost", "Ayers, End Notes",
          "A sharded counter needs more work to read, summing across the shards (verdict: "
          "Sharded's median ns per get above FetchAdd's single word)" + READ_NOTE, "read-cost",
          compare_medians([("Sharded", ["FetchAdd"])], lambda r: r > 1.0, "above",
                          "not above", figures=["read-cost"], panel="-ns")),
    Claim("ayers-sharded-size", "Ayers, End Notes",
          "Sharding per thread brings a potentially large size increase (verdict: Sharded's "
          "bytes per counter at least 2x FetchAdd's)", "read-cost",
          compare_medians([("Sharded", ["FetchAdd"])], lambda r: r >= 2.0, "at least 2x",
                          "below 2x", figures=["read-cost"], panel="-bytes"),
          by_construction="Sharded's layout gives every thread its own padded cache line (and "
                          "one more for overflow), so its size is a line per thread by "
                          "definition, not a measurement"),
    Claim("ayers-capped-more-accurate", "Ayers, End Notes (after Dice et al.)",
          "Capping the update granularity keeps more accuracy at high counts (ScalableCapped "
          "against Scalable; verdict: lower RMS relative error over the same timed runs; at "
          "least 10 runs each)",
          "latency", rms_below("ScalableCapped", "Scalable"), min_runs=10),
]
