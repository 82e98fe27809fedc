#!/bin/sh
# SPDX-License-Identifier: MIT
# test_pedantic.sh - every public header (counters/scounters/*.h), included
# alone in a translation unit, compiles without a diagnostic under
# -Wall -Wextra -Wpedantic -Werror as C11 (the configured C compiler, and
# gcc and clang where present) and as C++17, C++20 and C++23 (the configured
# C++ compiler, and g++ and clang++ where present). A standard a compiler
# does not know is reported as a skip, not hidden. (TAP)
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-.}
build=${TOP_BUILDDIR:-.}
inc="-I$src/counters -I$build/counters"
headers=$(cd "$src/counters/scounters" && ls ./*.h | sed 's|^\./||')
# the compilers: configured first, then the others present, each once
list_compilers() {
	seen=""
	for c in "$@"; do
		[ -n "$c" ] || continue
		p=$(command -v "${c%% *}" 2>/dev/null) || continue
		case " $seen " in *" $p "*) continue ;; esac
		seen="$seen $p"
		echo "$c"
	done
}
CCS=$(list_compilers "${SC_CC:-}" gcc clang)
CXXS=$(list_compilers "${SC_CXX:-}" g++ clang++)
flags="-Wall -Wextra -Wpedantic -Werror -fsyntax-only"
try() { # compiler lang std file
	"$1" -x "$2" -std="$3" $flags $inc "$4" 2>"$tmp/err"
}
std_known() { # compiler lang std
	echo 'int x;' >"$tmp/empty"
	"$1" -x "$2" -std="$3" -fsyntax-only "$tmp/empty" 2>/dev/null
}
for h in $headers; do
	printf '#include <scounters/%s>\nint sc_pedantic_probe(void);\n' "$h" >"$tmp/t.c"
	for cc in $CCS; do
		if try "$cc" c c11 "$tmp/t.c"; then
			ok "$h: $cc -std=c11 -Wpedantic -Werror"
		else
			not_ok "$h: $cc -std=c11 -Wpedantic -Werror: $(head -c 600 "$tmp/err")"
		fi
	done
	for cxx in $CXXS; do
		for std in c++17 c++20 c++23; do
			if ! std_known "$cxx" c++ "$std"; then
				ok "$h: $cxx -std=$std # SKIP the compiler does not know $std"
				continue
			fi
			if try "$cxx" c++ "$std" "$tmp/t.c"; then
				ok "$h: $cxx -std=$std -Wpedantic -Werror"
			else
				not_ok "$h: $cxx -std=$std -Wpedantic -Werror: $(head -c 600 "$tmp/err")"
			fi
		done
	done
done
# C++ before 17: one message naming the standard needed, and it comes first
# (g++ -std=c++14 said "'is_always_lock_free' is not a member").
printf '#include <scounters/scounters.h>\nint sc_pedantic_probe(void);\n' >"$tmp/all.cc"
for cxx in $CXXS; do
	if ! std_known "$cxx" c++ c++14; then
		ok "$cxx -std=c++14: one message # SKIP the compiler does not know c++14"
		continue
	fi
	try "$cxx" c++ c++14 "$tmp/all.cc"
	check "$cxx -std=c++14: refused, first and only error 'need C++17'" sh -c \
		'test "$1" -ne 0 && [ "$(grep -c "error:" "$2")" -eq 1 ] && grep "error:" "$2" | grep -q "need C++17 or later"' \
		_ $? "$tmp/err"
done
tap_done
