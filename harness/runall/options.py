# SPDX-License-Identifier: MIT
"""run-all's options: read as getopt_long reads them (gnuargs), and checked as
far as they can be without the result set (parse). ./run-all.sh --help says
what each one does (usage.py)."""

import argparse
import re

from . import Usage
from . import confirm as CF
from . import gnuargs
from . import plan as PL
from . import resultset as RS
from . import slurm as SL


class UsageParser(gnuargs.Parser):
    """Options as getopt_long reads them (gnuargs); errors are run-all's: one
    line, exit status 2 (Usage)."""

    def error(self, message):
        m = re.match(r"argument (\S+): not allowed with argument (\S+)", message)
        if m:
            message = "%s and %s: give one mode" % (m.group(2), m.group(1))
        super().error(message)

    def usage_error(self, message):
        raise Usage("%s (see --help)" % message)


class Version(argparse.Action):
    """--version: one line on standard output (harness/version.sh), status 0."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        namespace.version = True


def parser():
    ap = UsageParser(prog="run-all.sh", add_help=False)
    mode = ap.add_mutually_exclusive_group()
    for m in ("quick", "paper", "paper-errors"):
        mode.add_argument("--" + m, dest="mode", action="store_const", const=m)
    for name, dest in (("--out", "out"), ("--resume", "resume"), ("--max-threads", "max_threads"),
                       ("--order-seed", "order_seed"), ("--experiments", "experiments"),
                       ("--variants", "variants"), ("--shard", "shard"),
                       ("--slurm-tasks", "slurm_tasks"), ("--confirm", "confirm")):
        ap.add_argument(name, dest=dest)
    ap.add_argument("--plan-only", action="store_true")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--merge-only", action="store_true")
    ap.add_argument("--no-lock", action="store_true")
    ap.add_argument("--slurm", nargs="?", const="")
    ap.add_argument("--slurm-merge", action="store_true")
    ap.add_argument("-h", "--help", action="store_true")
    ap.add_argument("--version", action=Version, default=False)
    # experiments and variants: None when not given, so that an empty value ("--variants=")
    # can be told from none.
    ap.set_defaults(mode=None, sbatch_options=[])
    return ap


def parse(argv):
    """The options, checked as far as they can be without the result set."""
    # "--slurm=OPTS" only: a bare --slurm never takes the next word as its options.
    argv = ["--slurm=" if a == "--slurm" else a for a in argv]
    argv = parser().expand(argv)  # each option by its full name, as getopt_long reads them
    if "-h" in argv or "--help" in argv:
        argv = ["--help"]  # help whatever else is given, as before
    seen = set()
    for a in argv:
        if a == "--":
            break
        name = a.split("=", 1)[0]
        if name.startswith("--") and name in seen:
            raise Usage("%s given twice: give it once" % name)
        seen.add(name)
    o = parser().parse_args(argv)
    if o.help or o.version:
        return o
    o.mode_given, o.mode = o.mode, o.mode or "default"
    for attr in ("out", "resume"):
        if getattr(o, attr) == "":
            raise Usage("--%s needs a directory" % attr)
    if o.max_threads is not None:
        if not re.fullmatch(r"[1-9][0-9]{0,4}", o.max_threads) or \
                int(o.max_threads) > PL.MAX_THREADS:
            raise Usage("--max-threads=%s: expected an integer in [1, %d]"
                        % (o.max_threads, PL.MAX_THREADS))
        o.max_threads = int(o.max_threads)
    if o.order_seed is not None:
        if not RS.seed_ok(o.order_seed):
            raise Usage("--order-seed=%s: expected an integer in [1, 2147483646]" % o.order_seed)
        o.order_seed = int(o.order_seed)
        if o.resume is not None:
            raise Usage("--order-seed is for a new result set; --resume follows the recorded order")
    for name, value in (("--experiments", o.experiments), ("--variants", o.variants)):
        if value == "":  # an unset shell variable: never "all" (leave the option out for all)
            raise Usage("%s is empty: name at least one, or leave the option out for all" % name)
    if o.experiments:
        if not re.fullmatch(r"[a-z0-9-]+(,[a-z0-9-]+)*", o.experiments):
            raise Usage("--experiments=%s: expected a comma-separated list of: %s"
                        % (o.experiments, " ".join(PL.EXPERIMENTS)))
        for e in o.experiments.split(","):
            if e not in PL.EXPERIMENTS:
                raise Usage("--experiments: unknown experiment '%s' (one of: %s)"
                            % (e, " ".join(PL.EXPERIMENTS)))
    if o.variants and not re.fullmatch(RS.NAME_LIST, o.variants):
        raise Usage("--variants=%s: expected a comma-separated list of variant names (scbench --list)"
                    % o.variants)
    if (o.experiments or o.variants) and o.resume is not None:
        raise Usage("--experiments and --variants are for a new result set; --resume follows the "
                    "recorded plan")
    o.experiments = o.experiments.split(",") if o.experiments else []
    o.variants = o.variants.split(",") if o.variants else []
    if o.shard is not None:
        m = re.fullmatch(r"(0|[1-9][0-9]{0,5})/([1-9][0-9]{0,5})", o.shard)
        if not m or int(m.group(1)) >= int(m.group(2)):
            raise Usage("--shard=%s: expected I/K with 0 <= I < K" % o.shard)
        o.shard = (int(m.group(1)), int(m.group(2)))
    SL.check_options(o)
    CF.minutes(o, o.mode)   # a bad --confirm is a usage error before anything runs
    if (o.shard or o.merge_only) and o.resume is None:
        raise Usage("--%s needs --resume DIR (a result set, e.g. one written by --plan-only)"
                    % ("shard" if o.shard else "merge-only"))
    if o.shard and o.merge_only:
        raise Usage("give --shard or --merge-only, not both")
    if o.shard and o.confirm is not None:
        raise Usage("--confirm is not for --shard (a shard runs its share of the plan): give it to "
                    "a whole run or a --resume without --shard")
    if o.plan_only and o.resume is not None:
        raise Usage("--plan-only writes a new result set; --resume continues one")
    if o.dry_run and (o.resume is not None or o.plan_only or o.slurm is not None):
        raise Usage("--dry-run lists a new plan and writes nothing: not with --resume, "
                    "--plan-only or --slurm")
    if o.no_lock and o.dry_run:
        raise Usage("--no-lock is for a run that writes a set: --dry-run writes nothing")
    return o
