#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_hostile.sh - hostile inputs and conditions for run-all.sh and the
# plots, as TAP: a result set is data (run-all.sh --resume parses
# run-all.conf and run-all.plan, never runs them), a resumed set is checked
# part by part, stale temporary files go, failures give a non-zero exit;
# the plots refuse non-numbers and out-of-range numbers with one line
# naming file, line and column; paths holding shell metacharacters through
# every tool, a merge of one schema or nothing, the Python tools' one-line
# guard, run-all.conf held to the plan; regen without its TMPDIR and
# run-all.sh without --out's directory say so. scbench's own hostile inputs
# and CI's tally are tests/test_hostile_scbench.sh. Everything in a
# mktemp -d directory.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
PLOTPY=/usr/bin/python3
[ -x "$PLOTPY" ] || PLOTPY=$PY

# --- run-all.sh, with a stand-in scbench --------------------------------------
# The stand-in answers --list=json as scbench does, and otherwise writes a part
# (a header, one row per variant and run, a meta.json) at once; invocation
# number FAIL_AT (counted in $tmp/count) and later ones fail. A run outside
# parts/ (run-all's calibration of the external work, its machine probe) is
# neither counted nor logged: it gets one CAS row whose throughput is the
# share --work asks for.
cp "$TOP_SRCDIR/run-all.sh" "$tmp/run-all.sh"
mkdir "$tmp/harness" && cp -r "$TOP_SRCDIR/harness/runall" "$tmp/harness/" || exit 1
"$SCBENCH" --list=json >"$tmp/list" || exit 1
cat >"$tmp/stand-in" <<STANDIN
#!/bin/sh
[ "\$1" = --list=json ] && exec cat "$tmp/list"
case " \$* " in *" --output="*/parts/*) ;; *)
	w=0; for a in "\$@"; do case \$a in --work=*) w=\${a#*=} ;; --output=*) out=\${a#*=} ;; esac; done
	awk -v w="\$w" 'BEGIN { print "counter,work_pct,work_iters,ops_per_ms,busy"
		printf "CAS,%s,%g,%g,0\\n", w, 10 * w, 1000 * (1 - w / 100) }' >"\$out"
	echo '{"command_line": ["stand-in"]}' >"\$out.meta.json"
	exit 0 ;;
esac
n=\$((\$(cat "$tmp/count" 2>/dev/null || echo 0) + 1))
echo \$n >"$tmp/count"
[ -n "\${FAIL_AT:-}" ] && [ "\$n" -ge "\$FAIL_AT" ] && exit 1
runs=1; first=0
for a in "\$@"; do
	case \$a in
	--counter=*) counters=\${a#*=} ;;
	--runs=*) runs=\${a#*=} ;;
	--first-run=*) first=\${a#*=} ;;
	--output=*) out=\${a#*=} ;;
	esac
done
echo "\$out" >>"$tmp/ran"
echo "\$counters" | tr , '\n' | awk -v r="\$runs" -v f="\$first" '
	BEGIN { print "counter,threads,run,ops_per_ms" }
	{ for (i = f; i < f + r; i++) print \$1 ",1," i ",1000" }' >"\$out"
echo '{"command_line": ["stand-in"]}' >"\$out.meta.json"
case " \$* " in *" --latency "*) echo "counter,threads,run,bucket_low_ns,bucket_high_ns,count" >"\$out.latency.csv" ;; esac
STANDIN
chmod +x "$tmp/stand-in"
run_all() { SCBENCH=$tmp/stand-in "$tmp/run-all.sh" --paper-errors --max-threads 1 "$@" >/dev/null 2>"$tmp/err"; }

rs=$tmp/rs
FAIL_AT=20 run_all --order-seed 77 --out "$rs"
check stopped_set_exit_1 test $? -eq 1
check resume_hint_absolute grep -q "continue with: /.*/run-all.sh --resume $rs\$" "$tmp/err"

