#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/numa-vm-check.sh [NODESxCORES] [--run CMD] - boot an emulated NUMA
# machine (qemu-system-x86_64, TCG) and check scounters' multi-node paths in it.
#
#   tests/numa-vm-check.sh              # 4 nodes x 2 vCPUs, all the checks
#   tests/numa-vm-check.sh 8x8          # 8 nodes x 8 vCPUs (slow under TCG)
#   tests/numa-vm-check.sh 4x2 --run 'harness/scbench --list'
#
# Steps: install what is missing from Debian (qemu-system-x86, busybox-static,
# and the project's build and figure dependencies; needs root, as CI has); download Debian's kernel package (apt-get download
# linux-image-<version>-amd64, never installed: unpacked with dpkg-deb into
# the cache directory); build a small initramfs there (busybox, the virtio and
# 9p modules the kernel needs, an init script); copy the source tree as it is
# in the working directory and build it in a work directory (as
# tests/cross-check.sh does); boot the kernel with -smp NODES*CORES
# (NODES sockets of CORES cores) and one -numa node of memory per socket, the
# host's root shared read-only over virtio-9p (its top-level directories
# bound into a tmpfs root, with the VM's own proc, sys, dev, tmp and run) and
# the work directory shared writable at the same path. The init script chroots into the shared root and
# runs tests/numa-vm-inner.sh (written into the work directory with its settings):
#   1. make check TESTS=<the placement, NUMA and node tests> against the
#      machine's real topology: every test of the build's TESTS whose name
#      matches VM_TESTS_PATTERN (default 'placement|numa|node'), so a test
#      added later with such a name runs here too; test_numa_machine is
#      told to expect NODES nodes (SC_TEST_EXPECT_NODES);
#   2. scbench with --placement=spread, compact and none on all vCPUs: each
#      run must succeed, its metadata must see NODES nodes, and the pinned
#      runs must have every thread bound and use all NODES nodes;
#   3. start-up cost of one scbench invocation (--list, a 0.1 s run, the same
#      with --work=99, which calibrates the external work): printed, not judged;
#   4. run-all.sh on a reduced plan (run-all.sh --quick --experiments=...
#      --variants=...; VM_RUNALL_ARGS replaces those): it must finish, with one
#      thread count per power of two up to NODES*CORES, figures and REPORT.md;
#   5. the bundle of the same build (make bundle; tests/emu-bundle.sh),
#      unpacked into an empty directory and run by nobody with env -i and a
#      PATH of base tools: ldd calls its scbench static; its spread run on
#      all vCPUs sees the dynamic build's nodes, kernel nodes and placement
#      map; run-all.sh on the plan of step 4 finishes with REPORT.md; after
#      the VM, the host's plots/regen draws its set with the same figure
#      files as step 4's.
# Every check prints a TAP-like line; the end is a summary in automake's
# format ("# PASS: n" ...) that .ci/run adds to its tally.
#
# Options:
#   NODESxCORES   machine shape (default 4x2): 1..16 nodes, 1..16 vCPUs each
#   --run CMD     boot the same machine and run CMD (bash -c, in the build
#                 directory, the build's harness/ on PATH) instead of the
#                 checks; exit with CMD's status. E.g. to time start-up:
#                 --run 'time harness/scbench --list >/dev/null'
#   --build DIR   use DIR, an already configured and built tree (make check
#                 TESTS= done), instead of copying and building this one; the
#                 VM writes into DIR (test logs, results under DIR/vm-out)
#   --timeout S   kill the VM after S seconds (default 1500 per 8 vCPUs, at
#                 least 1500): a clean failure, never a hung CI
#   --mem MB      memory per node (default 512)
#   -h, --help    this text
#
# Environment:
#   SC_VM_CACHE   downloaded packages, kernel and initramfs, kept between runs
#                 (default /var/cache/scounters-vm; /tmp/scounters-vm-cache
#                 when that cannot be created)
#   VM_DIR        work directory to use and keep (default: a temporary one,
#                 removed on success and kept, with its logs, on failure)
#   VM_TESTS_PATTERN, VM_RUNALL_ARGS   see steps 1 and 4
#   JOBS          make -j for the host build (default: nproc)
#
# Time: on a loaded 2-core host the 4x2 machine took 13 minutes (build 5,
# boot 0.3, tests 2.5, scbench 0.5, start-up 0.5, run-all 3 and its report);
# 8x8 much longer.
# Prints a line per check and the summary; exits 0 only when every check passed.
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

