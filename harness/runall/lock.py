# SPDX-License-Identifier: MIT
"""One writer per result set, with flock(2) on directories, which no link can
redirect: the set's own directory, locked exclusively for the whole of a run,
a resume, a merge or a Slurm submission, or shared by the shards of one plan;
each shard also locks its own directory run-all.locks/I-of-K (exclusively).
A set copied with cp -al or cp -r has directories of its own, so its own
locks. A second copy of one shard, a shard of another K while shards of one K
run, or any other writer is refused in one line naming the holder (pid, host,
start, command), and a merge (--merge-only, the Slurm merge job) waits until
the running shards have ended. The kernel drops a lock when its holder ends,
however it ends.

The holder's line is written into run-all.lock (run-all.lock.I-of-K for a
shard) by a rename, never into an existing file, and removed at exit: a link
planted there is replaced, never written through. A file system where flock
fails (NFS without lock support, some FUSE file systems) is said in one line
naming the path, with --no-lock as the way on.
"""

import atexit
import errno
import fcntl
import os
import random
import re
import socket
import stat
import string
import sys
import time

from . import Failure, say
from . import setpath as S

NAME = "run-all.lock"
SHARDS = "run-all.locks"
_held = []  # the locked directories' descriptors: closed (and so released) at exit only
_signed = []  # (path, (dev, ino)) of the holder lines this process wrote: removed at exit


class NoLocks(Failure):
    """flock(2) failed other than by a conflict: the file system has no locks."""


def _no_locks(path, e):
    return NoLocks("cannot lock %s: flock: %s (a file system without locks, e.g. NFS without "
                   "lock support): run again with --no-lock if no other run-all.sh writes this "
                   "set at the same time (nothing then refuses a second writer), or put the set "
                   "on a local file system" % (path, e.strerror or e))


def _open_dir(path, follow=False):
    """A descriptor of directory path, never through a symbolic link (but
    the set's own path, follow: the name the user gave it)."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise Failure("%s is not a directory (a symbolic link or a file): refused; remove it"
                          % path)
        raise Failure("cannot open %s: %s" % (path, e.strerror or e))


def _try(fd, how, path):
    try:
        fcntl.flock(fd, how | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError as e:
        raise _no_locks(path, e)


def _holder(path):
    """What the holder wrote in path (one line), read only from a regular
    file (never a FIFO or a link); when there is none, a phrase that says so."""
    text = ""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                text = os.read(fd, 4096).decode("utf-8", "backslashreplace")
        finally:
            os.close(fd)
    except OSError:
        pass
    text = " ".join(text.split())
    return text or "a run-all.sh that has not yet said who it is"


def _sign(path):
    """The holder's line into path: a new file renamed over whatever is there."""
    line = "pid %d on %s since %s: %s\n" % (
        os.getpid(), socket.gethostname(), time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        " ".join(["run-all.sh"] + sys.argv[1:]))
    tmp = "%s.tmp.%s" % (path, "".join(random.choice(string.ascii_letters + string.digits)
                                         for _ in range(6)))
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, line.encode("utf-8", "backslashreplace"))
            st = os.fstat(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise Failure("cannot write %s: %s (remove it if it is a directory)" % (path, e.strerror or e))
    if not _signed:
        atexit.register(_unsign)
    _signed.append((path, (st.st_dev, st.st_ino)))


def _unsign():
    """At exit, the holder's line removed (the lock itself goes with the
    process), if it is still the file this process wrote."""
    for path, ident in _signed:
        try:
            st = os.lstat(path)
            if (st.st_dev, st.st_ino) == ident:
                os.remove(path)
        except OSError:
            pass


def _shard_dirs(d):
    """{(i, k): path} of the shard lock directories of d."""
    found = {}
    try:
        names = os.listdir(os.path.join(d, SHARDS))
    except OSError:
        return found
    for name in names:
        m = re.fullmatch(r"(0|[1-9][0-9]{0,5})-of-([1-9][0-9]{0,5})", name)
        if m:
            found[(int(m.group(1)), int(m.group(2)))] = os.path.join(d, SHARDS, name)
    return found


def _running_shards(d, but_k=None):
    """[(i, k)] of the shards of d running now (those of k == but_k left out)."""
    held = []
    for (i, k), path in sorted(_shard_dirs(d).items()):
        if k == but_k or os.path.islink(path):
            continue
        try:
            fd = _open_dir(path)
        except Failure:
            continue
        try:
            if _try(fd, fcntl.LOCK_SH, path):
                fcntl.flock(fd, fcntl.LOCK_UN)
            else:
                held.append((i, k))
        finally:
            os.close(fd)
    return held


def _in_use(d):
    shards = _running_shards(d)
    who = ("; ".join(_holder(os.path.join(d, "%s.%d-of-%d" % (NAME, i, k))) for i, k in shards)
           if shards else _holder(os.path.join(d, NAME)))
    return Failure("%s is in use by another run-all.sh (%s): one writer per result set; wait for it "
                   "to end, or stop it, then try again" % (d, who))


def whole(d, wait_for_shards=False):
    """The set for this process alone (a run, a resume, a merge, a
    submission); Failure naming the holder when another writer has it. With
    wait_for_shards (a merge), running shards of the set are waited for."""
    fd = _open_dir(d, follow=True)
    if not _try(fd, fcntl.LOCK_EX, d):
        if not (wait_for_shards and _running_shards(d)):
            os.close(fd)
            raise _in_use(d)
        say("waiting for the running shards of %s to end before the merge" % d)
        fcntl.flock(fd, fcntl.LOCK_EX)
    _held.append(fd)
    _sign(S.inside(d, NAME))


def shard(d, i, k):
    """Shard i/k of the set: the set shared with the other shards of k, its
    own directory alone; refused while a shard of another K runs."""
    fd = _open_dir(d, follow=True)
    if not _try(fd, fcntl.LOCK_SH, d):
        os.close(fd)
        raise _in_use(d)
    _held.append(fd)
    gate_path = S.make_dirs(d, SHARDS)
    gate = _open_dir(gate_path)
    try:
        # one shard at a time checks the others and takes its own lock
        try:
            fcntl.flock(gate, fcntl.LOCK_EX)
        except OSError as e:
            raise _no_locks(gate_path, e)
        other = _running_shards(d, but_k=k)
        if other:
            j, kk = other[0]
            raise Failure("shard %d/%d of %s is running (%s): the shards of one set all split it "
                          "one way; wait for them to end, or run --shard=I/%d"
                          % (j, kk, d, _holder(os.path.join(d, "%s.%d-of-%d" % (NAME, j, kk))), kk))
        mine = S.make_dirs(d, SHARDS, "%d-of-%d" % (i, k))
        own = _open_dir(mine)
        if not _try(own, fcntl.LOCK_EX, mine):
            os.close(own)
            raise Failure("shard %d/%d of %s is already running (%s): wait for it to end, or stop it"
                          % (i, k, d, _holder(os.path.join(d, "%s.%d-of-%d" % (NAME, i, k)))))
        _held.append(own)
    finally:
        os.close(gate)  # the gate's lock goes with it
    _sign(S.inside(d, "%s.%d-of-%d" % (NAME, i, k)))


def unlocked(d):
    """--no-lock: the set is not locked; the risk said once."""
    say("--no-lock: %s is not locked: a second run-all.sh writing it at the same time would run the "
        "same parts, and both would write them" % d)
