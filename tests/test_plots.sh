#!/bin/sh
# SPDX-License-Identifier: MIT
# test_plots.sh - the figure and report tools (doc/design.md §6, §7) driven end
# to end on copies of the fixture result set tests/fixtures/results-small, as
# TAP: plots/aggregate.py then both renderers (gnuplot and matplotlib) drawing
# every figure, the latency figures from scbench's own sidecar, plots/regen on
# a full, a partial and a restricted set, and gnuplot on a synthetic 256-PU
# set. The checks of the Python modules themselves (the aggregator's data and
# statistics, the claims, the advice, the report) are pytest modules in
# plots/tests/, run by tests/test_pytest.sh.
#
# Checks that need gnuplot or a Python with matplotlib are reported as
# "ok N - name # SKIP ..." where those are missing. Without any python3 the
# aggregator cannot run and the whole test is skipped with the TAP plan
# "1..0 # SKIP" (what automake's tap-driver.sh counts as a skip; an exit
# status of 77 would be reported there as an error).
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
plots=$top/plots
fixture=$top/tests/fixtures/results-small

py=""
for c in /usr/bin/python3 python3; do
	if command -v "$c" >/dev/null 2>&1; then py=$c; break; fi
done
if [ -z "$py" ]; then
	echo "1..0 # SKIP no python3: the aggregator cannot run"
	exit 0
fi
gp=""
if command -v gnuplot >/dev/null 2>&1; then gp=gnuplot; fi
mpl=""
if [ -n "${PYTHON_MPL:-}" ]; then
	mpl=$PYTHON_MPL
else
	for c in /usr/bin/python3 python3; do
		if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then
			mpl=$c; break
		fi
	done
fi

# shellcheck source=tests/tap.sh
. "$top/tests/tap.sh"

FIGURES=$("$py" -B -c 'import sys
sys.path.insert(0, sys.argv[1])
from figures import FIGURE_IDS
print(" ".join(FIGURE_IDS))' "$plots")

# copy_set NAME: a writable copy of the fixture (the source tree may be read-only).
copy_set() {
	cp -R "$fixture" "$tmp/$1" && chmod -R u+w "$tmp/$1"
}

copy_set rs
rs=$tmp/rs
"$py" "$plots/aggregate.py" "$rs" >"$tmp/agg.out" 2>&1
check aggregate_exits_0 test $? -eq 0

# End to end with scbench's own sidecar, when the harness is built.
if [ -n "${SCBENCH:-}" ] && [ -x "$SCBENCH" ]; then
	mkdir -p "$tmp/latrun"
	"$SCBENCH" --counter=CAS,Scalable --threads=1,2 --duration=0.05 --warmup=0.01 --runs=2 \
		--latency --events=none --output="$tmp/latrun/latency.csv" >/dev/null 2>&1
	"$py" "$plots/aggregate.py" "$tmp/latrun" >/dev/null 2>&1
	check latency_scbench_sidecar_pooled sh -c "grep -q '^# latency_percentile: pooled:' '$tmp/latrun/figdata/latency-p99.dat' &&
		test \"\$(grep -c '^CAS \|^Scalable ' '$tmp/latrun/figdata/latency-p99.dat')\" -eq 4"
else
	skip latency_scbench_sidecar_pooled "SCBENCH not set (run by make check)"
fi

# ---- gnuplot --------------------------------------------------------------------
# gp_figure DIR ID: figure ID of result set DIR as plots/regen draws it (the
# figure's variables from gpvars.py, figures/ made beforehand).
gp_figure() {
	mkdir -p "$1/figures" && "$PY" "$plots/gpvars.py" "$1/figdata" "$2" >"$tmp/gp.vars" &&
		"$gp" -c "$plots/gnuplot/$2.gp" "$1" "$tmp/gp.vars"
}
for id in $FIGURES; do
	if [ -z "$gp" ]; then
		skip "gnuplot_$id" "gnuplot not installed"
		continue
	fi
	gp_figure "$rs" "$id" >"$tmp/gp.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$rs/figures/$id.png" ] &&
	   [ "$(od -An -c -N4 "$rs/figures/$id.png" | tr -d ' ')" = "211PNG" ]; then
		ok "gnuplot_$id"
	else
		not_ok "gnuplot_$id (exit $rc: $(head -c 300 "$tmp/gp.log"))"
	fi
done

# ---- matplotlib ----------------------------------------------------------------
if [ -n "$mpl" ]; then
	MPLBACKEND=Agg "$mpl" "$plots/mpl_figures.py" "$rs" >"$tmp/mpl.log" 2>&1
	check mpl_figures_exits_0 test $? -eq 0
else
	skip mpl_figures_exits_0 "no Python with matplotlib"
fi
for id in $FIGURES; do
	if [ -z "$mpl" ]; then
		skip "matplotlib_$id" "no Python with matplotlib"
		continue
	fi
	if [ "$(head -c 4 "$rs/figures/$id.pdf" 2>/dev/null)" = "%PDF" ] &&
	   grep -q '<svg' "$rs/figures/$id.svg" 2>/dev/null; then
		ok "matplotlib_$id"
	else
		not_ok "matplotlib_$id (PDF or SVG missing or malformed)"
	fi
