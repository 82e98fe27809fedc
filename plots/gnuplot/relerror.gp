# relerror.gp - body of Dice Fig. 6 (top and bottom): per probabilistic variant
# the worst |relative error| of the runs at each thread count (the max column),
# the analytic RSTDV bound dashed in the variant's colour, and Serial, whose
# errors are two orders of magnitude larger, on the right axis.
S = META(FILE1, "series")
ENV = META(FILE1, "envelope_series")
SP = ""
HAS_SERIAL = 0
do for [w in S] {
	if (w eq "Serial") { HAS_SERIAL = 1 } else { SP = SP.(SP eq "" ? "" : " ").w }
}
set terminal @PNGTERM size 1150,720
set output OUT
@TITLE
set xlabel META(FILE1, "xlabel")
set ylabel "worst ".META(FILE1, "ylabel")." (probabilistic counters)"
@THREADS_AXIS
set yrange [0:*]
set ytics nomirror
set key outside right top vertical Left reverse samplen 3 spacing 1.1
SERIAL_PLOT = ""
if (HAS_SERIAL) {
	set y2label "worst |relative error| of Serial (%)"
	set y2range [0:100]
	set y2tics 10 nomirror
	SERIAL_PLOT = ", FILE1 index IDX(S, \"Serial\") using 2:6 axes x1y2 with linespoints lt LT(\"Serial\") title \"Serial (right axis)\""
}
plot for [i=1:words(SP)] FILE1 index IDX(S, word(SP,i)) using 2:6 with linespoints lt LT(word(SP,i)) title LABEL(word(SP,i)), \
     for [i=1:words(ENV)] FILE1 index IDX(S, word(ENV,i)) using 2:11 with lines lc rgb COLOR(word(ENV,i)) dt 2 lw 1.5 title sprintf("%s RSTDV bound", LABEL(word(ENV,i))) \
     @SERIAL_PLOT
