#!/bin/sh
# SPDX-License-Identifier: MIT
# test_marks.sh - points marked in the figures and the advice, as
# TAP. A copy of tests/fixtures/results-small is edited so that, in dice-fig4-high,
# one point has a busy run (RBO at 2 threads), one a run far off its time target
# (CAS at 1 thread: 0.5 s of a 0.05 s --duration) and one an outlier run (FetchAdd
# at 2 threads: 6 runs, one at 1/100 of the others); every other point stays clean.
# Checked: the .dat files both renderers read (the marked column and the caption
# line), the gnuplot overlay's own points (gnuplot's table output of MARKS), the
# matplotlib artists drawn over the marked points, and the advice rows' flag.
# The unedited fixture has no marked point anywhere. No timing, no randomness.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
plots=$top/plots
fixture=$top/tests/fixtures/results-small
# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"
if ! command -v python3 >/dev/null 2>&1 && ! [ -x /usr/bin/python3 ]; then
	echo "1..0 # SKIP no python3: the aggregator cannot run"
	exit 0
fi
mpl=""
if [ -n "${PYTHON_MPL:-}" ]; then
	mpl=$PYTHON_MPL
elif /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
	mpl=/usr/bin/python3
fi

cp -R "$fixture" "$tmp/clean" && chmod -R u+w "$tmp/clean"
cp -R "$fixture" "$tmp/mk" && chmod -R u+w "$tmp/mk"
"$PY" - "$tmp/mk/dice-fig4-high.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
fields = list(rows[0].keys()) + ["busy"]
extra = []
for r in rows:
    r["busy"] = "0"
    if r["counter"] == "RBO" and r["threads"] == "2" and r["run"] == "0":
        r["busy"] = "1"
    if r["counter"] == "CAS" and r["threads"] == "1" and r["run"] == "0":
        r["seconds"] = "0.5"
    if r["counter"] == "FetchAdd" and r["threads"] == "2":
        r["ops_per_ms"] = "10000" if r["run"] == "0" else "10100"
        if r["run"] == "1":   # four more runs like it, then one at 1/100
            for k, v in enumerate(("9900", "10200", "10050", "100")):
                extra.append(dict(r, run=str(2 + k), ops_per_ms=v))
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows + extra)
PYEOF
# In baselines (where the precise-high advice is read): the winner, Sharded at
# 2 threads, gets a run off its time target, the runner-up, Batched, a busy run.
"$PY" - "$tmp/mk/baselines.csv" <<'PYEOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
fields = list(rows[0].keys()) + ["busy"]
for r in rows:
    r["busy"] = "0"
    if r["threads"] == "2" and r["run"] == "0" and r["counter"] == "Sharded":
        r["seconds"] = "0.5"
    if r["threads"] == "2" and r["run"] == "1" and r["counter"] == "Batched":
        r["busy"] = "1"
