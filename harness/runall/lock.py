# SPDX-License-Identifier: MIT
"""One writer per result set: DIR/run-all.lock, held with flock(2) for the
whole of a run, a resume, a merge or a Slurm submission (exclusive), or
shared by the shards of one plan, each of which also holds its own
DIR/run-all.lock.I-of-K (exclusive): shards of one plan run together, a
second copy of one shard or any other writer is refused in one line naming
the holder (pid, host, start, command; written into the lock file it holds),
and a merge (--merge-only, the Slurm merge job) waits until the running
shards have ended. The kernel drops a lock when its holder ends, however it
ends: a lock file left behind holds nothing. A lock is kept until exit.
"""

import atexit
import fcntl
import glob
import os
import socket
import sys
import time

from . import Failure, say

NAME = "run-all.lock"
_held = []  # the open lock files: closed (and so released) at exit only
_signed = []  # those this process wrote its line into: emptied at exit


def _open(path):
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    except OSError as e:
        raise Failure("cannot open the lock file %s: %s" % (path, e.strerror or e))


def _try(fd, how):
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def _holder(path):
    """What the holder of path wrote there (one line); when it has written
    nothing yet, a phrase that says so."""
    try:
        with open(path, "rb") as f:
            text = f.read(4096).decode("utf-8", "backslashreplace")
    except OSError:
        text = ""
    text = " ".join(text.split())
    return text or "a run-all.sh that has not yet said who it is"


def _sign(fd):
    line = "pid %d on %s since %s: %s\n" % (
        os.getpid(), socket.gethostname(), time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        " ".join(["run-all.sh"] + sys.argv[1:]))
    os.ftruncate(fd, 0)
    os.pwrite(fd, line.encode("utf-8", "backslashreplace"), 0)
    if not _signed:
        atexit.register(_unsign)
    _signed.append(fd)


def _unsign():
    """At exit, the holder's line taken back (the lock itself goes with the
    process): a lock file left by a run that ended names nobody, so whoever
    reads one that names a process reads the running holder."""
    for fd in _signed:
        try:
            os.ftruncate(fd, 0)
        except OSError:
            pass


def _running_shards(d):
    """The shard lock files of d that a running shard holds now."""
    held = []
    for path in sorted(glob.glob(os.path.join(glob.escape(d), NAME + ".*-of-*"))):
        if os.path.islink(path):
            continue
        fd = _open(path)
        try:
            if _try(fd, fcntl.LOCK_SH):
                fcntl.flock(fd, fcntl.LOCK_UN)
            else:
                held.append(path)
        finally:
            os.close(fd)
    return held


def _in_use(d, path):
    shards = _running_shards(d)
    who = "; ".join(_holder(p) for p in shards) if shards else _holder(path)
    return Failure("%s is in use by another run-all.sh (%s): one writer per result set; wait for it "
                   "to end, or stop it, then try again" % (d, who))


def whole(d, wait_for_shards=False):
    """The set for this process alone (a run, a resume, a merge, a
    submission); Failure naming the holder when another writer has it. With
    wait_for_shards (a merge), running shards of the set are waited for."""
    path = os.path.join(d, NAME)
    fd = _open(path)
    if not _try(fd, fcntl.LOCK_EX):
        if not (wait_for_shards and _running_shards(d)):
            os.close(fd)
            raise _in_use(d, path)
        say("waiting for the running shards of %s to end before the merge" % d)
        fcntl.flock(fd, fcntl.LOCK_EX)
    _sign(fd)
    _held.append(fd)


def shard(d, i, k):
    """Shard i/k of the set: shared with the other shards, its own alone."""
    path = os.path.join(d, NAME)
    fd = _open(path)
    if not _try(fd, fcntl.LOCK_SH):
        os.close(fd)
        raise _in_use(d, path)
    _held.append(fd)
    mine = os.path.join(d, "%s.%d-of-%d" % (NAME, i, k))
    fd = _open(mine)
    if not _try(fd, fcntl.LOCK_EX):
        os.close(fd)
        raise Failure("shard %d/%d of %s is already running (%s): wait for it to end, or stop it"
                      % (i, k, d, _holder(mine)))
    _sign(fd)
    _held.append(fd)