# 1. run-all.conf is parsed, never sourced.
cp "$rs/run-all.conf" "$tmp/conf.good"
echo "touch $tmp/pwned" >>"$rs/run-all.conf"
run_all --resume "$rs"
check conf_command_refused_exit_2 test $? -eq 2
check conf_command_not_run test ! -e "$tmp/pwned"
check conf_error_names_line grep -q "run-all.conf line $(($(wc -l <"$tmp/conf.good") + 1)): expected KEY=VALUE" "$tmp/err"
sed "s|^threads=.*|threads=\"1 \$(touch $tmp/pwned)\"|" "$tmp/conf.good" >"$rs/run-all.conf"
run_all --resume "$rs"
check conf_bad_threads_refused test $? -eq 2 -a ! -e "$tmp/pwned"
sed 's|^mode=.*|mode=\$(id)|' "$tmp/conf.good" >"$rs/run-all.conf"
run_all --resume "$rs"
check conf_bad_mode_refused grep -q "line 1: mode: expected" "$tmp/err"
cp "$tmp/conf.good" "$rs/run-all.conf"
# The plan is data too: a chunk that is a path, or an --output, is refused.
cp "$rs/run-all.plan" "$tmp/plan.good"
sed '1s|^\([^ ]*\) [^ ]*|\1 ../../escape|' "$tmp/plan.good" >"$rs/run-all.plan"
run_all --resume "$rs"
check plan_path_chunk_refused test $? -eq 2
cp "$tmp/plan.good" "$rs/run-all.plan"

# 3. A part cut short (empty; a data row without its header) runs again; the
# temporary files a SIGKILL leaves are removed.
parts=$(find "$rs/parts" -name '*.csv' | sort)
p1=$(echo "$parts" | sed -n 1p)
p2=$(echo "$parts" | sed -n 2p)
: >"$p1"
sed -n 2p "$p2" >"$p2.cut" && mv "$p2.cut" "$p2"
: >"$rs/parts/stale.csv.tmp.AbC123"
mkdir -p "$rs/figdata" && : >"$rs/dice-fig3.csv.tmp"
: >"$tmp/ran"
mkdir -p "$tmp/plots"
printf '#!/bin/sh\nexit 0\n' >"$tmp/plots/regen" && chmod +x "$tmp/plots/regen"
run_all --resume "$rs"
check resume_exit_0 test $? -eq 0
check cut_parts_run_again sh -c "grep -qx '$p1' '$tmp/ran' && grep -qx '$p2' '$tmp/ran'"
check merged_header_is_header sh -c "for f in '$rs'/*.csv; do head -1 \"\$f\" | grep -q '^counter,' || exit 1; done"
check stale_temps_removed test ! -e "$rs/parts/stale.csv.tmp.AbC123" -a ! -e "$rs/dice-fig3.csv.tmp"

# 3. plots/regen failing makes run-all.sh fail.
printf '#!/bin/sh\necho regen broke >&2\nexit 1\n' >"$tmp/plots/regen"
run_all --resume "$rs"
check regen_failure_exit_1 test $? -eq 1
rm -rf "$tmp/plots"

# 10. A huge --max-threads: one clean line.
SCBENCH=$tmp/stand-in "$tmp/run-all.sh" --max-threads 99999999999999999999 --out "$tmp/x" 2>"$tmp/err"
check max_threads_huge_exit_2 test $? -eq 2
check max_threads_huge_one_line sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q '^run-all.sh: --max-threads' '$tmp/err'"

# An empty --experiments= or --variants= (an unset shell variable)
# is refused, never "all": nothing is planned.
for opt in experiments variants; do
	for form in "--$opt=" "--$opt "; do
		# shellcheck disable=SC2086 # "--opt " splits into the option and an empty value
		SCBENCH=$tmp/stand-in "$tmp/run-all.sh" $form"" --out "$tmp/empty-list" >/dev/null 2>"$tmp/err"
		check "empty_${opt}_refused (${form})" sh -c "test $? -eq 2 &&
			grep -q '^run-all.sh: --$opt is empty' '$tmp/err' && test ! -e '$tmp/empty-list'"
	done
done

