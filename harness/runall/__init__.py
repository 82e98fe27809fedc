# SPDX-License-Identifier: MIT
"""run-all: the program behind ./run-all.sh (doc/design.md §6).

Plans every experiment's scbench invocations from the registry (scbench
--list=json), orders them (plan.py), runs them or one shard of them (parts.py),
and merges the parts into one CSV and meta.json per experiment (merge.py).
Standard library only. A result set is data: run-all.conf, run-all.plan and
run-all.order are parsed and checked, never executed (resultset.py).
"""

PROG = "run-all.sh"


class Usage(Exception):
    """A usage error or a damaged result set: one line, exit status 2."""


class Failure(Exception):
    """A run-time failure: the message (one or more lines), exit status 1."""


def say(*lines):
    """Progress and messages go to standard error, each line prefixed, its
    control characters (an ESC, a line break from an option) as \\xNN."""
    import re
    import sys
    for line in lines:
        line = re.sub(r"[\x00-\x1f\x7f]", lambda m: "\\x%02x" % ord(m.group()), str(line))
        print("%s: %s" % (PROG, line), file=sys.stderr, flush=True)
