#!/bin/sh
# SPDX-License-Identifier: MIT
# test_run_all_dryrun.sh - nothing dropped without a word:
# a requested variant an experiment does not run and a --max-threads above
# the PUs are said in one line each; --dry-run lists per experiment what will
# run, the invocations and the time, and writes nothing; --plan-only says
# how much it planned; --help, --dry-run and the start line give one estimate.
# A fake scbench (tests/fake-scbench.sh) answers --list=json.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

runall_tree || exit 1
export FAKE_LOG=$tmp/log
ra() { (cd "$tmp/w" && SCBENCH=$tmp/fake-scbench "$tmp/run-all.sh" "$@" >"$tmp/out" 2>"$tmp/err"); }
mkdir "$tmp/w"

# --dry-run: per experiment, writes nothing (no result set, no results/).
ra --quick --dry-run --max-threads 2 --experiments=dice-fig4-high,baselines \
	--variants=FetchAdd,Sharded,PerCPU,Batched
check "dry-run: exit 0" test $? -eq 0
check "dry-run: writes nothing" sh -c '[ -z "$(ls -A "$1/w")" ] && [ ! -e "$1/results" ] && [ ! -s "$1/log" ]' _ "$tmp"
check "dry-run: one line per experiment, with invocations and time" sh -c \
	'grep -Eq "^  dice-fig4-high +2 invocations, about [0-9.]+ (s|min) +1 variant at 1,2 threads: FetchAdd$" "$1" &&
	grep -Eq "^  baselines +[0-9]+ invocations, about " "$1" && [ "$(grep -c "^  [a-z]" "$1")" -eq 2 ]' _ "$tmp/out"
check "dry-run: the total counts the figures" grep -Eq '^total: [0-9]+ invocations, about .* of runs, .* of figures and the report\)$' "$tmp/out"
# The variants dice-fig4-high does not run are named, in one line.
check "a dropped variant is said" sh -c '[ "$(grep -c "dice-fig4-high does not run Sharded, PerCPU, Batched (its variants: " "$1")" -eq 1 ]' _ "$tmp/err"

# --max-threads above the PUs: said once, with the counts that will run.
ra --quick --dry-run --max-threads 16384 --experiments=dice-fig4-high --variants=FetchAdd
check "a --max-threads above the PUs is said" grep -q "^run-all.sh: --max-threads=16384: this machine has [0-9]* PUs, so the thread counts are " "$tmp/err"
ra --quick --dry-run --max-threads 1 --experiments=dice-fig4-high --variants=FetchAdd
check "a --max-threads within the PUs: nothing said" sh -c '! grep -q "max-threads" "$1"' _ "$tmp/err"

# --plan-only: says what it planned and how long it will take.
ra --quick --plan-only --max-threads 2 --experiments=dice-fig3 --variants=FetchAdd --out "$tmp/p"
check "plan-only: says the count and the time" grep -Eq '^run-all.sh: planned 2 scbench invocations, about .* nothing run yet: run them with --resume ' "$tmp/err"

# One estimate: --help's quick line, --dry-run's total and the start line agree.
ra --quick --dry-run
dry=$(sed -n 's/^total: [0-9]* invocations, \(about [^ ]* [a-z]*\) .*/\1/p' "$tmp/out")
ra --help
check "help and dry-run give the same estimate ($dry)" grep -q "^  --quick    $dry (" "$tmp/out"
FAKE_FAIL_AT=1 ra --quick --out "$tmp/s"
check "the start line gives it too" grep -q "result set .* ($dry: " "$tmp/err"
# --dry-run with a mode that writes is refused
ra --dry-run --plan-only --out "$tmp/q"
check "dry-run with plan-only: usage error" sh -c 'test "$1" -eq 2 && test ! -e "$2/q"' _ $? "$tmp"
tap_done