# --- the plots: numbers read back are checked; one-line errors ----------------
fixture=$TOP_SRCDIR/tests/fixtures/results-small
agg() { "$PLOTPY" "$TOP_SRCDIR/plots/aggregate.py" "$@" >/dev/null 2>"$tmp/err"; }
one_line() { test "$(wc -l <"$tmp/err")" -eq 1 && ! grep -q Traceback "$tmp/err"; }
# fresh_set NAME: a copy of the fixture in $tmp/NAME.
fresh_set() { rm -rf "${tmp:?}/$1"; cp -r "$fixture" "$tmp/$1"; }
# 2. Non-finite and out-of-range numbers: refused with file, line and column.
# set_field NAME FILE LINE COLUMN VALUE: the field of that column on that line.
set_field() {
	awk -F, -v OFS=, -v l="$3" -v c="$4" -v v="$5" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i }
		NR == l { $k = v } { print }' "$tmp/$1/$2" >"$tmp/$1/$2.new" && mv "$tmp/$1/$2.new" "$tmp/$1/$2"
}
for bad in "ops_per_ms inf" "ops_per_ms nan" "ops_per_ms -5" "threads nan" "threads 0" \
	"threads -2" "threads 1.5" "seconds -1e300" "rel_error 1e999"; do
	set -- $bad
	fresh_set bad
	set_field bad dice-fig4-high.csv 3 "$1" "$2"
	agg "$tmp/bad"
	check "number_refused_${1}_$2" sh -c "test $? -eq 1 && grep -q 'dice-fig4-high.csv line 3 column $1: ' '$tmp/err'"
	check "number_refused_${1}_${2}_one_line" one_line
done
fresh_set good
agg "$tmp/good"
check fixture_still_aggregates test $? -eq 0

# 5. Not UTF-8, a field over 1 MiB, a meta.json of the wrong type, a file that
# cannot be read: one line, no traceback.
fresh_set enc
printf 'Serial\377,precise\n' >>"$tmp/enc/dice-fig3.csv"
agg "$tmp/enc"
check non_utf8_one_line sh -c "test $? -eq 1 && grep -q 'dice-fig3.csv: not UTF-8' '$tmp/err'"
fresh_set huge
"$PY" -c 'print("Serial," + "x" * 2000000)' >>"$tmp/huge/dice-fig3.csv"
agg "$tmp/huge"
check huge_field_one_line sh -c "test $? -eq 1 && grep -q 'dice-fig3.csv: not a CSV file' '$tmp/err'"
fresh_set json
echo '[1, 2]' >"$tmp/json/dice-fig3.csv.meta.json"
echo '{"topology": "x", "command_line": 5, "schema_version": "7"}' >"$tmp/json/ayers.csv.meta.json"
agg "$tmp/json"
check meta_wrong_type_no_traceback sh -c "test $? -eq 0 && ! grep -q Traceback '$tmp/err'"
echo '"a string"' >"$tmp/json/figdata/claims.json"
"$PLOTPY" "$TOP_SRCDIR/plots/report.py" "$tmp/json" >/dev/null 2>"$tmp/err"
check report_claims_wrong_type_one_line sh -c "test $? -eq 1 && ! grep -q Traceback '$tmp/err'"
if [ "$(id -u)" -ne 0 ]; then
	fresh_set perm
	chmod 000 "$tmp/perm/dice-fig3.csv"
	agg "$tmp/perm"
	check unreadable_csv_one_line sh -c "test $? -eq 1 && grep -q 'dice-fig3.csv: ' '$tmp/err'"
	chmod 644 "$tmp/perm/dice-fig3.csv"
else
	# As root every file is readable: a CSV that is a directory fails to open instead.
	fresh_set perm
	mkdir "$tmp/perm/dice-fig3.csv.meta.json.d"
	rm "$tmp/perm/dice-fig3.csv.meta.json" && mkdir "$tmp/perm/dice-fig3.csv.meta.json"
	agg "$tmp/perm"
	check unreadable_meta_no_traceback sh -c "test $? -eq 0 && ! grep -q Traceback '$tmp/err'"
