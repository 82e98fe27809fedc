#!/bin/sh
# SPDX-License-Identifier: MIT
# mca.sh - llvm-mca's model of one increment on cores this machine may not
# have (make bench runs it): the per-CPU add, its floor and the handle's
# increment against the inlined one, as loops of harness/mca_loops.c compiled
# as a user's program is (clang -O2, no loop alignment flags; x86-64 once for
# every x86 core, aarch64 for neoverse-n1 where an aarch64 C library is found).
#
#   mca.sh [SRCDIR]     prints one table: per loop, instructions, uops and
#                       llvm-mca's cycles per increment on each core
#
# The loop body given to llvm-mca is the path one increment takes, read from
# the assembly: from the loop's head (the label clang marks "Inner Loop
# Header") through the instructions in order, following unconditional jumps, taking
# no conditional jump but the one back to the head, up to the head again;
# the asm's side sections (__rseq_cs, __rseq_failure) are skipped. An
# indirect call (the handle's call into the library) counts as one
# instruction: llvm-mca does not see the callee. Environment: CLANG (clang),
# LLVM_MCA (the newest llvm-mca-N found, else llvm-mca). Exit 0; 1 when
# clang or llvm-mca is missing.
set -eu
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
CLANG=${CLANG:-clang}
if [ -z "${LLVM_MCA:-}" ]; then
	LLVM_MCA=llvm-mca
	for v in 21 20 19 18 17 16 15; do
		if command -v "llvm-mca-$v" >/dev/null 2>&1; then LLVM_MCA=llvm-mca-$v; break; fi
	done
fi
for p in "$CLANG" "$LLVM_MCA"; do
	command -v "$p" >/dev/null 2>&1 || { echo "mca.sh: $p not found (Debian: apt-get install clang llvm)" >&2; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scounters-mca.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

x86_cores="znver3 znver4 skylake icelake-server"
arm_cores="neoverse-n1"
loops="floor percpu/mm_cid percpu/cpu_id cursor/mm_cid cursor/cpu_id handle_percpu/mm_cid handle_percpu/cpu_id
	inline_fetchadd handle_call inline_sharded handle_sharded"

# trace FILE.s FUNC COMMENT: the instructions of one increment (see above),
# one a line; COMMENT is the assembler's comment mark (x86: #, aarch64: //).
trace() {
	awk -v f="$2" -v cm="$3" '
		function target(s,   n, a) { n = split(s, a, /[ \t,]+/); return a[n] }
		$0 ~ "^" f ":" { on = 1; next }
		on && /^\.Lfunc_end|^\t\.size/ { on = 0 }
		!on { next }
		/^[ \t]*\.(push)?section/ { side = $0 !~ /\.text/; next }
		/^[ \t]*\.(popsection|text)/ { side = 0; next }
		side { next }
		/^\.L[A-Za-z0-9_]+:.*Loop Header: Depth=1$/ { hl = $0; sub(/:.*/, "", hl) }
		{ k = index($0, cm); if (k) $0 = substr($0, 1, k - 1); sub(/^[ \t]+/, ""); sub(/[ \t]+$/, "") }
		/^\.L[A-Za-z0-9_]+:/ { l = $0; sub(/:.*/, "", l); at[l] = n + 1; next }
		/^[0-9]+:$/ || /^\./ || /^$/ { next }
		{ ins[++n] = $0 }
		END {
			if (!(hl in at)) exit 1
			i = head = at[hl]; steps = 0
			while (steps++ < 400) {
				split(ins[i], w, /[ \t]+/)
				if (w[1] ~ /^(jmp|b)$/) { t = target(ins[i]); if (!(t in at)) exit 1; i = at[t]; if (i == head) exit 0; continue }
				if (w[1] ~ /^(j[a-z]+|b\.[a-z]+|cbn?z|tbn?z)$/ && target(ins[i]) in at && at[target(ins[i])] == head) { print ins[i]; exit 0 }
				if (w[1] ~ /^retq?$/) exit 1
				print ins[i]
				i++
				if (i == head) exit 0
			}
			exit 1
		}' "$1" |
		# labels local to the file (jump targets, the descriptor) become one symbol
		sed -e 's/\.L[A-Za-z0-9_]*/mca_sym/g' -e 's/\([ ,(:]\)[0-9][bf]\b/\1mca_sym/g'
}

# mca TRIPLE CPU FILE: "instructions uops cycles" per iteration.
mca() {
	"$LLVM_MCA" -mtriple="$1" -mcpu="$2" -iterations=1000 "$3" 2>/dev/null | awk '
		/^Instructions:/ { i = $2 } /^Total Cycles:/ { c = $3 } /^Total uOps:/ { u = $3 }
		END { if (i == "") print "- - -"; else printf "%.1f %.1f %.2f\n", i / 1000, u / 1000, c / 1000 }'
}

cflags="-O2 -fno-unroll-loops -I$src/counters"
arm=""
for k in mm_cid cpu_id; do
	d=-DMCA_CPU_ID=$([ $k = cpu_id ] && echo 1 || echo 0)
	"$CLANG" $cflags "$d" -S -o "$tmp/x86.$k.s" "$src/harness/mca_loops.c"
	sysroot=/usr/aarch64-linux-gnu
	[ -e "$sysroot/include/sys/rseq.h" ] &&
		"$CLANG" --target=aarch64-linux-gnu --sysroot="$sysroot" $cflags "$d" -S -o "$tmp/arm.$k.s" \
			"$src/harness/mca_loops.c" 2>/dev/null && arm=1
done

printf '%-20s' "loop"
for c in $x86_cores; do printf ' %-17s' "$c"; done
[ -n "$arm" ] && for c in $arm_cores; do printf ' %-17s' "$c"; done
printf '\n%-20s' ""
for c in $x86_cores ${arm:+$arm_cores}; do printf ' %-17s' "insn uops cycles"; done
echo
for l in $loops; do
	printf '%-20s' "$l"
	k=${l#*/}; [ "$k" = "$l" ] && k=mm_cid
	f=${l%/*}
	trace "$tmp/x86.$k.s" "mca_$f" "#" >"$tmp/$f.$k.x86.s" || : >"$tmp/$f.$k.x86.s"
	for c in $x86_cores; do
		if [ -s "$tmp/$f.$k.x86.s" ]; then set -- $(mca x86_64-linux-gnu "$c" "$tmp/$f.$k.x86.s"); else set -- - - -; fi
		printf ' %-17s' "$1 $2 $3"
	done
	if [ -n "$arm" ]; then
		trace "$tmp/arm.$k.s" "mca_$f" // >"$tmp/$f.$k.arm.s" || : >"$tmp/$f.$k.arm.s"
		for c in $arm_cores; do
			if [ -s "$tmp/$f.$k.arm.s" ]; then set -- $(mca aarch64-linux-gnu "$c" "$tmp/$f.$k.arm.s"); else set -- - - -; fi
			printf ' %-17s' "$1 $2 $3"
		done
	fi
	echo
done
echo "(llvm-mca: $($LLVM_MCA --version 2>/dev/null | awk '/version/ { print $NF; exit }'); a core it does not model shows '-')"
[ -n "${MCA_KEEP:-}" ] && cp "$tmp"/*.s "$MCA_KEEP"/ 2>/dev/null
exit 0
