#!/bin/sh
# SPDX-License-Identifier: MIT
# test_man3.sh - the section-3 man pages (doc/man3) against the handle API's
# header, as TAP: every function declared in counters/scounters/sc_counter.h
# (and the group functions of sc_group.h and sc_rseq.h, PerCPUTree's of sc_tree.h)
# has a page (its own, or a ".so" link to the page that documents it, whose
# NAME line names it); every page is named after a declared function or type,
# names only declared ones, and is installed (listed in Makefile.am); every
# page renders without a warning under groff (and, each with a body of its
# own, under man -l where man-db is installed). The function list is read
# from the header, so a new function fails here until its page exists.
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
hdr=$src/counters/scounters/sc_counter.h
man3=$src/doc/man3

# The declared functions and types of the header: comments and preprocessor
# lines dropped, then names followed by "(" outside any braces (an inline
# function counts; names ending in "_" are the inline code's own).
"$PY" - "$hdr" >"$tmp/decls" <<'PYEOF' || { echo "Bail out! cannot read $hdr"; exit 1; }
import os, re, sys
text = open(sys.argv[1]).read()
# The per-CPU groups (sc_group.h, sc_rseq.h) have pages too: their handle
# and inline functions and the path query, not the PerCPUGroup variant's
# operations (the registry's contract, as every variant's); PerCPUTree's
# own functions, not its heap_bytes (the contract's).
hdir = os.path.dirname(sys.argv[1])
for extra in ("sc_group.h", "sc_rseq.h", "sc_tree.h"):
    more = open(os.path.join(hdir, extra)).read()
    more = re.sub(r"/\*.*?\*/", " ", more, flags=re.S)
    text += "\n" + "\n".join(l for l in more.split("\n")
                             if not re.search(r"\bsc_percpu_(group|tree_heap_bytes)", l))
text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
text = re.sub(r"//[^\n]*", " ", text)
text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))
text = text.replace('extern "C" {', " ")
top, depth, body = [], 0, False
for ch in text:
    if ch == "{":
        if depth == 0:
            body = "".join(top).rstrip().endswith(")")  # an inline function's body
        depth += 1
    elif ch == "}":
        depth = max(depth - 1, 0)
        if depth == 0 and body:
            top.append(";")  # ends the function's statement
    elif depth == 0:
        top.append(ch)
top = "".join(top)
for stmt in top.split(";"):
    # (a statement may begin with a macro line such as SC_API_BEGIN)
    m = re.search(r"\btypedef\s+(?:struct|union|enum)\s+\w+\s+(\w+)\s*$", stmt)
    if m:
        print("type", m.group(1))
        continue
    if re.search(r"\btypedef\b", stmt):
        continue
    m = re.search(r"\b(sc_\w+)\s*\(", stmt)
    if m and not m.group(1).endswith("_"):  # sc_name_: the inline code's, not for programs
        print("function", m.group(1))
PYEOF
sed -n 's/^function //p' "$tmp/decls" >"$tmp/functions"
sed -n 's/^type //p' "$tmp/decls" >"$tmp/types"
nf=$(wc -l <"$tmp/functions")
check "the header declares functions ($nf)" [ "$nf" -ge 8 ]
check "sc_counter_new is among them" grep -qx sc_counter_new "$tmp/functions"

# A page's body: itself, or the page its ".so man3/X.3" line points to.
body() {
	so=$(sed -n 's/^\.so man3\/\(.*\)$/\1/p' "$1")
	if [ -n "$so" ]; then cat "$man3/$so"; else cat "$1"; fi
}
# The names on a page's NAME line (the line after .SH NAME, before "\-").
names() { body "$1" | sed -n '/^\.SH NAME/{n;s/ *\\-.*//;s/,/ /g;p;q;}'; }

while read -r fn; do
	page=$man3/$fn.3
	if [ ! -f "$page" ]; then
		not_ok "$fn has a page (doc/man3/$fn.3 missing)"
		continue
	fi
	check "$fn: its page names it" sh -c 'for n in $2; do [ "$n" = "$1" ] && exit 0; done; exit 1' \
		sh "$fn" "$(names "$page")"