fi
# figdata/ that cannot be written: one line, status 1.
fresh_set ro
: >"$tmp/ro/figdata"
agg "$tmp/ro"
check unwritable_figdata_one_line sh -c "test $? -eq 1 && grep -q 'figdata' '$tmp/err'"
check unwritable_figdata_one_line_only one_line
# compare --out an existing file: refused, the file untouched.
echo keep >"$tmp/file"
"$PLOTPY" "$TOP_SRCDIR/plots/compare.py" --no-figures --out "$tmp/file" "$fixture" "$fixture" \
	>/dev/null 2>"$tmp/err"
check compare_out_file_refused sh -c "test $? -eq 2 && grep -qx keep '$tmp/file'"
check compare_out_file_one_line one_line
# A directory that is no result set: nothing written into it.
mkdir "$tmp/notrs"
agg "$tmp/notrs"
check aggregate_refuses_non_result_set sh -c "test $? -eq 2 && test ! -e '$tmp/notrs/figdata'"
"$TOP_SRCDIR/plots/regen" "$tmp/notrs" >/dev/null 2>"$tmp/err"
check regen_refuses_non_result_set sh -c "test $? -eq 2 && test -z \"\$(ls -A '$tmp/notrs')\""

# 3, 7. The aggregator's old .dat files stay until the new ones are written;
# a replaced file keeps its mode; a temporary file a SIGKILL left goes.
fresh_set keep
agg "$tmp/keep"
chmod 600 "$tmp/keep/figdata/claims.json"
: >"$tmp/keep/figdata/claims.json.tmp.Zz9Zz9"
ls "$tmp/keep/figdata" | grep '\.dat$' >"$tmp/dats"
set_field keep dice-fig5.csv 2 threads nan
agg "$tmp/keep"
check failed_aggregate_keeps_dat sh -c "cd '$tmp/keep/figdata' && test -s '$tmp/dats' && xargs ls <'$tmp/dats' >/dev/null"
cp "$fixture/dice-fig5.csv" "$tmp/keep/dice-fig5.csv"
agg "$tmp/keep"
check replaced_file_keeps_mode test "$(stat -c %a "$tmp/keep/figdata/claims.json")" = 600
check stale_python_temp_removed test ! -e "$tmp/keep/figdata/claims.json.tmp.Zz9Zz9"

# --- one line and status 1 for what a tool did not expect ----------------------
# Every Python entry point runs under one guard (harness/runall/guard.py): a
# fault injected into each (SCOUNTERS_FAULT=its name) is one line and status 1;
# SCOUNTERS_DEBUG=1 shows the traceback.
ref=$TOP_SRCDIR/results/reference/kvm-epyc-2pu
fresh_set guard
for t in "aggregate.py aggregate.py" "report.py report.py" "compare.py plots/compare" \
	"atlas.py plots/atlas" "mpl_figures.py mpl_figures.py" "style.py style.py" \
	"gpvars.py gpvars.py"; do
	set -- $t
	SCOUNTERS_FAULT=$2 "$PLOTPY" "$TOP_SRCDIR/plots/$1" "$tmp/guard" "$tmp/guard" \
		>/dev/null 2>"$tmp/err"
	check "guard_${1%.py}_one_line" sh -c "test $? -eq 1 && grep -q '^$2: internal error: InjectedFault' '$tmp/err'"
	check "guard_${1%.py}_no_traceback" one_line
