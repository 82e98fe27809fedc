#!/bin/sh
# SPDX-License-Identifier: MIT
# test_figures_drawn.sh - every figure of the fixture result set, and of a
# copy with a third of its latency, read-cost and baselines runs busy (so
# that points are boxed and captioned), drawn as the tools draw them and
# checked by tests/figures_drawn.py: from matplotlib's artists, every data
# point is drawn and no two text boxes (titles, subtitles, captions, axis
# labels, legends) overlap; from gnuplot's SVG drawing of each figure (the
# real scripts, the terminal switched to SVG), no two text boxes overlap, and
# from its "set table" output, every data point is drawn within the axes;
# compare's overlay rings a significant point under B's open marker, larger
# than it. As TAP; a skip without matplotlib or gnuplot.
: "${TOP_SRCDIR:=.}"
. "$(dirname "$0")/tap.sh"
py=${PYTHON_MPL:-/usr/bin/python3}
gp=${GNUPLOT:-gnuplot}
# relay PROG...: PROG's TAP lines as this test's own
relay() {
	"$@" >"$tmp/relay" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok * - }" ;;
		"not ok "*) not_ok "${line#not ok * - }" ;;
		"1.."*) ;;
		*) echo "# $line" ;;
		esac
	done <"$tmp/relay"
	check "$(basename "$2") exits 0 (exit $rc)" test "$rc" -eq 0
}
cp -r "$TOP_SRCDIR/tests/fixtures/results-small" "$tmp/set" && chmod -R u+w "$tmp/set" || exit 1
cp -r "$tmp/set" "$tmp/busy" || exit 1
"$PY" - "$tmp/busy" <<'PY' || exit 1
import csv, os, sys
for name in ("latency.csv", "read-cost.csv", "baselines.csv"):
    p = os.path.join(sys.argv[1], name)
    with open(p, newline="") as f:
        rows = list(csv.DictReader(f))
    for i, r in enumerate(rows):
        r["busy"] = "1" if i % 3 == 0 else (r.get("busy") or "0")
    with open(p, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
PY
for s in set busy; do
	mkdir -p "$tmp/$s/figures"
	"$PY" "$TOP_SRCDIR/plots/aggregate.py" "$tmp/$s" >"$tmp/agg.out" 2>&1 || { cat "$tmp/agg.out"; exit 1; }
done
if "$py" -c 'import matplotlib' 2>/dev/null; then
	relay "$py" "$TOP_SRCDIR/tests/figures_drawn.py" "$tmp/set" "$tmp/busy"
else
	skip "matplotlib figures drawn" "no Python with matplotlib (apt-get install python3-matplotlib)"
fi
if command -v "$gp" >/dev/null 2>&1; then
	# the scripts as they are, common.gp followed by an SVG terminal and output
	cp -r "$TOP_SRCDIR/plots/gnuplot" "$tmp/gp" && chmod -R u+w "$tmp/gp" || exit 1
	cat >>"$tmp/gp/common.gp" <<'GP'
PNGTERM = "svg font 'Sans,10' noenhanced"
OUT = RESULTS."/figures/".FIG.".svg"
GP
	svgs=
	for s in set busy; do
		for id in $(cut -f1 "$tmp/$s/figdata/figures.tsv" | sort -u); do
			[ -f "$tmp/gp/$id.gp" ] || continue
			"$PY" "$TOP_SRCDIR/plots/gpvars.py" "$tmp/$s/figdata" "$id" >"$tmp/vars" 2>/dev/null || continue
			"$gp" -c "$tmp/gp/$id.gp" "$tmp/$s" "$tmp/vars" >"$tmp/gp.log" 2>&1
			mv "$tmp/$s/figures/$id.svg" "$tmp/$s-$id.svg" 2>/dev/null &&
				svgs="$svgs $tmp/$s-$id.svg"
		done
	done
	check "gnuplot drew SVG figures ($(echo $svgs | wc -w))" test -n "$svgs"
	# shellcheck disable=SC2086 # svgs: paths under $tmp, no spaces
	relay "$PY" "$TOP_SRCDIR/tests/figures_drawn.py" --svg $svgs
	# the points: the scripts again, each plot written as a table (set
	# table) with exact numbers (every axis format made %.17g) instead of
	# drawn; a point clipped by a range is marked "o" there, not drawn
	cp -r "$TOP_SRCDIR/plots/gnuplot" "$tmp/gpt" && chmod -R u+w "$tmp/gpt" || exit 1
	sed -i "s/set format \([xy]\) [\"'][^\"']*[\"']/set format \1 '%.17g'/g" "$tmp"/gpt/*.gp
	cat >>"$tmp/gpt/common.gp" <<'GP'
set format y '%.17g'
set table RESULTS."/figures/".FIG.".tab"
GP
	for s in set busy; do
		tabs=
		for id in $(cut -f1 "$tmp/$s/figdata/figures.tsv" | sort -u); do
			[ -f "$tmp/gpt/$id.gp" ] || continue
			"$PY" "$TOP_SRCDIR/plots/gpvars.py" "$tmp/$s/figdata" "$id" >"$tmp/vars" 2>/dev/null || continue
			"$gp" -c "$tmp/gpt/$id.gp" "$tmp/$s" "$tmp/vars" >"$tmp/gp.log" 2>&1 &&
				[ -s "$tmp/$s/figures/$id.tab" ] && tabs="$tabs $tmp/$s/figures/$id.tab"
		done
		check "gnuplot wrote the $s figures' tables ($(echo $tabs | wc -w))" test -n "$tabs"
		# shellcheck disable=SC2086 # tabs: paths under $tmp, no spaces
		relay "$PY" "$TOP_SRCDIR/tests/figures_drawn.py" --table "$tmp/$s" $tabs
	done
else
	skip "gnuplot text boxes" "no gnuplot (apt-get install gnuplot-nox)"
fi
tap_done
