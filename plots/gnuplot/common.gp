# common.gp - loaded first by every figure script. A figure script runs as
#   gnuplot -c plots/gnuplot/<figure>.gp RESULT_DIR
# and sets FIG (the figure id), RESULTS (ARG1) and GPDIR (its own directory)
# before loading this file (inside a loaded file ARG0 and ARG1 are not the
# script's). It reads RESULT_DIR/figdata (written by plots/aggregate.py: this
# side only draws) and writes RESULT_DIR/figures/FIG.png.
if (RESULTS eq "") {
	print "usage: gnuplot -c plots/gnuplot/".FIG.".gp RESULT_DIR"
	exit status 2
}
load GPDIR."/style.gp"
FIGDATA = RESULTS."/figdata/"
system("mkdir -p '".RESULTS."/figures'")
OUT = RESULTS."/figures/".FIG.".png"

# META(file, key): the '# key: value' header line of a .dat file.
META(f, key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -n 1", key, f))
# The .dat files of this figure (one per panel), from figures.tsv.
FILES = system(sprintf("awk -F'\t' '$1 == \"%s\" && $2 == \"ok\" { print $3 }' '%sfigures.tsv'", FIG, FIGDATA))
if (words(FILES) == 0) {
	print "gnuplot: ".FIG.": no figure data in ".FIGDATA." (run plots/aggregate.py first)"
	exit status 1
}
FILE1 = FIGDATA.word(FILES, 1)

# The title: the paper figure reproduced, the figure's title, and a caption
# lines: what lines and bands show; machine and runs per point.
TITLE_TEXT(f) = (META(f, "reproduces") eq "" ? "" : META(f, "reproduces").": ").META(f, "title")."\n".META(f, "drawn")."\n".META(f, "caption")
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
# N axes (Ayers): log10 with 10^k labels.
N_AXIS = "set logscale x 10; set format x '10^{%T}'; set xtics 10"
# IDX(list, name): 0-based position of a word in a space-separated list (the
# gnuplot 'index' of a series' block, the blocks following '# series').
IDX(list, name) = words(substr(" ".list." ", 1, strstrt(" ".list." ", " ".name." ")))
# Panels of a multi-panel figure: panel j of n (from 1), side by side, leaving
# the right 15% of the page to the legend.
PANEL_L(j, n) = 0.06 + (j - 1) * 0.79 / n
PANEL_R(j, n) = 0.06 + j * 0.79 / n - 0.05
