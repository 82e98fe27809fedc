#!/bin/sh
# SPDX-License-Identifier: MIT
# test_hpp.sh - counters/scounters/scounters.hpp and its example
# (tests/test_cxx_header.cc) compile without a diagnostic under -Wall
# -Wextra -pedantic -Wconversion -Werror with g++ and clang++ (where
# present) as C++17 and C++20, and the header refuses C++14 with its
# #error. A compiler or standard that is missing is reported as a skip.
# (TAP; make check also builds and runs the example: tests/test_cxx_header.)
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-.}
build=${TOP_BUILDDIR:-.}
inc="-I$src/counters -I$build/counters"
flags="-Wall -Wextra -pedantic -Wconversion -Werror -fsyntax-only"
for cxx in g++ clang++; do
	if ! command -v "$cxx" >/dev/null 2>&1; then
		ok "$cxx # SKIP not installed"
		continue
	fi
	for std in c++17 c++20; do
		if "$cxx" -x c++ -std="$std" $flags $inc "$src/tests/test_cxx_header.cc" 2>"$tmp/err"; then
			ok "scounters.hpp: $cxx -std=$std $flags"
		else
			not_ok "scounters.hpp: $cxx -std=$std: $(head -c 600 "$tmp/err")"
		fi
	done
	printf '#include <scounters/scounters.hpp>\n' >"$tmp/old.cc"
	if "$cxx" -x c++ -std=c++14 -fsyntax-only $inc "$tmp/old.cc" 2>"$tmp/err"; then
		not_ok "scounters.hpp: $cxx -std=c++14 compiled (the #error should refuse it)"
	else
		check "scounters.hpp: $cxx -std=c++14 refused by its #error" grep -q "C++17 or later" "$tmp/err"
	fi
done
tap_done