done

# ---- plots/regen, end to end, on a fresh copy --------------------------------------
copy_set regen
"$plots/regen" "$tmp/regen" >"$tmp/regen.log" 2>&1
rc=$?
check "regen_exits_0 (exit $rc)" test $rc -eq 0
check regen_wrote_report test -s "$tmp/regen/REPORT.md"
# A partial result set (one file): regen draws what it has, skips the rest.
mkdir -p "$tmp/partial"
cp "$fixture/dice-fig3.csv" "$fixture/dice-fig3.csv.meta.json" "$tmp/partial/"
chmod u+w "$tmp/partial"/*
"$plots/regen" "$tmp/partial" >"$tmp/regen-partial.log" 2>&1
rc=$?
check "regen_partial_set_exits_0 (exit $rc)" test $rc -eq 0
# The skipped figures once, in one line (their reasons are in figures.tsv).
check regen_partial_says_what_it_skipped_once sh -c '
	[ "$(grep -c "skipped" "$1")" -eq 1 ] &&
	grep -q "^plots/regen: skipped [0-9]* figures without data here (reasons: .*figures.tsv):.* latency\( \|\$\)" "$1"' \
	_ "$tmp/regen-partial.log"
# A restricted plan (run-all --variants) without Morris or BFP-DUP: the Fig. 6
# figures have no RSTDV bound to draw, and gnuplot must still draw them.
copy_set restricted
for f in "$tmp"/restricted/*.csv; do
	case $f in *.latency.csv) continue ;; esac
	awk -F, 'NR == 1 || $1 == "FetchAdd" || $1 == "Serial" || $1 == "BFP-CSUP"' "$f" >"$f.tmp" &&
		mv "$f.tmp" "$f"
done
rm -rf "$tmp/restricted/figures" "$tmp/restricted/figdata"
"$plots/regen" "$tmp/restricted" >"$tmp/regen-restricted.log" 2>&1
rc=$?
check "regen_restricted_set_exits_0 (exit $rc)" test $rc -eq 0
# PYTHON_MPL=none: no PDF/SVG on purpose (the emulated machine's run-all), not
# a failure; a PYTHON_MPL that cannot import matplotlib still is one.
PYTHON_MPL=none "$plots/regen" "$tmp/restricted" >"$tmp/regen-nompl.log" 2>&1
rc=$?
check "regen_python_mpl_none_exits_0 (exit $rc)" test $rc -eq 0
check regen_python_mpl_none_says_so grep -q 'skipped PDF/SVG figures: PYTHON_MPL=none' "$tmp/regen-nompl.log"
PYTHON_MPL=/bin/false "$plots/regen" "$tmp/restricted" >/dev/null 2>&1
rc=$?
check "regen_python_mpl_broken_exits_1 (exit $rc)" test $rc -eq 1
if [ -n "$gp" ]; then
	check regen_restricted_set_draws_fig6 test -s "$tmp/restricted/figures/dice-fig6-low.png"
else
	skip regen_restricted_set_draws_fig6 "no gnuplot"
fi
# A restricted plan whose only lossy variant is Serial, which lost no update:
# both Fig. 6 figures drawn, the zero errors on 0..1% (gnuplot stopped on an
# empty y range: y_max 0).
copy_set serial0
for f in "$tmp"/serial0/*.csv; do
	case $f in *.latency.csv) continue ;; esac
	"$py" -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
c, e, v, o = (h.index(k) for k in ("counter", "rel_error", "value", "ops"))
w = csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n")
w.writerow(h)
for r in rows[1:]:
    if r[c] == "Serial" and r[e] != "":
        r[e], r[v] = "0", r[o]
    if r[c] in ("FetchAdd", "Serial"):
        w.writerow(r)' "$f" || exit 1
done
rm -rf "$tmp/serial0/figures" "$tmp/serial0/figdata"
PYTHON_MPL=none "$plots/regen" "$tmp/serial0" >"$tmp/regen-serial0.log" 2>&1
rc=$?
if [ -n "$gp" ]; then
	check "regen_serial_without_loss_draws_fig6 (exit $rc)" sh -c "test $rc -eq 0 &&
		test -s '$tmp/serial0/figures/dice-fig6-high.png' && test -s '$tmp/serial0/figures/dice-fig6-low.png'"
else
	skip regen_serial_without_loss_draws_fig6 "no gnuplot"
fi

# ---- gnuplot on a synthetic 256-PU, 4-node result set -------------------------------
"$py" "$top/tests/fixtures/synth_bigbox.py" "$tmp/big" >/dev/null 2>&1 &&
	"$py" "$plots/aggregate.py" "$tmp/big" >/dev/null 2>&1
check synthetic_bigbox_aggregates test $? -eq 0
if [ -n "$gp" ]; then
	gp_figure "$tmp/big" dice-fig4-low >/dev/null 2>&1
	check gnuplot_bigbox_256_threads test -s "$tmp/big/figures/dice-fig4-low.png"
else
	skip gnuplot_bigbox_256_threads "gnuplot not installed"
fi

tap_done
