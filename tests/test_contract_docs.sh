#!/bin/sh
# SPDX-License-Identifier: MIT
# test_contract_docs.sh - the lists the documentation gives of the
# library's promises are the contract's (TAP). The contract is declared in
# the family headers (sc_contract.h) and read here from scbench --list=json;
# which entry points inline a restartable sequence is read from the
# compiler: each candidate call is compiled alone and has a sequence when
# its object has the section __sc_rseq_slots. Each list of the docs must
# name exactly that set:
#   - async-signal-safe variants: sc_counter.h's "Signal handlers" and
#     sc_counter_inc(3);
#   - variants whose two readings differ: sc_counter_get_fast(3);
#   - variants whose handle increment inlines a sequence, and the inlined
#     entry points: sc_rseq.h's "Plugins and unloading",
#     sc_rseq_prepare_unload(3) and doc/embedding.md.
# Needs CC (make check passes it) and readelf; the entry points are a skip
# where the compiler does not inline sequences (SC_RSEQ_INLINE 0).
# shellcheck disable=SC2086,SC2154 # $incs splits into words; tap.sh sets $tmp
. "$(dirname "$0")/tap.sh"
: "${TOP_SRCDIR:=.}"
CC=${CC:-cc}
incs="-I$TOP_SRCDIR/counters -Icounters"
hdr=$TOP_SRCDIR/counters/scounters
man3=$TOP_SRCDIR/doc/man3

"$SCBENCH" --list=json >"$tmp/list.json" || { echo "Bail out! scbench --list=json failed"; exit 1; }
# variants PROMISE: the variants whose contract has PROMISE, sorted, one a line
variants() {
	"$PY" - "$tmp/list.json" "$1" <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
for v in sorted(x["name"] for x in doc["variants"] if sys.argv[2] in x["contract"]["promises"]):
    print(v)
PYEOF
}
# between FILE START END: the text of FILE from START to END (fixed strings, the
# first START, then the first END after it), on one line
between() {
	"$PY" - "$1" "$2" "$3" <<'PYEOF'
import sys
text = open(sys.argv[1]).read()
a = text.index(sys.argv[2]) + len(sys.argv[2])
print(" ".join(text[a:text.index(sys.argv[3], a)].split()))
PYEOF
}
# names WORDS...: the variant names (as --list=json has them) among the words
names() {
	"$PY" - "$tmp/list.json" "$*" <<'PYEOF'
import json, re, sys
known = {x["name"] for x in json.load(open(sys.argv[1]))["variants"]}
words = set(re.findall(r"[A-Za-z][A-Za-z0-9-]*", sys.argv[2]))
for w in sorted(words & known):
    print(w)
PYEOF
}
# same WHAT WANT GOT: ok when the two sorted lists agree
same() {
	if [ "$2" = "$3" ]; then
		ok "$1: $(echo "$2" | tr '\n' ' ')"
	else
		not_ok "$1: the contract says [$(echo "$2" | tr '\n' ' ')], the text [$(echo "$3" | tr '\n' ' ')]"
	fi
}

sig=$(variants signal-safe)
same "sc_counter.h's async-signal-safe variants" "$sig" \
	"$(names "$(between "$hdr/sc_counter.h" "async-signal-safe for" "(a handler")")"
same "sc_counter_inc(3)'s async-signal-safe variants" "$sig" \
	"$(names "$(between "$man3/sc_counter_inc.3" "Async-signal-safe for the" "variants:")")"
same "sc_counter_get_fast(3)'s variants whose readings differ" "$(variants readings-differ)" \
	"$(names "$(between "$man3/sc_counter_get_fast.3" "The two readings differ for" "(the variants")")"
rseq=$(variants inline-rseq)
same "sc_rseq.h's variants whose handle increment inlines a sequence" "$rseq" \
	"$(names "$(between "$hdr/sc_rseq.h" "sc_counter_add on a" "counter")")"
same "sc_rseq_prepare_unload(3)'s variants" "$rseq" \
	"$(names "$(between "$man3/sc_rseq_prepare_unload.3" "on a" "counter,")")"
same "doc/embedding.md's variants" "$rseq" \
	"$(names "$(between "$TOP_SRCDIR/doc/embedding.md" "\`sc_counter_add\` on a" "counter")")"

# The entry points: each candidate (NAME|statement on g, pg, c, cur, t, tc,
# pc, pcc, h, v) compiled alone. Every inline function of the public headers
# that could reach a sequence is a candidate; the last ones never do.
cat >"$tmp/candidates" <<'EOF'
sc_counter_inc|sc_counter_inc(h);
sc_counter_add|sc_counter_add(h, v);
sc_group_inc|sc_group_inc(g, 1);
sc_group_add|sc_group_add(g, 1, v);
sc_pcgroup_inc|sc_pcgroup_inc(pg, 1);
sc_pcgroup_add|sc_pcgroup_add(pg, 1, v);
sc_percpu_add_ix|sc_percpu_add_ix(w, 64, 2, v, v);
sc_percpu_add_at|sc_percpu_add_at(w, 64, 2, v);
sc_percpu_cursor_add|sc_percpu_cursor_add(cur, v);
sc_percpu_inc|sc_percpu_inc(pc, pcc, t);
sc_percpu_add|sc_percpu_add(pc, pcc, t, v);
sc_percpu_group_inc|sc_percpu_group_inc(gc, gcc, t);
sc_percpu_group_add|sc_percpu_group_add(gc, gcc, t, v);
sc_percpu_tree_inc|sc_percpu_tree_inc(tc, tcc, t);
sc_percpu_tree_add|sc_percpu_tree_add(tc, tcc, t, v);
sc_percpu_cursor_get|(void)sc_percpu_cursor_get(w, 64, 2, v);
sc_fetchadd_inc|sc_fetchadd_inc(fa, fac, t);
sc_sharded_inc|sc_sharded_inc(sh, shc, t);
sc_batched_inc|sc_batched_inc(ba, bac, t);
sc_counter_get|(void)sc_counter_get(h);
EOF
inline=$(printf '#include <scounters/scounters.h>\nSC_RSEQ_INLINE\n' |
	$CC -E -P $incs -D_GNU_SOURCE -x c - 2>/dev/null | tail -1)
