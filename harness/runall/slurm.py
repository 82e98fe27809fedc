# SPDX-License-Identifier: MIT
"""run-all.sh --slurm: the plan of one result set as a Slurm job array
(doc/design.md §6, "On a cluster").

A new set: the plan is made here (as --plan-only makes it), then two jobs go
to sbatch: an array of K tasks, each on one whole node (--exclusive
--nodes=1) running ``run-all.sh --resume DIR --shard=I/K`` (the j-th
invocation of run-all.order belongs to shard j mod K), and a merge job that
waits until every task has ended (afterany) and runs ``run-all.sh --resume
DIR --slurm-merge --slurm-tasks=K``: it names the shards whose parts are
missing (exit 1), or merges as --merge-only does (the parts' provenance
checked, figures and REPORT.md regenerated). ``--slurm --resume DIR``
submits again only the shards that have parts to run, then the merge.

The job scripts are written by this module into DIR/slurm/ at every
submission and passed to sbatch as files; nothing read from a result set is
run. Read back (as data, checked) are only the number of tasks and the ids
of the jobs submitted for the set (DIR/slurm/run-all.slurm): the first fixes
the shards, the second lets a resume refuse while a job of the set is still
queued or running.
"""

import os
import re
import shlex
import shutil
import subprocess

from . import PROG, Failure, Usage, say
from . import parts as P
from . import plan as PL
from . import setpath as S

# Default number of array tasks: one per invocation, at most this many.
DEFAULT_TASKS = 16
MAX_TASKS = 10000
# sbatch options that run-all sets itself (long names, and short ones as
# their first two characters: -a5 is -a).
OWN_OPTIONS = ("--array", "-a", "--dependency", "-d", "--wrap", "--parsable", "--output", "-o",
               "--error", "-e", "--chdir", "-D", "--job-name", "-J", "--exclusive",
               "--nodes", "-N", "--kill-on-invalid-dep")
# sbatch options that take no value, or one only after "=" (--exclusive[=user]):
# a word after them is not theirs. Any other option written without its value
# takes the next word as it (getopt's rule, which sbatch follows).
NO_VALUE_OPTIONS = ("--contiguous", "-H", "--hold", "--ignore-pbs", "-O", "--overcommit", "-Q",
                    "--quiet", "--requeue", "--no-requeue", "--reboot", "-s", "--oversubscribe",
                    "--spread-job", "--test-only", "-v", "--verbose", "-V", "--version", "-W",
                    "--wait", "--usage", "-h", "--help", "--exclusive", "--parsable", "-k",
                    "--no-kill", "--get-user-env", "--use-min-nodes", "--nice", "--propagate",
                    "--kill-on-invalid-dep", "--spread-segments", "--exact")
RECORD = "run-all.slurm"
# squeue states in which a job may still write into the set.
ENDED = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
         "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "SPECIAL_EXIT", "REVOKED"}


def sbatch_options(text):
    """The sbatch options of --slurm=TEXT (shell words), checked: Usage."""
    if any(c in text for c in "\n\r\0"):  # shlex would split there: a stray word for sbatch
        raise Usage("--slurm: the options hold a line break")
    try:
        words = shlex.split(text)
    except ValueError as e:
        raise Usage("--slurm=%s: %s" % (text, e))
    value_due = None  # the option whose value the next word is
    for w in words:
        if value_due is not None:
            value_due = None
            continue
        if not w.startswith("-") or w in ("-", "--"):
            raise Usage("--slurm: %r is not an option or an option's value (sbatch would take it "
                        "as its script); give a value as --name=VALUE or after an option that "
                        "takes one" % w)
        attached = "=" in w if w.startswith("--") else len(w) > 2
        if not attached and w not in NO_VALUE_OPTIONS:
            value_due = w
        name = w.split("=", 1)[0] if w.startswith("--") else w[:2]
        if name in OWN_OPTIONS:
            raise Usage("--slurm: %s is run-all.sh's to set (the array, its dependency, one whole "
                        "node per task, the output files, the job names)" % name)
    if value_due is not None:
        raise Usage("--slurm: %s needs a value" % value_due)
    return words


def tasks_option(text):
    """--slurm-tasks=K: an integer in [1, MAX_TASKS]: Usage otherwise."""
    if not re.fullmatch(r"[1-9][0-9]{0,4}", text) or int(text) > MAX_TASKS:
        raise Usage("--slurm-tasks=%s: expected an integer in [1, %d]" % (text, MAX_TASKS))
    return int(text)


