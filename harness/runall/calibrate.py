# SPDX-License-Identifier: MIT
"""One calibration of the external work per result set (run-all.calibration).

Dice's "P% work" is the pause count m at which a single-thread CAS runs at
1 - P/100 of its throughput without work. scbench alone calibrates m at each
invocation, so the counters of one set would be compared at different m. Here
each work level of the plan is calibrated once, before any run: rounds of one
short scbench --work=P invocation per level, until the last AGREE rounds that
scbench judged quiet (its busy column: harness/load.h's rule) agree within
TOLERANCE (largest over smallest), or MAX_ROUNDS rounds; m is their median
and the spread (largest over smallest, less 1) is recorded. Then SHARE_ROUNDS
rounds, each a 0% run and one run per level at its m (--work=P
--work-iters=m), measure the share achieved: the median of the rounds'
throughput ratios, against the target 1 - P/100. Every plan line of a level
gets --work-iters=m, so every shard, Slurm task and --resume runs it; the
machine the calibration ran on (merge.py's PROVENANCE, from scbench's
meta.json) is recorded, and a set is refused on another kind of machine."""

import csv
import json
import math
import os
import shutil
import subprocess
import tempfile
from statistics import median

from . import Failure, say
from .plan import option

FILE = "run-all.calibration"
AGREE = 3             # quiet calibrations in a row that must agree
TOLERANCE = 0.05      # ... within 5% (largest over smallest)
MAX_ROUNDS = 8        # then the last quiet ones (or all) are taken, marked unstable
SHARE_ROUNDS = 3      # rounds measuring the achieved share
SHARE_TOLERANCE = 0.10  # achieved share off its target by more: the set says so
SHORT = ["--counter=CAS", "--threads=1", "--runs=1", "--warmup=0.02", "--duration=0.1",
         "--read-cost=off"]


def levels(plan):
    """The work levels (text of --work=P, P > 0) of the plan lines, sorted."""
    out = {option(a, "work") for _, _, a in plan}
    return sorted((w for w in out if w is not None and float(w) > 0), key=float)


