#!/bin/sh
# SPDX-License-Identifier: MIT
# test_pedantic.sh - every public header (counters/scounters/*.h), included
# alone in a translation unit, compiles without a diagnostic under
# -Wall -Wextra -Wpedantic -Werror as C11 (the configured C compiler, and
# gcc and clang where present) and as C++17, C++20 and C++23 (the configured
# C++ compiler, and g++ and clang++ where present). A standard a compiler
# does not know is reported as a skip, not hidden. (TAP)
# make check compiles each header alone with the first C compiler (C11) and
# the first C++ compiler (C++17), where a header that leans on another's
# includes fails, and all headers in one translation unit under every
# compiler and standard, where every warning still shows (2 compilations a
# header instead of 8). SC_TEST_FULL=1 (make check-full; CI runs this test
# so) compiles every header alone under all of them.
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
# compile NAME FILE CCS CXXS CXXSTDS: FILE as C11 under each of CCS and as C++
# under each of CXXS and CXXSTDS, one TAP line each, named NAME.
compile() {
	for cc in $3; do
		if try "$cc" c c11 "$2"; then
			ok "$1: $cc -std=c11 -Wpedantic -Werror"
		else
			not_ok "$1: $cc -std=c11 -Wpedantic -Werror: $(head -c 600 "$tmp/err")"
		fi
	done
	for cxx in $4; do
		for std in $5; do
			if ! std_known "$cxx" c++ "$std"; then
				ok "$1: $cxx -std=$std # SKIP the compiler does not know $std"
				continue
			fi
			if try "$cxx" c++ "$std" "$2"; then
				ok "$1: $cxx -std=$std -Wpedantic -Werror"
			else
				not_ok "$1: $cxx -std=$std -Wpedantic -Werror: $(head -c 600 "$tmp/err")"
			fi
		done
	done
}
if [ "${SC_TEST_FULL:-0}" = 1 ]; then
	alone_cc=$CCS alone_cxx=$CXXS alone_std="c++17 c++20 c++23"
else
	alone_cc=$(echo "$CCS" | head -n 1) alone_cxx=$(echo "$CXXS" | head -n 1) alone_std=c++17
fi
: >"$tmp/every.c"
for h in $headers; do
	printf '#include <scounters/%s>\nint sc_pedantic_probe(void);\n' "$h" >"$tmp/t.c"
	# one architecture's sequences at a time: sc_rseq.h includes the one built for
	grep -q 'define SC_RSEQ_ARCH_' "$src/counters/scounters/$h" ||
		printf '#include <scounters/%s>\n' "$h" >>"$tmp/every.c"
	compile "$h" "$tmp/t.c" "$alone_cc" "$alone_cxx" "$alone_std"
done
if [ "${SC_TEST_FULL:-0}" != 1 ]; then
	echo 'int sc_pedantic_probe(void);' >>"$tmp/every.c"
	compile "every header in one unit" "$tmp/every.c" "$CCS" "$CXXS" "c++17 c++20 c++23"
fi
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
