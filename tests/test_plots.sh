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

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-plots.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
check() { name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

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
check style_gp_matches_style_json "$py" "$plots/style.py" --check
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

# Every .dat: the column header, rows of 11 fields, numbers or NaN after the series name.
dat_ok() {
	f=$1
	[ -s "$f" ] || return 1
	grep -q '^# columns: series x n median min max mean p5 p95 env_lo env_hi$' "$f" || return 1
	grep -q '^# series: ' "$f" || return 1
	awk '!/^#/ && NF { rows++
		if (NF != 11) bad = 1
		for (i = 2; i <= 11; i++)
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
# mean 4, p5 1.2 and p95 8.8 (linear interpolation between order statistics).
mkdir -p "$tmp/known"
head -1 "$fixture/dice-fig3.csv" >"$tmp/known/dice-fig3.csv"
for v in 1 2 3 4 10; do
	grep '^CAS,' "$fixture/dice-fig3.csv" | head -1 |
		awk -F, -v OFS=, -v v=$v '{ $3 = 1; $16 = v; print }' >>"$tmp/known/dice-fig3.csv"
done
"$py" "$plots/aggregate.py" "$tmp/known" >/dev/null 2>&1
check aggregate_statistics_known_values sh -c \
	"grep '^CAS ' '$tmp/known/figdata/dice-fig3.dat' | grep -q '^CAS 1 5 3 1 10 4 1.2 8.8 NaN NaN$'"

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
# overlap of the min-max bands counts, a gap is named with both bands.
check fig3_fig4low_band_note "$py" -B -c '
import sys
sys.path.insert(0, sys.argv[1])
from consistency import band_notes
p = lambda lo, hi: {"min": lo, "max": hi, "median": (lo + hi) / 2}
stats = {("dice-fig3", ""): {"CAS": {1: p(10, 20), 2: p(30, 40)}, "RBO": {1: p(5, 6)}},
         ("dice-fig4-low", ""): {"CAS": {1: p(15, 25), 2: p(41, 50)}, "RBO": {1: p(6, 7)}}}
notes = band_notes(stats)
assert len(notes) == 1 and "overlap at 2 of 3 common points" in notes[0], notes
assert "CAS at 2 thr (dice-fig3: 30-40, dice-fig4-low: 41-50 ops/ms)" in notes[0], notes
assert "RBO at" not in notes[0] and band_notes({}) == [], notes
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
from resultset import ResultSet, machine_summary
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
assert ratio_point({"median": 11, "values": [10, 11, 12]},
                   {"median": 10.5, "values": [10, 10.5, 30]}, gt1)[1:] == (True, True)
assert ratio_point({"median": 21, "values": [20, 21, 22]},
                   {"median": 10, "values": [10, 10, 11]}, gt1)[1:] == (True, False)
doc = {"claims": [{"id": v, "source": "Dice §0", "claim": "x", "figure": "f", "measured": "",
                   "verdict": v, "reason": "r"} for v, _, _ in report.VERDICT_TEXT]}
text = report.render(sys.argv[3], doc)
assert "**5 claims: 1 hold, 1 consistent with it (within a stated tolerance), 1 do not hold, " \
       "1 are inconclusive, 1 are not measurable here.** (Not counted: 1 that holds by " \
       "construction, listed apart below.)" in text, text
assert "| C1 | x (Dice §0) |" in text
' "$plots" "$rs" "$tmp/rules"

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
# x1000 with 7500 counters; CAS reads in 0.5 ns. Single-threaded cost has no
# error bound: BFP-DUP wins it.
copy_set adv
scale() { # scale FILE VARIANT COLUMN FACTOR [COLUMN VALUE]
	awk -F, -v OFS=, -v v="$2" -v c="$3" -v f="$4" -v c2="${5:-0}" -v x="${6:-}" \
		'NR > 1 && $1 == v { $c = $c * f; if (c2) $c2 = x } { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}
scale "$tmp/adv/dice-fig4-high.csv" RBO 16 1000
scale "$tmp/adv/dice-fig4-high.csv" Serial 16 1000000
scale "$tmp/adv/dice-fig4-high.csv" BFP-DUP 16 100000 15 0.05
scale "$tmp/adv/dice-fig5.csv" Morris 16 1000
scale "$tmp/adv/read-cost.csv" CAS 23 0 23 0.5
"$py" "$plots/aggregate.py" "$tmp/adv" >/dev/null 2>&1 && "$py" "$plots/report.py" "$tmp/adv" >/dev/null 2>&1
check advice_picks_known_winners "$py" -c '
import json, sys
got = {a["id"]: a["best"] for a in json.load(open(sys.argv[1]))["advice"]}
want = {"precise-high": "RBO", "approx-high": "RBO", "single-thread": "BFP-DUP",
        "many-counters": "Morris", "read-heavy": "CAS"}
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
assert got["single-thread"].startswith("approximate") and got["many-counters"].startswith("approximate"), got
assert got["precise-high"] == "" and got["read-heavy"] == "", got
assert "lags" in caveat("Batched", "precise") and caveat("Sharded", "precise") is None
' "$tmp/adv/figdata/claims.json" "$plots"
check advice_caveat_in_report grep -qF 'Caveat: approximate' "$tmp/adv/REPORT.md"
check advice_section_ends_report sh -c "sed -n '/^## Which counter to use on this machine\$/,\$p' '$tmp/adv/REPORT.md' |
	grep -c '^| [A-Z].* | \*\*[A-Za-z-]*\*\*: .* | .* | .* | .* |\$' | grep -qx 6 &&
	test \"\$(grep '^## ' '$tmp/adv/REPORT.md' | tail -1)\" = '## Which counter to use on this machine'"
check advice_rule_stated grep -qF 'whose worst \|relative error\| over every run of dice-fig4-high.csv at 0% work' "$tmp/adv/REPORT.md"

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
for id in $FIGURES; do
	if [ -z "$gp" ]; then
		skip "gnuplot_$id" "gnuplot not installed"
		continue
	fi
	"$gp" -c "$plots/gnuplot/$id.gp" "$rs" >"$tmp/gp.log" 2>&1
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
# with one of the verdicts of plots/report.py's VERDICT_TEXT; those without a
# count phrase only in the table apart.
bad=$(grep -E '^\| [0-9]+ \|' "$rs/REPORT.md" |
	grep -cvE '\| (\*\*holds\*\*|\*\*consistent with\*\*|\*\*does not hold\*\*)(: .+)? \|$|\| \*(inconclusive|not measurable)\*: .+ \|$')
apart=$(grep -E '^\| C[0-9]+ \|' "$rs/REPORT.md" | grep -cvE '\| \*by construction\*: .+ \|$')
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
check regen_partial_says_what_it_skipped grep -q 'skipped latency: latency.csv is not in this result set' \
	"$tmp/regen-partial.log"

# ---- verdicts on a synthetic 256-PU, 4-node result set ------------------------------
"$py" "$top/tests/fixtures/synth_bigbox.py" "$tmp/big" >/dev/null 2>&1 &&
	"$py" "$plots/aggregate.py" "$tmp/big" >/dev/null 2>&1
check synthetic_bigbox_aggregates test $? -eq 0
while read -r cid want; do
	got=$("$py" -c 'import json, sys
for c in json.load(open(sys.argv[1]))["claims"]:
    if c["id"] == sys.argv[2]:
        print(c["verdict"])' "$tmp/big/figdata/claims.json" "$cid")
	case $want in holds) expect="holds" ;; *) expect="does not hold" ;; esac
	check "bigbox_verdict_$cid ($got)" test "$got" = "$expect"
done <"$tmp/big/expected-verdicts.txt"
if [ -n "$gp" ]; then
	"$gp" -c "$plots/gnuplot/dice-fig4-low.gp" "$tmp/big" >/dev/null 2>&1
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
check figdata_marks_mixed_modes grep -q '^# mixed_modes: MorrisAdapt@1thr MorrisAdapt@2thr' \
	"$tmp/paper/figdata/dice-fig4-high.dat"
check figdata_note_says_bimodal grep -q '^# note: bimodal: MorrisAdapt at 1 thr ended in different modes (exact 1, morris 1)' \
	"$tmp/paper/figdata/dice-fig4-high.dat"
check report_reading_says_bimodal grep -q 'bimodal points: MorrisAdapt at 1 thr: its 2 runs ended in different modes (exact 1, morris 1)' \
	"$tmp/paper/REPORT.md"


echo "1..$n"
[ "$failed" -eq 0 ]
