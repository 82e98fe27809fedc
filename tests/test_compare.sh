#!/bin/sh
# SPDX-License-Identifier: MIT
# test_compare.sh - plots/compare (doc/design.md §10), as TAP: a result set compared
# with itself flags nothing; a copy with one variant's throughput halved in one
# figure flags exactly that variant there; points of only one set are listed;
# a directory that is not a result set exits 2 with one line. Deterministic:
# fixed data, a fixed bootstrap seed (checked: two runs give the same file).
# Works on a copy of tests/fixtures/results-small; with SC_TEST_FULL=1 (CI) on
# one of results/reference/kvm-epyc-2pu (3 runs per point) where the tree has it
# (a dist tarball does not) and TEST_COMPARE_FIXTURE is unset. Without a Python
# that imports numpy and scipy the whole test is skipped (TAP plan "1..0 # SKIP").
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
compare=$top/plots/compare
src=$top/tests/fixtures/results-small
if [ "${SC_TEST_FULL:-0}" = 1 ] && [ -z "${TEST_COMPARE_FIXTURE:-}" ] &&
   [ -f "$top/results/reference/kvm-epyc-2pu/dice-fig4-high.csv" ]; then
	src=$top/results/reference/kvm-epyc-2pu
fi

py=""
for c in "${PYTHON_SCIPY:-}" /usr/bin/python3 python3; do
	if [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && "$c" -c 'import numpy, scipy.stats' 2>/dev/null; then
		py=$c; break
	fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP no Python with numpy and scipy (apt-get install python3-scipy)"
	exit 0
fi

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

# copy NAME: the CSVs and metadata of the source set (no figures, no report).
copy() {
	mkdir "$tmp/$1" && cp "$src"/*.csv "$src"/*.meta.json "$tmp/$1/" && chmod u+w "$tmp/$1"/*
}
# has_rows PROG FILE: csvawk PROG selects at least one row of FILE.
has_rows() { csvawk "$1" "$2" | grep -q .; }
# json_matches_csv DIR: DIR/compare.json is valid UTF-8 and strict JSON (no NaN or
# Infinity), its columns are compare.csv's header and its rows compare.csv's, in
# order: in a number column a number equal to the CSV's, or null where the CSV is
# empty or says inf; in a text column the CSV's text.
json_matches_csv() {
	"$py" -c 'import csv, json, sys
raw = open(sys.argv[1] + "/compare.json", "rb").read()
def no_constant(c):
    raise ValueError("not JSON: " + c)
doc = json.loads(raw.decode("utf-8"), parse_constant=no_constant)
with open(sys.argv[1] + "/compare.csv", newline="") as f:
    rows = list(csv.reader(f))
bad = []
if doc["columns"] != rows[0] or len(doc["rows"]) != len(rows) - 1:
    bad.append("columns or row count differ")
for i, (j, c) in enumerate(zip(doc["rows"], rows[1:])):
    if list(j) != rows[0]:
        bad.append("row %d: keys %s" % (i, list(j)))
        continue
    for k, text in zip(rows[0], c):
        v = j[k]
        try:
            num = float(text)
        except ValueError:
            num = None
        if k in ("figure", "counter", "point", "params", "test", "significant"):
            ok = v == text
        elif text in ("", "inf"):
            ok = v is None
        else:
            ok = isinstance(v, (int, float)) and not isinstance(v, bool) and v == num
        if not ok:
            bad.append("row %d %s: csv %r json %r" % (i, k, text, v))
for b in bad[:5]:
    print("# " + b)
sys.exit(1 if bad or not doc["rows"] else 0)' "$1"
}
# flagged DIR: "figure counter" of every significant row of DIR/compare.csv.
flagged() {
	"$py" -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["significant"] == "yes":
        print(r["figure"], r["counter"])' "$1/compare.csv"
}
echo "# comparing copies of $src"

# ---- a set against itself -------------------------------------------------------
copy a
copy same
PYTHON_SCIPY=$py "$compare" "$tmp/a" "$tmp/same" --out "$tmp/self" --no-figures >"$tmp/self.log" 2>&1
rc=$?
check "self_exits_0 (exit $rc)" test $rc -eq 0
check compare_csv_columns sh -c "head -1 '$tmp/self/compare.csv' | grep -qx \
'figure,counter,threads,median_a,median_b,ratio,ci_low,ci_high,p_value,significant,point,params,n_a,n_b,p_adj,test,busy_a,busy_b'"
if [ "$src" = "$top/tests/fixtures/results-small" ]; then
	# The fixture has single-run points (ayers-scaling): that caveat is right
	# there; none about modes, timers or machines may appear.
	check self_no_mode_timer_machine_caveats sh -c "sed -n '/^## Caveats/,/^## Significant/p' \
		'$tmp/self/COMPARE.md' | grep '^- ' | grep -v 'Fewer than 2 runs' | grep -q . && exit 1 || exit 0"
else
	# Same mode, timer and machine: no caveat; where the reference has busy
	# runs, only the busy-machine one, once per side with the same count.
	sed -n '/^## Caveats/,/^## Significant/p' "$tmp/self/COMPARE.md" | grep '^- ' >"$tmp/cav"
	if [ ! -s "$tmp/cav" ]; then
		check self_no_caveats grep -q '^None: same mode, timer and machine' "$tmp/self/COMPARE.md"
	else
		check "self_only_busy_caveats ($(sed -n '1s/.*: \([0-9]* of [0-9]*\) runs.*/\1/p' "$tmp/cav") busy runs)" sh -c "
			[ \$(wc -l <'$tmp/cav') -eq 2 ] && ! grep -qv '^- \*\*Busy machine\*\*: ' '$tmp/cav' &&
			[ \$(sed 's/ runs of [AB] / runs of X /' '$tmp/cav' | sort -u | wc -l) -eq 1 ]"
	fi
fi
check power_table_per_figure sh -c "sed -n '/^## Power/,/^## Largest/p' '$tmp/self/COMPARE.md' | grep -q '^| dice-fig4-high | [0-9]* | '"
check largest_unflagged_listed sh -c "sed -n '/^## Largest changes not flagged/,/^## Quantized/p' '$tmp/self/COMPARE.md' | grep -q '^| dice-'"
# Latency percentiles within 20 timer steps are compared but never tested.
quantized_not_tested() {
	csvawk '$col("figure") ~ /^latency-p50/ && $col("test") !~ /^quantized/ && $col("median_a") < 100 { bad = 1 }
		$col("test") ~ /^quantized/ && $col("p_value") != "" { bad = 1 }
		END { exit bad }' "$tmp/self/compare.csv" && grep -q '^## Quantized points' "$tmp/self/COMPARE.md"
}
check quantized_latency_not_tested quantized_not_tested
rows=$(($(wc -l <"$tmp/self/compare.csv") - 1))
check "self_compares_points ($rows rows)" test "$rows" -ge 50
got=$(flagged "$tmp/self" | wc -l)
check "self_flags_nothing ($got flagged)" test "$got" -eq 0
check self_report_says_none grep -q '^None: no point differs' "$tmp/self/COMPARE.md"
check compare_json_matches_csv json_matches_csv "$tmp/self"
check report_states_method sh -c "grep -q 'Benjamini-Hochberg within each figure' '$tmp/self/COMPARE.md' &&
	grep -q 'default_rng(8)' '$tmp/self/COMPARE.md' && grep -q 'bootstrap' '$tmp/self/COMPARE.md'"

# The first line says whether the recommended counter changed.
check self_first_line_recommendation_unchanged sh -c "head -1 '$tmp/self.log' | grep -q '^plots/compare: Recommendation unchanged: the same counter in all [0-9]* scenarios' &&
	grep -q '^\*\*Recommendation unchanged' '$tmp/self/COMPARE.md'"
copy fast
csvawk -v OFS=, '$col("counter") == "FetchAdd" { $col("ops_per_ms") *= 1000 } { print }' \
	"$tmp/a/dice-fig4-high.csv" >"$tmp/fast/dice-fig4-high.csv"
PYTHON_SCIPY=$py "$compare" "$tmp/a" "$tmp/fast" --out "$tmp/fa" --no-figures >"$tmp/fa.log" 2>&1
check "fetchadd_1000x_first_line_recommendation_changed ($(head -1 "$tmp/fa.log"))" sh -c "head -1 '$tmp/fa.log' | grep -q '^plots/compare: Recommendation changed in [1-9][0-9]* of [0-9]* scenarios\( (provisional: [^)]*)\)\{0,1\}: .* -> FetchAdd'"

# ---- one variant's throughput halved in one figure ------------------------------------
copy half
csvawk -v OFS=, '$col("counter") == "FetchAdd" { $col("ops_per_ms") /= 2 } { print }' \
	"$tmp/a/dice-fig4-high.csv" >"$tmp/half/dice-fig4-high.csv"
PYTHON_SCIPY=$py "$compare" "$tmp/a" "$tmp/half" --out "$tmp/h" >"$tmp/h.log" 2>&1
rc=$?
check "halved_exits_0 (exit $rc)" test $rc -eq 0
got=$(flagged "$tmp/h" | sort -u | tr '\n' ';')
check "halved_flags_exactly_that_variant ($got)" test "$got" = "dice-fig4-high FetchAdd;"
# Power: with the reference's 3 runs per point, both thread counts are found. (The
# fixture's 2 short runs per point leave too little to find a 2x change at every
# point after the correction; there only the line above is checked.)
got=$(flagged "$tmp/h" | wc -l)
want=$(csvawk '$col("figure") == "dice-fig4-high" && $col("counter") == "FetchAdd"' "$tmp/h/compare.csv" | wc -l)
case $src in
*/results-small) ok "halved_every_thread_count_flagged # SKIP the fixture has 2 runs per point" ;;
*) check "halved_every_thread_count_flagged ($got of $want)" test "$got" -eq "$want" ;;
esac
check halved_ratio_one_half csvawk '$col("significant") == "yes" &&
	($col("ratio") < 0.49 || $col("ratio") > 0.51) { bad = 1 } END { exit bad }' "$tmp/h/compare.csv"
