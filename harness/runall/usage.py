# SPDX-License-Identifier: MIT
"""run-all.sh --help, with the time each mode takes on this machine."""

from . import confirm as CF
from . import dryrun as DR
from . import calibrate as CAL
from .plan import CALIB_S, EXPERIMENTS, INVOKE_S, points, pu_count, split, thread_list


# Seconds the build of scbench takes the first time (./autogen.sh, ./configure,
# make -j2): measured on the 2-PU development machine, 2 min 10 s, other
# builds running beside it.
BUILD_S = 130


def mode_seconds(reg, mode, max_threads):
    """(runs, figures) seconds of a mode's whole plan here: dryrun's estimate,
    the one the start line and --dry-run give."""
    threads = thread_list(max_threads)
    plan = split(points(mode, threads, reg), reg)
    return DR.total(plan, mode, reg, threads)


def mode_line(reg, mode, max_threads):
    runs, figs = mode_seconds(reg, mode, max_threads)
    return "about %s (%s of runs, %s of figures and the report)" % (
        DR.minutes(runs + figs), DR.minutes(runs), DR.minutes(figs))


def confirm_line(mode):
    return "\n             then at most %d min of --confirm runs" % CF.DEFAULT_MINUTES[mode]


def build_line(bundle):
    """What the first run adds: the build, or nothing in a bundle (its scbench is built)."""
    if bundle:
        return "and nothing to build: this bundle's scbench is built"
    return "plus about %s to build scbench the first time" % DR.minutes(BUILD_S)


def times_parts(reg, max_threads, bundle):
    """(errors, errtime, times) of the help: the error experiments' variants, their
    time, and the paragraph on each mode's time here (reg None: without the times)."""
    if reg is not None:
        errors = ",".join(reg.errors())
        errtime = "About %s here" % DR.minutes(sum(mode_seconds(reg, "paper-errors", max_threads)))
        times = """Time on this machine (%d PUs, thread counts %s), from the plan: each
run's warm-up and measured seconds, about %s s to start each scbench, and
the figures and REPORT.md after; before the runs, the external work of the
set is calibrated once (not counted here: about %s s a calibration, %d or more
per --work level, then %d rounds of the achieved share):
  --quick    %s
  default    %s%s
  --paper    %s%s
%s. --dry-run lists a plan
per experiment with its time, and runs nothing.""" % (
            pu_count(), " ".join(map(str, thread_list(max_threads))), INVOKE_S,
            INVOKE_S + CALIB_S, CAL.AGREE, CAL.SHARE_ROUNDS,
            mode_line(reg, "quick", max_threads), mode_line(reg, "default", max_threads),
            confirm_line("default"), mode_line(reg, "paper", max_threads), confirm_line("paper"),
            build_line(bundle))
    else:
        errors = "the probabilistic counters and Serial"
        errtime = "Its time is given here once scbench is built"
        times = """Time per thread count: given here once scbench is built (./run-all.sh builds
it; scbench --list=json names the variants each experiment runs)."""
    return errors, errtime, times


def synopsis_text(errors, errtime):
    """The help's usage lines, what run-all.sh does and its modes."""
    return """Usage: ./run-all.sh [--quick | --paper | --paper-errors] [--out DIR] [--max-threads N]
                    [--resume DIR] [--order-seed S] [--confirm=MINUTES]
                    [--experiments=LIST] [--variants=LIST]
                    [--dry-run] [--plan-only] [--shard=I/K] [--merge-only]
                    [--slurm[=SBATCH_OPTIONS]] [--slurm-tasks=K] [--no-lock]

Runs every experiment (Dice Figs. 3-6, the array at 98.89%% work, several hot
counters in one cache line, Ayers's accuracy and scaling figures and its
generator's trade-off, baselines, Dice's naive counters and their variations,
latency, read cost) with scbench into results/<host>-<date>/ (or --out DIR),
one CSV per experiment plus its .meta.json, then regenerates the figures
(figures/*.png with gnuplot, *.pdf and *.svg with matplotlib) and REPORT.md,
which says which claims of the papers hold on this machine.

Modes (timed points: warm-up + measured seconds x runs):
  --quick     0.05 + 0.2 s x 1 run, small Ayers grid: a smoke run
  (default)   0.2 + 0.8 s x 3 runs
  --paper     2 + 8 s x 5 runs, the papers' protocol (Dice §5: median of 5);
              at 0%% work RBONuma(Adapt) (range 2^31 - 1) and Morris (about 4.29e9)
              may count past their range in 8 s: such runs are flagged
              (overflowed=1) and left out of the error figures and claims
  --paper-errors
              only the error experiments of Dice Fig. 6 (the runs of Fig. 4 at
              99%% and 0%% work, for %s),
              with the papers' protocol: their errors depend on how high a run
              counts, so the error claims are judged at the paper's counts.
              %s; figures and claims that need
              other experiments are skipped or not measurable

""" % (errors, errtime)


def protocol_text(times):
    """The help on how the runs are ordered, calibrated and failed, and their times."""
    return """Every run of a timed point (variant, thread count) is its own scbench
invocation (--runs=1 --first-run=r), so a point's min-max band includes the
variance between invocations (memory layout, what else the machine did).
Each --work level is calibrated once for the whole set before any run (until
%d calibrations scbench judged quiet agree within %.0f%%, at most %d rounds),
and every invocation at that level is given the pause count (--work-iters):
run-all.calibration records it, its spread, the single-thread CAS share
achieved against 0%% work (target 1 - PCT/100) and the machine; --resume or a
merge on another kind of machine is refused. Repetition r of every timed
point of every experiment runs before repetition r+1 of any, each round in
a shuffled order drawn from the order seed (recorded in run-all.conf; the
order in run-all.order). Only read-cost runs the reader thread (scbench
--read-cost=off elsewhere: read_ns empty), so throughput runs have no reader
wake-ups. Ayers's count-to-N runs (all runs of one N in one invocation) come
last, in their plan order.

A point whose external work cannot be calibrated (scbench exit status 3: it
says what it measured and why that is not usable) fails alone: the sweep
goes on, failed-points.csv in the result set gives each failed point with
its reason, REPORT.md lists them, and --resume DIR tries them again. Any
other scbench failure stops the sweep (continue with --resume DIR).

Thread counts are 1, 2, 4, ... and the PU count (hwloc), capped by
--max-threads. %s

""" % (CAL.AGREE, 100 * CAL.TOLERANCE, CAL.MAX_ROUNDS, times)


