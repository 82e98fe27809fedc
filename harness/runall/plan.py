# SPDX-License-Identifier: MIT
"""The plan of a result set: one line per scbench invocation, "ID CHUNK ARGS".

The experiments (POINTS below) name each point group's variants at once, by
their registry groups (scbench --list=json); split() makes one invocation per
run of a timed point, shuffle() sets the order."""

import json
import os
import shutil
import subprocess

from . import Failure

# Every experiment of a full plan, in the order of --help: declared once, in
# experiments.json beside this file, which plots/resultset.py reads too (each
# one's "figures": whether a figure is drawn from its CSV, or only claims read it).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "experiments.json"),
          encoding="utf-8") as _f:
    EXPERIMENTS = [e["id"] for e in json.load(_f)["experiments"]]
# The array of Dice §5.3 at low contention (results not shown in the paper: Serial does
# better there); several hot counters sharing one cache line (Dice §5.3: MultilineAdapt
# copes, the naive counters do not; Ayers's end notes: Scalable still suffers false
# sharing). HOT_LINE counters of 8 bytes fill one 64-byte line; every thread picks
# the hot one or a random one of them in turn, so all of them are hot.
ARRAY_LOW_WORK = "98.89"
HOT_LINE = 8

# Protocol of each mode: warm-up and measured seconds (as scbench is given
# them), runs per timed point, runs and grid steps of Ayers's count-to-N.
PROTOCOL = {
    "quick": ("0.05", "0.2", 1, 10, 7),
    "default": ("0.2", "0.8", 3, 30, 9),
    "paper": ("2", "8", 5, 100, 11),
    "paper-errors": ("2", "8", 5, 100, 11),
}
MODES = ("quick", "default", "paper", "paper-errors")
# Seconds to start one scbench (process, hwloc topology, threads), and to
# calibrate --work once (wl_calibrate), measured on the 2-PU development box.
INVOKE_S = 0.1
CALIB_S = 0.75
# Ayers's thresholds T of the tunable experiment (Ayers's figure: 10..15).
AYERS_THRESHOLDS = range(10, 16)
# Scalable's generators (its rng parameter): the default, and the scrambled one that
# ayers-rng counts to N with and ayers-rng-cost times beside the default (Ayers: "a
# better quality RNG might improve accuracy but would create more overhead").
AYERS_RNGS = ("xorshift", "mix")
# 16384: scbench's largest thread count (harness/cli.h CLI_MAX_THREADS).
MAX_THREADS = 16384
# Range safety: Scalable, ScalableCAS and ScalableCapped count in 64
# bits in every timed experiment (2^32 is reached in under 8 s at 2 threads, 0%
# work). Every other precise variant but RBONuma(Adapt) holds 2^63 or more; their
# 32-bit word (2^31 - 1 on one node, less on more) has no parameter that widens
# it, and Morris tops out near 4.29e9 whatever its accuracy: scbench flags any
# such run (overflowed=1) and the plots leave its error out.
WIDE = "--param=width=64"


class Registry:
    """The variants of scbench --list=json, in --counter=all order, and the
    lists run-all derives from their kind, origin and groups."""

    def __init__(self, listing):
        self.variants = listing["variants"]
        self.names = [v["name"] for v in self.variants]
        common = set(listing.get("common_params", []))
        self.keys = {v["name"]: {p["key"] for p in v["params"]} | common for v in self.variants}

    def group(self, name):
        """The variants of experiment group name: the ones its paper designed
        first (origin), then the others it compares with, each in registry order."""
        members = [v for v in self.variants if name in v["groups"]]
        own = [v["name"] for v in members if name in v["origin"]]
        return own + [v["name"] for v in members if name not in v["origin"]]

    def errors(self):
        """Dice Fig. 6: the variants of the Dice figures that are not precise."""
        kinds = {v["name"]: v["kind"] for v in self.variants}
        return [n for n in self.group("dice") if kinds[n] != "precise"]

    def tunable(self):
        """Ayers's tunable experiment: the count-to-N variants with a threshold."""
        return [n for n in self.group("ayers") if "threshold" in self.keys[n]]

    def generators(self):
        """Ayers's generator experiments: the count-to-N variants with a choice of
        generator (rng)."""
        return [n for n in self.group("ayers") if "rng" in self.keys[n]]


