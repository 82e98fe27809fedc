# SPDX-License-Identifier: MIT
"""run-all: see ./run-all.sh --help. Run by run-all.sh (after deps and the
build) as: python3 -m runall ARGS, with RUNALL_TOP (the source tree) and
SCBENCH set; RUNALL_STAGE=check only parses ARGS (the wrapper asks before it
builds): status 0 to go on, 2 on a usage error, 10 when --help was answered."""

import glob
import os
import signal
import socket
import subprocess
import sys
import time

from .guard import guarded  # first: a Ctrl-C from here on ends quietly
from . import PROG, Failure, Usage, say
from . import calibrate as CAL
from . import confirm as CF
from . import dryrun as DR
from . import lock as L
from . import merge as M
from . import options
from . import parts as P
from . import plan as PL
from . import resultset as RS
from . import slurm as SL
from . import usage

HELP_ANSWERED = 10


class Context:
    """One result set being run: its conf, protocol and where it is."""

    def __init__(self, top, scbench, d, conf):
        self.top, self.scbench, self.dir = top, scbench, d
        self.mode, self.threads, self.order_seed = conf["mode"], conf["threads"], conf["order_seed"]
        self.experiments, self.variants = conf["experiments"], conf["variants"]
        _, _, self.runs, self.ayers_runs, _ = PL.PROTOCOL[self.mode]
        self.pus = PL.pu_count()
        self.started = time.time()
        self.child = None
        self.shard = None
        self.shard_note = ""

    def resume_cmd(self):
        return resume_line(self.top, self.dir, self.shard)


def resume_line(top, d, shard=None):
    """The command that continues result set d (its shard (k, n) alone)."""
    extra = " --shard=%d/%d" % shard if shard else ""
    return "%s --resume %s%s" % (P.quote(os.path.join(top, "run-all.sh")), P.quote(d), extra)


def new_result_set(o, top, scbench):
    """A new result set: the plan, its order and run-all.conf, written before
    any run. Returns (dir, conf)."""
    out = o.out
    if out is None:
        host = socket.gethostname().split(".")[0]
        out = os.path.join(top, "results", "%s-%s" % (host, time.strftime("%Y%m%d-%H%M%S")))
    if os.path.lexists(out):
        raise Usage("%s exists: a result set is never overwritten (use --resume %s to continue it)"
                    % (out, out))
    threads = PL.thread_list(o.max_threads)
    seed = o.order_seed or (int(time.time()) * 1000003 + os.getpid()) % 2147483646 + 1
    reg = PL.registry(scbench)
    for v in o.variants:
        if v not in reg.names:
            raise Usage("--variants: unknown variant '%s' (one of: %s)" % (v, " ".join(reg.names)))
    full = PL.points(o.mode, threads, reg)
    points = PL.restrict(full, reg, o.experiments, o.variants)
    say(*DR.dropped(o, reg, full, threads))  # nothing dropped without a word
    if not points:
        raise Usage("--experiments=%s --variants=%s: nothing of the %s plan is left to run"
                    % (",".join(o.experiments) or "all", ",".join(o.variants) or "all", o.mode))
    plan = PL.split(points, reg)
    if o.dry_run:
        print("\n".join(DR.listing(o.mode, reg, points, plan, threads, CF.minutes(o, o.mode))))
        return None, None
    # the external work, once for the set, before the plan is written
    cal = CAL.calibrate(scbench, [line.split(" ", 2) for line in plan])
    plan = CAL.apply(plan, cal)
    CAL.report(cal)
    order = PL.shuffle(plan, seed)
    # run-all.conf names what the plan runs: a variant or experiment given
    # that none of the plan's runs has is left out (said here), so that the
    # set's conf and plan agree and its resume, shard and merge lines work.
    lines = [line.split(" ", 2) for line in plan]
    ran = {"experiments": set(w[0] for w in lines),
           "variants": set(v for w in lines for v in PL.option(w[2], "counter").split(","))}
    kept = {}
    for key in ("experiments", "variants"):
        given = getattr(o, key)
        kept[key] = [g for g in given if g in ran[key]]
        if len(kept[key]) < len(given):
            say("--%s: %s: nothing of the plan runs %s: left out of run-all.conf"
                % (key, ",".join(g for g in given if g not in ran[key]),
                   "it" if len(given) - len(kept[key]) == 1 else "them"))
    conf = {"mode": o.mode, "threads": threads, "order_seed": seed, "experiments": kept["experiments"],
            "variants": kept["variants"]}
    # The set is made whole or not at all: a Ctrl-C while it is made waits
    # (blocked) until main can print its --resume line; returns with the
    # signals still held (main's release_signals).
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        try:
            os.makedirs(out)
        except OSError as e:
            raise Usage("cannot create %s: %s" % (out, e.strerror or e))
        try:
            lock(o, out)
        except Failure:
            os.rmdir(out)  # made just now, still empty: nothing half made
            raise
        os.mkdir(os.path.join(out, "parts"))
        os.mkdir(os.path.join(out, "logs"))
        M.write_file(os.path.join(out, "run-all.plan"), "".join(line + "\n" for line in plan))
        M.write_file(os.path.join(out, "run-all.order"), RS.order_text(order, seed))
        M.write_file(os.path.join(out, "run-all.conf"), RS.conf_text(conf))
        CAL.write(out, cal)
    except BaseException:
        release_signals()
        raise
    return os.path.abspath(out), conf


SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def release_signals():
    """Deliver the signals new_result_set held (on_signal raises P.Interrupted)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)


def lock(o, d, wait_for_shards=False):
    """The set's lock for this process (lock.py), or with --no-lock the risk said."""
    if o.no_lock:
        L.unlocked(d)
    elif o.shard:
        L.shard(d, *o.shard)
    else:
        L.whole(d, wait_for_shards=wait_for_shards)


def regenerate(ctx):
    """plots/regen on the merged set; Failure when it fails."""
    regen = os.path.join(ctx.top, "plots", "regen")
    status = 0
    if os.access(regen, os.X_OK):
        ctx.child = subprocess.Popen([regen, ctx.dir])
        status = ctx.child.wait()
        ctx.child = None
    say("result set: %s" % ctx.dir)
    if os.path.isfile(os.path.join(ctx.dir, "REPORT.md")):
        say("report: %s" % os.path.join(ctx.dir, "REPORT.md"))
        # the answer last, as the terminal's closing lines (REPORT.md's first table)
        sys.stdout.flush()
        subprocess.call([sys.executable, os.path.join(ctx.top, "plots", "report.py"), "--answer",
                         ctx.dir])
    if status != 0:
        raise Failure("the measurements are complete, but plots/regen failed (status %d, see above); after "
                      "fixing the cause: %s %s" % (status, P.quote(regen), P.quote(ctx.dir)))


def estimates(ctx, plan):
    nall = 0
    if any(PL.option(a, "counter") == "all" for _, _, a in plan):
        nall = len(PL.registry(ctx.scbench).names)
    est = PL.estimates(["%s %s %s" % line for line in plan], ctx.mode, nall, ctx.threads[-1])
    return {k: round(v, 3) for k, v in est.items()}


