#!/bin/sh
# SPDX-License-Identifier: MIT
# test_tools.sh - every tool a user runs answers --help and --version on
# standard output with status 0, and refuses a conflict (or a bad option,
# where it has no options that can conflict) with one line on standard error
# and status 2.
. "$(dirname "$0")/tap.sh"

top=${TOP_SRCDIR:-.}
SB=${SCBENCH:-$top/harness/scbench}
version=$("$SB" --version | sed -n 's/^scbench \([^ ]*\) .*/\1/p')

# walk NAME TOOL BAD...: TOOL is a command line (word-split), BAD its bad usage.
walk() {
	name=$1
	shift
	tool=$1
	shift
	# shellcheck disable=SC2086
	$tool --help >"$tmp/h.out" 2>"$tmp/h.err"; rc=$?
	check "$name --help: status 0, text on standard output, nothing on standard error" \
		sh -c '[ "$1" -eq 0 ] && [ "$(wc -l <"$2")" -ge 3 ] && [ ! -s "$3" ]' _ "$rc" "$tmp/h.out" "$tmp/h.err"
	# shellcheck disable=SC2086
	$tool -h >"$tmp/h2.out" 2>/dev/null; rc=$?
	check "$name -h: the same as --help" \
		sh -c '[ "$1" -eq 0 ] && cmp -s "$2" "$3"' _ "$rc" "$tmp/h.out" "$tmp/h2.out"
	# shellcheck disable=SC2086
	$tool --version >"$tmp/v.out" 2>"$tmp/v.err"; rc=$?
	check "$name --version: status 0, one line on standard output with version $version" \
		sh -c '[ "$1" -eq 0 ] && [ "$(wc -l <"$2")" -eq 1 ] && grep -q " $3\\b" "$2" && [ ! -s "$4" ]' \
		_ "$rc" "$tmp/v.out" "$version" "$tmp/v.err"
	# shellcheck disable=SC2086
	$tool "$@" >"$tmp/c.out" 2>"$tmp/c.err"; rc=$?
	shown=$(echo "$*" | sed "s|$tmp/||g")
	check "$name $shown: status 2, one line on standard error, nothing on standard output" \
		sh -c '[ "$1" -eq 2 ] && [ "$(wc -l <"$2")" -eq 1 ] && [ ! -s "$3" ]' _ "$rc" "$tmp/c.err" "$tmp/c.out"
}

walk scbench "$SB" --work=100
# run-all.sh checks its options before it installs or builds anything.
SCBENCH=$SB walk run-all.sh "$top/run-all.sh" --quick --paper
check "run-all.sh --quick --paper: says the modes exclude each other" \
	grep -q -- "--quick and --paper" "$tmp/c.err"
SCBENCH=$SB walk "run-all.sh (modes)" "$top/run-all.sh" --paper-errors --paper
walk test.sh "$top/test.sh" --no-such-option
walk deps.sh "$top/deps.sh" --no-such-option
walk plots/regen "$top/plots/regen" "$tmp/a" "$tmp/b"
walk plots/compare "$top/plots/compare" "$tmp/a" "$tmp/b" "$tmp/c"
walk plots/atlas "$top/plots/atlas" --out

# The revision scbench reports (and writes into meta.json) is the tree's at
# build time, not configure's: in a git checkout it names HEAD's commit, as
# harness/revision.sh and the scripts' --version lines do ("-dirty" aside,
# which an edit after the build may change).
if [ -e "$top/.git" ] && head=$(git -C "$top" rev-parse HEAD 2>/dev/null); then
	built=$("$SB" --version | sed -n 's/^scbench [^ ]* (revision \([0-9a-f]*\).*)$/\1/p')
	script=$("$top/run-all.sh" --version | sed -n 's/.*, revision \([0-9a-f]*\).*/\1/p')
	check "scbench's revision ($built) is HEAD's commit, as run-all.sh's ($script)" \
		sh -c '[ -n "$1" ] && [ "${3#"$1"}" != "$3" ] && [ "$1" = "$2" ]' _ "$built" "$script" "$head"
else
	skip "scbench_revision" "not a git checkout"
fi
tap_done
