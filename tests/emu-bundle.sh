# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2154 # me: set by the script that sources this
# tests/emu-bundle.sh - the bundle step of tests/numa-vm-check.sh, sourced
# (bash): emu_bundle_make on the host before the boot, emu_bundle_checks in
# the VM (as root, in the chroot of the host's root, after the dynamic
# build's checks: it uses their check, meta_ok and startup functions and
# their placement-spread metadata), emu_bundle_figures on the host after it.
# The bundle is used as on a NUMA box where nothing can be installed: copied
# into an empty directory of the VM's tmpfs, unpacked and run there by nobody
# with an empty environment and a PATH of base tools (no compiler, make,
# hwloc tools or gnuplot), its figures drawn afterwards on the host.

# emu_bundle_make BUILD LOG: make bundle in the built tree BUILD (its output
# appended to LOG); sets bundle_tgz to the bundle, or to "" when none could
# be made (LOG says why).
# shellcheck disable=SC2034 # bundle_tgz is numa-vm-check.sh's
emu_bundle_make() {
	bundle_tgz=""
	if (cd "$1" && make bundle) >>"$2" 2>&1; then
		bundle_tgz=$(find "$1" -maxdepth 1 -name 'scounters-bundle-*.tar.gz' | head -1)
	fi
}

# emu_bundle_checks TGZ OUT NODES NCPU RUNALL_ARGS: in the VM; the result set
# of the sweep is copied to OUT/bundle-results for emu_bundle_figures.
emu_bundle_checks() {
	local tgz=$1 o=$2 nodes=$3 ncpu=$4 args=$5 t
	bb_box=/tmp/bundle-box
	bb_name=$(basename "$tgz" .tar.gz)
	bb_dir=$bb_box/u/$bb_name
	bb_nodes=$nodes bb_ncpu=$ncpu bb_out=$o bb_args=$args
	rm -rf "$bb_box"
	mkdir -p "$bb_box/u" "$bb_box/tools"
	chmod 711 "$bb_box"
	chown nobody "$bb_box/u"
	cp "$tgz" "$bb_box/u/" && chmod 644 "$bb_box/u/$bb_name.tar.gz"
	for t in bash sh env dirname basename mktemp rm mkdir mv cat ls wc sort head tail tr cut date \
		uname nproc hostname id sed grep tar gzip python3; do
		ln -s "$(command -v "$t")" "$bb_box/tools/$t"
	done
	check "bundle: $bb_name unpacked by nobody (env -i)" bb_as tar xzf "$bb_name.tar.gz"
	check "bundle: ldd calls its scbench static" bb_static
	startup "bundle: scbench --list as nobody, env -i" bb_as "$bb_dir/harness/scbench" --list
	startup "bundle: run-all.sh --version as nobody, env -i" bb_as "$bb_dir/run-all.sh" --version
	check "bundle: scbench --placement=spread --threads=$ncpu as nobody: the dynamic build's nodes and map" \
		bb_spread
	check "bundle: run-all.sh $args as nobody, env -i" bb_runall
}
# bb_as CMD...: CMD as nobody in the bundle's directory, env -i and the base
# tools only (PYTHON_MPL=none: matplotlib takes minutes per figure under TCG;
# the host draws them, emu_bundle_figures).
bb_as() {
	(cd "$bb_box/u" && setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		env -i PATH="$bb_box/tools" PYTHON_MPL=none "$@")
}
bb_static() {
	local l
	l=$(LC_ALL=C ldd "$bb_dir/harness/scbench" 2>&1)
	echo "ldd: $l"
	case $l in *"not a dynamic executable"* | *"statically linked"*) return 0 ;; esac
	return 1
}
bb_spread() {
	local f=$bb_box/u/spread.csv dyn=$bb_out/placement-spread.csv.meta.json k
	bb_as "$bb_dir/harness/scbench" --counter=FetchAdd,RBONuma,Multiline --threads="$bb_ncpu" \
		--placement=spread --warmup=0.05 --duration=0.2 --runs=1 --output="$f" || return 1
	cp "$f.meta.json" "$bb_out/bundle-spread.csv.meta.json"
	meta_ok "$f.meta.json" spread || return 1
	grep -q "\"bundle\": \"$bb_name\"" "$f.meta.json" || { echo "$f.meta.json: no bundle"; return 1; }
	# The node ids come from the kernel, as the dynamic build's: the same
	# machine, nodes the kernel saw and placement map as its spread run.
	for k in '"topology": {"nodes": [0-9]*, "cores": [0-9]*, "pus": [0-9]*' \
		'"kernel_nodes_used": "[^"]*"' '"placement": \[.*'; do
		if ! grep -q "$k" "$dyn" || [ "$(grep -o "$k" "$f.meta.json")" != "$(grep -o "$k" "$dyn")" ]; then
			echo "differs from the dynamic build's:"
			grep -o "$k" "$f.meta.json" "$dyn"
			return 1
		fi
	done
}
bb_runall() {
	local s=$bb_box/u/set t0
	t0=$(date +%s)
	# shellcheck disable=SC2086 # bb_args is a list of options
	bb_as "$bb_dir/run-all.sh" $bb_args --order-seed=12345 --out "$s" || return 1
	echo "bundle: restricted sweep as nobody: $(($(date +%s) - t0)) s"
	grep -q "\"bundle\": \"$bb_name\"" "$s"/*.csv.meta.json || { echo "no bundle in meta.json"; return 1; }
	grep -q "\"topology\": {\"nodes\": $bb_nodes," "$s"/*.csv.meta.json || { echo "not $bb_nodes nodes"; return 1; }
	[ -s "$s/REPORT.md" ] || { echo "no REPORT.md"; return 1; }
	[ ! -e "$bb_dir/build.log" ] || { echo "the bundle built something"; return 1; }
	cp -r "$s" "$bb_out/bundle-results"
}

# emu_bundle_figures BUILD OUT LOG: on the host, after the VM: the build's
# plots/regen draws the bundle's set; PASS when its figure files are those of
# the dynamic build's set (OUT/results, drawn the same way). Prints one line;
# status 1 on a failure.
emu_bundle_figures() {
	local d=$2/bundle-results
	[ -f "$d/run-all.conf" ] || { echo "$me: FAIL: no result set of the bundle's sweep"; return 1; }
	if ! "$1/plots/regen" "$d" >"$3" 2>&1; then
		tail -20 "$3" >&2
		echo "$me: FAIL: plots/regen on the host of the bundle's set (log: $3)"
		return 1
	fi
	if [ -n "$(ls "$d/figures")" ] && [ "$(ls "$d/figures")" = "$(ls "$2/results/figures" 2>/dev/null)" ]; then
		echo "$me: PASS: the bundle's set drawn on the host: the dynamic build's $(ls "$d/figures" | wc -l) figure files"
	else
		echo "$me: FAIL: the bundle's figures differ from the dynamic build's:"
		diff <(ls "$d/figures") <(ls "$2/results/figures" 2>/dev/null) | sed 's/^/  /'
		return 1
	fi
}
