#!/bin/sh
# SPDX-License-Identifier: MIT
# test.sh [--no-install] - the test command of README.md, from a fresh clone:
# the Debian packages that are missing (./deps.sh; --no-install or
# SCOUNTERS_NO_INSTALL=1 only names them), then ./autogen.sh and ./configure
# where not done yet, then make check. CI runs exactly this line of README.
set -e
cd "$(dirname "$0")"
deps=""
for arg in "$@"; do
	case $arg in
	--no-install) deps=--no-install ;;
	-h | --help) sed -n '3,6s/^# \{0,1\}//p' "$0"; exit 0 ;;
	--version) exec sh harness/version.sh test.sh ;;
	*) echo "test.sh: unknown option $arg (expected --no-install, --help, --version)" >&2; exit 2 ;;
	esac
done
./deps.sh $deps
[ -x configure ] || ./autogen.sh
[ -f Makefile ] || ./configure
make -j"$(nproc 2>/dev/null || echo 2)" check
