#!/bin/sh
# SPDX-License-Identifier: MIT
# test_doc_refs.sh - every reference in the tree points into the repository,
# as TAP: no file names the project's external brief (the word spelled in
# capitals below, as a word, e.g. followed by a section sign) or the
# directory it lives in, and every "doc/design.md §N" names a section that
# doc/design.md has. The files are those git knows (tracked, or new and not
# ignored) in a git checkout, else every file of the unpacked tarball.
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
# Built from pieces so that this file does not match itself.
word="SP""EC"
outside="work/""shared"
cd "$src" || exit 1
# git's list only in a checkout of this tree itself, not in a tarball unpacked
# inside another checkout (make distcheck under .ci/run's _ci/).
if command -v git >/dev/null 2>&1 && gtop=$(git rev-parse --show-toplevel 2>/dev/null) &&
	[ "$(cd "$gtop" && pwd -P)" = "$(pwd -P)" ]; then
	git ls-files -co --exclude-standard -z >"$tmp/files"
	how="git's files"
else
	find . -path ./.git -prune -o -path ./autom4te.cache -prune -o -type f -print0 >"$tmp/files"
	how="every file"
fi
check "doc/design.md exists" [ -s doc/design.md ]
xargs -0 grep -nIw -- "$word" <"$tmp/files" >"$tmp/hits" 2>/dev/null
sed 's/^/# /' "$tmp/hits" | head -20
check "no file refers to the external brief ($how; $(grep -c '' "$tmp/hits") lines)" [ ! -s "$tmp/hits" ]
xargs -0 grep -nIF -- "$outside" <"$tmp/files" >"$tmp/hits2" 2>/dev/null
sed 's/^/# /' "$tmp/hits2" | head -5
check "no file points outside the repository ($outside)" [ ! -s "$tmp/hits2" ]

# Every "doc/design.md §N[.M]" names a heading "N." or "N.M" of the document.
xargs -0 grep -ohI 'doc/design\.md §[0-9][0-9.]*' <"$tmp/files" 2>/dev/null |
	sed 's/.*§//; s/\.$//' | sort -u >"$tmp/secs"
check "the tree refers to doc/design.md sections ($(grep -c '' "$tmp/secs"))" [ -s "$tmp/secs" ]
while read -r sec; do
	check "doc/design.md has section $sec" grep -Eq "^#+ ${sec}\\.? " doc/design.md
done <"$tmp/secs"
tap_done