check halved_listed_first_in_report sh -c "sed -n '/^## Significant/,/^## Per figure/p' \
	'$tmp/h/COMPARE.md' | grep -q '^| dice-fig4-high | FetchAdd | '"
PYTHON_SCIPY=$py "$compare" "$tmp/a" "$tmp/half" --out "$tmp/h2" --no-figures >/dev/null 2>&1
check deterministic_output cmp -s "$tmp/h/compare.csv" "$tmp/h2/compare.csv"
if "$py" -c 'import matplotlib' 2>/dev/null; then
	check overlay_figures sh -c "for f in dice-fig3 dice-fig4-low dice-fig4-high dice-fig5 baselines; do
		test \"\$(od -An -c -N4 '$tmp/h/'\$f.png | tr -d ' ')\" = 211PNG || exit 1; done"
else
	ok "overlay_figures # SKIP no matplotlib"
fi

# ---- a 20% drop of one point in one CSV, at the reference's 3 runs per point ------
# (the default mode's run count). Deterministic: fixed data, bootstrap seed 8.
# The point is the quietest of dice-fig4-high (the smallest (max - min) /
# median over its runs; chosen here, so the check holds for any reference
# set): a 20% drop there must survive Benjamini-Hochberg over the figure's 24
# points, which needs p below about 0.002. A point as noisy as the figure's
# median is not expected to be found (COMPARE.md's power table: with the
# 2026-11 reference, half the time from -19.4%).
case $src in
*/results-small) ok "drop_20pct_flagged # SKIP the fixture has 2 short runs per point" ;;
*)
	copy drop
	quiet=$("$py" -c 'import csv, sys
runs = {}
for r in csv.DictReader(open(sys.argv[1])):
    runs.setdefault((r["counter"], r["threads"]), []).append(float(r["ops_per_ms"]))
def spread(v):
    v = sorted(v)
    return (v[-1] - v[0]) / v[len(v) // 2]
k = min((k for k in runs if len(runs[k]) >= 3), key=lambda k: (spread(runs[k]), k))
print(k[0], k[1], "%.4f" % spread(runs[k]))' "$tmp/a/dice-fig4-high.csv")
	set -- $quiet
	echo "# quietest point of dice-fig4-high: $1 at $2 threads, spread $3"
	csvawk -v OFS=, -v c="$1" -v t="$2" '$col("counter") == c && $col("threads") == t {
		$col("ops_per_ms") *= 0.8 } { print }' "$tmp/a/dice-fig4-high.csv" >"$tmp/drop/dice-fig4-high.csv"
	PYTHON_SCIPY=$py "$compare" "$tmp/a" "$tmp/drop" --out "$tmp/d" --no-figures >/dev/null 2>&1
	got=$(flagged "$tmp/d" | sort -u | tr '\n' ';')
	check "drop_20pct_flagged ($got)" test "$got" = "dice-fig4-high $1;"
	;;
esac

# ---- mismatched sets: modes, timers, machines, busy runs are stated -----------------
copy other
for m in "$tmp/other"/*.meta.json; do
	sed -e 's/"ns_per_tick": [0-9.]*/"ns_per_tick": 0.4/' -e 's/"host": "[^"]*"/"host": "elsewhere"/' \
		"$m" >"$m.x" && mv "$m.x" "$m"
