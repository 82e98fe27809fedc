#!/bin/sh
# SPDX-License-Identifier: MIT
# test_plots.sh - the figure and report pipeline (doc/design.md §6, §7) on the fixture
# result set tests/fixtures/results-small, as TAP: the aggregator's data and
# statistics (checked against statistics.quantiles), the claim declarations,
# both renderers, the report, plots/regen, a partial result set,
# and the claim verdicts on a synthetic 256-PU result set.
#
# Checks that need gnuplot or a Python with matplotlib are reported as
# "ok N - name # SKIP ..." where those are missing. Without any python3 the
# aggregator cannot run and the whole test is skipped with the TAP plan
# "1..0 # SKIP" (what automake's tap-driver.sh counts as a skip; an exit
# status of 77 would be reported there as an error).
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
plots=$top/plots
fixture=$top/tests/fixtures/results-small

py=""
for c in python3 /usr/bin/python3; do
	if command -v "$c" >/dev/null 2>&1; then py=$c; break; fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP no python3: the aggregator cannot run"
	exit 0
fi
gp=""
if command -v gnuplot >/dev/null 2>&1; then gp=gnuplot; fi
mpl=""
if [ -n "${PYTHON_MPL:-}" ]; then
	mpl=$PYTHON_MPL
else
	for c in /usr/bin/python3 python3; do
		if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then
			mpl=$c; break
		fi
	done
fi

# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

# Every figure id of doc/design.md §6, from the figure table (a new entry is tested in
# the aggregator and both renderers without a change here).
SPEC_FIGURES="dice-fig3 dice-fig4-low dice-fig4-high dice-fig5 dice-fig6-low dice-fig6-high
ayers-accuracy ayers-accuracy-detail ayers-accuracy-tunable ayers-scaling ayers-scaling-detail
baselines latency read-cost"
FIGURES=$("$py" -B -c 'import sys
sys.path.insert(0, sys.argv[1])
from figures import FIGURE_IDS
print(" ".join(FIGURE_IDS))' "$plots")

# copy_set NAME: a writable copy of the fixture (the source tree may be read-only).
copy_set() {
	cp -R "$fixture" "$tmp/$1" && chmod -R u+w "$tmp/$1"
}

# ---- the aggregator -----------------------------------------------------------
missing=""
for id in $SPEC_FIGURES; do
	case " $FIGURES " in *" $id "*) ;; *) missing="$missing $id" ;; esac
done
check "figure_table_has_every_spec_figure${missing:+ (missing:$missing)}" test -z "$missing"
# Every experiment of run-all's plan writes a CSV the result set's provenance,
# files present and busy runs are counted over (resultset.PLAN_SOURCES): one
# that only claims read (no figure) is counted too.
unplanned=$("$py" -B -c 'import sys
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[2])
from resultset import PLAN_SOURCES
from runall.plan import EXPERIMENTS
print(" ".join(e for e in EXPERIMENTS if e + ".csv" not in PLAN_SOURCES))' "$plots" "$top/harness")
check "every_planned_experiment_counted${unplanned:+ (left out:$unplanned)}" test -z "$unplanned"
check style_gp_matches_style_json "$py" "$plots/style.py" --check
# The plots house keeps every Python file of plots/ (claims/ included) at 450 lines
# or fewer (a longer one is split by what it does), and the tarball
# carries every file of plots/ (PLOT_FILES of Makefile.am: make distcheck).
long=$(find "$plots" -name '*.py' | while IFS= read -r f; do
	n=$(wc -l <"$f"); [ "$n" -le 450 ] || printf ' %s:%s' "${f#"$plots"/}" "$n"; done)
check "plots_python_files_at_most_450_lines${long:+ (over:$long)}" test -z "$long"
if [ -f "$top/Makefile.am" ]; then
	unlisted=$(cd "$top" && find plots -type f \( -name '*.py' -o -name '*.gp' \) | while IFS= read -r f; do
		grep -q "[[:space:]]$f\([[:space:]]\|\$\)" Makefile.am || printf ' %s' "$f"; done)
	check "plots_files_listed_in_plot_files${unlisted:+ (not listed:$unlisted)}" test -z "$unlisted"
else
	skip plots_files_listed_in_plot_files "no Makefile.am in $top"
fi
# The variants' colours (a series for each variant of scbench --list=json) are
# far apart (CIELAB Delta E 1976 >= 40: the pairs the issue found alike,
# ScalableCAS/BFP-DUP, Striped/RBONumaAdapt, Batched/MorrisAdapt, were 14-30
# apart), and every (marker, dash) pair is its own.
"$SCBENCH" --list=json >"$tmp/variants.json"
check palette_separates_every_variant "$py" -c '
import itertools, json, math, sys
def lab(h):
    c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    xyz = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
           (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    f = [v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in xyz]
    return (116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2]))
st = json.load(open(sys.argv[1]))
v = [s for s in st["series"] if not s["name"].startswith("T")]
d = min((math.dist(lab(a["color"]), lab(b["color"])), a["name"], b["name"])
        for a, b in itertools.combinations(v, 2))
looks = set((s["pt"], s["dash"]) for s in v)
print("# closest colours: %s / %s, Delta E %.1f" % (d[1], d[2], d[0]))
names = [x["name"] for x in json.load(open(sys.argv[2]))["variants"]]
sys.exit(0 if sorted(s["name"] for s in v) == sorted(names) and d[0] >= 40 and len(looks) == len(v)
         and len(set(s["pt"] for s in v)) == len(v) else 1)' "$plots/style.json" "$tmp/variants.json"
copy_set rs
rs=$tmp/rs
"$py" "$plots/aggregate.py" "$rs" >"$tmp/agg.out" 2>&1
check aggregate_exits_0 test $? -eq 0
for id in $FIGURES; do
	line=$(awk -F'\t' -v id="$id" '$1 == id' "$rs/figdata/figures.tsv" 2>/dev/null)
	case $line in
	*"	ok	"*) ok "figdata_$id: $(echo "$line" | cut -f3)" ;;
	*) not_ok "figdata_$id (figures.tsv: ${line:-no line})" ;;
	esac
done

# Every .dat: the column header, rows of 12 fields, numbers or NaN after the series name.
dat_ok() {
	f=$1
	[ -s "$f" ] || return 1
	grep -q '^# columns: series x n median min max mean p5 p95 env_lo env_hi marked$' "$f" || return 1
	grep -q '^# series: ' "$f" || return 1
	awk '!/^#/ && NF { rows++
		if (NF != 12) bad = 1
		for (i = 2; i <= 12; i++)
			if ($i != "NaN" && $i !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) bad = 1 }
		END { exit (bad || rows == 0) }' "$f"
}
# shellcheck disable=SC2013 # the .dat names are words of the third column
for f in $(grep -v '^#' "$rs/figdata/figures.tsv" | cut -f3); do
	check "dat_columns_$f" dat_ok "$rs/figdata/$f"
done
check envelope_in_fig6 sh -c "awk '\$1 == \"Morris\" && \$11 != \"NaN\"' '$rs/figdata/dice-fig6-high.dat' | grep -q ."
check binomial_envelope_in_ayers_detail sh -c \
	"awk '\$1 == \"Scalable\" && \$2 > 8192 && \$10 < 1 && \$11 > 1' '$rs/figdata/ayers-accuracy-detail.dat' | grep -q ."

# Known statistics: five runs with ops_per_ms 1, 2, 3, 4, 10 give median 3,
# mean 4, p5 1.2 and p95 8.8 (linear interpolation between order statistics),
# and are not marked (10 is within 3 x 1.4826 MAD of the lns: plots/marks.py).
mkdir -p "$tmp/known"
head -1 "$fixture/dice-fig3.csv" >"$tmp/known/dice-fig3.csv"
for v in 1 2 3 4 10; do
	csvawk -v OFS=, -v v=$v '$col("counter") == "CAS" && !seen++ {
		$col("threads") = 1; $col("ops_per_ms") = v; print }' "$fixture/dice-fig3.csv" >>"$tmp/known/dice-fig3.csv"
done
"$py" "$plots/aggregate.py" "$tmp/known" >/dev/null 2>&1
check aggregate_statistics_known_values sh -c \
	"grep '^CAS ' '$tmp/known/figdata/dice-fig3.dat' | grep -q '^CAS 1 5 3 1 10 4 1.2 8.8 NaN NaN 0$'"

# plots/stats.py's percentile is the type-7 definition of statistics.quantiles
# (method="inclusive"; Python 3.8+): equal to 1e-12 relative on 2,000 fixed-seed
# random samples of 1-40 values and at p = 0.05, 0.5, 0.95 (deterministic).
check percentile_matches_statistics_quantiles "$py" -B -c '
import random, statistics, sys
sys.path.insert(0, sys.argv[1])
from stats import percentile
rng = random.Random(7)
for _ in range(2000):
    xs = sorted(rng.uniform(-1e3, 1e6) for _ in range(rng.randint(2, 40)))
    q = statistics.quantiles(xs, n=20, method="inclusive")
    for p, want in ((0.05, q[0]), (0.5, q[9]), (0.95, q[18])):
        got = percentile(xs, p)
        assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (xs, p, got, want)
assert percentile([4.0], 0.95) == 4.0 and percentile([], 0.5) is None
' "$plots"
# plots/consistency.py: dice-fig3 against dice-fig4-low, point by point: an
# overlap of the min-max bands counts, a gap is counted in one line and listed
# with both bands in figdata/bands-apart.tsv; a point of one run (min is max)
# is no band and is not compared (24 points of 1 run filled the
# terminal); the reason given names the set's calibration where it has one.
check fig3_fig4low_band_note "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from consistency import band_notes, band_table
p = lambda lo, hi, n=3: {"min": lo, "max": hi, "median": (lo + hi) / 2, "n": n}
stats = {("dice-fig3", ""): {"CAS": {1: p(10, 20), 2: p(30, 40), 4: p(9, 9, 1)}, "RBO": {1: p(5, 6)}},
         ("dice-fig4-low", ""): {"CAS": {1: p(15, 25), 2: p(41, 50), 4: p(1, 1, 1)}, "RBO": {1: p(6, 7)}}}
notes = band_notes(stats)
assert len(notes) == 1 and "overlap at 2 of 3 common points with 2 or more runs each; the 1 apart are listed in figdata/bands-apart.tsv" in notes[0], notes
assert "\n" not in notes[0] and len(notes[0]) < 400, notes
rows = band_table(stats).splitlines()
assert rows[0].startswith("# figure a") and rows[1:] == ["dice-fig3\tdice-fig4-low\tCAS\t2\t30\t40\t41\t50"], rows
one = {k: {s: {x: dict(v, n=1) for x, v in pts.items()} for s, pts in d.items()} for k, d in stats.items()}
assert band_notes(one) == [] and band_table(one) is None and band_notes({}) == []
assert "their own --work calibration" in notes[0], notes
# a set calibrated once: the two levels pause counts, never "their own calibration"
lv = [{"work_pct": 99.02, "work_iters": 30.85}, {"work_pct": 99.0, "work_iters": 30.15}]
cal = band_notes(stats, lv)[0]
assert "99.02% as 30.85 pauses, 99% as 30.15" in cal and "their own" not in cal, cal
assert band_notes(stats, lv[:1])[0] == notes[0]
' "$plots"
# Claims: unique ids, declarations the report can number, verdicts it can write.
check claim_ids_unique "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from claims import CLAIMS
ids = [c.id for c in CLAIMS]
assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
assert all(c.threads >= 1 and c.nodes >= 1 and callable(c.rule) for c in CLAIMS)
from claims.core import VERDICTS
import report
assert set(VERDICTS) == set(report.VERDICT_MD), "a verdict the report cannot write"
' "$plots"
# A claim's declared threads and nodes are enforced whatever its rule: on the
# fixture (1-2 threads, one node) a rule that always says "holds" is overruled
# with the generated reasons.
# CLAIMS_CTX: Python that builds the claims context ctx of the fixture copy $rs
# (argv: plots dir, result set, figdata dir).
CLAIMS_CTX='
import sys
sys.path.insert(0, sys.argv[1])
import claims
from claims.core import HOLDS, NM, Claim
from figbuild import Figures
from figures import FIGURES
from resultset import ResultSet
from resultset_summary import machine_summary
rs = ResultSet(sys.argv[2])
m = machine_summary(rs)
figs = Figures(rs, m, FIGURES)
figs.build(sys.argv[3])
ctx = claims.Context(rs, figs, m)
'
mkdir -p "$tmp/needs"
check claim_needs_generate_not_measurable "$py" -B -c "$CLAIMS_CTX"'
yes = lambda ctx, c: ("measured", HOLDS, "because", 5)
got = claims.evaluate(ctx, [
    Claim("t", "Dice §0", "x", "dice-fig4-low", yes, threads=64),
    Claim("n", "Dice §0", "x", "dice-fig4-low", yes, nodes=2, nodes_why=" (why)"),
    Claim("a", "Ayers, X", "x", "ayers-accuracy", yes, threads=12, threads_at=True),
    Claim("ok", "Dice §0", "x", "dice-fig4-low", yes, threads=2)])
want = [(NM, "needs at least 64 threads; the largest thread count in this result set is 2"),
        (NM, "needs at least 2 real NUMA nodes (why); this machine has 1 NUMA node"),
        (NM, "Ayers counted with 12 threads; this set used 2"),
        (HOLDS, "because")]
for g, (v, r) in zip(got, want):
    assert g["verdict"] == v and g["reason"].startswith(r), (g, v, r)
' "$plots" "$rs" "$tmp/needs"

# The verdict rules that evaluate() enforces whatever a rule says: fewer runs than
# claim.min_runs, or a "holds" of an up-to claim measured at fewer thread counts,
# is inconclusive (a failure at a measured count stands); a claim true by
# construction is listed apart; a ratio that one run decides (leave one out) is
# flagged; the report counts every verdict and leaves "by construction" out.
mkdir -p "$tmp/rules"
check verdict_rules_inconclusive_consistent_by_construction "$py" -B -c "$CLAIMS_CTX"'
import report
from claims.core import BY_CONSTRUCTION, FAILS, INCONCLUSIVE
from claims.rules import ratio_point
def says(v, runs):
    return lambda ctx, c: ("measured", v, "because", runs)
