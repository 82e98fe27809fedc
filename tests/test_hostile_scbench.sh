#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_hostile_scbench.sh - hostile inputs and conditions for scbench, and
# CI's own tally, as TAP: strict parsing of options and parameters (decimal
# only), messages that name the bound or the variable at fault, output
# problems seen before the runs (a meta path that is a directory, names too
# long), a replaced file keeps its mode, a device or another user's file in
# a sticky directory as output, write errors of --list and --help, a closed
# pipe ends every tool quietly, signals during start-up; .ci/run's reading
# of each stage's summary. The hostile inputs of run-all.sh and the plots
# are tests/test_hostile.sh. Everything in a mktemp -d directory.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

# --- CI's own tally ---------------------------------------------------------------
# .ci/run reads each stage's "# PASS: n" / "# FAIL: n" through ci_counts:
# a carriage return (a VM's serial console) is dropped, anything but a plain
# count is no summary (status 1: .ci/run then counts the stage failed).
# shellcheck source=.ci/tally.sh
. "$TOP_SRCDIR/.ci/tally.sh"
counts_of() { printf "$1" >"$tmp/summary"; ci_counts "$tmp/summary"; }
check tally_plain test "$(counts_of '# TOTAL: 5\n# PASS:  354\n# FAIL: 0\n')" = "354 0"
check tally_carriage_return test "$(counts_of '# PASS: 354\r\n# FAIL: 2\r\n')" = "354 2"
check tally_leading_zero test "$(counts_of '# PASS: 08\n# FAIL: 09\n')" = "8 9"
for bad in '# PASS: 3\n' '# PASS: 3x\n# FAIL: 0\n' '# PASS: \n# FAIL: 0\n' \
	'# PASS: 12345678901\n# FAIL: 0\n' '# PASS: -1\n# FAIL: 0\n' '# PASS: 1+1\n# FAIL: 0\n' ''; do
	check "tally_refuses_$(printf '%s' "$bad" | tr -c 'A-Za-z0-9' _)" bash -c "! (. '$TOP_SRCDIR/.ci/tally.sh'; printf '$bad' >'$tmp/summary'; ci_counts '$tmp/summary')"
done
check tally_unreadable_log bash -c "! (. '$TOP_SRCDIR/.ci/tally.sh'; ci_counts '$tmp/no-such-log')"
check ci_run_uses_tally sh -c "grep -q '^\. \"\$top/.ci/tally.sh\"' '$TOP_SRCDIR/.ci/run' && grep -q 'counted as a failure' '$TOP_SRCDIR/.ci/run'"

# --- scbench -----------------------------------------------------------------
sc() { "$SCBENCH" "$@" >"$tmp/out" 2>"$tmp/err"; }
short="--counter=Serial --threads=1 --duration=0.01 --warmup=0 --runs=1 --read-cost=off"
# 8. Parsing as strict as documented; 10. messages.
for bad in --duration=0x10 --work=0x1p4 "--seed=	-1" "--seed= 1" "--runs= 2" --duration=inf \
	"--param=threshold= 4" --threads=2,2 --threads=1-3,2; do
	sc "$bad"
	check "usage_error_$bad" sh -c "test $? -eq 2 && grep -q -- '$bad' '$tmp/err'"
done
# A parameter is decimal too (the library's readers; --help says so).
for bad in Morris:accuracy=0x1p0 Batched:batch=0x10 Morris:accuracy=+2; do
	sc --counter="${bad%%:*}" --param="${bad#*:}" --ops=10 --runs=1
	check "param_not_decimal_${bad#*:}" sh -c "test $? -eq 2 && grep -q '${bad#*:} is invalid: expected a decimal' '$tmp/err'"
