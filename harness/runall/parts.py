# SPDX-License-Identifier: MIT
"""The parts of a result set: parts/ID/CHUNK.csv, one per invocation of the
plan, with its meta.json (and latency sidecar); running the invocations of
one shard; checking a part against its plan line."""

import glob
import json
import os
import re
import shlex
import signal
import subprocess
import time

from . import Failure, say
from . import setpath as S
from .progress import Progress
from .plan import option

SIGNAL_STATUS = {130: "INT", 143: "TERM", 129: "HUP"}
STATUS_OF = {"INT": 130, "TERM": 143, "HUP": 129}


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP reached run-all (or scbench first). The first
    one ends run-all: raised records it, and a signal after it (the same
    Ctrl-C reaching run-all after scbench's exit said it, or a second one)
    raises nothing more (on_signal), so that the handler says how to go on
    whole instead of a second interrupt cutting it short."""
    raised = False

    def __init__(self, sig):
        Exception.__init__(self, sig)
        self.sig = sig
        self.status = STATUS_OF[sig]
        Interrupted.raised = True


SIDECARS = ("", ".meta.json", ".latency.csv", ".failed")


def path(d, ident, chunk):
    """parts/ID/CHUNK.csv of set d; LinkInSet when it, a sidecar or a
    directory on the way is a symbolic link."""
    for suffix in SIDECARS[1:]:
        S.inside(d, "parts", ident, chunk + ".csv" + suffix)
    return S.inside(d, "parts", ident, chunk + ".csv")


def complete(part, args):
    """Is part (with its sidecars) the whole output of the plan line args? A
    CSV header, one row per variant of --counter and run of --runs, each with
    the header's field count, and a meta.json (scbench writes them last). A
    quoted field (pmu_status, end_state, params) may hold commas: each counts
    as one field (scbench writes no newline inside a field)."""
    def nonempty(p):
        return os.path.isfile(p) and os.path.getsize(p) > 0
    if not os.path.isfile(part) or not meta_ok(part + ".meta.json"):
        return False
    if "--latency" in args and not nonempty(part + ".latency.csv"):
        return False
    want = len(option(args, "counter").split(",")) * int(option(args, "runs", last=True))
    try:
        with open(part, "rb") as f:
            lines = f.read().split(b"\n")
    except OSError:
        return False
    if lines and lines[-1] == b"":
        lines.pop()
    fields = [re.sub(rb'"[^"]*"', b"Q", line).split(b",") for line in lines]
    if not fields or fields[0][0] != b"counter":
        return False
    if not (all(len(f) == len(fields[0]) for f in fields) and len(fields) - 1 == want):
        return False
    # Each row of the plan line's thread count (a damaged row, threads=nan, runs again).
    threads = option(args, "threads", last=True).encode()
    col = fields[0].index(b"threads") if b"threads" in fields[0] else None
    return col is None or all(f[col] == threads for f in fields[1:])


def meta_ok(path):
    """A part's meta.json: a JSON object (scbench writes it last; a cut or
    damaged one makes the part run again, as a missing one does)."""
    try:
        with open(path, "rb") as f:
            return isinstance(json.loads(f.read().decode("utf-8", "replace")), dict)
    except (OSError, ValueError):
        return False


def remove_stale_temps(d, parts=None):
    """Temporary files a SIGKILL left behind (FILE.tmp.XXXXXX and FILE.tmp,
    as scbench and run-all name them): never complete, so removed. parts:
    only those of these part files (a shard leaves the others' alone: they
    may be another shard's, running)."""
    stale = r"\.tmp(\.[A-Za-z0-9]{6})?$"
    if parts is None:
        # The set and its directories two levels down, never a linked
        # directory (os.walk does not follow links): nothing outside the set.
        found, top = [], d.rstrip(os.sep).count(os.sep)
        for where, dirs, files in os.walk(d):
            if where.rstrip(os.sep).count(os.sep) - top >= 2:
                dirs[:] = []
            found += [os.path.join(where, f) for f in files if re.search(stale, f)]
    else:
        found = [f for p in parts if not os.path.islink(os.path.dirname(p))
                 for f in glob.glob(glob.escape(p) + "*.tmp*") if re.search(stale, f)]
    for f in found:
        if os.path.isfile(f) and not os.path.islink(f):
            try:
                os.remove(f)
            except OSError:
                pass


def calibration_reason(log):
    """scbench's one line on why the external work could not be calibrated."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            for line in f:
                if "calibration of the external work" in line:
                    line = line.rstrip("\n").replace("\r", "")
                    return line[len("scbench: "):] if line.startswith("scbench: ") else line
    except OSError:
        pass
    return None


def run(ctx, invocations, estimate, figures_s=0.0):
    """Run the invocations ((ID, CHUNK, ARGS), in order) whose part is not
    complete; a point whose --work cannot be calibrated (scbench status 3) is
    recorded as failed (PART.failed) and the sweep goes on; any other failure
    raises Failure, a signal Interrupted. estimate: "ID CHUNK" -> seconds;
    figures_s: seconds the figures and report take after (0: none made)."""
    d = ctx.dir
    est_total = sum(estimate[i + " " + c] for i, c, _ in invocations)
    say("%s mode, %d scbench invocations (one per run, order seed %d: run-all.order), thread "
        "counts: %s (%d PUs)%s" % (ctx.mode, len(invocations), ctx.order_seed,
                                   " ".join(map(str, ctx.threads)), ctx.pus, ctx.shard_note),
        "result set %s (about %.1f min%s)" % (d, (est_total + figures_s) / 60, "" if not figures_s
                                              else ": %.1f of runs, %.1f of figures and the "
                                              "report" % (est_total / 60, figures_s / 60)))
    progress = Progress()
    try:
        run_each(ctx, invocations, estimate, est_total, progress)
    finally:
        progress.end()


def run_each(ctx, invocations, estimate, est_total, progress):
    d = ctx.dir
    done = spent = 0.0
    # the time this call has taken scales the estimates, not the run's whole
    # time: a confirmation round starts after the planned rounds' minutes
    t0 = time.time()
    for i, (ident, chunk, args) in enumerate(invocations, 1):
        part = path(d, ident, chunk)
        est = estimate[ident + " " + chunk]
        if os.path.exists(part) and complete(part, args):
            done += est
            continue  # finished before an interruption: never run twice
        if os.path.exists(part + ".failed"):
            os.remove(part + ".failed")  # a point that failed before is tried again
        if os.path.exists(part):
            progress.say("%s %s: part file incomplete (not what the plan asks for): run again"
                         % (ident, chunk))
            for f in (part, part + ".meta.json", part + ".latency.csv"):
                if os.path.lexists(f):
                    os.remove(f)
        S.make_dirs(d, "parts", ident)
        S.make_dirs(d, "logs")  # a set from git has none
        elapsed = int(time.time() - ctx.started)
        # Time left: the estimate of what remains, scaled by how the estimates
        # of this call's runs so far fared.
        done += est
        spent += est
        took = time.time() - t0
        f = took / (spent - est) if spent - est > 1 and took > 0 else 1
        # the counts and times first: a narrow terminal cuts the point's name, not them
        progress.show("[%d/%d] %ds elapsed, ~%.0fs left: %s %s"
                      % (i, len(invocations), elapsed, (est_total - done + est) * f, ident, chunk))
        log = S.inside(d, "logs", "%s-%s.log" % (ident, chunk))
        with S.create(log, binary=True) as err:
            cmd = [ctx.scbench] + args.split() + ["--output=" + part]
            ctx.child = subprocess.Popen(cmd, stderr=err)
            status = ctx.child.wait()
            ctx.child = None
        # scbench stopped by a signal that reached it first (Ctrl-C goes to the
        # whole process group): an interrupt, not a failure.
        if status in SIGNAL_STATUS or -status in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            raise Interrupted(SIGNAL_STATUS.get(status) or signal.Signals(-status).name[3:])
        if status == 3:
            why = calibration_reason(log)
            with S.create(part + ".failed") as out:
                out.write((why or "scbench exited with status 3 (calibration failed)") + "\n")
            progress.say("%s %s failed, going on: %s (log: %s)"
                         % (ident, chunk, why or "calibration failed", log))
            continue
        if status != 0:
            raise Failure("scbench failed for %s %s; see %s\nfix the cause, then continue with: %s"
                          % (ident, chunk, log, ctx.resume_cmd()))


def quote(s):
    """A word for the shell, as bash's printf %q writes a plain path; one
    with a control character or a byte that is not UTF-8 (a surrogate escape)
    as $'...' with \\xNN escapes (bash, zsh, ksh), so that it is one line and
    the printed command names the same file."""
    if re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", s):
        return s
    if not any(ord(c) < 0x20 or ord(c) == 0x7F or 0xDC80 <= ord(c) <= 0xDCFF for c in s):
        return shlex.quote(s)
    out = []
    for b in os.fsencode(s):
        c = chr(b)
        out.append("\\" + c if c in "\\'" else c if 0x20 <= b < 0x7F else "\\x%02x" % b)
    return "$'" + "".join(out) + "'"
