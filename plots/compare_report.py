# SPDX-License-Identifier: MIT
"""COMPARE.md, the comparison of plots/compare as a person reads it: the two
sets, the summary line, the caveats (why the sets are not like for like), the
significant differences, each figure's ratios and power, the largest changes
not flagged, the quantized points, the points of only one set, and the method
(METHOD). Only formats what plots/compare_points.py computed.
"""

import math
import re

from compare_points import ALPHA, CSV_POINTS, MIN_EFFECT, QUANT_STEPS, SKIPPED, set_runs
from compare_stats import RESAMPLES, SEED
from stats import percentile

LISTED = 10         # largest changes not flagged, listed in COMPARE.md
# The measures where more is better (a ratio above 1 is "better in B").
HIGHER_IS_BETTER = {"throughput (ops/ms)"}

METHOD = [
    ("Points", "a point is one panel of a figure of plots/figures.py, one variant, one "
     "thread count (N for count-to-N figures), with the same parameters, external work and "
     "counter-array size in both sets; ratio = median of B's runs / median of A's runs. "
     "The value/N accuracy figures (%s) are left out: REPORT.md judges them."
     % ", ".join(SKIPPED)),
    ("Test", "two-sided moderated t-test of the difference of the mean log values of the "
     "two sets' runs (empirical Bayes, Smyth 2004, as limma does for few replicates): each "
     "point's run-to-run variance of log values (A's and B's runs each about their own "
     "mean, n_a + n_b - 2 degrees of freedom) is shrunk towards the typical variance of its "
     "figure panel, (d0 s0^2 + d s^2) / (d0 + d) with d0 + d degrees of freedom, where s0^2 "
     "and d0 come from the moments of the panel's log variances: when the variants' noise "
     "differs (d0 small) a point keeps its own, when it is alike (d0 large) the point "
     "borrows the panel's degrees of freedom. Why not an exact rank test alone: with 3 runs "
     "against 3 the smallest two-sided exact p-value (Mann-Whitney U or permutation) is "
     "2/20 = 0.1, so no point could ever be significant after a correction for hundreds of "
     "points. It assumes log-normal run-to-run noise. Points with a value <= 0 (an exact "
     "count, a 0 ns latency) have no log and use Mann-Whitney U (exact for small samples "
     "without ties, else the normal approximation), which with 3 vs 3 runs cannot flag "
     "anything. A measure without run-to-run variance (bytes per counter) differs or not: "
     "p = 1 when equal, 0 when not."),
    ("Confidence interval", "95%% percentile bootstrap of the ratio of medians (the "
     "2.5th and 97.5th percentiles of the resampled ratios, each the order statistic on the "
     "outer side): %d resamples with replacement of each set's runs, numpy.random.default_rng(%d) started "
     "afresh for every point (the same input gives the same interval). With 3 runs per set "
     "it excludes 1 only when the two sets' ranges do not overlap." % (RESAMPLES, SEED)),
    ("Correction", "Benjamini-Hochberg within each figure (all panels of one figure, "
     "e.g. every variant and thread count of dice-fig4-high): false discovery rate %g per "
     "figure, p_adj is the adjusted p-value. Not over every point of every figure: a "
     "user who changed one counter looks at its figures, and a correction over hundreds of "
     "points hides a 20%% change at 3 runs per point." % ALPHA),
    ("Quantized", "a latency or read-cost point (ns, timed with the tick counter) whose "
     "median in A or B is under %d steps of its set's timer (the smallest step between "
     "the set's values in that file, i.e. its resolution) moves by 5%% or more per step: "
     "its values are not continuous, so it is compared (ratio, interval) but not tested, "
     "and it is listed apart." % QUANT_STEPS),
    ("Power", "per figure, the smallest change of a lone changed point that is flagged "
     "half the time (and 80%% of the time): its p must be below %g / m for m points "
     "tested in the figure, so the log ratio must reach (t(1 - %g / 2m) + t(power)) "
     "standard errors at the figure's median moderated variance and run counts; a change "
     "is also never flagged under %d%%." % (ALPHA, ALPHA, round(MIN_EFFECT * 100))),
    ("Significant", "p_adj < %g, and the bootstrap interval excludes 1, and the ratio is "
     "at least %.2f or at most %.3f (a minimum effect of %d%%). Each condition only removes "
     "flags, so if the test's assumptions hold at most a fraction %g of a figure's flags "
     "are expected to be false. The runs of one set share a session: slow drift between sessions "
     "(another tenant, a thermal state) is not in the run-to-run variance, which is why "
     "changes under %d%% are never flagged."
     % (ALPHA, 1 + MIN_EFFECT, 1 / (1 + MIN_EFFECT), round(MIN_EFFECT * 100), ALPHA,
        round(MIN_EFFECT * 100))),
]


