#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_run_all_calibration.sh - one calibration of the external work per
# result set, as TAP: run-all.sh calibrates each work level of the plan once
# before any run (run-all.calibration: the pause count, its calibrations and
# their spread, the achieved share against 0% work, the machine), every plan
# line of that level passes the same --work-iters, every part runs it, and a
# set resumed or merged on another kind of machine is refused. The rule that
# settles a level is checked on given calibrations (busy ones left out), and
# every committed reference set with a run-all.calibration ran each row at
# its level's one pause count.
# A fake scbench (tests/fake-scbench.sh: its calibration gives FAKE_WORK_ITERS
# pauses and the exact share) stands in for the real one, and run-all.sh runs
# from a copy in the mktemp -d directory, where there is no plots/regen to call.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

runall_tree || exit 1
export FAKE_LOG=$tmp/log FAKE_WORK_ITERS=87.5
run_all() { SCBENCH=$tmp/fake-scbench "$tmp/run-all.sh" --max-threads 2 "$@" >/dev/null 2>"$tmp/err"; }
rs=$tmp/rs

run_all --quick --experiments=dice-fig3,dice-fig4-low,dice-fig4-high --variants=CAS,RBO --plan-only --out "$rs"
check plan_made test $? -eq 0
check calibration_recorded test -s "$rs/run-all.calibration"
# Each level's lines all pass the calibrated count; 0% lines pass none.
check plan_lines_pass_calibrated_iters awk '
	/ --work=0 / { if (/--work-iters=/) bad = 1; next }
	/ --work=/ { n++; if (!/ --work=[0-9.]+ --work-iters=87\.5 /) bad = 1 }
	END { exit bad || n == 0 }' "$rs/run-all.plan"
check calibration_levels_settled "$PY" -c '
import json, sys
cal = json.load(open(sys.argv[1]))
lv = {l["work_pct"]: l for l in cal["levels"]}
ok = sorted(lv) == ["99", "99.02"] and all(
    l["work_iters"] == 87.5 and l["stable"] and l["quiet"] == 3 and l["spread"] == 0
    and abs(l["share"] - l["target"]) < 1e-9 and not l["off_target"] for l in lv.values())
ok = ok and abs(lv["99"]["target"] - 0.01) < 1e-12 and cal["machine"]["cpu model"] == "Fake CPU"
sys.exit(0 if ok else 1)' "$rs/run-all.calibration"
check calibration_said grep -q -- "--work=99: 87.5 pauses for the whole set" "$tmp/err"

# Another kind of machine: refused before any run, the set left as it was.
FAKE_CPU="Other CPU" run_all --resume "$rs"
check resume_other_machine_refused test $? -eq 1
check resume_other_machine_says_why grep -q "calibrated on another kind of machine: this one has cpu model 'Other CPU'" \
	"$tmp/err"
check resume_other_machine_ran_nothing test ! -s "$FAKE_LOG"

run_all --resume "$rs"
check resume_same_machine test $? -eq 0
# Every row at external work ran the set's count, every 0% row none.
check parts_ran_calibrated_iters "$PY" -c '
import csv, glob, os, sys
rows = [r for f in glob.glob(os.path.join(sys.argv[1], "parts", "*", "*.csv"))
        for r in csv.DictReader(open(f))]
bad = [r for r in rows if float(r["work_iters"]) != (87.5 if float(r["work_pct"]) > 0 else 0)]
sys.exit(0 if rows and not bad else 1)' "$rs"

# A merge whose parts come from another kind of machine than the calibration.
"$PY" -c '
import json, sys
cal = json.load(open(sys.argv[1]))
cal["machine"]["cpu model"] = "Calibration CPU"
json.dump(cal, open(sys.argv[1], "w"))' "$rs/run-all.calibration"
run_all --resume "$rs" --merge-only
check merge_other_machine_refused test $? -eq 1
check merge_other_machine_says_why grep -q "calibrated on another kind of machine: nothing merged" "$tmp/err"

# The rule: the last 3 quiet calibrations, within 5%; busy ones never count.
check settle_rule "$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
from runall.calibrate import settle
q = lambda *ms: [(m, False) for m in ms]
near = lambda got, want: all(abs(g - w) < 1e-9 for g, w in zip(got, want))
ok = near(settle(q(150, 100, 120, 100, 104, 102)), (102, 0.04, True, 6))
ok = ok and near(settle(q(100, 103) + [(300, True)] + q(101)), (101, 0.03, True, 3))
ok = ok and not settle(q(100, 110, 100))[2]        # 10% apart: not stable
ok = ok and not settle([(100, True)] * 5)[2]       # never quiet: not stable
sys.exit(0 if ok else 1)' "$tmp/harness"

# Every committed reference set calibrated once: each of its rows ran at its
# level's one pause count, and each level's achieved share is recorded.
for cal in "$TOP_SRCDIR"/results/reference/*/run-all.calibration; do
	[ -f "$cal" ] || continue
	set_dir=${cal%/run-all.calibration}
	check "reference_${set_dir##*/}_one_pause_count_per_level" "$PY" -c '
import csv, glob, json, math, os, sys
d = sys.argv[1]
levels = {float(lv["work_pct"]): lv for lv in json.load(open(os.path.join(d, "run-all.calibration")))["levels"]}
ok = bool(levels) and all(math.isfinite(lv["share"]) and lv["share"] > 0 for lv in levels.values())
seen = set()
for f in glob.glob(os.path.join(d, "*.csv")):
    for r in csv.DictReader(open(f)):
        if "work_pct" not in r or float(r["work_pct"]) == 0:
            continue
        lv = levels.get(float(r["work_pct"]))
        if lv is None or float(r["work_iters"]) != lv["work_iters"]:
            print("%s: %s at %s%% ran %s pauses" % (f, r["counter"], r["work_pct"], r["work_iters"]))
            ok = False
        seen.add(float(r["work_pct"]))
sys.exit(0 if ok and seen == set(levels) else 1)' "$set_dir"
done

tap_done
