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
# And no file or function too long to read (FILE_MAX, FUNC_MAX below).
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

# Sizes a reader can hold in mind: no file of the library, the harness, the
# workloads or the plots over FILE_MAX lines; no function anywhere (tests
# included) over FUNC_MAX lines. A C function runs from its brace at column 0
# to the next brace at column 0, a shell function from "name() {" to the next
# "}" at column 0 (one-line functions are one line), a Python function from its
# def to its last line (ast). The tests' own C, header and shell files are
# held to FILE_MAX too (long_test_files), but the fixtures and mutant patches
# (data, not code to read).
FILE_MAX=450
FUNC_MAX=80
# long_files DIR: the library, harness, workload and plot files of DIR over FILE_MAX lines.
long_files() {
	for d in counters harness workloads plots; do
		[ -d "$1/$d" ] && find "$1/$d" \( -name '*.c' -o -name '*.h' -o -name '*.hpp' -o -name '*.py' \
			-o -name '*.sh' \) ! -name config.h ! -name sc_config.h -print
	done | LC_ALL=C sort | while IFS= read -r f; do
		awk -v max="$FILE_MAX" 'END { if (NR > max) printf "%s: %d lines\n", FILENAME, NR }' "$f"
	done
}
# long_test_files DIR: the C, header, shell and Python files under DIR/tests
# over FILE_MAX lines, but tests/fixtures and tests/mutants.
long_test_files() {
	[ -d "$1/tests" ] || return 0
	find "$1/tests" \( -path "$1/tests/fixtures" -o -path "$1/tests/mutants" \) -prune -o -type f \
		\( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.sh' -o -name '*.test' \
		-o -name '*.py' \) -print |
		LC_ALL=C sort | while IFS= read -r f; do
		awk -v max="$FILE_MAX" 'END { if (NR > max) printf "%s: %d lines\n", FILENAME, NR }' "$f"
	done
}
# long_functions DIR: the C and shell functions of DIR's sources over FUNC_MAX
# lines (build-aux/ holds autotools' scripts, not ours).
long_functions() {
	sources "$1" | grep -E '\.(c|h|cc|hpp|sh)$' | grep -v '/build-aux/' | while IFS= read -r f; do
		awk -v max="$FUNC_MAX" '
			/^[A-Za-z_][A-Za-z_0-9]*\(\) *\{/ && !/\} *$/ { s = FNR; next }
			/^\{/ { s = FNR }
			/^\}/ && s { if (FNR - s + 1 > max) printf "%s:%d: %d lines\n", FILENAME, s, FNR - s + 1; s = 0 }' "$f"
	done
}
# long_python_functions DIR: the Python functions of DIR's sources over FUNC_MAX lines.
long_python_functions() {
	sources "$1" | grep '\.py$' | "$PY" -c 'import ast, sys
for f in sys.stdin.read().split("\n"):
    if not f:
        continue
    with open(f, encoding="utf-8") as src:
        tree = ast.parse(src.read(), f)
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            size = n.end_lineno - n.lineno + 1
            if size > int(sys.argv[1]):
                print("%s:%d: %s, %d lines" % (f, n.lineno, n.name, size))' "$FUNC_MAX"
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
mkdir -p "$tmp/bad/counters" "$tmp/bad/tests"
awk 'BEGIN { for (i = 0; i <= 450; i++) print "int x" i ";" }' >"$tmp/bad/counters/long.c"
awk 'BEGIN { print "void f(void)\n{"; for (i = 0; i < 80; i++) print "\tg();"; print "}" }' >"$tmp/bad/tests/f.c"
awk 'BEGIN { print "f() {"; for (i = 0; i < 80; i++) print "\ttrue"; print "}\nok() { true; }\n{\n}" }' >"$tmp/bad/tests/f.sh"
awk 'BEGIN { print "def f():"; for (i = 0; i < 80; i++) print "    pass" }' >"$tmp/bad/tests/f.py"
check "a file of $((FILE_MAX + 1)) lines is found in a scratch tree" \
	test "$(long_files "$tmp/bad" | wc -l)" -eq 1
check "a C and a shell function of $((FUNC_MAX + 2)) lines are found in a scratch tree" \
	test "$(long_functions "$tmp/bad" | wc -l)" -eq 2
# Test files of FILE_MAX + 1 lines: found in tests/ (C, header, shell,
# Python), not in its fixtures or mutants.
mkdir -p "$tmp/bad/tests/fixtures" "$tmp/bad/tests/mutants"
for f in tests/long.c tests/long.h tests/long.sh tests/long.py tests/fixtures/long.sh \
	tests/mutants/long.c; do
	awk -v n="$FILE_MAX" 'BEGIN { for (i = 0; i <= n; i++) print "# " i }' >"$tmp/bad/$f"
done
check "test files of $((FILE_MAX + 1)) lines are found in a scratch tree's tests/, but fixtures and mutants" \
	test "$(long_test_files "$tmp/bad" | wc -l)" -eq 4

citations "$src" | grep -v '/tests/test_habits.sh:' >"$tmp/cites"
sed 's/^/# /' "$tmp/cites" | head -20
check "no comment cites an issue number or a seed document ($(wc -l <"$tmp/cites") lines)" \
	test ! -s "$tmp/cites"
long_header_lines "$src" >"$tmp/long"
sed 's/^/# /' "$tmp/long" | head -20
check "no C header line over $HEADER_MAX characters ($(wc -l <"$tmp/long") lines)" test ! -s "$tmp/long"
long_files "$src" >"$tmp/files"
sed 's/^/# /' "$tmp/files"
check "no library, harness, workload or plot file over $FILE_MAX lines ($(wc -l <"$tmp/files"))" \
	test ! -s "$tmp/files"
long_test_files "$src" >"$tmp/testfiles"
sed 's/^/# /' "$tmp/testfiles"
check "no test file over $FILE_MAX lines ($(wc -l <"$tmp/testfiles"))" \
	test ! -s "$tmp/testfiles"
long_functions "$src" >"$tmp/funcs"
sed 's/^/# /' "$tmp/funcs"
check "no C or shell function over $FUNC_MAX lines ($(wc -l <"$tmp/funcs"))" test ! -s "$tmp/funcs"
PY=""
for c in /usr/bin/python3 python3; do
	command -v "$c" >/dev/null 2>&1 && "$c" -c 'import ast; ast.parse("x").body[0].end_lineno' \
		2>/dev/null && { PY=$c; break; }
done
if [ -n "$PY" ]; then
	check "a Python function of $((FUNC_MAX + 1)) lines is found in a scratch tree" \
		test "$(long_python_functions "$tmp/bad" | wc -l)" -eq 1
	long_python_functions "$src" >"$tmp/pyfuncs"
	sed 's/^/# /' "$tmp/pyfuncs"
	check "no Python function over $FUNC_MAX lines ($(wc -l <"$tmp/pyfuncs"))" test ! -s "$tmp/pyfuncs"
else
	skip "python_function_sizes" "no python3 of 3.8 or later (ast end_lineno)"
fi
tap_done
