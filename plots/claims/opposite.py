# SPDX-License-Identifier: MIT
"""What the outcome opposite to a claim would look like here, and whether the
measurement could have shown it (the "a test that can fail" rule of
claims/core.py's RULES). Each factory returns a check opposite(ctx, claim) ->
a no_test(cause, text) reason when the measurement could not have come out the
other way at this machine's thread counts, work and resolution, or None when it
could (or when the data to tell is missing: the rule's own verdict stands).
Standard library only.
"""

import re

from stats import batched_ks, batched_reads
from claims.core import FEW_PERCENT, INSTRUMENT, NOISE_FLOOR, REGIME, f_ratio, no_test

NS_PER_MS = 1e6


def ns_per_op(threads, ops_per_ms):
    """The time of one increment per thread (ns) at a median throughput."""
    return threads * NS_PER_MS / ops_per_ms


def work_hides(line, figures, among, nowork="dice-fig4-high"):
    """A claim that the counters keep at least line x the fastest's throughput under
    external work. A counter falls below line only if its increment adds more than
    (1/line - 1) of the time per increment at that work; the costliest increment
    of the counters the claim speaks of (among) is at most the slowest one's time
    per increment with no external work at the same thread count (nowork: full
    contention, costlier than under work). Where even that is below the margin at
    every point of figures, none of them could have failed the claim: the regime, or
    the noise floor where that increment's whole share of the time per increment is
    below the relative spread (max - min over median) of the runs there."""
    def check(ctx, c):
        hi = ctx.st(nowork)
        if not hi:
            return None
        worst = None
        for fid in figures:
            st = ctx.st(fid)
            if not st:
                return None
            for x in sorted(set(x for pts in st.values() for x in pts)):
                meds = [p[x]["median"] for p in st.values() if x in p and p[x]["median"] > 0]
                costs = [(ns_per_op(x, p[x]["median"]), s) for s, p in hi.items()
                         if s in among and x in p and p[x]["median"] > 0 and not p[x]["oversub"]]
                if not meds or not costs:
                    return None
                per = ns_per_op(x, max(meds))
                need = (1.0 / line - 1.0) * per
                cost, s = max(costs)
                if cost >= need:
                    return None
                spread = max((p[x]["max"] - p[x]["min"]) / p[x]["median"]
                             for p in st.values() if x in p and p[x]["median"] > 0)
                if worst is None or cost / need > worst[0]:
                    worst = (cost / need, x, fid, s, cost, need, per, spread)
        if worst is None:
            return None
        _, x, fid, s, cost, need, per, spread = worst
        if cost / per < spread:
            return no_test(NOISE_FLOOR, "the costliest increment of those it names, %s's with "
                           "no external work at %d thr (full contention), takes %.3g ns, "
                           "%.2g%% of the %.3g ns per increment at this work in %s, less than "
                           "the spread of the runs there (%.2g%%): the counters' whole cost "
                           "is below the noise" % (s, x, cost, 100 * cost / per, per, fid,
                                                  100 * spread))
        return no_test(REGIME, "at this work a counter falls below %gx only if its increment "
                       "adds %.3g ns (%.3g of the %.3g ns per increment at %d thr in %s); the "
                       "costliest increment of those it names, %s's with no external work at %d "
                       "thr (full contention), takes %.3g ns, so none of them could fail it "
                       "here (the closest point shown)"
                       % (line, need, 1.0 / line - 1.0, per, x, fid, s, x, cost))
    return check


