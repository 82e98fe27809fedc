#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/rseq-vm-check.sh [--timeout S] - the aarch64 restartable sequence of
# counters/scounters/sc_rseq.h on a real aarch64 Linux kernel: qemu-user has
# no rseq (glibc registers none there, so tests/cross-check.sh only sees the
# locked path), so a full-system emulated machine boots Debian's arm64
# kernel and runs tests/test_group (PerCPU, PerCPUGroup and the groups under
# migration, signal and timer storms, exact totals) and tests/test_tree
# (PerCPUTree's own sequence, which hands back the word's old value, under
# the same storms, with its readings inside their intervals) on it.
#
# Steps: install what is missing (qemu-system-arm, the aarch64 cross
# compiler and libc, cpio; needs root, as CI has); fetch the kernel package
# that linux-image-arm64 names with apt-get under a private arm64 state
# (the machine's own apt configuration is not touched; the package is
# cached); build test_group, test_tree and the library's sources, static, for
# aarch64, and tests/rseq_vm_init.c as the machine's init; boot a 2-vCPU
# virt machine (TCG, cortex-a72) with that initramfs; read the TAP lines and
# each program's exit status from its console.
#
# Environment: RSEQ_VM_DIR work directory to use and keep (default: a
# temporary one, removed on success); SC_VM_CACHE where the kernel is cached
# (as tests/numa-vm-check.sh: /var/cache/scounters-vm, or under TMPDIR).
#
# Prints PASS/FAIL lines and automake's summary ("# PASS: n" ...), which
# .ci/run adds to its tally; exits 0 only when the machine ran the program
# on the restartable-sequence path and every check passed.
set -euo pipefail
me=rseq-vm-check
timeout_s=600
while [ $# -gt 0 ]; do
	case $1 in
	--timeout) timeout_s=${2:?--timeout needs seconds}; shift 2 ;;
	--timeout=*) timeout_s=${1#--timeout=}; shift ;;
	-h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "$me: unknown argument $1 (expected --timeout S)" >&2; exit 2 ;;
	esac
done
case $timeout_s in '' | *[!0-9]*) echo "$me: --timeout needs a whole number of seconds" >&2; exit 2 ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
t0=$(date +%s)
# shellcheck source=tests/emu-common.sh
. "$top/tests/emu-common.sh"
RSEQ_VM_DIR=${RSEQ_VM_DIR:-}
emu_workdir RSEQ_VM_DIR scounters-rseq-vm
say() { echo "$me: $*"; }

emu_install qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio

# 1. The kernel: the version linux-image-arm64 names, from a private apt
# state for arm64 (lists and archives under the cache, an empty dpkg status).
cache=${SC_VM_CACHE:-/var/cache/scounters-vm}
mkdir -p "$cache" 2>/dev/null || cache=${TMPDIR:-/tmp}/scounters-vm-cache
mkdir -p "$cache/apt-arm64/lists/partial" "$cache/apt-arm64/archives/partial"
cache=$(cd "$cache" && pwd)
: >"$cache/apt-arm64/status"
apt_arm64=(-o "Dir::State=$cache/apt-arm64" -o "Dir::State::Lists=$cache/apt-arm64/lists"
	-o "Dir::State::status=$cache/apt-arm64/status" -o "Dir::Cache=$cache/apt-arm64"
	-o "Dir::Cache::archives=$cache/apt-arm64/archives" -o APT::Architecture=arm64
	-o APT::Architectures::=arm64 -o Debug::NoLocking=1)
kpkg=$(apt-cache "${apt_arm64[@]}" depends linux-image-arm64 2>/dev/null |
	sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\)$/\1/p' | head -1 || true)
if [ -z "$kpkg" ]; then
	apt-get "${apt_arm64[@]}" update -qq >"$work/apt-arm64.log" 2>&1 || {
		tail -5 "$work/apt-arm64.log" >&2
		exit 1
	}
	kpkg=$(apt-cache "${apt_arm64[@]}" depends linux-image-arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9].*-arm64\)$/\1/p' | head -1)
