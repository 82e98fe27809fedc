# SPDX-License-Identifier: MIT
"""Long options as GNU getopt_long reads them, for the argparse parsers of
run-all.sh, plots/compare and plots/atlas (scbench's C parser follows the
same rules): a long option is its full name or a unique prefix of one
("--dry" is --dry-run), with its value after '=' or in the next word; a
prefix of several is ambiguous and the possibilities are named; a short
option is one --help shows (-h) or unknown; "--" ends the options. The
messages are the ones scbench gives:
  --count: ambiguous option; possibilities: --counter --counters
  --foo: unknown option
  -o: unknown option
  --force: takes no value      --out: needs a value
"""

import argparse
import re
import sys


class OptionError(Exception):
    """A word of the command line that getopt_long would refuse."""


def _options(parser):
    """{option string: "none", "optional" (only after '=') or "required"}."""
    out = {}
    for action in parser._actions:  # argparse's list of the options it was given
        for s in action.option_strings:
            out[s] = {0: "none", "?": "optional"}.get(action.nargs, "required")
    return out


def expand(parser, argv):
    """argv with every long option's prefix written in full; OptionError
    when a word is an ambiguous prefix, an unknown option or a value given
    to an option that takes none."""
    opts = _options(parser)
    longs = sorted(s for s in opts if s.startswith("--"))
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            out += argv[i - 1:]
            break
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            hits = [name] if name in opts else [s for s in longs if s.startswith(name)]
            if len(hits) > 1:
                raise OptionError("%s: ambiguous option; possibilities: %s" % (name, " ".join(hits)))
            if not hits:
                raise OptionError("%s: unknown option" % name)
            kind = opts[hits[0]]
            if eq and kind == "none":
                raise OptionError("%s: takes no value" % hits[0])
            if kind == "required" and not eq:
                if i == len(argv):
                    raise OptionError("%s: needs a value" % hits[0])
                eq, value = "=", argv[i]  # the next word, whatever it looks like
                i += 1
            out.append(hits[0] + eq + value)
        elif a.startswith("-") and len(a) > 1:
            if a not in opts:
                raise OptionError("-%s: unknown option" % a[1])
            out.append(a)
        else:
            out.append(a)
    return out


def wording(message):
    """argparse's message of a usage error in the words above."""
    m = re.match(r"argument (?:\S+/)?(\S+): expected one argument$", message)
    if m:
        return "%s: needs a value" % m.group(1)
    m = re.match(r"unrecognized arguments: (.*)", message)
    if m:
        return "%s: unexpected argument" % m.group(1)
    return message


class Parser(argparse.ArgumentParser):
    """argparse reading options as getopt_long does (expand); errors go to
    usage_error(message), which the tool defines (one line, status 2)."""

    def __init__(self, *args, **kw):
        kw["allow_abbrev"] = False  # prefixes are expand's, with getopt_long's rules
        super().__init__(*args, **kw)

    def expand(self, args):
        """expand(self, args), an OptionError said through usage_error."""
        try:
            return expand(self, list(args))
        except OptionError as e:
            return self.usage_error(str(e))

    def parse_known_args(self, args=None, namespace=None):
        return super().parse_known_args(self.expand(sys.argv[1:] if args is None else args),
                                        namespace)

    def error(self, message):
        self.usage_error(wording(message))

    def usage_error(self, message):
        raise NotImplementedError
