#!/bin/sh
# SPDX-License-Identifier: MIT
# test_pic_static.sh - libscounters.a is position-independent:
# tests/unload_plugin.c linked with the static library into a shared
# object (as a plugin or a CMake MODULE library would link it, with
# -z nodelete since the library is then inside the plugin:
# doc/embedding.md "Plugins and unloading"), then loaded, counted through
# from 9 threads, closed and loaded again 1,100 times by tests/test_unload.
# Before configure's LT_INIT([pic-only]) the link failed ("relocation
# R_X86_64_32S ... can not be used when making a shared object").
# A skip where the static library or the host was not built.
# SC_TEST_EMULATOR (tests/cross-check.sh) runs the host.
# shellcheck disable=SC2086 # $incs, $cflags and the emulator split into words
. "$(dirname "$0")/tap.sh"
: "${TOP_SRCDIR:=.}"
CC=${CC:-cc}
cflags=${SC_CFLAGS:-}
ar=counters/.libs/libscounters.a
incs="-I$TOP_SRCDIR/counters -Icounters"
libs=$(sed -n 's/^LIBS = //p' Makefile)

if [ ! -f "$ar" ] || [ ! -x tests/test_unload ]; then
	skip "libscounters.a linked into a shared object" "no static library or no tests/test_unload"
	tap_done
	exit
fi
if $CC $cflags -std=c11 -D_GNU_SOURCE $incs -fPIC -shared -Wl,-z,nodelete \
	"$TOP_SRCDIR/tests/unload_plugin.c" -o "$tmp/libscpic.so" "$ar" $libs -pthread \
	2>"$tmp/err"; then
	ok "libscounters.a links into a shared object"
else
	not_ok "libscounters.a links into a shared object: $(head -3 "$tmp/err")"
fi
if [ -f "$tmp/libscpic.so" ] &&
	${SC_TEST_EMULATOR:-} tests/test_unload "$tmp/libscpic.so" libscpic.so >"$tmp/out" 2>&1; then
	ok "the plugin holding the static library loads, counts exactly and unloads (test_unload)"
else
	not_ok "the plugin holding the static library: $(grep -v '^ok' "$tmp/out" | head -5)"
fi
tap_done