def run_options_text():
    """The help's options that choose what a new or resumed result set runs."""
    return """Options:
  --out DIR        write the result set to DIR (must not exist)
  --resume DIR     continue an interrupted run in DIR: finished points are kept
                   and never run again; the mode and thread counts come from DIR
  --max-threads N  largest thread count to run
  --confirm=MINUTES
                   after the planned rounds, add runs only where a claim is
                   undecided near its line (plots/report.py --needs-runs),
                   in shuffled rounds recorded in run-all.plan and
                   run-all.order, up to the sequential rule's next look (6,
                   then 12 runs a side), until each is decided or the next
                   round would pass MINUTES (estimated, counted from this
                   start: a --resume has its own); default 8 in the
                   default mode, 60 with --paper, 0 (off) with --quick and
                   --paper-errors; 0 turns it off. A merge of shards adds
                   none (it says how: --resume DIR adds them where it runs)
  --order-seed S   seed of the shuffled order, 1..2147483646 (default: drawn
                   from the clock; a new result set only)
  --experiments=LIST
                   run only these experiments (comma-separated) of the mode's
                   plan: %s
  --variants=LIST  run only these variants (comma-separated names of scbench
                   --list) in every experiment; an experiment left with none
                   is dropped. Both restrict a new result set (recorded in
                   run-all.conf and each .meta.json); the figures and claims
                   that need what was left out are skipped or not measurable.
                   E.g. a NUMA smoke run: --quick --experiments=dice-fig4-high
                   --variants=FetchAdd,RBONuma,Multiline
""" % " ".join(EXPERIMENTS)


def plan_options_text():
    """The help's options that plan, shard, merge or submit a run, and the rest."""
    return """  --dry-run        list what the plan runs, per experiment (variants, thread
                   counts, invocations, time), and the requests it drops;
                   write nothing, run nothing (where scbench is not built yet,
                   it is built first, for its list of variants, and said)
  --plan-only      write a new result set's plan (run-all.conf, run-all.plan,
                   run-all.order) to --out DIR, print DIR and run nothing: the
                   pieces below then run it, on one machine or several
  --shard=I/K      with --resume DIR: run only shard I of K (0 <= I < K): the
                   j-th invocation of run-all.order (from 0) is shard j mod K;
                   complete parts are kept; no merge, no figures
  --merge-only     with --resume DIR: run nothing; check that every part of the
                   plan is there, all from machines of one kind (CPU model,
                   PUs, NUMA nodes, kernel) and of one schema (header,
                   schema_version, source_revision, the plan's points), then
                   merge and make the figures and REPORT.md as a run does
  --slurm[=SBATCH_OPTIONS]
                   on a Slurm cluster: plan here, then submit a job array
                   whose task I runs shard I on one whole node (--exclusive
                   --nodes=1) and a merge job that starts when every task has
                   ended: it names the shards with missing parts, or merges as
                   --merge-only does. SBATCH_OPTIONS (shell words: partition,
                   time, account) go to every sbatch. The tree and the result
                   set must be on a directory all nodes share, the nodes of
                   one kind. With --resume DIR: submit again only the shards
                   with parts to run, then the merge. Prints the job ids and
                   the squeue and resume commands (doc/running.md "Running on a
                   cluster"); without sbatch on PATH, exit 2. The merge job
                   runs --resume DIR --slurm-merge --slurm-tasks=K
  --slurm-tasks=K  tasks of the array (default: one per invocation, at most 16)
  --no-lock        do not lock the result set (for a file system where flock(2)
                   fails, e.g. NFS without lock support: run-all.sh says so and
                   stops): nothing then refuses a second run-all.sh on the set,
                   and two would run the same parts; start one writer only
  -h, --help       this text, on standard output
  --version        the version (and git revision) on standard output

"""


def closing_text():
    """The help's last paragraphs: one mode at a time, the environment, exit status."""
    return """One mode at a time: --quick, --paper and --paper-errors exclude each other
(a second one is a usage error, never a silent switch).

Environment: SCBENCH (scbench binary, default: build this tree if needed),
PYTHON_MPL (a Python with matplotlib, default: found by plots/regen;
"none": no PDF/SVG figures).
A result set is never overwritten. Progress goes to standard error: on a
terminal one line redrawn in place (invocations done of all, the current
point, time elapsed and left), else one line per invocation. --resume
reads run-all.conf, run-all.plan and run-all.order as data (never runs them)
and runs again any part that does not match its plan line. Exit status: 0,
1 when a run or plots/regen failed (or --merge-only found parts missing or
from machines of different kinds, or sbatch failed), 2 on bad usage or a
damaged result set,
130/143 when interrupted.
"""


def text(reg, max_threads, bundle=False):
    """The help; reg None (no scbench to list the variants yet): without the
    times; bundle: the tree is a bundle (make bundle), which builds nothing."""
    errors, errtime, times = times_parts(reg, max_threads, bundle)
    return (synopsis_text(errors, errtime) + protocol_text(times) + run_options_text()
            + plan_options_text() + closing_text())
