# SPDX-License-Identifier: MIT
# common.gp - loaded first by every figure script. plots/regen runs a figure as
#   gnuplot -c plots/gnuplot/<figure>.gp RESULT_DIR VARS
# where VARS is the file plots/gpvars.py wrote for the figure (its .dat files
# and their header lines, as single-quoted strings). The figure script sets FIG
# (the figure id), RESULTS (ARG1), VARS (ARG2) and GPDIR (its own directory)
# before loading this file (inside a loaded file ARG0 and ARG1 are not the
# script's). It reads RESULT_DIR/figdata (written by plots/aggregate.py: this
# side only draws) and writes RESULT_DIR/figures/FIG.png, which plots/regen
# created. No shell here: every path is a gnuplot variable, never
# pasted into a command; and each starts with '/' or '.', since gnuplot would
# run a file name starting with '<' or an output starting with '|' as a command.
if (RESULTS eq "" || VARS eq "") {
	print "usage: gnuplot -c plots/gnuplot/".FIG.".gp RESULT_DIR VARS (plots/regen RESULT_DIR runs it)"
	exit status 2
}
if ((RESULTS[1:1] ne "/" && RESULTS[1:1] ne ".") || (VARS[1:1] ne "/" && VARS[1:1] ne ".")) {
	print "gnuplot: ".FIG.": RESULT_DIR and VARS must start with / or . (plots/regen passes them so)"
	exit status 2
}
load GPDIR."/style.gp"
FIGDATA = RESULTS."/figdata/"
OUT = RESULTS."/figures/".FIG.".png"
load VARS

# IDX(list, name): 0-based position of a word in a space-separated list (the
# gnuplot 'index' of a series' block, the blocks following '# series').
IDX(list, name) = words(substr(" ".list." ", 1, strstrt(" ".list." ", " ".name." ")))
# META(file, key): the '# key: value' header line of a .dat file of FILES (the
# variable META_<n>_<key> of VARS, n its place in FILES), "" when it has none.
META_VAR(f, key) = sprintf("META_%d_%s", IDX(FILES, f[strlen(FIGDATA) + 1:strlen(f)]) + 1, key)
META(f, key) = exists(META_VAR(f, key)) ? value(META_VAR(f, key)) : ""
if (words(FILES) == 0) {
	print "gnuplot: ".FIG.": no figure data in ".FIGDATA." (run plots/aggregate.py first)"
	exit status 1
}
FILE1 = FIGDATA.word(FILES, 1)

# The title: the paper figure reproduced, the figure's title, and a caption
# lines: what lines and bands show; machine and runs per point.
TITLE_TEXT(f) = (META(f, "reproduces") eq "" ? "" : META(f, "reproduces").": ").META(f, "title")."\nmeasured: ".META(f, "measured")."\n".META(f, "drawn")."\n".META(f, "caption").(META(f, "note") eq "" ? "" : "\n".META(f, "note"))
TITLE = "set title TITLE_TEXT(FILE1) noenhanced"
PNGTERM = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? \
	"pngcairo enhanced font 'DejaVu Sans,10' linewidth 1" : "png enhanced"
BAND = "filledcurves fs transparent solid 0.13 noborder"
if (strstrt(PNGTERM, "pngcairo") == 0) BAND = "filledcurves fs pattern 4 noborder"
set encoding utf8
set grid lc rgb "#dddddd" lw 1
set border lw 1
set tics nomirror
set key noenhanced
set datafile missing "NaN"
# Thread axes: log2, labelled 1 2 4 ... 256.
THREADS_AXIS = "set logscale x 2; set xtics 2 format '%g'; set mxtics 1"
# DRAW: "points" (fewer than 4 x values: median points with min-max whiskers,
# series i of n offset by DODGE(i, n) along the log x axis, no lines) or "lines".
DRAW = META(FILE1, "draw")
XV = META(FILE1, "x_values")
XMIN = words(XV) > 0 ? word(XV, 1) + 0.0 : 1.0
XMAX = words(XV) > 0 ? word(XV, words(XV)) + 0.0 : 1.0
ZF = 0
DODGE(i, n) = 2.0 ** ((i - (n + 1) / 2.0) * 0.03)
POINTS_X = "set xrange [XMIN / 1.45 : XMAX * 1.45]"
# LOG_Y: log y fitted to the min (column 5) and max (column 6) of file F, labelled
# at 1, 2 and 5 of every decade, or at 1..8 when the data spans less than 30x. A
# value below F's zero_floor (half the timer's resolution: latency at the
# subtracted timing cost) is drawn at zero_floor, labelled 0.
LOG_Y = "unset logscale y; set autoscale xy; stats F using 2:5 nooutput; YLO = STATS_min_y; stats F using 2:6 nooutput; YHI = STATS_max_y; ZF = META(F, 'zero_floor'); ZF = (ZF eq '' ? 0 : ZF + 0); YLO = (ZF > 0 && YLO < ZF ? ZF : (YLO > 0 ? YLO : YHI / 100)); set logscale y 10; set yrange [YLO / 1.3 : YHI * 1.3]; set format y '%.0s%c'; set ytics (); do for [k=-9:10] { do for [m in (YHI / YLO < 30 ? '1 2 3 4 5 6 7 8' : '1 2 5')] { V = m * 10.0 ** k; if (ZF <= 0 || V >= 1.6 * ZF) { set ytics add ((V < 1 ? gprintf('%g', V) : gprintf('%.0s%c', V)) V 0) } } }; if (ZF > 0) { set ytics add ('0' ZF 0) }"
# N axes (Ayers): log10 with 10^k labels.
N_AXIS = "set logscale x 10; set format x '10^{%T}'; set xtics 10"
# Panels of a multi-panel figure: panel j of n (from 1), side by side, leaving
# the right 15% of the page to the legend.
PANEL_L(j, n) = 0.06 + (j - 1) * 0.79 / n
PANEL_R(j, n) = 0.06 + j * 0.79 / n - 0.05
# Marked points (plots/marks.py: a busy run, a run off its time target, an
# outlier run; column 12 of a .dat file is non-zero): XLABEL(f) is the x label
# with, under it, the caption a file with a marked point carries;
# MARKS_L(on, list, x, y) is the text to append to a plot command over file F
# for the series named in the gnuplot variable list (S, or a part of it): an
# open square around each marked point's own marker, i the series' place in
# list, x and y gnuplot expressions of a row; "" when on is 0 (no marked
# point: the figure is drawn as before). MARKS(f, x, y): over every series S
# of f, on when f has a marked point. A macro (@MK) is expanded when the block
# holding it is read, so a loop over panels takes MARKED_ANY (some file of
# FILES has a marked point) and sets MK before the loop.
XLABEL(f) = META(f, "xlabel").(META(f, "marked_caption") eq "" ? "" : "\n".META(f, "marked_caption"))
MARK_1(l, x, y, how) = sprintf(", for [i=1:words(%s)] F index IDX(S, word(%s,i)) using (%s):(column(12) > 0 ? %s : NaN) with points %s notitle", l, l, x, y, how)
MARK_C(l) = sprintf("lc rgb COLOR(word(%s,i))", l)
MARKS_L(on, l, x, y) = !on ? "" : MARK_1(l, x, y, "pt 4 ps 2.4 lw 1.5 ".MARK_C(l))
MARKS(f, x, y) = MARKS_L(META(f, "marked_caption") ne "", "S", x, y)
MARKED_ANY = 0
do for [w in FILES] { if (META(FIGDATA.w, "marked_caption") ne "") { MARKED_ANY = 1 } }
