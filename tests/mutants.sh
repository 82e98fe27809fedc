#!/bin/sh
# SPDX-License-Identifier: MIT
#
# tests/mutants.sh BUILDDIR [NAME...] - the conformance suite against
# deliberate defects. Each tests/mutants/NAME.patch (all of them when no
# NAME is given) is applied to a copy of the source tree; the library
# (counters/*.c) and the suite (tests/test_conformance*.c) are compiled
# with one cc command each file, taking the configure output (config.h,
# counters/scounters/sc_config.h) from BUILDDIR, an existing build directory;
# the suite's fast tier runs, stopping at its first failing check
# (SC_CONFORMANCE_STOP=1). A mutant the suite fails is caught:
#
#   PASS: mutant NAME caught by CHECK      (CHECK: the first failing line)
#   FAIL: mutant NAME survived             (a hole in the suite)
#
# then "# PASS: n" and "# FAIL: n" (.ci/tally.sh reads them). The
# unmutated tree runs first and must pass (else every mutant would look
# caught): a failure there is reported as "FAIL: baseline" and counted.
# A patch that no longer applies or builds is a FAIL too. Each run has a
# time limit (MUTANT_TIMEOUT seconds, 300): a mutant that hangs is caught
# by "timeout". Everything happens in a temporary directory, removed at exit.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BUILDDIR [NAME...]" >&2; exit 2; }
build=$(cd "$1" && pwd) || exit 2
shift
for f in config.h counters/scounters/sc_config.h; do
	[ -f "$build/$f" ] || { echo "$0: $build/$f missing (configure there first)" >&2; exit 2; }
done
CC=${CC:-cc}
jobs=${MUTANT_JOBS:-2}
limit=${MUTANT_TIMEOUT:-300}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scmutants.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0

if [ $# -eq 0 ]; then
	set --
	for p in "$src"/tests/mutants/*.patch; do
		n=${p##*/}
		set -- "$@" "${n%.patch}"
	done
fi

# build DIR: the suite against DIR's library, into DIR/suite; 0 on success.
build() {
	d=$1
	mkdir -p "$d/obj"
	cp "$build/config.h" "$d/config.h"
	[ -f "$d/counters/scounters/sc_config.h" ] ||
		cp "$build/counters/scounters/sc_config.h" "$d/counters/scounters/sc_config.h"
	# A file whose preprocessed text is the baseline's is not compiled again
	# (its object is taken from $tmp/cache, named by that text's checksum).
	for f in "$d"/counters/*.c "$d"/tests/test_conformance*.c; do echo "$f"; done |
		xargs -P "$jobs" -I{} sh -c 'o="$2/obj/$(basename "$1" .c).o";
			fl="-std=c11 -O2 -D_GNU_SOURCE -DHAVE_CONFIG_H -I$2 -I$2/counters -I$2/tests";
			k=$($3 $fl -E -P "$1" | sed "s|$2/|/|g" | cksum | tr " " _);
			if [ -f "$4/$k.o" ]; then cp "$4/$k.o" "$o";
			else $3 $fl -c "$1" -o "$o" && cp "$o" "$4/$k.o"; fi' \
			sh {} "$d" "$CC" "$tmp/cache" >"$d/build.log" 2>&1 || return 1
	$CC -o "$d/suite" "$d"/obj/*.o -lm -lpthread -ldl >>"$d/build.log" 2>&1
}

# run DIR: the fast tier, stopping at the first failure; prints the first failing check.
run() {
	SC_TEST_FULL=0 SC_CONFORMANCE_STOP=1 timeout "$limit" "$1/suite" >"$1/run.log" 2>&1
	rc=$?
	if [ $rc -eq 124 ]; then
		echo "timeout"
	elif [ $rc -ne 0 ]; then
		c=$(grep '^not ok' "$1/run.log" | grep -v '# TODO' | head -n 1 | sed 's/^not ok [0-9]* - //')
		echo "${c:-exit status $rc}"
	fi
}

tree() {
	mkdir -p "$1"
	(cd "$src" && git ls-files counters 'tests/test_conformance*.c' \
		tests/conformance.h tests/tap.h tests/testutil.h | tar -cf - -T -) | tar -xf - -C "$1"
}

mkdir -p "$tmp/cache"
tree "$tmp/base"
if ! build "$tmp/base"; then
	tail -20 "$tmp/base/build.log"
	echo "FAIL: baseline does not build"
	echo "# PASS: 0"
	echo "# FAIL: 1"
	exit 1
fi
why=$(run "$tmp/base")
if [ -n "$why" ]; then
	echo "FAIL: baseline fails the suite: $why"
	fail=$((fail + 1))
fi

for name in "$@"; do
	d="$tmp/$name"
	tree "$d"
	# the same path as the baseline's, so that unchanged files preprocess alike
	mv "$tmp/base" "$tmp/base.keep" && mv "$d" "$tmp/base" && d=$tmp/base
	if ! (cd "$d" && patch -s -p1 <"$src/tests/mutants/$name.patch") >"$d/patch.log" 2>&1; then
		echo "FAIL: mutant $name does not apply: $(head -1 "$d/patch.log")"
		fail=$((fail + 1))
	elif ! build "$d"; then
		echo "FAIL: mutant $name does not build: $(grep -m1 error "$d/build.log")"
		fail=$((fail + 1))
	else
		why=$(run "$d")
		if [ -n "$why" ]; then
			echo "PASS: mutant $name caught by $why"
			pass=$((pass + 1))
		else
			echo "FAIL: mutant $name survived"
			fail=$((fail + 1))
		fi
	fi
	rm -rf "$d"
	mv "$tmp/base.keep" "$tmp/base"
done
echo "# PASS: $pass"
echo "# FAIL: $fail"
[ $fail -eq 0 ]