shape=4x2
run_cmd=""
have_run=no
build=""
timeout_s=""
mem_mb=512
while [ $# -gt 0 ]; do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--run) [ $# -ge 2 ] || { echo "numa-vm-check: --run needs a command" >&2; exit 2; }
		run_cmd=$2; have_run=yes; shift ;;
	--run=*) run_cmd=${1#--run=}; have_run=yes ;;
	--build) [ $# -ge 2 ] || { echo "numa-vm-check: --build needs a directory" >&2; exit 2; }
		build=$2; shift ;;
	--build=*) build=${1#--build=} ;;
	--timeout) [ $# -ge 2 ] || { echo "numa-vm-check: --timeout needs seconds" >&2; exit 2; }
		timeout_s=$2; shift ;;
	--timeout=*) timeout_s=${1#--timeout=} ;;
	--mem) [ $# -ge 2 ] || { echo "numa-vm-check: --mem needs megabytes" >&2; exit 2; }
		mem_mb=$2; shift ;;
	--mem=*) mem_mb=${1#--mem=} ;;
	[0-9]*x[0-9]*) shape=$1 ;;
	*) usage >&2; echo "numa-vm-check: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
if ! [[ $shape =~ ^([1-9][0-9]?)x([1-9][0-9]?)$ ]] || [ "${BASH_REMATCH[1]}" -gt 16 ] ||
	[ "${BASH_REMATCH[2]}" -gt 16 ]; then
	echo "numa-vm-check: shape '$shape': expected NODESxCORES, each 1..16 (e.g. 4x2)" >&2
	exit 2
fi
nodes=${BASH_REMATCH[1]}
cores=${BASH_REMATCH[2]}
ncpu=$((nodes * cores))
if ! [[ $mem_mb =~ ^[1-9][0-9]*$ ]] || [ "$mem_mb" -lt 128 ]; then
	echo "numa-vm-check: --mem $mem_mb: expected megabytes >= 128" >&2
	exit 2
fi
if [ -z "$timeout_s" ]; then
	timeout_s=$((1500 * ((ncpu + 7) / 8)))
fi
[[ $timeout_s =~ ^[1-9][0-9]*$ ]] ||
	{ echo "numa-vm-check: --timeout $timeout_s: expected seconds" >&2; exit 2; }

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }
say() { echo "numa-vm-check: $*"; }

me=numa-vm-check
# shellcheck source=tests/emu-common.sh
. "$(dirname "$0")/emu-common.sh"
# shellcheck source=tests/emu-bundle.sh
. "$(dirname "$0")/emu-bundle.sh"
emu_workdir VM_DIR scounters-vm

cache=${SC_VM_CACHE:-/var/cache/scounters-vm}
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then
	cache=${TMPDIR:-/tmp}/scounters-vm-cache
	mkdir -p "$cache"
fi
cache=$(cd "$cache" && pwd)

# 1. Packages (installed) and the kernel (downloaded and unpacked only).
# qemu and busybox for the VM; the build's and run-all.sh's own needs (its
# figures), which the VM takes from the shared root.
pkgs="qemu-system-x86 busybox-static build-essential autoconf automake libtool pkg-config
      libhwloc-dev hwloc gnuplot-nox python3-matplotlib python3-numpy python3-scipy"
# shellcheck disable=SC2086
emu_install $pkgs
for tool in qemu-system-x86_64 busybox timeout; do
	command -v "$tool" >/dev/null 2>&1 || { echo "numa-vm-check: $tool not found" >&2; exit 1; }
done
busybox=$(command -v busybox)

# The kernel: the version linux-image-amd64 names now; a kernel already in the
# cache is used when apt cannot tell (offline).
kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1)
if [ -z "$kpkg" ] && [ "$updated" = no ] && [ "$(id -u)" -eq 0 ]; then
	apt-get update -qq || true
	kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*-amd64\)$/\1/p' | head -1)
fi
if [ -z "$kpkg" ]; then
	kpkg=$(find "$cache" -maxdepth 1 -name 'linux-image-*-amd64_*.deb' -printf '%f\n' 2>/dev/null |
		sort -V | tail -1 | sed 's/_.*//')