with open(sys.argv[1], "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
PYEOF
for d in clean mk; do
	"$PY" "$plots/aggregate.py" "$tmp/$d" >"$tmp/$d.log" 2>&1 &&
		"$PY" "$plots/report.py" "$tmp/$d" >>"$tmp/$d.log" 2>&1
	check "aggregate_and_report_$d" test $? -eq 0
done

# The rule in one place: marks.py's constants are summary.h's.
check rule_matches_summary_h "$PY" -c '
import re, sys
sys.path.insert(0, sys.argv[1])
import marks
h = open(sys.argv[2]).read()
def val(name):
    return float(re.search(r"#define %s ([0-9.]+)" % name, h).group(1))
assert marks.TIME_SLACK_S == val("SUMMARY_TIME_SLACK_S")
assert marks.TIME_SLACK == val("SUMMARY_TIME_SLACK")
assert marks.OUTLIER_K == val("SUMMARY_OUTLIER_K")
assert marks.OUTLIER_MIN_RUNS == val("SUMMARY_OUTLIER_MIN_RUNS")
assert "1.4826" in open(sys.argv[3]).read() and marks.MAD_SCALE == 1.4826
# the rule itself: 4 runs never mark, the same 5 with one far do; a flat set does not
assert not marks.outlier([100, 100, 100, 1])
assert marks.outlier([100, 101, 99, 102, 1]) and not marks.outlier([100, 101, 99, 102, 98])
assert not marks.outlier([5, 5, 5, 5, 1])   # MAD 0: no scale to judge by
assert marks.time_off(0.5, 0.05) and not marks.time_off(0.104, 0.05)
assert marks.target_seconds(["x", "--duration=0.8"]) == 0.8
assert marks.target_seconds(["x"]) == 8.0 and marks.target_seconds(["--duration=z"]) is None
assert marks.target_seconds(None) is None and marks.target_seconds([]) is None
' "$plots" "$top/harness/summary.h" "$top/harness/summary.c"

# The data both renderers read: the marked column and the caption line.
check dat_marks_the_three_points "$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
import figdata
d = figdata.read_dat(sys.argv[2])
got = {(r["series"], r["x"]): int(r["marked"]) for r in d["rows"]}
want = {("RBO", 2): 1, ("CAS", 1): 2, ("FetchAdd", 2): 4}
assert {k: v for k, v in got.items() if v} == want, got
assert len(got) > 10 and all(got[k] == 0 for k in got if k not in want)
assert d["meta"]["marked_caption"] == ("boxed: a busy run, a run off its time target, "
                                       "or an outlier run; 3 points"), d["meta"]
assert "RBO 2 thr: b" in d["meta"]["marked"] and "CAS 1 thr: t" in d["meta"]["marked"]
assert "FetchAdd 2 thr: o" in d["meta"]["marked"], d["meta"]["marked"]
' "$plots" "$tmp/mk/figdata/dice-fig4-high.dat"
# The unedited fixture (2 runs per point, every run near its 0.05 s, no busy
# column): no point marked in any figure, no caption.
check clean_set_marks_nothing "$PY" -c '
import glob, sys
sys.path.insert(0, sys.argv[1])
import figdata
for f in sorted(glob.glob(sys.argv[2] + "/*.dat")):
    d = figdata.read_dat(f)
    assert all(r["marked"] == 0 for r in d["rows"]), f
    assert "marked_caption" not in d["meta"] and "marked" not in d["meta"], f
' "$plots" "$tmp/clean/figdata"
check gpvars_carries_the_caption sh -c \
	"'$PY' '$plots/gpvars.py' '$tmp/mk/figdata' dice-fig4-high | grep -q \"^META_1_marked_caption = 'boxed: .*; 3 points'\$\""

# gnuplot: the points the overlay of throughput.gp draws, from gnuplot itself
# (its table output of the plot command common.gp's MARKS builds).
gp_marks() { # gp_marks SET: the overlay's defined points, "x y" per line
	"$PY" "$plots/gpvars.py" "$1/figdata" dice-fig4-high >"$tmp/vars.gp" &&
		gnuplot -e "FIG = 'dice-fig4-high'; RESULTS = '$1'; VARS = '$tmp/vars.gp'; GPDIR = '$plots/gnuplot'" \
			-e "load GPDIR.'/common.gp'; S = META(FILE1, 'series'); F = FILE1; MK = MARKS(F, '\$2', '\$4')" \
			-e "set table '$tmp/table.txt'; plot NaN notitle @MK; unset table" 2>"$tmp/gp.err" &&
		awk 'NF >= 3 && $3 == "i" { print $1 + 0, $2 + 0 }' "$tmp/table.txt" | sort -u
}
if command -v gnuplot >/dev/null 2>&1; then
	want=$("$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
import figdata
d = figdata.read_dat(sys.argv[2])
print("\n".join(sorted(set("%g %g" % (r["x"], r["median"]) for r in d["rows"] if r["marked"]))))
' "$plots" "$tmp/mk/figdata/dice-fig4-high.dat")
	got=$(gp_marks "$tmp/mk" | while read -r x y; do printf '%g %g\n' "$x" "$y"; done | sort -u)
	check gnuplot_overlay_draws_the_marked_points test -n "$want" -a "$got" = "$want"
	: >"$tmp/table.txt"
	check gnuplot_no_overlay_on_clean_set test -z "$(gp_marks "$tmp/clean")"
else
	skip gnuplot_overlay_draws_the_marked_points "gnuplot not installed"
	skip gnuplot_no_overlay_on_clean_set "gnuplot not installed"
fi

# Every figure with a marked point: a copy of the fixture whose first two runs
# of every CSV are busy. gnuplot runs each figure's own script with its plots
# sent to a table (set table), on this set and on the clean one (the same
# statistics, nothing marked): the points the first draws beyond the second's
# are the overlay's; there are some in every figure with a marked point, none
# in the others, each over a point the figure draws.
cp -R "$fixture" "$tmp/all" && chmod -R u+w "$tmp/all"
for f in "$tmp/all"/*.csv; do
	awk -F, -v OFS=, 'NR == 1 { print $0, "busy"; next } { print $0, (NR <= 3) }' "$f" >"$f.new" &&
		mv "$f.new" "$f"
done
"$PY" "$plots/aggregate.py" "$tmp/all" >/dev/null 2>&1
check every_figure_has_a_marked_point sh -c '! grep -L "^# marked_caption: boxed: " "$1"/*.dat |
	grep -v -e ayers-accuracy-detail -e baselines-w99 | grep -q .' _ "$tmp/all/figdata"
gp_table() { # gp_table SET FIG: the figure's plots as gnuplot's table, in $tmp/FIG.SETNAME.tab
	# (the script still opens its PNG, in SET/figures, as plots/regen makes it)
	mkdir -p "$1/figures" && "$PY" "$plots/gpvars.py" "$1/figdata" "$2" >"$tmp/$2.vars" &&
		gnuplot -e "set table '$tmp/$2.$(basename "$1").tab'" -c "$plots/gnuplot/$2.gp" "$1" "$tmp/$2.vars" \
			>/dev/null 2>&1
}
if command -v gnuplot >/dev/null 2>&1; then
	for id in $(grep -v '^#' "$tmp/all/figdata/figures.tsv" | awk -F'\t' '$2 == "ok" { print $1 }'); do
		gp_table "$tmp/all" "$id"
		gp_table "$tmp/clean" "$id"
		check "gnuplot_overlay_at_marked_points_$id" "$PY" -c '
import collections, sys
sys.path.insert(0, sys.argv[1])
import figdata
marked = sum(1 for f in sys.argv[5].split()
             for r in figdata.read_dat(sys.argv[4] + "/" + f)["rows"] if r["marked"])
def points(path):   # "x y" as the table prints them (in the axes formats)
    return collections.Counter(" ".join(l.split()[:2]) for l in open(path)
                               if l.split()[-1:] == ["i"] and not l.startswith("#"))
clean = points(sys.argv[3])
drawn = points(sys.argv[2]) - clean
# a marked point: the overlay over it; none: nothing more drawn
assert (len(drawn) > 0) == (marked > 0) and all(k in clean for k in drawn), (marked, drawn)
' "$plots" "$tmp/$id.all.tab" "$tmp/$id.clean.tab" "$tmp/all/figdata" \
			"$(awk -F'\t' -v id="$id" '$1 == id { print $3 }' "$tmp/all/figdata/figures.tsv")"
	done
else
	skip gnuplot_overlay_at_marked_points "gnuplot not installed"
fi

# matplotlib: an open square (see-through: the variant's own marker stays
# visible inside it) drawn around each marked point, and the caption
# under the axis (the artists of the figure, not its pixels).
if [ -n "$mpl" ]; then
	check mpl_boxes_at_marked_points env MPLBACKEND=Agg "$mpl" -c '
import sys
sys.path.insert(0, sys.argv[1])
import figdata, mpl_figures
fig = mpl_figures.DRAW["dice-fig4-high"]([sys.argv[2]])
ax = fig.axes[0]
d = figdata.read_dat(sys.argv[2])
dodge = d["meta"].get("draw") == "points"
boxes = [l for l in ax.lines if l.get_marker() == "s" and l.get_markerfacecolor() == "none"
          and l.get_markersize() == 12]
pts = sorted(round(y, 6) for l in boxes for y in l.get_ydata())
want = sorted(round(r["median"], 6) for r in d["rows"] if r["marked"])
assert pts == want and len(want) == 3, (pts, want)
assert ax.get_xlabel().endswith("; 3 points"), ax.get_xlabel()
' "$plots" "$tmp/mk/figdata/dice-fig4-high.dat"
	check mpl_nothing_boxed_on_clean_set env MPLBACKEND=Agg "$mpl" -c '
import sys
sys.path.insert(0, sys.argv[1])
import mpl_figures
fig = mpl_figures.DRAW["dice-fig4-high"]([sys.argv[2]])
ax = fig.axes[0]
assert not [l for l in ax.lines if l.get_markersize() == 12]
assert "boxed" not in ax.get_xlabel()
' "$plots" "$tmp/clean/figdata/dice-fig4-high.dat"
else
	skip mpl_boxes_at_marked_points "no python3 with matplotlib"
	skip mpl_nothing_boxed_on_clean_set "no python3 with matplotlib"
fi
# The advice rows: a number read from a marked point carries the short flag,
# the caveat line above the table explains it once; clean rows and the clean
# set carry none.
check advice_flags_marked_numbers "$PY" -c '
import json, re, sys
adv = {a["id"]: a for a in json.load(open(sys.argv[1]))["advice"]}
ph = adv["precise-high"]
assert (ph["best"], ph["threads"], ph.get("marked")) == ("Sharded", 2, "t"), ph
assert (ph["runner_up"], ph.get("runner_marked")) == ("Batched", "b"), ph
assert "marked" not in adv["single-thread"] and "runner_marked" not in adv["single-thread"]
rep = open(sys.argv[2]).read()
table = rep[rep.index("## Which counter"):]
table = table[:table.index("\n## ", 5)]
rows = [l for l in table.splitlines() if l.startswith("| ") and "Scenario" not in l]
ph_row = [l for l in rows if l.startswith("| " + ph["scenario"].replace("|", "\\|"))][0]
assert "at 2 threads [marked: t]" in ph_row and "[marked: b] (" in ph_row, ph_row
caveat = [l for l in table.splitlines() if l.startswith("**Caveat:")]
assert len(caveat) == 1 and "marked numbers" in caveat[0], caveat
# the headline gives the busy share (timed runs apart from count-to-N ones
# where the set has both), the detail the rule once
m = re.search(r"\*\*Caveat: [^*]*the machine was busy during (\d+) of (\d+) (timed )?runs", caveat[0])
assert m and int(m.group(1)) >= 2 and "busy run was taken while" in caveat[0], caveat
assert caveat[0].count("b a busy run, t a run off its time target, o an outlier run") == 1
assert table.count("[marked: b t o]") == 1          # explained once, above the table
' "$tmp/mk/figdata/claims.json" "$tmp/mk/REPORT.md"
check advice_clean_set_no_flag "$PY" -c '
import json, sys
adv = json.load(open(sys.argv[1]))["advice"]
assert not [a for a in adv if "marked" in a or "runner_marked" in a], adv
assert "[marked:" not in open(sys.argv[2]).read() and "marked numbers" not in open(sys.argv[2]).read()
' "$tmp/clean/figdata/claims.json" "$tmp/clean/REPORT.md"
check terminal_lines_flag_marked "$PY" -c '
import json, sys
sys.path.insert(0, sys.argv[1])
import report_answer
from resultset import ResultSet
from resultset_summary import machine_summary
rows = json.load(open(sys.argv[2]))["advice"]
lines = report_answer.terminal_lines(rows, machine_summary(ResultSet(sys.argv[3])), "R.md")
ph = [i for i, l in enumerate(lines) if l.strip() == rows[1]["scenario"]][0]
assert "[marked: t]" in lines[ph + 1] and "[marked: b]" in lines[ph + 1], lines[ph + 1]
assert any(l.startswith("  Caveat: marked numbers. A number followed by [marked: b t o]")
           for l in lines), lines
' "$plots" "$tmp/mk/figdata/claims.json" "$tmp/mk"
tap_done
