#!/bin/sh
# SPDX-License-Identifier: MIT
# test_header_warnings.sh - a consumer that includes <scounters/scounters.h>
# and <scounters/scounters.hpp> (tests/test_cxx_header.cc,
# tests/embed_inline.cc) compiles without a diagnostic under
# -Wold-style-cast -Wcast-qual (and g++'s -Wuseless-cast) -Werror with g++
# and clang++ as C++17, C++20 and C++23, and a C consumer
# (tests/embed_inline.c, tests/embed_handle.c) under -Wcast-qual -Werror
# with gcc and clang as C11. The headers silence those warnings only
# between their own SC_API_BEGIN and SC_API_END (sc_abi.h): the consumer's
# own old-style cast after the includes still warns. A compiler or standard
# that is missing is reported as a skip. TAP.
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-.}
build=${TOP_BUILDDIR:-.}
inc="-I$src/counters -I$build/counters"
base="-Wall -Wextra -Wold-style-cast -Wcast-qual -Werror -fsyntax-only"
printf 'int probe;\n' >"$tmp/probe.cc"
printf '#include <scounters/scounters.h>\n#include <scounters/scounters.hpp>\nlong own(int x) { return (long)x; }\n' >"$tmp/own.cc"
for cxx in g++ clang++; do
	if ! command -v "$cxx" >/dev/null 2>&1; then
		skip "$cxx" "not installed"
		continue
	fi
	flags=$base
	[ "$cxx" = g++ ] && flags="$flags -Wuseless-cast"
	for std in c++17 c++20 c++23; do
		if ! "$cxx" -x c++ -std="$std" -fsyntax-only "$tmp/probe.cc" 2>/dev/null; then
			skip "$cxx -std=$std" "the compiler lacks it"
			continue
		fi
		for f in tests/test_cxx_header.cc tests/embed_inline.cc; do
			if "$cxx" -x c++ -std="$std" $flags $inc "$src/$f" 2>"$tmp/err"; then
				ok "$f: $cxx -std=$std $flags"
			else
				not_ok "$f: $cxx -std=$std: $(head -c 600 "$tmp/err")"
			fi
		done
	done
	"$cxx" -x c++ -std=c++17 $flags $inc "$tmp/own.cc" 2>"$tmp/err"
	check "$cxx: the consumer's own old-style cast still warns" grep -q "old-style" "$tmp/err"
done
for cc in gcc clang; do
	if ! command -v "$cc" >/dev/null 2>&1; then
		skip "$cc" "not installed"
		continue
	fi
	for f in tests/embed_inline.c tests/embed_handle.c; do
		if "$cc" -x c -std=c11 -Wall -Wextra -Wcast-qual -Werror -fsyntax-only $inc "$src/$f" 2>"$tmp/err"; then
			ok "$f: $cc -std=c11 -Wcast-qual -Werror"
		else
			not_ok "$f: $cc -std=c11: $(head -c 600 "$tmp/err")"
		fi
	done
done
tap_done
