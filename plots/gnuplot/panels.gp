# SPDX-License-Identifier: MIT
# panels.gp - body of the multi-panel threads figures (baselines: one panel per
# work level; latency: one per percentile). One .dat file per panel, listed in
# figures.tsv; median line, min-max band, or with fewer than 4 thread counts
# (DRAW "points") median points with min-max whiskers, offset per series; the
# legend once, right of the panels; the caption of boxed (marked) points once,
# under the panels (MARKED_CAPTION of gpvars.py). Set LOGY before loading.
NP = words(FILES)
set terminal @PNGTERM size (NP > 2 ? 1500 : 1250),680
set output OUT
set multiplot title TITLE_TEXT(FILE1) noenhanced
set key left top vertical Left reverse samplen 2.5 spacing 1.1 at screen PANEL_R(NP, NP) + 0.02, screen 0.78
CAP = exists("MARKED_CAPTION") ? MARKED_CAPTION : ""
MK = MARKS_L(MARKED_ANY, "S", DRAW eq "points" ? "$2 * DODGE(i, words(S))" : "$2", "($4 > ZF ? $4 : ZF)")
do for [j=1:NP] {
	F = FIGDATA.word(FILES, j)
	S = META(F, "series")
	set lmargin at screen PANEL_L(j, NP)
	set rmargin at screen PANEL_R(j, NP)
	set tmargin at screen 0.78
	set bmargin at screen (CAP ne "" ? 0.13 : 0.1)
	set title META(F, "panel") noenhanced
	set xlabel META(F, "xlabel")
	set ylabel META(F, "ylabel")
	@THREADS_AXIS
	if (LOGY) { @LOG_Y }
	if (j < NP) { unset key } else { set key }
	# a label is drawn with every plot of a multiplot after it is set: the last panel's only
	if (j == NP && CAP ne "") { set label 90 CAP at screen (PANEL_L(1, NP) + PANEL_R(NP, NP)) / 2, screen 0.02 center noenhanced }
	if (DRAW eq "points") {
		@POINTS_X
		plot for [i=1:words(S)] F index (i-1) using ($2 * DODGE(i, words(S))):($4 > ZF ? $4 : ZF):($5 > ZF ? $5 : ZF):($6 > ZF ? $6 : ZF) with yerrorbars lt LT(word(S,i)) title LABEL(word(S,i)) @MK
	} else {
		plot for [i=1:words(S)] F index (i-1) using 2:($5 > ZF ? $5 : ZF):($6 > ZF ? $6 : ZF) with @BAND lc rgb COLOR(word(S,i)) notitle, \
		     for [i=1:words(S)] F index (i-1) using 2:($4 > ZF ? $4 : ZF) with linespoints lt LT(word(S,i)) title LABEL(word(S,i)) @MK
	}
}
unset multiplot
unset label 90
