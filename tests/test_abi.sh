#!/bin/sh
# SPDX-License-Identifier: MIT
# test_abi.sh - the library's binary interface (TAP), from the build tree:
#   - libscounters.so exports only the public API: every dynamic symbol it
#     defines is named sc_*, is declared in the public headers (an
#     identifier of the preprocessed <scounters/scounters.h>), and is in
#     the version node SCOUNTERS_1.0; its soname is libscounters.so.N;
#   - the check itself fails on a list holding an internal name;
#   - an application compiled with another SC_LINE_SIZE than the library's
#     does not link (static and shared), naming sc_abi_line_size_<N>, one
#     with the library's own links and runs, and it does not load with a
#     shared library of the other line size put in place of its own;
#   - sc_version(), sc_version_string() and sc_line_size() agree with the
#     header macros;
#   - a program built with SC_COUNTER_NO_INLINE calls the library's
#     exported sc_counter_inc (the inline one reads sc_counter_tls_).
# Needs CC (make check passes it) and nm/readelf; parts whose library kind
# was not built (--disable-shared/--disable-static) are skips.
# SC_TEST_EMULATOR (tests/cross-check.sh) runs the application.
# shellcheck disable=SC2086,SC2154 # $incs and the emulator split into words; tap.sh sets $tmp
. "$(dirname "$0")/tap.sh"
: "${TOP_SRCDIR:=.}"
CC=${CC:-cc}
# The build's CFLAGS (make check passes them): a sanitizer build links its runtime.
cflags=${SC_CFLAGS:-}
so=counters/.libs/libscounters.so
ar=counters/.libs/libscounters.a
incs="-I$TOP_SRCDIR/counters -Icounters"
line=$(sed -n 's/^#define SC_LINE_SIZE \([0-9]*\)$/\1/p' counters/scounters/sc_config.h)
soversion=$(sed -n 's/^SC_SOVERSION = //p' Makefile)

# Every identifier of the public headers, one per line.
$CC -E $incs -D_GNU_SOURCE -x c "$TOP_SRCDIR/counters/scounters/scounters.h" |
	tr -c 'A-Za-z0-9_' '\n' | grep -v '^$' | sort -u >"$tmp/public"

# not_public FILE: the names in FILE that are not public (empty output: all are).
not_public() {
	while read -r s; do
		case $s in
		sc_*) grep -qx "$s" "$tmp/public" || echo "$s" ;;
		*) echo "$s" ;;
		esac
	done <"$1"
}

if [ -f "$so" ] && command -v nm >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1; then
	nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"
	count=$(wc -l <"$tmp/exported")
	bad=$(not_public "$tmp/exported" | tr '\n' ' ')
	check "all $count exported symbols are public API${bad:+ (not public: $bad)}" [ -z "$bad" -a "$count" -gt 0 ]
	printf 'sc_counter_new\nsc_not_in_any_header\ninternal_helper\n' >"$tmp/fake"
	check "the check flags internal names" [ "$(not_public "$tmp/fake" | tr '\n' ' ')" = "sc_not_in_any_header internal_helper " ]
	for s in sc_version sc_version_string sc_line_size sc_counter_new "sc_abi_line_size_$line"; do
		check "$s exported" grep -qx "$s" "$tmp/exported"
	done
	# Every defined dynamic symbol carries the version node.
	readelf --dyn-syms -W "$so" | awk '$7 != "UND" && $8 ~ /^sc_/ { print $8 }' >"$tmp/versioned"
	unversioned=$(grep -vc '@@SCOUNTERS_1\.0$' "$tmp/versioned")
	check "every exported symbol is in SCOUNTERS_1.0 ($unversioned are not)" \
		[ "$unversioned" -eq 0 -a "$(wc -l <"$tmp/versioned")" -eq "$count" ]
	check "soname libscounters.so.$soversion" \
		sh -c "readelf -d '$so' | grep -q 'SONAME.*\\[libscounters\\.so\\.$soversion\\]'"
else
	ok "exports # SKIP no shared library built (or no nm/readelf)"
fi