def protocol_text(m):
    """'timed 0.2 s warm-up + 0.8 s, 3 runs; count-to-N 5 runs' of a machine summary."""
    pt, pc = m.get("protocol_timed"), m.get("protocol_count")
    out = []
    if pt:
        out.append("timed %s s warm-up + %s s, %s runs" % (pt["warmup_s"], pt["duration_s"],
                                                          pt["runs"]))
    if pc:
        out.append("count-to-N %s runs" % pc["runs"])
    return "; ".join(out) or "no protocol recorded"


def caveats(a, b):
    """Lines that say why the two sides (compare_io.Side) are not like for like."""
    out = []
    ma, mb = a.m, b.m
    mode_a, mode_b = ma.get("run_all_mode"), mb.get("run_all_mode")
    if mode_a != mode_b:
        out.append("**Different modes**: A was taken in %s mode, B in %s mode (run lengths "
                   "and run counts differ: a difference may be the protocol's)."
                   % (mode_a or "an unrecorded", mode_b or "an unrecorded"))
    elif protocol_text(ma) != protocol_text(mb) and not (a.m.get("meta_missing") or
                                                          b.m.get("meta_missing")):
        out.append("**Different protocols**: A %s, B %s (scbench's --warmup, --duration, "
                   "--runs): a difference may be the protocol's." % (protocol_text(ma),
                                                                    protocol_text(mb)))
    for label, side in (("A", a), ("B", b)):
        if side.m.get("meta_missing"):
            out.append("**No metadata** for %s: %s: its machine, protocol and timer are "
                       "unknown." % (label, ", ".join("%s.meta.json missing" % n
                                                      for n in side.m["meta_missing"])))
    ta, tb = a.tick(), b.tick()
    if ta and tb and abs(ta / tb - 1) > 0.01:
        out.append("**Different timers**: ns_per_tick %.4g in A, %.4g in B: latency and "
                   "read-cost values move in different steps (points under %d steps are "
                   "not tested, see Quantized)." % (ta, tb, QUANT_STEPS))
    ca, cb = (ma.get("cpu") or {}).get("model"), (mb.get("cpu") or {}).get("model")
    if (ma.get("host") != mb.get("host") or ca != cb or ma.get("pus") != mb.get("pus")) and \
            ma.get("host") and mb.get("host"):
        out.append("**Different machines**: A on %s (%s, %s PUs), B on %s (%s, %s PUs): "
                   "every difference includes the machine's." % (
                       ma.get("host"), ca, ma.get("pus"), mb.get("host"), cb, mb.get("pus")))
    for label, side in (("A", a), ("B", b)):
        few = sorted(f for f, n in set_runs(side.points).items() if n < 2)
        if few:
            out.append("**Fewer than 2 runs** in %s for some points of %s: those points "
                       "have no run-to-run variance and are not tested." % (label, ", ".join(few)))
    for label, side in (("A", a), ("B", b)):
        load = side.load() or {"busy_runs": 0, "runs": 0}
        b_, n = load["busy_runs"], load["runs"]
        if b_:
            out.append("**Busy machine**: %d of %d runs of %s were taken while other "
                       "processes used the machine (the busy column; compare.csv busy_a, "
                       "busy_b per point): their figures measure the load too."
                       % (b_, n, label))
    return out


def f_num(v):
    if v is None:
        return "-"
    if math.isinf(v):
        return "inf"
    if abs(v) >= 100:
        return "{:,.0f}".format(v)
    return "%.3g" % v


# A smallest flaggable change beyond this factor is not a bound a reader can use:
# the runs are too few or too noisy, and it is written "n/a", not as a percentage.
MAX_BOUND = 10.0


def f_change(d):
    """d (a flaggable ratio, >= 1) as "+x% / -y%", or "n/a" when it cannot be bounded
    (not finite, or beyond MAX_BOUND)."""
    if d is None or not math.isfinite(d) or d >= MAX_BOUND:
        return "n/a"
    d = max(d, 1 + MIN_EFFECT)
    return "%+.1f%% / %+.1f%%" % (100 * (d - 1), 100 * (1 / d - 1))


