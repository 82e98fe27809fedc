# SPDX-License-Identifier: MIT
"""Ayers, Introduction, Summary and End Notes: the claims the first rounds left out,
each with its sentence paraphrased and its rule."""

from claims.core import FAILS, HOLDS, NM, Claim, f_ratio
from claims.dice_more import scaling_rule
from claims.opposite import rare_writes, timing_hides, unshared_control
from claims.rules import FEW_PERCENT, judge_points, ratio_point
from stats import group_stats

# "Costly" under contention: Ayers measured instrumented code 2-3x slower; racing at t
# threads below half of linear is at least twice as costly per increment.
COSTLY = 0.5


def one_location(ctx, c):
    """Scalable's bytes per counter at most FetchAdd's (read-cost's bytes panel)."""
    st = ctx.st("read-cost", "-bytes")
    if not st or "Scalable" not in st or "FetchAdd" not in st:
        return "", NM, ctx.missing("read-cost")
    xs = sorted(set(st["Scalable"]) & set(st["FetchAdd"]))
    if not xs:
        return "", NM, "no thread count with both Scalable and FetchAdd"
    x = xs[-1]
    a, b = st["Scalable"][x]["median"], st["FetchAdd"][x]["median"]
    return ("bytes per counter at %d thr: Scalable %.0f, FetchAdd %.0f" % (x, a, b),
            HOLDS if a <= b else FAILS,
            "no more than a plain counter" if a <= b else "more than a plain counter",
            min(st["Scalable"][x]["n"], st["FetchAdd"][x]["n"]))


def capped_throughput(ctx, c):
    """ScalableCapped's median ops/ms at least 1/FEW_PERCENT of Scalable's at every
    thread count of latency.csv (the timed runs both have)."""
    rows = [r for r in ctx.rs.rows("latency.csv", "timed")
            if r["counter"] in ("ScalableCapped", "Scalable") and r.get("ops_per_ms")]
    st = group_stats(rows, lambda r: r["counter"], lambda r: int(r["threads"]),
                     lambda r: r["ops_per_ms"])
    if "ScalableCapped" not in st or "Scalable" not in st:
        return "", NM, "no timed run of ScalableCapped and Scalable in latency.csv"
    pts, shown = [], []
    for x in sorted(set(st["ScalableCapped"]) & set(st["Scalable"])):
        a, b = st["ScalableCapped"][x], st["Scalable"][x]
        if a["oversub"] or b["oversub"]:
            continue
        r, good, frag = ratio_point(a, b, lambda v: v >= 1 / FEW_PERCENT)
        if getattr(frag, "near", False):
            ctx.need_runs("latency", "", ["ScalableCapped", "Scalable"], x,
                          min(a["n"], b["n"]))
        pts.append(("%d thr" % x, r, good, frag, min(a["n"], b["n"])))
        shown.append("%s at %d thr" % (f_ratio(r), x))
    if not pts:
        return "", NM, "no thread count with both"
    v, reason, runs = judge_points(pts, "at least %.3gx everywhere" % (1 / FEW_PERCENT),
                                   "below %.3gx" % (1 / FEW_PERCENT))
    return "median ratios ScalableCapped/Scalable (latency.csv): " + ", ".join(shown), v, \
        reason, runs


CLAIMS = [
    Claim("ayers-one-location", "Ayers, Summary",
          "Scalable needs one storage location per counter and its value is read without "
          "post-processing (verdict: its bytes per counter no more than FetchAdd's)",
          "read-cost", one_location,
          by_construction="Scalable keeps its count in one word, read as it is"),
    Claim("ayers-capped-little-scalability", "Ayers, End Notes (after Dice et al.)",
          "Capping the update rate at 1/1024 gives up little scalability (ScalableCapped "
          "against Scalable; verdict: its median throughput at least %.3gx Scalable's, a "
          "loss of at most a few percent, at every thread count of the latency runs)"
          % (1 / FEW_PERCENT), "latency", capped_throughput,
          opposite=timing_hides("Scalable"), data=["baselines.csv"]),
    Claim("ayers-racing-contention-costly", "Ayers, Introduction",
          "Cache contention makes racing updates of a shared counter costly (verdict: no "
          "external work, on a NUMA system, Serial's median at t >= 12 threads below %gx of "
          "linear: each increment at least twice as costly as alone)" % COSTLY, "dice-fig4-high",
          scaling_rule(["Serial"], below=COSTLY, xmin=12), opposite=unshared_control(),
          data=["baselines.csv"], variants=["Serial", "Sharded"], threads=12,
          threads_why=" (the paper's condition: heavily multithreaded applications, its "
          "machine's 12 threads; at 2 threads this is Dice §1's Serial-against-CAS point, "
          "counted there)", nodes=2, nodes_why=" (the cache contention of a NUMA system)"),
    Claim("ayers-scalable-false-sharing", "Ayers, End Notes",
          "Scalable still suffers from false sharing (verdict: 8 counters sharing a cache "
          "line, no external work: its median at t >= 2 threads below %.3gx of linear)"
          % (1 / FEW_PERCENT), "hot-line", scaling_rule(["Scalable"], below=1 / FEW_PERCENT),
          opposite=rare_writes("Scalable", FEW_PERCENT), variants=["Scalable", "CAS"]),
]