def timing_hides(series, nowork=("baselines", "-w0"), name="latency.csv"):
    """A claim judged on runs that time every operation (latency.csv): the timing
    adds its own cost to each increment, so a counter's loss shows only in
    proportion to its share of the timed operation. Where series' own increment
    (its median with no external work, untimed) is under half of the timed one at
    every thread count, a loss at the claim's line shows as less than half of it,
    and the rival would have to be k times slower to cross the line (the
    instrument)."""
    def check(ctx, c):
        rows = [r for r in ctx.rs.rows(name, "timed") if r["counter"] == series
                and r.get("ops_per_ms")] if ctx.rs is not None else []
        own = (ctx.st(*nowork) or {}).get(series) or {}
        parts = []
        for t in sorted(set(int(r["threads"]) for r in rows)):
            vals = sorted(r["ops_per_ms"] for r in rows if int(r["threads"]) == t)
            if t not in own or not own[t]["median"]:
                return None
            timed = ns_per_op(t, vals[len(vals) // 2])
            mine = ns_per_op(t, own[t]["median"])
            share = mine / timed
            if share >= 0.5:
                return None
            k = 1.0 + (FEW_PERCENT - 1.0) / share
            parts.append("%d thr: %.3g ns timed, %.3g ns its own (%.0f%%), the rival %.3gx "
                         "slower to fail" % (t, timed, mine, 100 * share, k))
        if not parts:
            return None
        return no_test(INSTRUMENT, "the %s runs time every increment, so the timing, not %s, "
                       "is most of each timed increment (%s's own: its untimed median with no "
                       "external work); %s" % (name.split(".")[0], series, series,
                                               "; ".join(parts)))
    return check


def delta_of(row):
    m = re.search(r"delta=(\d+)", row.get("end_state") or "")
    return int(m.group(1)) if m else None


def rare_writes(series, line, rival="CAS", name="hot-line.csv"):
    """A claim that series suffers from false sharing: a probabilistic counter
    writes its line ever more rarely as it counts, and false sharing costs only a
    miss per write of another thread. A run that counted to V per counter with a
    final delta D made about (V / D)(log2 D + 2) writes per counter (every doubling
    of the count as many as the last one, plus its exact start); even if each write
    and the next read of each other thread missed, at rival's contended time per
    increment (a line moving at every increment), the misses take this fraction of
    the run's time. Below the claim's line (1 - 1/FEW_PERCENT) in every run, false
    sharing could not have cost what the claim's verdict looks for (the regime)."""
    def check(ctx, c):
        if ctx.rs is None:
            return None
        rows = ctx.rs.rows(name, "timed")
        worst = None
        for r in rows:
            t = int(r["threads"])
            if r["counter"] != series or t < 2:
                continue
            d, v = delta_of(r), r.get("value")
            cas = sorted(x["ops_per_ms"] for x in rows if x["counter"] == rival
                         and int(x["threads"]) == t and x.get("ops_per_ms"))
            if not d or not v or not cas or not r.get("seconds"):
                return None
            writes = v / float(d) * (d.bit_length() + 1)
            miss = ns_per_op(t, cas[len(cas) // 2])
            frac = 2.0 * writes * miss / (t * float(r["seconds"]) * 1e9)
            if frac >= 1.0 - 1.0 / line:
                return None
            if worst is None or frac > worst[0]:
                worst = (frac, t, v, d, writes, miss)
        if worst is None:
            return None
        frac, t, v, d, writes, miss = worst
        return no_test(REGIME, "%s writes its line rarely at these counts: a run at %d thr "
                       "counted %.3g M and ended updating by %d, about %.3g k writes; a miss "
                       "for each and for the next read of the other thread, at %s's %.3g ns "
                       "of a contended increment, is %.2g%% of the run, below the %.3g%% the "
                       "line needs (the largest of the runs)"
                       % (series, t, v / 1e6, d, writes / 1e3, rival, miss, 100 * frac,
                          100 * (1.0 - 1.0 / line)))
    return check


def uncontended(hot, fid, what="the central counter"):
    """A claim on what contention on a counter (what: hot's counter) does: where
    hot keeps at least 1/FEW_PERCENT of linear from one thread at every count
    measured in fid, it was not contended, and the claim's effect cannot arise (the
    regime)."""
    def check(ctx, c):
        st = ctx.st(fid)
        if not st or hot not in st or 1 not in st[hot]:
            return None
        one = st[hot][1]["median"]
        parts = []
        for t in sorted(x for x in st[hot] if x >= 2):
            lin = st[hot][t]["median"] / (t * one)
            if lin < 1.0 / FEW_PERCENT:
                return None
            meds = [p[t]["median"] for p in st.values() if t in p]
            parts.append("%s %s of linear at %d thr (every counter's median within %s of "
                         "the slowest)" % (hot, f_ratio(lin), t, f_ratio(max(meds) / min(meds))))
        if not parts:
            return None
        return no_test(REGIME, "%s was not contended: %s, so the claim's condition "
                       "(contention on it) never arose" % (what, "; ".join(parts)))
    return check


def timer_hides(pairs, line, name="read-cost.csv", panel=("read-cost", "-ns")):
    """A read-cost claim that a's gets cost more than line x b's: the difference
    that crosses the line, (line - 1) x b's median, must exceed the timer's real
    step (Context.timer_step) to show; below one step at every point the timer
    could not have resolved it (the instrument)."""
    def check(ctx, c):
        step = ctx.timer_step(name)
        st = ctx.st(*panel)
        if not step or not st:
            return None
        parts = []
        for a, b in pairs:
            if a not in st or b not in st:
                return None
            for t in sorted(set(st[a]) & set(st[b])):
                need = abs(line - 1.0) * st[b][t]["median"]
                if need >= step:
                    return None
                parts.append("%s over %s at %d thr: %.3g ns" % (a, b, t, need))
        if not parts:
            return None
        return no_test(INSTRUMENT, "each get is timed alone, on a timer whose step here is "
                       "%.3g ns; the difference the claim's line needs is below one step (%s)"
                       % (step, "; ".join(parts)))
    return check


def unshared_control(control="Sharded", panel=("baselines", "-w0")):
    """A claim that contention on a shared line makes a counter slow, judged on its
    drop from one thread: the drop is the line's only if a counter with no shared
    line (control: a line per thread) keeps at least 1/FEW_PERCENT of linear at the
    same thread counts with no external work; where it does not, the machine itself
    does not scale there and the drop could not tell (the regime)."""
    def check(ctx, c):
        st = (ctx.st(*panel) or {}).get(control)
        if not st or 1 not in st:
            return None
        bad = ["%s %s of linear at %d thr" % (control, f_ratio(st[t]["median"] /
                                                               (t * st[1]["median"])), t)
               for t in sorted(st) if t >= 2
               and st[t]["median"] < t * st[1]["median"] / FEW_PERCENT]
        if not bad:
            return None
        return no_test(REGIME, "a counter with no shared line does not scale here either "
                       "(%s), so a drop from one thread does not show the line's cost"
                       % "; ".join(bad))
    return check


def warm_gets(name="read-cost.csv"):
    """A claim on how many cache misses one get pays (Dice §5.5: a reader that
    looks now and then, its get cold). Where read-cost's samples time K > 1
    consecutive gets (schema 6, stats.batched_reads), every get after a
    sample's first reads a line no writer rewrote in between from the
    reader's own cache: a second line read in series costs a miss only
    where the writers rewrite it between two gets, and the spaced, cold get
    the claim speaks of is not timed (the instrument). A sample of one get
    (older sets) is that spaced get: the rule's verdict stands."""
    def check(ctx, c):
        b = batched_reads(ctx.rs.rows(name, "timed") if ctx.rs is not None else [])
        if b is None or b["k_min"] <= 1:
            return None
        return no_test(INSTRUMENT, "each sample times %s consecutive gets (read_k of %s): "
                       "a line no writer rewrote since the get before is read from the "
                       "reader's cache, so a second miss in series would show only where "
                       "the writers rewrite that line between gets; a spaced, cold get, the "
                       "cost the claim speaks of, is not timed here" % (batched_ks(b), name))
    return check