def f_ratio(v):
    """A ratio as "1.23x", or "n/a" when it is not a finite positive number."""
    return "%.3gx" % v if v is not None and math.isfinite(v) and v > 0 else "n/a"


def unit_of(measure):
    """The unit of a measure: a figure panel's label ("throughput (ops/ms)",
    "|relative error| (%)", "value / N", "bytes per counter") or a CSV
    column (ops_per_ms, read_ns, ..., seconds)."""
    m = (measure or "").split(":")[0].strip()
    paren = re.search(r"\(([^()]*)\)$", m)
    if paren:
        unit = paren.group(1)
        return {"seconds": "s"}.get(unit, unit)
    if m == "value / N":
        return "of N"
    if m.endswith("per_ms"):
        return "ops/ms"
    if m.endswith("_ns") or m == "ns":
        return "ns"
    if m.endswith("_s") or m == "seconds":
        return "s"
    if m.startswith("bytes"):
        return "bytes"
    return ""


def f_value(v, measure):
    """f_num with the measure's unit after it ("-" stays bare)."""
    text, unit = f_num(v), unit_of(measure)
    if text == "-" or not unit:
        return text
    return text + unit if unit == "%" else "%s %s" % (text, unit)


def f_p(v):
    return "-" if v is None else ("%.2g" % v if v >= 1e-4 else "%.1e" % v)


def point_text(r):
    where = "%d thr" % r["threads"]
    if r["point"]:
        where += ", " + r["point"]
    if r["params"]:
        where += ", " + r["params"]
    return where


def direction(r):
    """'better' or 'worse' for B, by the measure's sense."""
    up = r["ratio"] > 1
    return "better" if up == (r["measure"] in HIGHER_IS_BETTER) else "worse"


def describe(label, path, m):
    bits = [m.get("host") or "unknown host"]
    if m.get("topology"):
        bits.append(m["topology"])
    cpu = m.get("cpu")
    if cpu:
        bits.append("%s, governor %s, boost %s" % (cpu.get("model"), cpu.get("governor"),
                                                   cpu.get("boost")))
    if m.get("source_revision"):
        bits.append("revision %s" % m["source_revision"])
    dates = m.get("dates") or []
    if dates:
        bits.append(dates[0])
    # a path's bytes that are not UTF-8 (os.fsdecode's surrogates) shown as \xNN
    shown = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return "| %s | `%s` | %s |" % (label, shown, "; ".join(bits).replace("|", "\\|"))


def change_row(r):
    ci = "%s-%s" % (f_ratio(r["ci_low"]), f_ratio(r["ci_high"]))
    return "| %s | %s | %s | %s | %s | %s (%s) | %s |" % (
        r["figure"], r["counter"], point_text(r), f_value(r["median_a"], r["measure"]),
        f_value(r["median_b"], r["measure"]), f_ratio(r["ratio"]),
        "n/a" if "n/a" in ci else ci, f_p(r["p_adj"]))


def logsize(r):
    return abs(math.log(r["ratio"])) if 0 < r["ratio"] < math.inf else math.inf


def blind_text(power):
    """What a comparison could not have seen: per figure, the change it flags 80% of
    the time (smaller ones may pass unflagged), from the power table."""
    if not power:
        return "it could not have seen any change (no figure had points to test)"
    return "it could not have seen changes smaller than these (flagged 80%% of the time): %s" % (
        ", ".join("%s %s" % (fid, f_change(d80)) for fid, (m, na, nb, d50, d80) in power.items()))


