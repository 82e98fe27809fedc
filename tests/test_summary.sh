#!/bin/sh
# SPDX-License-Identifier: MIT
# test_summary.sh - what scbench shows a person (issue 30, item 1): the
# per-point table on standard error (on a terminal, under script(1), or with
# --summary), never in the CSV; --format=json writes JSON Lines with the
# CSV's columns.
. "$(dirname "$0")/tap.sh"

SB=${SCBENCH:-harness/scbench}
run="--counter=FetchAdd,MorrisAdapt --threads=1,2 --duration=0.02 --warmup=0 --runs=3 --read-cost=off --events=none"

# shellcheck disable=SC2086
"$SB" $run --summary >"$tmp/out.csv" 2>"$tmp/err"
table_ok() {
	grep -q '^counter  *threads  *ops/ms  *ns/inc/thread  *spread  *error$' "$1" &&
	[ "$(grep -c '^FetchAdd  *[12] ' "$1")" -eq 2 ] &&
	[ "$(grep -c '^MorrisAdapt  *[12] ' "$1")" -eq 2 ] &&
	# a precise variant shows no error, a probabilistic one a percentage
	grep '^FetchAdd ' "$1" | awk '$NF != "-" { exit 1 }' &&
	grep '^MorrisAdapt ' "$1" | awk '$NF !~ /%$/ { exit 1 }' &&
	# ns/inc/thread = threads / median ops/ms, in ns; spread a percentage
	awk '$1 == "FetchAdd" && ($4 - $2 * 1e6 / $3 > 0.01 || $4 - $2 * 1e6 / $3 < -0.01 || $5 !~ /%$/) { exit 1 }' "$1"
}
check "--summary: a line per point on standard error" table_ok "$tmp/err"
check "--summary: the CSV holds only the header and a row per run" \
	sh -c '[ "$(wc -l <"$1")" -eq 13 ] && ! grep -q "ops/ms\|ns/inc" "$1"' _ "$tmp/out.csv"

# shellcheck disable=SC2086
"$SB" $run >/dev/null 2>"$tmp/err2"
check "no table when the rows go to standard output and standard error is not a terminal" sh -c '! grep -q "^counter " "$1"' _ "$tmp/err2"
# --output names a file: the table goes to standard error whatever it is
# (issue 36: a log or a pipe got none, as google/benchmark always prints it).
# shellcheck disable=SC2086
"$SB" $run --output="$tmp/file.csv" >"$tmp/out3" 2>"$tmp/err3"
check "--output=FILE, standard error not a terminal: the table by default" table_ok "$tmp/err3"
# shellcheck disable=SC2086
"$SB" $run --output="$tmp/file2.csv" --summary=off 2>"$tmp/err4"
check "--output=FILE --summary=off: no table" sh -c '! grep -q "^counter " "$1"' _ "$tmp/err4"

# On a terminal (script(1) gives the command one): the table by default,
# none with --summary=off.
if command -v script >/dev/null 2>&1; then
	script -qec "$SB $run --output=$tmp/tty.csv" /dev/null >"$tmp/tty" 2>&1 </dev/null
	tr '\r' '\n' <"$tmp/tty" | sed 's/\x1b\[K//g' >"$tmp/tty.lines"
	check "on a terminal: the table by default" table_ok "$tmp/tty.lines"
	script -qec "$SB $run --summary=off --output=$tmp/tty2.csv" /dev/null >"$tmp/tty2" 2>&1 </dev/null
	check "on a terminal: --summary=off, no table" sh -c '! grep -q "^counter " "$1"' _ "$tmp/tty2"
else
	skip "on a terminal: the table by default" "no script(1)"
	skip "on a terminal: --summary=off, no table" "no script(1)"
fi

# --format=json: one object per run, the CSV header's columns as keys, in order.
# shellcheck disable=SC2086
"$SB" $run --latency --output="$tmp/a.csv" 2>/dev/null
# shellcheck disable=SC2086
"$SB" $run --latency --format=json --output="$tmp/a.jsonl" 2>/dev/null
json_same() {
	"$PY" - "$tmp/a.csv" "$tmp/a.jsonl" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
objs = [json.loads(line) for line in open(sys.argv[2])]
assert len(rows) == len(objs) == 12, (len(rows), len(objs))
header = open(sys.argv[1]).readline().strip().split(",")
for r, o in zip(rows, objs):
    assert list(o) == header, (list(o), header)
    for k in ("counter", "kind", "threads", "run", "seed", "params", "mode"):
        assert str(o[k]) == r[k], (k, o[k], r[k])
    for k in header:
        if not isinstance(o[k], str):
            assert (o[k] is None) == (r[k] == ""), (k, o[k], r[k])
PY
}
check "--format=json: JSON Lines, the CSV's columns and values" json_same
check "--format=json: a meta.json beside it" test -s "$tmp/a.jsonl.meta.json"

"$SB" --format=xml >/dev/null 2>"$tmp/e3"; rc=$?
check "--format=xml: one line, status 2" sh -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ]' _ "$rc" "$tmp/e3"
"$SB" --summary=sometimes >/dev/null 2>"$tmp/e4"; rc=$?
check "--summary=sometimes: one line, status 2" sh -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ]' _ "$rc" "$tmp/e4"
tap_done