def one_run(scbench, tmp, name, args):
    """(row, meta) of one short CAS run: its work_iters and ops_per_ms (floats,
    checked) and busy (bool) as a dict, and its meta.json. Failure when the run
    fails or its files do not hold them."""
    out = os.path.join(tmp, name + ".csv")
    what = "the calibration of the external work (scbench %s)" % " ".join(args)
    r = subprocess.run([scbench] + SHORT + args + ["--output=" + out], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        why = r.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Failure("%s failed: %s" % (what, why[-1] if why else "exit status %d" % r.returncode))
    try:
        with open(out, encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        with open(out + ".meta.json", encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise Failure("%s: its output cannot be read: %s" % (what, str(e).splitlines()[0]))
    if not rows or not isinstance(meta, dict):
        raise Failure("%s wrote no row or no meta.json object" % what)
    row = {"busy": rows[0].get("busy", "0") == "1"}
    for col, zero_ok in (("work_iters", True), ("ops_per_ms", False)):
        try:
            v = float(rows[0].get(col) or "nan")
        except ValueError:
            v = math.nan
        if not (math.isfinite(v) and (v > 0 or (zero_ok and v == 0))):
            raise Failure("%s wrote no valid %s (%r)" % (what, col, rows[0].get(col)))
        row[col] = v
    return row, meta


def spread(values):
    return max(values) / min(values) - 1 if values and min(values) > 0 else float("inf")


def settle(tries):
    """(m, spread, stable, quiet) from one level's calibrations [(m, busy)]:
    the last AGREE quiet ones when they agree within TOLERANCE, else the last
    AGREE quiet ones (or of all, when fewer were quiet) marked unstable."""
    quiet = [m for m, busy in tries if not busy]
    pick = quiet[-AGREE:] if len(quiet) >= AGREE else [m for m, _ in tries][-AGREE:]
    stable = len(quiet) >= AGREE and spread(pick) <= TOLERANCE
    return median(pick), spread(pick), stable, len(quiet)


def share_entry(target, ratios):
    """The achieved share of one level from its rounds' ratios, judged."""
    got = median(ratios)
    return {"target": target, "share": got, "share_rounds": ratios,
            "off_target": abs(got / target - 1) > SHARE_TOLERANCE}


def calibrate(scbench, plan):
    """The set's calibration (a dict, FILE's content), or None when the plan
    has no external work. Failure when scbench cannot run a calibration."""
    work = levels(plan)
    if not work:
        return None
    tmp = tempfile.mkdtemp(prefix="run-all-calibration.")
    try:
        tries, meta = {w: [] for w in work}, None
        for k in range(MAX_ROUNDS):
            for w in work:
                row, meta = one_run(scbench, tmp, "c%d-%s" % (k, w), ["--work=" + w])
                tries[w].append((row["work_iters"], row["busy"]))
            if all(settle(tries[w])[2] for w in work):
                break
        out = {"agree": AGREE, "tolerance": TOLERANCE, "share_tolerance": SHARE_TOLERANCE,
               "levels": []}
        ratios = {w: [] for w in work}
        iters = {w: settle(tries[w])[0] for w in work}
        for k in range(SHARE_ROUNDS):
            base = one_run(scbench, tmp, "s%d-0" % k, ["--work=0"])[0]["ops_per_ms"]
            for w in work:
                row, meta = one_run(scbench, tmp, "s%d-%s" % (k, w),
                                    ["--work=" + w, "--work-iters=%.6g" % iters[w]])
                ratios[w].append(row["ops_per_ms"] / base)
        for w in work:
            m, sp, stable, quiet = settle(tries[w])
            entry = {"work_pct": w, "work_iters": float("%.6g" % m), "spread": sp, "stable": stable,
                     "quiet": quiet, "tries": [[t, b] for t, b in tries[w]]}
            entry.update(share_entry(1 - float(w) / 100, ratios[w]))
            out["levels"].append(entry)
        out["machine"] = machine(meta)
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def machine(meta):
    """The fingerprint of the machine of a scbench meta.json: PROVENANCE's fields."""
    from .merge import PROVENANCE, field
    return {label: field(meta, keys) for label, keys in PROVENANCE}


def apply(plan_lines, cal):
    """The plan lines ("ID CHUNK ARGS") with --work-iters=m after each --work=P
    of a calibrated level."""
    if not cal:
        return plan_lines
    m = {lv["work_pct"]: lv["work_iters"] for lv in cal["levels"]}
    out = []
    for line in plan_lines:
        w = option(line.split(" ", 2)[2], "work")
        if w in m:
            line = line.replace(" --work=%s" % w, " --work=%s --work-iters=%.6g" % (w, m[w]), 1)
        out.append(line)
    return out


def report(cal):
    """What the calibration found, one line per level (said when the set is made)."""
    for lv in cal["levels"] if cal else []:
        say("--work=%s: %.6g pauses for the whole set (%d of %d calibrations quiet, the last %d "
            "taken %.1f%% apart%s), achieved share %.4g of the 0%% throughput for %.4g%s"
            % (lv["work_pct"], lv["work_iters"], lv["quiet"], len(lv["tries"]), AGREE,
               100 * lv["spread"], "" if lv["stable"] else ": not stable within %.0f%%"
               % (100 * TOLERANCE),
               lv["share"], lv["target"],
               ": off by more than %.0f%%" % (100 * SHARE_TOLERANCE) if lv["off_target"] else ""))


def write(d, cal):
    if cal:
        with open(os.path.join(d, FILE), "w", encoding="utf-8") as f:
            json.dump(cal, f, indent=1, sort_keys=True)
            f.write("\n")


def read(d):
    """The set's calibration, or None (a set without external work, or an older one)."""
    path = os.path.join(d, FILE)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8") as f:
            cal = json.load(f)
    except (OSError, ValueError) as e:
        raise Failure("%s: not a JSON file (%s)" % (path, str(e).splitlines()[0]))
    if not isinstance(cal, dict) or not isinstance(cal.get("machine"), dict) \
            or not isinstance(cal.get("levels"), list):
        raise Failure("%s: not a run-all calibration" % path)
    return cal


def mismatch(cal, meta):
    """The fields in which meta.json's machine differs from the calibration's ([] when none)."""
    now = machine(meta)
    return ["%s %r (calibrated on %r)" % (k, now[k], v) for k, v in sorted(cal["machine"].items())
            if now.get(k) != v]


def check_machine(scbench, d):
    """Refuse (Failure) to run set d's invocations on a machine of another kind
    than the one its work was calibrated on: one short 0% run tells this one."""
    cal = read(d)
    if not cal:
        return
    tmp = tempfile.mkdtemp(prefix="run-all-machine.")
    try:
        meta = one_run(scbench, tmp, "probe", ["--work=0", "--duration=0.01", "--warmup=0"])[1]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    bad = mismatch(cal, meta)
    if bad:
        raise Failure("%s: its external work was calibrated on another kind of machine: this one "
                      "has %s; one set is measured on one kind of machine (start a new set here)"
                      % (d, ", ".join(bad)))
