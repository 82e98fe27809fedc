#!/bin/sh
# SPDX-License-Identifier: MIT
# test_readme.sh - README.md is two screens that stay true:
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

# The embed recipe with a prefix of one's own, as README words it (it
# failed as written before PKG_CONFIG_PATH and the rpath were named): the
# library and headers installed under P, the .pc that ./configure --prefix=P
# writes (this build's, its prefix line P: the .pc.in substitutes nothing else
# that depends on it), then README's command with README's two additions.
P=$tmp/prefix
recipe=$(tr '\n' ' ' <"$readme")
case $recipe in
*'`cc app.c $(pkg-config --cflags --libs scounters)`'*'`export PKG_CONFIG_PATH=P/lib/pkgconfig`'*'`-Wl,-rpath,P/lib`'*)
	check "README.md words the prefix recipe (PKG_CONFIG_PATH, rpath)" true ;;
*) check "README.md words the prefix recipe (PKG_CONFIG_PATH, rpath)" false ;;
esac
if [ -f counters/libscounters.la ] && [ -f counters/scounters.pc ] && [ -n "${CC:-}" ] &&
	command -v pkg-config >/dev/null 2>&1; then
	${MAKE:-make} install-libLTLIBRARIES install-scountersincludeHEADERS \
		install-nodist_scountersincludeHEADERS prefix="$P" >"$tmp/install.log" 2>&1
	mkdir -p "$P/lib/pkgconfig" &&
		sed "s|^prefix=.*|prefix=$P|" counters/scounters.pc >"$P/lib/pkgconfig/scounters.pc"
	check "installed under a prefix of one's own" test -s "$P/include/scounters/scounters.h" -a -e "$P/lib/libscounters.so"
	# shellcheck disable=SC2046,SC2086
	check "README.md's recipe under the prefix builds" sh -c 'cd "$1" && export PKG_CONFIG_PATH="$2/lib/pkgconfig" &&
		$3 $4 app.c $(pkg-config --cflags --libs scounters) -Wl,-rpath,"$2/lib" -o app-prefix' _ "$tmp" "$P" "$CC" "${SC_CFLAGS:-}"
	check "README.md's recipe under the prefix runs: prints 1, the prefix's library" sh -c '
		[ "$(env -u LD_LIBRARY_PATH "$1/app-prefix")" = 1 ] &&
		env -u LD_LIBRARY_PATH ldd "$1/app-prefix" | grep -q "libscounters.so.* => $2/lib/"' _ "$tmp" "$P"
	# shellcheck disable=SC2046,SC2086
	check "without the rpath it does not load (why README names it)" sh -c 'cd "$1" && export PKG_CONFIG_PATH="$2/lib/pkgconfig" &&
		$3 $4 app.c $(pkg-config --cflags --libs scounters) -o app-norpath && ! env -u LD_LIBRARY_PATH ./app-norpath >/dev/null 2>&1' _ "$tmp" "$P" "$CC" "${SC_CFLAGS:-}"
else
	skip "installed under a prefix of one's own" "no built library, CC or pkg-config here"
	skip "README.md's recipe under the prefix builds" "no built library, CC or pkg-config here"
	skip "README.md's recipe under the prefix runs: prints 1, the prefix's library" "no built library, CC or pkg-config here"
	skip "without the rpath it does not load (why README names it)" "no built library, CC or pkg-config here"
fi
tap_done
