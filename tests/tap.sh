# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# tap.sh - the TAP helpers of the shell tests, sourced (POSIX sh):
#   . "$(dirname "$0")/tap.sh"
# makes $tmp (a mktemp -d directory removed at exit), sets PY (a python3),
# and defines ok, not_ok, check NAME CMD... and tap_done (the plan line and
# the exit status).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX")
trap 'rm -rf "$tmp"' EXIT
PY=python3
command -v "$PY" >/dev/null 2>&1 || PY=/usr/bin/python3
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
check() { tap_name=$1; shift; if "$@"; then ok "$tap_name"; else not_ok "$tap_name"; fi; }
tap_done() { echo "1..$n"; [ "$failed" -eq 0 ]; }
