#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_run_all_order.sh - how run-all.sh plans and runs, as TAP:
# every run of a timed point is its own scbench invocation, repetition r of
# every point runs before repetition r+1 of any, each round in an order
# shuffled from a seed recorded in the result set (the same seed, the same
# order; --resume follows it and never runs a finished invocation twice), the
# merged CSVs have each run index once per point with the seed of a single
# invocation, and only read-cost runs the reader (read_ns empty elsewhere).
# --experiments and --variants restrict the plan, and are recorded.
# A fake scbench (a shell script that writes plausible rows at once) stands in
# for the real one, and run-all.sh (with its program, harness/runall/) runs
# from a copy in the mktemp -d directory, where there is no plots/regen to call.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

cp "$TOP_SRCDIR/run-all.sh" "$tmp/run-all.sh"
mkdir "$tmp/harness" && cp -r "$TOP_SRCDIR/harness/runall" "$tmp/harness/" || exit 1
"$SCBENCH" --list=json >"$tmp/list.json" || exit 1
# The fake (tests/fake-scbench.sh): the real --list=json; otherwise a part at
# once. Each invocation's --output is logged to FAKE_LOG, and the
# FAKE_FAIL_AT-th invocation (counted in the log) fails.
export FAKE_LIST=$tmp/list.json
cp "$TOP_SRCDIR/tests/fake-scbench.sh" "$tmp/fake-scbench" && chmod +x "$tmp/fake-scbench" || exit 1
run_all() { SCBENCH=$tmp/fake-scbench "$tmp/run-all.sh" --max-threads 2 "$@" >/dev/null 2>"$tmp/err"; }
body() { grep -v '^#' "$1"; }

# A default-mode plan (3 runs per point), interrupted by a failure after 100
# invocations, then resumed. Under make check, the plan of six experiments
# (about a sixth of the invocations; all that the checks below name, of
# each kind: timed, count-to-N, latency, read cost); the whole plan with
# SC_TEST_FULL=1 (CI's whole tier).
some=--experiments=dice-fig4-high,dice-fig4-low,hot-line,ayers,latency,read-cost
[ "${SC_TEST_FULL:-0}" = 1 ] && some=
export FAKE_LOG=$tmp/log
rs=$tmp/rs
FAKE_FAIL_AT=100 run_all --order-seed 4242 $some --out "$rs"
check first_part_fails_exit_1 test $? -eq 1
check order_recorded sh -c "grep -qx 'order_seed=4242' '$rs/run-all.conf' && test -s '$rs/run-all.order'"
check order_lists_plan_once "$PY" -c '
import sys
plan = [l.split()[:2] for l in open(sys.argv[1])]
order = [l.split() for l in open(sys.argv[2]) if not l.startswith("#")]
sys.exit(0 if sorted(map(tuple, plan)) == sorted(map(tuple, order)) and len(set(map(tuple, order))) == len(order) else 1)' \
	"$rs/run-all.plan" "$rs/run-all.order"
sed '$d' "$FAKE_LOG" >"$tmp/log1" # the failed invocation wrote nothing
run_all --resume "$rs"
check resume_exit_0 test $? -eq 0
# Every invocation ran once, in the recorded order, across the failure.
body "$rs/run-all.order" | awk -v d="$rs" '{ print d "/parts/" $1 "/" $2 ".csv" }' >"$tmp/want"
{ cat "$tmp/log1"; tail -n +101 "$FAKE_LOG"; } >"$tmp/got"
check resume_follows_recorded_order_never_twice cmp -s "$tmp/want" "$tmp/got"

# The order: one invocation per run of a timed point; repetition r of every
# point before repetition r+1 of any; within a round not the plan's order and
# the experiments mixed.
check plan_one_run_per_timed_invocation awk '!/--ops=/ && !/ --runs=1 --first-run=[0-2]( |$)/ { bad = 1 } END { exit bad }' \
	"$rs/run-all.plan"
check order_rounds_by_repetition sh -c "body() { grep -v '^#' \"\$1\"; }; body '$rs/run-all.order' |
	awk '\$2 ~ /-r[0-9]+\$/ { k = \$2; sub(/.*-r/, \"\", k); if (k + 0 < last) bad = 1; last = k + 0 }
	     \$2 !~ /-r[0-9]+\$/ { count = 1 } \$2 ~ /-r[0-9]+\$/ && count { bad = 1 } END { exit bad }'"
