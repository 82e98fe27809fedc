#!/bin/sh
# SPDX-License-Identifier: MIT
# test_man.sh - the man pages against what they document,
# as TAP, each read as man -l renders it:
#   - scbench(1) and run-all(1): every option of the program's --help is on
#     the page and every option of the page is in --help; the sections
#     OPTIONS, EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES and SEE ALSO;
#   - the section-3 pages of the inlined API and its helpers: each function's
#     prototype in SYNOPSIS is the header's (types and names; for the sc_P_*
#     contract the types of the comment at the top of scounters.h), and the
#     sections ERRORS, THREAD SAFETY and ENVIRONMENT;
#   - every page's SEE ALSO names pages that exist.
# (tests/test_man3.sh checks the handle API's pages against sc_counter.h.)
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
SB=${SCBENCH:-harness/scbench}
if ! command -v man >/dev/null 2>&1; then
	echo "1..0 # SKIP man (man-db) not installed: the pages cannot be rendered"
	exit 0
fi
render() { (cd "$src/doc" && MANWIDTH=200 man --warnings -l "$1" 2>"$tmp/warn" | col -b); }

# Options: the option a line starts with (indented at most 8 columns: the
# option lines of --help, the tags of the page's OPTIONS), page against --help.
options() {
	sed -n 's/^ \{1,8\}\(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' | sort -u
}
man1() {
	name=$1 page=$2 help=$3
	render "man1/$page" >"$tmp/$page.txt"
	check "$page renders without warnings" [ ! -s "$tmp/warn" ]
	options <"$help" >"$tmp/help.opts"
	options <"$tmp/$page.txt" >"$tmp/page.opts"
	missing=$(comm -23 "$tmp/help.opts" "$tmp/page.opts" | tr '\n' ' ')
	extra=$(comm -13 "$tmp/help.opts" "$tmp/page.opts" | tr '\n' ' ')
	nh=$(wc -l <"$tmp/help.opts")
	check "$page has every option of $name --help ($nh)${missing:+ (missing: $missing)}" \
		sh -c '[ "$1" -ge 10 ] && [ -z "$2" ]' _ "$nh" "$missing"
	check "$page has no option $name --help lacks${extra:+ (extra: $extra)}" [ -z "$extra" ]
	for sec in NAME SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
		check "$page has $sec" grep -qx "$sec" "$tmp/$page.txt"
	done
}
"$SB" --help >"$tmp/scbench.help"
man1 scbench scbench.1 "$tmp/scbench.help"
# run-all's help without a built scbench (the times are this machine's).
SCBENCH=/nonexistent RUNALL_TOP=$src PYTHONPATH=$src/harness python3 -m runall --help >"$tmp/runall.help"
man1 run-all.sh run-all.1 "$tmp/runall.help"
check "run-all.1 names the modes as exclusive" grep -q "exclude each other" "$tmp/run-all.1.txt"

# Section 3: the prototypes of SYNOPSIS against the headers.
for p in sc_inline sc_env_default sc_params_clear sc_variant_find sc_table_create sc_version; do
	render "man3/$p.3" >"$tmp/$p.txt"
	check "$p.3 renders without warnings" [ ! -s "$tmp/warn" ]
	for sec in ERRORS "THREAD SAFETY" ENVIRONMENT; do
		check "$p.3 has $sec" grep -qx "$sec" "$tmp/$p.txt"
	done
	"$PY" - "$tmp/$p.txt" "$src/counters/scounters" >"$tmp/$p.proto" 2>&1 <<'PYEOF'
import glob, os, re, sys
page, hdrdir = sys.argv[1], sys.argv[2]

def norm(params, names):
    """A parameter list: its types (and its names when names is true)."""
    out = []
    for a in params.split(","):
        a = " ".join(a.replace("*", " * ").split())
        if not names and a != "void":
            a = re.sub(r"\s*\b[a-z_][a-z0-9_]*$", "", a) if len(a.split()) > 1 and \
                not a.endswith("*") else a
        out.append(a.replace(" * ", " *").replace(" *", "*").strip())
    return ",".join(out)

decl = {}
for h in glob.glob(os.path.join(hdrdir, "*.h")):
    text = open(h).read()
    # The sc_P_* contract, in the comment at the top of scounters.h.
    for m in re.finditer(r"^ \*\s+((?:static inline )?[\w ]+?[\s*]+)(sc_P_\w+)\(([^)]*)\);", text, re.M):
        decl[m.group(2)] = (" ".join(m.group(1).split()).replace(" *", "*"), m.group(3), False)
    code = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    for m in re.finditer(r"^((?:static inline )?(?:const )?\w+[\s*]+)(sc_\w+)\(([^)]*)\)\s*[;{]", code, re.M):
        decl.setdefault(m.group(2), (" ".join(m.group(1).split()).replace(" *", "*"), m.group(3), True))

lines = open(page).read().split("\n")
syn = " ".join(lines[lines.index("SYNOPSIS") + 1:lines.index("DESCRIPTION")])
bad = n = 0
for m in re.finditer(r"((?:static inline )?(?:const )?\w+[\s*]+)(sc_\w+)\(([^)]*)\);", syn):
    ret, name, params = " ".join(m.group(1).split()).replace(" *", "*"), m.group(2), m.group(3)
    n += 1
    if name not in decl:
        print("%s: not declared in any header" % name); bad += 1; continue
    hret, hparams, named = decl[name]
    if ret != hret or norm(params, named) != norm(hparams, named):
        print("%s: page %s(%s), header %s(%s)" % (name, ret, params, hret, hparams)); bad += 1
print("%d prototypes" % n)
sys.exit(1 if bad or not n else 0)
PYEOF
	rc=$?
	sed 's/^/# /' "$tmp/$p.proto"
	check "$p.3: SYNOPSIS as the headers declare ($(tail -1 "$tmp/$p.proto"))" [ "$rc" -eq 0 ]
done

# SEE ALSO of every page: the pages it names exist.
for page in "$src"/doc/man1/*.1 "$src"/doc/man3/*.3; do
	grep -q '^\.so ' "$page" && continue
	rel=${page#"$src"/doc/}
	render "$rel" | sed -n '/^SEE ALSO/,/^[A-Z]/p' |
		grep -o '[a-z_][a-z0-9_.-]*([13])' | sort -u >"$tmp/see"
	miss=""
	while read -r ref; do
		nm=${ref%(*}; sec=${ref#*(}; sec=${sec%)}
		[ "$nm" = run-all ] && nm=run-all
		[ -f "$src/doc/man$sec/$nm.$sec" ] || miss="$miss $ref"
	done <"$tmp/see"
	check "$rel: SEE ALSO names pages that exist${miss:+ (missing:$miss)}" [ -z "$miss" ]
done
tap_done
