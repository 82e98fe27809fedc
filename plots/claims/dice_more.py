# SPDX-License-Identifier: MIT
"""Dice §1, §2, §5, §6: the claims the first rounds left out, each with
its sentence paraphrased and its rule; two of them read experiments new to
run-all's plan (the array at 98.89% work, several hot counters in one line)."""

import struct

from claims.core import (CONDITION, MACHINE, NM, PLAN, REGIME, Claim, f_pct, f_ratio, no_test,
                         not_measurable)
from claims.dice_error import at_paper_count, fig6_rule
from claims.dice_scaling import DICE_PROB
from claims.opposite import uncontended, warm_gets
from claims.judge import measured_threads
from claims.rules import FEW_PERCENT, compare_medians, judge_points, ratio_point, verdict
from stats import percentile

# A plain counter word (the paper's reserved-bit layout keeps a counter in one word).
WORD_BYTES = struct.calcsize("Q")
# "Competitive" and "not scaling" in this family: the 0.8x line of the report's other
# competitiveness claims; a counter "does not scale" when its throughput at t threads
# stays below NO_SCALE of linear (t times its one-thread median), "scales well" when it
# reaches SCALES of it.
COMPETITIVE = 0.8
NO_SCALE = 0.1
SCALES = 0.5
# "Close to zero" for BFP-CSUP's worst error: below a fifth of the 0.25% it never
# exceeds (Dice §5.4), more than half of its points ("often").
CSUP_NEVER_PCT = 0.25
CLOSE_TO_ZERO_PCT = CSUP_NEVER_PCT / 5
READ_LINE = ("read-cost", "-ns")


def bytes_of(p):
    """The median bytes per counter of a point's runs, or None."""
    b = sorted(r["bytes_per_counter"] for r in p.get("rows", []) if r.get("bytes_per_counter"))
    return percentile(b, 0.5) if b else None


def on_panel(panel, judge):
    """on_figure for a figure's panel (baselines' "-w0": no external work)."""
    def rule(ctx, c):
        stats = ctx.st(c.figure, panel)
        if not stats:
            return "", NM, ctx.missing(c.figure)
        return judge(ctx, c, stats)
    return rule


def needs_threads(rule):
    """rule, but not measurable (machine) when the claim's figures reach fewer than
    claim.threads threads (a claim on the counts beyond a knee)."""
    def wrapped(ctx, c):
        xs = measured_threads(ctx, c)
        if xs and xs[-1] < c.threads:
            stats = {}
            for fid in c.figure.split(", "):
                stats.update(ctx.st(fid) or {})
            return "", NM, ctx.threads_reason(c, stats)
        return rule(ctx, c)
    return wrapped


def space_rule(check, figure, what, panel=""):
    """check(ctx, stats, x) -> (ok, text) or None at every thread count of figure's
    runs (bytes per counter: a layout, no noise)."""
    @lambda judge: on_panel(panel, judge)
    def rule(ctx, c, stats):
        parts, bad, runs = [], [], []
        for x in sorted(set(x for pts in stats.values() for x in pts)):
            got = check(ctx, stats, x)
            if got is None:
                continue
            ok, text, n = got
            parts.append("%d thr: %s" % (x, text))
            runs.append(n)
            if not ok:
                bad.append("%d thr" % x)
        if not parts:
            return "", NM, not_measurable(CONDITION, "no thread count where %s" % what)
        return ("; ".join(parts),) + verdict(not bad, "at every thread count",
                                             "not at %s" % ", ".join(bad)) + (min(runs),)
    return rule


def sharded_per_thread(ctx, stats, x):
    if "Sharded" not in stats or "FetchAdd" not in stats or x not in stats["Sharded"] \
            or x not in stats["FetchAdd"]:
        return None
    a, b = bytes_of(stats["Sharded"][x]), bytes_of(stats["FetchAdd"][x])
    if not a or not b:
        return None
    return (a >= x * b, "Sharded %.0f B = %s FetchAdd's %.0f B" % (a, f_ratio(a / b), b),
            min(stats["Sharded"][x]["n"], stats["FetchAdd"][x]["n"]))


def adapt_word_when_quiet(ctx, stats, x):
    p = stats.get("MultilineAdapt", {}).get(x)
    if not p:
        return None
    states = [r.get("end_state") or "" for r in p.get("rows", [])]
    if not states or not all("mode=word" in s for s in states):
        return None   # inflated somewhere: not the low-contention case
    b = bytes_of(p)
    return (b is not None and b <= WORD_BYTES,
            "MultilineAdapt %s B, never inflated" % ("n/a" if b is None else "%.0f" % b),
            p["n"])


