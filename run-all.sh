#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run-all.sh - run every experiment of doc/design.md §6 into one result set, then make
# the figures and the report. See --help.
#
# The user's entry point: it installs what is missing (deps.sh), builds
# scbench if needed, and hands over to the run-all program (harness/runall/,
# Python's standard library only), which plans, orders, runs (or runs one
# shard of) the invocations, merges the parts and calls plots/regen. The
# options are checked before anything is installed or built.
set -euo pipefail

top=$(cd "$(dirname "$0")" && pwd)
py=""
for c in /usr/bin/python3 python3; do
	if command -v "$c" >/dev/null 2>&1; then
		py=$c
		break
	fi
done
[ -n "$py" ] || { echo "run-all.sh: no python3 found (apt-get install python3)" >&2; exit 1; }
[ -f "$top/harness/runall/__main__.py" ] ||
	{ echo "run-all.sh: $top/harness/runall/ is missing: run run-all.sh from its source tree" >&2; exit 1; }

# A bundle (make bundle; harness/BUNDLE marks it) carries a static scbench:
# nothing is installed or built there, whoever runs it.
bundle=no
[ -f "$top/harness/BUNDLE" ] && bundle=yes

# The program (python3 -m runall) finds this tree in RUNALL_TOP.
export PYTHONDONTWRITEBYTECODE=1 RUNALL_TOP=$top PYTHONPATH="$top/harness${PYTHONPATH:+:$PYTHONPATH}"

# Options first (usage errors and --help need nothing installed or built):
# 0 go on, 10 --help answered, anything else is the status to exit with
# (SCBENCH_GIVEN: whether scbench is the given one, which is never built).
status=0
RUNALL_STAGE=check SCBENCH_GIVEN=${SCBENCH:+yes} SCBENCH=${SCBENCH:-$top/harness/scbench} "$py" -m runall "$@" || status=$?
case $status in
0) ;;
10) exit 0 ;;
*) exit "$status" ;;
esac

# --- dependencies and build ---------------------------------------------------
# deps.sh installs the Debian packages that are missing (SCOUNTERS_NO_INSTALL=1:
# only names them, and run-all.sh stops); not with a given SCBENCH, nor in a bundle.
if [ -z "${SCBENCH:-}" ] && [ "$bundle" = no ]; then
	"$top/deps.sh" || exit 1
	need_pkgs=""
	for tool in gcc make autoreconf libtoolize pkg-config; do
		command -v "$tool" >/dev/null 2>&1 || need_pkgs="$need_pkgs $tool"
	done
	pkg-config --exists 'hwloc >= 2.0' 2>/dev/null || need_pkgs="$need_pkgs libhwloc-dev"
	if [ -n "$need_pkgs" ]; then
		echo "run-all.sh: missing build dependencies:$need_pkgs (Debian packages: $("$top/deps.sh" --list))" >&2
		exit 1
	fi
fi
# In a bundle, on a machine where nothing can be installed: the figures can be
# drawn later on any machine that has the tools, with plots/regen DIR.
later=""
[ "$bundle" = no ] || later="; or later, where it is installed: plots/regen DIR"
command -v gnuplot >/dev/null 2>&1 ||
	echo "run-all.sh: gnuplot not found: no PNG figures (apt-get install gnuplot-nox$later)" >&2
# (found, not imported: importing it writes its config directory into HOME,
# and a dry run writes nothing)
has_mpl='import importlib.util as u, sys; sys.exit(u.find_spec("matplotlib") is None)'
if ! { [ -n "${PYTHON_MPL:-}" ] || /usr/bin/python3 -c "$has_mpl" 2>/dev/null ||
	python3 -c "$has_mpl" 2>/dev/null; }; then
	echo "run-all.sh: no Python with matplotlib: no PDF/SVG figures (apt-get install python3-matplotlib$later)" >&2
fi

scbench=${SCBENCH:-$top/harness/scbench}
if [ -z "${SCBENCH:-}" ] && [ "$bundle" = no ] && [ ! -x "$scbench" ]; then
	echo "run-all.sh: building scbench first (./autogen.sh && ./configure && make; about 2 min on 2 cores; log: build.log)" >&2
	(cd "$top" && { [ -x configure ] || ./autogen.sh; } &&
		{ [ -f Makefile ] || ./configure; } && make -j"$(nproc)") >"$top/build.log" 2>&1 ||
		{ tail -20 "$top/build.log" >&2; echo "run-all.sh: build failed; see build.log" >&2; exit 1; }
fi
[ -x "$scbench" ] || { echo "run-all.sh: $scbench is not executable" >&2; exit 1; }

# New result sets go to results/<host>-<date>/ unless --out names one (the
# program's default: harness/runall/__main__.py new_result_set).
SCBENCH=$scbench exec "$py" -m runall "$@"