def check_options(o):
    """The Slurm options against the rest, and sbatch on PATH (one line,
    status 2, before anything is built or written)."""
    if o.slurm_tasks is not None:
        o.slurm_tasks = tasks_option(o.slurm_tasks)
        if o.slurm is None and not o.slurm_merge:
            raise Usage("--slurm-tasks is for --slurm")
    if o.slurm_merge:
        if o.resume is None or o.slurm_tasks is None or o.slurm is not None:
            raise Usage("--slurm-merge (the merge job of --slurm) needs --resume DIR and --slurm-tasks=K")
        o.merge_only = True
    if o.slurm is None:
        return
    if o.shard or o.merge_only or o.plan_only:
        raise Usage("--slurm submits the shards and the merge itself: no --shard, --merge-only or --plan-only")
    if o.resume is not None and o.slurm_tasks is not None:
        raise Usage("--slurm --resume keeps the set's number of tasks: no --slurm-tasks")
    o.sbatch_options = sbatch_options(o.slurm)
    if not shutil.which("sbatch"):
        raise Usage("--slurm: sbatch is not on PATH (run this where Slurm's commands are, "
                    "e.g. a login node of the cluster)")


def check_paths(*paths):
    """Usage when a path cannot go into a job script: checked before a new
    set is made, so that a refusal leaves nothing behind."""
    for path in paths:
        if any(c in path for c in "\n\r%"):
            raise Usage("%s: --slurm needs paths without line breaks or %% (sbatch expands %%)" % path)


def default_tasks(invocations):
    """The documented default: one task per invocation, at most DEFAULT_TASKS."""
    return min(invocations, DEFAULT_TASKS)


def shards_to_run(d, plan, order, tasks, failed_too=True):
    """{shard: number of its invocations whose part is not complete}. With
    failed_too=False a point recorded as failed (PART.failed: its work could
    not be calibrated) counts as done, as a merge takes it."""
    args = {i + " " + c: (i, c, a) for i, c, a in plan}
    pending = {}
    for j, key in enumerate(order):
        ident, chunk, a = args[key]
        part = P.path(d, ident, chunk)
        if P.complete(part, a) or (not failed_too and os.path.exists(part + ".failed")):
            continue
        s = j % tasks
        pending[s] = pending.get(s, 0) + 1
    return pending


def describe(pending, tasks):
    """'shard 2 of 3 (4 invocations)' or 'shards 0, 2 of 3 (...)'."""
    ids = sorted(pending)
    n = sum(pending.values())
    return "%s %s of %d (%d invocation%s)" % ("shard" if len(ids) == 1 else "shards",
                                            ", ".join(map(str, ids)), tasks, n, "" if n == 1 else "s")


def check_merge(top, d, plan, order, tasks):
    """The merge job's check: Failure naming the shards with missing parts."""
    if tasks > len(order):
        raise Usage("--slurm-tasks=%d: the plan of %s has %d invocations" % (tasks, d, len(order)))
    pending = shards_to_run(d, plan, order, tasks, failed_too=False)
    if pending:
        raise Failure("not merged: %s %s missing parts (a task failed or was cancelled: see %s)\n"
                      "submit them again with: %s --slurm[=SBATCH_OPTIONS] --resume %s"
                      % (describe(pending, tasks), "has" if len(pending) == 1 else "have",
                         os.path.join(d, "slurm", "shard-*.out"),
                         P.quote(os.path.join(top, "run-all.sh")), P.quote(d)))


# --- the record: DIR/slurm/run-all.slurm ------------------------------------------

def write_record(sdir, tasks, jobs):
    tmp = S.inside(sdir, RECORD + ".tmp")
    with S.create(tmp) as f:
        f.write("# run-all.sh --slurm: shard = index in run-all.order mod tasks; the jobs "
                "submitted for this set\ntasks=%d\njobs=%s\n" % (tasks, " ".join(map(str, jobs))))
    os.replace(tmp, os.path.join(sdir, RECORD))


def read_record(sdir, invocations):
    """(tasks, jobs) of DIR/slurm/run-all.slurm: data, checked line by line."""
    path = S.inside(sdir, RECORD)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read(1 << 16).splitlines()
    except OSError as e:
        raise Usage("%s: cannot read it (%s): was this set made with --slurm?" % (path, e.strerror))
    got = {}
    for n, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"(tasks|jobs)=(.*)", line)
        if not m or m.group(1) in got:
            raise Usage("%s line %d: expected tasks=K and jobs=ID ..., each once" % (path, n))
        if m.group(1) == "tasks" and not (re.fullmatch(r"[1-9][0-9]{0,4}", m.group(2))
                                          and int(m.group(2)) <= invocations):
            raise Usage("%s line %d: tasks: expected an integer in [1, %d]" % (path, n, invocations))
        if m.group(1) == "jobs" and not re.fullmatch(r"([1-9][0-9]{0,11}( [1-9][0-9]{0,11})*)?", m.group(2)):
            raise Usage("%s line %d: jobs: expected job ids" % (path, n))
        got[m.group(1)] = m.group(2)
    if "tasks" not in got:
        raise Usage("%s: no tasks line" % path)
    return int(got["tasks"]), [int(j) for j in got.get("jobs", "").split()]


