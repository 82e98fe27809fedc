#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_run_all_shards.sh - running a plan in pieces (run-all.sh --help), as
# TAP: scbench --list=json is JSON with what run-all derives its groups
# from; --plan-only writes the plan a local run with the same seed would run
# and runs nothing; --resume DIR --shard=I/K runs the invocations j of
# run-all.order with j mod K = I, two shards together every part of the plan
# once, a shard run again only its missing parts, and no shard merges;
# --resume DIR --merge-only refuses missing parts and parts from machines of
# different kinds, and otherwise merges exactly what a local run merges,
# recording the hosts; the report's header names them. The fake scbench of
# tests/fake-scbench.sh stands in; everything is in a mktemp -d directory.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
PLOTPY=/usr/bin/python3
[ -x "$PLOTPY" ] || PLOTPY=$PY

# --- scbench --list=json ---------------------------------------------------------
"$SCBENCH" --list=json >"$tmp/list.json"
check list_json_exit_0 test $? -eq 0
"$SCBENCH" --list >"$tmp/list.txt"
check list_json_is_the_registry "$PY" -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [l.split()[0] for l in open(sys.argv[2]) if l.strip() and not l.startswith("#")]
vs = d["variants"]
defaults = set()
ok = [v["name"] for v in vs] == names and len(vs) == len(set(names)) > 0
for v in vs:
    ok = ok and v["kind"] in ("precise", "probabilistic", "racy") and v["family"]
    ok = ok and isinstance(v["bytes_per_counter"], int) and v["bytes_per_counter"] > 0
    ok = ok and all(isinstance(x, list) for x in (v["params"], v["origin"], v["groups"])) and v["origin"]
    ok = ok and set(v["groups"]) <= {"dice", "ayers", "baselines", "array", "naive"}
    ok = ok and set(v["origin"]) <= {"dice", "ayers", "baseline"}
    # the human listing shows the same keys: "[k1,k2]" at the end of its line
    line = [l for l in open(sys.argv[2]) if l.split()[:1] == [v["name"]]][0].rstrip()
    keys = [p["key"] for p in v["params"]]
    ok = ok and (line.endswith("[" + ",".join(keys) + "]") if keys else not line.endswith("]"))
    ok = ok and all(p["default"] is None or isinstance(p["default"], str) for p in v["params"])
    defaults.update((v["name"], p["key"], p["default"]) for p in v["params"])
# Defaults as the family headers state them (a sample; the listing reads them from the config).
for want in (("RBO", "backoff-min", "4"), ("RBO", "backoff-max", "1024"), ("Batched", "batch", "64"),
             ("RBONuma", "patience", "8"), ("Scalable", "width", "32")):
    ok = ok and want in defaults
sys.exit(0 if ok else 1)' "$tmp/list.json" "$tmp/list.txt"
"$SCBENCH" --list=xml >/dev/null 2>"$tmp/err"
check list_unknown_format_usage_error sh -c "test $? -eq 2 && grep -q -- '--list=xml' '$tmp/err'"

# --- the pieces ------------------------------------------------------------------
cp "$TOP_SRCDIR/run-all.sh" "$tmp/run-all.sh"
mkdir "$tmp/harness" && cp -r "$TOP_SRCDIR/harness/runall" "$tmp/harness/" || exit 1
cp "$TOP_SRCDIR/tests/fake-scbench.sh" "$tmp/fake-scbench" && chmod +x "$tmp/fake-scbench" || exit 1
export FAKE_LIST=$tmp/list.json FAKE_LOG=$tmp/log
: >"$FAKE_LOG"
run_all() { SCBENCH=$tmp/fake-scbench "$tmp/run-all.sh" "$@" >"$tmp/out" 2>"$tmp/err"; }
plan="--quick --max-threads 2 --experiments=dice-fig4-high,latency,ayers --variants=FetchAdd,Scalable,Serial"
body() { grep -v '^#' "$1"; }

# A local run, the reference for everything below.
run_all $plan --order-seed 31 --out "$tmp/local"
check local_run_exit_0 test $? -eq 0
nplan=$(wc -l <"$tmp/local/run-all.plan")

# --plan-only: the same conf, plan and order, nothing run, the directory printed.
: >"$FAKE_LOG"
run_all $plan --order-seed 31 --out "$tmp/set" --plan-only
check plan_only_exit_0 test $? -eq 0
check plan_only_prints_dir test "$(cat "$tmp/out")" = "$tmp/set"
check plan_only_runs_nothing sh -c "test ! -s '$FAKE_LOG' && test -z \"\$(find '$tmp/set/parts' -type f)\""
check plan_only_same_plan sh -c "cmp -s '$tmp/local/run-all.plan' '$tmp/set/run-all.plan' &&
	cmp -s '$tmp/local/run-all.order' '$tmp/set/run-all.order' && cmp -s '$tmp/local/run-all.conf' '$tmp/set/run-all.conf'"

