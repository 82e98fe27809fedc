# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# tests/emu-common.sh - what tests/cross-check.sh, tests/numa-vm-check.sh
# (also inside its VM) and tests/slurm-check.sh share, sourced (bash): their
# work directory, Debian packages, the copy of the source tree, and checks
# counted into automake's summary. Each function prints its messages as
# "$me: ...".

# emu_workdir DIR_VAR PREFIX: sets work (DIR_VAR's value, kept, or a new
# mktemp -d directory named PREFIX.XXXXXX, removed at exit if ok=yes) and
# keep, and the EXIT trap that removes or keeps it.
emu_workdir() {
	local given=${!1:-}
	if [ -n "$given" ]; then
		work=$given
		keep=yes
		mkdir -p "$work"
	else
		work=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")
		keep=no
	fi
	work=$(cd "$work" && pwd)
	ok=no
	trap emu_cleanup EXIT
}
# shellcheck disable=SC2317 # called by the EXIT trap
emu_cleanup() {
	if [ "$ok" = yes ] && [ "$keep" = no ]; then
		rm -rf "$work"
	else
		echo "$me: work directory and logs kept in $work" >&2
	fi
}

# emu_install PKG...: apt-get install the packages that are not installed
# (root only; the log in $work/apt.log). Sets updated=yes when it ran apt-get update.
emu_install() {
	local p missing=""
	updated=no
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "$me: missing Debian packages:$missing (run as root, or apt-get install them)" >&2
		exit 1
	fi
	echo "$me: installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	updated=yes
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 $missing \
		>"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; exit 1; }
}

# emu_copy_source TOP DEST [in-place-ok]: sets src to DEST, a copy of the
# source tree TOP as its working tree has it (tracked and new files),
# autogen.sh run there. An unconfigured tree that is no git checkout is
# copied whole, or with in-place-ok (an out-of-tree build) src is TOP itself.
emu_copy_source() {
	local top=$1
	src=$2
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
		if [ "${3:-}" = in-place-ok ]; then
			rmdir "$src"
			src=$top
		else
			cp -a "$top/." "$src/"
		fi
	else
		echo "$me: $top is neither a git checkout nor an unconfigured source tree" >&2
		exit 1
	fi
}

# Checks, each one TAP-like line, counted into the summary in automake's
# format ("# PASS: n" ...) that .ci/run adds to its tally.
# emu_checks LOG: start counting (the global array sum); the checks' output
# goes to LOG.
emu_checks() {
	emu_check_log=$1
	declare -gA sum=([TOTAL]=0 [PASS]=0 [SKIP]=0 [XFAIL]=0 [FAIL]=0 [XPASS]=0 [ERROR]=0)
}
# emu_check NAME COMMAND...: run COMMAND (its output to the log); PASS or
# FAIL with its time, and on a failure the last lines of its output.
emu_check() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s)
	echo "--- $name" >>"$emu_check_log"
	"$@" >>"$emu_check_log" 2>&1 || rc=$?
	sum[TOTAL]=$((sum[TOTAL] + 1))
	if [ "$rc" -eq 0 ]; then
		sum[PASS]=$((sum[PASS] + 1))
		echo "PASS: $name ($(($(date +%s) - t0)) s)"
	else
		sum[FAIL]=$((sum[FAIL] + 1))
		echo "FAIL: $name (exit $rc, $(($(date +%s) - t0)) s; log: $emu_check_log)"
		tail -15 "$emu_check_log" | sed 's/^/  | /'
	fi
	return 0
}
# emu_summary TITLE: the counts; emu_passed: 0 when some check passed and
# none failed or erred.
emu_summary() {
	local k
	echo "============================================================================"
	echo "$1"
	echo "============================================================================"
	for k in TOTAL PASS SKIP XFAIL FAIL XPASS ERROR; do
		printf '# %-6s %d\n' "$k:" "${sum[$k]}"
	done
	echo "============================================================================"
}
emu_passed() {
	[ "${sum[FAIL]}" -eq 0 ] && [ "${sum[ERROR]}" -eq 0 ] && [ "${sum[XPASS]}" -eq 0 ] && [ "${sum[PASS]}" -gt 0 ]
}
