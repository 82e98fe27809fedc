#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpvars.py FIGDATA FIG - the gnuplot variables of figure FIG, on standard output.

plots/regen writes them to a temporary file that the figure's gnuplot script
loads (gnuplot -c plots/gnuplot/FIG.gp RESULT_DIR VARS): the file work the
scripts once did with system() (sed, awk) is done here, so that no shell ever
sees a path or a value of the result set.

  FILES = 'a.dat b.dat'         the figure's .dat files in FIGDATA (figures.tsv)
  META_<n>_<key> = 'value'      the '# key: value' header lines of file n (from
                                1; the first line of a key, as written)
  MARKED_CAPTION = 'text'       the figure's one caption of its boxed (marked)
                                points over all its files ('' when none)

Every value is a gnuplot single-quoted string: inside one, gnuplot substitutes
nothing (no backquotes, no @macros, no backslash escapes); a quote is doubled,
and a control character (a newline would end the command) becomes a space.
Exit status: 0, 1 when figures.tsv or a .dat file cannot be read or names an
unexpected file, 2 on bad usage.
Standard library only.
"""

import os
import re
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, os.pardir, "harness"))  # runall.guard
from runall.guard import guarded  # noqa: E402 - first: a Ctrl-C from here on ends quietly
from figdata import read_index  # noqa: E402
from marks import figure_caption  # noqa: E402

PROG = "gpvars.py"
DAT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\.dat")
KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
HEADER = re.compile(r"# ([^:]+): (.*)")


def gp_string(text):
    """text as a gnuplot single-quoted string literal."""
    return "'%s'" % re.sub(r"[\x00-\x1f\x7f]", " ", text).replace("'", "''")


# The header lines drawn as the figure's title and subtitles, wrapped at
# TITLE_WIDTH characters: the narrowest figure (1100 pixels) holds about 190
# of DejaVu Sans 10 in one line, and gnuplot cuts a longer one at both edges.
TITLE_KEYS = ("title", "measured", "drawn", "caption", "note")
TITLE_WIDTH = 150


def gp_text(key, value, meta):
    """The gnuplot expression of a header value: a string literal, or for
    the title's keys the literals of its wrapped lines joined by line breaks
    (the first line shorter by what common.gp's TITLE_TEXT puts before it)."""
    if key not in TITLE_KEYS:
        return gp_string(value)
    before = {"title": len(meta["reproduces"]) + 2 if meta.get("reproduces") else 0,
              "measured": len("measured: ")}.get(key, 0)
    lines = textwrap.wrap(value, TITLE_WIDTH, initial_indent="x" * before,
                          break_long_words=True, break_on_hyphens=False)
    if lines:
        lines[0] = lines[0][before:]
    return '."\\n".'.join(gp_string(line) for line in lines) if lines else gp_string("")


def header(path):
    """{key: value} of the '# key: value' lines before the data, first line wins."""
    meta = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("#"):
                break
            m = HEADER.fullmatch(line.rstrip("\n"))
            if m and KEY.fullmatch(m.group(1)) and m.group(1) not in meta:
                meta[m.group(1)] = m.group(2)
    return meta


def main(argv):
    if len(argv) != 3:
        print("usage: %s FIGDATA FIG" % PROG, file=sys.stderr)
        return 2
    figdata, fig = argv[1], argv[2]
    try:
        rows = read_index(os.path.join(figdata, "figures.tsv"))
        files = []
        for fid, status, what in rows:
            if fid == fig and status == "ok":
                files.extend(what.split())
        bad = [f for f in files if not DAT_NAME.fullmatch(f)]
        if bad:
            print("%s: figures.tsv names %r for %s: not a .dat file name" % (PROG, bad[0], fig),
                  file=sys.stderr)
            return 1
        out = ["# written by %s: data only, in single-quoted strings" % PROG,
               "FILES = %s" % gp_string(" ".join(files))]
        captions = []
        for n, name in enumerate(files, 1):
            meta = header(os.path.join(figdata, name))
            for key, value in meta.items():
                out.append("META_%d_%s = %s" % (n, key, gp_text(key, value, meta)))
            captions.append(meta.get("marked_caption", ""))
        out.append("MARKED_CAPTION = %s" % gp_string(figure_caption(captions)))
    except (OSError, UnicodeDecodeError) as e:
        print("%s: %s" % (PROG, getattr(e, "strerror", None) or e), file=sys.stderr)
        return 1
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(guarded(PROG, main, sys.argv))