# --shard: shard 0 of 2 runs the even invocations of the order, shard 1 the odd.
run_all --resume "$tmp/set" --shard=0/2
check shard_0_exit_0 test $? -eq 0
body "$tmp/set/run-all.order" | awk -v d="$tmp/set" 'NR % 2 == 1 { print d "/parts/" $1 "/" $2 ".csv" }' >"$tmp/want0"
check shard_0_runs_its_share_in_order cmp -s "$tmp/want0" "$FAKE_LOG"
check shard_does_not_merge sh -c "test -z \"\$(find '$tmp/set' -maxdepth 1 -name '*.csv')\""
# --merge-only with shard 1 not run: refused, the missing parts named.
run_all --resume "$tmp/set" --merge-only
check merge_only_missing_exit_1 test $? -eq 1
check merge_only_names_missing sh -c "grep -q 'missing: parts/' '$tmp/err' && grep -q \"$((nplan / 2)) of the plan's $nplan parts are not done\" '$tmp/err'"
check merge_only_missing_merges_nothing test -z "$(find "$tmp/set" -maxdepth 1 -name '*.csv')"
# Shard 1, on another host; a cancelled shard (one part cut, one gone) run
# again runs only those two.
: >"$FAKE_LOG"
FAKE_HOST=nodeb run_all --resume "$tmp/set" --shard=1/2
check shard_1_exit_0 test $? -eq 0
check shards_make_the_plan_once "$PY" -c '
import os, sys
d = sys.argv[1]
plan = sorted(os.path.join(d, "parts", *l.split()[:2]) + ".csv" for l in open(d + "/run-all.plan"))
ran = [l.strip() for l in open(sys.argv[2])] + [l.strip() for l in open(sys.argv[3])]
parts = sorted(os.path.join(r, f) for r, _, fs in os.walk(d + "/parts") for f in fs if f.endswith(".csv") and not f.endswith(".latency.csv"))
sys.exit(0 if sorted(ran) == plan == parts and len(set(ran)) == len(ran) else 1)' "$tmp/set" "$tmp/want0" "$FAKE_LOG"
p1=$(sed -n 1p "$tmp/want0")
p2=$(sed -n 3p "$tmp/want0")
head -1 "$p1" >"$p1.cut" && mv "$p1.cut" "$p1"
rm "$p2" "$p2.meta.json"
: >"$FAKE_LOG"
run_all --resume "$tmp/set" --shard=0/2
check shard_rerun_exit_0 test $? -eq 0
check shard_rerun_runs_only_missing sh -c "printf '%s\n%s\n' '$p1' '$p2' | cmp -s - '$FAKE_LOG'"
run_all --resume "$tmp/set" --shard=1/2
check shard_complete_runs_nothing sh -c "test $? -eq 0 && test \$(wc -l <'$FAKE_LOG') -eq 2"

# --merge-only: the merged CSVs are the local run's, the hosts recorded.
run_all --resume "$tmp/set" --merge-only
check merge_only_exit_0 test $? -eq 0
check merge_only_same_csvs sh -c "cd '$tmp/local' && for f in *.csv; do cmp -s \"\$f\" '$tmp/set/'\"\$f\" || exit 1; done &&
	test \"\$(ls '$tmp/local' | grep -c csv)\" = \"\$(ls '$tmp/set' | grep -c csv)\""
check merge_only_records_hosts "$PY" -c '
import json, sys
m = json.load(open(sys.argv[1]))["run_all"]
l = json.load(open(sys.argv[2]))["run_all"]
sys.exit(0 if m["hosts"] == ["fakehost", "nodeb"] and l["hosts"] == ["fakehost"] and m["parts"] == l["parts"] else 1)' \
	"$tmp/set/latency.csv.meta.json" "$tmp/local/latency.csv.meta.json"
# The report's header says how many machines.
"$PLOTPY" -c '
import sys
sys.path.insert(0, sys.argv[1])
import report, resultset, resultset_summary
rows = dict(report.header_rows(resultset_summary.machine_summary(resultset.ResultSet(sys.argv[2]))))
sys.exit(0 if rows["Machine"].startswith("from 2 machines (fakehost, nodeb)") else 1)' \
	"$TOP_SRCDIR/plots" "$tmp/set" 2>"$tmp/err"
check report_says_n_machines test $? -eq 0

# Parts from another kind of machine (another CPU model): refused, naming the
# part and the field.
q=$(sed -n 2p "$tmp/want0")
sed 's/"model": "Fake CPU"/"model": "Other CPU"/' "$q.meta.json" >"$q.m" && mv "$q.m" "$q.meta.json"
run_all --resume "$tmp/set" --merge-only
check merge_only_other_cpu_exit_1 test $? -eq 1
check merge_only_names_part_and_field grep -q "parts/.*${q##*/parts/}: cpu model 'Other CPU'" "$tmp/err"

# A point whose --work cannot be calibrated, in a shard: recorded, the shard
# goes on; the merge lists it in failed-points.csv.
: >"$FAKE_LOG"
run_all --quick --max-threads 2 --experiments=dice-fig4-low --variants=FetchAdd,CAS --order-seed 5 \
	--plan-only --out "$tmp/cal"
FAKE_CAL_FAIL=t2-CAS-r0 run_all --resume "$tmp/cal" --shard=0/1
check shard_calibration_failure_goes_on sh -c "test $? -eq 0 && test -f '$tmp/cal/parts/dice-fig4-low/t2-CAS-r0.csv.failed' &&
	test \$(wc -l <'$FAKE_LOG') -eq \$(wc -l <'$tmp/cal/run-all.plan')"
run_all --resume "$tmp/cal" --merge-only
check merge_only_lists_failed sh -c "test $? -eq 0 && grep -q '^dice-fig4-low,t2-CAS-r0,' '$tmp/cal/failed-points.csv'"

# Usage: the pieces need --resume; a shard out of range.
run_all --shard=0/2
check shard_needs_resume test $? -eq 2
run_all --resume "$tmp/set" --shard=2/2
check shard_out_of_range test $? -eq 2
run_all --resume "$tmp/set" --plan-only
check plan_only_with_resume_refused test $? -eq 2
tap_done