done
SCOUNTERS_FAULT=run-all.sh run_all --resume "$rs"
check guard_run_all_one_line sh -c "test $? -eq 1 && grep -q 'internal error: InjectedFault' '$tmp/err'"
check guard_run_all_no_traceback one_line
SCOUNTERS_DEBUG=1 SCOUNTERS_FAULT=aggregate.py agg "$tmp/guard"
check guard_debug_traceback grep -q '^Traceback' "$tmp/err"
# 3. A CSV without a column every result CSV has: one line naming it, status 1.
for c in threads work_pct counters ops; do
	fresh_set col
	awk -F, -v OFS=, -v c="$c" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i }
		{ $k = ""; sub(/,,/, ","); sub(/,$/, ""); print }' "$fixture/dice-fig5.csv" >"$tmp/col/dice-fig5.csv"
	agg "$tmp/col"
	check "no_column_${c}_aggregate" sh -c "test $? -eq 1 && grep -q 'dice-fig5.csv: no column $c' '$tmp/err'"
	"$PLOTPY" "$TOP_SRCDIR/plots/compare.py" --no-figures --out "$tmp/col-cmp" "$fixture" "$tmp/col" \
		>/dev/null 2>"$tmp/err"
	check "no_column_${c}_compare" sh -c "test $? -eq 1 && grep -q 'dice-fig5.csv: no column $c' '$tmp/err'"
done
# (the atlas needs the reference set, which a dist tarball does not carry)
if [ -f "$ref/dice-fig5.csv" ]; then
	rm -rf "$tmp/refcol" && cp -r "$ref" "$tmp/refcol"
	awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "counters") k = i }
		{ $k = ""; sub(/,,/, ","); print }' "$ref/dice-fig5.csv" >"$tmp/refcol/dice-fig5.csv"
	"$PLOTPY" "$TOP_SRCDIR/plots/atlas.py" --no-figures --out "$tmp/col-atlas" "$ref" "$tmp/refcol" \
		>/dev/null 2>"$tmp/err"
	check no_column_atlas sh -c "test $? -eq 1 && grep -q 'dice-fig5.csv: no column counters' '$tmp/err'"
else
	skip no_column_atlas "no reference set in this tree (a dist tarball)"
fi
# 3. failed-points.csv not UTF-8: the report says so.
fresh_set fp
agg "$tmp/fp"
printf 'experiment,part,args,reason\ndice-fig5,t1,x,\377\376\n' >"$tmp/fp/failed-points.csv"
"$PLOTPY" "$TOP_SRCDIR/plots/report.py" "$tmp/fp" >/dev/null 2>"$tmp/err"
check report_failed_points_not_utf8 sh -c "test $? -eq 0 && grep -q 'failed-points.csv is not UTF-8 text' '$tmp/fp/REPORT.md'"

# --- no path reaches a shell ---------------------------------------------------
# Result sets whose paths hold ' " $() backquotes, spaces, a newline and a
# leading dash, through plots/regen, run-all.sh (a run, --merge-only and their
# regeneration), plots/compare and plots/atlas, all run in $tmp/meta: a command
# of a path that ran would leave a file pwned* there. The outputs are those of
# the same work on plain paths.
meta=$tmp/meta
mkdir "$meta" && ln -s "$TOP_SRCDIR/plots" "$tmp/plots" || exit 1
nl='
'
odd="-s '\$(touch pwned1)' \"\`touch pwned2\`\" \$(touch pwned3)${nl}\`touch pwned4\`"
cp -r -- "$fixture" "$meta/$odd" && cp -r "$fixture" "$tmp/plain" || exit 1
(cd "$meta" && PYTHON_MPL=none "$TOP_SRCDIR/plots/regen" "$odd" >/dev/null 2>"$tmp/err")
check odd_regen_exit_0 test $? -eq 0
PYTHON_MPL=none "$TOP_SRCDIR/plots/regen" "$tmp/plain" >/dev/null 2>&1
check odd_regen_same_figures sh -c "cd '$tmp/plain' && ls figdata/*.dat figures/*.png >'$tmp/made' &&
	test \$(grep -c png '$tmp/made') -eq \$(grep -c '	ok	' figdata/figures.tsv) &&
	while read -r f; do cmp -s \"\$f\" \"\$0/\$f\" || exit 1; done <'$tmp/made'" "$meta/$odd"