def recommendation_line(a, b):
    """One line: whether the counter plots/advice.py recommends changed from A to B,
    scenario by scenario (only result sets have scenarios), judged as plots/atlas
    judges machines (advice.judge): a different best within run-to-run noise
    is no change; an answer on fewer runs than advice needs says provisional."""
    if a.figs is None or b.figs is None:
        return ("Recommendation: not compared (scbench CSVs have no scenarios; "
                "compare two result sets, or see plots/atlas)")
    import advice
    rec = []
    for side in (a, b):
        side.figs.build()
        rec.append({r["id"]: r for r in advice.advise(side.rs, side.figs)})
    both = [k for k in rec[0] if rec[0][k]["best"] and k in rec[1] and rec[1][k]["best"]]
    if not both:
        return "Recommendation: not compared (no scenario is answered in both sets)"
    judged = {k: advice.judge({"A": rec[0][k], "B": rec[1][k]}) for k in both}
    few = sorted(set(x for k in both for x in judged[k][2]))
    prov = ""
    if few:
        runs = min(rec[i][k].get("runs", advice.MIN_RUNS) for k in both for i in (0, 1))
        prov = (" (provisional: %s %s as few as %d run%s per point, under the %d needed to "
                "tell a winner from run-to-run noise)"
                % (" and ".join(few), "has" if len(few) == 1 else "have", runs,
                   "" if runs == 1 else "s", advice.MIN_RUNS))

    def moves(verdict):
        return ["%s: %s -> %s" % (rec[0][k]["scenario"], rec[0][k]["best"], rec[1][k]["best"])
                for k in both if judged[k][0] == verdict]
    changed, noise = moves("changed"), moves("noise")
    within = ("; in %d more the best differs within run-to-run noise (tied for best in both): "
              "%s" % (len(noise), "; ".join(noise))) if noise else ""
    if changed:
        return "Recommendation changed in %d of %d scenarios%s: %s%s" % (
            len(changed), len(both), prov, "; ".join(changed), within)
    if noise:
        return ("Recommendation unchanged within run-to-run noise in all %d scenarios answered "
                "in both sets%s: in %d the best differs, tied for best in both: %s"
                % (len(both), prov, len(noise), "; ".join(noise)))
    return ("Recommendation unchanged: the same counter in all %d scenarios answered in "
            "both sets%s" % (len(both), prov))


def headline(rows, a, b, power, recommendation):
    """COMPARE.md's title, the recommendation line, the two sets and the summary line."""
    compared = [r for r in rows if r["p_value"] is not None]
    sig = [r for r in rows if r["significant"] == "yes"]
    only = [r for r in rows if r["test"].startswith("only in")]
    quant = [r for r in rows if r["test"].startswith("quantized")]
    out = ["# Comparison of two %s" % ("result sets" if a.kind == "set" else "scbench CSVs"), ""]
    if recommendation:
        out += ["**%s.**" % recommendation, ""]
    out += [
        "B against A, point by point; generated by `plots/compare`. "
        "Ratio = B / A of the medians of the runs. Every point is in `compare.csv` "
        "(and `compare.json`).", "",
        "| set | path | machine |", "|---|---|---|",
        describe("A", a.path, a.m), describe("B", b.path, b.m), "",
        "**%d points compared: %d significant differences (%d better in B, %d worse); "
        "%d points in only one set; %d quantized points compared but not tested; %d "
        "points with one run in a set (never significant); %s.**" % (
            len(compared), len(sig), sum(1 for r in sig if direction(r) == "better"),
            sum(1 for r in sig if direction(r) == "worse"), len(only), len(quant),
            sum(1 for r in compared if min(r["n_a"], r["n_b"]) < 2), blind_text(power)),
        ""]
    return out


def significant_section(sig, warn):
    """COMPARE.md's caveats and its significant differences, largest first."""
    out = ["## Caveats", ""]
    out += ["- " + w for w in warn] if warn else [
        "None: same mode, timer and machine, at least 2 runs per point, no busy run."]
    out += ["", "## Significant differences", ""]
    if sig:
        out += ["| figure | variant | point | median A | median B | ratio (95% CI) | "
                "p (BH, per figure) | B is |", "|---|---|---|---|---|---|---|---|"]
        for r in sorted(sig, key=lambda r: -abs(math.log(r["ratio"]))
                        if 0 < r["ratio"] < math.inf else -math.inf):
            out.append(change_row(r)[:-1] + "| %s |" % direction(r))
    else:
        out.append("None: no point differs by the rule below.")
    return out


