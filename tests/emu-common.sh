# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# tests/emu-common.sh - what tests/cross-check.sh and tests/numa-vm-check.sh
# share, sourced by both (bash): their work directory, Debian packages and
# the copy of the source tree. Each function prints its messages as "$me: ...".

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
