#!/bin/sh
# SPDX-License-Identifier: MIT
# mca.sh - llvm-mca's model of one increment on cores this machine may not
# have (make bench runs it): the per-CPU add, its floor and the handle's
# increment against the inlined one, as loops of harness/mca_loops.c compiled
# as a user's program is (clang -O2, no loop alignment flags; x86-64 once for
# every x86 core, aarch64 for neoverse-n1 where an aarch64 C library is found).
#
#   mca.sh [SRCDIR]     prints two tables: per loop, instructions, uops and
#                       llvm-mca's cycles per increment on each core; per
#                       variant, the handle loop's cycles over the inlined one's
#
# The loop body given to llvm-mca is the path one increment takes, read from
# the assembly: from the loop's head (the label clang marks "Inner Loop
# Header") through the instructions in order, following unconditional jumps, taking
# no conditional jump but the one back to the head, up to the head again;
# the asm's side sections (__rseq_cs, __rseq_failure) are skipped. An
# indirect call (the handle's call into the library) counts as one
# instruction: llvm-mca does not see the callee. Environment: CLANG (clang),
# LLVM_MCA (the newest llvm-mca-N found, else llvm-mca), MCA_INCLUDE (the
# build tree's counters/ directory, where configure made
# scounters/sc_config.h: make bench passes it, so an out-of-tree build works;
# SRCDIR/counters by default). Exit 0; 1 when clang or llvm-mca is missing
# or sc_config.h is not found.
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
inc=${MCA_INCLUDE:-$src/counters}
[ -f "$inc/scounters/sc_config.h" ] || {
	echo "mca.sh: $inc/scounters/sc_config.h not found (set MCA_INCLUDE to the build tree's counters/)" >&2
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scounters-mca.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

x86_cores="znver3 znver4 skylake icelake-server"
arm_cores="neoverse-n1"
loops="floor percpu/mm_cid percpu/cpu_id cursor/mm_cid cursor/cpu_id handle_percpu/mm_cid handle_percpu/cpu_id
	inline_fetchadd handle_fetchadd inline_morris handle_morris inline_scalable handle_scalable
	inline_sharded handle_sharded handle_call"

# trace FILE.s FUNC COMMENT [VIA]: the instructions of one increment (see
# above), one a line; COMMENT is the assembler's comment mark (x86: #,
# aarch64: //). With VIA (an awk regular expression), the shortest path from
# the loop's head through the first instruction VIA matches and back to the
# head instead (any conditional jump may be taken): for Morris and Scalable,
# VIA is the generator's first shift, so the path is the increment that
# draws and does not update, nearly every increment once the counter has
# grown (the fall-through path would follow the rare update and its retry).
trace() {
	awk -v f="$2" -v cm="$3" -v via="${4:-}" '
		function target(s,   n, a) { n = split(s, a, /[ \t,]+/); return a[n] }
		function op(s,   a) { split(s, a, /[ \t]+/); return a[1] }
		# the instructions that may follow i, in nx[1..]; their count
		function succ(i,   o, k) {
			o = op(ins[i]); k = 0
			if (o ~ /^retq?$/) return 0
			if (o ~ /^(jmp|b)$/) { if (target(ins[i]) in at) nx[++k] = at[target(ins[i])]; return k }
			if (i < n) nx[++k] = i + 1
			if (o ~ /^(j[a-z]+|b\.[a-z]+|cbn?z|tbn?z)$/ && target(ins[i]) in at) nx[++k] = at[target(ins[i])]
			return k
		}
		# breadth first from s until t follows: appends s .. (t'"'"'s predecessor) to out
		function leg(s, t,   q, seen, from, rp, qi, qn, i, k, m, p) {
			q[1] = s; qn = 1; seen[s] = 1
			for (qi = 1; qi <= qn; qi++) {
				i = q[qi]; k = succ(i)
				for (m = 1; m <= k; m++) {
					if (nx[m] == t) {
						p = 0
						while (1) { rp[++p] = i; if (i == s) break; i = from[i] }
						for (; p > 0; p--) out[++on] = rp[p]
						return 1
					}
					if (!(nx[m] in seen)) { seen[nx[m]] = 1; from[nx[m]] = i; q[++qn] = nx[m] }
				}
			}
			return 0
		}
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
			i = head = at[hl]; steps = 0; on = 0
			if (via != "") {
				for (v = 1; v <= n && ins[v] !~ via; v++)
					;
				if (v > n) exit 1
				if (v != head && !leg(head, v)) exit 1
				if (!leg(v, head)) exit 1
				for (m = 1; m <= on; m++) if (op(ins[out[m]]) !~ /^(jmp|b)$/) print ins[out[m]]
				exit 0
			}
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

cflags="-O2 -fno-unroll-loops -I$inc -I$src/counters"
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
	# the generator's first shift (sc_xorshift_dice: 6, sc_xorshift_ayers: 13)
	case $f in *_morris) via='([$]6,|lsl #6$)' ;; *_scalable) via='([$]13,|lsl #13$)' ;; *) via="" ;; esac
	trace "$tmp/x86.$k.s" "mca_$f" "#" "$via" >"$tmp/$f.$k.x86.s" || : >"$tmp/$f.$k.x86.s"
	for c in $x86_cores; do
		if [ -s "$tmp/$f.$k.x86.s" ]; then set -- $(mca x86_64-linux-gnu "$c" "$tmp/$f.$k.x86.s"); else set -- - - -; fi
		printf ' %-17s' "$1 $2 $3"
		echo "$3" >"$tmp/cyc.${l%/*}.${l#*/}.$c"
	done
	if [ -n "$arm" ]; then
		trace "$tmp/arm.$k.s" "mca_$f" // "$via" >"$tmp/$f.$k.arm.s" || : >"$tmp/$f.$k.arm.s"
		for c in $arm_cores; do
			if [ -s "$tmp/$f.$k.arm.s" ]; then set -- $(mca aarch64-linux-gnu "$c" "$tmp/$f.$k.arm.s"); else set -- - - -; fi
			printf ' %-17s' "$1 $2 $3"
			echo "$3" >"$tmp/cyc.${l%/*}.${l#*/}.$c"
		done
	fi
	echo
done
# handle over inline in the model: the cycles of the two loops, per core
printf '%-20s' "handle/inline cyc"
for c in $x86_cores ${arm:+$arm_cores}; do printf ' %-17s' "$c"; done
echo
for p in fetchadd morris scalable sharded percpu/mm_cid percpu/cpu_id; do
	printf '%-20s' "${p%/*}${p#${p%/*}}"
	if [ "${p%/*}" = percpu ]; then hi="handle_percpu.${p#*/}" li="percpu.${p#*/}"; else hi="handle_$p.handle_$p" li="inline_$p.inline_$p"; fi
	for c in $x86_cores ${arm:+$arm_cores}; do
		h=$(cat "$tmp/cyc.$hi.$c" 2>/dev/null || echo -) i=$(cat "$tmp/cyc.$li.$c" 2>/dev/null || echo -)
		awk -v h="$h" -v i="$i" 'BEGIN { if (h == "-" || i == "-" || i + 0 <= 0) printf " %-17s", "-"; else printf " %-17s", sprintf("%.2fx", h / i) }'
	done
	echo
done
echo "(llvm-mca: $($LLVM_MCA --version 2>/dev/null | awk '/version/ { print $NF; exit }'); a core it does not model shows '-')"
[ -n "${MCA_KEEP:-}" ] && cp "$tmp"/*.s "$MCA_KEEP"/ 2>/dev/null
exit 0