done
echo 'mode="quick"' >"$tmp/other/run-all.conf"
awk -F, -v OFS=, 'NR == 1 { print $0, "busy"; next } { print $0, (NR == 2) }' "$tmp/a/dice-fig3.csv" \
	>"$tmp/other/dice-fig3.csv"
PYTHON_SCIPY=$py "$compare" "$tmp/a" "$tmp/other" --out "$tmp/o" --no-figures >/dev/null 2>"$tmp/o.err"
rc=$?
check "mismatch_exits_0 (exit $rc)" test $rc -eq 0
for w in 'Different modes' 'Different timers' 'Different machines' 'Busy machine'; do
	check "mismatch_stated: $w" sh -c "grep -q '^- \*\*$w\*\*' '$tmp/o/COMPARE.md' && grep -q 'warning: $w' '$tmp/o.err'"
done
check busy_point_counted has_rows '$col("figure") == "dice-fig3" && $col("busy_b") == 1' "$tmp/o/compare.csv"

# ---- points in only one set: listed, not dropped -----------------------------------------
copy fewer
grep -v '^Serial,' "$tmp/a/dice-fig5.csv" >"$tmp/fewer/dice-fig5.csv"
rm "$tmp/fewer/read-cost.csv" "$tmp/fewer/read-cost.csv.meta.json"
PYTHON_SCIPY=$py "$compare" "$tmp/a" "$tmp/fewer" --out "$tmp/f" --no-figures >"$tmp/f.log" 2>&1
rc=$?
check "fewer_exits_0 (exit $rc)" test $rc -eq 0
only_in_a_listed() {
	has_rows '$col("figure") == "dice-fig5" && $col("counter") == "Serial" && $col("median_b") == "" &&
		$col("test") == "only in A"' "$tmp/f/compare.csv" &&
		has_rows '$col("figure") == "read-cost-ns" && $col("test") == "only in A"' "$tmp/f/compare.csv"
}
check only_in_a_listed_in_csv only_in_a_listed
check only_in_a_listed_in_report sh -c "sed -n '/^## Points in only one set/,/^## Method/p' \
	'$tmp/f/COMPARE.md' | grep -q '^| dice-fig5 | Serial | .* | A |'"