def version_line(top):
    """The --version line, from harness/version.sh (the one version of the scripts)."""
    return subprocess.run(["sh", os.path.join(top, "harness", "version.sh"), "run-all.sh"],
                          stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout


def answered(o, top, scbench, stage):
    """--version, --help and configure's check: their exit status; None for a run."""
    if o.version:
        sys.stdout.write(version_line(top))
        sys.stdout.flush()
        return HELP_ANSWERED if stage == "check" else 0
    if not (o.help or stage == "check"):
        return None
    if o.help:
        reg = None
        if scbench and os.access(scbench, os.X_OK):
            try:
                reg = PL.registry(scbench)
            except Failure:
                reg = None
        sys.stdout.write(usage.text(reg, o.max_threads,
                                    os.path.isfile(os.path.join(top, "harness", "BUNDLE"))))
        sys.stdout.flush()
        return HELP_ANSWERED if stage == "check" else 0
    if o.dry_run and not os.access(scbench, os.X_OK) and not os.environ.get("SCBENCH_GIVEN") \
            and not os.path.isfile(os.path.join(top, "harness", "BUNDLE")):
        say("--dry-run: scbench is not built yet, and the plan needs its list of variants: "
            "it is built first (about %s, log: build.log); then nothing is run or written"
            % DR.minutes(usage.BUILD_S))
    return 0


def set_to_run(o, top, scbench):
    """The result set this invocation runs here: (d, conf, plan, order), or an
    exit status when it ends before (--dry-run, --plan-only, --slurm)."""
    if o.resume is not None:
        d, conf, plan, order = RS.open_result_set(o)
        lock(o, d, wait_for_shards=o.merge_only)
        if not o.merge_only and o.slurm is None:  # runs here: on the calibration's kind of machine
            CAL.check_machine(scbench, d)
        if o.slurm is not None:
            SL.run_resume(o, top, d, plan, order)
            return 0
        return d, conf, plan, order
    if o.slurm is not None:
        SL.check_paths(os.path.abspath(o.out or top), top, os.path.abspath(scbench))
    d, conf = new_result_set(o, top, scbench)
    if d is None:  # --dry-run: listed, nothing written
        return 0
    plan, order = RS.check_plan(os.path.join(d, "run-all.plan"), os.path.join(d, "run-all.order"))
    if o.plan_only or o.slurm is not None:
        try:
            release_signals()
        except P.Interrupted as e:  # the set exists: say how to go on with it
            say("interrupted (SIG%s) before any run. Continue with: %s"
                % (e.sig, resume_line(top, d)))
            return e.status
    if o.plan_only:
        runs, figs = DR.total(["%s %s %s" % line for line in plan], conf["mode"],
                              PL.registry(scbench), conf["threads"])
        say("planned %d scbench invocations, about %s (%s of runs, %s of figures), nothing "
            "run yet: run them with --resume %s (or --shard, --slurm)"
            % (len(plan), DR.minutes(runs + figs), DR.minutes(runs), DR.minutes(figs),
               P.quote(d)))
        print(d)
        return 0
    if o.slurm is not None:
        SL.run_new(o, top, d, order)
        return 0
    return d, conf, plan, order


def run_here(o, ctx, plan, order):
    """Run the set's invocations here (all of them, one shard's, or none for
    --merge-only), merge, confirm and draw: the exit status."""
    d = ctx.dir
    line_of = {i + " " + c: (i, c, a) for i, c, a in plan}
    if o.resume is None:
        release_signals()  # a signal held since the set was made: its --resume line below
    if o.merge_only:
        if o.slurm_merge:
            SL.check_merge(ctx.top, d, plan, order, o.slurm_tasks)
        P.remove_stale_temps(d)
    elif o.shard:
        ctx.shard = o.shard
        ctx.shard_note = ", shard %d/%d" % o.shard
        mine = [line_of[k] for j, k in enumerate(order) if j % o.shard[1] == o.shard[0]]
        P.remove_stale_temps(d, [P.path(d, i, c) for i, c, _ in mine])
        P.run(ctx, mine, estimates(ctx, mine))
        say("shard %d/%d: its %d invocations are done (merge with --resume %s --merge-only)"
            % (o.shard + (len(mine), P.quote(d))))
        return 0
    else:
        # A local run: plan, the one shard of all invocations, merge.
        if o.resume is not None:
            P.remove_stale_temps(d)
        if CF.minutes(o, ctx.mode):
            say("--confirm: after these%s" % DR.confirm_text(CF.minutes(o, ctx.mode)))
        P.run(ctx, [line_of[k] for k in order], estimates(ctx, plan),
              DR.figures_seconds({i for i, _, _ in plan}))
    M.merge(ctx, plan)
    if not o.merge_only:
        plan = CF.confirm(ctx, plan, CF.minutes(o, ctx.mode))
        say("measurements done in %d s" % (time.time() - ctx.started))
    elif CF.minutes(o, ctx.mode):
        say("--confirm: no confirmation runs in a merge of shards; to add them here: %s"
            % ctx.resume_cmd())
    M.busy_warning(d)
    regenerate(ctx)
    return 0


def stopped(ctx, e):
    """An interrupt during the runs: the child ended, what it left removed, the
    --resume line said; the exit status."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if ctx.child is not None:
        try:
            ctx.child.terminate()
            ctx.child.wait()
        except OSError:
            pass
    if not ctx.shard:
        for f in glob.glob(os.path.join(glob.escape(ctx.dir), "*.csv*.tmp")):
            os.remove(f)
    say("interrupted (SIG%s); nothing finished is lost. Continue with: %s"
        % (e.sig, ctx.resume_cmd()))
    return e.status


def main(argv, top, scbench, stage):
    o = options.parse(argv)
    status = answered(o, top, scbench, stage)
    if status is not None:
        return status
    got = set_to_run(o, top, scbench)
    if isinstance(got, int):
        return got
    d, conf, plan, order = got
    ctx = Context(top, scbench, d, conf)
    try:
        return run_here(o, ctx, plan, order)
    except P.Interrupted as e:
        return stopped(ctx, e)


def on_signal(sig, _frame):
    if not P.Interrupted.raised:  # one interrupt ends run-all (P.Interrupted)
        raise P.Interrupted(signal.Signals(sig).name[3:])


def entry():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    here = os.path.dirname(os.path.abspath(__file__))
    top = os.environ.get("RUNALL_TOP") or os.path.dirname(os.path.dirname(here))
    scbench = os.environ.get("SCBENCH") or os.path.join(top, "harness", "scbench")
    try:
        return main(sys.argv[1:], top, scbench, os.environ.get("RUNALL_STAGE", "run"))
    except Usage as e:
        say(str(e))
        return 2
    except Failure as e:
        say(*str(e).split("\n"))
        return 1
    except BrokenPipeError:
        raise  # the reader of standard output went away (| head): the guard's quiet 141
    except OSError as e:  # a file of the result set that cannot be written or read
        say("%s" % e)
        return 1
    except P.Interrupted as e:  # before a result set was under way
        say("interrupted (SIG%s)" % e.sig)
        return e.status


if __name__ == "__main__":
    sys.exit(guarded(PROG, entry, escape=False))
