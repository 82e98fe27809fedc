#!/bin/sh
# SPDX-License-Identifier: MIT
# test_habits.sh - what a reader of the tree (or of the tarball) can follow,
# as TAP: no comment or message cites a tracker's number ("issue N") or a
# private seed document ("seed 00N"), which a reader cannot look up: a
# comment gives the reason itself; and no line of a C header is longer than
# HEADER_MAX characters (a macro that lost its line breaks, or a comment
# that a formatter would wrap; config.h, configure's output, is not
# read). Each check is run once on a file made to
# fail it, so that a pattern that matches nothing cannot pass unnoticed.
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
HEADER_MAX=120
# The pattern is split so that this file does not match itself.
cite='iss''ue [0-9]+|se''ed 00[0-9]'

# sources: the files a reader reads, under the tree given (no build output).
sources() {
	find "$1" \( -name .git -o -name autom4te.cache -o -name '_build' -o -name '*.dir' \) -prune -o \
		-type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.hpp' -o -name '*.py' \
		-o -name '*.sh' -o -name '*.am' -o -name '*.ac' -o -name '*.gp' -o -path '*/.ci/*' \) -print |
		LC_ALL=C sort
}
# citations DIR: the lines of DIR's sources that cite an issue or a seed.
citations() {
	sources "$1" | while IFS= read -r f; do
		grep -nHE "$cite" "$f" 2>/dev/null
	done
}
# long_header_lines DIR: the lines of DIR's C headers over HEADER_MAX.
long_header_lines() {
	find "$1" \( -name .git -o -name '_build' \) -prune -o -type f \( -name '*.h' -o -name '*.hpp' \) ! -name config.h -print |
		LC_ALL=C sort | while IFS= read -r f; do
		awk -v max="$HEADER_MAX" 'length($0) > max { printf "%s:%d: %d characters\n", FILENAME, FNR, length($0) }' "$f"
	done
}

# The checks fail where they should: a scratch tree with one of each fault.
mkdir -p "$tmp/bad/sub"
printf '/* fixed in %s 12 */\nint x;\n' "iss""ue" >"$tmp/bad/sub/a.c"
printf '# from %s 003\n' "se""ed" >"$tmp/bad/b.py"
awk 'BEGIN { printf "#define LONG "; for (i = 0; i < 130; i++) printf "x"; print "" }' >"$tmp/bad/c.h"
printf '/* fine */\n' >"$tmp/bad/d.h"
check "a cited issue and seed are found in a scratch tree" \
	test "$(citations "$tmp/bad" | wc -l)" -eq 2
check "a header line of 144 characters is found in a scratch tree" \
	test "$(long_header_lines "$tmp/bad" | wc -l)" -eq 1

citations "$src" | grep -v '/tests/test_habits.sh:' >"$tmp/cites"
sed 's/^/# /' "$tmp/cites" | head -20
check "no comment cites an issue number or a seed document ($(wc -l <"$tmp/cites") lines)" \
	test ! -s "$tmp/cites"
long_header_lines "$src" >"$tmp/long"
sed 's/^/# /' "$tmp/long" | head -20
check "no C header line over $HEADER_MAX characters ($(wc -l <"$tmp/long") lines)" test ! -s "$tmp/long"
tap_done
