#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_compare_judgement.sh - plots/compare and plots/atlas judge "changed" alike
# (advice.judge), as TAP: on the two reference sets, compare's headline counts
# as changed and as within run-to-run noise the same scenarios atlas lists as
# disagreeing and as tied; an answer on fewer runs than advice needs makes the
# headline itself say "provisional"; every value of compare's tables has its
# unit.
set -u
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
top=$TOP_SRCDIR
py=""
for c in "${PYTHON_SCIPY:-}" /usr/bin/python3 python3; do
	if [ -n "$c" ] && "$c" -c 'import numpy, scipy.stats' 2>/dev/null; then py=$c; break; fi
done
if [ -z "$py" ]; then
	skip compare_judgement "no Python with numpy and scipy"
	tap_done
	exit
fi
export PYTHON_SCIPY=$py PYTHON_MPL=$py

ref=$top/results/reference
if [ -d "$ref/kvm-epyc-2pu" ] && [ -d "$ref/kvm-xeon-2pu" ]; then
	"$top/plots/compare" "$ref/kvm-epyc-2pu" "$ref/kvm-xeon-2pu" --out "$tmp/cmp" --no-figures \
		>"$tmp/cmp.log" 2>&1
	"$top/plots/atlas" "$ref/kvm-epyc-2pu" "$ref/kvm-xeon-2pu" --out "$tmp/atlas" --no-figures \
		>"$tmp/atlas.log" 2>&1
	head -1 "$tmp/cmp.log" | sed 's/^/# /'
	sed -n '/^### Where the machines disagree/,/^## /p' "$tmp/atlas/ATLAS.md" >"$tmp/dis"
	a_noise=$(grep -c 'within run-to-run noise' "$tmp/dis")
	a_changed=$(grep -c 'no variant is tied for best' "$tmp/dis")
	line=$(head -1 "$tmp/cmp.log")
	c_changed=$(printf '%s\n' "$line" | sed -n 's/.*Recommendation changed in \([0-9]*\) of .*/\1/p')
	c_noise=$(printf '%s\n' "$line" | sed -n 's/.*in \([0-9]*\) \(more \)\{0,1\}the best differs.*/\1/p')
	check "changed_as_atlas_says (compare ${c_changed:-0}, atlas $a_changed)" test "${c_changed:-0}" -eq "$a_changed"
	check "noise_as_atlas_says (compare ${c_noise:-0}, atlas $a_noise)" test "${c_noise:-0}" -eq "$a_noise"
else
	skip changed_as_atlas_says "no results/reference in this tree"
	skip noise_as_atlas_says "no results/reference in this tree"
fi

# The fixture has 2 runs per point: every answer is provisional, in the headline.
src=$top/tests/fixtures/results-small
cp -r "$src" "$tmp/a" && cp -r "$src" "$tmp/b"
csvawk -v OFS=, '$col("counter") == "FetchAdd" { $col("ops_per_ms") *= 1000 } { print }' \
	"$src/dice-fig4-high.csv" >"$tmp/b/dice-fig4-high.csv"
"$top/plots/compare" "$tmp/a" "$tmp/b" --out "$tmp/fx" --no-figures >"$tmp/fx.log" 2>&1
head -1 "$tmp/fx.log" | sed 's/^/# /'
check provisional_in_headline grep -q '^plots/compare: Recommendation changed in [1-9][0-9]* of [0-9]* scenarios (provisional: A and B have as few as 2 runs per point, under the 3 needed' "$tmp/fx.log"
"$top/plots/compare" "$tmp/a" "$src" --out "$tmp/self" --no-figures >"$tmp/self.log" 2>&1
check provisional_unchanged_headline grep -q '^plots/compare: Recommendation unchanged: the same counter in all [0-9]* scenarios answered in both sets (provisional: ' "$tmp/self.log"

# Units: the medians of the value tables, the ratios of the per-figure table.
units_ok() {
	"$PY" - "$1" <<'PY'
import re, sys
md = open(sys.argv[1]).read().split("\n")
bad, section = [], ""
for line in md:
    if line.startswith("## "):
        section = line
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
    if not cells or set(cells[0]) <= set("-") or cells[0] == "figure":
        continue
    if section.startswith(("## Significant", "## Largest")):
        vals = cells[3:5]
    elif section.startswith("## Per figure"):
        vals = [cells[4]] + re.split(r"(?<=x)-", cells[5])
    else:
        continue
    for v in vals:
        if v != "-" and re.fullmatch(r"[-+0-9.,e]+", v):
            bad.append("%s: %s" % (section, line))
for b in bad[:5]:
    print("# no unit:", b)
sys.exit(1 if bad else 0)
PY
}
check units_in_every_table units_ok "$tmp/fx/COMPARE.md"
tap_done
