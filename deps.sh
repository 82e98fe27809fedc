#!/bin/sh
# SPDX-License-Identifier: MIT
# deps.sh [--no-install] [--ci] [--list] - the Debian packages scounters needs,
# installed when missing. The one list of them: ./test.sh, ./run-all.sh and
# .ci/run all call this script.
#
#   (no option)    install what is missing: apt-get as root, or through sudo
#                  otherwise, after one line naming the packages
#   --no-install   (or SCOUNTERS_NO_INSTALL=1) install nothing: name the
#                  apt-get line for what is missing and exit 1
#   --ci           also the packages only CI needs (clang++ builds, man page
#                  rendering)
#   --list         print the packages, one line, and exit
#   -h, --help     this text; --version: the version line
#
# Exit status: 0 when everything is installed (or was just installed), 1 when
# packages are missing and were not installed, 2 on a usage error. Where
# dpkg-query is missing (not Debian) nothing is checked: a note names the
# packages and the build finds out for itself.
set -u

# Building, make check, scbench with hwloc and PAPI, the figures and report;
# libpfm4-dev: libpfm.a, which PAPI needs in the bundle's static scbench;
# python3-pytest: make check's tests of the Python in plots/ and harness/runall/.
PKGS="build-essential autoconf automake libtool pkg-config git libhwloc-dev hwloc
libpapi-dev libpfm4-dev papi-tools gnuplot-nox python3-matplotlib python3-numpy python3-scipy
python3-pytest"
# CI only: clang++ builds of the embed examples, groff and man-db to render
# the man pages in make check, clang-format and pycodestyle for the format
# of the changed lines (tests/check-format.sh). make bench's llvm-mca table also wants llvm
# (llvm-19 or newer models znver4), clang and libc6-dev-arm64-cross (the
# aarch64 loop); harness/mca.sh names what is missing.
CI_PKGS="clang groff-base man-db cmake meson ninja-build clang-format python3-pycodestyle"

me=deps.sh
no_install=${SCOUNTERS_NO_INSTALL:-}
[ "$no_install" = 0 ] && no_install=""
list=""
for arg in "$@"; do
	case $arg in
	--no-install) no_install=1 ;;
	--ci) PKGS="$PKGS $CI_PKGS" ;;
	--list) list=1 ;;
	-h | --help) sed -n '3,19s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--version) exec sh "$(dirname "$0")/harness/version.sh" deps.sh ;;
	*) echo "$me: unknown option $arg (expected --no-install, --ci, --list, --help, --version)" >&2; exit 2 ;;
	esac
done
# shellcheck disable=SC2086,SC2116
PKGS=$(echo $PKGS)
if [ -n "$list" ]; then
	echo "$PKGS"
	exit 0
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
	echo "$me: not a Debian system (no dpkg-query): not checking packages; the build needs the equivalents of: $PKGS" >&2
	exit 0
fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' ||
		missing="$missing $p"
done
missing=${missing# }
[ -z "$missing" ] && exit 0

if [ -n "$no_install" ]; then
	echo "$me: missing Debian packages (not installing them: SCOUNTERS_NO_INSTALL or --no-install); install them with:" >&2
	echo "  apt-get install $missing" >&2
	exit 1
fi
if [ "$(id -u)" = 0 ]; then
	as=""
	how="as root"
elif command -v sudo >/dev/null 2>&1; then
	as=sudo
	how="through sudo"
else
	echo "$me: missing Debian packages, and not root and no sudo to install them; as root run:" >&2
	echo "  apt-get install $missing" >&2
	exit 1
fi
echo "$me: installing Debian packages ($how): $missing" >&2
# shellcheck disable=SC2086
if $as env DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes apt-get update -qq >/dev/null &&
	$as env DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
	exit 0
fi
echo "$me: apt-get failed; install the packages yourself with:" >&2
echo "  apt-get install $missing" >&2
exit 1
