#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# test_bundle.sh - make bundle, used as it will be used, as TAP: the bundle
# (scounters-bundle-VERSION-ARCH.tar.gz) is made in the build tree, copied
# into an empty directory and unpacked there by an unprivileged user (nobody,
# when the test runs as root; without root the privilege drop is skipped and
# said), who runs it with an empty environment (env -i) and a PATH of a few
# base tools (a shell, coreutils, sed, grep, tar, gzip, python3: no compiler,
# make, pkg-config, hwloc tools or gnuplot, nothing of the build tree):
# ldd calls its scbench static; scbench --version names the bundle and what
# was left out of it; a restricted run-all.sh sweep finishes there without
# installing or building anything, its meta.json says the bundle and the
# static linkage, and the PNG figures it could not draw (no gnuplot) are
# drawn afterwards by the build tree's plots/regen, which then gives the same
# figure files as a normal run of the same plan by the dynamic scbench. The
# sweep's Slurm mode runs from the unpacked bundle too (fake sbatch; the
# array's tasks and the merge job run as a node would run them). When the
# build cannot make a bundle (configure said why: no static C library, or
# --disable-static), every check is a SKIP with that reason.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
: "${TOP_SRCDIR:?TOP_SRCDIR must name the source tree}"
: "${TOP_BUILDDIR:?TOP_BUILDDIR must name the build tree}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"

name=${SC_BUNDLE_NAME:-}
if [ -n "${SC_BUNDLE_UNAVAILABLE:-}" ] || [ -z "$name" ]; then
	skip bundle "no bundle can be made here: ${SC_BUNDLE_UNAVAILABLE:-the build does not name one}"
	tap_done
	exit
fi

# The user, and how to become them: nobody when root (setpriv, else runuser).
as=()
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	if command -v setpriv >/dev/null 2>&1; then
		as=(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups)
	elif command -v runuser >/dev/null 2>&1; then
		as=(runuser -u nobody --)
	fi
fi
# Precise variants only: with Serial, a quick run that lost no update has an
# all-zero dice-fig6-high, which gnuplot cannot draw (plots/regen fails).
plan=(--quick --max-threads=2 --experiments=dice-fig4-high,latency --variants=FetchAdd,Multiline --order-seed=7)

make -C "$TOP_BUILDDIR" bundle >"$tmp/make.log" 2>&1
check bundle_made test $? -eq 0 -a -f "$TOP_BUILDDIR/$name.tar.gz"
[ -f "$TOP_BUILDDIR/$name.tar.gz" ] || { sed 's/^/# /' "$tmp/make.log"; tap_done; exit; }
tar tzf "$TOP_BUILDDIR/$name.tar.gz" >"$tmp/list" 2>/dev/null
check one_top_directory sh -c "! grep -v '^$name/' '$tmp/list'"
check holds_what_runs sh -c "for f in run-all.sh harness/scbench harness/BUNDLE harness/runall/__main__.py \
	harness/version.sh plots/regen plots/report.py README.md doc/running.md results/; do
	grep -qx '$name/'\"\$f\" '$tmp/list' || { echo \"# \$f missing\"; exit 1; }; done"
check nothing_of_a_build sh -c "! grep -E '\\.(o|la|lo|c|h|in|ac|am)\$|/Makefile|/configure\$|/deps\\.sh\$' '$tmp/list'"

# The user's directory (only it is theirs; $tmp is passed through), the
# bundle copied in, and the tools a box with nothing installed still has.
chmod 711 "$tmp"
mkdir "$tmp/box" "$tmp/tools"
cp "$TOP_BUILDDIR/$name.tar.gz" "$tmp/box/" && chmod 644 "$tmp/box/$name.tar.gz"
for t in bash sh env dirname basename mktemp rm mkdir mv cat ls wc sort head tail tr cut date uname \
	nproc hostname id sed grep tar gzip python3; do
	p=$(command -v "$t") && ln -s "$p" "$tmp/tools/$t"
