#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_gnu_options.sh - every tool reads its options as GNU getopt_long does,
# as TAP: scbench, run-all.sh, plots/compare and plots/atlas accept a unique
# prefix of a long option (--dur for --duration), name the possibilities of
# an ambiguous one, call an unknown short option unknown, refuse a value given
# to an option that takes none and a missing value, each with status 2 and the
# same words; run-all.sh --dry-run says that it builds scbench first where
# scbench is not built; run-all.sh --help in a bundle promises no build.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
top=$TOP_SRCDIR

# status WANT CMD...: CMD's status is WANT; its standard error in $tmp/err.
status() { want=$1; shift; "$@" >"$tmp/out" 2>"$tmp/err"; test $? -eq "$want"; }
# refused LINE CMD...: CMD's status is 2 and LINE is its standard error.
refused() {
	line=$1
	shift
	"$@" >/dev/null 2>"$tmp/err"
	test $? -eq 2 && test "$(cat "$tmp/err")" = "$line" || { sed 's/^/# /' "$tmp/err"; false; }
}

# scbench: a unique prefix is its option, an ambiguous one names both.
check scbench_unique_prefix status 0 "$SCBENCH" --counter=FetchAdd --thr=1 --dur=0.01 --warm=0 --ru=1 \
	--read=off --ev=none --summ=off --out="$tmp/s.csv"
check scbench_ambiguous_named refused "scbench: --count: ambiguous option; possibilities: --counter --counters" "$SCBENCH" --count=FetchAdd
check scbench_short_unknown refused "scbench: -o: unknown option; see scbench --help" "$SCBENCH" -o x
check scbench_value_refused refused "scbench: --force: takes no value; see scbench --help" "$SCBENCH" --forc=1
check scbench_value_missing refused "scbench: --output: needs a value; see scbench --help" "$SCBENCH" --output
check scbench_unknown_long refused "scbench: --exp: unknown option; see scbench --help" "$SCBENCH" --exp=1

# run-all.sh: the options are read before anything is installed or built.
runall_tree || { not_ok runall_tree; tap_done; exit; }
ra() { (cd "$tmp" && SCBENCH=$tmp/fake-scbench "$tmp/run-all.sh" "$@"); }
check runall_unique_prefix status 0 ra --dry --quick --max-thr=2 --exp=latency
check runall_prefix_listed grep -q latency "$tmp/out"
check runall_ambiguous_named refused "run-all.sh: --s: ambiguous option; possibilities: --shard --slurm --slurm-merge --slurm-tasks (see --help)" ra --s
check runall_short_unknown refused "run-all.sh: -o: unknown option (see --help)" ra -o x
check runall_value_refused refused "run-all.sh: --quick: takes no value (see --help)" ra --quick=1
check runall_value_missing refused "run-all.sh: --out: needs a value (see --help)" ra --out
check runall_empty_value_refused refused "run-all.sh: --experiments is empty: name at least one, or leave the option out for all" ra --exp=
check runall_prefix_twice refused "run-all.sh: --experiments given twice: give it once" ra --exp=latency --experiments=latency

# --dry-run where scbench is not built: said before the build (the check stage
# alone runs here: nothing is built by this test).
(cd "$tmp" && env -u SCBENCH -u SCBENCH_GIVEN RUNALL_STAGE=check RUNALL_TOP=$tmp PYTHONPATH=$tmp/harness \
	"$PY" -m runall --dry-run \
	>"$tmp/out" 2>"$tmp/err")
check dryrun_says_it_builds grep -q '^run-all.sh: --dry-run: scbench is not built yet, .* it is built first' "$tmp/err"
(cd "$tmp" && RUNALL_STAGE=check RUNALL_TOP=$tmp PYTHONPATH=$tmp/harness SCBENCH_GIVEN=yes \
	SCBENCH=$tmp/none "$PY" -m runall --dry-run >"$tmp/out" 2>"$tmp/err")
check dryrun_given_scbench_never_built test ! -s "$tmp/err"

# The help of a bundle (harness/BUNDLE marks it) promises no build.
: >"$tmp/harness/BUNDLE"
ra --help >"$tmp/help" 2>&1
check bundle_help_no_build sh -c "grep -q 'nothing to build: this bundle' '$tmp/help' && ! grep -q 'to build scbench' '$tmp/help'"
rm "$tmp/harness/BUNDLE"
ra --help >"$tmp/help" 2>&1
check tree_help_says_build grep -q 'to build scbench the first time' "$tmp/help"

# harness/bundle.sh's own help: what it makes, on standard output.
check bundle_sh_help sh -c "sh '$top/harness/bundle.sh' --help >'$tmp/out' 2>&1 &&
	grep -q '^harness/bundle.sh SRCDIR SCBENCH NAME VERSION - write NAME.tar.gz' '$tmp/out'"

# plots/compare and plots/atlas (their --help and --version need no scipy).
for tool in compare atlas; do
	t=$top/plots/$tool
	check "${tool}_unique_prefix" sh -c "'$t' --vers >'$tmp/out' 2>'$tmp/err' && grep -q '^plots/$tool' '$tmp/out'"
	check "${tool}_short_unknown" refused "plots/$tool: -o: unknown option (see --help)" "$t" -o x y
	check "${tool}_prefix_value_refused" refused "plots/$tool: --no-figures: takes no value (see --help)" \
		"$t" --n=1 x y
	check "${tool}_value_missing" refused "plots/$tool: --out: needs a value (see --help)" "$t" x y --out
done
tap_done
