#!/bin/sh
# SPDX-License-Identifier: MIT
# test_read_cost.sh - the reader's batched samples (harness/run_read.c,
# doc/design.md §5.2), as TAP: each read_ns sample times read_k consecutive
# gets, read_k chosen so that the sample spans at least 100 steps of the tick
# clock (timer_step_ns) unless the cap stopped it (a sample over 20 us when
# doubled, or 65536 gets); the CSV's columns 38-42 say so and agree with
# read_ns; Morris and MorrisAdapt have their decode columns (decode_p_ns,
# decode_v_ns, harness/run_decode.c) filled with positive numbers, every
# other variant and a run without a reader empty ones. Structural checks
# only: no assertion on how fast a get or a decode is. The
# rule holds for the median sample however the gets' speed moves during the
# run (a sample that comes out short is timed again with K doubled): when K
# was chosen once, at the start, a median under 100 steps with the cap not
# reached was seen in CI under load.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

"$SCBENCH" --counter=FetchAdd,Morris,MorrisAdapt,Sharded,PerCPUTree --threads=1,2 --work=0 --duration=0.2 \
	--warmup=0.02 --runs=1 --output="$tmp/r.csv" 2>"$tmp/err"
check read_cost_run_exit_0 test $? -eq 0
check schema_version_7 grep -q '"schema_version": 7' "$tmp/r.csv.meta.json"
check columns_38_44_at_the_end sh -c "head -1 '$tmp/r.csv' | grep -q 'fast_error,read_k,read_sample_steps,read_fast_k,read_fast_sample_steps,timer_step_ns,decode_p_ns,decode_v_ns'"

# The rows, checked in Python (one line per problem; none expected).
"$PY" - "$tmp/r.csv" >"$tmp/problems" 2>&1 <<'PYEOF'
import csv, math, sys
CAP_NS, CAP_K, MIN_STEPS = 20e3, 65536, 100
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
if len(rows) != 10:
    print("expected 10 rows, got %d" % len(rows))
def sample(r, ns, k, steps, what):
    """ns per get, K and the sample's steps of one reading, against the rule."""
    n, kk, st, step = float(r[ns]), float(r[k]), float(r[steps]), float(r["timer_step_ns"])
    tag = "%s %s t%s %s" % (r["counter"], what, r["threads"], (n, kk, st, step))
    if step <= 0 or kk < 1 or kk != int(kk) or kk > CAP_K:
        print("%s: step or K out of range" % tag)
        return
    # read_ns is ns per get: K of them make the sample. Each is printed rounded: read_ns
    # to 0.05 ns (0.05 K / step steps), the steps to 0.05 (and 0.01 more for safety),
    # timer_step_ns to 0.005 ns (a relative 0.005 / step of the sample's steps).
    if abs(n * kk / step - st) > 0.05 * kk / step + 0.06 + st * 0.005 / step:
        print("%s: ns per get x K is not the sample's length" % tag)
    # at least 100 steps, or the cap stopped the doubling (the next K's sample > 20 us;
    # read_ns is printed to 0.1 ns, so the sample may be up to 0.05 ns x K longer)
    if st < MIN_STEPS and not (kk == CAP_K or 2 * (n + 0.05) * kk > CAP_NS):
        print("%s: sample under %d steps with the cap not reached" % (tag, MIN_STEPS))
    # a get of one load (FetchAdd) or the tree's root is far under 100 steps of any clock
    if r["counter"] == "FetchAdd" or what == "get_fast":
        if kk < 2:
            print("%s: K = 1" % tag)
for r in rows:
    sample(r, "read_ns", "read_k", "read_sample_steps", "get")
    tree = r["counter"] == "PerCPUTree"
    fast = [r[c] for c in ("read_fast_ns", "read_fast_k", "read_fast_sample_steps")]
    if tree:
        sample(r, "read_fast_ns", "read_fast_k", "read_fast_sample_steps", "get_fast")
    elif any(fast):
        print("%s: get_fast columns filled" % r["counter"])
    decode = [r[c] for c in ("decode_p_ns", "decode_v_ns")]
    if r["counter"] in ("Morris", "MorrisAdapt"):
        if not all(d and 0 < float(d) < math.inf for d in decode):
            print("%s t%s: decode columns not positive numbers: %s"
                  % (r["counter"], r["threads"], decode))
    elif any(decode):
        print("%s: decode columns filled" % r["counter"])
if sorted(set(r["counter"] for r in rows)) != sorted(
        ["FetchAdd", "Morris", "MorrisAdapt", "Sharded", "PerCPUTree"]):
    print("not every variant ran")
PYEOF
check rows_follow_the_batching_rule sh -c "test ! -s '$tmp/problems' || { cat '$tmp/problems' >&2; false; }"
[ -s "$tmp/problems" ] && sed 's/^/# /' "$tmp/problems"

# --read-cost=off: no reader, the seven columns empty (Morris's decodes too).
"$SCBENCH" --counter=FetchAdd,Morris --threads=1 --duration=0.05 --warmup=0.01 --runs=1 --read-cost=off \
	--output="$tmp/off.csv" 2>"$tmp/err"
check read_cost_off_columns_empty "$PY" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
cols = ("read_k", "read_sample_steps", "read_fast_k", "read_fast_sample_steps", "timer_step_ns",
        "decode_p_ns", "decode_v_ns")
assert len(rows) == 2 and all(r[c] == "" for r in rows for c in cols), rows
' "$tmp/off.csv"

tap_done
