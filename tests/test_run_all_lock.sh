#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_run_all_lock.sh - a result set's lock and paths, as TAP: a lock file
# hard-linked to a file outside the set leaves that file as it was; a set
# copied with cp -al has its own lock; a symbolic link at parts/, parts/ID/
# or logs/ is refused in one line, nothing written through it; where flock(2)
# fails, one line names the set and --no-lock, and a new set is not left
# half made; --no-lock runs and says the risk; a FIFO at run-all.lock does
# not stop a run; shards of another K than the running ones are refused, and
# --confirm with --shard. A stand-in scbench (tests/fake-scbench.sh); all in
# a mktemp -d directory.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
PLOTPY=/usr/bin/python3
[ -x "$PLOTPY" ] || PLOTPY=$PY
runall_tree || exit 1
one_line() { test "$(wc -l <"$tmp/err")" -eq 1 && ! grep -q Traceback "$tmp/err"; }
fake() { FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/fake-scbench PYTHON_MPL=none "$tmp/run-all.sh" "$@"; }
small="--quick --max-threads=1 --experiments=dice-fig5 --variants=CAS,FetchAdd --order-seed=5"
# (at most 3000 waits of 0.05 s: a check that goes wrong fails, never hangs)
printf '#!/bin/sh\ni=0\n[ "$1" = --list=json ] || while [ ! -e "%s" ]; do [ $i -lt 3000 ] || exit 1; i=$((i + 1)); sleep 0.05; done\nexec "%s" "$@"\n' \
	"$tmp/go" "$tmp/fake-scbench" >"$tmp/gated" && chmod +x "$tmp/gated" || exit 1
gated() { FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/gated PYTHON_MPL=none "$tmp/run-all.sh" "$@"; }
until_in() { i=0; while ! grep -q "$2" "$1" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done; grep -q "$2" "$1"; }

# --- the lock file linked elsewhere ------------------------------------------------
printf 'precious data\n' >"$tmp/victim" && cp "$tmp/victim" "$tmp/victim.orig" || exit 1
fake $small --plan-only --out="$tmp/h" >/dev/null 2>&1 || exit 1
rm -f "$tmp/h/run-all.lock" && ln "$tmp/victim" "$tmp/h/run-all.lock" || exit 1
fake --resume="$tmp/h" >/dev/null 2>"$tmp/err"
check hardlinked_lock_resume_runs test $? -eq 0 -a -s "$tmp/h/dice-fig5.csv"
check hardlinked_lock_victim_intact cmp -s "$tmp/victim" "$tmp/victim.orig"
fake $small --plan-only --out="$tmp/h2" >/dev/null 2>&1 || exit 1
ln "$tmp/victim" "$tmp/h2/run-all.lock.0-of-1" || exit 1
fake --resume="$tmp/h2" --shard=0/1 >/dev/null 2>"$tmp/err"
check hardlinked_shard_lock_victim_intact sh -c "test $? -eq 0 && cmp -s '$tmp/victim' '$tmp/victim.orig'"
rm -f "$tmp/h2/run-all.lock" && ln -s "$tmp/victim" "$tmp/h2/run-all.lock" || exit 1
fake --resume="$tmp/h2" --merge-only >/dev/null 2>"$tmp/err"
check symlinked_lock_refused sh -c "test $? -eq 1 && grep -q 'run-all.lock is a symbolic link' '$tmp/err'"
check symlinked_lock_one_line one_line
check symlinked_lock_victim_intact cmp -s "$tmp/victim" "$tmp/victim.orig"
rm -f "$tmp/h2/run-all.lock" && mkfifo "$tmp/h2/run-all.lock" || exit 1
fake --resume="$tmp/h2" --merge-only >/dev/null 2>"$tmp/err"
check fifo_lock_runs sh -c "test $? -eq 0 && ! grep -q Errno '$tmp/err'"

# A set copied with cp -al while its original runs: the copy has its own lock.
gated $small --plan-only --out="$tmp/o" >/dev/null 2>&1 && cp -al "$tmp/o" "$tmp/o-copy" || exit 1
gated --resume="$tmp/o" >/dev/null 2>"$tmp/err.o" &
a=$!
until_in "$tmp/o/run-all.lock" "^pid "
fake --resume="$tmp/o-copy" >/dev/null 2>"$tmp/err"
check hardlinked_copy_own_lock test $? -eq 0 -a -s "$tmp/o-copy/dice-fig5.csv"
touch "$tmp/go"
wait "$a"
check original_unharmed test $? -eq 0 -a -s "$tmp/o/dice-fig5.csv"
rm -f "$tmp/go"

