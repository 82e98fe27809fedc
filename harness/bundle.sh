#!/bin/sh
# SPDX-License-Identifier: MIT
# harness/bundle.sh SRCDIR SCBENCH NAME VERSION - write NAME.tar.gz in the
# current directory: the bundle that `make bundle` makes (Makefile.am).
#
# NAME/ holds the fully static SCBENCH as harness/scbench, the files of
# $BUNDLE_FILES (paths under SRCDIR: run-all.sh, its Python program, plots/,
# the user's documents) at the same paths as in the source tree, an empty
# results/ (run-all.sh's default place for result sets), .revision (the source
# revision, for the scripts' --version) and harness/BUNDLE: key=value lines
# (name, version, revision, arch, linkage) that mark the tree as a bundle.
# run-all.sh reads the marker's presence only: in a bundle it installs and
# builds nothing and runs harness/scbench as it is. Files are world-readable
# (directories and programs world-executable) and owned by no one in
# particular (uid 0 in the archive, the unpacking user's when unpacked), so
# that any user can unpack and run it anywhere.
set -eu
case ${1:-} in
-h | --help) sed -n '3,16s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
[ $# -eq 4 ] || { echo "usage: harness/bundle.sh SRCDIR SCBENCH NAME VERSION" >&2; exit 2; }
src=$1 scbench=$2 name=$3 version=$4
say() { echo "bundle: $*"; }
[ -x "$scbench" ] || { say "$scbench: no such program" >&2; exit 1; }
# Fully static, or it is no bundle: ldd says "not a dynamic executable" (its
# exit status is 1 then) or, for a static-pie, "statically linked".
if command -v ldd >/dev/null 2>&1; then
	l=$(LC_ALL=C ldd "$scbench" 2>&1 || true)
	case $l in
	*"not a dynamic executable"* | *"statically linked"*) ;;
	*) say "$scbench is not static: ldd says:" >&2; echo "$l" >&2; exit 1 ;;
	esac
fi
case $name in
scounters-bundle-[0-9]*) ;;
*) say "unexpected bundle name '$name'" >&2; exit 1 ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bundle.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
b=$tmp/$name
mkdir -p "$b/harness" "$b/results"
for f in ${BUNDLE_FILES:?}; do
	[ -f "$src/$f" ] || { say "$src/$f: missing" >&2; exit 1; }
	mkdir -p "$b/$(dirname "$f")"
	cp "$src/$f" "$b/$f"
done
cp "$scbench" "$b/harness/scbench"
# Symbols are not needed to run it (the build tree keeps the unstripped one).
if command -v strip >/dev/null 2>&1; then
	strip "$b/harness/scbench"
fi
revision=$(sh "$src/harness/revision.sh" "$src")
echo "$revision" >"$b/.revision"
# The linkage as the binary says it: --version's text after the revision.
linkage=$("$b/harness/scbench" --version | sed -n "s/^scbench [^ ]* (revision [^;]*; $name, \(.*\))\$/\1/p")
[ -n "$linkage" ] || { say "scbench --version does not name the bundle $name:" >&2; "$b/harness/scbench" --version >&2; exit 1; }
{
	echo "# A scounters bundle (made by make bundle): run-all.sh runs harness/scbench as it is."
	echo "name=$name"
	echo "version=$version"
	echo "revision=$revision"
	echo "arch=$(uname -m)"
	echo "linkage=$linkage"
} >"$b/harness/BUNDLE"
chmod -R u+rwX,go+rX,go-w "$b"
out=$name.tar.gz
# Sorted, owner-neutral entries: the same files make the same listing.
(cd "$tmp" && find "$name" -print | LC_ALL=C sort |
	tar --no-recursion --owner=0 --group=0 --numeric-owner -T - -cf -) | gzip -9n >"$out.tmp"
mv "$out.tmp" "$out"
say "$out: $(wc -c <"$out") bytes, scbench $(wc -c <"$b/harness/scbench") bytes ($linkage)"
