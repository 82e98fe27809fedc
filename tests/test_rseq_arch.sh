#!/bin/sh
# SPDX-License-Identifier: MIT
# test_rseq_arch.sh - each architecture's restartable sequences are written
# once, in its own header (counters/scounters/sc_rseq_<arch>.h, a header
# that defines SC_RSEQ_ARCH_), and nowhere else, as TAP:
#  - the text that only a sequence's assembly has (the abort signatures of
#    glibc's RSEQ_SIG, 0x53053053 and 0xd428bc00, and the kernel's
#    section __rseq_failure) is in no other C or C++ file of the source
#    tree (counters/, harness/, tests/, examples/): a second copy of a
#    sequence, in sc_tree.h or in a source, fails here;
#  - the descriptor, the same on every 64-bit architecture, is written once,
#    in sc_rseq.h: the section __rseq_cs is on one line there and nowhere
#    else;
#  - each architecture's header has one signature (one SC_RSEQ_SIG_), and
#    __rseq_failure on one line only, and no two headers share a
#    signature;
#  - every architecture's header defines the same macros, and sc_rseq.h
#    includes each one once: a third architecture is one more header.
# The scan also runs on a copy of the tree with a sequence's signature
# pasted into sc_tree.h, where it must find it.
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
hdr=$src/counters/scounters

# arch_headers DIR: the architectures' headers among DIR's sc_rseq_*.h
arch_headers() {
	for f in "$1"/sc_rseq_*.h; do
		grep -q '^#define SC_RSEQ_ARCH_ ' "$f" && echo "$f"
	done
}

# strays ROOT: every line of a C or C++ file under ROOT, outside the
# architectures' headers, that holds a sequence's text, and every line
# outside sc_rseq.h that names the descriptor's section (file:line: text)
strays() {
	skip_=" $(arch_headers "$1/counters/scounters" | tr '\n' ' ')"
	desc_=$1/counters/scounters/sc_rseq.h
	for d in counters harness tests examples; do
		[ -d "$1/$d" ] || continue
		find "$1/$d" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' \
			-o -name '*.hpp' -o -name '*.h.in' \) -print
	done | sort | while read -r f; do
		[ "$f" = "$desc_" ] || grep -Hn -e '__rseq_cs' "$f"
		case "$skip_" in *" $f "*) continue ;; esac
		grep -Hn -e '0x53053053' -e '0xd428bc00' -e '__rseq_failure' "$f"
	done
}

archs=$(arch_headers "$hdr")
check "there are architectures' headers (x86-64 and aarch64 at least)" \
	sh -c 'echo "$1" | grep -q "sc_rseq_x86_64.h" && echo "$1" | grep -q "sc_rseq_aarch64.h"' \
	_ "$archs"

found=$(strays "$src")
if [ -z "$found" ]; then
	ok "no sequence text outside the architectures' headers"
else
	not_ok "sequence text outside the architectures' headers: $(echo "$found" | head -5)"
fi

sigs=""
for f in $archs; do
	name=${f##*/}
	sig=$(sed -n 's/^#define SC_RSEQ_SIG_ \(0x[0-9a-f]*\)$/\1/p' "$f")
	check "$name: one signature" test "$(echo "$sig" | grep -c .)" -eq 1
	sigs="$sigs$sig
"
	check "$name: __rseq_failure on one line" test "$(grep -c __rseq_failure "$f")" -eq 1
	check "$name: the signature's value on one line (its #define)" \
		test "$(grep -c -- "$sig" "$f")" -eq 1
	check "sc_rseq.h includes $name once" \
		test "$(grep -c "^#.*include \"$name\"" "$hdr/sc_rseq.h")" -eq 1
	grep -o '^#define SC_RSEQ_[A-Z0-9_]*' "$f" | grep -v '_H$' | sort >"$tmp/$name.macros"
done
check "sc_rseq.h: the descriptor's section __rseq_cs on one line" \
	test "$(grep -c __rseq_cs "$hdr/sc_rseq.h")" -eq 1
check "no two architectures share a signature" \
	test "$(printf '%s' "$sigs" | sort | uniq -d | grep -c .)" -eq 0
first=""
for f in $archs; do
	name=${f##*/}
	if [ -z "$first" ]; then
		first=$name
		continue
	fi
	if cmp -s "$tmp/$first.macros" "$tmp/$name.macros"; then
		ok "$name defines the macros $first defines"
	else
		d=$(diff "$tmp/$first.macros" "$tmp/$name.macros" | grep '^[<>]' | tr '\n' ' ')
		not_ok "$name and $first define different macros: $d"
	fi
done

# The scan can fail: a copy of the tree with x86-64's signature in sc_tree.h
# and a descriptor's section in x86-64's header.
mkdir -p "$tmp/copy/counters"
cp -r "$src/counters/scounters" "$tmp/copy/counters/"
printf '/* ".long 0x53053053" */\n' >>"$tmp/copy/counters/scounters/sc_tree.h"
printf '/* ".pushsection __rseq_cs" */\n' >>"$tmp/copy/counters/scounters/sc_rseq_x86_64.h"
found=$(strays "$tmp/copy")
check "the scan finds a signature pasted into sc_tree.h" \
	sh -c 'echo "$1" | grep -q "sc_tree.h:.*0x53053053"' _ "$found"
check "the scan finds a second descriptor in an architecture's header" \
	sh -c 'echo "$1" | grep -q "sc_rseq_x86_64.h:.*__rseq_cs"' _ "$found"
tap_done
