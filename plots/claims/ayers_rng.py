# SPDX-License-Identifier: MIT
"""Ayers, The Scalable Counter: a better generator than xorshift "might improve
accuracy but would create more overhead". Scalable's rng=mix (xorshift with an
output scrambler, counters/scounters/sc_random.h) against its default rng=xorshift:
the cost is judged, the accuracy measured and only checked not to be worse."""

import math

from claims.core import DATA, FAILS, HOLDS, INCONCLUSIVE, NM, Claim, f_n, f_pct, f_ratio, \
    not_measurable
from claims.rules import ratio_point
from resultset import rng_of, threshold_of
from stats import group_stats

COST_CSV, COUNT_CSV, BASE_CSV = "ayers-rng-cost.csv", "ayers-rng.csv", "ayers.csv"
MIX, XORSHIFT = "mix", "xorshift"


def cost_point(ctx):
    """(measured, (ratio, ok, fragile, runs)) of mix's median ops/ms over xorshift's
    at 1 thread, 0% work (ok: below 1, mix costs more per increment), or
    (measured, reason) when it cannot be had."""
    rows = [r for r in ctx.rs.rows(COST_CSV, "timed")
            if r["counter"] == "Scalable" and r.get("ops_per_ms") is not None]
    if ctx.rs.csv(COST_CSV) is None:
        return "", ctx.missing("ayers-rng-cost")
    if not any(rng_of(r) == MIX for r in rows):
        return "", not_measurable(DATA, "%s has no timed run of Scalable rng=mix" % COST_CSV)
    st = group_stats(rows, rng_of, lambda r: int(r["threads"]), lambda r: r["ops_per_ms"])
    if any(1 not in st.get(g, {}) for g in (MIX, XORSHIFT)):
        return "", "no 1-thread run of both generators in %s" % COST_CSV
    a, b = st[MIX][1], st[XORSHIFT][1]
    r, good, frag = ratio_point(a, b, lambda v: v < 1.0)
    if getattr(frag, "near", False):
        ctx.need_runs("ayers-rng-cost", "", ["Scalable"], 1, min(a["n"], b["n"]))
    shown = ["%s at 1 thr" % f_ratio(r)]
    top = max(set(st[MIX]) & set(st[XORSHIFT]))
    if top > 1:
        shown.append("%s at %d thr" % (f_ratio(st[MIX][top]["median"] /
                                              st[XORSHIFT][top]["median"]), top))
    return ("median ops/ms rng=mix/rng=xorshift, 0%% work: %s" % ", ".join(shown),
            (r, good, frag, min(a["n"], b["n"])))


def rstdv(p):
    """The relative standard deviation of value/N over a point's runs (its values are
    |value/N - 1|; the rows give the signed ones)."""
    xs = [r["value"] / r["ops"] for r in p["rows"]]
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / max(len(xs) - 1, 1)) / m if m else 0.0


def accuracy_points(ctx):
    """(measured, [(where, ratio, ok, fragile, runs)]) comparing each generator's
    median |value/N - 1| (ok: mix's at most xorshift's) at every N > 2^(T+1) that
    ayers-rng.csv (mix) and ayers.csv (xorshift) share at the same thread count,
    or (measured, reason)."""
    mix = [r for r in ctx.count_rows(COUNT_CSV) if r["counter"] == "Scalable"
           and rng_of(r) == MIX]
    if not mix:
        return "", (ctx.missing("ayers-rng") if ctx.rs.csv(COUNT_CSV) is None else
                    not_measurable(DATA, "%s has no count-to-N run of Scalable rng=mix"
                                   % COUNT_CSV))
    t, thr = threshold_of(mix[0]), int(mix[0]["threads"])
    base = [r for r in ctx.count_rows(BASE_CSV) if r["counter"] == "Scalable"
            and rng_of(r) == XORSHIFT and threshold_of(r) == t]
    rows = [r for r in mix + base if int(r["threads"]) == thr and r["ops"] > 2 ** (t + 1)]
    st = group_stats(rows, rng_of, lambda r: r["ops"], lambda r: abs(r["value"] / r["ops"] - 1))
    ns = sorted(set(st.get(MIX, {})) & set(st.get(XORSHIFT, {})))
    if not ns:
        return "", "no N > 2^%d counted by both generators at %d threads" % (t + 1, thr)
    pts = []
    for n in ns:
        a, b = st[MIX][n], st[XORSHIFT][n]
        r, good, frag = ratio_point(a, b, lambda v: v <= 1.0)
        pts.append(("N = %s" % f_n(n), r, good, frag, min(a["n"], b["n"])))
    n = ns[-1]
    meas = ("median |value/N - 1| rng=mix/rng=xorshift, %d thr, T = %d: %s-%s over %d N "
            "(%s..%s); RSTDV at N = %s: rng=mix %s, rng=xorshift %s"
            % (thr, t, f_ratio(min(p[1] for p in pts)), f_ratio(max(p[1] for p in pts)),
               len(ns), f_n(ns[0]), f_n(n), f_n(n), f_pct(100 * rstdv(st[MIX][n])),
               f_pct(100 * rstdv(st[XORSHIFT][n]))))
    return meas, pts


def rng_tradeoff(ctx, c):
    """Holds when rng=mix is decided to cost more per increment at 1 thread, 0% work,
    and no N decides its accuracy worse than xorshift's; does not hold when it is
    decided not to cost more, or decided less accurate; inconclusive otherwise."""
    cmeas, cost = cost_point(ctx)
    ameas, acc = accuracy_points(ctx)
    meas = "; ".join(m for m in (cmeas, ameas) if m)
    if not isinstance(cost, tuple):
        return meas, NM, cost
    if not isinstance(acc, list):
        return meas, NM, acc
    r, good, frag, runs = cost
    worse = [p for p in acc if not p[2] and not p[3]]
    if worse:
        return meas, FAILS, "rng=mix decided less accurate (%s)" % "; ".join(
            "at %s %s" % (p[0], f_ratio(p[1])) for p in worse[:4]), runs
    if frag:
        return meas, INCONCLUSIVE, "its cost is not decided beyond the noise: %s" % (
            frag if isinstance(frag, str) else "one run decides it"), runs
    if not good:
        return meas, FAILS, "rng=mix decided not to cost more per increment (%s at 1 thr)" \
            % f_ratio(r), runs
    noisy = sum(1 for p in acc if p[3])
    return (meas, HOLDS, "rng=mix costs more per increment at 1 thread, 0%% work, and its "
            "accuracy is not decided worse%s" % (" (%d of %d N within the noise)"
                                                 % (noisy, len(acc)) if noisy else ""), runs)


CLAIMS = [
    Claim("ayers-rng-quality-tradeoff", "Ayers, The Scalable Counter",
          "A better quality random number generator than xorshift might improve Scalable's "
          "accuracy but would cost more per increment (verdict on the cost: Scalable "
          "rng=mix, xorshift with murmur3's fmix32 scrambling its output, decided to have a "
          "lower median ops/ms than rng=xorshift at 1 thread, 0% work, and its median "
          "|value/N - 1| decided worse at no N > 2^(T+1) of the count to N; \"might improve "
          "accuracy\" is reported as measured, not judged)", "ayers-accuracy", rng_tradeoff,
          data=[COST_CSV, COUNT_CSV]),
]