def line_per_node(ctx, stats, x):
    p = stats.get("Multiline", {}).get(x)
    line = ctx.m.get("cache_line")
    if not p or not line:
        return None
    nodes = max(int(r.get("nodes") or 1) for r in p.get("rows", [])) if p.get("rows") else 1
    b = bytes_of(p)
    return (b is not None and b >= line * nodes,
            "Multiline %s B over %d node(s) of %d B lines" % (
                "n/a" if b is None else "%.0f" % b, nodes, line), p["n"])


def on_one_node(p):
    """Every run of the point had its threads on one NUMA node (nodes_used: the
    nodes its workers ran on, e.g. "0" or "0,1")."""
    return all(len(str(r.get("nodes_used") or "0").split(",")) == 1 for r in p.get("rows", []))


def scaling_rule(series, at_least=None, below=None, xmin=None, one_node=False, base=1,
                 panel=""):
    """Each series' median at t threads over t/base times its median at base threads
    (linear from there), at every t >= xmin (2 base) measured (with one_node: only
    where every run stayed on one node): at least at_least (it scales), or below
    below (it does not). base 2 measures scaling from the first count where threads
    already share lines, leaving out the step from one thread to coherence traffic."""
    xmin = xmin or 2 * base

    @lambda judge: on_panel(panel, judge)
    def rule(ctx, c, stats):
        pts, shown = [], []
        for s in series:
            if s not in stats or base not in stats[s]:
                return "", NM, ("%s at %d thread(s) was not measured" % (s, base)
                                if s not in stats or len(stats[s]) > 1
                                else ctx.threads_reason(c, stats))
            one = stats[s][base]
            for t in sorted(x for x in stats[s] if x >= xmin and not stats[s][x]["oversub"]
                            and (not one_node or on_one_node(stats[s][x]))):
                k = t / float(base)
                lin = dict(one, median=one["median"] * k, values=[v * k for v in one["values"]])
                ok = (lambda r: r >= at_least) if at_least is not None else (lambda r: r < below)
                r, good, frag = ratio_point(stats[s][t], lin, ok)
                if getattr(frag, "near", False):
                    for x in (t, base):
                        ctx.need_runs(c.figure, panel, [s], x, min(one["n"], stats[s][t]["n"]))
                pts.append(("%s at %d thr" % (s, t), r, good, frag,
                            min(one["n"], stats[s][t]["n"])))
                shown.append("%s %s of linear at %d thr" % (s, f_ratio(r), t))
        if not pts:
            return "", NM, not_measurable(MACHINE, "needs at least %d threads to measure "
                                          "scaling from %d; %s" % (
                                              xmin, base, ctx.largest_threads_text(stats)))
        yes = ("at least %gx of linear" % at_least) if at_least is not None \
            else "below %.3gx of linear" % below
        no = ("below %gx of linear" % at_least) if at_least is not None \
            else "%.3gx of linear or more" % below
        v, reason, runs = judge_points(pts, yes, no)
        return "; ".join(shown), v, reason, runs
    return rule


def csup_close_to_zero(ctx, have, rows):
    pts = [p for fid, st in have if "BFP-CSUP" in st for p in st["BFP-CSUP"].values()]
    if not pts:
        return "", NM, "BFP-CSUP was not measured"
    k = sum(1 for p in pts if p["max"] <= CLOSE_TO_ZERO_PCT)
    return (("%d of %d BFP-CSUP points have a worst |error| <= %g%% (worst %s)"
             % (k, len(pts), CLOSE_TO_ZERO_PCT, f_pct(max(p["max"] for p in pts))),)
            + verdict(2 * k > len(pts), "more than half close to zero", "half or fewer")
            + (min(p["n"] for p in pts),))


def retries_not_recorded(ctx, c):
    return ("", NM, not_measurable(PLAN, "scbench records no count of CAS retries, and no "
                                   "sequence within a run, so retries falling over time cannot "
                                   "be seen in any result file"))


