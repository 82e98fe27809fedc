#!/bin/sh
# SPDX-License-Identifier: MIT
# test_deps.sh - deps.sh, ./test.sh and ./run-all.sh on a machine that lacks
# packages, as TAP. Nothing is installed or uninstalled: dpkg-query, apt-get,
# sudo, id and make are stubs first on PATH (in a temporary directory) that
# report the packages named in STUB_MISSING as not installed and log what
# would have run, and the scripts run from a copy in the temporary directory.
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
bin=$tmp/bin
log=$tmp/log
mkdir -p "$bin"
cat >"$bin/dpkg-query" <<'STUB'
#!/bin/sh
for p; do :; done
for m in $STUB_MISSING; do [ "$m" = "$p" ] && { echo "dpkg-query: no packages found matching $p" >&2; exit 1; }; done
echo "install ok installed"
STUB
cat >"$bin/apt-get" <<'STUB'
#!/bin/sh
echo "apt-get $*" >>"$STUB_LOG"
exit "${STUB_APT_RC:-0}"
STUB
cat >"$bin/sudo" <<'STUB'
#!/bin/sh
echo "sudo $1" >>"$STUB_LOG"
[ "${STUB_SUDO_RC:-0}" -eq 0 ] || { echo "sudo: a password is required" >&2; exit 1; }
exec "$@"
STUB
cat >"$bin/id" <<'STUB'
#!/bin/sh
echo "${STUB_UID:-0}"
STUB
cat >"$bin/make" <<'STUB'
#!/bin/sh
echo "make $*" >>"$STUB_LOG"
STUB
chmod +x "$bin"/*
export STUB_LOG="$log"
PATH=$bin:$PATH
export PATH

# A copy of the scripts; autogen.sh and configure are stubs that log.
tree=$tmp/tree
mkdir -p "$tree"
cp "$src/deps.sh" "$src/test.sh" "$src/run-all.sh" "$tree/"
mkdir "$tree/harness" && cp -r "$src/harness/runall" "$tree/harness/"
printf '#!/bin/sh\necho autogen >>"$STUB_LOG"\nprintf "#!/bin/sh\\necho configure >>\\"\\$STUB_LOG\\"\\n: >Makefile\\n" >configure\nchmod +x configure\n' >"$tree/autogen.sh"
chmod +x "$tree/autogen.sh"

# run NAME EXPECTED-STATUS CMD...: runs CMD with stdout+stderr in $tmp/out.
run() {
	name=$1 want=$2
	shift 2
	: >"$log"
	"$@" >"$tmp/out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/out"
	if [ "$want" = nonzero ]; then
		check "$name: exits non-zero ($rc)" [ "$rc" -ne 0 ]
	else
		check "$name: exits $want ($rc)" [ "$rc" -eq "$want" ]
	fi
}
logged() { grep -qxF "$1" "$log"; }
said() { grep -qF "$1" "$tmp/out"; }

all=$("$tree/deps.sh" --list)
check "--list names the build and plot packages" sh -c \
	'for p in build-essential libhwloc-dev gnuplot-nox python3-matplotlib; do echo " $1 " | grep -q " $p " || exit 1; done' sh "$all"
check "--ci adds CI's tools" sh -c '"$1" --ci --list | grep -q man-db' sh "$tree/deps.sh"
run "bad option" 2 "$tree/deps.sh" --bogus

STUB_MISSING="" run "nothing missing" 0 "$tree/deps.sh"
check "nothing missing: apt-get not run, nothing printed" sh -c '[ ! -s "$1" ] && [ ! -s "$2" ]' sh "$log" "$tmp/out"

export STUB_MISSING="gnuplot-nox libhwloc-dev"
run "root, two missing" 0 "$tree/deps.sh"
check "root: one line names what it installs" sh -c \
	'[ "$(wc -l <"$1")" -eq 1 ] && grep -q "installing Debian packages (as root): libhwloc-dev gnuplot-nox" "$1"' sh "$tmp/out"
check "root: apt-get update, then install of exactly those" sh -c \
	'[ "$(sed -n 1p "$1")" = "apt-get update -qq" ] &&
	 [ "$(sed -n 2p "$1")" = "apt-get install -y -qq --no-install-recommends libhwloc-dev gnuplot-nox" ] &&
	 [ "$(wc -l <"$1")" -eq 2 ]' sh "$log"

STUB_UID=1000 run "not root, sudo" 0 "$tree/deps.sh"
check "not root: through sudo" sh -c 'grep -q "through sudo" "$1" && grep -qx "sudo env" "$2" &&
	grep -qx "apt-get install -y -qq --no-install-recommends libhwloc-dev gnuplot-nox" "$2"' sh "$tmp/out" "$log"
STUB_UID=1000 STUB_SUDO_RC=1 run "not root, sudo refuses" nonzero "$tree/deps.sh"
check "sudo refuses: names the apt-get line, apt-get not run" sh -c \
	'grep -q "apt-get install libhwloc-dev gnuplot-nox" "$1" && ! grep -q "^apt-get" "$2"' sh "$tmp/out" "$log"
STUB_APT_RC=100 run "apt-get fails" nonzero "$tree/deps.sh"
check "apt-get fails: says so" said "apt-get failed"

for how in "--no-install" "SCOUNTERS_NO_INSTALL=1"; do
	if [ "$how" = --no-install ]; then
		run "refused ($how)" 1 "$tree/deps.sh" --no-install
	else
		SCOUNTERS_NO_INSTALL=1 run "refused ($how)" 1 "$tree/deps.sh"
	fi
	check "refused ($how): names the apt-get line" said "apt-get install libhwloc-dev gnuplot-nox"
	check "refused ($how): apt-get not run" sh -c '! [ -s "$1" ]' sh "$log"
done
SCOUNTERS_NO_INSTALL=0 run "SCOUNTERS_NO_INSTALL=0 installs" 0 "$tree/deps.sh"
check "SCOUNTERS_NO_INSTALL=0: apt-get ran" grep -q "^apt-get install" "$log"

# ./test.sh: refuses before building; otherwise deps, autogen, configure,
# make check, in that order.
run "test.sh --no-install, missing" nonzero "$tree/test.sh" --no-install
check "test.sh --no-install: stops before the build" sh -c '! grep -q "autogen\|configure\|make" "$1"' sh "$log"
run "test.sh, missing" 0 "$tree/test.sh"
check "test.sh: installs, bootstraps, configures, make check" sh -c \
	'[ "$(grep -c "" "$1")" -eq 5 ] && sed -n 2p "$1" | grep -q "^apt-get install" &&
	 [ "$(sed -n 3p "$1")" = autogen ] && [ "$(sed -n 4p "$1")" = configure ] &&
	 sed -n 5p "$1" | grep -q "^make -j[0-9]* check$"' sh "$log"
run "test.sh again, nothing missing" 0 env STUB_MISSING= "$tree/test.sh"
check "test.sh again: only make check" sh -c '[ "$(grep -c "" "$1")" -eq 1 ] && grep -q "^make" "$1"' sh "$log"
rm -f "$tree/configure" "$tree/Makefile"

# ./run-all.sh: refuses before building or writing a result set.
# (make check exports SCBENCH, with which run-all.sh skips deps and the build.)
run "run-all.sh refused" nonzero env -u SCBENCH SCOUNTERS_NO_INSTALL=1 "$tree/run-all.sh" --quick --out "$tmp/set"
check "run-all.sh refused: names the apt-get line" said "apt-get install libhwloc-dev gnuplot-nox"
check "run-all.sh refused: no build, no result set" sh -c '! [ -s "$1" ] && ! [ -e "$2" ]' sh "$log" "$tmp/set"

# One package list: deps.sh. The scripts that need packages call it and name none.
for f in test.sh run-all.sh .ci/run README.md; do
	[ -f "$src/$f" ] || continue
	check "$f names no package list of its own" sh -c '! grep -q "build-essential" "$1"' sh "$src/$f"
done
check "run-all.sh calls deps.sh" grep -q '"$top/deps.sh"' "$src/run-all.sh"
check "test.sh calls deps.sh" grep -q '^\./deps\.sh' "$src/test.sh"
[ -f "$src/.ci/run" ] && check ".ci/run calls deps.sh" grep -q '^\./deps\.sh --ci' "$src/.ci/run"
tap_done