check odd_regen_report test -s "$meta/$odd/REPORT.md"
# run-all.sh: a run (with its merge and regen), then --merge-only, with the fake scbench.
cp "$TOP_SRCDIR/tests/fake-scbench.sh" "$tmp/fake" && chmod +x "$tmp/fake" || exit 1
fake_run() {
	(cd "$meta" && FAKE_LIST=$tmp/list FAKE_LOG=$tmp/fake.log SCBENCH=$tmp/fake PYTHON_MPL=none \
		"$tmp/run-all.sh" --quick --max-threads 1 "$@" >/dev/null 2>"$tmp/err")
}
small="--experiments=dice-fig5 --variants=CAS,FetchAdd --order-seed=5"
fake_run $small "--out=$odd.run"
check odd_run_all_exit_0 test $? -eq 0
fake_run $small --out="$tmp/plain.run"
check odd_run_all_same_csv cmp -s "$tmp/plain.run/dice-fig5.csv" "$meta/$odd.run/dice-fig5.csv"
check odd_run_all_figure test -s "$meta/$odd.run/figures/dice-fig5.png"
rm "$meta/$odd.run/dice-fig5.csv" "$meta/$odd.run/REPORT.md"
fake_run --resume="$odd.run" --merge-only
check odd_merge_only_exit_0 test $? -eq 0
check odd_merge_only_same_csv cmp -s "$tmp/plain.run/dice-fig5.csv" "$meta/$odd.run/dice-fig5.csv"
check odd_merge_only_report test -s "$meta/$odd.run/REPORT.md"
# compare and atlas, their --out too.
(cd "$meta" && "$TOP_SRCDIR/plots/compare" --out "$odd.cmp" -- "$odd.run" "$tmp/plain.run" \
	>/dev/null 2>"$tmp/err")
