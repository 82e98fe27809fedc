#!/usr/bin/env bash
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
# make check twice under qemu-aarch64: with the "max" CPU model (Armv8.1+ LSE
# atomics present: GCC's outline atomics take LSE) and with "cortex-a57"
# (Armv8.0, no LSE: they take LL/SC loops), so both atomic paths are tested.
#
# No binfmt_misc is needed: libscounters is linked statically
# (--disable-shared), so every test program is a plain aarch64 executable
# that make runs as "qemu-aarch64 PROGRAM" (LOG_COMPILER), and the shell tests
# call scbench through a wrapper script that does the same (TEST_SCBENCH).
#
# Environment:
#   SC_TEST_SCALE  test size factor (default 0.25 here; see tests/testutil.h:
#                  statistical tests recompute their bounds from the size)
#   CROSS_DIR      work directory to use and keep (default: a temporary one,
#                  removed on success and kept, with its logs, on failure)
#   JOBS           make -j (default: nproc)
#
# Prints each pass's automake summary and a combined one; exits 0 only when
# every test of both passes passed (or was skipped, with its reason).
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
	pkgs="gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user"
	cpus="max cortex-a57"
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
# Timing checks (test_calibration) report themselves skipped under emulation.
export SC_TEST_EMULATOR=$qemu
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }

if [ -n "${CROSS_DIR:-}" ]; then
	work=$CROSS_DIR
	keep=yes
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/scounters-cross.XXXXXX")
	keep=no
fi
ok=no
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ "$ok" = yes ] && [ "$keep" = no ]; then
		rm -rf "$work"
	else
		echo "cross-check: work directory and logs kept in $work" >&2
	fi
}
trap cleanup EXIT

# 1. Packages.
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "cross-check: missing Debian packages:$missing (run as root, or apt-get install them)" >&2
		exit 1
	fi
	echo "cross-check: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >"$work/apt.log" 2>&1 || {
		tail -20 "$work/apt.log" >&2
		exit 1
	}
fi
for tool in "$triplet-gcc" "$qemu"; do
	command -v "$tool" >/dev/null 2>&1 || {
		echo "cross-check: $tool not found after installing$pkgs" >&2
		exit 1
	}
done
echo "cross-check: packages ready after $(elapsed) s"

# 2. A clean copy of the source (an in-tree configured checkout cannot host
# a separate build directory), as the working tree has it.
src=$work/src
rm -rf "$src"
mkdir -p "$src"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
		tar --null -T - -cf -) | tar -xf - -C "$src"
	(cd "$src" && ./autogen.sh) >"$work/autogen.log" 2>&1 || {
		tail -20 "$work/autogen.log" >&2
		exit 1
	}
elif [ -x "$top/configure" ] && [ ! -e "$top/config.status" ]; then
	rmdir "$src"
	src=$top
else
	echo "cross-check: $top is neither a git checkout nor an unconfigured source tree" >&2
	exit 1
fi

# 3. Configure and build.
build=$work/build-$arch
rm -rf "$build"
mkdir -p "$build"
echo "cross-check: configure --host=$triplet in $build"
(cd "$build" && "$src/configure" --host="$triplet" --without-hwloc --without-papi \
	--disable-shared --enable-static --enable-werror) >"$work/configure.log" 2>&1 || {
	tail -30 "$work/configure.log" >&2
	exit 1
}
sed -n '/configured:$/,/^$/p' "$work/configure.log"
(cd "$build" && make -j"$jobs" && make -j"$jobs" check TESTS=) >"$work/build.log" 2>&1 || {
	tail -40 "$work/build.log" >&2
	exit 1
}
file "$build/harness/scbench" | sed 's/, BuildID.*//'
echo "cross-check: built after $(elapsed) s"

# scbench as the shell tests call it.
wrapper=$work/scbench-$qemu
printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$qemu" "$build/harness/scbench" >"$wrapper"
chmod +x "$wrapper"

# 4. make check under each CPU model; a summary line per pass, then the sum.
keys="TOTAL PASS SKIP XFAIL FAIL XPASS ERROR"
declare -A sum
for k in $keys; do sum[$k]=0; done
status=0
for cpu in $cpus; do
	export QEMU_CPU=$cpu
	t0=$(date +%s)
	rc=0
	(cd "$build" && make -j"$jobs" check LOG_COMPILER="$qemu" TEST_SCBENCH="$wrapper") \
		>"$work/check-$cpu.log" 2>&1 || rc=$?
	cp "$build/test-suite.log" "$work/test-suite-$cpu.log" 2>/dev/null || true
	# The runtime-detected atomics and the tick clock on this CPU model.
	meta=$work/meta-$cpu.csv
	"$wrapper" --counter=FetchAdd --threads=1 --ops=1000 --runs=1 --output="$meta" \
		>/dev/null 2>&1 || true
	atomics=$(sed -n 's/^ *"atomics": "\(.*\)",$/\1/p' "$meta.meta.json" 2>/dev/null)
	clock=$(sed -n 's/^ *"clock": "\(.*\)",$/\1/p' "$meta.meta.json" 2>/dev/null)
	line="qemu cpu $cpu: atomics '${atomics:-?}', clock '${clock:-?}', $(($(date +%s) - t0)) s:"
	for k in $keys; do
		v=$(sed -n "s/^# $k: *//p" "$build/test-suite.log" 2>/dev/null | head -1)
		v=${v:-0}
		sum[$k]=$((sum[$k] + v))
		line="$line $k $v"
	done
	echo "$line"
	if [ "$rc" -ne 0 ]; then
		status=1
		grep -E '^(FAIL|ERROR|XPASS):' "$work/check-$cpu.log" | head -20 >&2 || true
	fi
done

# The two passes must have taken the two atomic paths the CPU models imply.
grep -q '"atomics": "outline (runtime-detected): lse"\|"atomics": "lse"' \
	"$work/meta-max.csv.meta.json" 2>/dev/null || {
	echo "cross-check: the max CPU model did not report LSE atomics" >&2
	status=1
}
grep -q '"atomics": "outline (runtime-detected): llsc"\|"atomics": "llsc"' \
	"$work/meta-cortex-a57.csv.meta.json" 2>/dev/null || {
	echo "cross-check: the cortex-a57 CPU model did not report LL/SC atomics" >&2
	status=1
}

echo "============================================================================"
echo "cross-check $arch: make check under $qemu, CPU models: $cpus (SC_TEST_SCALE=$SC_TEST_SCALE)"
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