done <"$tmp/functions"

# The pages of the inlined API and its helpers (tests/test_man.sh checks their
# synopses) name functions of these headers and of the sc_P_* contract at the
# top of scounters.h; sc_inline is that contract's page.
for h in scounters.h sc_common.h sc_random.h sc_error.h sc_params.h sc_alloc.h sc_abi.h; do
	"$PY" - "$src/counters/scounters/$h" <<'PYEOF' || exit 1
import re, sys
for m in re.finditer(r"\b(sc_\w+)\s*\(", open(sys.argv[1]).read()):
    print(m.group(1))
PYEOF
done | sort -u >"$tmp/more"
cat "$tmp/functions" "$tmp/types" "$tmp/more" >"$tmp/known"
echo sc_inline >>"$tmp/known"
for page in "$man3"/*.3; do
	p=$(basename "$page" .3)
	check "page $p is a declared function or type" grep -qx "$p" "$tmp/known"
	so=$(sed -n 's/^\.so man3\/\(.*\)$/\1/p' "$page")
	[ -z "$so" ] || check "page $p: its link target $so exists" [ -f "$man3/$so" ]
	bad=""
	for nm in $(names "$page"); do grep -qx "$nm" "$tmp/known" || bad="$bad $nm"; done
	check "page $p names only declared functions and types${bad:+ (not declared:$bad)}" [ -z "$bad" ]
	check "page $p is installed (Makefile.am lists doc/man3/$p.3)" grep -q "doc/man3/$p\\.3" "$src/Makefile.am"
done

# The overview, sc_counter(3), leads to every function: its SEE ALSO names
# every other page of the handle API, links included, and the page of every
# other interface (the page a link of sc_group(3), sc_inline(3), ... points
# to; that page lists its own functions).
sed -n '/^\.SH SEE ALSO/,/^\.SH/p' "$man3/sc_counter.3" | sed -n 's/^\.BR \([a-z_0-9]*\) (3).*/\1/p' \
	>"$tmp/seealso"
missing=""
for page in "$man3"/*.3; do
	p=$(basename "$page" .3)
	[ "$p" = sc_counter ] && continue
	case $p in
	sc_counter_* | sc_thread_self) want=$p ;;
	*) want=$(sed -n 's/^\.so man3\/\(.*\)\.3$/\1/p' "$page"); want=${want:-$p} ;;
	esac
	grep -qx "$want" "$tmp/seealso" || missing="$missing $want"
done
missing=$(echo "$missing" | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/^ *//; s/ *$//')
check "sc_counter(3)'s SEE ALSO leads to every page${missing:+ (missing:$missing)}" [ -z "$missing" ]

# Rendering. groff and man-db resolve ".so man3/X.3" from the directory above.
if command -v groff >/dev/null 2>&1; then
	for page in "$man3"/*.3; do
		p=$(basename "$page")
		(cd "$src/doc" && groff -man -Tutf8 -ww -z "man3/$p") >"$tmp/groff.err" 2>&1
		rc=$?
		sed 's/^/# /' "$tmp/groff.err"
		check "groff renders $p without warnings" sh -c '[ "$1" -eq 0 ] && [ ! -s "$2" ]' \
			sh "$rc" "$tmp/groff.err"
	done
else
	ok "# SKIP groff not installed: pages not rendered"
fi
# man -l on each page with a body of its own: a link page (".so") renders
# its target, which is here, and groff above resolved every link.
if command -v man >/dev/null 2>&1; then
	for page in "$man3"/*.3; do
		p=$(basename "$page")
		grep -q '^\.so ' "$page" && continue
		out=$(cd "$src/doc" && MANWIDTH=80 man --warnings -l "man3/$p" 2>&1 >/dev/null)
		[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
		check "man -l renders $p without warnings" [ -z "$out" ]
	done
else
	ok "# SKIP man not installed: man -l not tried"
fi
tap_done