done
# Messages: --ops past its bound names it; an unknown
# SCOUNTERS_NODE is said once.
sc --counter=CAS --ops=1125899906842624
check ops_bound_named sh -c "test $? -eq 2 && grep -q 'expected an integer in \[1, 1125899906842623\]' '$tmp/err'"
SCOUNTERS_NODE=bogus sc --counter=CAS --ops=10 --runs=2 --output="$tmp/node.csv"
check node_env_unknown_warned_once sh -c "test $? -eq 0 && test \$(grep -c 'SCOUNTERS_NODE=bogus is not rseq, getcpu or fixed' '$tmp/err') -eq 1"
SCOUNTERS_NODE=fixed sc --counter=CAS --ops=10 --runs=1 --output="$tmp/node.csv"
check node_env_known_silent sh -c "test $? -eq 0 && ! grep -q SCOUNTERS_NODE '$tmp/err'"
sc --work=-0 $short
rc=$?
check minus_zero_work_is_zero sh -c "test $rc -eq 0 && test '$(csvcut work_pct "$tmp/out" 2>/dev/null | sed -n 2p)' = 0.0000"
sc -x
check dash_x_unknown sh -c "test $? -eq 2 && grep -q 'scbench: -x: unknown option' '$tmp/err'"
# 4. Output problems seen before the runs: a meta path that is a directory, a
# name too long for the meta's (or the histograms') temporary file. Nothing
# is written.
mkdir -p "$tmp/o/d.csv.meta.json"
sc $short --output="$tmp/o/d.csv"
check meta_dir_refused_before_runs sh -c "test $? -eq 2 && test ! -e '$tmp/o/d.csv' && grep -q 'is a directory' '$tmp/err'"
long=$(printf 'a%.0s' $(seq 240))
sc $short --output="$tmp/o/$long.csv"
check long_name_refused_before_runs sh -c "test $? -eq 2 && test ! -e '$tmp/o/$long.csv' && grep -q 'name too long' '$tmp/err'"
sc $short --latency --output="$tmp/o/$(printf 'b%.0s' $(seq 230)).csv"
check long_latency_name_refused sh -c "test $? -eq 2 && grep -q 'latency.csv.tmp' '$tmp/err'"
# 7. A replaced file keeps its mode.
echo old >"$tmp/o/m.csv" && chmod 640 "$tmp/o/m.csv"
sc $short --output="$tmp/o/m.csv"
check replaced_csv_keeps_mode sh -c "test $? -eq 0 && test \$(stat -c %a '$tmp/o/m.csv') = 640"
# A device as --output is written in place, with no sidecar
# beside it (as root, --output=/dev/null made /dev/null.meta.json): a null
# device made in $tmp (mknod: root only); nothing under /dev is touched.
if mknod "$tmp/o/null" c 1 3 2>/dev/null; then
	sc $short --latency --output="$tmp/o/null"
	check device_output_no_sidecar sh -c "test $? -eq 0 && test ! -e '$tmp/o/null.meta.json' &&
		test ! -e '$tmp/o/null.latency.csv' && grep -q 'null is a device: no sidecar' '$tmp/err'"
else
	skip device_output_no_sidecar "mknod needs root"
fi
# Another user's file in a sticky directory cannot be replaced:
# refused before the runs (usage, 2), not found after them. scbench runs as
# nobody (setpriv: root only), $tmp opened to it for the test.
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip sticky_output_refused_before_runs "needs root and setpriv"
elif ! as_nobody "$SCBENCH" --version >/dev/null 2>&1; then
	# (tests/cross-check.sh's scbench is a wrapper in a directory of root's)
	skip sticky_output_refused_before_runs "nobody cannot run $SCBENCH here"
else
	chmod 711 "$tmp" && mkdir -m 1777 "$tmp/sticky" && echo keep >"$tmp/sticky/x.csv"
	as_nobody "$SCBENCH" $short --runs=3 \
		--output="$tmp/sticky/x.csv" >/dev/null 2>"$tmp/err"
	check sticky_output_refused_before_runs sh -c "test $? -eq 2 && grep -qx keep '$tmp/sticky/x.csv' &&
		grep -q \"another user's file in the sticky directory\" '$tmp/err'"
	chmod 700 "$tmp"
fi
# 9. --list and --help fail on a write error: a full file, a closed pipe.
# (--list=json said nothing.)
for opt in --list --help --list=json; do
	# Standard error a pipe: the file size limit would stop the message too.
	msg=$(sh -c "ulimit -f 0; exec '$SCBENCH' $opt >'$tmp/o/full'" 2>&1)
	check "write_error_${opt#--}_file_size" sh -c "test $? -eq 1 && echo '$msg' | grep -q 'cannot write'"
	# A pipe whose read end is closed before scbench starts: EPIPE, every time.
	"$PY" -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=w))' "$SCBENCH" $opt 2>"$tmp/err"
	# a closed pipe is a quiet end (| head), with 141 as SIGPIPE's default gives
	check "write_error_${opt#--}_closed_pipe_quiet_141" sh -c "test $? -eq 141 && test ! -s '$tmp/err'"
done
# Every Python tool ends quietly too when its reader goes away (| head).
for tool in plots/compare plots/atlas plots/report.py; do
	"$PY" -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
sys.exit(subprocess.call(sys.argv[1:], stdout=w))' "$TOP_SRCDIR/$tool" --help 2>"$tmp/err"
	st=$?
	check "closed_pipe_quiet_${tool#plots/}" sh -c "test $st -eq 141 -o $st -eq 0 && test ! -s '$tmp/err'"
done
# 6. A signal during start-up (hwloc loading a synthetic 100000-PU topology,
# minutes of work) ends scbench at once with 128 + signal. Without hwloc
# there is no such slow start-up to interrupt: --list is done before the
# signal comes.
if ! scbench_has_hwloc; then
	skip signal_during_startup_honoured "built without hwloc (no synthetic topology to load)"
else
	HWLOC_SYNTHETIC=pu:100000 "$SCBENCH" --list >"$tmp/o/l" 2>"$tmp/err" &
	pid=$!
	sleep 2
	kill -TERM "$pid"
	# A watchdog, so that a deaf scbench fails the test instead of hanging it.
	(sleep 20; kill -KILL "$pid" 2>"$tmp/dog.err") &
	dog=$!
	wait "$pid"
	st=$?
	kill "$dog" 2>"$tmp/dog.err"
	# 143: ended by SIGTERM (by its handler, which says so, or, on a host so
	# loaded that scbench had not yet started, by the default action); a deaf
	# scbench is killed by the watchdog: 137.
	check signal_during_startup_honoured test "$st" -eq 143
fi
tap_done
