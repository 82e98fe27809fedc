# SPDX-License-Identifier: MIT
"""Every file the plots write: all at once (write_atomically: a temporary file
synced and renamed, so a reader never sees half a file), and the CSVs they
write as text (csv_text, numbers to 6 significant digits).
Standard library only.
"""

import csv
import glob
import io
import math
import os
import random
import string
import sys

_HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "harness")
if _HARNESS not in sys.path:   # (the entry points put it there; a test importing the plots may not)
    sys.path.append(_HARNESS)
from runall.guard import SHOWN  # noqa: E402 - the error handler writing a path's non-UTF-8 byte


class OutsideSet(Exception):
    """An output directory of a set that is a symbolic link (or no directory):
    writing there would write, or delete, outside the set."""


def set_subdir(d, name):
    """DIR/name, a directory of result set d made if missing; OutsideSet (one
    line) when it is a symbolic link (to anywhere, itself included) or
    another file: it is never followed, so nothing is written or removed
    outside the set."""
    path = os.path.join(d, name)
    if os.path.islink(path):
        raise OutsideSet("%s is a symbolic link (to %s): refused, nothing is written outside "
                         "the result set (remove the link)" % (path, os.readlink(path)))
    if os.path.lexists(path) and not os.path.isdir(path):
        raise OutsideSet("%s is not a directory: refused (remove it)" % path)
    os.makedirs(path, exist_ok=True)
    return path


def _remove_stale_temps(path):
    for old in glob.glob(glob.escape(path) + ".tmp.??????") + [path + ".tmp"]:
        try:
            if os.path.isfile(old) and not os.path.islink(old):
                os.remove(old)
        except OSError:
            pass


def write_atomically(path, text):
    """Replace path by text (str, written as UTF-8, a path's byte that is not
    UTF-8 as \\xNN, or bytes: an image) all at
    once: written to path.tmp.XXXXXX in its
    directory (such files a SIGKILL left are removed first), synced, given the
    mode of the file it replaces (a new one: 0666 less the umask), renamed.
    OSError when that fails; path is then as it was."""
    _remove_stale_temps(path)
    try:
        mode = os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    for _ in range(100):
        tmp = "%s.tmp.%s" % (path, "".join(random.choice(string.ascii_letters + string.digits)
                                            for _ in range(6)))
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileExistsError:
            continue
    try:
        with (os.fdopen(fd, "wb") if isinstance(text, bytes) else
              os.fdopen(fd, "w", encoding="utf-8", errors=SHOWN, newline="")) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def csv_field(v):
    """A value as a CSV field the plots write: a float to 6 significant digits,
    None empty, infinity "inf"."""
    if v is None:
        return ""
    if isinstance(v, float):
        return "inf" if math.isinf(v) else "%.6g" % v
    return str(v)


def csv_text(columns, rows):
    """A CSV (header, then one line per dict of rows) as text, for write_atomically."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for r in rows:
        w.writerow([csv_field(r[c]) for c in columns])
    return buf.getvalue()
