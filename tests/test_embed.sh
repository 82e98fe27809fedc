#!/bin/sh
# SPDX-License-Identifier: MIT
# test_embed.sh - run the embed examples that make check built (TAP): the
# handle API and the inlined API, each compiled as C11 and, for every C++
# standard configure found the compiler to accept, as C++17, C++20 and
# C++23 (the same sources). A standard the compiler lacks is reported as a
# skip, not hidden. The examples check their own results (exit status).
# SC_TEST_EMULATOR (set by tests/cross-check.sh, e.g. qemu-aarch64) runs
# them, as automake's LOG_COMPILER runs the test programs there.
n=0
failed=0
for prog in embed_handle embed_inline embed_handle_cxx17 embed_inline_cxx17 \
	embed_handle_cxx20 embed_inline_cxx20 embed_handle_cxx23 embed_inline_cxx23; do
	n=$((n + 1))
	if [ ! -x "tests/$prog" ]; then
		echo "ok $n - $prog # SKIP not built (configure: no such C++ standard)"
		continue
	fi
	# shellcheck disable=SC2086 # the emulator command, if any, splits into words
	if out=$(${SC_TEST_EMULATOR:-} "tests/$prog" 2>&1); then
		echo "ok $n - $prog: $out"
	else
		echo "not ok $n - $prog: $out"
		failed=1
	fi
done
echo "1..$n"
exit $failed
