#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cross-check.sh ARCH - build scounters for another architecture with
# Debian's cross compiler and run the whole test suite under qemu-user.
#
#   tests/cross-check.sh aarch64
#
# Steps: install what is missing (gcc-aarch64-linux-gnu, the arm64 libc
# headers and libraries, qemu-user; needs root, as CI has); copy the source
# tree as it is in the working directory (tracked and new files) and run
# autogen.sh there; configure --host=aarch64-linux-gnu --without-hwloc
# --without-papi --enable-werror in a separate build directory; build; run
# make check-arch under qemu-aarch64 (the test programs and the scripts that
# drive scbench; the Python figure, report and planning tests are the same on
# every CPU and run natively) with the "max" CPU model (Armv8.1+ LSE atomics
# present: GCC's outline atomics take LSE), then the compiled test programs
# (make check-programs: the counters and the library, what the atomics touch)
# with "cortex-a57" (Armv8.0, no LSE: they take LL/SC loops), so both atomic
# paths are tested.
# Then a --with-atomics=lse build (LSE inlined): the precise counters' tests
# on "max", and scbench's refusal to run on "cortex-a57".
#
# No binfmt_misc is needed: libscounters is linked statically
# (--disable-shared), so every test program is a plain aarch64 executable
# that make runs as "qemu-aarch64 PROGRAM" (LOG_COMPILER), and the shell tests
# call scbench through a wrapper script that does the same (TEST_SCBENCH); a
# test that execs itself does so through SC_TEST_EMULATOR=qemu-aarch64.
#
# Environment:
#   SC_TEST_SCALE  test size factor (default 0.25 here; see tests/testutil.h:
#                  statistical tests recompute their bounds from the size)
#   CROSS_DIR      work directory to use and keep (default: a temporary one,
#                  removed on success and kept, with its logs, on failure)
#   JOBS           make -j (default: nproc)
#   TEST_TIMEOUT   seconds one test program may run under qemu before it is
#                  killed and fails (default 900; a hang is a failure, never
#                  a stalled CI)
#
# Prints a line per pass and automake's summary of all of them; exits 0 only
# when every test passed (or was skipped, with its reason) and every pass
# reported the atomics its CPU model implies.
set -euo pipefail

usage() {
	sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//'
	echo "supported: aarch64"
}

arch=${1:-}
case $arch in
aarch64)
	triplet=aarch64-linux-gnu
	qemu="qemu-aarch64"
	sysroot=/usr/aarch64-linux-gnu
	pkgs="gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"
	;;
-h | --help)
	usage
	exit 0
	;;
*)
	usage >&2
	if [ -z "$arch" ]; then
		echo "cross-check.sh: usage: $0 ARCH" >&2
	else
		echo "cross-check.sh: unsupported architecture '$arch'" >&2
	fi
	exit 2
	;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
export SC_TEST_SCALE=${SC_TEST_SCALE:-0.25}
export QEMU_LD_PREFIX=$sysroot
# qemu-user (7.2) allocates through GLib's slice allocator, whose lock a
# fork copies as held when another thread of the emulated program had it:
# the child then waits forever (seen once in a fork of test_conformance,
# in tcg_tb_insert -> g_slice_alloc, under cpu cortex-a57). With
# G_SLICE=always-malloc GLib takes glibc's malloc, which is fork-safe.
export G_SLICE=always-malloc
# Timing checks (test_calibration) report themselves skipped under emulation.
export SC_TEST_EMULATOR=$qemu
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }

me=cross-check
# shellcheck source=tests/emu-common.sh
. "$(dirname "$0")/emu-common.sh"
emu_workdir CROSS_DIR scounters-cross

# 1. Packages.
# shellcheck disable=SC2086
emu_install $pkgs
for tool in "$triplet-gcc" "$triplet-g++" "$qemu"; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "cross-check: $tool not found after installing$pkgs" >&2
		exit 1
	}
done
echo "cross-check: packages ready after $(elapsed) s"

# 2. A clean copy of the source (an in-tree configured checkout cannot host
# a separate build directory), as the working tree has it.
emu_copy_source "$top" "$work/src" in-place-ok