got=$(flagged "$tmp/f" | wc -l)
check "fewer_flags_nothing ($got flagged)" test "$got" -eq 0

# ---- one run in a set: never significant; the summary says what it could not see ------
# B keeps one run per point of dice-fig4-high, Serial's throughput made 10x: a change
# no noise explains, yet one run decides it, so it is never listed as significant;
# the summary line names each figure's power.
copy onerun
"$py" - "$tmp/onerun/dice-fig4-high.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
keep = [r for r in rows if r["run"] == "0"]
for r in keep:
    if r["counter"] == "Serial":
        r["ops_per_ms"] = "%.6g" % (10 * float(r["ops_per_ms"]))
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, list(rows[0].keys()))
    w.writeheader()
    w.writerows(keep)
PYEOF
PYTHON_SCIPY=$py "$compare" "$tmp/a" "$tmp/onerun" --out "$tmp/one" --no-figures >"$tmp/one.log" 2>&1
rc=$?
check "onerun_exits_0 (exit $rc)" test $rc -eq 0
check onerun_never_significant sh -c "$py -c 'import csv, sys
bad = [r for r in csv.DictReader(open(sys.argv[1])) if min(int(r[\"n_a\"] or 0), int(r[\"n_b\"] or 0)) == 1 and r[\"significant\"] == \"yes\"]
one = [r for r in csv.DictReader(open(sys.argv[1])) if r[\"figure\"] == \"dice-fig4-high\" and r[\"counter\"] == \"Serial\" and \"one run in a set\" in r[\"test\"]]
sys.exit(1 if bad or not one else 0)' '$tmp/one/compare.csv'"
check summary_says_what_it_could_not_see sh -c "grep -q '^\*\*.* points with one run in a set (never significant); it could not have seen changes smaller than these (flagged 80% of the time): .*dice-fig4-high [+]' '$tmp/one/COMPARE.md' && grep -q 'could not have seen' '$tmp/one.log'"

# What compare cannot bound is "n/a", never "+nan%" or a percentage of 5 digits or more
# ("+nan%" and "+2366553406948581%" with one run per point); medians carry units.
check onerun_no_nan_or_huge_percentages sh -c "! grep -Eiq 'nan%|inf%|[0-9]{5,}(\.[0-9]*)?%' '$tmp/one/COMPARE.md' '$tmp/one.log'"
check compare_bounds_and_units sh -c "cd '$top/plots' && $py -c '
from compare_report import f_change, f_ratio, f_value
assert f_change(float(\"nan\")) == \"n/a\" and f_change(float(\"inf\")) == \"n/a\", 1
assert f_change(2.366e13) == \"n/a\" and f_change(None) == \"n/a\", 2
assert f_change(1.5) == \"+50.0% / -33.3%\", f_change(1.5)
assert f_ratio(float(\"nan\")) == \"n/a\" and f_ratio(0) == \"n/a\" and f_ratio(2) == \"2x\", 3
assert f_value(1234.5, \"ops_per_ms\") == \"1,234 ops/ms\", f_value(1234.5, \"ops_per_ms\")
assert f_value(12.5, \"read_ns\") == \"12.5 ns\" and f_value(None, \"read_ns\") == \"-\", 4
'"

# ---- two plain scbench CSVs ----------------------------------------------------------
# Two tiny CSVs of scbench itself (3 runs of FetchAdd and Sharded at 1 thread, 20 ms
# each); a point is a measure, a variant, a thread count, work and array size.
SB=${SCBENCH:-$top/harness/scbench}
mkdir "$tmp/p"
for x in a b; do
	"$SB" --counter=FetchAdd,Sharded --threads=1 --runs=3 --warmup=0 --duration=0.02 \
		--summary=off --output="$tmp/p/$x.csv" >/dev/null 2>"$tmp/p/$x.err"
done
if [ -s "$tmp/p/a.csv" ] && [ -s "$tmp/p/b.csv" ]; then
	PYTHON_SCIPY=$py "$compare" "$tmp/p/a.csv" "$tmp/p/b.csv" --out "$tmp/pc" >"$tmp/pc.log" 2>&1
	rc=$?
	check "csvs_exit_0 (exit $rc)" test $rc -eq 0
	check csvs_throughput_points has_rows '$col("figure") == "throughput-w0" && ($col("counter") == "FetchAdd" ||
		$col("counter") == "Sharded") && $col("threads") == 1 && $col("n_a") == 3 && $col("n_b") == 3' "$tmp/pc/compare.csv"
	check "csvs_two_throughput_points ($(csvawk '$col("figure") == "throughput-w0"' "$tmp/pc/compare.csv" | wc -l))" \
		test "$(csvawk '$col("figure") == "throughput-w0"' "$tmp/pc/compare.csv" | wc -l)" -eq 2
	check csvs_compare_json_matches_csv json_matches_csv "$tmp/pc"
	check csvs_report_says_csvs sh -c 'grep -q "^# Comparison of two scbench CSVs" "$1" &&
		grep -q "^- \*\*Points\*\*: a point is one group of rows of the two CSVs" "$1"' _ "$tmp/pc/COMPARE.md"
	if "$py" -c 'import matplotlib' 2>/dev/null; then
		check csvs_overlay_figure sh -c 'test "$(od -An -c -N4 "$1" | tr -d " ")" = 211PNG' _ "$tmp/pc/throughput.png"
	else
		ok "csvs_overlay_figure # SKIP no matplotlib"
	fi
	# Fixed throughputs (the rest of the rows scbench's own): B's FetchAdd at half
	# A's is flagged, and nothing else; B without its meta.json is compared, said so.
	for x in a b; do
		csvawk -v OFS=, -v x=$x 'FNR == 1 { print; next }
			{ v = 1000 + 10 * $col("run"); if (x == "b" && $col("counter") == "FetchAdd") v /= 2
			  $col("ops_per_ms") = v; print }' "$tmp/p/a.csv" >"$tmp/p/fixed-$x.csv"
	done
	cp "$tmp/p/a.csv.meta.json" "$tmp/p/fixed-a.csv.meta.json"
	PYTHON_SCIPY=$py "$compare" "$tmp/p/fixed-a.csv" "$tmp/p/fixed-b.csv" --out "$tmp/pf" --no-figures \
		>"$tmp/pf.log" 2>&1
	got=$(flagged "$tmp/pf" | sort -u | tr '\n' ';')
	check "csvs_halved_flags_exactly_that_variant ($got)" test "$got" = "throughput-w0 FetchAdd;"
	check csvs_no_metadata_said sh -c 'grep -q "^- \*\*No metadata\*\* for B: fixed-b.csv.meta.json missing" "$1/COMPARE.md" &&
		grep -q "warning: No metadata for B" "$2"' _ "$tmp/pf" "$tmp/pf.log"
	PYTHON_SCIPY=$py "$compare" "$tmp/p/fixed-a.csv" "$tmp/p/fixed-a.csv" --out "$tmp/pself" --no-figures >/dev/null 2>&1
	check "csvs_self_flags_nothing ($(flagged "$tmp/pself" | wc -l) flagged)" test "$(flagged "$tmp/pself" | wc -l)" -eq 0
	# compare.json stays UTF-8 whatever the CSV's file name (a byte 0xff in it).
	odd=$(printf 'p\377')
	cp "$tmp/p/a.csv" "$tmp/p/$odd.csv" && cp "$tmp/p/a.csv.meta.json" "$tmp/p/$odd.csv.meta.json"
	PYTHON_SCIPY=$py "$compare" "$tmp/p/$odd.csv" "$tmp/p/b.csv" --out "$tmp/podd" --no-figures >/dev/null 2>&1
	rc=$?
	check "csvs_0xff_name_json_utf8 (exit $rc)" sh -c 'test "$1" -eq 0 && "$2" -c "import sys; open(sys.argv[1], \"rb\").read().decode(\"utf-8\")" "$3/compare.json" &&
		"$2" -c "import sys; open(sys.argv[1], \"rb\").read().decode(\"utf-8\")" "$3/COMPARE.md"' _ $rc "$py" "$tmp/podd"
	# Bad usage: one line, exit 2, nothing written.
	printf 'x,y\n1,2\n' >"$tmp/p/other.csv"
	"$SB" --counter=FetchAdd --threads=1 --runs=1 --warmup=0 --duration=0.01 --summary=off \
		--format=json --output="$tmp/p/rows.json" >/dev/null 2>&1
	for pair in "p/a.csv a" "a p/a.csv" "p/a.csv p/other.csv" "p/other.csv p/a.csv" "p/a.csv p/rows.json" \
		"p/a.csv p/no-such.csv"; do
		set -- $pair
		PYTHON_SCIPY=$py "$compare" "$tmp/$1" "$tmp/$2" --out "$tmp/bad" --no-figures >"$tmp/out" 2>"$tmp/err"
		rc=$?
		check "csvs_bad_usage_exit_2_one_line ($1 $2: exit $rc: $(cat "$tmp/err"))" \
			sh -c 'test "$1" -eq 2 && test "$(wc -l <"$2")" -eq 1 && test ! -s "$3" && test ! -e "$4"' _ $rc "$tmp/err" "$tmp/out" "$tmp/bad"
	done
	check csvs_says_what_is_wrong sh -c 'PYTHON_SCIPY=$1 "$2" "$3/p/a.csv" "$3/p/other.csv" --out "$3/bad" --no-figures 2>&1 |
		grep -q "other.csv: not a CSV file of scbench (no column counter, kind, threads"' _ "$py" "$compare" "$tmp"
else
	skip csvs_compared "scbench ($SB) wrote no CSV: $(head -1 "$tmp/p/a.err")"
fi

# ---- not a result set ------------------------------------------------------------------
mkdir "$tmp/empty"
for d in "$tmp/empty" "$tmp/no-such-dir"; do
	PYTHON_SCIPY=$py "$compare" "$tmp/a" "$d" --out "$tmp/x" --no-figures >"$tmp/out" 2>"$tmp/err"
	rc=$?
	lines=$(wc -l <"$tmp/err")
	check "not_a_result_set_exit_2_one_line ($(basename "$d"): exit $rc, $lines lines: $(cat "$tmp/err"))" \
		sh -c "test $rc -eq 2 && test $lines -eq 1 && test ! -s '$tmp/out'"
done

# ---- the bootstrap shared among CPUs --------------------------------------------------
# bootstrap_all, made to share even this little work among two workers, gives each
# pair the interval one process gives it, in the pairs' order.
check bootstrap_shared_among_cpus_same_intervals "$py" - "$top/plots" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[1])
import numpy
import compare_stats as cs
rng = numpy.random.default_rng(3)
pairs = [(list(rng.lognormal(0, 0.1, 3 + i % 5)), list(rng.lognormal(0.05 * i, 0.1, 4)))
         for i in range(7)]
alone = [cs.bootstrap_ci(numpy, a, b) for a, b in pairs]
cs.PARALLEL_VALUES = 0
shared = cs.bootstrap_all(numpy, pairs)
sys.exit(0 if shared == alone and len(set(alone)) == len(alone) else 1)
PYEOF

tap_done