cat >"$tmp/app.c" <<'APP'
#include <scounters/scounters.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	if (sc_version() != SC_VERSION_NUMBER || strcmp(sc_version_string(), SC_VERSION) != 0 ||
	    sc_line_size() != SC_LINE_SIZE || SC_VERSION_NUMBER !=
	    SC_VERSION_ENCODE(SC_VERSION_MAJOR, SC_VERSION_MINOR, SC_VERSION_PATCH)) {
		printf("mismatch: %ld %s %u\n", sc_version(), sc_version_string(), sc_line_size());
		return 1;
	}
	sc_err err;
	sc_counter *c = sc_counter_new("Sharded", "", &err);
	if (!c)
		return 1;
	sc_counter_inc(c);
	int r = sc_counter_get(c) == 1 ? 0 : 1;
	sc_counter_free(c);
	return r;
}
APP
# The headers as another line size would have made them.
other=128
[ "$line" = 128 ] && other=64
mkdir -p "$tmp/other/scounters"
cp "$TOP_SRCDIR"/counters/scounters/*.h "$tmp/other/scounters/"
sed "s/^#define SC_LINE_SIZE .*/#define SC_LINE_SIZE $other/" counters/scounters/sc_config.h \
	>"$tmp/other/scounters/sc_config.h"
for kind in static shared; do
	lib=$ar
	[ $kind = shared ] && lib=$so
	if [ ! -f "$lib" ]; then
		ok "$kind: line size # SKIP no $kind library built"
		continue
	fi
	if $CC $cflags -std=c11 $incs -o "$tmp/app-$kind" "$tmp/app.c" "$lib" -lm -pthread 2>"$tmp/err"; then
		check "$kind: an application of line size $line links and runs" \
			env LD_LIBRARY_PATH=counters/.libs ${SC_TEST_EMULATOR:-} "$tmp/app-$kind"
	else
		not_ok "$kind: an application of line size $line does not link: $(head -3 "$tmp/err")"
	fi
	# The library's out-of-line sc_counter_inc (a program built without the
	# inline one, or before it was inline), exported as ever.
	if $CC $cflags -std=c11 -DSC_COUNTER_NO_INLINE $incs -o "$tmp/app-ool-$kind" "$tmp/app.c" "$lib" \
		-lm -pthread 2>"$tmp/err"; then
		check "$kind: with SC_COUNTER_NO_INLINE the library's sc_counter_inc links and counts" \
			env LD_LIBRARY_PATH=counters/.libs ${SC_TEST_EMULATOR:-} "$tmp/app-ool-$kind"
	else
		not_ok "$kind: SC_COUNTER_NO_INLINE does not link: $(head -3 "$tmp/err")"
	fi
	if $CC $cflags -std=c11 -I"$tmp/other" -o "$tmp/bad-$kind" "$tmp/app.c" "$lib" -lm -pthread 2>"$tmp/err"; then
		not_ok "$kind: an application of line size $other linked with a library of $line"
	else
		check "$kind: line size $other refused at link time, naming sc_abi_line_size_$other" \
			grep -q "sc_abi_line_size_$other" "$tmp/err"
	fi
done
# Load time: the application of line size $line, linked with the shared
# library, run with a library of line size $other (the same sources, built
# here from the headers above) in its place.
if [ -f "$so" ] && [ -x "$tmp/app-shared" ]; then
	mkdir -p "$tmp/lib-$other"
	if $CC $cflags -std=c11 -D_GNU_SOURCE -shared -fPIC -fvisibility=hidden -I"$tmp/other" -Icounters \
		-o "$tmp/lib-$other/libscounters.so.$soversion" "$TOP_SRCDIR"/counters/*.c \
		-Wl,-soname,"libscounters.so.$soversion" \
		-Wl,--version-script="$TOP_SRCDIR/counters/libscounters.sym" -lm -pthread 2>"$tmp/err"; then
		if env LD_LIBRARY_PATH="$tmp/lib-$other" ${SC_TEST_EMULATOR:-} "$tmp/app-shared" \
			>/dev/null 2>"$tmp/err"; then
			not_ok "shared: an application of line size $line ran with a library of $other"
		else
			check "shared: a library of line size $other refused at load time: $(head -1 "$tmp/err")" \
				grep -q "sc_abi_line_size_$line" "$tmp/err"
		fi
	else
		not_ok "shared: building a library of line size $other: $(head -3 "$tmp/err")"
	fi
else
	ok "shared: load-time check # SKIP no shared library built"
fi
tap_done
