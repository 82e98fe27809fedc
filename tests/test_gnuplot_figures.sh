#!/bin/sh
# SPDX-License-Identifier: MIT
# test_gnuplot_figures.sh - what the gnuplot figures draw, checked by
# drawing them with the real scripts and a line after them that prints what
# gnuplot holds.
# Fig. 6's "Serial (own scale)" panel is drawn from
# Serial's own data: in the fixture set Serial lost about 48% of its updates
# at 2 threads while the probabilistic panel's scale ends at 2%; the panel's
# y range must hold Serial's worst point (gnuplot's stats, run while the
# left panel's range was set, skipped it and drew the panel on 0..1%). The
# figure is drawn by the real scripts, with a line after them that prints the
# last panel's y range.
# Every line of every figure's title and subtitles is at most 150
# characters (gpvars.py wraps them; gnuplot cut a longer one at both edges
# of the image: latency's and read-cost's notes). As TAP; a skip without
# gnuplot.
: "${TOP_SRCDIR:=.}"
. "$(dirname "$0")/tap.sh"
py=${PYTHON:-/usr/bin/python3}
gp=${GNUPLOT:-gnuplot}
if ! command -v "$gp" >/dev/null 2>&1; then
	skip "Fig. 6 Serial panel" "no gnuplot (apt-get install gnuplot-nox)"
	tap_done
	exit 0
fi
gpdir=$TOP_SRCDIR/plots/gnuplot
cp -r "$TOP_SRCDIR/tests/fixtures/results-small" "$tmp/set" && chmod -R u+w "$tmp/set" || exit 1
mkdir "$tmp/set/figures"
"$py" "$TOP_SRCDIR/plots/aggregate.py" "$tmp/set" >"$tmp/out" 2>&1 || { cat "$tmp/out"; exit 1; }
for id in dice-fig6-high dice-fig6-low; do
	"$py" "$TOP_SRCDIR/plots/gpvars.py" "$tmp/set/figdata" "$id" >"$tmp/$id.vars.gp" || exit 1
	cat >"$tmp/probe.gp" <<GP
FIG = "$id"
RESULTS = ARG1
VARS = ARG2
GPDIR = "$gpdir"
load GPDIR."/common.gp"
load GPDIR."/relerror.gp"
print sprintf("%g %g", GPVAL_Y_MIN, GPVAL_Y_MAX)
GP
	range=$("$gp" -c "$tmp/probe.gp" "$tmp/set" "$tmp/$id.vars.gp" 2>&1 | tail -1)
	worst=$(awk '$1 == "Serial" && $6 + 0 > w { w = $6 + 0 } END { print w + 0 }' "$tmp/set/figdata/$id.dat")
	check "${id}_serial_panel_holds_its_worst_point (worst $worst%, y range $range)" \
		awk -v r="$range" -v w="$worst" 'BEGIN { n = split(r, a, " "); exit !(n == 2 && a[1] <= 0 && a[2] >= w) }'
done
for id in $(cut -f1 "$tmp/set/figdata/figures.tsv" | sort -u); do
	[ -f "$gpdir/$id.gp" ] || continue
	"$py" "$TOP_SRCDIR/plots/gpvars.py" "$tmp/set/figdata" "$id" >"$tmp/$id.vars.gp" 2>/dev/null || continue
	cat >"$tmp/probe.gp" <<GP
FIG = "$id"
RESULTS = ARG1
VARS = ARG2
GPDIR = "$gpdir"
load GPDIR."/common.gp"
print TITLE_TEXT(FILE1)
GP
	"$gp" -c "$tmp/probe.gp" "$tmp/set" "$tmp/$id.vars.gp" >"$tmp/title" 2>&1
	longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$tmp/title")
	lines=$(wc -l <"$tmp/title")
	check "${id}_title_lines_fit ($lines lines, longest $longest characters)" test "$longest" -le 150 -a "$lines" -ge 3
done
tap_done
