#!/bin/sh
# SPDX-License-Identifier: MIT
# test_percpu_paths.sh - tests/test_group (the per-CPU add, PerCPU and the
# packed groups, under migration and signal storms) and tests/test_tree
# (PerCPUTree's add and carries, the same storms) again on every per-CPU
# path (sc_rseq.h): the locked add asked for
# (SCOUNTERS_PERCPU=lock), the restartable sequence indexed by cpu_id
# rather than mm_cid (SCOUNTERS_PERCPU=cpu_id), and glibc's rseq switched
# off (GLIBC_TUNABLES=glibc.pthread.rseq=0, the fallback a program meets on
# a system without rseq). The program checks that it runs on the path its
# environment asks for and that every count is exact. (On the default path
# the suite runs it once more, as a program of its own.)
. "$(dirname "$0")/tap.sh"
b=${TOP_BUILDDIR:-.}/tests

# run NAME PROGRAM [VAR=VALUE...]: one check, the program's TAP kept in $tmp.
run() {
	name=$1 prog=$2
	shift 2
	if env "$@" "$b/$prog" >"$tmp/$name.out" 2>&1 && ! grep -q '^not ok' "$tmp/$name.out"; then
		ok "$name ($(sed -n 's/^# per-CPU path: \([^ ]*\).*/\1/p' "$tmp/$name.out"))"
	else
		not_ok "$name"
		sed 's/^/# /' "$tmp/$name.out" | grep -v '^# ok ' | tail -20
	fi
}
run group_path_lock test_group SCOUNTERS_PERCPU=lock
run group_path_cpu_id test_group SCOUNTERS_PERCPU=cpu_id
run group_rseq_off test_group GLIBC_TUNABLES=glibc.pthread.rseq=0
run tree_path_lock test_tree SCOUNTERS_PERCPU=lock
run tree_rseq_off test_tree GLIBC_TUNABLES=glibc.pthread.rseq=0
tap_done