got = [g["verdict"] for g in claims.evaluate(ctx, [
    Claim("few", "Dice §0", "x", "dice-fig4-low", says(HOLDS, 2)),
    Claim("enough", "Dice §0", "x", "dice-fig4-low", says(HOLDS, 3)),
    Claim("upto", "Dice §0", "x", "dice-fig4-low", says(HOLDS, 5), threads=8, threads_upto=True),
    Claim("uptofail", "Dice §0", "x", "dice-fig4-low", says(FAILS, 5), threads=8,
          threads_upto=True),
    Claim("bc", "Dice §0", "x", "dice-fig4-low", says(HOLDS, 5), by_construction="calibrated"),
    Claim("bcfail", "Dice §0", "x", "dice-fig4-low", says(FAILS, 5), by_construction="cal."),
    Claim("norun", "Dice §0", "x", "dice-fig4-low", says(HOLDS, None))])]
assert got == [INCONCLUSIVE, HOLDS, INCONCLUSIVE, FAILS, BY_CONSTRUCTION, FAILS, INCONCLUSIVE], got
gt1 = lambda r: r > 1.0
def rp(a, b, ok=gt1):
    r, good, frag = ratio_point({"median": a[1], "values": a}, {"median": b[1], "values": b},
                                ok)
    return good, frag
# leave one out: dropping the 30 of b makes the median of b 10.25 -> still > 1; dropping a 10.5
# makes it 20: 15/20 < 1, so one run decides it (15/10.5 = 1.43x: 43% from the line, beyond
# the band of the sequential rule)
assert rp([10, 15, 16], [10, 10.5, 30]) == (True, "one run decides it: leaving one run out "
                                             "changes the answer")
# within 25% of the line (11/10.5 = 1.048x) 3 runs a side never decide (the sequential rule)
assert rp([10, 11, 12], [10, 10.5, 30])[1].startswith("near its line (4.8% from it) on 3 "
                                                      "runs a side")
assert rp([20, 21, 22], [10, 10, 11]) == (True, "")
# the noise rule: every leave-one-out ratio clears 1 (14/10.2 = 1.37x, beyond the sequential
# rule band), but before the first deciding look the band of every run over every run
# (9/10.4 to 15/10) widened by the larger spread within a side (15/9) straddles the line:
# inconclusive, with more runs wanted
assert rp([9, 14, 15], [10, 10.2, 10.4])[1].startswith("within the noise at the first look: "
    "on 3 and 3 runs the band"), rp([9, 14, 15], [10, 10.2, 10.4])
doc = {"claims": [{"id": v, "source": "Dice §0", "claim": "x", "figure": "f", "measured": "",
                   "verdict": v, "reason": "r"} for v, _, _ in report.VERDICT_TEXT]}
text = report.render(sys.argv[3], doc)
assert "**6 claims: 1 hold, 1 consistent with it (within a stated tolerance), 1 do not hold, " \
       "1 are inconclusive, 1 have no test here (the measurement could not have failed them), " \
       "1 are not measurable here.** (Not counted: 1 that holds by " \
       "construction, listed apart below.)" in text, text
assert "| C1 | x (Dice §0) |" in text
' "$plots" "$rs" "$tmp/rules"