NAIVE = ["Serial", "CAS", "RBO", "RBONuma", "RBONumaAdapt"]
CLAIMS = [
    Claim("dice-perthread-space", "Dice §2",
          "Splitting a counter into per-thread parts multiplies its space by the number of "
          "threads (verdict: Sharded's bytes per counter at least t times FetchAdd's at t "
          "threads)", "baselines",
          space_rule(sharded_per_thread, "baselines", "Sharded and FetchAdd both ran",
                     panel="-w0"),
          by_construction="Sharded allocates one padded line per thread by design"),
    Claim("dice-rbo-family-single-thread", "Dice §2.1",
          "The counters described so far (RBO, RBONuma, RBONumaAdapt) achieve good "
          "single-thread performance and scalability under heavy contention (verdict on the "
          "single-thread half: one thread, no external work, each at least %gx CAS's median; "
          "the heavy-contention half is the claim of Dice §2.1 on RBONuma's order of magnitude "
          "over RBO at 256 threads)"
          % COMPETITIVE, "dice-fig4-high",
          compare_medians([(s, ["CAS"]) for s in ("RBO", "RBONuma", "RBONumaAdapt")],
                          lambda r: r >= COMPETITIVE, "at least %gx" % COMPETITIVE,
                          "below %gx" % COMPETITIVE, at=1),
          opposite=lambda ctx, c: no_test(
              REGIME, "at one thread no CAS fails, so RBO runs CAS's own loop and cannot "
              "differ from it, and RBONuma's extra test of the anti-starvation flag against "
              "it is the measurement of the claim on RBONuma's overhead at low contention "
              "(Dice §2.1): one measured fact, counted there")),
    Claim("dice-multilineadapt-space-low", "Dice §2.2",
          "A MultilineAdapt counter that is not contended costs no more space than one "
          "counter word (verdict: at %d%% work, at every thread count where it never "
          "inflated, its bytes per counter at most %d)" % (99, WORD_BYTES), "dice-fig4-low",
          space_rule(adapt_word_when_quiet, "dice-fig4-low",
                     "MultilineAdapt never inflated"),
          by_construction="an uninflated MultilineAdapt is one counter word with a reserved "
                          "bit, by design: a layout, not a measurement"),
    Claim("dice-multiline-node-contention", "Dice §5.2",
          "Beyond about 32 threads Multiline and MultilineAdapt scale negatively because of "
          "contention on the per-node components (verdict: no external work, threads on one "
          "node: their median at t >= 64 threads below t times their one-thread median / %g; "
          "below 32 threads on a node the component is one line shared as CAS's is, and its "
          "drop at 2 threads is any shared line's)" % FEW_PERCENT, "dice-fig4-high",
          scaling_rule(["Multiline", "MultilineAdapt"], below=1 / FEW_PERCENT, one_node=True,
                       xmin=64),
          threads=64, threads_text="thread counts beyond 32 (at least {threads})"),
    Claim("dice-rbo-backoff-helps", "Dice §5.1",
          "RBO's backoff considerably mitigates CAS's poor scalability (verdict: with 99.02%% "
          "work, RBO's median above %gx CAS's at every count beyond 8 threads, where "
          "contention arises)" % FEW_PERCENT, "dice-fig3",
          needs_threads(compare_medians([("RBO", ["CAS"])], lambda r: r > FEW_PERCENT,
                                        "above %gx" % FEW_PERCENT,
                                        "not above %gx" % FEW_PERCENT,
                                        xsel=lambda ctx, c, st, x, series: x >= c.threads)),
          threads=16, threads_text="thread counts beyond 8 (at least {threads})"),
    Claim("dice-multiline-line-per-node", "Dice §2.2",
          "Multiline uses a cache line per NUMA node (256 bytes on the paper's four nodes) "
          "(verdict: its bytes per counter at least a line times the nodes of its runs)",
          "dice-fig4-high", space_rule(line_per_node, "dice-fig4-high", "Multiline ran"),
          by_construction="Multiline allocates one padded line per node by design"),
    Claim("dice-fig5-multiline-above-adapt-low", "Dice §5.3",
          "In the array Multiline gives significantly more throughput than MultilineAdapt at "
          "low thread counts (verdict: above %gx at every count up to 32)" % FEW_PERCENT,
          "dice-fig5",
          compare_medians([("Multiline", ["MultilineAdapt"])], lambda r: r > FEW_PERCENT,
                          "above %gx" % FEW_PERCENT, "not above %gx" % FEW_PERCENT,
                          xsel=lambda ctx, c, st, x, series: x <= 32),
          threads=32, threads_upto=True),
    Claim("dice-csup-error-near-zero", "Dice §5.4",
          "BFP-CSUP's largest error is often close to zero (verdict: more than half of its "
          "points of Fig. 6 have a worst |error| at most %g%%, a fifth of the %g%% it never "
          "exceeds)" % (CLOSE_TO_ZERO_PCT, CSUP_NEVER_PCT), "dice-fig6-low, dice-fig6-high",
          fig6_rule(at_paper_count(csup_close_to_zero, ["BFP-CSUP"]))),
    Claim("dice-getval-one-miss", "Dice §5.5",
          "RBONuma, RBONumaAdapt, BFP-DUP and BFP-CSUP read with a single cache miss, like "
          "CAS (verdict: each median read cost below 2x CAS's, which a second miss in series "
          "would reach)", "read-cost",
          compare_medians([(s, ["CAS"]) for s in ("RBONuma", "RBONumaAdapt", "BFP-DUP",
                                                   "BFP-CSUP")],
                          lambda r: r < 2.0, "below 2x", "2x or more", figures=["read-cost"],
                          panel="-ns"), opposite=warm_gets()),
    Claim("dice-atomic-add-no-fix", "Dice §1",
          "An atomic add instead of a CAS loop does not fix the naive counter's "
          "scalability (verdict: no external work, FetchAdd's median at t >= 4 threads below "
          "%gx of linear from its 2-thread median)" % NO_SCALE, "baselines",
          scaling_rule(["FetchAdd"], below=NO_SCALE, base=2, panel="-w0"), threads=256,
          threads_upto=True),
    Claim("dice-rbonuma-10x-rbo-high", "Dice §2.1",
          "Under heavy contention RBONuma gives an order of magnitude more throughput than "
          "RBO (verdict: 256 threads, no external work, at least 10x)", "dice-fig4-high",
          compare_medians([("RBONuma", ["RBO"])], lambda r: r >= 10.0, "at least 10x",
                          "below 10x", at="claim"),
          threads=256, threads_at=True, nodes=2, nodes_why=" (node-aware counters)"),
    Claim("dice-naive-not-scalable", "Dice §5.1",
          "Serial, CAS, RBO, RBONuma and RBONumaAdapt do not scale (verdict: 99%% work, each "
          "median at 256 threads below %gx of linear from its 2-thread median)" % NO_SCALE,
          "dice-fig4-low", scaling_rule(NAIVE, below=NO_SCALE, xmin=256, base=2),
          threads=256, threads_at=True),
    Claim("dice-fig5-prob-scale", "Dice §5.3",
          "In the array the probabilistic counters scale well (verdict: each median at t >= 4 "
          "threads at least %gx of linear from its 2-thread median, where threads already "
          "share the hot line)" % SCALES, "dice-fig5",
          scaling_rule(DICE_PROB, at_least=SCALES, base=2), threads=256, threads_upto=True,
          variants=DICE_PROB),
    Claim("dice-prob-retries-fall", "Dice §6",
          "The probabilistic counters retry less often over time, as their update "
          "probability falls", "dice-fig4-high", retries_not_recorded, variants=DICE_PROB),
    Claim("dice-fig5-low-serial-better", "Dice §5.3",
          "In the array at low contention (98.89%% external work) the results are "
          "qualitatively similar to the single-counter experiment, except that Serial does "
          "significantly better, as there is little contention on counters other than the "
          "central one (verdict: where the central counter is contended, Serial's median "
          "above CAS's by more than %gx, where in the single-counter experiment it is "
          "slightly lower)" % FEW_PERCENT, "dice-fig5-low",
          compare_medians([("Serial", ["CAS"])], lambda r: r > FEW_PERCENT,
                          "above %gx" % FEW_PERCENT, "not above %gx" % FEW_PERCENT,
                          xsel=lambda ctx, c, st, x, series: x >= 2),
          opposite=uncontended("CAS", "dice-fig5-low")),
    Claim("dice-hotline-multilineadapt", "Dice §5.3",
          "MultilineAdapt performs well even with several hot counters in one cache line, a "
          "disaster for the naive counters (verdict: 8 counters sharing a line, no external "
          "work: MultilineAdapt's median above %gx CAS's at every thread count from 2)"
          % FEW_PERCENT, "hot-line",
          compare_medians([("MultilineAdapt", ["CAS"])], lambda r: r > FEW_PERCENT,
                          "above %gx" % FEW_PERCENT, "not above %gx" % FEW_PERCENT,
                          xsel=lambda ctx, c, st, x, series: x >= 2)),
]