done
if [ ${#as[@]} -gt 0 ]; then
	chown nobody "$tmp/box"
	ok "the user: nobody (${as[0]})"
else
	skip "the user: nobody" "not root ($(id -un)): the bundle runs as this user, unprivileged or not"
fi
box() { (cd "$tmp/box" && "${as[@]}" env -i PATH="$tmp/tools" "$@"); }
b=$tmp/box/$name

box tar xzf "$name.tar.gz" >"$tmp/tar.err" 2>&1
check unpacked_by_the_user sh -c "test -x '$b/run-all.sh' && test -x '$b/harness/scbench' &&
	test \"\$(stat -c %U '$b/run-all.sh')\" = '$(if [ ${#as[@]} -gt 0 ]; then echo nobody; else id -un; fi)'"
LC_ALL=C ldd "$b/harness/scbench" >"$tmp/ldd" 2>&1
check ldd_says_static grep -Eq 'not a dynamic executable|statically linked' "$tmp/ldd"
t0=$(date +%s%N)
box "$b/harness/scbench" --version >"$tmp/version" 2>&1
t1=$(date +%s%N)
echo "# start-up: scbench --version as $(if [ ${#as[@]} -gt 0 ]; then echo nobody; else id -un; fi), env -i: $(((t1 - t0) / 1000000)) ms"
check version_names_bundle grep -q "; $name, static; left out: " "$tmp/version"
box "$b/run-all.sh" --version >"$tmp/rversion" 2>&1
check runall_version grep -Eq '^run-all.sh \(scounters\) [0-9]+\.[0-9]+\.[0-9]+' "$tmp/rversion"

# The restricted sweep, as the user, with nothing installed.
t0=$(date +%s%N)
box "$b/run-all.sh" "${plan[@]}" --out "$tmp/box/set" >"$tmp/run.out" 2>"$tmp/run.err"
st=$?
t1=$(date +%s%N)
echo "# the restricted sweep from the bundle: $(((t1 - t0) / 1000000)) ms (exit $st)"
check sweep_exit_0 test "$st" -eq 0
[ "$st" -eq 0 ] || sed 's/^/# /' "$tmp/run.err" | tail -20
check installed_and_built_nothing sh -c "test ! -e '$b/build.log' && ! grep -q 'building scbench\|deps.sh\|missing build' '$tmp/run.err'"
check says_draw_later grep -q 'gnuplot not found.*later.*plots/regen DIR' "$tmp/run.err"
check meta_says_bundle sh -c "for m in '$tmp/box/set'/*.csv.meta.json; do
	grep -q '\"bundle\": \"$name\"' \"\$m\" && grep -q '\"build_linkage\": \"static; left out: ' \"\$m\" || exit 1; done"
check meta_binary_is_bundles grep -q "\"binary\": \"$b/harness/scbench\"" "$tmp/box/set/dice-fig4-high.csv.meta.json"
check report_written test -s "$tmp/box/set/REPORT.md"
check no_png_without_gnuplot sh -c "! ls '$tmp/box/set/figures/'*.png 2>/dev/null"

# Afterwards on the build machine: plots/regen of the build tree draws what
# was missing; the same plan run normally (the dynamic scbench) gives the
# same figure files.
"$TOP_SRCDIR/plots/regen" "$tmp/box/set" >"$tmp/regen.log" 2>&1
check regen_afterwards test $? -eq 0 || tail -5 "$tmp/regen.log" | sed 's/^/# /'
SCBENCH=$SCBENCH "$TOP_SRCDIR/run-all.sh" "${plan[@]}" --out "$tmp/normal" >"$tmp/normal.out" 2>&1
check normal_run_exit_0 test $? -eq 0 || tail -5 "$tmp/normal.out" | sed 's/^/# /'
(cd "$tmp/box/set/figures" && ls) >"$tmp/figs.bundle"
(cd "$tmp/normal/figures" && ls) >"$tmp/figs.normal"
check same_figure_files sh -c "test -s '$tmp/figs.normal' && cmp -s '$tmp/figs.bundle' '$tmp/figs.normal'"
check same_plan cmp -s "$tmp/box/set/run-all.plan" "$tmp/normal/run-all.plan"

# Slurm from the unpacked bundle on a shared file system: submitted with a
# fake sbatch; each array task and the merge job run as a node runs them
# (its own environment: env -i, the task id), the bundle's scbench in each.
cat >"$tmp/tools/sbatch" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/box/sbatch.log"
echo "\$(( \$(wc -l <"$tmp/box/sbatch.log") + 100 ))"
EOF
chmod 755 "$tmp/tools/sbatch"
splan=(--quick --max-threads=2 --experiments=latency --variants=FetchAdd --order-seed=7)
box "$b/run-all.sh" --slurm --slurm-tasks=2 "${splan[@]}" --out "$tmp/box/sset" >"$tmp/slurm.out" 2>&1
check slurm_submitted sh -c "test \$(wc -l <'$tmp/box/sbatch.log') -eq 2 && test -x '$tmp/box/sset/slurm/shard.sh'"
for i in 0 1; do
	box SLURM_ARRAY_TASK_ID=$i bash "$tmp/box/sset/slurm/shard.sh" >"$tmp/shard$i.log" 2>&1
	check "slurm_shard_$i" test $? -eq 0
done
# (the merge job's figures: matplotlib's were checked above)
box PYTHON_MPL=none bash "$tmp/box/sset/slurm/merge.sh" >"$tmp/merge.log" 2>&1
check slurm_merged sh -c "test -s '$tmp/box/sset/REPORT.md' &&
	grep -q '\"bundle\": \"$name\"' '$tmp/box/sset/latency.csv.meta.json'"
# Every FetchAdd row of the local sweep's latency experiment, once.
csvawk 'FNR > 1 && $col("counter") == "FetchAdd" { n++ } END { print n + 0 }' "$tmp/box/set/latency.csv" >"$tmp/n.local"
csvawk 'FNR > 1 { n++ } END { print n + 0 }' "$tmp/box/sset/latency.csv" >"$tmp/n.slurm"
check slurm_same_rows sh -c "test \$(cat '$tmp/n.local') -gt 0 && cmp -s '$tmp/n.local' '$tmp/n.slurm'"
tap_done