# The noise rule converges: the order-statistic interval on a median misses on
# one side with exactly P(Bin(n, 1/2) < k) (checked against its definition), narrows as
# runs are added, and so decides a fixed true ratio of 1.3 against a line at 1 once there
# are enough runs (all 100 samples at 100 runs), while a ratio on the line stays
# undecided (decided no more often than the rule's stated rate). Synthetic runs: lognormal
# noise (sigma 0.2) from random.Random with fixed seeds 0..99, so the test is
# deterministic (no false failure); the fraction decided on the line is held to the
# rule's own bound (stats.ratio_false_verdict), never loosened.
check noise_rule_converges_with_runs "$py" -B -c '
import math, random, sys
sys.path.insert(0, sys.argv[1])
from stats import MEDIAN_TAIL, binom_half_cdf, median_interval, median_order, ratio_false_verdict
from claims.rules import ratio_point
assert median_order(3) == (1, 0.125) and median_order(30)[0] == 9, median_order(30)
for n in range(1, 80):
    k, miss = median_order(n)
    assert miss == sum(math.comb(n, i) for i in range(k)) / 2.0 ** n
    assert k == 1 or (miss <= MEDIAN_TAIL and (k == (n + 1) // 2 or binom_half_cdf(n, k) > MEDIAN_TAIL))
def runs(rng, n, med):
    return sorted(med * math.exp(rng.gauss(0.0, 0.2)) for _ in range(n))
def point(v):
    return {"median": sorted(v)[len(v) // 2] if len(v) % 2 else
            (sorted(v)[len(v) // 2 - 1] + sorted(v)[len(v) // 2]) / 2, "values": sorted(v)}
gt1 = lambda r: r > 1.0
decided, width = {}, {}
for ratio in (1.3, 1.0):
    for n in (3, 10, 30, 100):
        d = 0
        for seed in range(100):
            rng = random.Random(seed)
            a, b = runs(rng, n, ratio), runs(rng, n, 1.0)
            _, good, frag = ratio_point(point(a), point(b), gt1)
            d += not frag
            if seed == 0 and ratio == 1.0:
                lo, hi, _ = median_interval(a)
                width[n] = hi / lo
        decided[(ratio, n)] = d
print("# decided of 100:", decided, "width of one median interval:", width)
# from 7 runs on (the rule'"'"'s full confidence) more runs decide more points; 3 runs decide
# some through the min-max band, at the weaker rate the reason states
assert decided[(1.3, 10)] < decided[(1.3, 30)] < decided[(1.3, 100)] == 100, decided
assert decided[(1.3, 3)] < 50, decided
assert width[100] < width[30] < width[10] < width[3], width
for n in (3, 10, 30, 100):
    q = median_order(n)[1]
    assert decided[(1.0, n)] <= 100 * ratio_false_verdict(q, q), (n, decided[(1.0, n)])
' "$plots"

# Test doubles for the claim tests: a point of runs (pt, tri: three runs 0.1% apart),
# the figures' statistics (Figs), a result set of CSV rows (RS), and run(): one claim'"'"'s
# rule on them.
CLAIM_FAKES='
import sys
sys.path.insert(0, sys.argv[1])
from claims import CLAIMS
from claims.context import Context
def pt(vals, rows=None, copies=3):
    # each run given copies times: 3 runs become 9, past the first deciding look of the
    # sequential rule (8), with the same min-max band and median, so that a rule is tested
    # on its values near its line as well (copies=1: the runs as given)
    vals = sorted(vals * copies if len(vals) <= 4 else vals)
    if rows and len(rows) < len(vals):
        rows = rows * copies
    return {"median": vals[len(vals) // 2], "values": vals, "n": len(vals), "oversub": False,
            "max": vals[-1], "min": vals[0], "total": len(vals),
            "rows": rows or [{"rel_error": 0.01, "bytes_per_counter": 64.0}] * len(vals)}
def tri(m, rows=None, **row):
    return pt([m, m * 1.001, m * 1.002], rows or ([dict(row)] * 3 if row else None))
class Figs:
    def __init__(self, stats):
        self.stats, self.table = stats, []
    def entry(self, fid):
        return type("Fig", (), {"mode": "timed", "id": fid})
class RS:
    def __init__(self, files):
        self.files = files
    def csv(self, name):
        return self.files.get(name)
    def rows(self, name, mode):
        return [r for r in self.files.get(name) or [] if r.get("mode") == mode]
    def meta(self, name):
        return {}
by = {c.id: c for c in CLAIMS}
def run(cid, stats, files=None, m=None, timed=None, count_rows=None):
    c = by[cid]
    ctx = Context(RS(files or {}), Figs(stats), m or {"pus": 256, "cache_line": 64})
    if timed is not None:
        ctx.timed_rows = lambda names, variants: [r for r in timed if r["counter"] in variants]
    if count_rows is not None:
        ctx.count_rows = lambda name: list(count_rows)
    return c.rule(ctx, c)
'
# Five verdicts by the papers' own conditions: "slightly" reduces latency has
# an upper side (21x is not slight); BFP-CSUP's speed is judged where it stayed exact (the
# paper names no contention condition); BFP-DUP's RSTDV bound is judged only on runs
# whose exponent did not saturate at SC_BFP_EXP_MAX; Interlocked's exactness and
# Sharded's size hold by construction.
check verdicts_by_papers_conditions "$py" -B -c "$CLAIM_FAKES"'
from claims.core import CONDITION, FAILS, HOLDS, NM
from claims.dice_error import bfp_exp_max, exponent_saturated
fast = {("dice-fig4-high", ""): {"Serial": {2: pt([21, 21.5, 22])}, "CAS": {2: pt([1, 1.01, 1.02])}}}
slight = {("dice-fig4-high", ""): {"Serial": {2: pt([1.05, 1.051, 1.052])}, "CAS": {2: pt([1, 1.001, 1.002])}}}
assert run("dice-serial-latency-vs-cas", fast)[1] == FAILS
assert run("dice-serial-latency-vs-cas", slight)[1] == HOLDS
exact = [{"rel_error": 0.0}] * 3
st = {("dice-fig4-low", ""): {"BFP-CSUP": {2: pt([1, 1.01, 1.02])}, "BFP-DUP": {2: pt([1, 1.01, 1.02])}},
      ("dice-fig4-high", ""): {"BFP-CSUP": {1: pt([0.3, 0.31, 0.32], exact)},
                               "BFP-DUP": {1: pt([1, 1.01, 1.02])}}}
r = run("dice-csup-speed-like-dup", st)
assert r[1] == FAILS and "1 thr" in r[2] and "left out" not in r[0], r
top = bfp_exp_max()
assert top == 15, top
assert exponent_saturated({"end_state": "exp=%d;mant=27948" % top})
assert exponent_saturated({"end_state": "exp=%d;mant=5000" % (top - 1)}) is None
rows = [{"counter": "BFP-DUP", "rel_error": 0.005, "params_map": {"mantissa-threshold": "7500"},
         "ops": 10 ** 6, "end_state": "exp=%d;mant=9" % (top if i % 2 else 9)} for i in range(12)]
r = run("dice-bfpdup-rstdv", {}, timed=rows)
assert r[1] == HOLDS and r[3] == 6 and "left out (outside the claim" in r[0] and "6 runs" in r[0], r
for r_ in rows:
    r_["end_state"] = "exp=%d;mant=9" % top
r = run("dice-bfpdup-rstdv", {}, timed=rows)
assert r[1] == NM and r[2].cause == CONDITION, r
bc = {c.id: c.by_construction for c in CLAIMS}
assert bc["ayers-interlocked-exact"] and bc["ayers-sharded-size"]
' "$plots"

# Paraphrases made faithful, each rule on a point made for it: "consistently
# more than 99%" on every run; "significantly" and "similarly" on the paper's scale of a
# few percent (rules.FEW_PERCENT); "about 20x" with both sides (rules.ABOUT);
# MultilineAdapt's space half; "at high counts" above 2^(T+1); BFP-CSUP's accuracy with
# its exact runs kept over 1-256 threads; the inflated read needs two real nodes.
check paraphrases_faithful "$py" -B -c "$CLAIM_FAKES"'
from claims.core import FAILS, HOLDS
from claims.rules import ABOUT, FEW_PERCENT
# every run: a median above 99% with one run at 98% does not hold
st = {("dice-fig6-high", ""): {"Serial": {256: pt([98.0, 99.5, 99.6])}}}
assert run("dice-serial-99pct-256", st)[1] == FAILS
st = {("dice-fig6-high", ""): {"Serial": {256: pt([99.2, 99.5, 99.6])}}}
assert run("dice-serial-99pct-256", st)[1] == HOLDS
# significantly: 1.05x is slight, not significant; 1.3x is
for r, want in ((1.05, FAILS), (1.3, HOLDS)):
    st = {("dice-fig5", ""): {"MorrisAdapt": {2: tri(r)}, "Morris": {2: tri(1)},
                              "BFP-CSUP": {2: tri(r)}, "BFP-DUP": {2: tri(1)}}}
    assert run("dice-fig5-adaptive-wins", st)[1] == want, (r, run("dice-fig5-adaptive-wins", st))
# similarly: a 1.5x spread (within the old 2x) is not similar
st = {("dice-fig3", ""): {"A": {1: tri(1.5)}, "B": {1: tri(1)}}}
assert run("dice-fig3-similar-to-8", st)[1] == FAILS
st = {("dice-fig3", ""): {"A": {1: tri(1.05)}, "B": {1: tri(1)}}}
assert run("dice-fig3-similar-to-8", st)[1] == HOLDS
# about 20x: 60x is not about 20x (it held at >= 10x before); 20x is
for r, want in ((60, FAILS), (20, HOLDS), (20 / ABOUT / 1.2, FAILS)):
    st = {("dice-fig4-low", ""): {"RBONuma": {256: tri(r)}, "RBONumaAdapt": {256: tri(r)},
                                  "RBO": {256: tri(1)}}}
    assert run("dice-rbonuma-20x-rbo", st)[1] == want, (r, run("dice-rbonuma-20x-rbo", st))
# the space half: a MultilineAdapt of two lines against RBO of one fails at equal speed
for b, want in ((128.0, FAILS), (8.0, HOLDS)):
    st = {(f, ""): {"MultilineAdapt": {1: tri(1, [{"bytes_per_counter": b}] * 3)},
                    "RBO": {1: tri(1, [{"bytes_per_counter": 64.0}] * 3)}}
          for f in ("dice-fig3", "dice-fig4-low")}
    r = run("dice-multilineadapt-like-rbo-low", st)
    assert r[1] == want and "bytes per counter" in r[0], r
# at high counts: N = 1.5 x 2^T (T = 13) is left out, 4 x 2^T is judged
sc = [{"counter": "Scalable", "params_map": {"threshold": "13"}}]
def times(n):
    return {"FetchAdd": {12: tri(1e-6), n: tri(2e-3)}, "Scalable": {12: tri(1e-6), n: tri(1e-3)}}
assert "12,288" not in run("ayers-interlocked-costlier", {("ayers-scaling", ""): times(12288)},
                           count_rows=sc)[0]
r = run("ayers-interlocked-costlier", {("ayers-scaling", ""): times(32768)}, count_rows=sc)
assert r[1] == HOLDS and "32,768" in r[0], r
# BFP-CSUP accuracy: its exact 1-thread runs are kept, and the claim spans 1-256 threads
ex = [{"rel_error": 0.0}] * 3
st = {(f, ""): {"BFP-CSUP": {1: pt([0.0, 0.0, 0.0], ex), 2: tri(0.001)},
                "BFP-DUP": {1: tri(0.005), 2: tri(0.005)}} for f in ("dice-fig6-low", "dice-fig6-high")}
r = run("dice-csup-more-accurate", st)
assert "left out" not in r[0] and "(36 runs)" in r[0], r
assert by["dice-csup-more-accurate"].threads == 256 and by["dice-csup-more-accurate"].threads_upto
assert by["dice-getval-multilineadapt-serial-misses"].nodes == 2
assert FEW_PERCENT == 1.1
' "$plots"

# The claims the papers make that the report lacked, each rule on points made
# for it: one that holds and one that does not (or why it is not measurable); the two
# experiments new to run-all's plan (dice-fig5-low.csv, hot-line.csv) are read from
# their CSVs, and a set without them says so (no data: the experiment is new).
check new_claims_rules "$py" -B -c "$CLAIM_FAKES"'
from claims.core import DATA, FAILS, HOLDS, MACHINE, NM, PLAN
from claims.judge import evaluate
def ev(cid, stats, files=None, m=None):
    c = by[cid]
    ctx = Context(RS(files or {}), Figs(stats), m or {"pus": 2, "cache_line": 64})
    return evaluate(ctx, [c])[0]
def v(res):
    return res[1]
H, L = ("dice-fig4-high", ""), ("dice-fig4-low", "")
# per-thread parts: Sharded 3 lines at 2 threads against FetchAdd 1 line (by construction)
w0 = ("baselines", "-w0")
assert v(run("dice-perthread-space", {w0: {"Sharded": {2: tri(1, bytes_per_counter=192.0)},
                                          "FetchAdd": {2: tri(1, bytes_per_counter=64.0)}}})) == HOLDS
assert v(run("dice-perthread-space", {w0: {"Sharded": {2: tri(1, bytes_per_counter=64.0)},
                                          "FetchAdd": {2: tri(1, bytes_per_counter=64.0)}}})) == FAILS
assert by["dice-perthread-space"].by_construction
# RBO family alone: at least 0.8x CAS at one thread, no work
st = lambda r: {H: {"RBO": {1: tri(r)}, "RBONuma": {1: tri(r)}, "RBONumaAdapt": {1: tri(r)}, "CAS": {1: tri(1)}}}
assert v(run("dice-rbo-family-single-thread", st(0.95))) == HOLDS
assert v(run("dice-rbo-family-single-thread", st(0.5))) == FAILS
# MultilineAdapt uninflated: one word
assert v(run("dice-multilineadapt-space-low", {L: {"MultilineAdapt": {1: tri(1, end_state="mode=word", bytes_per_counter=8.0)}}})) == HOLDS
assert v(run("dice-multilineadapt-space-low", {L: {"MultilineAdapt": {1: tri(1, end_state="mode=word", bytes_per_counter=64.0)}}})) == FAILS
assert run("dice-multilineadapt-space-low", {L: {"MultilineAdapt": {1: tri(1, end_state="mode=inflated", bytes_per_counter=64.0)}}})[2].cause == "condition"
# contention within one node: 2 threads below linear / 1.1; on two nodes not judged
one = lambda r, nodes="0": {H: {s: {1: tri(10, nodes_used="0"), 64: tri(r, nodes_used=nodes)} for s in ("Multiline", "MultilineAdapt")}}
assert v(run("dice-multiline-node-contention", one(5 * 32))) == HOLDS
assert v(run("dice-multiline-node-contention", one(10 * 64))) == FAILS
assert v(run("dice-multiline-node-contention", one(5, "0,1"))) == NM
# RBO over CAS beyond 8 threads; on a 2-PU set not measurable (machine)
f3 = lambda r: {("dice-fig3", ""): {"RBO": {8: tri(1), 16: tri(r)}, "CAS": {8: tri(1), 16: tri(1)}}}
assert v(run("dice-rbo-backoff-helps", f3(2))) == HOLDS and v(run("dice-rbo-backoff-helps", f3(1.02))) == FAILS
g = ev("dice-rbo-backoff-helps", {("dice-fig3", ""): {"RBO": {2: tri(1)}, "CAS": {2: tri(1)}}})
assert g["verdict"] == NM and g["cause"] == MACHINE, g
# a line per node: 256 bytes on 4 nodes holds, 64 does not (by construction)
ml = lambda b: {H: {"Multiline": {4: tri(1, bytes_per_counter=b, nodes=4)}}}
assert v(run("dice-multiline-line-per-node", ml(256.0))) == HOLDS
assert v(run("dice-multiline-line-per-node", ml(64.0))) == FAILS
# Multiline above MultilineAdapt in the array at low counts
f5 = lambda r: {("dice-fig5", ""): {"Multiline": {2: tri(r), 64: tri(0.5)}, "MultilineAdapt": {2: tri(1), 64: tri(1)}}}
assert v(run("dice-fig5-multiline-above-adapt-low", f5(2))) == HOLDS
assert v(run("dice-fig5-multiline-above-adapt-low", f5(1.05))) == FAILS
# one miss: below 2x the read cost of CAS
rc = lambda r: {("read-cost", "-ns"): {s: {2: tri(r)} for s in ("RBONuma", "RBONumaAdapt", "BFP-DUP", "BFP-CSUP")} | {"CAS": {2: tri(100)}}}
assert v(run("dice-getval-one-miss", rc(120))) == HOLDS and v(run("dice-getval-one-miss", rc(300))) == FAILS
# atomic add does not scale: from 2 threads, 4 threads below 0.1 of linear
fa = lambda r: {w0: {"FetchAdd": {2: tri(100), 4: tri(r)}}}
assert v(run("dice-atomic-add-no-fix", fa(15))) == HOLDS and v(run("dice-atomic-add-no-fix", fa(150))) == FAILS
assert run("dice-atomic-add-no-fix", {w0: {"FetchAdd": {1: tri(1), 2: tri(1)}}})[2].cause == MACHINE
# an order of magnitude under heavy contention
rn = lambda r: {H: {"RBONuma": {256: tri(r)}, "RBO": {256: tri(1)}}}
assert v(run("dice-rbonuma-10x-rbo-high", rn(12))) == HOLDS and v(run("dice-rbonuma-10x-rbo-high", rn(5))) == FAILS
# the naive counters do not scale; the probabilistic ones in the array do
nv = lambda r: {L: {s: {2: tri(10), 256: tri(r)} for s in ("Serial", "CAS", "RBO", "RBONuma", "RBONumaAdapt")}}
assert v(run("dice-naive-not-scalable", nv(20))) == HOLDS and v(run("dice-naive-not-scalable", nv(500))) == FAILS
ps = lambda r: {("dice-fig5", ""): {s: {2: tri(10), 4: tri(r)} for s in ("Morris", "MorrisAdapt", "BFP-DUP", "BFP-CSUP")}}
assert v(run("dice-fig5-prob-scale", ps(18))) == HOLDS and v(run("dice-fig5-prob-scale", ps(6))) == FAILS
# retries are not recorded: not measurable (plan)
assert run("dice-prob-retries-fall", {})[2].cause == PLAN
# the new experiments: read from their CSVs; a set without them: no data, the experiment is new
def rows(name, pairs):
    return {name: [{"mode": "timed", "counter": s, "threads": t, "ops_per_ms": y * (1 + 0.00025 * k), "run": k}
                   for s, t, y in pairs for k in range(9)]}
for cid, name in (("dice-fig5-low-serial-better", "dice-fig5-low.csv"),
                  ("dice-hotline-multilineadapt", "hot-line.csv")):
    a = "Serial" if "serial" in cid else "MultilineAdapt"
    assert v(run(cid, {}, rows(name, [(a, 2, 3.0), ("CAS", 2, 1.0)]))) == HOLDS, cid
    assert v(run(cid, {}, rows(name, [(a, 2, 1.0), ("CAS", 2, 1.0)]))) == FAILS, cid
    r = run(cid, {})
    assert r[1] == NM and r[2].cause == DATA and "no data" in r[2] and "new" in r[2], r
assert v(run("ayers-scalable-false-sharing", {}, rows("hot-line.csv", [("Scalable", 1, 10.0), ("Scalable", 2, 8.0)]))) == HOLDS
assert v(run("ayers-scalable-false-sharing", {}, rows("hot-line.csv", [("Scalable", 1, 10.0), ("Scalable", 2, 20.0)]))) == FAILS
# Ayers: one location (by construction), capping costs little, racing is costly under contention
rb = lambda b: {("read-cost", "-bytes"): {"Scalable": {2: tri(b)}, "FetchAdd": {2: tri(8.0)}}}
assert v(run("ayers-one-location", rb(8.0))) == HOLDS and v(run("ayers-one-location", rb(64.0))) == FAILS
assert by["ayers-one-location"].by_construction
cap = lambda r: rows("latency.csv", [("ScalableCapped", 2, r), ("Scalable", 2, 1.0)])
assert v(run("ayers-capped-little-scalability", {}, cap(0.97))) == HOLDS
assert v(run("ayers-capped-little-scalability", {}, cap(0.7))) == FAILS
rc2 = lambda r: {H: {"Serial": {1: tri(10), 2: tri(19), 12: tri(r)}}}
assert v(run("ayers-racing-contention-costly", rc2(30))) == HOLDS and v(run("ayers-racing-contention-costly", rc2(90))) == FAILS
' "$plots"

# A test that can fail: a claim whose measurement could not have shown the
# opposite outcome here has "no test here" with the reason, counted apart; each check
# of plots/claims/opposite.py on points made for it, once blind and once able to fail.
check no_test_where_the_opposite_cannot_show "$py" -B -c "$CLAIM_FAKES"'
from claims.core import FAILS, HOLDS, INSTRUMENT, NO_TEST, NM, NOISE_FLOOR, REGIME
from claims.judge import evaluate
def ev(cid, stats, files=None, m=None):
    ctx = Context(RS(files or {}), Figs(stats), m or {"pus": 2, "cache_line": 64})
    return evaluate(ctx, [by[cid]])[0]
# 99% work: 476 ns per increment; a counter must add 119 ns to fall below 0.8x.
def low(nowork_ops_per_ms):
    st = {(f, ""): {s: {1: tri(2100), 2: tri(4200)} for s in
                    ("Serial", "CAS", "RBO", "Multiline", "MultilineAdapt", "Morris",
                     "MorrisAdapt", "BFP-DUP", "BFP-CSUP")} for f in ("dice-fig3", "dice-fig4-low")}
    st[("dice-fig4-high", "")] = {s: {1: tri(2e5), 2: tri(nowork_ops_per_ms)}
                                  for s in ("RBO", "Multiline")}
    return st
for cid in ("dice-competitive-low-contention", "dice-multilineadapt-like-rbo-low"):
    g = ev(cid, low(57000.0))   # 35 ns: no counter here could cost 118 ns
    assert g["verdict"] == NO_TEST and g["cause"] == REGIME and "119 ns" in g["reason"], g
    assert "would say holds" in g["reason"], g
    g = ev(cid, low(10000.0))   # 200 ns: a counter this costly would show
    assert g["verdict"] == HOLDS, g
    # runs spread by 40%: a 35 ns increment (7% of 476 ns) is below the noise
    st = low(57000.0)
    for f in ("dice-fig3", "dice-fig4-low"):
        st[(f, "")]["CAS"] = {1: pt([1500, 2100, 2700]), 2: pt([3000, 4200, 5400])}
    g = ev(cid, st)
    assert g["verdict"] == NO_TEST and g["cause"] == NOISE_FLOOR and "below the noise" in g["reason"], g
# latency runs: 41.7 ns timed around a 1.4 ns increment (3%); with an own cost of 33 ns
# (80% of the timed increment) the test stands.
def lat(own):
    rows = [{"mode": "timed", "counter": s, "threads": 1, "ops_per_ms": 24000.0 * (1 + 0.00025 * k)}
            for s in ("Scalable", "ScalableCapped") for k in range(9)]
    return {("baselines", "-w0"): {"Scalable": {1: tri(own)}}}, {"latency.csv": rows}
g = ev("ayers-capped-little-scalability", *lat(700000.0))
assert g["verdict"] == NO_TEST and g["cause"] == INSTRUMENT and "3%" in g["reason"], g
assert ev("ayers-capped-little-scalability", *lat(30000.0))["verdict"] == HOLDS
# false sharing: 400 M counted, ending at a delta of 65536: about 0.1 M writes, a
# fraction of a percent of the run; at delta 2 (a write every other increment) it stands.
def hot(delta):
    rows = [{"mode": "timed", "counter": "Scalable", "threads": t, "ops_per_ms": y * (1 + 0.00025 * k),
             "value": 4e8, "seconds": 0.8, "end_state": "delta=%d" % delta}
            for t, y in ((1, 5e5), (2, 9.6e5)) for k in range(9)]
    rows += [{"mode": "timed", "counter": "CAS", "threads": 2, "ops_per_ms": 55000.0 * (1 + 0.00025 * k)}
             for k in range(9)]
    return {}, {"hot-line.csv": rows}
g = ev("ayers-scalable-false-sharing", *hot(65536))
assert g["verdict"] == NO_TEST and g["cause"] == REGIME and "65536" in g["reason"], g
assert ev("ayers-scalable-false-sharing", *hot(2))["verdict"] == FAILS
# racing made costly by contention: only where a counter with no shared line scales
# (the paper'"'"'s condition: 12 threads or more on a NUMA system)
def race(sharded12):
    return {("dice-fig4-high", ""): {"Serial": {1: tri(10), 12: tri(2)}},
            ("baselines", "-w0"): {"Sharded": {1: tri(10), 12: tri(sharded12)}}}
numa = {"pus": 16, "nodes": 2, "cache_line": 64}
assert ev("ayers-racing-contention-costly", race(117), m=numa)["verdict"] == HOLDS
g = ev("ayers-racing-contention-costly", race(60), m=numa)
assert g["verdict"] == NO_TEST and "Sharded" in g["reason"], g
# one miss per get: samples of K > 1 consecutive gets read a line no writer
# touched from the reader'"'"'s cache (the instrument); one get a sample stands.
def reads(k):
    st = {("read-cost", "-ns"): {s: {2: tri(120)} for s in ("RBONuma", "RBONumaAdapt", "BFP-DUP", "BFP-CSUP")} | {"CAS": {2: tri(100)}}}
    rows = [{"mode": "timed", "counter": s, "threads": 2, "read_ns": 1.2, "read_k": k,
             "read_sample_steps": 150.0, "timer_step_ns": 20.0} for s in ("CAS", "RBONuma")]
    return st, {"read-cost.csv": rows}
g = ev("dice-getval-one-miss", *reads(512))
assert g["verdict"] == NO_TEST and g["cause"] == INSTRUMENT and "512 consecutive gets" in g["reason"], g
assert ev("dice-getval-one-miss", *reads(1))["verdict"] == HOLDS
# Multiline'"'"'s node contention is a claim beyond 32 threads; Serial'"'"'s slight latency
# gain is judged where the line is written by another thread (2 threads on), so the claim
# on Serial'"'"'s two orders of magnitude alone measures the one-thread gap.
assert ev("dice-multiline-node-contention", {("dice-fig4-high", ""): {s: {1: tri(10), 2: tri(2)} for s in ("Multiline", "MultilineAdapt")}})["verdict"] == NM
assert by["dice-serial-latency-vs-cas"].threads == 2
# the report counts the new verdict and writes its cause
sys.path.insert(0, sys.argv[1])
from report import VERDICT_TEXT
assert [p for v, _, p in VERDICT_TEXT if v == NO_TEST][0].startswith("%d have no test here")
' "$plots"

# Five verdicts by the papers' own conditions and ten paraphrases by their words (issue
# 39), each rule on points made for it; one scale per word (core.FEW_PERCENT) stated
# once in the report's rules.
check verdicts_and_words_round_four "$py" -B -c "$CLAIM_FAKES"'
from claims.core import (FAILS, FEW_PERCENT, HOLDS, INCONCLUSIVE, INSTRUMENT, NM, NO_TEST,
                         REGIME, RULES)
from claims.judge import evaluate
def ev(cid, stats, files=None):
    ctx = Context(RS(files or {}), Figs(stats), {"pus": 2, "cache_line": 64})
    return evaluate(ctx, [by[cid]])[0]
words = [t for n, t in RULES if n == "words"]
assert len(words) == 1 and "\"similar\"" in words[0] and "\"slightly\"" in words[0] \
    and "\"significantly\"" in words[0] and "%gx" % FEW_PERCENT in words[0], words
# the array at 98.89% work: Serial 1.3x CAS decides nothing while CAS scales linearly
def arr(cas2):
    rows = [{"mode": "timed", "counter": s, "threads": t, "ops_per_ms": y * (1 + 0.00025 * k)}
            for s, t, y in (("CAS", 1, 10.0), ("CAS", 2, cas2), ("Serial", 1, 10.0),
                            ("Serial", 2, 1.3 * cas2)) for k in range(9)]
    return {"dice-fig5-low.csv": rows}
g = ev("dice-fig5-low-serial-better", {}, arr(19.8))
assert g["verdict"] == NO_TEST and g["cause"] == REGIME and "not contended" in g["reason"], g
assert ev("dice-fig5-low-serial-better", {}, arr(8.0))["verdict"] == HOLDS
# BFP beats Morris: a point where MorrisAdapt never switched runs the same CAS loop: out
F5 = ("dice-fig5", "")
def bm(mode):
    st = {"Morris": {1: tri(1)}, "BFP-DUP": {1: tri(1.2)},
          "MorrisAdapt": {1: tri(1, end_state=mode)}, "BFP-CSUP": {1: tri(0.9, rel_error=0.001)}}
    return {F5: st}
r = run("dice-fig5-bfp-beats-morris", bm("mode=exact"))
assert r[1] == HOLDS and "MorrisAdapt never switched" in r[0], r
assert run("dice-fig5-bfp-beats-morris", bm("mode=morris"))[1] == FAILS
# a layout is listed by construction
assert by["dice-multilineadapt-space-low"].by_construction
# Morris'"'"'s GetVal: a 10% difference of 10 ns gets is below a 10 ns timer step
def rc(ns, step_vals):
    st = {("read-cost", "-ns"): {s: {2: tri(ns * (1.5 if s.startswith("Morris") else 1))}
                                 for s in ("Morris", "MorrisAdapt", "BFP-DUP", "BFP-CSUP")}}
    rows = [{"mode": "timed", "counter": "CAS", "read_ns": v} for v in step_vals]
    return st, {"read-cost.csv": rows}
class M(RS):
    def meta(self, name):
        return {"ns_per_tick": 0.4}
def evm(cid, st, files):
    return evaluate(Context(M(files), Figs(st), {"pus": 2}), [by[cid]])[0]
g = evm("dice-getval-morris-float", *rc(10.0, [10.0, 20.0, 30.0, 40.0]))
assert g["verdict"] == NO_TEST and g["cause"] == INSTRUMENT and "10 ns" in g["reason"], g
g = evm("dice-getval-morris-float", *rc(200.0, [10.0, 20.0, 30.0, 40.0]))
assert g["verdict"] == HOLDS, g
# the RBO family at one thread: RBO is CAS there; RBONuma'"'"'s overhead is another claim'"'"'s
H = ("dice-fig4-high", "")
g = ev("dice-rbo-family-single-thread", {H: {s: {1: tri(1)} for s in ("RBO", "RBONuma", "RBONumaAdapt", "CAS")}})
assert g["verdict"] == NO_TEST and "overhead at low contention" in g["reason"], g
# "slightly" has an upper side, over the fastest probabilistic counter
L = ("dice-fig4-low", "")
def edge(r):
    return {L: {"Multiline": {256: tri(r)}, "MultilineAdapt": {256: tri(r)}, "Morris": {256: tri(1)},
                "MorrisAdapt": {256: tri(0.9)}, "BFP-DUP": {256: tri(1)}, "BFP-CSUP": {256: tri(0.95)}}}
assert run("dice-multiline-slight-edge", edge(1.05))[1] == HOLDS
assert run("dice-multiline-slight-edge", edge(1.5))[1] == FAILS
# "similar" is within FEW_PERCENT either way: 1.2x is not similar (it was within 0.8-1.25x)
def csup(r):
    return {(f, ""): {"BFP-CSUP": {2: tri(r)}, "BFP-DUP": {2: tri(1)}} for f in ("dice-fig4-low", "dice-fig4-high")}
assert run("dice-csup-speed-like-dup", csup(1.2))[1] == FAILS
assert run("dice-csup-speed-like-dup", csup(1.05))[1] == HOLDS
sc = [{"counter": "Scalable", "params_map": {"threshold": "13"}}]
def cost(r):
    return {("ayers-scaling", ""): {"Serial": {12: tri(1e-6), 10 ** 6: tri(1e-3)},
                                    "Scalable": {12: tri(1e-6), 10 ** 6: tri(r * 1e-3)}}}
assert run("ayers-scalable-like-racing", cost(1.3), count_rows=sc)[1] == FAILS
assert run("ayers-scalable-like-racing", cost(1.05), count_rows=sc)[1] == HOLDS
# racing worse and worse: a step up once counts are lost does not hold
def racing(means):
    return {("ayers-accuracy", ""): {"Serial": {n: dict(pt([m]), mean=m) for n, m in means}}}
thr = [{"counter": "Serial", "threads": 2, "mode": "count", "ops": 12}]
assert run("ayers-racing-worse-with-n", racing([(12, 1.0), (48, 0.9), (192, 0.8)]), count_rows=thr)[1] == HOLDS
assert run("ayers-racing-worse-with-n", racing([(12, 1.0), (48, 0.8), (192, 0.9)]), count_rows=thr)[1] == FAILS
# Ayers'"'"'s binomial model is his one step: only N in (2^T, 2^(T+1)] is judged
def spread(half):
    return {("ayers-accuracy-detail", ""): {}, ("ayers-accuracy", ""): {"Scalable": {
        12288: dict(pt([1.0] * 30), p5=1 - half, p95=1 + half),
        10 ** 6: dict(pt([1.0] * 30), p5=0.5, p95=1.5)}}}
assert run("ayers-binomial-model", spread(0.0086), count_rows=sc)[1] == HOLDS
assert run("ayers-binomial-model", spread(0.05), count_rows=sc)[1] == FAILS
' "$plots"

# The claims found missing in a review of the report: the eight measurable here, each rule on points made
# for it (one that holds, one that does not, or why it has no test here), and the twelve
# not measurable listed with their cause, so that the count of the papers'"'"' claims is complete.
check missing_claims_round_four "$py" -B -c "$CLAIM_FAKES"'
from claims import contention, unmeasured
from claims.core import FAILS, FEW_PERCENT, HOLDS, MACHINE, NM, NO_TEST, PLAN, REGIME
from claims.judge import evaluate
def ev(cid, stats, files=None):
    return evaluate(Context(RS(files or {}), Figs(stats), {"pus": 2, "cache_line": 64}), [by[cid]])[0]
v = lambda r: r[1]
# Dice §1: more lost with more contention (Serial'"'"'s |error| at 0% work over 99%)
e6 = lambda hi, lo: {("dice-fig6-high", ""): {"Serial": {2: tri(hi)}}, ("dice-fig6-low", ""): {"Serial": {2: tri(lo)}}}
assert v(run("dice-loss-worse-with-contention", e6(35, 0.6))) == HOLDS
assert v(run("dice-loss-worse-with-contention", e6(0.5, 0.6))) == FAILS
# Dice §3: a significant fraction lost at moderate contention, only where CAS is contended
def mod(err, cas2):
    return {("dice-fig6-low", ""): {"Serial": {2: tri(err)}},
            ("dice-fig4-low", ""): {"CAS": {1: tri(10), 2: tri(cas2)}, "Serial": {1: tri(10), 2: tri(cas2)}}}
assert ev("dice-loss-moderate-contention", mod(20, 12))["verdict"] == HOLDS
assert ev("dice-loss-moderate-contention", mod(1, 12))["verdict"] == FAILS
g = ev("dice-loss-moderate-contention", mod(1, 19.9))
assert g["verdict"] == NO_TEST and g["cause"] == REGIME and "not contended" in g["reason"], g
# Dice §5.1: Serial slightly lower in Fig. 3 (each above it by at most FEW_PERCENT)
f3 = lambda r: {("dice-fig3", ""): dict({s: {2: tri(r)} for s in contention.FIG3_SIMILAR}, Serial={2: tri(1)})}
assert v(run("dice-serial-slightly-lower-fig3", f3(1.05))) == HOLDS
assert v(run("dice-serial-slightly-lower-fig3", f3(1.5))) == FAILS
assert v(run("dice-serial-slightly-lower-fig3", f3(0.9))) == FAILS
# Dice §5.3: Multiline and MultilineAdapt about the same in the single-counter experiment
ms = lambda r: {("dice-fig4-high", ""): {"Multiline": {2: tri(r)}, "MultilineAdapt": {2: tri(1)}}}
assert v(run("dice-multiline-adapt-same-single", ms(1.05))) == HOLDS
assert v(run("dice-multiline-adapt-same-single", ms(1.3))) == FAILS
# Dice §5.3: Morris escapes false sharing, where CAS on the same line collapses
def hl(morris2, cas2):
    rows = [{"mode": "timed", "counter": s, "threads": t, "ops_per_ms": y * (1 + 0.00025 * k)}
            for s, t, y in (("Morris", 1, 10.0), ("Morris", 2, morris2), ("CAS", 1, 10.0),
                            ("CAS", 2, cas2)) for k in range(9)]
    return {"hot-line.csv": rows}
assert ev("dice-morris-no-false-sharing", {}, hl(19.6, 2.0))["verdict"] == HOLDS
assert ev("dice-morris-no-false-sharing", {}, hl(11.0, 2.0))["verdict"] == FAILS
g = ev("dice-morris-no-false-sharing", {}, hl(19.6, 19.9))
assert g["verdict"] == NO_TEST and "not contended" in g["reason"], g
# Dice §5.4: BFP-CSUP'"'"'s worst error below each other'"'"'s (runs of the paper'"'"'s length)
def err(csup):
    return [{"counter": s, "rel_error": e, "ops": 10 ** 9, "seconds": 8.0, "threads": 2, "work_pct": 0.0}
            for s, e in (("BFP-CSUP", csup), ("BFP-DUP", 0.01), ("Morris", 0.02), ("MorrisAdapt", 0.015))]
assert contention.csup_lower_max_error(None, [], err(0.002))[1] == HOLDS
assert contention.csup_lower_max_error(None, [], err(0.012))[1] == FAILS
# Dice §2.2: MultilineAdapt'"'"'s slower increment is no problem where it is contended (and inflated)
def ma(r, mode="mode=inflated"):
    return {("dice-fig4-high", ""): {"MultilineAdapt": {2: tri(r, end_state=mode)}, "Multiline": {2: tri(1)}}}
assert v(run("dice-multilineadapt-slower-fine-contended", ma(1.0))) == HOLDS
assert v(run("dice-multilineadapt-slower-fine-contended", ma(0.7))) == FAILS
assert v(run("dice-multilineadapt-slower-fine-contended", ma(0.7, "mode=word"))) == NM
# Ayers: interlocked updates made rare keep scalability, where FetchAdd'"'"'s do not; the
# "good scaling properties" of the summary are the same measurement, counted once
w0 = lambda sc2, fa2: {("baselines", "-w0"): {"Scalable": {1: tri(10), 2: tri(sc2)}, "FetchAdd": {1: tri(10), 2: tri(fa2)}}}
assert ev("ayers-interlocked-scales-when-rare", w0(19.8, 6))["verdict"] == HOLDS
assert ev("ayers-interlocked-scales-when-rare", w0(12, 6))["verdict"] == FAILS
assert ev("ayers-interlocked-scales-when-rare", w0(19.8, 19.9))["verdict"] == NO_TEST
assert ev("ayers-good-scaling", w0(19.8, 6))["verdict"] == NO_TEST
assert len(contention.CLAIMS) == 9 and len(unmeasured.CLAIMS) == 12
for c in unmeasured.CLAIMS:
    g = ev(c.id, {})
    assert g["verdict"] == NM and g["cause"] in (PLAN, MACHINE), g
' "$plots"

# What the report did not say: the timer's real step, measured from the
# values (read_ns moving in 10.02 ns steps while meta.json states 0.477 ns per tick),
# said beside a read-cost claim; bimodal throughput (one run of three 3x the others)
# flagged in the figure notes and in a claim naming that series at that count.
check timer_step_and_bimodal_said "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from stats import BIMODAL_GAP, bimodal_split, timer_step
from claims.context import Context
from claims.core import Claim
from claims.judge import bimodal_notes, timing_notes
assert bimodal_split([1.0, 1.01, 3.5])[:2] == (2, 1)
assert bimodal_split([1.0, 1.05, 1.1]) is None and bimodal_split([1.0, 3.0]) is None
assert bimodal_split([1.0, 1.0, BIMODAL_GAP * 1.01])
step = timer_step([10.02 * k + 0.01 * (k % 3) for k in (6, 7, 8, 17, 18, 30)], 0.477)
assert abs(step - 10.02) < 0.05, step
assert abs(timer_step([0.477 * k for k in range(1, 9)], 0.477) - 0.477) < 1e-6
assert timer_step([5.0, 6.0], 0.477) is None
class RS:
    def rows(self, name, mode):
        return [{"read_ns": 10.02 * k} for k in (6, 7, 8, 17, 18)] if name == "read-cost.csv" else []
    def meta(self, name):
        return {"ns_per_tick": 0.477}
class Panel:
    ylabel, suffix = "throughput (ops/ms)", ""
class Fig:
    id, panels = "dice-fig5", [Panel()]
def pt(v):
    return {"values": sorted(v)}
class Figs:
    table = [Fig()]
    stats = {("dice-fig5", ""): {"Morris": {2: pt([10, 10.2, 31])}, "RBO": {2: pt([5, 5.1, 5.2])}}}
ctx = Context(RS(), Figs(), {"pus": 2})
rc = Claim("r", "Dice §0", "its median read cost above", "read-cost", None)
n = timing_notes(ctx, rc, "x")
assert n and n[0].startswith("timer step here 10 ns") and "0.477 ns per tick" in n[0], n
ar = Claim("a", "Dice §0", "Morris beats RBO", "dice-fig5", None)
n = timing_notes(ctx, ar, "Morris/RBO: 2x at 2 thr")
assert n == ["bimodal throughput: Morris at 2 thr: 1 of 3 runs 3x above the rest"], n
assert timing_notes(ctx, ar, "Morris/RBO: 2x at 1 thr") == []
assert "Morris at 2 thr" in bimodal_notes(ctx)["dice-fig5"][0] and "RBO" not in bimodal_notes(ctx)["dice-fig5"][0]
' "$plots"

# The general rules of plots/claims/core.py's RULES, each on its own: a "not
# measurable" verdict carries its cause (machine, plan, data ...) and the report
# counts them apart; the "paper's machine" rule makes a verdict at fewer threads
# than the paper's inconclusive, either way; a design note is said with a failure.
mkdir -p "$tmp/general"
check verdict_rules_causes_paper_machine_design_note "$py" -B -c "$CLAIMS_CTX"'
import report
from claims.core import DATA, FAILS, INCONCLUSIVE, MACHINE, NM_CAUSES, PLAN, RULES, not_measurable
def says(v, runs=5, why="because"):
    return lambda ctx, c: ("measured", v, why, runs)
got = claims.evaluate(ctx, [
    Claim("m", "Dice §0", "x", "dice-fig4-low", says(HOLDS), threads=64),
    Claim("p", "Dice §0", "x", "dice-fig4-low", says(NM, None, not_measurable(PLAN, "no plan"))),
    Claim("d", "Dice §0", "x", "dice-fig4-low", says(NM, None, "no file")),
    Claim("ph", "Ayers, X", "x", "dice-fig4-low", says(HOLDS), threads=2, paper_threads=12),
    Claim("pf", "Ayers, X", "x", "dice-fig4-low", says(FAILS), threads=2, paper_threads=12),
    Claim("pok", "Ayers, X", "x", "dice-fig4-low", says(HOLDS), threads=2, paper_threads=2),
    Claim("dn", "Dice §0", "x", "dice-fig4-low", says(FAILS), design_note="one thread")])
v = [(g["verdict"], g.get("cause")) for g in got]
assert v == [(NM, MACHINE), (NM, PLAN), (NM, DATA), (INCONCLUSIVE, None), (INCONCLUSIVE, None),
             (HOLDS, None), (FAILS, None)], v
assert got[3]["reason"].startswith("evidence only at 2 threads") and "Ayers ran this experiment with 12" in got[3]["reason"], got[3]
assert got[4]["reason"].endswith("at 2 threads: does not hold, because"), got[4]
assert got[6]["reason"] == "because; by design: one thread", got[6]
doc = {"claims": got, "not_measurable_causes": NM_CAUSES,
       "rules": [{"name": n, "text": t} for n, t in RULES]}
text = report.render(sys.argv[3], doc)
assert "Not measurable here, by cause: 1: %s; 1: %s; 1: %s." % (
    NM_CAUSES[MACHINE], NM_CAUSES[PLAN], NM_CAUSES[DATA]) in text, text
assert "*not measurable* (plan): no plan" in text
assert all("- *%s*: %s" % (n, t) in text for n, t in RULES)
' "$plots" "$rs" "$tmp/general"
# The "condition" rule: each filter of plots/claims/rules.py on a point made for it, and
# a comparison with every point left out is not measurable (condition, or the
# declared cause).
check condition_rule_filters "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from claims.core import CONDITION, NM, PLAN, Claim
from claims.rules import (compare_medians, counts_at_most, exact_probabilistic,
                          never_switched_among, startup_dominated)
def pt(median, rows=(), values=None):
    return {"median": median, "values": values or [median] * 3, "n": 3, "oversub": False,
            "rows": list(rows), "max": median, "min": median}
word = [{"end_state": "mode=word"}] * 3
some = [{"end_state": "mode=word"}, {"end_state": "mode=inflated;nodes=1"}] + [{"end_state": "mode=word"}]
f = never_switched_among(["MultilineAdapt"])
assert "never switched" in f(None, {"MultilineAdapt": {2: pt(1, word)}, "CAS": {2: pt(1)}}, 2, ["MultilineAdapt", "CAS"])
assert f(None, {"MultilineAdapt": {2: pt(1, some)}, "CAS": {2: pt(1)}}, 2, ["MultilineAdapt", "CAS"]) is None
f = exact_probabilistic(["BFP-CSUP"])
assert "exact in every run" in f(None, {"BFP-CSUP": {1: pt(1, [{"rel_error": 0.0}] * 3)}}, 1, ["BFP-CSUP"])
assert f(None, {"BFP-CSUP": {1: pt(1, [{"rel_error": 0.0}, {"rel_error": 1e-6}])}}, 1, ["BFP-CSUP"]) is None
st = {"A": {12: pt(1e-5), 10 ** 5: pt(5e-5), 10 ** 7: pt(2e-4)}}
assert "start-up" in startup_dominated(None, st, 10 ** 5, ["A"])
assert startup_dominated(None, st, 10 ** 7, ["A"]) is None
f = counts_at_most(100, "low")
assert "counted 1,000-1,000" in f(None, {"M": {1: pt(1, [{"ops": 1000}] * 3)}}, 1, ["M"])
assert f(None, {"M": {1: pt(1, [{"ops": 50}] * 3)}}, 1, ["M"]) is None
class Ctx:
    def st(self, fid, panel=""):
        return {"A": {1: pt(2.0, [{"ops": 1000}] * 3)}, "B": {1: pt(1.0, [{"ops": 1000}] * 3)}}
c = Claim("x", "Dice §0", "x", "f", None)
r = compare_medians([("A", ["B"])], lambda r: r > 1, "y", "n", exclude=[counts_at_most(100, "low")])(Ctx(), c)
assert r[1] == NM and r[2].cause == CONDITION and "left out" in r[0], r
r = compare_medians([("A", ["B"])], lambda r: r > 1, "y", "n", exclude=[counts_at_most(100, "low")],
                    none_left=(PLAN, "not planned"))(Ctx(), c)
assert r[1] == NM and r[2].cause == PLAN and r[2] == "not planned", r
r = compare_medians([("A", ["B"])], lambda r: r > 1, "y", "n", exclude=[counts_at_most(10 ** 4, "low")])(Ctx(), c)
assert r[1] == "holds", r
' "$plots"

# A partial result set (one file): no failure, the rest skipped with a reason.
mkdir -p "$tmp/partial"
cp "$fixture/dice-fig3.csv" "$fixture/dice-fig3.csv.meta.json" "$tmp/partial/"
chmod u+w "$tmp/partial"/*
"$py" "$plots/aggregate.py" "$tmp/partial" >/dev/null 2>&1
check partial_set_aggregates test $? -eq 0
check partial_set_skips_missing_with_reason \
	grep -q "^ayers-accuracy	skipped	ayers.csv is not in this result set" "$tmp/partial/figdata/figures.tsv"

# "Which counter to use": the rules pick known winners on a copy of the fixture
# where the numbers are made decisive: RBO x1000 and Serial (racy) x1e6 at 0%
# work; BFP-DUP x1e5 but with a 5% error (above the 1% of approx-high); Morris
# x1000 with 7500 counters, CAS x100 there (the best precise one: many-exact);
# CAS reads in 0.5 ns. Single-threaded cost has no error bound: BFP-DUP wins it.
copy_set adv
scale() { # scale FILE VARIANT COLUMN FACTOR [COLUMN VALUE]
	awk -F, -v OFS=, -v v="$2" -v c="$3" -v f="$4" -v c2="${5:-0}" -v x="${6:-}" \
		'NR > 1 && $1 == v { $c = $c * f; if (c2) $c2 = x } { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}
scale "$tmp/adv/dice-fig4-high.csv" RBO 16 1000
scale "$tmp/adv/dice-fig4-high.csv" Serial 16 1000000
scale "$tmp/adv/dice-fig4-high.csv" BFP-DUP 16 100000 15 0.05
scale "$tmp/adv/dice-fig5.csv" Morris 16 1000
scale "$tmp/adv/dice-fig5.csv" CAS 16 100
scale "$tmp/adv/read-cost.csv" CAS 23 0 23 0.5
# RBO's dice-fig4-high runs marked busy (a busy column added, 1 for RBO's rows,
# 0 for the others): its advice rows say so, the others do not.
awk -F, -v OFS=, 'NR == 1 { print $0, "busy"; next } { print $0, ($1 == "RBO") }' \
	"$tmp/adv/dice-fig4-high.csv" >"$tmp/adv/busy.new" && mv "$tmp/adv/busy.new" "$tmp/adv/dice-fig4-high.csv"
"$py" "$plots/aggregate.py" "$tmp/adv" >/dev/null 2>&1 && "$py" "$plots/report.py" "$tmp/adv" >/dev/null 2>&1
check advice_picks_known_winners "$py" -c '
import json, sys
got = {a["id"]: a["best"] for a in json.load(open(sys.argv[1]))["advice"]}
want = {"precise-high": "RBO", "approx-high": "RBO", "single-thread": "BFP-DUP",
        "many-counters": "Morris", "many-exact": "CAS", "read-heavy": "CAS",
        "read-heavy-stale": "CAS"}
assert all(got[k] == v for k, v in want.items()), got
assert got["precise-low"] not in (None, "Serial"), got
' "$tmp/adv/figdata/claims.json"
# Caveats: a probabilistic winner is said to be approximate, a precise one is
# not, Batched's lagging get is said wherever it wins.
check advice_caveats "$py" -B -c '
import json, sys
sys.path.insert(0, sys.argv[2])
from advice import caveat
got = {a["id"]: a["caveat"] or "" for a in json.load(open(sys.argv[1]))["advice"]}
assert got["single-thread"].startswith("approximate by contract") and got["many-counters"].startswith("approximate by contract"), got
assert got["precise-high"] == "" and got["read-heavy"] == "", got
assert "lags" in caveat("Batched", "precise") and caveat("Sharded", "precise") is None
' "$tmp/adv/figdata/claims.json" "$plots"
# A read-heavy pick within the noise: a tie (bands overlapping the lowest
# median'"'"'s) goes to the variant Dice §5.5 recommends for frequent reads, then to the
# smaller spread, then by name; never to the first in file order.
check advice_read_tie_broken_by_stated_rule "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from advice import READ_PREFERRED, READ_TIE_RULE, SCENARIOS, break_read_tie
def p(vals):
    return {"median": sorted(vals)[1], "min": min(vals), "max": max(vals)}
pick = lambda ranked: [s for s, _ in break_read_tie([(s, (None, q)) for s, q in ranked])]
# Morris 10, 10, 20 first in file order; BFP-DUP 10, 10, 10: one timer step apart
assert pick([("Morris", p([10, 10, 20])), ("BFP-DUP", p([10, 10, 10])), ("CAS", p([40, 40, 50]))]) \
    == ["BFP-DUP", "Morris", "CAS"]
# none recommended: the smaller spread, then the name
assert pick([("Morris", p([10, 10, 20])), ("ScalableCAS", p([10, 10, 10])),
             ("Scalable", p([10, 10, 10]))]) == ["Scalable", "Morris", "ScalableCAS"]
# outside the noise the lowest median stands
assert pick([("Morris", p([5, 5, 6])), ("BFP-DUP", p([10, 10, 10]))]) == ["Morris", "BFP-DUP"]
assert "BFP-DUP" in READ_PREFERRED
assert all(READ_TIE_RULE in sc.rule() for sc in SCENARIOS if sc.lower)
' "$plots"
check advice_caveat_in_report grep -qF 'Caveat: approximate' "$tmp/adv/REPORT.md"
check advice_flags_busy_point "$py" -c '
import json, re, sys
adv = {a["id"]: a for a in json.load(open(sys.argv[1]))["advice"]}
assert re.match(r"busy point: [1-9][0-9]* of its [1-9][0-9]* runs", adv["precise-high"]["busy"] or ""), adv["precise-high"]
assert all("busy" not in a for a in adv.values() if a["best"] != "RBO"), adv
assert "Flag: busy point" in open(sys.argv[2]).read()
' "$tmp/adv/figdata/claims.json" "$tmp/adv/REPORT.md"
# Read-heavy within a stated bound: PerCPUTree's O(1) get_fast (read_fast_ns)
# is its reading there, its get (read_ns) elsewhere. A PerCPUTree copy of
# CAS's read-cost rows whose get costs 1000 ns and get_fast 0.1 ns wins the
# bounded scenario, with the interval's caveat, and not the fresh-get one.
copy_set tree
"$py" - "$tmp/tree/read-cost.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
fields = list(rows[0].keys()) + ["read_fast_ns", "fast_width", "fast_error"]
extra = []
for r in rows:
    r.update(read_fast_ns="", fast_width="", fast_error="")
    if r["counter"] == "CAS":
        extra.append(dict(r, counter="PerCPUTree", read_ns="1000", read_fast_ns="0.1",
                          fast_width="1533", fast_error="3"))
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows + extra)
PYEOF
"$py" "$plots/aggregate.py" "$tmp/tree" >/dev/null 2>&1
check advice_bounded_read_takes_get_fast "$py" -c '
import json, sys
got = {a["id"]: a for a in json.load(open(sys.argv[1]))["advice"]}
b, f = got["read-heavy-bounded"], got["read-heavy"]
assert b["best"] == "PerCPUTree" and b["value"].startswith("0.1 ns per reading"), b
assert b["caveat"].startswith("its get_fast is the root"), b
assert f["best"] != "PerCPUTree", f
' "$tmp/tree/figdata/claims.json"
# Batched read samples (schema 6): read-cost's note and the claims'
# timer note say the timer's step is at most 1% of a sample where every run's
# sample spans 100 steps or more (read_sample_steps), else that a difference
# below the step per get (timer_step_ns / read_k) is not resolved; a set
# without the columns (one get per sample) keeps the one-step note.
# read_cost_set NAME EDIT: a copy of the fixture, aggregated, whose read-cost
# rows are edited: "resolved" adds read_k 1024, timer_step_ns 10 and
# read_sample_steps 150 to every row ("mixed": the 4th row 50); "file",
# "reversed", "shuffled" (seed 39) put BFP-DUP at 10 and 12 ns, Morris and
# ScalableCAS at 10 and 10, every other variant 100 ns above its own, in
# that row order.
read_cost_set() {
	copy_set "$1"
	"$py" - "$tmp/$1/read-cost.csv" "$2" <<'PYEOF'
import csv, random, sys
path, edit = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(path, newline="")))
fields = list(rows[0].keys())
if edit in ("resolved", "mixed"):
    fields += ["read_k", "read_sample_steps", "timer_step_ns"]
    for i, r in enumerate(rows):
        st = "50.0" if edit == "mixed" and i == 3 else "150.0"
        r.update(read_k="1024", read_sample_steps=st, timer_step_ns="10.00")
else:
    low = {"BFP-DUP": ["10.0", "12.0"], "Morris": ["10.0", "10.0"],
           "ScalableCAS": ["10.0", "10.0"]}
    for r in rows:
        r["read_ns"] = low[r["counter"]][int(r["run"])] if r["counter"] in low else \
            "%.1f" % (100.0 + float(r["read_ns"]))
    if edit == "reversed":
        rows.reverse()
    elif edit == "shuffled":
        random.Random(39).shuffle(rows)
with open(path, "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
PYEOF
	"$py" "$plots/aggregate.py" "$tmp/$1" >/dev/null 2>&1
}
read_cost_set batch resolved
read_cost_set batchmixed mixed
check read_cost_note_says_step_under_1pct "$py" -c '
import json, sys
def note(d):
    return [l for l in open(d + "/figdata/read-cost-ns.dat") if l.startswith("# note:")][0]
def timer(d):   # the timer notes beside the claims (before any bimodal note)
    out = set()
    for c in json.load(open(d + "/figdata/claims.json"))["claims"]:
        m = c.get("measured") or ""
        i = max(m.find("timer step here"), m.find("timer: "))
        if i >= 0:
            out.add(m[i:].split("; bimodal")[0])
    return sorted(out)
old, ok, mixed = sys.argv[1:4]
assert "one get timed" in note(old) and "10 ns steps" in note(old), note(old)
assert [t.startswith("timer step here 10 ns (measured") for t in timer(old)] == [True], timer(old)
n = note(ok)
assert "each sample times 1024 consecutive gets" in n and "(10 ns) is 0.67% of the shortest sample (150 steps)" in n, n
assert "not resolved" not in n and "one get timed" not in n, n
assert timer(ok) and all(t.startswith("timer: each sample times 1024 consecutive gets; the timer") for t in timer(ok)), timer(ok)
n = note(mixed)
assert "is 2% of the shortest sample (50 steps)" in n and n.rstrip().endswith("a difference below that step is not resolved"), n
assert [t.startswith("timer step here 0.00977 ns per get") for t in timer(mixed)] == [True], timer(mixed)
' "$tmp/rs" "$tmp/batch" "$tmp/batchmixed"
check batched_reads_needs_every_column "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from stats import batched_reads
row = {"read_ns": 5.0, "read_k": 512, "read_sample_steps": 120.0, "timer_step_ns": 20.0}
b = batched_reads([row])
assert b["resolved"] and b["k_min"] == b["k_max"] == 512 and abs(b["per_get_ns"] - 20.0 / 512) < 1e-12, b
assert batched_reads([dict(row, read_k=None)]) is None      # one get per sample: the old note
assert batched_reads([{"read_ns": None}]) is None and batched_reads([]) is None
# PerCPUTree: its get_fast samples count too (99 steps: over 1%)
tree = dict(row, read_fast_ns=0.5, read_fast_k=8192, read_fast_sample_steps=99.0)
b = batched_reads([row, tree])
assert not b["resolved"] and b["k_max"] == 8192 and b["steps_min"] == 99.0, b
assert batched_reads([dict(tree, read_fast_k=None)]) is None
' "$plots"
# A read-heavy pick never depends on the order of the result file's rows: the
# fixture's read-cost rows with BFP-DUP (10, 12 ns) in a tie with Morris and
# ScalableCAS (10, 10 ns each), everything else at 100 ns and over; in file
# order, reversed and shuffled (seed 39) the advice is the same: Morris first
# (the lowest median; Dice §5.5's preference for BFP-DUP speaks only of the
# Morris family, and ScalableCAS is in the tie), before ScalableCAS (equal
# medians and spreads: by name).
for order in file reversed shuffled; do read_cost_set "perm_$order" "$order"; done
check advice_read_pick_independent_of_row_order "$py" -c '
import json, sys
def adv(d):
    return [(a["id"], a["best"], a["runner_up"], a["ties"], a["margin"])
            for a in json.load(open(d + "/figdata/claims.json"))["advice"]]
got = [adv(d) for d in sys.argv[1:]]
assert got[0] == got[1] == got[2], got
rh = {a[0]: a for a in got[0]}["read-heavy"]
assert rh[1:3] == ("Morris", "ScalableCAS") and sorted(rh[3]) == ["BFP-DUP", "ScalableCAS"], rh
' "$tmp/perm_file" "$tmp/perm_reversed" "$tmp/perm_shuffled"
# The answer opens REPORT.md: its first section is the scenario table, one
# caveat line above it (the fixture's 2 runs per point), no caveat repeated
# per cell; then what was measured, then the claims.
check answer_opens_report "$py" -c '
import json, re, sys
md = open(sys.argv[1]).read()
rows = json.load(open(sys.argv[2]))["advice"]
heads = re.findall(r"^## .*", md, re.M)
assert heads[:3] == ["## Which counter to use on this machine", "## What was measured", "## Claims"], heads
sec = md.split("\n## ", 2)[1]
assert sec.count("**Caveat: provisional, 2 runs per point") == 1 and "provisional:" not in sec, sec
cells = [l for l in sec.splitlines() if re.match(r"^\| [A-Z].* \| \*\*[A-Za-z-]*\*\*: .* \| .* \| .* \| .* \|$", l)]
assert len(cells) == len([r for r in rows if r["best"]]) > 0, cells
first = [l for l in sec.splitlines() if l.strip()]
assert first[1].startswith("**Caveat:") and first[2].startswith("| Scenario |"), first[:3]
' "$tmp/adv/REPORT.md" "$tmp/adv/figdata/claims.json"
# The same answer as plain lines (what run-all prints last): a caveat line,
# each scenario and its counter, figure and runner-up.
check answer_lines "$py" -c '
import json, subprocess, sys
out = subprocess.run([sys.executable, sys.argv[1] + "/report.py", "--answer", sys.argv[2]],
                     stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout.splitlines()
rows = json.load(open(sys.argv[2] + "/figdata/claims.json"))["advice"]
assert out[0].startswith("Which counter to use here") and out[1].startswith("  Caveat: provisional, 2 runs per point"), out[:2]
for r in rows:
    i = out.index("  " + r["scenario"])
    if r["best"]:
        assert out[i + 1].startswith("    %s: %s at " % (r["best"], r["value"])) and "[%s]" % r["figure"] in out[i + 1], out[i + 1]
        assert not r["runner_up"] or "runner-up %s, " % r["runner_up"] in out[i + 1], out[i + 1]
' "$plots" "$tmp/adv"
check advice_rule_stated grep -qF 'whose worst \|relative error\| over every run of dice-fig4-high.csv at 0% work' "$tmp/adv/REPORT.md"
# One run per point is "1 run" (it read "1 runs"): the baselines of a copy
# of the fixture cut to run 0.
copy_set one
csvawk 'FNR == 1 || $col("run") == 0' "$tmp/one/baselines.csv" >"$tmp/one/b1" &&
	mv "$tmp/one/b1" "$tmp/one/baselines.csv"
"$py" "$plots/aggregate.py" "$tmp/one" >/dev/null 2>&1
check one_run_is_singular sh -c "grep -qx '# runs: 1 run per point' '$tmp/one/figdata/baselines-w0.dat' &&
	! grep -rq '1 runs' '$tmp/one/figdata'"
# The baselines figure's title names the baseline variants the set ran, in
# the registry's order: the fixture's four, and PerCPUTree once its rows are in.
check baselines_title_names_the_set grep -qx "# title: The papers' best counters against Sharded, Striped, Batched and PerCPU" \
	"$tmp/one/figdata/baselines-w0.dat"
awk -F, 'NR == 1 { print; next } { print } $1 == "PerCPU" { sub(/^PerCPU,/, "PerCPUTree,"); print }' \
	"$tmp/one/baselines.csv" >"$tmp/one/b1" && mv "$tmp/one/b1" "$tmp/one/baselines.csv"
"$py" "$plots/aggregate.py" "$tmp/one" >/dev/null 2>&1
check baselines_title_names_the_tree grep -qx "# title: The papers' best counters against Sharded, Striped, Batched, PerCPU and PerCPUTree" \
	"$tmp/one/figdata/baselines-w0.dat"

# The fixture has 2 runs per point: every answer is provisional, and says why.
check advice_provisional_with_two_runs "$py" -c '
import json, sys
rows = [a for a in json.load(open(sys.argv[1]))["advice"] if a["best"]]
assert rows and all((a["provisional"] or "").startswith("provisional: 2 runs per point") for a in rows), rows
' "$tmp/adv/figdata/claims.json"
# Ties, fresh and stale reads: FetchAdd and RBO at exactly 5e7 ops/ms in every run of
# dice-fig4-high (their bands touch: a tie), CAS at 4e7 (not tied); Batched the
# cheapest get: it wins only where a stale get is acceptable.
copy_set ties
scale "$tmp/ties/dice-fig4-high.csv" FetchAdd 16 0 16 50000000
scale "$tmp/ties/dice-fig4-high.csv" RBO 16 0 16 50000000
scale "$tmp/ties/dice-fig4-high.csv" CAS 16 0 16 40000000
scale "$tmp/ties/read-cost.csv" Batched 23 0 23 0.1
"$py" "$plots/aggregate.py" "$tmp/ties" >/dev/null 2>&1 && "$py" "$plots/report.py" "$tmp/ties" >/dev/null 2>&1
check advice_ties_fresh_stale "$py" -c '
import json, sys
got = {a["id"]: a for a in json.load(open(sys.argv[1]))["advice"]}
ph = got["precise-high"]
assert set([ph["best"]] + ph["ties"]) == {"FetchAdd", "RBO"}, ph
assert "a 2-way tie" in ph["margin"], ph
assert got["read-heavy-stale"]["best"] == "Batched", got["read-heavy-stale"]
assert got["read-heavy"]["best"] != "Batched" and "Batched" not in got["read-heavy"]["ties"], got["read-heavy"]
' "$tmp/ties/figdata/claims.json"

# Latency from pooled histograms: a sidecar with known buckets. CAS at 1 thread:
# run 0 has 100 increments in [10, 12) ns, run 1 has 100 in [30, 32); pooled,
# the p50 is rank 100 -> 11 ns, the p99 rank 198 -> 31 ns, while the runs' own
# p50s and p99s are 11 and 31 (min, max; mean 21). Every other run: 100 in
# [5, 7) -> 6 ns.
mklat() { # mklat DIR SIDECAR: the fixture's latency.csv and a made-up sidecar at SIDECAR
	mkdir -p "$1" && cp "$fixture/latency.csv" "$fixture/latency.csv.meta.json" "$1/" && chmod u+w "$1"/*
	mkdir -p "$(dirname "$2")"
	awk -F, 'NR == 1 { print "counter,threads,run,bucket_low_ns,bucket_high_ns,count"; next }
		$1 == "CAS" && $3 == 1 { print $1 "," $3 "," $4 "," ($4 == 0 ? "10,12" : "30,32") ",100"; next }
		{ print $1 "," $3 "," $4 ",5,7,100" }' "$fixture/latency.csv" >"$2"
}
mklat "$tmp/lat" "$tmp/lat/latency.csv.latency.csv"
"$py" "$plots/aggregate.py" "$tmp/lat" >/dev/null 2>&1
check latency_pooled_p50 grep -q '^CAS 1 2 11 11 31 21 ' "$tmp/lat/figdata/latency-p50.dat"
check latency_pooled_p99 grep -q '^CAS 1 2 31 11 31 21 ' "$tmp/lat/figdata/latency-p99.dat"
check latency_pooled_others grep -q '^Scalable 2 2 6 6 6 6 ' "$tmp/lat/figdata/latency-p999.dat"
check latency_header_says_pooled grep -q '^# latency_percentile: pooled: the median column is the p99.9 of all' \
	"$tmp/lat/figdata/latency-p999.dat"
check latency_drawn_says_pooled grep -q '^# drawn: line: percentile of all increments' "$tmp/lat/figdata/latency-p50.dat"
# run-all.sh keeps each invocation's part and its sidecar under parts/latency/.
mklat "$tmp/latparts" "$tmp/latparts/parts/latency/t1.csv.latency.csv"
"$py" "$plots/aggregate.py" "$tmp/latparts" >/dev/null 2>&1
check latency_pooled_from_parts grep -q '^CAS 1 2 31 11 31 21 ' "$tmp/latparts/figdata/latency-p99.dat"
# Without a sidecar (the fixture, a schema-1 set): today's per-run percentiles, said so.
check latency_without_sidecar_per_run grep -q '^# latency_percentile: per run: no latency histogram sidecar' \
	"$rs/figdata/latency-p99.dat"
# A sidecar that lacks some runs: those points keep the per-run median, and a note says so.
mklat "$tmp/latmixed" "$tmp/latmixed/latency.csv.latency.csv"
grep -v '^Scalable,' "$tmp/latmixed/latency.csv.latency.csv" >"$tmp/x" && mv "$tmp/x" "$tmp/latmixed/latency.csv.latency.csv"
"$py" "$plots/aggregate.py" "$tmp/latmixed" >"$tmp/latmixed.log" 2>&1
check latency_mixed_said sh -c "grep -q '^# latency_percentile: mixed: ' '$tmp/latmixed/figdata/latency-p50.dat' &&
	grep -q 'note: latency: .* without a histogram' '$tmp/latmixed.log'"
# End to end with scbench's own sidecar, when the harness is built.
if [ -n "${SCBENCH:-}" ] && [ -x "$SCBENCH" ]; then
	mkdir -p "$tmp/latrun"
	"$SCBENCH" --counter=CAS,Scalable --threads=1,2 --duration=0.05 --warmup=0.01 --runs=2 \
		--latency --events=none --output="$tmp/latrun/latency.csv" >/dev/null 2>&1
	"$py" "$plots/aggregate.py" "$tmp/latrun" >/dev/null 2>&1
	check latency_scbench_sidecar_pooled sh -c "grep -q '^# latency_percentile: pooled:' '$tmp/latrun/figdata/latency-p99.dat' &&
		test \"\$(grep -c '^CAS \|^Scalable ' '$tmp/latrun/figdata/latency-p99.dat')\" -eq 4"
else
	skip latency_scbench_sidecar_pooled "SCBENCH not set (run by make check)"
fi

# ---- gnuplot --------------------------------------------------------------------
# gp_figure DIR ID: figure ID of result set DIR as plots/regen draws it (the
# figure's variables from gpvars.py, figures/ made beforehand).
gp_figure() {
	mkdir -p "$1/figures" && "$PY" "$plots/gpvars.py" "$1/figdata" "$2" >"$tmp/gp.vars" &&
		"$gp" -c "$plots/gnuplot/$2.gp" "$1" "$tmp/gp.vars"
}
for id in $FIGURES; do
	if [ -z "$gp" ]; then
		skip "gnuplot_$id" "gnuplot not installed"
		continue
	fi
	gp_figure "$rs" "$id" >"$tmp/gp.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$rs/figures/$id.png" ] &&
	   [ "$(od -An -c -N4 "$rs/figures/$id.png" | tr -d ' ')" = "211PNG" ]; then
		ok "gnuplot_$id"
	else
		not_ok "gnuplot_$id (exit $rc: $(head -c 300 "$tmp/gp.log"))"
	fi
done

# ---- matplotlib ----------------------------------------------------------------
if [ -n "$mpl" ]; then
	MPLBACKEND=Agg "$mpl" "$plots/mpl_figures.py" "$rs" >"$tmp/mpl.log" 2>&1
	check mpl_figures_exits_0 test $? -eq 0
else
	skip mpl_figures_exits_0 "no Python with matplotlib"
fi
for id in $FIGURES; do
	if [ -z "$mpl" ]; then
		skip "matplotlib_$id" "no Python with matplotlib"
		continue
	fi
	if [ "$(head -c 4 "$rs/figures/$id.pdf" 2>/dev/null)" = "%PDF" ] &&
	   grep -q '<svg' "$rs/figures/$id.svg" 2>/dev/null; then
		ok "matplotlib_$id"
	else
		not_ok "matplotlib_$id (PDF or SVG missing or malformed)"
	fi
done

# ---- the report -----------------------------------------------------------------
"$py" "$plots/report.py" "$rs" >/dev/null 2>&1
check report_exits_0 test $? -eq 0
rows=$(grep -cE '^\| [0-9]+ \|' "$rs/REPORT.md" 2>/dev/null)
check "report_has_at_least_12_claim_rows ($rows)" test "${rows:-0}" -ge 12
# Every row of a claim (numbered, or C<n> among those true by construction) ends
# with one of the verdicts of plots/report.py's VERDICT_TEXT (a judged one with the runs it
# rests on, "(3 runs)"); those without a
# count phrase only in the table apart.
bad=$(grep -E '^\| [0-9]+ \|' "$rs/REPORT.md" |
	grep -cvE '\| (\*\*holds\*\*|\*\*consistent with\*\*|\*\*does not hold\*\*)( \([0-9]+ runs?[^)]*\))?(: .+)? \|$|\| \*inconclusive\*( \([0-9]+ runs?[^)]*\))?: .+ \|$|\| \*not measurable\* \([a-z ]+\): .+ \|$|\| \*no test here\* \([a-z ]+\): .+ \|$')
apart=$(grep -E '^\| C[0-9]+ \|' "$rs/REPORT.md" | grep -cvE '\| \*by construction\*( \([0-9]+ runs?[^)]*\))?: .+ \|$')
bad=$((bad + apart))
check "report_every_claim_row_has_a_verdict ($bad without)" test "$bad" -eq 0
check report_has_machine_header grep -q '^| Machine | ' "$rs/REPORT.md"
# Provenance in the header: a schema-1 set says "not recorded", a schema-2 set
# shows its cpu record (here written into a copy of the fixture's metadata).
check report_schema1_cpu_not_recorded grep -q '^| CPU | not recorded (schema 1) |$' "$rs/REPORT.md"
copy_set prov
"$py" -c 'import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*.meta.json"):
    m = json.load(open(p))
    m.update(schema_version=2, compiler="gcc (Debian 12.2.0-14) 12.2.0", compiler_command="gcc",
             cpu={"model": "AMD EPYC 7B13", "vendor": "AuthenticAMD", "sockets": 1, "cores": 2,
                  "pus": 4, "smt": "on", "governor": "powersave", "boost": "on",
                  "min_mhz": 1500, "max_mhz": "unknown"})
    json.dump(m, open(p, "w"))' "$tmp/prov"
"$py" "$plots/aggregate.py" "$tmp/prov" >/dev/null 2>&1 && "$py" "$plots/report.py" "$tmp/prov" >/dev/null 2>&1
check report_schema2_provenance sh -c "grep -qx '| Result schema | 2 |' '$tmp/prov/REPORT.md' &&
	grep -qx '| CPU | AMD EPYC 7B13 (AuthenticAMD); 1 socket, 2 cores, 4 PUs; SMT on |' '$tmp/prov/REPORT.md' &&
	grep -q '^| Frequency | governor powersave, boost on, frequency 1500-unknown MHz (not a fixed clock' '$tmp/prov/REPORT.md' &&
	grep -q '^| Build | compiler gcc (Debian 12.2.0-14) 12.2.0 (\`gcc\`), CFLAGS' '$tmp/prov/REPORT.md'"
# An emulated CPU (meta.json cpu_emulation, e.g. QEMU TCG): every timing claim is
# not measurable for that reason, every claim on an error or accuracy figure is
# judged as on the unmodified fixture; the header says so. And the points
# run-all.sh recorded as failed (failed-points.csv) are listed in the report.
copy_set emu
"$py" -c 'import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*.meta.json"):
    m = json.load(open(p))
    m["cpu_emulation"] = {"hypervisor": "qemu-tcg", "signature": "TCGTCGTCGTCG", "emulated": True}
    json.dump(m, open(p, "w"))
open(sys.argv[1] + "/failed-points.csv", "w").write(
    "experiment,part,args,reason\n"
    "dice-fig3,t2-Serial-r0,\"--counter=Serial --work=50\",\"calibration of the external work "
    "for --work failed: a pause costs nothing measurable\"\n")' "$tmp/emu"
"$py" "$plots/aggregate.py" "$tmp/emu" >/dev/null 2>&1 && "$py" "$plots/report.py" "$tmp/emu" >/dev/null 2>&1
check emulated_cpu_claims "$py" -c '
import json, sys
sys.path.insert(0, sys.argv[3])
from claims.judge import ERROR_FIGURES
emu = json.load(open(sys.argv[1] + "/figdata/claims.json"))["claims"]
ref = {c["id"]: c for c in json.load(open(sys.argv[2] + "/figdata/claims.json"))["claims"]}
bad = []
for c in emu:
    error = all(f.strip() in ERROR_FIGURES for f in c["figure"].split(","))
    if error and (c["verdict"], c["reason"]) != (ref[c["id"]]["verdict"], ref[c["id"]]["reason"]):
        bad.append(c["id"] + ": error claim changed")
    if not error and not (c["verdict"] == "not measurable" and (
            "emulated CPU (qemu-tcg)" in c["reason"] or ref[c["id"]]["verdict"] == "not measurable")):
        bad.append(c["id"] + ": timing claim judged")
errors = [c for c in emu if all(f.strip() in ERROR_FIGURES for f in c["figure"].split(","))]
print("\n".join(bad[:5]), file=sys.stderr)
sys.exit(0 if not bad and errors and len(errors) < len(emu) else 1)' "$tmp/emu" "$rs" "$plots"
check emulated_cpu_header grep -q '^| CPU emulation | qemu-tcg: emulated CPU' "$tmp/emu/REPORT.md"
check failed_points_listed sh -c "grep -q '^## Failed points' '$tmp/emu/REPORT.md' &&
	grep -q '^| dice-fig3 | t2-Serial-r0 | calibration of the external work for --work failed: a pause costs nothing measurable |' '$tmp/emu/REPORT.md'"
check report_names_both_papers sh -c "grep -q 'Dice §' '$rs/REPORT.md' && grep -q '(Ayers' '$rs/REPORT.md'"

# ---- plots/regen, end to end, on a fresh copy --------------------------------------
copy_set regen
"$plots/regen" "$tmp/regen" >"$tmp/regen.log" 2>&1
rc=$?
check "regen_exits_0 (exit $rc)" test $rc -eq 0
check regen_wrote_report test -s "$tmp/regen/REPORT.md"
"$plots/regen" "$tmp/partial" >"$tmp/regen-partial.log" 2>&1
rc=$?
check "regen_partial_set_exits_0 (exit $rc)" test $rc -eq 0
# The skipped figures once, in one line (their reasons are in figures.tsv).
check regen_partial_says_what_it_skipped_once sh -c '
	[ "$(grep -c "skipped" "$1")" -eq 1 ] &&
	grep -q "^plots/regen: skipped [0-9]* figures without data here (reasons: .*figures.tsv):.* latency\( \|\$\)" "$1"' \
	_ "$tmp/regen-partial.log"
# A restricted plan (run-all --variants) without Morris or BFP-DUP: the Fig. 6
# figures have no RSTDV bound to draw, and gnuplot must still draw them.
copy_set restricted
for f in "$tmp"/restricted/*.csv; do
	case $f in *.latency.csv) continue ;; esac
	awk -F, 'NR == 1 || $1 == "FetchAdd" || $1 == "Serial" || $1 == "BFP-CSUP"' "$f" >"$f.tmp" &&
		mv "$f.tmp" "$f"
done
rm -rf "$tmp/restricted/figures" "$tmp/restricted/figdata"
"$plots/regen" "$tmp/restricted" >"$tmp/regen-restricted.log" 2>&1
rc=$?
check "regen_restricted_set_exits_0 (exit $rc)" test $rc -eq 0
# PYTHON_MPL=none: no PDF/SVG on purpose (the emulated machine's run-all), not
# a failure; a PYTHON_MPL that cannot import matplotlib still is one.
PYTHON_MPL=none "$plots/regen" "$tmp/restricted" >"$tmp/regen-nompl.log" 2>&1
rc=$?
check "regen_python_mpl_none_exits_0 (exit $rc)" test $rc -eq 0
check regen_python_mpl_none_says_so grep -q 'skipped PDF/SVG figures: PYTHON_MPL=none' "$tmp/regen-nompl.log"
PYTHON_MPL=/bin/false "$plots/regen" "$tmp/restricted" >/dev/null 2>&1
rc=$?
check "regen_python_mpl_broken_exits_1 (exit $rc)" test $rc -eq 1
if [ -n "$gp" ]; then
	check regen_restricted_set_draws_fig6 test -s "$tmp/restricted/figures/dice-fig6-low.png"
else
	skip regen_restricted_set_draws_fig6 "no gnuplot"
fi
# A restricted plan whose only lossy variant is Serial, which lost no update:
# both Fig. 6 figures drawn, the zero errors on 0..1% (gnuplot stopped on an
# empty y range: y_max 0).
copy_set serial0
for f in "$tmp"/serial0/*.csv; do
	case $f in *.latency.csv) continue ;; esac
	"$py" -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
c, e, v, o = (h.index(k) for k in ("counter", "rel_error", "value", "ops"))
w = csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n")
w.writerow(h)
for r in rows[1:]:
    if r[c] == "Serial" and r[e] != "":
        r[e], r[v] = "0", r[o]
    if r[c] in ("FetchAdd", "Serial"):
        w.writerow(r)' "$f" || exit 1
done
rm -rf "$tmp/serial0/figures" "$tmp/serial0/figdata"
PYTHON_MPL=none "$plots/regen" "$tmp/serial0" >"$tmp/regen-serial0.log" 2>&1
rc=$?
if [ -n "$gp" ]; then
	check "regen_serial_without_loss_draws_fig6 (exit $rc)" sh -c "test $rc -eq 0 &&
		test -s '$tmp/serial0/figures/dice-fig6-high.png' && test -s '$tmp/serial0/figures/dice-fig6-low.png'"
else
	skip regen_serial_without_loss_draws_fig6 "no gnuplot"
fi

# ---- verdicts on a synthetic 256-PU, 4-node result set ------------------------------
"$py" "$top/tests/fixtures/synth_bigbox.py" "$tmp/big" >/dev/null 2>&1 &&
	"$py" "$plots/aggregate.py" "$tmp/big" >/dev/null 2>&1
check synthetic_bigbox_aggregates test $? -eq 0
while read -r cid want; do
	got=$("$py" -c 'import json, sys
for c in json.load(open(sys.argv[1]))["claims"]:
    if c["id"] == sys.argv[2]:
        print(c["verdict"])' "$tmp/big/figdata/claims.json" "$cid")
	case $want in holds) expect="holds" ;; by-construction) expect="by construction" ;;
	*) expect="does not hold" ;; esac
	check "bigbox_verdict_$cid ($got)" test "$got" = "$expect"
done <"$tmp/big/expected-verdicts.txt"
if [ -n "$gp" ]; then
	gp_figure "$tmp/big" dice-fig4-low >/dev/null 2>&1
	check gnuplot_bigbox_256_threads test -s "$tmp/big/figures/dice-fig4-low.png"
else
	skip gnuplot_bigbox_256_threads "gnuplot not installed"
fi

# ---- error claims judged at the count they need; end states of the runs -------------
# claim_field DIR ID: "verdict|reason|measured" of claim ID in DIR's claims.json.
claim_field() {
	"$py" -c 'import json, sys
for c in json.load(open(sys.argv[1]))["claims"]:
    if c["id"] == sys.argv[2]:
        print("%s|%s|%s" % (c["verdict"], c["reason"], c["measured"]))' "$1/figdata/claims.json" "$2"
}
# reading DIR FIG: the report's sentences on the end states of figure FIG.
reading() {
	"$py" -c 'import json, sys
for f in json.load(open(sys.argv[1]))["figures"]:
    if f["id"] == sys.argv[2]:
        print(" ".join(f.get("end_states") or []))' "$1/figdata/claims.json" "$2"
}
# The fixture's runs last 0.05 s; 8 s at their throughput would count 160x higher.
copy_set short
"$py" "$plots/aggregate.py" "$tmp/short" >/dev/null 2>&1
got=$(claim_field "$tmp/short" dice-bfpcsup-under-0.25pct)
check "error_claim_short_runs_not_measurable_at_this_count (${got%%|*})" \
	sh -c 'case "$1" in "not measurable|at this count: "*"would count about"*"true counts of these"*) exit 0 ;; esac; exit 1' _ "$got"
got=$(claim_field "$tmp/short" dice-array-error-low)
check "array_error_claim_short_runs_not_measurable (${got%%|*})" \
	sh -c 'case "$1" in "not measurable|at this count: "*) exit 0 ;; esac; exit 1' _ "$got"
# The condition rule on the fixture: Morris, counting 200 k-26 M, is not compared with
# CAS on a claim about low projected values (below); BFP-CSUP's speed against BFP-DUP's
# has no contention condition in the paper: its exact 1-thread points are judged,
# nothing left out.
got=$(claim_field "$tmp/short" dice-csup-speed-like-dup)
check condition_exact_point_kept_in_speed sh -c 'case "$1" in *"left out"*) exit 1 ;; *"1 thr high"*) exit 0 ;; esac; exit 1' _ "$got"
# BFP-CSUP's accuracy claim spans the paper's 1-256 threads: its exact runs count.
got=$(claim_field "$tmp/short" dice-csup-more-accurate)
check condition_exact_point_kept_in_accuracy sh -c 'case "$1" in *"left out"*) exit 1 ;; *"median |relative error|: BFP-CSUP"*) exit 0 ;; esac; exit 1' _ "$got"
got=$(claim_field "$tmp/short" dice-morris-slower-than-cas-low)
check "condition_low_count_not_measurable (${got%%|*})" \
	sh -c 'case "$1" in "not measurable|every run counted far above a low projected value"*) exit 0 ;; esac; exit 1' _ "$got"
got=$(claim_field "$tmp/short" dice-bfpdup-rstdv)
check error_claim_rstdv_states_counts sh -c 'case "$1" in *"|"*"true counts "*) exit 0 ;; esac; exit 1' _ "$got"
check end_states_not_recorded_said sh -c 'reading_=$1; case "$reading_" in *"not recorded"*MorrisAdapt*) exit 0 ;; esac; exit 1' _ \
	"$(reading "$tmp/short" dice-fig4-high)"
# The same runs made paper-length (8 s), with end states: MorrisAdapt's two runs of
# each point end in different modes, the other variants in one state each.
copy_set paper
"$py" - "$tmp/paper" <<'PYEOF'
import csv, os, sys
for name in ("dice-fig4-low.csv", "dice-fig4-high.csv"):
    path = os.path.join(sys.argv[1], name)
    rows = list(csv.DictReader(open(path, newline="")))
    cols = list(rows[0].keys()) + ["end_state"]
    for r in rows:
        r["seconds"] = "8.000000"
        if r["counter"] == "MorrisAdapt":
            r["end_state"] = ("mode=exact;exact=%s" % r["ops"] if r["run"] == "0" else
                              "mode=morris;switched_at=1234;threshold=5e+06;updates=40000")
        else:
            r["end_state"] = "exp=3;mant=9000" if r["counter"].startswith("BFP") else ""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, cols)
        w.writeheader()
        w.writerows(rows)
PYEOF
"$py" "$plots/aggregate.py" "$tmp/paper" >/dev/null 2>&1 && "$py" "$plots/report.py" "$tmp/paper" >/dev/null 2>&1
got=$(claim_field "$tmp/paper" dice-bfpcsup-under-0.25pct)
check "error_claim_paper_length_runs_judged (${got%%|*})" \
	sh -c 'case "$1" in "holds|"*|"does not hold|"*) exit 0 ;; esac; exit 1' _ "$got"
# BFP-CSUP's worst error "often close to zero" on the paper-length fixture: judged (its
# 2 runs per point are below the 3 every claim needs, so the rule's verdict is said).
got=$(claim_field "$tmp/paper" dice-csup-error-near-zero)
check "new_claim_csup_error_near_zero_judged (${got%%|*})" \
	sh -c 'case "$1" in "inconclusive|too few runs: 2 per point"*"the rule alone would say "*"BFP-CSUP points"*) exit 0 ;; esac; exit 1' _ "$got"
check figdata_marks_mixed_modes grep -q '^# mixed_modes: MorrisAdapt@1thr MorrisAdapt@2thr' \
	"$tmp/paper/figdata/dice-fig4-high.dat"
check figdata_note_says_bimodal grep -q '^# note: bimodal: MorrisAdapt at 1 thr ended in different modes (exact 1, morris 1)' \
	"$tmp/paper/figdata/dice-fig4-high.dat"
check report_reading_says_bimodal grep -q 'bimodal points: MorrisAdapt at 1 thr: its 2 runs ended in different modes (exact 1, morris 1)' \
	"$tmp/paper/REPORT.md"


# ---- a restricted run lists only the claims it can speak to ---------------
# What a claim needs (plots/claims/restriction.py: its figures' experiments, the CSVs
# its rule reads besides, the variants it names or declares) is complete: each claim
# judged on the synthetic set cut to only its needs (the other CSVs absent, the
# other variants' rows gone) says what it says on the whole set.
check claim_needs_are_complete "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
import json
from claims import CLAIMS
from claims.context import Context
from claims.judge import evaluate
from claims.restriction import needed_experiments, needed_variants, variant_words
from figbuild import Figures
from figures import FIGURES
from resultset import ResultSet
from resultset_summary import machine_summary
full = {c["id"]: c for c in json.load(open(sys.argv[2] + "/figdata/claims.json"))["claims"]}
class Cut(ResultSet):
    """The set with only the CSVs of names, and of them only the rows of variants."""
    def __init__(self, path, names, variants):
        ResultSet.__init__(self, path)
        self.names, self.variants = names, variants
    def csv(self, name):
        rows = ResultSet.csv(self, name) if name in self.names else None
        if rows is None or self.variants is None:
            return rows
        return [r for r in rows if r["counter"] in self.variants]
words = variant_words()
groups = {}
for c in CLAIMS:
    e, v = needed_experiments(c, FIGURES), needed_variants(c, words)
    groups.setdefault((tuple(e), tuple(v) if v else None), []).append(c)
bad = []
for (e, v), cs in groups.items():
    rs = Cut(sys.argv[2], [x + ".csv" for x in e], v)
    m = machine_summary(rs)
    figs = Figures(rs, m, FIGURES)
    figs.build()
    for c, got in zip(cs, evaluate(Context(rs, figs, m), cs)):
        want = full[c.id]
        for k in ("verdict", "measured", "reason"):
            if got[k] != want[k]:
                bad.append("%s (needs %s; %s): %s %r, on the whole set %r"
                           % (c.id, ", ".join(e), ", ".join(v or ["every variant"]), k,
                              got[k], want[k]))
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)' "$plots" "$tmp/big"
# claims_listed DIR: the claim ids REPORT.md lists (the rows of its two claim tables),
# one a line; left_out_ids DIR: those claims.json marks left out.
claims_listed() {
	"$py" -c 'import json, sys
d = sys.argv[1]
text = {c["claim"]: c["id"] for c in json.load(open(d + "/figdata/claims.json"))["claims"]}
for line in open(d + "/REPORT.md"):
    cells = line.split(" | ")
    if line.startswith("| ") and len(cells) > 2 and cells[0][2:].lstrip("C").isdigit():
        claim = cells[1].rsplit(" (", 1)[0].replace("\\|", "|")
        print(text.get(claim, "unknown: " + claim))' "$1"
}
left_out_ids() {
	"$py" -c 'import json, sys
for c in json.load(open(sys.argv[1] + "/figdata/claims.json"))["claims"]:
    if c.get("left_out"):
        print(c["id"])' "$1"
}
# restricted_set NAME EXPERIMENTS VARIANTS: the synthetic set as run-all --experiments
# and --variants would have left it (only the CSVs of EXPERIMENTS, only the rows of
# VARIANTS; "all" keeps every one), with its run-all.conf, aggregated and reported.
restricted_set() {
	mkdir "$tmp/$1" && "$py" - "$tmp/big" "$tmp/$1" "$2" "$3" <<'PYEOF' &&
import csv, shutil, sys
src, dst, exps, variants = sys.argv[1:]
for name in ("dice-fig3", "dice-fig4-low", "dice-fig4-high", "dice-fig5", "baselines", "latency",
             "read-cost", "ayers", "ayers-tunable"):
    if exps != "all" and name not in exps.split(","):
        continue
    shutil.copy("%s/%s.csv.meta.json" % (src, name), dst)
    with open("%s/%s.csv" % (src, name), newline="") as f:
        rows = list(csv.reader(f))
    with open("%s/%s.csv" % (dst, name), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(
            [r for i, r in enumerate(rows) if i == 0 or variants == "all" or r[0] in variants.split(",")])
with open(dst + "/run-all.conf", "w") as f:
    f.write("experiments=%s\nvariants=%s\n" % (exps, variants))
PYEOF
	"$py" "$plots/aggregate.py" "$tmp/$1" >"$tmp/$1.log" 2>&1 && "$py" "$plots/report.py" "$tmp/$1" >>"$tmp/$1.log" 2>&1
}
# same_verdicts DIR IDS...: each claim has the verdict, measurement and reason it has
# on the whole synthetic set (a listed claim is one the restricted run speaks to).
same_verdicts() {
	sv_dir=$1; shift
	for id in "$@"; do
		test "$(claim_field "$sv_dir" "$id")" = "$(claim_field "$tmp/big" "$id")" || return 1
	done
}
# left_out_line DIR: REPORT.md's lines saying what it left out.
left_out_line() { grep 'left out: this run was restricted' "$1/REPORT.md"; }
total=$("$py" -B -c 'import sys; sys.path.insert(0, sys.argv[1]); from claims import CLAIMS; print(len(CLAIMS))' "$plots")
# Restricted to three experiments. The claims they cannot speak to, counted here from
# the figure table and the claims' declarations: every figure's source CSV (or the
# experiment of a figure-less one) and the CSVs declared in data must be among them.
exps=dice-fig4-low,dice-fig4-high,ayers
restricted_set rx "$exps" all
check "restricted_experiments_set_reported (exit $?)" test -s "$tmp/rx/REPORT.md"
want=$("$py" -B -c 'import sys
sys.path.insert(0, sys.argv[1])
from claims import CLAIMS
from figures import FIGURES
run = sys.argv[2].split(",")
src = dict((f.id, f.source[:-4]) for f in FIGURES)
print(sum(1 for c in CLAIMS if any(src.get(f.strip(), f.strip()) not in run for f in c.figure.split(","))
          or any(d[:-4] not in run for d in c.data)))' "$plots" "$exps")
check "restricted_one_left_out_line ($(left_out_line "$tmp/rx" | wc -l) lines)" \
	test "$(left_out_line "$tmp/rx" | wc -l)" -eq 1
check "restricted_left_out_line_says_count_and_why (want $want)" grep -qx \
	"$want claims left out: this run was restricted to experiments dice-fig4-low, dice-fig4-high, ayers (run-all --experiments) and they need others." \
	"$tmp/rx/REPORT.md"
claims_listed "$tmp/rx" >"$tmp/rx.listed"
left_out_ids "$tmp/rx" >"$tmp/rx.left"
check "restricted_lists_the_others ($(wc -l <"$tmp/rx.listed") listed, $want left out, $total claims)" \
	test "$(wc -l <"$tmp/rx.listed")" -eq $((total - want)) -a "$(wc -l <"$tmp/rx.left")" -eq "$want" -a "$want" -gt 0
check restricted_lists_no_left_out_claim sh -c '! grep -qxFf "$1" "$2" && ! grep -q "^unknown" "$2"' _ "$tmp/rx.left" "$tmp/rx.listed"
# shellcheck disable=SC2046 # one id a word
check restricted_listed_claims_judged_as_in_full_run same_verdicts "$tmp/rx" $(cat "$tmp/rx.listed")
check restricted_count_said_by_aggregate grep -q "(${want} left out: the run was restricted)" "$tmp/rx.log"
# Restricted to three variants (every experiment): a claim on another variant, or on
# every variant of its figures, is left out; so is nothing else.
restricted_set rv all FetchAdd,Serial,Scalable
claims_listed "$tmp/rv" >"$tmp/rv.listed"
left_out_ids "$tmp/rv" >"$tmp/rv.left"
nleft=$(wc -l <"$tmp/rv.left")
check "restricted_variants_line ($nleft left out)" grep -qx \
	"$nleft claims left out: this run was restricted to variants FetchAdd, Serial, Scalable (run-all --variants) and they need others." \
	"$tmp/rv/REPORT.md"
check "restricted_variants_lists_the_others ($(wc -l <"$tmp/rv.listed") listed)" \
	test "$(wc -l <"$tmp/rv.listed")" -eq $((total - nleft)) -a "$nleft" -gt 0 -a "$nleft" -lt "$total"
check restricted_variants_lists_no_left_out_claim sh -c '! grep -qxFf "$1" "$2"' _ "$tmp/rv.left" "$tmp/rv.listed"
check restricted_variants_keeps_serial_claims grep -qx 'dice-serial-loses-90pct' "$tmp/rv.listed"
check restricted_variants_leaves_out_all_counters grep -qx 'dice-fig3-similar-to-8' "$tmp/rv.left"
# shellcheck disable=SC2046 # one id a word
check restricted_variants_listed_judged_as_in_full_run same_verdicts "$tmp/rv" $(cat "$tmp/rv.listed")
# Both restricted: one line naming both.
restricted_set rb ayers FetchAdd,Serial
check restricted_both_one_line grep -qx \
	"[0-9]* claims left out: this run was restricted to experiments ayers and variants FetchAdd, Serial (run-all --experiments, --variants) and they need others." \
	"$tmp/rb/REPORT.md"
# A full run (experiments=all, variants=all) lists every claim, leaves nothing out,
# and writes claims.json and REPORT.md byte for byte as without its run-all.conf.
restricted_set rf all all
claims_listed "$tmp/rf" >"$tmp/rf.listed"
check "full_run_lists_every_claim ($(wc -l <"$tmp/rf.listed") of $total)" \
	test "$(wc -l <"$tmp/rf.listed")" -eq "$total"
check full_run_no_left_out_line sh -c '! grep -q "left out: this run was restricted" "$1/REPORT.md" && ! grep -q "left_out" "$1/figdata/claims.json"' _ "$tmp/rf"
cp "$tmp/rf/REPORT.md" "$tmp/rf.report" && cp "$tmp/rf/figdata/claims.json" "$tmp/rf.claims"
rm "$tmp/rf/run-all.conf"
"$py" "$plots/aggregate.py" "$tmp/rf" >/dev/null 2>&1 && "$py" "$plots/report.py" "$tmp/rf" >/dev/null 2>&1
check full_run_as_without_restriction sh -c 'cmp -s "$1.report" "$1/REPORT.md" && cmp -s "$1.claims" "$1/figdata/claims.json"' _ "$tmp/rf"

tap_done
