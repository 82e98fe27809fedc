#!/bin/sh
# SPDX-License-Identifier: MIT
# test_readme.sh - README.md is two screens that stay true (issue 30, item 4):
# at most 100 lines; the test command CI takes from it (.ci/run) is there;
# its links into the tree resolve; its scbench command runs (shortened) and
# prints the table README shows; its C program builds against this tree and
# runs.
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-.}
readme=$src/README.md
SB=${SCBENCH:-harness/scbench}

check "README.md is at most two screens ($(wc -l <"$readme") lines)" \
	[ "$(wc -l <"$readme")" -le 100 ]
check "README.md has the test command .ci/run runs" grep -qx '    \$ \./test\.sh' "$readme"
check "README.md has the main job's command" grep -qx '    \$ \./run-all\.sh --quick' "$readme"
grep -o '](\([^)#]*\))' "$readme" | sed 's/^](//; s/)$//' >"$tmp/links"
check "README.md links into the tree ($(wc -l <"$tmp/links"))" [ -s "$tmp/links" ]
while read -r l; do
	check "README.md link $l exists" test -e "$src/$l"
done <"$tmp/links"

# The scbench command as written, made short (later options win).
cmd=$(sed -n 's/^    \$ harness\/scbench \(.*\)$/\1/p' "$readme")
check "README.md shows a scbench command" [ -n "$cmd" ]
# shellcheck disable=SC2086
"$SB" $cmd --duration=0.01 --warmup=0 --output="$tmp/fs.csv" --summary >/dev/null 2>"$tmp/table"
check "README.md's scbench command runs" test -s "$tmp/fs.csv"
hdr=$(grep -A1 '^    \$ harness/scbench' "$readme" | tail -1 | sed 's/^    //')
check "README.md's table header is scbench's" grep -qxF "$hdr" "$tmp/table"
check "README.md's table has scbench's lines" sh -c '[ "$(grep -c "^FetchAdd  *[0-9]\|^Sharded  *[0-9]" "$1")" -eq 4 ]' _ "$tmp/table"
check "README.md's closing line is scbench's" sh -c 'grep -Eq "^    [A-Za-z]+ ran [0-9.]+x faster than FetchAdd at 2 threads$" "$1" &&
	grep -Eq "^([A-Za-z]+ ran [0-9.]+x faster than FetchAdd|FetchAdd \(the baseline\) ran fastest) at 2 threads$" "$2"' _ "$readme" "$tmp/table"

# The C program: the indented block from its #include to its closing brace.
awk '/^    #include <scounters/ { on = 1 } on { sub(/^    /, ""); print } on && /^}$/ { exit }' \
	"$readme" >"$tmp/app.c"
check "README.md's C program is ten lines or so ($(grep -c . "$tmp/app.c") not blank)" \
	[ "$(grep -c . "$tmp/app.c")" -le 14 ]
lib=counters/.libs/libscounters.a
if [ -f "$lib" ] && [ -n "${CC:-}" ]; then
	# shellcheck disable=SC2086
	# the build's CFLAGS (make check passes them): a sanitizer build links its runtime
	check "README.md's C program builds" $CC -std=c11 ${SC_CFLAGS:-} -I"$src/counters" -Icounters \
		-o "$tmp/app" "$tmp/app.c" "$lib" -lm -pthread
	check "README.md's C program runs: prints 1" sh -c '[ "$("$1")" = 1 ]' _ "$tmp/app"
else
	skip "README.md's C program builds" "no static library or CC here"
	skip "README.md's C program runs: prints 1" "no static library or CC here"
fi
tap_done
