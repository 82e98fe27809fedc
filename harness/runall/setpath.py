# SPDX-License-Identifier: MIT
"""Paths inside a result set, never through a symbolic link: every file and
directory run-all reads or writes in a set (parts/, parts/ID/, a part and its
sidecars, logs/, slurm/, the lock's files, the set's own files) is named by
inside() or made by make_dirs(), which refuse in one line a link anywhere
below the set's directory (the set's own path may be one: the name the user
gave it). A link there would make a resume write part files, logs or a
meta.json into the link's target, or a merge read another set's parts."""

import os

from . import Failure


class LinkInSet(Failure):
    """A symbolic link (or a file where a directory belongs) inside a set."""


def _components(names):
    out = []
    for n in names:
        out += [c for c in n.split("/") if c]
    return out


def inside(d, *names):
    """d joined with names (each may hold '/'); LinkInSet when any of the
    components below d is a symbolic link."""
    path = d
    for c in _components(names):
        path = os.path.join(path, c)
        if os.path.islink(path):
            try:
                target = os.readlink(path)
            except OSError:
                target = "?"
            raise LinkInSet("%s is a symbolic link (to %s): refused, nothing in a result set is read "
                            "or written through a link (replace it with the file or directory "
                            "itself)" % (path, target))
    return path


def make_dirs(d, *names):
    """The directory d/names, made if missing, each component checked as
    inside() does; LinkInSet when one is a link or not a directory."""
    path = d
    for c in _components(names):
        path = inside(path, c)
        if os.path.lexists(path) and not os.path.isdir(path):
            raise LinkInSet("%s is not a directory: refused (remove it)" % path)
        try:
            os.mkdir(path)
        except FileExistsError:
            pass
    return path


def create(path, binary=False):
    """path opened for writing as a new file: whatever was there (a link, a
    file hard-linked elsewhere, a FIFO) is removed first, never written
    through; the file object (text: UTF-8, surrogate escapes kept)."""
    if os.path.lexists(path) and not os.path.isdir(path):
        os.remove(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
    if binary:
        return os.fdopen(fd, "wb")
    return os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="")