# --- the job scripts ---------------------------------------------------------------
# Every path in a script's code is shlex.quote()d; in its comments, a path is
# shown with its control characters as '?' (a newline would end the comment and
# make the rest of the path a command).

def comment_text(s):
    return re.sub(r"[\x00-\x1f\x7f]", "?", s)


def shard_script(top, d, tasks, pus, scbench, nolock=""):
    """An array task: the node checked against the plan, then its shard."""
    return """#!/bin/bash
# Written by run-all.sh --slurm for the result set {d}: task I of the array
# runs shard I of {tasks}, on one whole node. Rewritten at every submission.
# The scbench built before the submission: a task installs and builds nothing.
set -u
export SCOUNTERS_NO_INSTALL=1 SCBENCH={qscbench}
i=${{SLURM_ARRAY_TASK_ID:-}}
case $i in '' | *[!0-9]*) echo "{prog}: not a task of a Slurm job array" >&2; exit 2 ;; esac
# The plan's thread counts were chosen on a machine with {pus} PUs: a node
# with another count is of another kind.
pus=$(hwloc-calc --number-of pu all 2>/dev/null || nproc)
if [ "$pus" != {pus} ]; then
	echo "{prog}: node $(hostname) has $pus PUs; the plan of this set was made on a machine with {pus}: one kind of node per set (plan it on a node of this partition)" >&2
	exit 1
fi
cd {qtop} || exit 1
echo "{prog}: shard $i of {tasks} on $(hostname) (job ${{SLURM_ARRAY_JOB_ID:-?}}_$i), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
exec {runall}{nolock} --resume {qd} --shard="$i/{tasks}"
""".format(d=comment_text(d), tasks=tasks, pus=pus, prog=PROG, qtop=shlex.quote(top), qscbench=shlex.quote(scbench),
           runall=shlex.quote(os.path.join(top, "run-all.sh")), qd=shlex.quote(d), nolock=nolock)


def merge_script(top, d, tasks, scbench, nolock=""):
    """The merge job: the shards with missing parts named, or the set merged."""
    return """#!/bin/bash
# Written by run-all.sh --slurm for the result set {d}: once every task of
# the array has ended, name the shards with missing parts or merge the set.
# Rewritten at every submission.
set -u
export SCOUNTERS_NO_INSTALL=1 SCBENCH={qscbench}
cd {qtop} || exit 1
echo "{prog}: merge of {tasks} shards on $(hostname) (job ${{SLURM_JOB_ID:-?}}), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
exec {runall}{nolock} --resume {qd} --slurm-merge --slurm-tasks={tasks}
""".format(d=comment_text(d), tasks=tasks, prog=PROG, qtop=shlex.quote(top), qscbench=shlex.quote(scbench),
           runall=shlex.quote(os.path.join(top, "run-all.sh")), qd=shlex.quote(d), nolock=nolock)


def write_script(path, text):
    tmp = path + ".tmp"
    with S.create(tmp) as f:
        f.write(text)
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)


# --- Slurm ----------------------------------------------------------------------------

def sbatch(options, args, script):
    """Submit script; its job id (sbatch --parsable prints ID or ID;CLUSTER)."""
    cmd = ["sbatch", "--parsable"] + options + args + [script]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, encoding="utf-8", errors="replace")
    out = p.stdout.strip()
    m = re.fullmatch(r"([1-9][0-9]{0,11})(;\S+)?", out)
    if p.returncode != 0 or not m:
        raise Failure("sbatch failed (exit %d): %s\ncommand: %s"
                      % (p.returncode, (p.stderr.strip() or out)[:2000], " ".join(P.quote(c) for c in cmd)))
    return int(m.group(1))


def active_jobs(jobs):
    """The jobs of the list (array tasks included) that squeue shows not ended."""
    if not jobs:
        return []
    try:
        p = subprocess.run(["squeue", "-h", "-t", "all", "-o", "%F %i %T"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, encoding="utf-8", errors="replace")
    except OSError as e:
        raise Failure("squeue: %s (needed to see whether jobs of the set still run)" % e.strerror)
    if p.returncode != 0:
        raise Failure("squeue failed (exit %d): %s" % (p.returncode, p.stderr.strip()[:500]))
    want, found = set(jobs), []
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) != 3 or not re.fullmatch(r"[0-9]{1,12}", f[0]):  # ASCII only: '²'.isdigit()
            continue
        own = f[1].split("_", 1)[0]
        if (int(f[0]) in want or (re.fullmatch(r"[0-9]{1,12}", own) and int(own) in want)) and f[2] not in ENDED:
            found.append("%s (%s)" % (f[1], f[2]))
    return found


