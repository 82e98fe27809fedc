# SPDX-License-Identifier: MIT
"""Dice §1: the minor variations of the naive counters (a prefetch for writing,
ignoring CAS failures, an atomic add) do not make a single shared word scale
on a large NUMA machine. Read from the "naive" experiment of run-all's plan
(CAS, CASPrefetch, CASOnce and FetchAdd at 0% and 99% work, every thread count)."""

from claims.core import NM, Claim, f_rate, f_ratio
from claims.rules import judge_points, ratio_point

# The variations Dice §1 names, one variant each; CAS, the naive counter they
# vary, is shown beside them and not judged.
VARIATIONS = ["CASPrefetch", "CASOnce", "FetchAdd"]
NAIVE = "CAS"
# The panel judged: no external work, Dice Fig. 4's lower plot (the claim's figure).
PANEL = "-w0"
# A variation scales when its throughput at the most threads is above its own
# one-thread throughput: the line of the verdict, a ratio of 1.
SCALES = 1.0


def no_variation_scales(variations=VARIATIONS, naive=NAIVE, panel=PANEL):
    """Each variation's median ops/ms at the most threads measured (at least
    claim.threads, on claim.nodes real nodes; checked before the data, so that
    a small machine is not measurable for want of the machine) over its own
    median at 1 thread, decided by ratio_point: holds when every ratio is at
    or below SCALES beyond the noise, does not hold when some ratio is above
    it beyond the noise, inconclusive when a point is not decided."""
    def rule(ctx, c):
        why = ctx.nodes_reason(c)
        if why:
            return "", NM, why
        stats = ctx.st(c.figure, panel)
        if not stats:
            return "", NM, ctx.missing(c.figure)
        for s in variations:
            if s not in stats:
                return "", NM, "%s was not measured" % s
        common = set.intersection(*[set(x for x, p in stats[s].items() if not p["oversub"])
                                    for s in variations])
        if not common or max(common) < c.threads or 1 not in common:
            return "", NM, ctx.threads_reason(c, stats)
        t = max(common)
        pts, parts = [], []
        for s in [naive] + variations:
            one, top = stats.get(s, {}).get(1), stats.get(s, {}).get(t)
            if not one or not top:
                continue
            r, good, frag = ratio_point(top, one, lambda x: x <= SCALES)
            parts.append("%s %s (%s at 1 thread)" % (s, f_ratio(r), f_rate(one["median"])))
            if s == naive:
                continue
            if getattr(frag, "near", False):
                ctx.need_runs(c.figure, panel, [s], t, min(top["n"], one["n"]))
            pts.append(("%s %d/1 thr" % (s, t), r, good, frag, min(top["n"], one["n"])))
        v, reason, runs = judge_points(
            pts, "no variation is faster at %d threads than on 1 thread" % t,
            "some variation is faster at %d threads than on 1 thread: it scales" % t)
        return ("0%% work, median throughput at %d threads (the most here) over 1 thread: %s"
                % (t, "; ".join(parts)), v, reason, runs)
    return rule


CLAIMS = [
    Claim("dice-naive-variations-insufficient", "Dice §1",
          "Variations of the naive counters (prefetching to avoid cache state upgrades, "
          "ignoring CAS failures, an atomic add instead of a retry loop) do not adequately "
          "address their poor scalability on large NUMA systems (verdict: with no external "
          "work, at the most threads measured, each of CASPrefetch, CASOnce and FetchAdd is "
          "no faster than on 1 thread: the paper's reason is that updating one variable on "
          "every increment does not scale, and a variation that addressed it would gain "
          "throughput from added threads)", "naive",
          no_variation_scales(), threads=256, nodes=2,
          threads_why=" (the high thread counts of the large NUMA systems the claim speaks of)",
          nodes_why=" (the large NUMA systems the claim speaks of)",
          variants=[NAIVE] + VARIATIONS),
]
