#!/bin/sh
# SPDX-License-Identifier: MIT
# test_licence.sh - every source file of the tree carries the line
# "SPDX-License-Identifier: MIT" near its top, in its own comment syntax, and
# LICENSE is the MIT licence; as TAP.
#
# Which files are sources, and how each comments, is decided here once:
#   tests/test_licence.sh --list    prints "STYLE PATH" for every source file
# (STYLE: c for /* */, hash for #, roff for .\"), paths relative to the top of
# the tree; a script that adds the identifiers reads that list. Sources: C and
# C++ (.c .h .cc and .h.in), shell (.sh, .test, and scripts without a suffix
# whose first line starts a shell), Python, gnuplot, Makefile.am,
# configure.ac, m4 files of our own (those git tracks; autoreconf's copies
# are ignored, and Autoconf Archive ax_*.m4 keep their own licence), the .in
# templates, and the section-3 man pages. Not
# sources: documents (.md, LICENSE, NEWS), data (.json, .csv, result sets,
# tests/fixtures/results-small) and generated files (git ignores them).
# The files are those git knows (tracked, or new and not ignored), so this
# needs a git checkout; from a tarball it is skipped (77), saying so.
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}

# The style of one file ($1, relative to $top), or nothing if not a source.
style_of() {
	case $1 in
	results/* | tests/fixtures/results-small/* | */results-small/*) return ;;
	*.c | *.h | *.cc | *.h.in) echo c; return ;;
	*.sh | *.test | *.py | *.gp | Makefile.am | */Makefile.am | configure.ac | *.pc.in) echo hash; return ;;
	m4/*.m4)
		case ${1#m4/} in ax_*) return ;; esac
		echo hash; return ;;
	*.3) echo roff; return ;;
	esac
	case ${1##*/} in *.*) return ;; esac
	# No suffix: a script if its first line starts a shell or Python.
	case $(head -c 64 "$top/$1" 2>/dev/null | head -1) in
	'#!'*sh | '#!'*sh\ * | '#!'*python3*) echo hash ;;
	esac
}

list_sources() {
	git -C "$top" ls-files -co --exclude-standard | while IFS= read -r f; do
		[ -f "$top/$f" ] && [ ! -L "$top/$f" ] || continue
		s=$(style_of "$f")
		[ -n "$s" ] && printf '%s %s\n' "$s" "$f"
	done
}

# A git checkout of this tree itself: not a tarball unpacked inside another
# checkout (make distcheck under .ci/run's _ci/, which git ignores).
in_git() {
	local t
	t=$(git -C "$top" rev-parse --show-toplevel 2>/dev/null) &&
		[ "$(cd "$t" && pwd -P)" = "$(cd "$top" && pwd -P)" ]
}

if [ "${1:-}" = --list ]; then
	in_git || { echo "test_licence.sh --list: $top is not a git checkout" >&2; exit 1; }
	list_sources
	exit 0
fi

# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
command -v git >/dev/null 2>&1 && in_git ||
	{ echo "1..0 # SKIP not a git checkout of this tree (the source list comes from git)"; exit 0; }

check "LICENSE is the MIT licence" grep -q '^Permission is hereby granted, free of charge' "$top/LICENSE"
check "LICENSE names the copyright holders" grep -q '^Copyright (c) 2026 the scounters authors' "$top/LICENSE"

list_sources >"$tmp/sources"
nsrc=$(wc -l <"$tmp/sources")
# Sanity: the list sees each kind of source (so an empty or broken list fails).
for probe in "c counters/counter.c" "c counters/scounters/sc_counter.h" "hash run-all.sh" \
	"hash configure.ac" "hash Makefile.am" "hash plots/regen" "hash plots/report.py" \
	"hash plots/gnuplot/common.gp" "hash .ci/run"; do
	check "source list has: $probe" grep -qxF "$probe" "$tmp/sources"
done
check "no result set or fixture data in the source list" sh -c \
	"! grep -E ' (results/|tests/fixtures/results-small/)|\\.(json|csv|md)\$' '$tmp/sources'"

# The identifier: in the first two lines (a shebang may come first), as a
# comment of the file's own syntax.
missing=0
while read -r s f; do
	case $s in
	c) pat='^/\* SPDX-License-Identifier: MIT \*/$' ;;
	hash) pat='^# SPDX-License-Identifier: MIT$' ;;
	roff) pat='^\.\\" SPDX-License-Identifier: MIT$' ;;
	esac
	if ! head -2 "$top/$f" | grep -q "$pat"; then
		missing=$((missing + 1))
		echo "# no SPDX-License-Identifier line ($s style) in the first two lines: $f"
	fi
done <"$tmp/sources"
check "all $nsrc source files carry SPDX-License-Identifier: MIT ($missing do not)" [ "$missing" -eq 0 ]
tap_done
