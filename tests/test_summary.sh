#!/bin/sh
# SPDX-License-Identifier: MIT
# test_summary.sh - what scbench shows a person:
# the per-point table on standard error after the runs (on a terminal, under
# script(1), with --output=FILE or with --summary), never in the CSV, with a
# ratio column against the baseline, mean, stddev, cv and flags, and a closing
# line naming the fastest; --format=json writes JSON Lines with the CSV's
# columns, then one aggregate object per point. The rules themselves (flags,
# default baseline) are tests/test_summary_rule.c's.
. "$(dirname "$0")/tap.sh"

SB=${SCBENCH:-harness/scbench}
run="--counter=FetchAdd,MorrisAdapt --threads=1,2 --duration=0.02 --warmup=0 --runs=3 --read-cost=off --events=none"

# shellcheck disable=SC2086
"$SB" $run --summary >"$tmp/out.csv" 2>"$tmp/err"
# columns: 1 counter, 2 threads, 3 ops/ms, 4 ns/inc/thread, 5 x BASE, 6 mean,
# 7 stddev, 8 cv, 9 spread, 10 error, 11 flags (the header's "x BASE" is two words)
table_ok() {
	grep -q '^counter  *threads  *ops/ms  *ns/inc/thread  *x [A-Za-z-]*  *mean  *stddev  *cv  *spread  *error  *flags$' "$1" &&
	[ "$(grep -c '^FetchAdd  *[12] ' "$1")" -eq 2 ] &&
	[ "$(grep -c '^MorrisAdapt  *[12] ' "$1")" -eq 2 ] &&
	# a precise variant shows no error, a probabilistic one a percentage
	grep '^FetchAdd  *[0-9]' "$1" | awk '$10 != "-" { exit 1 }' &&
	grep '^MorrisAdapt  *[0-9]' "$1" | awk '$10 !~ /%$/ { exit 1 }' &&
	# ns/inc/thread = threads / median ops/ms, in ns; cv and spread percentages;
	# flags from b, t, o or -
	awk '$1 == "FetchAdd" && $2 ~ /^[0-9]+$/ && ($4 - $2 * 1e6 / $3 > 0.01 || $4 - $2 * 1e6 / $3 < -0.01 ||
	     $8 !~ /%$/ || $9 !~ /%$/ || $11 !~ /^(-|b?t?o?)$/) { exit 1 }' "$1" &&
	# FetchAdd is the only precise counter: the baseline, its ratio 1.00
	grep -q ' x FetchAdd ' "$1" && awk '$1 == "FetchAdd" && $2 ~ /^[0-9]+$/ && $5 != "1.00" { exit 1 }' "$1" &&
	# the closing line names the fastest at 2 threads against FetchAdd
	grep -Eq '^(MorrisAdapt ran [0-9.]+x faster than FetchAdd|FetchAdd \(the baseline\) ran fastest) at 2 threads$' "$1"
}
check "--summary: a line per point on standard error" table_ok "$tmp/err"
check "--summary: the CSV holds only the header and a row per run" \
	sh -c '[ "$(wc -l <"$1")" -eq 13 ] && ! grep -q "ops/ms\|ns/inc" "$1"' _ "$tmp/out.csv"

# shellcheck disable=SC2086
"$SB" $run >/dev/null 2>"$tmp/err2"
check "no table when the rows go to standard output and standard error is not a terminal" sh -c '! grep -q "^counter " "$1"' _ "$tmp/err2"
# --output names a file: the table goes to standard error whatever it is
# (a log or a pipe got none, as google/benchmark always prints it).
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
aggs = [o for o in objs if "aggregate" in o]
objs = [o for o in objs if "aggregate" not in o]
assert len(rows) == len(objs) == 12, (len(rows), len(objs))
# one aggregate per point, after every run's row, FetchAdd the baseline
assert [(a["counter"], a["threads"]) for a in aggs] == [
    ("FetchAdd", 1), ("FetchAdd", 2), ("MorrisAdapt", 1), ("MorrisAdapt", 2)], aggs
for a in aggs:
    assert a["aggregate"] == "point" and a["runs"] == 3 and a["baseline"] == "FetchAdd", a
    ops = sorted(float(r["ops_per_ms"]) for r in objs
                 if r["counter"] == a["counter"] and int(r["threads"]) == a["threads"])
    mean = sum(ops) / 3
    # the rows' ops_per_ms carry 6 significant digits: within 5e-6 of the aggregate's
    assert abs(a["median_ops_per_ms"] - ops[1]) <= 1e-5 * ops[1], (a, ops)
    assert abs(a["mean_ops_per_ms"] - mean) <= 1e-5 * mean, (a, ops)
    sd = (sum((x - mean) ** 2 for x in ops) / 2) ** 0.5
    assert abs(a["stddev_ops_per_ms"] - sd) <= 1e-5 * mean and abs(a["cv"] - sd / mean) < 1e-5, a
    assert set(a["flags"]) <= set("bto"), a
    if a["counter"] == "FetchAdd":
        assert a["ratio"] == 1, a
assert open(sys.argv[2]).read().splitlines()[-1].startswith('{"aggregate"')
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
check "--format=json: JSON Lines, the CSV's columns and values, then the aggregates" json_same
check "--format=json: a meta.json beside it" test -s "$tmp/a.jsonl.meta.json"

# --baseline=NAME: the ratio column against it; a counter not run, or not a
# counter, is a usage error (one line, status 2).
# shellcheck disable=SC2086
"$SB" $run --baseline=MorrisAdapt --output="$tmp/b.csv" 2>"$tmp/eb"
check "--baseline=MorrisAdapt: the column x MorrisAdapt, its own ratio 1.00" sh -c '
	grep -q " x MorrisAdapt " "$1" && awk "\$1 == \"MorrisAdapt\" && \$2 ~ /^[0-9]+\$/ && \$5 != \"1.00\" { exit 1 }" "$1" &&
	grep -Eq "(than MorrisAdapt|MorrisAdapt \(the baseline\) ran fastest) at 2 threads\$" "$1"' _ "$tmp/eb"
for b in Sharded nonesuch; do
	# shellcheck disable=SC2086
	"$SB" $run --baseline=$b >/dev/null 2>"$tmp/eb2"; rc=$?
	check "--baseline=$b: one line, status 2" sh -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] &&
		grep -q "^scbench: --baseline=$3: " "$2"' _ "$rc" "$tmp/eb2" "$b"
done
"$SB" --format=xml >/dev/null 2>"$tmp/e3"; rc=$?
check "--format=xml: one line, status 2" sh -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ]' _ "$rc" "$tmp/e3"
"$SB" --summary=sometimes >/dev/null 2>"$tmp/e4"; rc=$?
check "--summary=sometimes: one line, status 2" sh -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ]' _ "$rc" "$tmp/e4"
tap_done
