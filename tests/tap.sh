# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# tap.sh - the TAP helpers of the shell tests, sourced (POSIX sh):
#   . "$(dirname "$0")/tap.sh"
# makes $tmp (a mktemp -d directory removed at exit), sets PY and PYTHON (a python3),
# and defines ok, not_ok, check NAME CMD..., skip NAME REASON (a check that
# cannot run here, with its reason), tap_done (the plan line and the exit
# status), need_reference and need_python (below).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# The system's python3 first, as run-all.sh and plots/compare choose theirs:
# a python3 earlier on PATH may be a version manager's shim, which starts a
# shell pipeline on every call (3.5 s a start against 0.4 s for the system's
# on a busy 2-core guest). PYTHON carries the choice to plots/regen.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
PYTHON=$PY
export PYTHON
# matplotlib's config and cache directory in $tmp where HOME cannot take it
# (a run as nobody, HOME=/nonexistent): the tests' own imports of matplotlib
# then neither warn nor write outside $tmp (the tools do the same themselves:
# plots/mpl_home.py)
if [ -z "${MPLCONFIGDIR:-}" ]; then
	for tap_d in "${XDG_CONFIG_HOME:-${HOME:-/nonexistent}/.config}" "${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}"; do
		while [ ! -e "$tap_d" ] && [ "$tap_d" != / ]; do tap_d=$(dirname "$tap_d"); done
		if [ ! -d "$tap_d" ] || [ ! -w "$tap_d" ]; then
			mkdir -p "$tmp/mpl" && MPLCONFIGDIR=$tmp/mpl && export MPLCONFIGDIR
			break
		fi
	done
fi
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { tap_name=$1; shift; if "$@"; then ok "$tap_name"; else not_ok "$tap_name"; fi; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
# scbench_has_hwloc: the scbench under test was built with hwloc (a build
# without it, as the aarch64 cross-check makes, has no synthetic topologies).
scbench_has_hwloc() {
	"$SCBENCH" --counter=FetchAdd --ops=10 --runs=1 --output="$tmp/hwloc-probe.csv" >/dev/null 2>&1 &&
		! grep -q '(no hwloc' "$tmp/hwloc-probe.csv.meta.json"
}
tap_done() { echo "1..$n"; [ "$failed" -eq 0 ]; }
# need_reference NAME: ref set to the source tree's reference result set
# (results/reference/kvm-epyc-2pu); without it (a dist tarball carries none)
# the check NAME skipped and the test ended.
need_reference() {
	ref=$TOP_SRCDIR/results/reference/kvm-epyc-2pu
	[ -d "$ref" ] && return 0
	skip "$1" "no results/reference in this tree"
	tap_done
	exit
}
# need_python WHY: py set to a python3 (/usr/bin/python3 first); with none,
# the whole test skipped ("1..0 # SKIP no python3: WHY", exit 0).
need_python() {
	for py in /usr/bin/python3 python3 ""; do
		[ -n "$py" ] && command -v "$py" >/dev/null 2>&1 && return 0
	done
	echo "1..0 # SKIP no python3: $1"
	exit 0
}
# runall_tree: run-all.sh and its program (harness/runall/) copied into $tmp,
# with $tmp/fake-scbench (tests/fake-scbench.sh), which answers --list=json
# with the listing of the real $SCBENCH (FAKE_LIST, exported); status 1 when
# a copy fails.
runall_tree() {
	cp "$TOP_SRCDIR/run-all.sh" "$tmp/run-all.sh" && mkdir "$tmp/harness" &&
		cp -r "$TOP_SRCDIR/harness/runall" "$tmp/harness/" &&
		cp "$TOP_SRCDIR/tests/fake-scbench.sh" "$tmp/fake-scbench" &&
		chmod +x "$tmp/fake-scbench" && "$SCBENCH" --list=json >"$tmp/list.json" &&
		FAKE_LIST=$tmp/list.json && export FAKE_LIST
}
# Columns by name, never by number (the CSV schema lives in harness/csv.h):
# csvawk [-v VAR=VALUE]... PROG FILE...: awk -F, over CSV files whose first
#   line names the columns; in PROG, $col("name") is the named column. A name
#   the first file's header lacks is an error (status 3), found before awk runs.
# csvcut NAMES FILE: the columns of the comma list NAMES, in that order,
#   header included (as cut -d, -f would give them).
csvawk() {
	csvawk_v=
	while [ "$1" = -v ]; do csvawk_v="$csvawk_v -v $2"; shift 2; done
	csvawk_prog=$1
	shift
	csvawk_head=$(head -1 "$1")
	for csvawk_name in $(printf '%s\n' "$csvawk_prog" | grep -o 'col("[^"]*")' | sed 's/^col("//; s/")$//'); do
		case ",$csvawk_head," in
		*",$csvawk_name,"*) ;;
		*) echo "csvawk: $1 has no column $csvawk_name" >&2; return 3 ;;
		esac
	done
	# shellcheck disable=SC2086 # csvawk_v holds -v options, split on purpose
	awk -F, $csvawk_v 'function col(name) { return c_[name] }
		FNR == 1 { for (i = 1; i <= NF; i++) c_[$i] = i }
		'"$csvawk_prog" "$@"
}
csvcut() {
	awk -F, -v names="$1" 'FNR == 1 {
		n = split(names, want, ",")
		for (i = 1; i <= NF; i++) c_[$i] = i
		for (j = 1; j <= n; j++) if (!(want[j] in c_)) { print "csvcut: no column " want[j] | "cat 1>&2"; exit 3 }
	}
	{ line = ""; for (j = 1; j <= n; j++) line = line (j > 1 ? "," : "") $(c_[want[j]]); print line }' "$2"
}
