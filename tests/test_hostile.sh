#!/usr/bin/env bash
# test_hostile.sh - hostile inputs and conditions (issue 20), as TAP: a result
# set is data (run-all.sh --resume parses run-all.conf and run-all.plan, never
# runs them), a resumed set is checked part by part, stale temporary files
# go, failures give a non-zero exit; the plots refuse non-numbers and
# out-of-range numbers with one line naming file, line and column; scbench's
# strict parsing, early output checks, kept file mode, write errors of --list
# and --help, and signals during start-up. Everything in a mktemp -d directory.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
PLOTPY=/usr/bin/python3
[ -x "$PLOTPY" ] || PLOTPY=$PY

# --- run-all.sh, with a stand-in scbench --------------------------------------
# The stand-in answers --list as scbench does, and otherwise writes a part
# (a header, one row per variant and run, a meta.json) at once; invocation
# number FAIL_AT (counted in $tmp/count) and later ones fail.
cp "$TOP_SRCDIR/run-all.sh" "$tmp/run-all.sh"
"$SCBENCH" --list >"$tmp/list" || exit 1
cat >"$tmp/stand-in" <<STANDIN
#!/bin/sh
[ "\$1" = --list ] && exec cat "$tmp/list"
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
check conf_error_names_line grep -q "run-all.conf line 4: expected KEY=VALUE" "$tmp/err"
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
tap_done
