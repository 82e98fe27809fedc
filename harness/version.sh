#!/bin/sh
# SPDX-License-Identifier: MIT
# version.sh PROG - the --version line of the project's scripts (run-all.sh,
# test.sh, deps.sh, plots/regen, plots/compare, plots/atlas): "PROG (scounters)
# VERSION", the version of configure.ac's AC_INIT (the one place it is
# written; scbench --version has it from configure), and ", revision R" when
# harness/revision.sh knows it (a git checkout, or a tarball's .revision).
top=$(cd "$(dirname "$0")/.." && pwd)
v=$(sed -n 's/^AC_INIT(\[scounters\], *\[\([^]]*\)\].*/\1/p' "$top/configure.ac" 2>/dev/null)
# A bundle (make bundle) has no configure.ac: its harness/BUNDLE says the version.
[ -n "$v" ] || v=$(sed -n 's/^version=\([0-9A-Za-z.+-]*\)$/\1/p' "$top/harness/BUNDLE" 2>/dev/null)
r=$("$top/harness/revision.sh" "$top")
[ "$r" = unknown ] && r=""
echo "${1:-scounters} (scounters) ${v:-unknown}${r:+, revision $r}"