check odd_compare_exit_0 sh -c "test $? -eq 0 && test -s \"\$0/compare.csv\" && test -s \"\$0/COMPARE.md\"" "$meta/$odd.cmp"
if [ -f "$ref/dice-fig5.csv" ]; then
	cp -r -- "$ref" "$meta/$odd.ref" && sed -i 's/"host": "vm"/"host": "other"/' -- "$meta/$odd.ref"/*.meta.json
	(cd "$meta" && "$PLOTPY" "$TOP_SRCDIR/plots/atlas.py" --no-figures --out "$odd.atlas" -- "$ref" "$odd.ref" \
		>/dev/null 2>"$tmp/err")
	check odd_atlas_exit_0 sh -c "test $? -eq 0 && grep -q 'other' \"\$0/ATLAS.md\"" "$meta/$odd.atlas"
else
	skip odd_atlas_exit_0 "no reference set in this tree (a dist tarball)"
fi
check odd_nothing_ran test -z "$(find "$tmp" -name 'pwned*')"
rm -f "$tmp/plots"

# --- a merge is all of one schema or nothing ------------------------------------
# A part with two columns swapped, another schema_version or source_revision,
# another point's rows or a field over csv's 128 KiB: --merge-only names the
# part, exits 1 and leaves the set as it was (every file, byte for byte).
fake_run --order-seed=5 --experiments=dice-fig5,latency --variants=CAS,FetchAdd,Serial --out="$tmp/m0"
check merge_base_exit_0 test $? -eq 0
p_cas=parts/dice-fig5/t1-CAS-r0.csv
p_fa=parts/dice-fig5/t1-FetchAdd-r0.csv
snapshot() { (cd "$1" && find . -type f ! -path './logs/*' ! -name 'run-all.lock*' | LC_ALL=C sort | xargs cksum); }
# damage NAME WHAT: a copy of the set, then the part changed by WHAT (run in it).
damage() {
	rm -rf "${tmp:?}/$1" && cp -r "$tmp/m0" "$tmp/$1" && (cd "$tmp/$1" && eval "$2") &&
		snapshot "$tmp/$1" >"$tmp/$1.before"
}
merge_refused() { # NAME PART TEXT: exit 1, the part and TEXT named, nothing changed
	fake_run --resume="$tmp/$1" --merge-only
	check "merge_refused_$1" sh -c "test $? -eq 1 && grep -q '$2.*$3' '$tmp/err'"
	check "merge_refused_${1}_set_unchanged" sh -c "snapshot() { $(declare -f snapshot | sed 1,2d | sed '$d'); }
		snapshot '$tmp/$1' | cmp -s - '$tmp/$1.before'"
}
damage swapped "awk -F, -v OFS=, '{ t = \$3; \$3 = \$4; \$4 = t; print }' $p_cas >x && mv x $p_cas"
merge_refused swapped "$p_cas" "header differs from parts/dice-fig5/t1-[A-Za-z]*-r0.csv.s at column 3 (run, not threads)"
damage schema "sed -i 's/^{/{\"schema_version\": 9,/' $p_fa.meta.json"
merge_refused schema "$p_fa" 'schema_version 9'
damage revision "sed -i 's/^{/{\"source_revision\": \"abc1234\",/' $p_cas.meta.json"
merge_refused revision "$p_cas" 'source_revision "abc1234"'
damage other_point "sed 's/^FetchAdd,/CAS,/' $p_fa >x && mv x $p_fa"
merge_refused other_point "$p_fa" 'a row of another point (counter CAS'
damage huge_field "$PY -c 'import sys; t = open(sys.argv[1]).read(); open(sys.argv[1], \"w\").write(t.replace(\"fake, a\", \"x\" * 140000, 1))' $p_cas"
fake_run --resume="$tmp/huge_field" --merge-only   # (read with no field limit)
check merge_huge_field_merged sh -c "test $? -eq 0 && grep -q xxxxxxxxxx '$tmp/huge_field/dice-fig5.csv'"

# --resume and --merge-only check run-all.conf against the plan,
# and each part's recorded command line against its plan line.
conf_refused() { # NAME SED TEXT: run-all.conf edited by SED: both refused, TEXT said
	damage "$1" "sed -i '$2' run-all.conf"
	fake_run --resume="$tmp/$1" --merge-only
	check "conf_refused_merge_$1" sh -c "test $? -eq 2 && grep -q '$3' '$tmp/err'"
	fake_run --resume="$tmp/$1"
	check "conf_refused_resume_$1" sh -c "test $? -eq 2 && grep -q '$3' '$tmp/err'"
	check "conf_refused_${1}_set_unchanged" sh -c "snapshot() { $(declare -f snapshot | sed 1,2d | sed '$d'); }
		snapshot '$tmp/$1' | cmp -s - '$tmp/$1.before'"
}
conf_refused conf_mode 's/^mode=.*/mode=paper/' 'not mode paper.s 2 and 8'
conf_refused conf_variants 's/^variants=.*/variants=CAS,Bogus/' 'variants=CAS,Bogus, but run-all.plan runs no Bogus'
conf_refused conf_fewer_variants 's/^variants=.*/variants=CAS/' 'runs FetchAdd too'
conf_refused conf_experiments 's/^experiments=.*/experiments=dice-fig5,ayers/' 'runs no ayers'
conf_refused conf_threads 's/^threads=.*/threads="1 2"/' 'runs at most 1 threads'
damage part_cmd "sed -i 's/--duration=0.2/--duration=8/' $p_cas.meta.json"
merge_refused part_cmd "$p_cas" 'made by scbench .*--duration=8'


# --- messages of the tools around scbench -------------------------------------
# regen without its TMPDIR says so; run-all.sh --out= (an unset variable) is refused.
fresh_set notmp
agg "$tmp/notmp"
TMPDIR=$tmp/no-such-dir PYTHON_MPL=none "$TOP_SRCDIR/plots/regen" "$tmp/notmp" >/dev/null 2>"$tmp/err"
check regen_missing_tmpdir_said sh -c "test $? -eq 1 && grep -q 'cannot create a temporary directory in $tmp/no-such-dir' '$tmp/err' &&
	! grep -q 'gnuplot failed' '$tmp/err'"
SCBENCH=$tmp/stand-in "$tmp/run-all.sh" --out= 2>"$tmp/err"
check run_all_empty_out_refused sh -c "test $? -eq 2 && grep -q -- '--out needs a directory' '$tmp/err'"
tap_done