# --- links inside the set ---------------------------------------------------------------
mkdir "$tmp/away" || exit 1
for sub in parts parts/dice-fig5 logs; do
	rm -rf "$tmp/l" && fake $small --plan-only --out="$tmp/l" >/dev/null 2>&1 || exit 1
	mkdir -p "$tmp/l/$sub" && rm -rf "$tmp/l/$sub" && ln -s "$tmp/away" "$tmp/l/$sub" || exit 1
	fake --resume="$tmp/l" >/dev/null 2>"$tmp/err"
	st=$?
	name=$(echo "$sub" | tr / _)
	check "linked_${name}_refused" sh -c "test $st -eq 1 && grep -q '$tmp/l/$sub is a symbolic link' '$tmp/err'"
	check "linked_${name}_one_line" one_line
	check "linked_${name}_nothing_through" test -z "$(ls -A "$tmp/away")"
done
# --merge-only from another set's parts through a link
fake $small --out="$tmp/m1" >/dev/null 2>&1 && fake $small --plan-only --out="$tmp/m2" >/dev/null 2>&1 &&
	rmdir "$tmp/m2/parts" && ln -s "$tmp/m1/parts" "$tmp/m2/parts" || exit 1
fake --resume="$tmp/m2" --merge-only >/dev/null 2>"$tmp/err"
check merge_through_link_refused sh -c "test $? -eq 1 && test ! -e '$tmp/m2/dice-fig5.csv' && grep -q 'symbolic link' '$tmp/err'"

# --- a file system without locks --------------------------------------------------------
# flock(2) made to fail as NFS without lock support makes it (ENOLCK), inside
# run-all's own program.
nolocks() { FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/fake-scbench PYTHON_MPL=none RUNALL_TOP=$tmp \
	PYTHONPATH=$tmp/harness PYTHONDONTWRITEBYTECODE=1 "$PLOTPY" -c 'import errno, fcntl, sys
def no_locks(*_args):
    raise OSError(errno.ENOLCK, "No locks available")
fcntl.flock = no_locks
import runall.__main__ as R
sys.exit(R.guarded(R.PROG, R.entry, escape=False))' "$@"; }
for how in "" --plan-only; do
	nolocks $small $how --out="$tmp/nfs" >/dev/null 2>"$tmp/err"
	st=$?
	check "no_locks${how}_refused" sh -c "test $st -eq 1 && grep -q 'cannot lock $tmp/nfs: flock: No locks available.*--no-lock' '$tmp/err'"
	check "no_locks${how}_one_line" one_line
	check "no_locks${how}_nothing_made" test ! -e "$tmp/nfs"
done
nolocks $small --no-lock --out="$tmp/nfs" >/dev/null 2>"$tmp/err"
check no_lock_runs sh -c "test $? -eq 0 && test -s '$tmp/nfs/dice-fig5.csv' && grep -q -- '--no-lock: $tmp/nfs is not locked' '$tmp/err'"
fake $small --plan-only --out="$tmp/nfs2" >/dev/null 2>&1 || exit 1
nolocks --resume="$tmp/nfs2" >/dev/null 2>"$tmp/err"
check no_locks_resume_refused sh -c "test $? -eq 1 && grep -q 'cannot lock $tmp/nfs2: ' '$tmp/err'"
check no_locks_resume_one_line one_line

# --- shards of one K only ---------------------------------------------------------------
gated $small --plan-only --out="$tmp/k" >/dev/null 2>&1 || exit 1
gated --resume="$tmp/k" --shard=0/2 >/dev/null 2>"$tmp/err.k" &
s=$!
until_in "$tmp/k/run-all.lock.0-of-2" "^pid "
gated --resume="$tmp/k" --shard=1/3 >/dev/null 2>"$tmp/err"
check other_k_refused sh -c "test $? -eq 1 && grep -q 'shard 0/2 of $tmp/k is running (pid .*--shard=I/2' '$tmp/err'"
check other_k_one_line one_line
touch "$tmp/go"
wait "$s"
check shard_of_k_unharmed test $? -eq 0
fake --resume="$tmp/k" --shard=1/2 --confirm=5 >/dev/null 2>"$tmp/err"
check confirm_with_shard_refused sh -c "test $? -eq 2 && grep -q -- '--confirm is not for --shard' '$tmp/err'"
tap_done
