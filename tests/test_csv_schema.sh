#!/bin/sh
# SPDX-License-Identifier: MIT
# test_csv_schema.sh - the result CSV's schema is declared once (harness/csv.h,
# CSV_COLUMNS) and everything else follows it, as TAP: plots/csv_schema.json
# is what this scbench's --list=json says, results/README.md's column table
# numbers the same columns with the same types, plots/ holds no range table
# of its own, and plots/resultset.py refuses a value out of its column's
# declared type, range or allowed values.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

"$SCBENCH" --list=json >"$tmp/list.json"
check list_json_exits_0 test $? -eq 0

# The file plots/ reads is scbench's own output, as `make csv-schema` writes it.
"$PY" "$TOP_SRCDIR/plots/schema.py" <"$tmp/list.json" >"$tmp/schema.json"
check generated_schema_is_current sh -c \
	"cmp -s '$tmp/schema.json' '$TOP_SRCDIR/plots/csv_schema.json' ||
	 { echo '# plots/csv_schema.json is stale: make csv-schema'; exit 1; }"

# results/README.md's table: rows 1..N, each column's name and type as declared.
"$PY" - "$tmp/schema.json" "$TOP_SRCDIR/results/README.md" >"$tmp/readme.out" 2>&1 <<'EOF'
import json, re, sys
cols = json.load(open(sys.argv[1]))["columns"]
rows = re.findall(r"^\| (\d+) \| `([a-z0-9_]+)` \| ([^|]+?) \|", open(sys.argv[2]).read(), re.M)
want = [(str(i + 1), c["name"], c["type"]) for i, c in enumerate(cols)]
if rows != want:
    for got, exp in zip(rows + [None] * len(want), want + [None] * len(rows)):
        if got != exp:
            sys.exit("first difference: README %s, schema %s" % (got, exp))
EOF
check readme_table_is_the_schema sh -c "test ! -s '$tmp/readme.out' || { sed 's/^/# /' '$tmp/readme.out'; exit 1; }"

# No copy of the ranges in the Python: a column's range is written as
# "name": (integer?, min, max) only for files that are not the result CSV.
check plots_hold_no_column_ranges sh -c \
	"! grep -nE '\"(threads|work_pct|seed|read_k|ops_per_ms)\": *\\(' \
	   '$TOP_SRCDIR'/plots/*.py '$TOP_SRCDIR'/plots/claims/*.py '$TOP_SRCDIR'/harness/runall/*.py"

# resultset.py checks every value read back against the declaration.
"$SCBENCH" --counter=FetchAdd --threads=1 --ops=1000 --runs=1 --output="$tmp/good.csv" \
	>/dev/null 2>&1
check count_run_exits_0 test $? -eq 0
# bad NAME COLUMN VALUE MESSAGE: good.csv with COLUMN set to VALUE is refused,
# the error naming MESSAGE.
bad() {
	mkdir -p "$tmp/$1"
	"$PY" - "$tmp/good.csv" "$tmp/$1/latency.csv" "$2" "$3" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
rows[1][rows[0].index(sys.argv[3])] = sys.argv[4]
csv.writer(open(sys.argv[2], "w", newline=""), lineterminator="\n").writerows(rows)
EOF
	PYTHONPATH=$TOP_SRCDIR/plots "$PY" -c '
import sys, resultset
try:
    resultset.ResultSet(sys.argv[1]).csv("latency.csv")
except resultset.ResultSetError as e:
    sys.exit(0 if sys.argv[2] in str(e) else "wrong error: %s" % e)
sys.exit("accepted")' "$tmp/$1" "$4" >"$tmp/$1.out" 2>&1
	bad_rc=$?
	check "refuses_$1" sh -c "test $bad_rc -eq 0 && test ! -s '$tmp/$1.out' ||
		{ sed 's/^/# /' '$tmp/$1.out'; exit 1; }"
}
mkdir "$tmp/ok" && cp "$tmp/good.csv" "$tmp/ok/latency.csv"
check accepts_scbench_output env PYTHONPATH="$TOP_SRCDIR/plots" "$PY" -c \
	'import sys, resultset; assert len(resultset.ResultSet(sys.argv[1]).csv("latency.csv")) == 1' \
	"$tmp/ok"
max=$("$PY" -c 'import json, sys; print([c for c in json.load(open(sys.argv[1]))["columns"]
	if c["name"] == "threads"][0]["max"])' "$tmp/schema.json")
bad threads_over_limit threads $((max + 1)) "out of range"
bad threads_not_integer threads 1.5 "not an integer"
bad negative_value value -1 "out of range"
bad work_pct_over_100 work_pct 100.5 "out of range"
bad flag_not_0_or_1 busy 2 "out of range"
bad kind_not_allowed kind exact "is not one of"
bad mode_not_allowed mode fixed "is not one of"
bad not_a_number ops_per_ms fast "not a finite number"
tap_done