def per_figure_section(rows, compared, figures):
    """COMPARE.md's table of each figure panel's ratios, in the order of the rows."""
    out = ["", "## Per figure", "",
           "| figure | measure | points compared | significant (better / worse in B) | "
           "median ratio | ratio range | overlay |",
           "|---|---|---|---|---|---|---|"]
    for pid in sorted(set(r["figure"] for r in rows),
                      key=lambda p: [r["figure"] for r in rows].index(p)):
        rr = [r for r in compared if r["figure"] == pid]
        if not rr:
            continue
        ratios = sorted(r["ratio"] for r in rr)
        s = [r for r in rr if r["significant"] == "yes"]
        fid = rr[0]["figure_id"]
        out.append("| %s | %s | %d | %d (%d / %d) | %.3gx | %.3gx-%.3gx | %s |" % (
            pid, rr[0]["measure"].replace("|", "\\|"), len(rr), len(s),
            sum(1 for r in s if direction(r) == "better"),
            sum(1 for r in s if direction(r) == "worse"),
            percentile(ratios, 0.5), ratios[0], ratios[-1],
            "[%s.png](%s.png)" % (fid, fid) if fid in figures else "-"))
    return out


def power_section(power):
    """COMPARE.md's table of the smallest change each figure can flag."""
    out = ["", "## Power: the smallest change each figure can flag", "",
           "With these sets' run counts, a lone changed point of the figure is flagged "
           "half the time at the first change, 80%% of the time at the second (both at the "
           "figure's median run-to-run noise; never under %d%%, and the bootstrap interval "
           "must also exclude 1)." % round(MIN_EFFECT * 100), "",
           "| figure | points tested | runs A / B (median) | flagged half the time | "
           "flagged 80% of the time |", "|---|---|---|---|---|"]
    for fid, (m, na, nb, d50, d80) in power.items():
        out.append("| %s | %d | %g / %g | %s | %s |" % (fid, m, na, nb, f_change(d50),
                                                        f_change(d80)))
    if not power:
        out.append("| - | 0 | - | - | - |")
    return out


def unflagged_section(compared):
    """COMPARE.md's largest changes of the points tested and not flagged."""
    out = ["", "## Largest changes not flagged", "",
           "The %d largest changes of the points tested and not flagged (largest first): "
           "a change here is within what these run counts can tell from noise." % LISTED, ""]
    quiet = sorted((r for r in compared if r["significant"] != "yes"), key=lambda r: -logsize(r))
    if quiet:
        out += ["| figure | variant | point | median A | median B | ratio (95% CI) | "
                "p (BH, per figure) |", "|---|---|---|---|---|---|---|"]
        out += [change_row(r) for r in quiet[:LISTED]]
    else:
        out.append("None.")
    return out


def apart_sections(quant, only):
    """COMPARE.md's quantized points (compared, not tested) and points of one set only."""
    out = ["", "## Quantized points: compared, not tested", ""]
    if quant:
        out += ["Latency and read-cost values under %d timer steps (see Method): their "
                "ratios and intervals are in compare.csv." % QUANT_STEPS, "",
                "| figure | points | timer step | largest change |", "|---|---|---|---|"]
        for pid in dict.fromkeys(r["figure"] for r in quant):
            qq = [r for r in quant if r["figure"] == pid]
            big = max(qq, key=logsize)
            out.append("| %s | %d | %s | %s %s %s |" % (
                pid, len(qq), big["test"].split("(")[1].split(")")[0].replace("timer step ", ""),
                big["counter"], point_text(big), f_ratio(big["ratio"])))
    else:
        out.append("None.")
    out += ["", "## Points in only one set", ""]
    if only:
        out += ["| figure | variant | point | in |", "|---|---|---|---|"]
        for r in only:
            out.append("| %s | %s | %s | %s |" % (r["figure"], r["counter"], point_text(r),
                                                  r["test"][len("only in "):]))
    else:
        out.append("None.")
    return out


def render(rows, a, b, figures, power, warn, recommendation=None):
    """COMPARE.md of the rows of sides a and b (compare_io.Side)."""
    compared = [r for r in rows if r["p_value"] is not None]
    out = headline(rows, a, b, power, recommendation)
    out += significant_section([r for r in rows if r["significant"] == "yes"], warn)
    out += per_figure_section(rows, compared, figures)
    out += power_section(power)
    out += unflagged_section(compared)
    out += apart_sections([r for r in rows if r["test"].startswith("quantized")],
                          [r for r in rows if r["test"].startswith("only in")])
    out += ["", "## Method", ""]
    method = METHOD if a.kind == "set" else [("Points", CSV_POINTS + ".")] + METHOD[1:]
    out += ["- **%s**: %s" % (k, v) for k, v in method]
    out.append("")
    return "\n".join(out)
