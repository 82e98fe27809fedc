#!/bin/sh
# SPDX-License-Identifier: MIT
# test_decision.sh - the report's sequential rule simulated from the reference result
# sets' run-to-run residuals (tests/test_decision.py says how): its false-verdict rate
# with the true ratio on a claim's line and its power at 5%, 10% and 20% effects, as
# TAP. Skipped where there is no python3 or no reference set (a dist tarball carries
# none).
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
py=""
for c in /usr/bin/python3 python3; do
	if command -v "$c" >/dev/null 2>&1; then py=$c; break; fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP no python3: the claims' rules cannot run"
	exit 0
fi
if ! ls "$top"/results/reference/*/dice-fig3.csv >/dev/null 2>&1; then
	echo "1..0 # SKIP no reference result set in this tree: no residuals to simulate from"
	exit 0
fi
exec "$py" -B "$top/tests/test_decision.py" "$top"
