#!/bin/sh
# SPDX-License-Identifier: MIT
# revision.sh [SRCDIR] - the source revision of the tree at SRCDIR (default:
# this script's tree), one line: the commit's short hash (and "-dirty" when
# tracked files differ from it; `git describe`, tags left out) in a git
# checkout; else the .revision file that `make dist` writes into a tarball
# (the revision it was made from); else "unknown". scbench's --version and
# every result's meta.json (source_revision) get it from the build
# (harness/sc_revision.h, refreshed at every make, not only at configure),
# the scripts' --version lines from harness/version.sh.
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
r=""
if [ -e "$top/.git" ]; then
	r=$(git -C "$top" describe --always --dirty --abbrev=7 --exclude='*' 2>/dev/null)
fi
if [ -z "$r" ] && [ -f "$top/.revision" ]; then
	r=$(sed -n '1{/^[0-9A-Za-z._+-]*$/p;}' "$top/.revision")
fi
echo "${r:-unknown}"