check order_round_shuffled_across_experiments "$PY" -c '
import sys
plan = [tuple(l.split()[:2]) for l in open(sys.argv[1]) if l.split()[1].endswith("-r0")]
order = [tuple(l.split()) for l in open(sys.argv[2]) if not l.startswith("#") and l.split()[1].endswith("-r0")]
switches = sum(1 for a, b in zip(order, order[1:]) if a[0] != b[0])
sys.exit(0 if sorted(plan) == sorted(order) and plan != order and switches > len(order) // 4 else 1)' \
	"$rs/run-all.plan" "$rs/run-all.order"

# Split to one variant, a line keeps the --param keys that variant accepts (as
# scbench applies a parameter to every chosen variant that takes its key) and
# only those: another would be a usage error. Checked against scbench --list=json.
check split_keeps_accepted_params "$PY" -c '
import json, sys
keys = {v["name"]: set(p["key"] for p in v["params"]) for v in json.load(open(sys.argv[1]))["variants"]}
bad, kept = 0, 0
for l in open(sys.argv[2]):
    args = l.split()[2:]
    names = [a.split("=", 1)[1] for a in args if a.startswith("--counter=")][0].split(",")
    for a in args:
        if a.startswith("--param="):
            k = a[len("--param="):].split("=")[0]
            ok = any(k in keys[n] for n in names)
            bad += not ok
            kept += ok
sys.exit(0 if not bad and kept else 1)' "$tmp/list.json" "$rs/run-all.plan"

# The same seed gives the same order; another seed another one.
FAKE_FAIL_AT=1 run_all --order-seed 4242 $some --out "$tmp/same"
FAKE_FAIL_AT=1 run_all --order-seed 4243 $some --out "$tmp/other"
check same_seed_same_order cmp -s "$rs/run-all.order" "$tmp/same/run-all.order"
check other_seed_other_order test "$(body "$rs/run-all.order" | md5sum)" != \
	"$(body "$tmp/other/run-all.order" | md5sum)"

# The merged CSVs: each point (counter, threads, work, counters, params) has
# runs 0..n-1 once each, seeded as one invocation seeds them; read_ns empty in
# every timed experiment but read-cost, filled there; the latency sidecar has
# the runs of the CSV, once each.
check merged_runs_unique_per_point "$PY" -c '
import csv, glob, os, sys
bad = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    if path.endswith(".latency.csv"):
        continue
    rows = list(csv.DictReader(open(path)))
    points = {}
    for r in rows:
        points.setdefault((r["mode"], r["counter"], r["threads"], r["work_pct"], r["counters"], r["params"], r["ops"] if r["mode"] == "count" else ""), []).append(int(r["run"]))
        if int(r["seed"]) != 20130623 + int(r["run"]):
            bad.append(path + ": seed")
    for p, runs in points.items():
        # count-to-N points (ayers*) run 30 times in this mode, timed ones 3
        if sorted(runs) != list(range(30 if p[0] == "count" else 3)):
            bad.append("%s %s: runs %s" % (path, p, runs))
    reader = [r["read_ns"] != "" for r in rows]
    if reader and any(reader) != path.endswith("read-cost.csv") or len(set(reader)) > 1:
        bad.append(path + ": read_ns")
print("\n".join(bad[:5]), file=sys.stderr)
sys.exit(1 if bad or not points else 0)' "$rs"
check latency_sidecar_runs_once "$PY" -c '
import csv, sys
rows = [(r["counter"], r["threads"], r["run"]) for r in csv.DictReader(open(sys.argv[1]))]
hist = [(r["counter"], r["threads"], r["run"]) for r in csv.DictReader(open(sys.argv[2]))]
sys.exit(0 if rows and sorted(rows) == sorted(hist) and len(set(rows)) == len(rows) else 1)' \
	"$rs/latency.csv" "$rs/latency.csv.latency.csv"
check read_cost_only_in_read_cost awk '($1 == "read-cost") == / --read-cost=off/ { bad = 1 } END { exit bad }' \
	"$rs/run-all.plan"
check merged_meta_says_how "$PY" -c '
import json, sys
m = json.load(open(sys.argv[1]))["run_all"]
a = json.load(open(sys.argv[2]))["run_all"]
sys.exit(0 if m["runs_per_point"] == 3 and m["order_seed"] == 4242 and m["parts"] == 12 * 2 * 3
         and m["reader"].startswith("off") and "per run" in m["invocations"]
         and a["runs_per_point"] == 30 and "count-to-N" in a["invocations"] else 1)' \
	"$rs/dice-fig4-high.csv.meta.json" "$rs/ayers.csv.meta.json"
# The merged meta spans all its parts' dates (its own "date" is one part's).
check merged_meta_spans_part_dates "$PY" -c '
import glob, json, os, sys
rs = sys.argv[1]
for merged in glob.glob(os.path.join(rs, "*.csv.meta.json")):
    ident = os.path.basename(merged)[:-len(".csv.meta.json")]
    parts = sorted(json.load(open(p))["date"] for p in glob.glob(os.path.join(rs, "parts", ident, "*.meta.json")))
    ra = json.load(open(merged))["run_all"]
    if not parts or (ra["first_date"], ra["last_date"]) != (parts[0], parts[-1]):
        sys.exit("%s: %s..%s, parts %s..%s" % (ident, ra.get("first_date"), ra.get("last_date"), parts[:1], parts[-1:]))' "$rs"

# A point whose --work cannot be calibrated (scbench exit 3) fails alone: the
# sweep finishes (exit 0), failed-points.csv names every such point with
# scbench's reason, the merged CSVs lack exactly them, and --resume tries
# them again (then there is no failed point left and no failed-points.csv).
: >"$FAKE_LOG"
FAKE_CAL_FAIL=dice-fig4-low/t2-CAS-r run_all --order-seed 7 $some --out "$tmp/cal"
check calibration_failure_sweep_goes_on test $? -eq 0
check calibration_failures_listed "$PY" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/failed-points.csv")))
want = sorted(l.split()[:2] for l in open(sys.argv[1] + "/run-all.plan")
              if l.split()[0] == "dice-fig4-low" and l.split()[1].startswith("t2-CAS-r"))
got = sorted([r["experiment"], r["part"]] for r in rows)
ok = got == want and len(got) > 0 and all("a pause costs nothing measurable: 256 pauses added" in r["reason"] and "--work=" in r["args"] for r in rows)
sys.exit(0 if ok else 1)' "$tmp/cal"
check calibration_failed_rows_absent "$PY" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/dice-fig4-low.csv")))
missing = [r for r in rows if r["counter"] == "CAS" and r["threads"] == "2" and r["work_pct"] == "99"]
others = [r for r in rows if r["counter"] == "CAS" and r["threads"] == "1"]
sys.exit(0 if not missing and len(others) == 3 else 1)' "$tmp/cal"
check calibration_failure_said grep -q "failed, going on: calibration of the external work" "$tmp/err"
run_all --resume "$tmp/cal"
check calibration_failure_retried_on_resume sh -c "test $? -eq 0 && test ! -e '$tmp/cal/failed-points.csv' &&
	test -z \"\$(find '$tmp/cal/parts' -name '*.failed')\""

# An older result set (no recorded order) is refused, and --order-seed with --resume.
mkdir "$tmp/old" && printf 'mode=quick\nthreads="1"\n' >"$tmp/old/run-all.conf"
run_all --resume "$tmp/old"
check old_set_refused sh -c "test $? -eq 2 && grep -q 'older run-all.sh' '$tmp/err'"
run_all --resume "$rs" --order-seed 5
check order_seed_with_resume_refused test $? -eq 2

# --experiments and --variants: only those lines of the plan, each --counter cut
# to the chosen variants (--counter=all too), recorded in run-all.conf and in
# each merged meta.json; unknown names and a plan left empty are refused.
rx=$tmp/restricted
run_all --quick --experiments=dice-fig4-high,baselines,latency --variants=RBONuma,FetchAdd \
	--order-seed 9 --out "$rx"
check restricted_runs test $? -eq 0
check restricted_plan_ids sh -c "test \"\$(cut -d' ' -f1 '$rx/run-all.plan' | sort -u | paste -sd, -)\" = baselines,dice-fig4-high,latency"
check restricted_plan_variants sh -c "! grep -v -E -- '--counter=(FetchAdd|RBONuma) ' '$rx/run-all.plan'"
# per thread count (1, 2): fig4-high and latency 2 variants, baselines (FetchAdd only) 2 groups
check restricted_plan_size test "$(wc -l <"$rx/run-all.plan")" -eq $((2 * (2 + 2 + 2)))
check restricted_recorded sh -c "grep -qx 'experiments=dice-fig4-high,baselines,latency' '$rx/run-all.conf' &&
	grep -qx 'variants=RBONuma,FetchAdd' '$rx/run-all.conf'"
check restricted_meta "$PY" -c '
import json, sys
m = json.load(open(sys.argv[1]))["run_all"]
sys.exit(0 if m["variants"] == "RBONuma,FetchAdd" and m["experiments"].startswith("dice-fig4-high") else 1)' \
	"$rx/latency.csv.meta.json"
FAKE_FAIL_AT=1 run_all --quick --out "$tmp/unrestricted" # its conf, then a failed first part
check unrestricted_recorded_all sh -c "grep -qx 'experiments=all' '$tmp/unrestricted/run-all.conf'"
run_all --quick --experiments=dice-fig9 --out "$tmp/bad1"
check unknown_experiment_refused sh -c "test $? -eq 2 && grep -q 'unknown experiment' '$tmp/err' && test ! -e '$tmp/bad1'"
run_all --quick --variants=FetchAdd,Nope --out "$tmp/bad2"
check unknown_variant_refused sh -c "test $? -eq 2 && grep -q \"unknown variant 'Nope'\" '$tmp/err' && test ! -e '$tmp/bad2'"
run_all --quick --experiments=ayers --variants=RBONuma --out "$tmp/bad3"
check empty_plan_refused sh -c "test $? -eq 2 && grep -q 'nothing of the quick plan' '$tmp/err' && test ! -e '$tmp/bad3'"
run_all --resume "$rs" --variants=FetchAdd
check variants_with_resume_refused test $? -eq 2

tap_done
