#!/bin/sh
# SPDX-License-Identifier: MIT
# check-format.sh [BASE] - the format of the lines changed since BASE (a git
# commit; default HEAD~1), never of the whole tree: reformatting untouched
# code is no part of a change.
#   C and C++ (*.c, *.h, *.cc, *.hpp): clang-format-diff with .clang-format;
#   the changes it would make are printed.
#   Python (*.py): pycodestyle with setup.cfg's settings; only its findings
#   on changed lines are printed.
# Exit status: 0 when the changed lines are formatted, 1 when not, 2 on a
# usage error or a missing tool (named). Run from anywhere in a git checkout;
# .ci/run calls it against the commit the change starts from.
set -u
me=check-format.sh
base=${1:-HEAD~1}
case $base in
-h | --help) sed -n '3,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
-*) echo "$me: unknown option $base (expected BASE or --help)" >&2; exit 2 ;;
esac
top=$(git rev-parse --show-toplevel 2>/dev/null) || { echo "$me: not in a git checkout" >&2; exit 2; }
cd "$top" || exit 2
git rev-parse -q --verify "$base^{commit}" >/dev/null || { echo "$me: no commit $base" >&2; exit 2; }
cfd=""
for c in clang-format-diff clang-format-diff-19 clang-format-diff-16 clang-format-diff-14; do
	if command -v "$c" >/dev/null 2>&1; then cfd=$c; break; fi
done
[ -n "$cfd" ] || { echo "$me: no clang-format-diff (apt-get install clang-format)" >&2; exit 2; }
py=/usr/bin/python3
[ -x "$py" ] || py=python3
"$py" -m pycodestyle --version >/dev/null 2>&1 ||
	{ echo "$me: no pycodestyle (apt-get install python3-pycodestyle)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-format.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
bad=0

# C: clang-format-diff reads the unified diff and prints what it would change.
git diff -U0 --no-color "$base" -- '*.c' '*.h' '*.cc' '*.hpp' >"$tmp/c.diff"
"$cfd" -p1 -style=file <"$tmp/c.diff" >"$tmp/c.fix" || bad=1
if [ -s "$tmp/c.fix" ]; then
	echo "$me: C lines changed since $base that .clang-format would change:"
	cat "$tmp/c.fix"
	bad=1
fi

# Python: the changed line numbers of each file (from the hunks' +start,count),
# then pycodestyle's findings on those lines only.
git diff -U0 --no-color --diff-filter=AM "$base" -- '*.py' | awk '
	/^\+\+\+ b\// { f = substr($0, 7); next }
	/^@@/ { split($3, a, ","); s = substr(a[1], 2); c = (2 in a) ? a[2] : 1
		for (i = 0; i < c; i++) print f ":" s + i }' >"$tmp/py.lines"
cut -d: -f1 "$tmp/py.lines" | sort -u >"$tmp/py.files"
if [ -s "$tmp/py.files" ]; then
	# shellcheck disable=SC2046 # file names from git, one a line, without spaces in this tree
	"$py" -m pycodestyle $(cat "$tmp/py.files") >"$tmp/py.out" 2>&1
	awk -F: 'NR == FNR { want[$1 ":" $2] = 1; next } ($1 ":" $2) in want' \
		"$tmp/py.lines" "$tmp/py.out" >"$tmp/py.bad"
	if [ -s "$tmp/py.bad" ]; then
		echo "$me: Python lines changed since $base that pycodestyle (setup.cfg) finds fault with:"
		cat "$tmp/py.bad"
		bad=1
	fi
fi
[ "$bad" -eq 0 ] && echo "$me: the lines changed since $base are formatted"
exit "$bad"