def registry(scbench):
    """The registry from scbench --list=json; Failure when it cannot be had."""
    try:
        out = subprocess.run([scbench, "--list=json"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, check=True).stdout
        reg = Registry(json.loads(out.decode("utf-8")))
    except (OSError, subprocess.CalledProcessError, ValueError, KeyError, TypeError) as e:
        raise Failure("%s --list=json failed (%s)" % (scbench, str(e).splitlines()[0] if str(e) else
                                                       type(e).__name__))
    if not reg.names:
        raise Failure("%s --list=json listed no variant" % scbench)
    return reg


def pu_count():
    """PUs of this machine: hwloc-calc, else nproc, else 1."""
    if shutil.which("hwloc-calc"):
        try:
            n = int(subprocess.run(["hwloc-calc", "--number-of", "pu", "all"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout)
            if n > 0:
                return n
        except ValueError:
            pass
    return os.cpu_count() or 1


def thread_list(cap=None, pus=None):
    """1 2 4 ... below the PU count, then the PU count; all <= cap."""
    pus = pus or pu_count()
    if cap is not None and cap < pus:
        pus = cap
    out, t = [], 1
    while t < pus:
        out.append(t)
        t *= 2
    return out + [pus]


def points(mode, threads, reg):
    """The experiments' lines, each a point group: "ID CHUNK ARGS" as text."""
    warmup, duration, runs, ayers_runs, ayers_steps = PROTOCOL[mode]
    timed = "--warmup=%s --duration=%s --runs=%d" % (warmup, duration, runs)
    dice, base = ",".join(reg.group("dice")), ",".join(reg.group("baselines"))
    # Dice §1's naive counters: CAS and its minor variations (prefetching, ignoring
    # failures, an atomic add), at both work levels like the baselines
    naive = ",".join(reg.group("naive"))
    # the 7500-counter array: the Dice variants, then the compact exact ones
    array = ",".join(reg.group("dice") + [v for v in reg.group("array")
                                          if v not in reg.group("dice")])
    errors = ",".join(reg.errors())
    # several hot counters in one line: the Dice variants and Ayers's
    hot = ",".join(reg.group("dice") + [v for v in reg.group("ayers") if v not in reg.group("dice")])
    maxt = threads[-1]
    lines = []

    def add(ident, chunk, counter, opts):
        lines.append("%s %s --counter=%s %s" % (ident, chunk, counter, opts))
    for t in threads:
        at = "--threads=%d %s" % (t, timed)
        if mode == "paper-errors":
            add("dice-fig4-low", "t%d" % t, errors, "--work=99 " + at)
            add("dice-fig4-high", "t%d" % t, errors, "--work=0 " + at)
            continue
        if t <= 64:
            add("dice-fig3", "t%d" % t, dice, "--work=99.02 " + at)
        add("dice-fig4-low", "t%d" % t, dice, "--work=99 " + at)
        add("dice-fig4-high", "t%d" % t, dice, "--work=0 " + at)
        add("dice-fig5", "t%d" % t, array, "--counters=7500 --work=0 " + at)
        add("dice-fig5-low", "t%d" % t, array, "--counters=7500 --work=%s %s" % (ARRAY_LOW_WORK,
                                                                                at))
        add("hot-line", "t%d" % t, hot, "--counters=%d --work=0 %s %s" % (HOT_LINE, WIDE, at))
        for w in (0, 99):
            add("baselines", "w%d-t%d" % (w, t), base, "--work=%d --threads=%d %s %s" % (w, t, WIDE, timed))
            add("naive", "w%d-t%d" % (w, t), naive, "--work=%d --threads=%d %s" % (w, t, timed))
        add("latency", "t%d" % t, "all", "--latency --work=0 --threads=%d %s %s" % (t, WIDE, timed))
    if mode == "paper-errors":
        return lines  # no read cost, no count-to-N runs
    add("read-cost", "t%d" % maxt, "all", "--work=0 --threads=%d %s %s" % (maxt, WIDE, timed))
    per = (12 + maxt - 1) // maxt
    ayers = ",".join(reg.group("ayers"))
    for k in range(ayers_steps + 1):
        count = "--threads=%d --ops=%d --runs=%d" % (maxt, per * (1 << (2 * k)), ayers_runs)
        add("ayers", "n%d" % k, ayers, count)
        for v in reg.tunable():
            for T in AYERS_THRESHOLDS:
                add("ayers-tunable", "n%d-T%d" % (k, T), v, "--param=threshold=%d %s" % (T, count))
        # the default generator's runs are ayers's own (same N, threads and runs)
        for v in reg.generators():
            add("ayers-rng", "n%d-%s" % (k, AYERS_RNGS[1]), v,
                "--param=rng=%s %s" % (AYERS_RNGS[1], count))
    # each generator's cost per increment: one counter, no work, 1 thread and all PUs
    for t in sorted(set([1, maxt])):
        for g in AYERS_RNGS:
            for v in reg.generators():
                add("ayers-rng-cost", "%s-t%d" % (g, t), v,
                    "--param=rng=%s --work=0 --threads=%d %s %s" % (g, t, WIDE, timed))
    return lines


def option(args, name, last=False):
    """The value of --name=VALUE in the argument string args (the first, or
    the last occurrence), or None."""
    key = " --%s=" % name
    s = " " + args
    at = s.rfind(key) if last else s.find(key)
    if at < 0:
        return None
    return s[at + len(key):].split(" ", 1)[0]


def restrict(lines, reg, experiments, variants):
    """Only the lines of experiments, each --counter list cut to variants (in
    its own order; "all" becomes the chosen variants in --list order); a line
    left with no variant is dropped."""
    out = []
    for line in lines:
        ident, chunk, args = line.split(" ", 2)
        if experiments and ident not in experiments:
            continue
        if variants:
            given = option(args, "counter")
            names = reg.names if given == "all" else given.split(",")
            kept = [v for v in names if v in variants]
            if not kept:
                continue
            args = args.replace("--counter=" + given, "--counter=" + ",".join(kept), 1)
        out.append("%s %s %s" % (ident, chunk, args))
    return out


def params_for(keys, args):
    """args without the --param=KEY=VALUE whose key the variant does not accept
    (scbench applies a parameter to every chosen variant that accepts it)."""
    out = []
    for a in args.split():
        if a.startswith("--param="):
            key = a[len("--param="):].split("=", 1)[0]
            if key != "same-seed" and key not in keys:
                continue
        out.append(a)
    return " ".join(out)


def split(lines, reg):
    """Every timed line "ID CHUNK --counter=A,B ... --runs=R" becomes one line
    per variant and repetition, "ID CHUNK-V-rK --counter=V ... --runs=1
    --first-run=K", variants in list order and repetitions inner, so that the
    parts merged in plan order give the rows one invocation would, each with
    the --param keys its variant accepts. Count-to-N lines (--ops) stay whole.
    Every experiment but read-cost gets --read-cost=off: no reader thread
    wakes during its runs."""
    plan = []
    for line in lines:
        ident, chunk, args = line.split(" ", 2)
        reader = "" if ident == "read-cost" else " --read-cost=off"
        if "--ops=" in args:
            plan.append("%s %s %s%s" % (ident, chunk, args, reader))
            continue
        given = option(args, "counter")
        names = reg.names if given == "all" else given.split(",")
        runs = option(args, "runs", last=True)
        for v in names:
            one = params_for(reg.keys[v], args.replace("--counter=" + given, "--counter=" + v, 1))
            for k in range(int(runs)):
                plan.append("%s %s-%s-r%d %s%s" % (ident, chunk, v, k, one.replace(
                    "--runs=" + runs, "--runs=1 --first-run=%d" % k, 1), reader))
    return plan


def shuffle(plan, seed):
    """The "ID CHUNK" of every plan line in the order to run them. Round K
    holds repetition K (--first-run=K) of every timed point of every
    experiment, in a Fisher-Yates shuffle driven by the Park-Miller generator
    (x <- 16807 x mod 2^31-1); the rounds run in order, then the count-to-N
    lines in plan order."""
    rounds, rest = {}, []
    for line in plan:
        ident, chunk = line.split()[:2]
        k = option(line, "first-run")
        if k is None:
            rest.append(ident + " " + chunk)
        else:
            rounds.setdefault(int(k), []).append(ident + " " + chunk)
    state, order = seed, []
    for k in range(max(rounds) + 1 if rounds else 0):
        r = rounds.get(k, [])
        for i in range(len(r), 1, -1):
            state = state * 16807 % 2147483647
            j = state % i
            r[i - 1], r[j] = r[j], r[i - 1]
        order += r
    return order + rest


def estimates(plan, mode, nall, maxt, set_calibrated=False):
    """Seconds of each plan line ("ID CHUNK" -> s), for the time-left estimate:
    the runs (variants x runs of its --counter and --runs), the start of
    scbench, and the calibration of --work when a line has external work that
    the set's calibration (calibrate.py, before the runs) did not give it;
    set_calibrated: a plan not yet calibrated whose set will be (--dry-run,
    --help), so that they and the start line leave that calibration out alike."""
    warmup, duration = float(PROTOCOL[mode][0]), float(PROTOCOL[mode][1])
    out = {}
    for line in plan:
        ident, chunk, args = line.split(" ", 2)
        given = option(args, "counter")
        nv = nall if given == "all" else len(given.split(","))
        runs = int(option(args, "runs"))
        ops, work = option(args, "ops"), option(args, "work")
        if ops is not None:
            t = nv * runs * (0.002 + int(ops) * maxt * 1.33 * 5e-9) + INVOKE_S
        else:
            t = nv * runs * (warmup + duration + 0.05) + INVOKE_S
            given = set_calibrated or option(args, "work-iters") is not None  # the set's
            t += CALIB_S if work is not None and float(work) > 0 and not given else 0
        out[ident + " " + chunk] = t
    return out