if [ "$inline" != 1 ]; then
	skip "the inlined entry points" "this compiler does not inline restartable sequences"
else
	: >"$tmp/inlined"
	while IFS='|' read -r name call; do
		cat >"$tmp/c.c" <<EOF
#include <scounters/scounters.h>
void probe(sc_group *g, sc_pcgroup *pg, sc_counter *h, sc_percpu_cursor *cur, sc_thread *t,
           unsigned char *w, uint64_t v, sc_percpu_t *pc, const sc_percpu_cfg *pcc,
           sc_percpu_group_t *gc, const sc_percpu_group_cfg *gcc, sc_percpu_tree_t *tc,
           const sc_percpu_tree_cfg *tcc, sc_fetchadd_t *fa, const sc_fetchadd_cfg *fac,
           sc_sharded_t *sh, const sc_sharded_cfg *shc, sc_batched_t *ba,
           const sc_batched_cfg *bac);
void probe(sc_group *g, sc_pcgroup *pg, sc_counter *h, sc_percpu_cursor *cur, sc_thread *t,
           unsigned char *w, uint64_t v, sc_percpu_t *pc, const sc_percpu_cfg *pcc,
           sc_percpu_group_t *gc, const sc_percpu_group_cfg *gcc, sc_percpu_tree_t *tc,
           const sc_percpu_tree_cfg *tcc, sc_fetchadd_t *fa, const sc_fetchadd_cfg *fac,
           sc_sharded_t *sh, const sc_sharded_cfg *shc, sc_batched_t *ba,
           const sc_batched_cfg *bac)
{
	(void)g; (void)pg; (void)h; (void)cur; (void)t; (void)w; (void)v; (void)pc; (void)pcc;
	(void)gc; (void)gcc; (void)tc; (void)tcc; (void)fa; (void)fac; (void)sh; (void)shc;
	(void)ba; (void)bac;
	$call
}
EOF
		# -fPIC as for a plugin: code built for a program arms its own
		# descriptors and has no slot section (sc_rseq.h)
		if ! $CC -std=c11 -O2 -fPIC -D_GNU_SOURCE $incs -c "$tmp/c.c" -o "$tmp/c.o" 2>"$tmp/err"; then
			not_ok "$name compiles: $(head -3 "$tmp/err")"
			continue
		fi
		readelf -S "$tmp/c.o" | grep -q '__sc_rseq_slots' && echo "$name" >>"$tmp/inlined"
	done <"$tmp/candidates"
	want=$(sort "$tmp/inlined")
	check "the compiler finds sequences in some entry points and none in FetchAdd's, Sharded's, Batched's or sc_counter_get" \
		sh -c "[ -n '$want' ] && ! echo '$want' | grep -qx 'sc_fetchadd_inc\|sc_sharded_inc\|sc_batched_inc\|sc_counter_get'"
	# fns TEXT: the sc_ names of the candidates that TEXT names
	fns() {
		for f in $(cut -d'|' -f1 "$tmp/candidates"); do
			printf '%s\n' "$1" | grep -q "\b$f\b" && echo "$f"
		done | sort
	}
	same "sc_rseq.h's inlined entry points" "$want" \
		"$(fns "$(between "$hdr/sc_rseq.h" "These entry points inline" "code built for a shared object")")"
	same "sc_rseq_prepare_unload(3)'s inlined entry points" "$want" \
		"$(fns "$(between "$man3/sc_rseq_prepare_unload.3" "These entry points inline" ".PP")")"
	same "doc/embedding.md's inlined entry points" "$want" \
		"$(fns "$(between "$TOP_SRCDIR/doc/embedding.md" "These entry points inline" "A sequence leaves")")"
	# Which descriptor: slots (copies the library keeps) exactly where the
	# object may be a shared object, or where asked for.
	printf '#include <scounters/scounters.h>\nint probe(sc_group *g) { return sc_group_inc(g, 0); }\n' >"$tmp/d.c"
	slots() { # compiler flags: "slots" or "own" for sc_group_inc's sequence
		$CC -std=c11 -O2 -D_GNU_SOURCE $incs "$@" -c "$tmp/d.c" -o "$tmp/d.o" 2>/dev/null &&
			if readelf -S "$tmp/d.o" | grep -q '__sc_rseq_slots'; then echo slots; else echo own; fi
	}
	same "the descriptor armed by -fPIC, -fPIE, no PIC, -fPIC -DSC_RSEQ_OWN_DESCRIPTOR, -fPIE -DSC_RSEQ_SLOTTED" \
		"slots own own own slots" \
		"$(slots -fPIC) $(slots -fPIE) $(slots -fno-pic) $(slots -fPIC -DSC_RSEQ_OWN_DESCRIPTOR) $(slots -fPIE -DSC_RSEQ_SLOTTED)"
fi
tap_done