fi
[ -n "$kpkg" ] || { echo "numa-vm-check: cannot tell which Debian kernel to use (apt-cache depends linux-image-amd64)" >&2; exit 1; }
kver=${kpkg#linux-image-}
kdir=$cache/kernel-$kver
if [ ! -f "$kdir/done" ]; then
	deb=$(find "$cache" -maxdepth 1 -name "${kpkg}_*.deb" | sort -V | tail -1)
	if [ -z "$deb" ]; then
		say "downloading $kpkg"
		(cd "$cache" && apt-get download "$kpkg") >"$work/download.log" 2>&1 ||
			{ tail -20 "$work/download.log" >&2; exit 1; }
		deb=$(find "$cache" -maxdepth 1 -name "${kpkg}_*.deb" | sort -V | tail -1)
	fi
	rm -rf "$kdir"
	mkdir -p "$kdir"
	dpkg-deb -x "$deb" "$kdir/pkg"
	touch "$kdir/done"
fi
vmlinuz=$kdir/pkg/boot/vmlinuz-$kver
moddir=$kdir/pkg/lib/modules/$kver
if [ ! -f "$vmlinuz" ] || [ ! -d "$moddir" ]; then
	echo "numa-vm-check: $kdir: no kernel or modules" >&2
	exit 1
fi

# 2. The initramfs: busybox, the modules for virtio-9p and their
# dependencies (read from each module's .modinfo), and /init.
mod_file() { # module name -> path under $moddir ('-' and '_' are the same)
	local pat=${1//[-_]/[-_]}
	find "$moddir/kernel" -name "$pat.ko*" | head -1
}
declare -A mod_seen
mod_list=""
mod_add() { # depth first: dependencies before the module
	local f deps d
	[ -z "${mod_seen[$1]:-}" ] || return 0
	mod_seen[$1]=1
	f=$(mod_file "$1")
	[ -n "$f" ] || { echo "numa-vm-check: kernel $kver has no module $1" >&2; exit 1; }
	case $f in *.ko) ;; *) echo "numa-vm-check: $f: compressed modules are not supported" >&2; exit 1 ;; esac
	deps=$(grep -a -o 'depends=[A-Za-z0-9_,-]*' "$f" | head -1 | sed 's/^depends=//')
	for d in ${deps//,/ }; do mod_add "$d"; done
	mod_list="$mod_list ${f#"$moddir"/}"
}
initrd=$cache/initrd-$kver-$(sha1sum "$0" | cut -c1-12).cpio
if [ ! -f "$initrd" ]; then
	for m in virtio_pci 9pnet_virtio 9p; do mod_add "$m"; done
	ird=$work/initramfs
	rm -rf "$ird"
	mkdir -p "$ird/bin" "$ird/proc" "$ird/sys" "$ird/dev" "$ird/root" "$ird/modules"
	cp "$busybox" "$ird/bin/busybox"
	for m in $mod_list; do
		cp "$moddir/$m" "$ird/modules/"
		echo "${m##*/}" >>"$ird/modules/order"
	done
	# The init script: mount the host root read-only and the work directory
	# writable at its own path, give the chroot its own proc, sys, dev and
	# tmpfs /tmp and /run, run the script the host wrote, record its status,
	# power off. Paths come from the kernel command line (scvm_work=).
	cat >"$ird/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules/order); do insmod "/modules/$m" || echo "init: insmod $m failed"; done
work=$(sed -n 's/.*scvm_work=\([^ ]*\).*/\1/p' /proc/cmdline)
r=/root
fail() { echo "init: $*"; echo "SCVM-EXIT 125"; sync; reboot -f; }
# The new root is a tmpfs holding the host's top-level directories as bind
# mounts of the 9p share (and its symlinks, e.g. bin -> usr/bin), so that
# proc, sys, dev, tmp and run are mounted on tmpfs, not on 9p directories.
mkdir -p /host
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /host || fail "cannot mount the host root"
mount -t tmpfs -o mode=0755 newroot $r || fail "cannot mount a tmpfs root"
for e in /host/* /host/.[!.]*; do
	n=${e#/host/}
	case $n in proc | sys | dev | tmp | run | lost+found) mkdir -p "$r/$n"; continue ;; esac
	if [ -L "$e" ]; then
		cp -a "$e" "$r/$n"
	elif [ -d "$e" ]; then
		mkdir "$r/$n" && mount -o bind "$e" "$r/$n" || fail "cannot bind $e"
	fi
done
chmod 1777 $r/tmp
mount -t proc proc $r/proc && mount -t sysfs sys $r/sys && mount -t devtmpfs dev $r/dev || fail "cannot mount proc, sys, dev"
mkdir -p $r/dev/pts $r/dev/shm
ln -s /proc/self/fd $r/dev/fd
ln -s /proc/self/fd/0 $r/dev/stdin
ln -s /proc/self/fd/1 $r/dev/stdout
ln -s /proc/self/fd/2 $r/dev/stderr
mount -t devpts devpts $r/dev/pts
mount -t tmpfs shm $r/dev/shm
mount -t tmpfs tmp $r/tmp && mount -t tmpfs run $r/run || fail "cannot mount tmpfs"
mkdir -p "$r$work" 2>/dev/null
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=mmap work "$r$work" || fail "cannot mount $work"
echo "init: $(grep -c ^processor /proc/cpuinfo) CPUs, $(ls -d /sys/devices/system/node/node* | wc -l) NUMA nodes, kernel $(uname -r)"
chroot $r /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin HOME=/tmp TERM=dumb \
	LANG=C.UTF-8 /bin/bash "$work/vm/inner.sh"
rc=$?
sync
echo "SCVM-EXIT $rc"
umount "$r$work" 2>/dev/null
reboot -f
EOF
	chmod +x "$ird/init"
	(cd "$ird" && find . | LC_ALL=C sort | "$busybox" cpio -o -H newc 2>/dev/null) >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
	rm -rf "$ird"
fi
say "kernel $kver and initramfs ready in $cache after $(elapsed) s"

# 3. The build (a copy of the working tree, as tests/cross-check.sh makes it).
if [ -n "$build" ]; then
	build=$(cd "$build" && pwd)
	if [ ! -x "$build/harness/scbench" ] || [ ! -f "$build/Makefile" ]; then
		echo "numa-vm-check: --build $build: not a configured and built tree" >&2
		exit 1
	fi
else
	emu_copy_source "$top" "$work/src"
	build=$src
	say "building in $build"
	# Static: scbench and the tests are plain executables, not libtool
	# wrapper scripts (a wrapper costs seconds per start under TCG).
	(cd "$build" && ./configure --enable-werror --disable-shared --enable-static) >"$work/build.log" 2>&1 ||
		{ tail -40 "$work/build.log" >&2; exit 1; }
fi
# The build must be reachable inside the VM: under the work directory, or
# shared as it is (--build) by mounting that instead.
share=$work
case $build in "$work"/*) ;; *) share=$build ;; esac
out=$build/vm-out
rm -rf "$out"
mkdir -p "$out" "$share/vm"

# The tests that run in the VM: the build's TESTS matching the pattern.
vm_tests=$(make -s --no-print-directory -C "$build" -f Makefile -f - sc-print-tests <<'EOF' |
sc-print-tests:
	@echo $(TESTS)
EOF
	tr ' ' '\n' | grep -E "${VM_TESTS_PATTERN:-placement|numa|node}" | paste -sd' ' -) || true
[ -n "$vm_tests" ] || { echo "numa-vm-check: no test of the build matches '${VM_TESTS_PATTERN:-placement|numa|node}'" >&2; exit 1; }
# The test programs of that list: the only ones built (and make check in the
# VM is told they are all there are, or it would build the others under TCG).
progs=$(for t in $vm_tests; do case $t in *.*) ;; *) echo "$t" ;; esac; done | paste -sd' ' -)
if [ "$build" = "${src:-}" ]; then
	# shellcheck disable=SC2086
	(cd "$build" && make -j"$jobs" && make -j"$jobs" $progs) >>"$work/build.log" 2>&1 ||
		{ tail -40 "$work/build.log" >&2; exit 1; }
	say "built after $(elapsed) s"
fi
# The bundle (make bundle) of that build, for step 5.
bundle_tgz=""
if [ "$have_run" = no ]; then
	emu_bundle_make "$build" "$work/build.log"
	say "bundle: ${bundle_tgz:-none (see $work/build.log)}"
fi
runall_args=${VM_RUNALL_ARGS:---quick --experiments=dice-fig4-high,dice-fig5 --variants=FetchAdd,RBONuma,Multiline}

# 4. The script run inside the VM (as root, in the chroot of the host's root).
{
	printf 'build=%q\nout=%q\nnodes=%d\nncpu=%d\nvm_tests=%q\nprogs=%q\nrunall_args=%q\nrun_cmd=%q\nhave_run=%s\nbundle_tgz=%q\n' \
		"$build" "$out" "$nodes" "$ncpu" "$vm_tests" "$progs" "$runall_args" "$run_cmd" "$have_run" "$bundle_tgz"
	cat "$top/tests/numa-vm-inner.sh"
} >"$share/vm/inner.sh"
cp "$top/tests/emu-common.sh" "$top/tests/emu-bundle.sh" "$share/vm/"

# 5. Boot. Memory: --mem MB per node, one memory backend per node.
numa_args=()
for ((i = 0; i < nodes; i++)); do
	numa_args+=(-object "memory-backend-ram,id=mem$i,size=${mem_mb}M"
		-numa "node,nodeid=$i,cpus=$((i * cores))-$((i * cores + cores - 1)),memdev=mem$i")
done
log=$work/console.log
say "booting $nodes nodes x $cores vCPUs (TCG, $((nodes * mem_mb)) MB, timeout ${timeout_s} s); console: $log"
t_boot=$(date +%s)
set +e # the pipeline's status is read below (timeout's is 124 or 137)
timeout --kill-after=20 "$timeout_s" qemu-system-x86_64 -nodefaults -no-user-config \
	-machine q35 -accel tcg,thread=multi -cpu max -m "$((nodes * mem_mb))M" \
	-smp "$ncpu,sockets=$nodes,cores=$cores,threads=1" "${numa_args[@]}" \
	-kernel "$vmlinuz" -initrd "$initrd" \
	-append "console=ttyS0 quiet panic=-1 scvm_work=$share" \
	-fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap" \
	-device "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot" \
	-fsdev "local,id=work,path=$share,security_model=none,multidevs=remap" \
	-device "virtio-9p-pci,fsdev=work,mount_tag=work" \
	-display none -vga none -monitor none -serial stdio -no-reboot </dev/null 2>"$work/qemu.err" |
	tee "$log" | grep -v -E '^(SCVM-EXIT|\[ *[0-9.]+\] )'
pipe=("${PIPESTATUS[@]}")
set -e
qrc=${pipe[0]}
vm_s=$(($(date +%s) - t_boot))
rc=$(sed -n 's/^SCVM-EXIT \([0-9]*\).*/\1/p' "$log" | tail -1)
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "numa-vm-check: the VM did not finish within $timeout_s s: killed" >&2
	[ "$have_run" = no ] && printf '# TOTAL: 1\n# PASS: 0\n# FAIL: 1\n'
	exit 1
fi
if [ -z "$rc" ]; then
	echo "numa-vm-check: the VM stopped without a status (qemu exit $qrc)" >&2
	tail -5 "$work/qemu.err" >&2
	tail -20 "$log" >&2
	exit 1
fi
say "VM ran $vm_s s"
# The matplotlib figures of run-all's result set, drawn natively.
if [ "$have_run" = no ] && [ -f "$out/results/run-all.conf" ]; then
	if "$build/plots/regen" "$out/results" >"$work/regen.log" 2>&1 &&
		ls "$out/results/figures"/*.svg >/dev/null 2>&1; then
		say "PASS: plots/regen on the host: $(find "$out/results/figures" -type f | wc -l) figure files" \
			"($(find "$out/results/figures" -name '*.svg' | wc -l) SVG)"
	else
		tail -20 "$work/regen.log" >&2
		say "FAIL: plots/regen on the host (log: $work/regen.log)"
		[ "$rc" -ne 0 ] || rc=1
	fi
fi
if [ "$have_run" = no ] && [ -n "$bundle_tgz" ]; then
	emu_bundle_figures "$build" "$out" "$work/regen-bundle.log" || { [ "$rc" -ne 0 ] || rc=1; }
fi
say "$(elapsed) s in all"
if [ "$rc" -eq 0 ]; then
	ok=yes
	# a --build tree keeps its vm-out; a temporary one goes with the work directory
	exit 0
fi
exit "$rc"
