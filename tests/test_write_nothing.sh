#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_write_nothing.sh - the modes that promise to write nothing write
# nothing, as TAP: run-all.sh --dry-run, --help and --version, and the plots'
# tools' --help, compared file by file before and after in HOME, the working
# directory and TMPDIR (matplotlib is found, not imported: an import writes
# HOME/.config/matplotlib). And where HOME cannot take matplotlib's config
# directory (a run as nobody), the figures are drawn without matplotlib's
# warning and without a directory left behind. All in a mktemp -d directory.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
PLOTPY=/usr/bin/python3
[ -x "$PLOTPY" ] || PLOTPY=$PY
runall_tree || exit 1   # (for its stand-in scbench)
mkdir "$tmp/home" "$tmp/w" "$tmp/t" || exit 1
# every file and directory under HOME, the working directory and TMPDIR, with
# its type, size and modification time
snapshot() { find "$tmp/home" "$tmp/w" "$tmp/t" -printf '%p %y %s %T@\n' | LC_ALL=C sort; }
# quiet ENV...: a command run with the private HOME, working directory and
# TMPDIR, no XDG directories and no MPLCONFIGDIR
quiet() { (cd "$tmp/w" && env -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u MPLCONFIGDIR HOME="$tmp/home" \
	TMPDIR="$tmp/t" FAKE_LOG="$tmp/fake.log" SCBENCH="$tmp/fake-scbench" "$@" >/dev/null 2>"$tmp/err"); }
# same: the tree as before the last command (each check then starts afresh)
same() { snapshot >"$tmp/after"; cmp -s "$tmp/before" "$tmp/after"; r=$?; mv "$tmp/after" "$tmp/before"; return $r; }

snapshot >"$tmp/before"
quiet "$TOP_SRCDIR/run-all.sh" --quick --dry-run --experiments=dice-fig3 --variants=FetchAdd
check "run-all --dry-run: exit 0" test $? -eq 0
check "run-all --dry-run writes nothing (HOME included)" same
for opt in --help --version; do
	quiet "$TOP_SRCDIR/run-all.sh" $opt
	check "run-all $opt: exit 0" test $? -eq 0
	check "run-all $opt writes nothing" same
done
for tool in regen compare atlas; do
	quiet "$TOP_SRCDIR/plots/$tool" --help
	check "plots/$tool --help: exit 0" test $? -eq 0
	check "plots/$tool --help writes nothing" same
done
for py in aggregate.py report.py mpl_figures.py; do
	quiet "$PLOTPY" "$TOP_SRCDIR/plots/$py" --help
	check "plots/$py --help writes nothing" same
done

# HOME where nothing can be made (a file stands where it would be): the
# figures are drawn, matplotlib says nothing, no temporary directory stays.
if "$PLOTPY" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("matplotlib") is None)' 2>/dev/null; then
	echo file >"$tmp/nohome" && cp -r "$TOP_SRCDIR/tests/fixtures/results-small" "$tmp/set" || exit 1
	"$PLOTPY" "$TOP_SRCDIR/plots/aggregate.py" "$tmp/set" >/dev/null 2>&1 || exit 1
	(env -u XDG_CONFIG_HOME -u XDG_CACHE_HOME -u MPLCONFIGDIR HOME="$tmp/nohome/home" TMPDIR="$tmp/t" \
		MPLBACKEND=Agg "$PLOTPY" "$TOP_SRCDIR/plots/mpl_figures.py" "$tmp/set" dice-fig3 >/dev/null 2>"$tmp/err")
	check "unwritable HOME: figure drawn" sh -c "test $? -eq 0 && test -s '$tmp/set/figures/dice-fig3.pdf'"
	check "unwritable HOME: matplotlib says nothing" sh -c "! grep -qi 'matplotlib\|writable' '$tmp/err'"
	check "unwritable HOME: no temporary directory left" test -z "$(ls -A "$tmp/t")"
else
	skip "unwritable HOME: figure drawn" "no matplotlib for $PLOTPY"
fi
tap_done