fi
[ -n "$kpkg" ] || { echo "$me: cannot tell which arm64 kernel to use" >&2; exit 1; }
kdir=$cache/$kpkg
image=$kdir/boot/vmlinuz-${kpkg#linux-image-}
if [ ! -f "$image" ]; then
	deb=$(find "$cache/apt-arm64/archives" -maxdepth 1 -name "${kpkg}_*_arm64.deb" | head -1)
	if [ -z "$deb" ]; then
		(cd "$cache/apt-arm64/archives" && apt-get "${apt_arm64[@]}" download "$kpkg") \
			>"$work/apt-download.log" 2>&1 || {
			tail -5 "$work/apt-download.log" >&2
			exit 1
		}
		deb=$(find "$cache/apt-arm64/archives" -maxdepth 1 -name "${kpkg}_*_arm64.deb" | head -1)
	fi
	rm -rf "$kdir.tmp"
	dpkg-deb -x "$deb" "$kdir.tmp"
	mkdir -p "$kdir"
	mv "$kdir.tmp/boot" "$kdir/boot"
	rm -rf "$kdir.tmp"
fi
say "kernel: $kpkg"

# 2. The programs, static for aarch64: the library's sources compiled in
# (with a sc_config.h as configure makes it: 64-byte lines, the version of
# configure.ac) and tests/test_group and tests/test_tree; the init.
mkdir -p "$work/include/scounters" "$work/root"
version=$(sed -n 's/^AC_INIT(\[scounters\], \[\([0-9.]*\)\].*/\1/p' "$top/configure.ac")
IFS=. read -r vmaj vmin vpat <<<"$version"
sed -e 's/@SC_LINE_SIZE@/64/' -e "s/@PACKAGE_VERSION@/$version/" -e "s/@SC_VERSION_MAJOR@/$vmaj/" \
	-e "s/@SC_VERSION_MINOR@/$vmin/" -e "s/@SC_VERSION_PATCH@/$vpat/" \
	"$top/counters/scounters/sc_config.h.in" >"$work/include/scounters/sc_config.h"
cc=aarch64-linux-gnu-gcc
flags=(-std=c11 -D_GNU_SOURCE -O2 -static -I"$work/include" -I"$top/counters")
programs=(test_group test_tree)
for prog in "${programs[@]}"; do
	"$cc" "${flags[@]}" "$top"/counters/*.c "$top/tests/$prog.c" -o "$work/root/$prog" \
		-lm -pthread >>"$work/build.log" 2>&1 || { tail -20 "$work/build.log" >&2; exit 1; }
done
"$cc" -O2 -static "$top/tests/rseq_vm_init.c" -o "$work/root/init" >>"$work/build.log" 2>&1 || {
	tail -20 "$work/build.log" >&2
	exit 1
}
(cd "$work/root" && find . | LC_ALL=C sort | cpio -o -H newc 2>/dev/null) >"$work/initrd.cpio"

# 3. Boot; the console goes to the log, the TAP lines are read from it.
log=$work/console.log
say "booting a 2-vCPU aarch64 virt machine (TCG, cortex-a72, timeout $timeout_s s); console: $log"
set +e
timeout --kill-after=20 "$timeout_s" qemu-system-aarch64 -nodefaults -no-user-config \
	-machine virt -cpu cortex-a72 -accel tcg,thread=multi -smp 2 -m 512M \
	-kernel "$image" -initrd "$work/initrd.cpio" -append "console=ttyAMA0 quiet panic=-1" \
	-display none -monitor none -serial "file:$log" -no-reboot </dev/null 2>"$work/qemu.err"
qrc=$?
set -e
tr -d '\r' <"$log" >"$log.txt"
emu_checks "$work/checks.log"
tap_line() { # the programs' checks, each one line, named by the program that ran them
	local line name prog='?'
	while IFS= read -r line; do
		case $line in
		"RSEQVM-RUN /"*) prog=${line#RSEQVM-RUN /} ;;
		"ok "*) name=${line#ok * - }; sum[TOTAL]=$((sum[TOTAL] + 1)); sum[PASS]=$((sum[PASS] + 1)); echo "PASS: aarch64 $prog: $name" ;;
		"not ok "*) name=${line#not ok * - }; sum[TOTAL]=$((sum[TOTAL] + 1)); sum[FAIL]=$((sum[FAIL] + 1)); echo "FAIL: aarch64 $prog: $name" ;;
		"# "*) echo "$line" ;;
		esac
	done
}
tap_line <"$log.txt"
killed=no
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	killed=yes
	sum[TOTAL]=$((sum[TOTAL] + 1))
	sum[FAIL]=$((sum[FAIL] + 1))
	echo "FAIL: the machine did not finish within $timeout_s s (killed)"
fi
for prog in "${programs[@]}"; do
	# the program's exit status, and the per-CPU path it printed between its RUN and STATUS lines
	status=$(sed -n "s|^RSEQVM-STATUS /$prog \([0-9]*\)\$|\1|p" "$log.txt" | tail -1)
	path=$(sed -n "\|^RSEQVM-RUN /$prog\$|,\|^RSEQVM-STATUS /$prog |s/^# per-CPU path: \([^ ]*\).*/\1/p" \
		"$log.txt" | head -1)
	sum[TOTAL]=$((sum[TOTAL] + 1))
	if [ "${status:-x}" != 0 ]; then
		sum[FAIL]=$((sum[FAIL] + 1))
		echo "FAIL: $prog's exit status in the machine: ${status:-none} (qemu exit $qrc)"
		if [ $killed = no ]; then
			tail -5 "$work/qemu.err" >&2
			tail -20 "$log.txt" >&2
		fi
	else
		sum[PASS]=$((sum[PASS] + 1))
		echo "PASS: $prog exited 0 in the machine"
	fi
	# The point of the machine: the sequence, not the locked fallback.
	sum[TOTAL]=$((sum[TOTAL] + 1))
	case $path in
	rseq-*) sum[PASS]=$((sum[PASS] + 1)); echo "PASS: $prog: the aarch64 kernel ran the restartable sequence ($path)" ;;
	*) sum[FAIL]=$((sum[FAIL] + 1)); echo "FAIL: $prog: the per-CPU path in the machine was '${path:-unknown}', not rseq" ;;
	esac
done
say "$(($(date +%s) - t0)) s in all"
emu_summary "$me: test_group and test_tree on an emulated aarch64 machine"
if emu_passed; then
	ok=yes
	exit 0
fi
exit 1