# 3. Configure and build: $1 a name, then extra configure arguments.
configure_build() {
	local name=$1 dir=$work/build-$1
	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	echo "cross-check: configure --host=$triplet${*:+ $*} in $dir"
	(cd "$dir" && "$src/configure" --host="$triplet" --without-hwloc --without-papi \
		--disable-shared --enable-static --enable-werror "$@") >"$work/configure-$name.log" 2>&1 || {
		tail -30 "$work/configure-$name.log" >&2
		exit 1
	}
	sed -n '/64-bit atomics/p' "$work/configure-$name.log"
	(cd "$dir" && make -j"$jobs" && make -j"$jobs" check TESTS=) >"$work/build-$name.log" 2>&1 || {
		tail -40 "$work/build-$name.log" >&2
		exit 1
	}
	# scbench as the shell tests call it.
	printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$qemu" "$dir/harness/scbench" >"$dir/scbench-qemu"
	chmod +x "$dir/scbench-qemu"
}

# 4. make check (or another check target) of one build under one CPU model: a
# summary line with the atomics scbench reports there, counts added to sum.
keys="TOTAL PASS SKIP XFAIL FAIL XPASS ERROR"
declare -A sum
for k in $keys; do sum[$k]=0; done
status=0
# run_pass BUILD CPU TARGET WANT_ATOMICS
run_pass() {
	local name=$1 cpu=$2 target=$3 want=$4 dir=$work/build-$1 t0 rc=0 k v line atomics
	t0=$(date +%s)
	export QEMU_CPU=$cpu SC_TEST_EMULATOR=$qemu
	(cd "$dir" && make -j"$jobs" "$target" TEST_SCBENCH="$dir/scbench-qemu" \
		LOG_COMPILER="timeout --kill-after=10 ${TEST_TIMEOUT:-900} $qemu") \
		>"$work/check-$name-$cpu.log" 2>&1 || rc=$?
	cp "$dir/test-suite.log" "$work/test-suite-$name-$cpu.log" 2>/dev/null || true
	"$dir/scbench-qemu" --counter=FetchAdd --threads=1 --ops=1000 --runs=1 \
		--output="$work/meta-$name-$cpu.csv" >/dev/null 2>&1 || true
	atomics=$(sed -n 's/^ *"atomics": "\(.*\)",$/\1/p' "$work/meta-$name-$cpu.csv.meta.json" \
		2>/dev/null)
	line="$name build, qemu cpu $cpu, make $target: atomics '${atomics:-?}', $(($(date +%s) - t0)) s:"
	for k in $keys; do
		v=$(sed -n "s/^# $k: *//p" "$dir/test-suite.log" 2>/dev/null | head -1)
		v=${v:-0}
		sum[$k]=$((sum[$k] + v))
		line="$line $k $v"
	done
	echo "$line"
	if [ "$rc" -ne 0 ]; then
		status=1
		grep -E '^(FAIL|ERROR|XPASS):' "$work/check-$name-$cpu.log" | head -20 >&2 || true
	fi
	if [ "$atomics" != "$want" ]; then
		echo "cross-check: expected atomics '$want' there, scbench reported '${atomics:-nothing}'" >&2
		status=1
	fi
}

# The default build (GCC's outline atomics) on an LSE CPU model and on an
# Armv8.0 one, so that both of the helpers' paths run every test program.
configure_build outline
echo "cross-check: built after $(elapsed) s"
run_pass outline max check-arch "outline (runtime-detected): lse"
run_pass outline cortex-a57 check-programs "outline (runtime-detected): llsc"

# --with-atomics=lse inlines LSE: the precise counters' tests on the LSE CPU
# model; on the Armv8.0 one scbench must refuse to run, with its reason.
configure_build lse --with-atomics=lse
run_pass lse max check-precise lse
rc=0
QEMU_CPU=cortex-a57 "$work/build-lse/scbench-qemu" --counter=FetchAdd --ops=10 --runs=1 \
	>/dev/null 2>"$work/lse-on-armv8.0.err" || rc=$?
if [ "$rc" -eq 1 ] && grep -q 'has none (Armv8.0)' "$work/lse-on-armv8.0.err"; then
	echo "lse build, qemu cpu cortex-a57: scbench refuses to run, exit 1: ok"
else
	echo "cross-check: an LSE build on cortex-a57 should exit 1 with a reason (exit $rc)" >&2
	status=1
fi

echo "============================================================================"
echo "cross-check $arch: the passes above under $qemu (SC_TEST_SCALE=$SC_TEST_SCALE)"
echo "============================================================================"
for k in $keys; do
	printf '# %-6s %d\n' "$k:" "${sum[$k]}"
done
echo "============================================================================"
echo "cross-check: $(elapsed) s in all"
if [ "$status" -eq 0 ] && [ "${sum[FAIL]}" -eq 0 ] && [ "${sum[ERROR]}" -eq 0 ] &&
	[ "${sum[XPASS]}" -eq 0 ] && [ "${sum[PASS]}" -gt 0 ]; then
	ok=yes
	exit 0
fi
exit 1
