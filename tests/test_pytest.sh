#!/bin/sh
# SPDX-License-Identifier: MIT
# test_pytest.sh - the pytest modules of plots/ and harness/runall/ (their
# tests/ folders) as TAP: one line per test, named by its pytest node id, from
# pytest's JUnit XML report, then a line for each pytest run's exit status.
# The Python is PYTHON_PYTEST (configure's Python that imports pytest), else
# the first of /usr/bin/python3, python3 that does; with none (or a
# PYTHON_PYTEST that cannot import it) the whole test is skipped with its
# reason.
#
# Nothing is written into the source tree (it may be read-only, as under
# make distcheck): no bytecode (PYTHONDONTWRITEBYTECODE, -B), no
# .pytest_cache (-p no:cacheprovider), pytest's tmp_path under $tmp.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

py=${PYTHON_PYTEST:-}
if [ -z "$py" ]; then
	for c in /usr/bin/python3 python3; do
		if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import pytest' 2>/dev/null; then
			py=$c; break
		fi
	done
fi
if [ -z "$py" ]; then
	echo "1..0 # SKIP no Python with pytest (apt-get install python3-pytest)"
	exit 0
fi
if ! "$py" -c 'import pytest' >/dev/null 2>&1; then
	echo "1..0 # SKIP PYTHON_PYTEST=$py cannot import pytest (apt-get install python3-pytest)"
	exit 0
fi
PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg TOP_SRCDIR=$top
export PYTHONDONTWRITEBYTECODE MPLBACKEND TOP_SRCDIR

# to_tap XML: one TAP line a test case of the JUnit report XML, numbered on
# from $n; a failure's message as comments.
to_tap() {
	"$py" -B - "$1" "$n" <<'PYEOF'
import sys
import xml.etree.ElementTree as ET
n = int(sys.argv[2])
try:
    cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
except (OSError, ET.ParseError) as e:
    cases = []
    print("# no JUnit report: %s" % e)
for c in cases:
    n += 1
    name = "%s::%s" % (c.get("classname", ""), c.get("name", ""))
    bad = c.find("failure") if c.find("failure") is not None else c.find("error")
    skip = c.find("skipped")
    if bad is not None:
        print("not ok %d - %s" % (n, name))
        for line in ((bad.get("message") or "") + "\n" + (bad.text or "")).splitlines()[-30:]:
            print("# " + line)
    elif skip is not None:
        print("ok %d - %s # SKIP %s" % (n, name, (skip.get("message") or "").replace("\n", " ")))
    else:
        print("ok %d - %s" % (n, name))
PYEOF
}

for dir in plots/tests harness/runall/tests; do
	name=$(echo "$dir" | tr / _)
	"$py" -B -m pytest -q -p no:cacheprovider --basetemp="$tmp/$name" \
		--junitxml="$tmp/$name.xml" "$top/$dir" >"$tmp/pytest.log" 2>&1
	rc=$?
	to_tap "$tmp/$name.xml" >"$tmp/tap"
	cat "$tmp/tap"
	n=$((n + $(grep -c '^\(not \)\?ok ' "$tmp/tap")))
	failed=$((failed + $(grep -c '^not ok ' "$tmp/tap")))
	tail -n 3 "$tmp/pytest.log" | sed 's/^/# /'
	if [ $rc -ne 0 ]; then sed 's/^/# /' "$tmp/pytest.log" | tail -n 60; fi
	check "pytest_exit_status_$name (exit $rc)" test $rc -eq 0
done
tap_done