def array_spec(shards):
    """0-2, or 1,4 for sbatch --array."""
    shards = sorted(shards)
    if len(shards) > 1 and shards == list(range(shards[0], shards[-1] + 1)):
        return "%d-%d" % (shards[0], shards[-1])
    return ",".join(map(str, shards))


def submit(o, top, d, tasks, shards, jobs):
    """Write the job scripts, submit the array of shards (if any) and the
    merge job after it; print the job ids and what to do next."""
    scbench = os.path.abspath(os.environ.get("SCBENCH") or os.path.join(top, "harness", "scbench"))
    check_paths(d, top, scbench)
    sdir = S.make_dirs(d, "slurm")
    shard_sh, merge_sh = S.inside(sdir, "shard.sh"), S.inside(sdir, "merge.sh")
    # --no-lock (a shared file system without locks) goes on to the jobs
    nolock = " --no-lock" if getattr(o, "no_lock", False) else ""
    write_script(shard_sh, shard_script(top, d, tasks, PL.pu_count(), scbench, nolock))
    write_script(merge_sh, merge_script(top, d, tasks, scbench, nolock))
    name = re.sub(r"[^A-Za-z0-9._-]", "_", "scounters-" + os.path.basename(d))[:64]
    write_record(sdir, tasks, jobs)
    array = None
    if shards:
        array = sbatch(o.sbatch_options, ["--job-name=" + name, "--array=" + array_spec(shards), "--nodes=1",
                                          "--exclusive", "--chdir=" + top,
                                          "--output=" + os.path.join(sdir, "shard-%A_%a.out")], shard_sh)
        jobs = jobs + [array]
        write_record(sdir, tasks, jobs)
    after = ["--dependency=afterany:%d" % array, "--kill-on-invalid-dep=yes"] if array else []
    merge = sbatch(o.sbatch_options, ["--job-name=" + name + "-merge", "--nodes=1", "--ntasks=1",
                                      "--chdir=" + top, "--output=" + os.path.join(sdir, "merge-%j.out")]
                   + after, merge_sh)
    write_record(sdir, tasks, jobs + [merge])
    ids = [j for j in (array, merge) if j]
    slurm = "--slurm" + ("=" + o.slurm if o.slurm else "")
    if array:
        print("%s: submitted %s as array job %d (one whole node per task), the merge as job %d "
              "(when every task has ended)" % (PROG, describe(shards, tasks), array, merge))
    else:
        print("%s: every shard's parts are done: submitted the merge as job %d" % (PROG, merge))
    print("%s: result set %s (on a directory all nodes share); job output in %s" % (PROG, d, sdir))
    print("%s: watch with: squeue -j %s" % (PROG, ",".join(map(str, ids))))
    print("%s: cancel with: scancel %s" % (PROG, " ".join(map(str, ids))))
    print("%s: after a failed or cancelled task: %s %s --resume %s"
          % (PROG, P.quote(os.path.join(top, "run-all.sh")), P.quote(slurm), P.quote(d)))
    print("%s: the merged set's report will be %s" % (PROG, os.path.join(d, "REPORT.md")))
    return array, merge


def run_new(o, top, d, order):
    """--slurm on a new result set (its plan just written): every shard."""
    tasks = o.slurm_tasks or default_tasks(len(order))
    if tasks > len(order):
        say("--slurm-tasks=%d: the plan has %d invocations: %d tasks" % (tasks, len(order), len(order)))
        tasks = len(order)
    counts = {}
    for j in range(len(order)):
        counts[j % tasks] = counts.get(j % tasks, 0) + 1
    try:
        return submit(o, top, d, tasks, counts, [])
    except Failure as e:
        raise Failure("%s\nthe plan is in %s: once the cause is fixed, submit it with: %s %s --resume %s"
                      % (e, d, P.quote(os.path.join(top, "run-all.sh")),
                         P.quote("--slurm" + ("=" + o.slurm if o.slurm else "")), P.quote(d)))


def run_resume(o, top, d, plan, order):
    """--slurm --resume DIR: the shards with parts to run, then the merge."""
    sdir = S.inside(d, "slurm")
    tasks, jobs = read_record(sdir, len(order))
    busy = active_jobs(jobs)
    if busy:
        raise Failure("jobs of %s are still queued or running: %s; wait for them to end or scancel them, "
                      "then resume" % (d, ", ".join(busy[:10])))
    return submit(o, top, d, tasks, shards_to_run(d, plan, order, tasks), jobs)
