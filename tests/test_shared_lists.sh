#!/bin/sh
# SPDX-License-Identifier: MIT
# test_shared_lists.sh - what run-all (harness/runall/) and the plots (plots/)
# share is declared once, as TAP: the experiment list in
# harness/runall/experiments.json, the baseline variants and the thread limit
# in scbench (its registry and its CSV schema, plots/csv_schema.json, which
# tests/test_csv_schema.sh keeps current). A literal copy of a list in the
# Python fails here.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

# Both sides read the one experiment list, in its order.
cd "$TOP_SRCDIR" || exit 1
"$PY" - >"$tmp/exp.out" 2>&1 <<'PYEOF'
import json, sys
sys.path.insert(0, "plots")
sys.path.insert(0, "harness")
import resultset
from runall import plan
ids = [e["id"] for e in json.load(open("harness/runall/experiments.json"))["experiments"]]
assert plan.EXPERIMENTS == ids, (plan.EXPERIMENTS, ids)
assert sorted(resultset.PLAN_SOURCES) == sorted(i + ".csv" for i in ids), resultset.PLAN_SOURCES
assert set(resultset.SOURCES) | set(resultset.CLAIM_ONLY_CSV.values()) == set(resultset.PLAN_SOURCES)
PYEOF
exp_rc=$?
check experiment_list_read_by_both sh -c "test $exp_rc -eq 0 && test ! -s '$tmp/exp.out' ||
	{ sed 's/^/# /' '$tmp/exp.out'; exit 1; }"
# A copy: a list, tuple or set literal, or a dict of names to names, in the
# Python naming six or more experiments (with or without .csv), every
# claim-only one, or four or more baseline variants (a claim or figure naming
# a few of them is not a copy; nor is a table of figures to drawing functions).
"$PY" - >"$tmp/copies.out" 2>&1 <<'PYEOF'
import ast, glob, json, sys
sys.path.insert(0, "plots")
import schema
exps = json.load(open("harness/runall/experiments.json"))["experiments"]
ids = {e["id"] for e in exps}
claim_only = {e["id"] for e in exps if not e["figures"]}
baselines = set(schema.load()["baselines"])
for path in sorted(glob.glob("plots/*.py") + glob.glob("plots/claims/*.py")
                   + glob.glob("harness/runall/*.py")):
    for node in ast.walk(ast.parse(open(path, encoding="utf-8").read(), path)):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            elts = node.elts
        elif isinstance(node, ast.Dict) and all(isinstance(v, ast.Constant) for v in node.values):
            elts = [k for k in node.keys if k is not None] + node.values  # a table of names
        else:
            continue
        texts = {e.value[:-4] if e.value.endswith(".csv") else e.value for e in elts
                 if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        if len(texts & ids) >= 6 or claim_only <= texts or len(texts & baselines) >= 4:
            print("%s:%d: a copy of a shared list" % (path, node.lineno))
PYEOF
check no_copy_of_a_shared_list sh -c "test ! -s '$tmp/copies.out' ||
	{ sed 's/^/# /' '$tmp/copies.out'; exit 1; }"
cd - >/dev/null || exit 1

# The thread limit: scbench's (CLI_MAX_THREADS, in its schema); run-all, which
# checks options before any scbench runs, states it in plan.py alone.
max=$("$SCBENCH" --list=json | "$PY" -c 'import json, sys
print([c for c in json.load(sys.stdin)["csv_schema"]["columns"] if c["name"] == "threads"][0]["max"])')
runall_max=$(cd "$TOP_SRCDIR/harness" && "$PY" -c 'from runall import plan; print(plan.MAX_THREADS)')
check runall_thread_limit_is_scbench_s test -n "$max" -a "$max" = "$runall_max"
grep -nE "(^|[^0-9])$max([^0-9]|\$)" "$TOP_SRCDIR"/plots/*.py "$TOP_SRCDIR"/plots/claims/*.py \
	"$TOP_SRCDIR"/harness/runall/*.py | grep -v '/harness/runall/plan.py:' >"$tmp/limit.out"
check thread_limit_only_in_plan sh -c "test -n '$max' && test ! -s '$tmp/limit.out' ||
	{ sed 's/^/# /' '$tmp/limit.out'; exit 1; }"
tap_done
