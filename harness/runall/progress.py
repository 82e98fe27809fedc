# SPDX-License-Identifier: MIT
"""run-all's progress on standard error: on a terminal one line redrawn in
place (invocations done of all, the current point, time elapsed and left);
otherwise, for a log, one plain line per invocation. Messages said while the
line is up (a failed point, an incomplete part) clear it first."""

import shutil
import sys

from . import PROG, say


class Progress:
    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.up = False  # a line is drawn and not ended

    def show(self, text):
        if not self.tty:
            say(text)
            return
        width = shutil.get_terminal_size((80, 24)).columns - 1
        line = "%s: %s" % (PROG, text)
        if len(line) > width:
            line = line[:max(width - 3, 0)] + "..."
        self.stream.write("\r\033[K" + line)
        self.stream.flush()
        self.up = True

    def say(self, *lines):
        self.clear()
        say(*lines)

    def clear(self):
        """Take the line away (the next message starts at the left)."""
        if self.up:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self.up = False

    def end(self):
        """Keep the last line on the screen, and go to the next."""
        if self.up:
            self.stream.write("\n")
            self.stream.flush()
            self.up = False
