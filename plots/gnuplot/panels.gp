# panels.gp - body of the multi-panel threads figures (baselines: one panel per
# work level; latency: one per percentile). One .dat file per panel, listed in
# figures.tsv; median line, min-max band; the legend once, right of the panels.
# Set LOGY before loading.
NP = words(FILES)
set terminal @PNGTERM size (NP > 2 ? 1500 : 1250),650
set output OUT
set multiplot title TITLE_TEXT(FILE1) noenhanced
set key left top vertical Left reverse samplen 2.5 spacing 1.1 at screen PANEL_R(NP, NP) + 0.02, screen 0.82
do for [j=1:NP] {
	F = FIGDATA.word(FILES, j)
	S = META(F, "series")
	set lmargin at screen PANEL_L(j, NP)
	set rmargin at screen PANEL_R(j, NP)
	set tmargin at screen 0.82
	set bmargin at screen 0.1
	set title META(F, "panel") noenhanced
	set xlabel META(F, "xlabel")
	set ylabel META(F, "ylabel")
	@THREADS_AXIS
	if (LOGY) { set logscale y 10; set format y "10^{%T}" }
	if (j < NP) { unset key } else { set key }
	plot for [i=1:words(S)] F index (i-1) using 2:5:6 with @BAND lc rgb COLOR(word(S,i)) notitle, \
	     for [i=1:words(S)] F index (i-1) using 2:4 with linespoints lt LT(word(S,i)) title LABEL(word(S,i))
}
unset multiplot
