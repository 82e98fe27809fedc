# SPDX-License-Identifier: MIT
"""The command line of the plots tools (plots/compare, plots/atlas): argparse
with --version (harness/version.sh, the one version line of the scripts) and
usage errors in one line on standard error, exit status 2."""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
from runall import gnuargs  # noqa: E402  (the one reading of options, run-all.sh's too)


def version_line(prog):
    try:
        return subprocess.run(["sh", os.path.join(HERE, "..", "harness", "version.sh"), prog],
                              stdout=subprocess.PIPE, universal_newlines=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "%s (scounters)" % prog


class Parser(gnuargs.Parser):
    """Options as getopt_long reads them (harness/runall/gnuargs.py); one
    line per usage error (not argparse's usage block), status 2."""

    def __init__(self, prog, **kw):
        super().__init__(prog=prog, **kw)
        self.add_argument("--version", action="version", version=version_line(prog),
                          help="the version (and git revision), on standard output")

    def parse_args(self, args=None, namespace=None):
        """argparse's, and an empty --out (an unset shell variable) refused."""
        ns = super().parse_args(args, namespace)
        if getattr(ns, "out", None) == "":
            self.error("--out is empty: give a directory")
        return ns

    def usage_error(self, message):
        print("%s: %s (see --help)" % (self.prog, escaped(message)), file=sys.stderr)
        sys.exit(2)


def escaped(text):
    """text with its control characters (an ESC, a line break given in an
    option) as \\xNN: a message stays one line and never drives the terminal."""
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group()), text)
