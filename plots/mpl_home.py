# SPDX-License-Identifier: MIT
"""matplotlib's configuration and cache directory where the home directory
cannot take them (a run as nobody, HOME=/nonexistent, a read-only home):
MPLCONFIGDIR set, before matplotlib is imported, to a private temporary
directory removed at exit, so that matplotlib neither warns (a paragraph on
standard error) nor leaves a directory behind. A MPLCONFIGDIR already set,
or a home where matplotlib can write, is left as it is.
Standard library only; import it before matplotlib.
"""

import atexit
import os
import shutil
import tempfile


def _writable(path):
    """Could path be made or written (its nearest existing ancestor writable)?"""
    while not os.path.lexists(path):
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return os.path.isdir(path) and os.access(path, os.W_OK | os.X_OK)


def private_if_needed():
    """MPLCONFIGDIR a private temporary directory when matplotlib's own
    (XDG_CONFIG_HOME or ~/.config, XDG_CACHE_HOME or ~/.cache, each
    /matplotlib) cannot be written; returns the directory set, or None."""
    if os.environ.get("MPLCONFIGDIR"):
        return None
    home = os.path.expanduser("~")
    dirs = [os.path.join(os.environ.get(var) or os.path.join(home, sub), "matplotlib")
            for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"))]
    if home != "~" and os.path.isabs(home) and all(_writable(d) for d in dirs):
        return None
    d = tempfile.mkdtemp(prefix="scounters-mpl-")
    os.environ["MPLCONFIGDIR"] = d
    atexit.register(shutil.rmtree, d, True)
    return d


private_if_needed()
