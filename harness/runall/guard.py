# SPDX-License-Identifier: MIT
"""The top-level guard of every Python entry point of the tree (run-all and the
plots' tools): an exception the tool did not expect becomes one line on
standard error and exit status 1, never a traceback.

SCOUNTERS_DEBUG=1 lets the exception through (Python prints its traceback), for
developers. SCOUNTERS_FAULT=PROG raises an exception inside the guard of the
tool named PROG (the name it prints its messages with), so that the tests can
check that each entry point is guarded (tests/test_hostile.sh).
Standard library only; the plots import it from ../harness.
"""

import os
import sys


class InjectedFault(Exception):
    """The fault SCOUNTERS_FAULT asks for."""


def guarded(prog, main, *args):
    """main(*args)'s exit status; an unexpected exception: one line, 1."""
    try:
        if os.environ.get("SCOUNTERS_FAULT") == prog:
            raise InjectedFault("fault injected by SCOUNTERS_FAULT=%s" % prog)
        status = main(*args)
        sys.stdout.flush()  # a dead pipe found here, not by the interpreter at exit
        return status
    except SystemExit:
        raise
    except KeyboardInterrupt:
        print("%s: interrupted" % prog, file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of standard output went away (| head): a quiet end with
        # the status SIGPIPE's default gives a tool (141), and no second error
        # when Python flushes the dead pipe at exit
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    except BaseException as e:  # noqa: B902 - the point of the guard
        if os.environ.get("SCOUNTERS_DEBUG", "") not in ("", "0"):
            raise
        text = " ".join(str(e).split()) or "(no message)"
        print("%s: internal error: %s: %s (SCOUNTERS_DEBUG=1 shows the traceback)"
              % (prog, type(e).__name__, text), file=sys.stderr)
        return 1
