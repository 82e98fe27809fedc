# SPDX-License-Identifier: MIT
"""The top-level guard of every Python entry point of the tree (run-all and the
plots' tools): an exception the tool did not expect becomes one line on
standard error and exit status 1, never a traceback.

Imported first by each entry point, it also makes, from that moment:
- a Ctrl-C before the guard runs (during the imports of matplotlib, say) end
  the tool quietly with status 130, not a KeyboardInterrupt traceback;
- text written that holds a path which is not UTF-8 (a byte b'\\xff' of the
  file system, '\\udcff' to Python) show that byte as \\xff, never fail:
  standard output and error, and every file written with errors=SHOWN
  (plots/writing.py). shown(text) does the same for a string.

SCOUNTERS_DEBUG=1 lets the exception through (Python prints its traceback), for
developers. SCOUNTERS_FAULT=PROG raises an exception inside the guard of the
tool named PROG (the name it prints its messages with), so that the tests can
check that each entry point is guarded (tests/test_hostile.sh).
Standard library only; the plots import it from ../harness.
"""

import codecs
import os
import re
import signal
import sys

SHOWN = "scounters-shown"


def _shown_errors(e):
    """A character the codec cannot write: a file-system byte (surrogate
    escape) as \\xNN, anything else as backslashreplace writes it."""
    if isinstance(e, UnicodeEncodeError):
        text = e.object[e.start:e.end]
        return ("".join("\\x%02x" % (ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF else
                        "\\u%04x" % ord(c) if ord(c) <= 0xFFFF else "\\U%08x" % ord(c)
                        for c in text), e.end)
    raise e


codecs.register_error(SHOWN, _shown_errors)


def shown(text):
    """text as it can be written as UTF-8 (file-system bytes as \\xNN)."""
    return text.encode("utf-8", SHOWN).decode("utf-8")


def _quiet_interrupt(sig, _frame):
    os._exit(128 + sig)


for _stream in (sys.stdout, sys.stderr):
    if hasattr(_stream, "reconfigure"):
        try:
            _stream.reconfigure(errors=SHOWN)
        except (ValueError, OSError):
            pass
if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _quiet_interrupt)


class EscapingStream:
    """A text stream whose control characters other than a tab and the line
    break that ends a write are written as \\xNN: an ESC read from a file or
    an option named in a message never drives the terminal, and a line break
    inside a path never splits the message's line (print writes its line
    break apart)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        body, end = (text[:-1], "\n") if text.endswith("\n") else (text, "")
        self._stream.write(re.sub(r"[\x00-\x08\x0a-\x1f\x7f]",
                                  lambda m: "\\x%02x" % ord(m.group()), body) + end)
        return len(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


class InjectedFault(Exception):
    """The fault SCOUNTERS_FAULT asks for."""


def guarded(prog, main, *args, escape=True):
    """main(*args)'s exit status; an unexpected exception: one line, 1.
    escape: standard error an EscapingStream (run-all, which draws its
    progress line with terminal controls, escapes its messages itself)."""
    if signal.getsignal(signal.SIGINT) is _quiet_interrupt:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if escape and not isinstance(sys.stderr, EscapingStream):
        sys.stderr = EscapingStream(sys.stderr)
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
