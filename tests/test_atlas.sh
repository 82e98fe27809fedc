#!/bin/sh
# SPDX-License-Identifier: MIT
# test_atlas.sh - plots/atlas (doc/figures.md "An atlas across machines"), as TAP: an atlas
# of two machines, the committed reference set (2 PUs; in a tree without it, the
# fixture results-small given a cpu record and a default mode) and the synthetic 256-PU, 4-node set
# of tests/fixtures/synth_bigbox.py given a cpu record of its own. Checked: the
# sections; each machine's provenance row; every scenario's winner against the
# set's own REPORT.md (plots/report.py) and one winner the synthetic data is built
# to give; a normalised value recomputed here from the raw CSV; every claim's
# verdict against the set's claims.json (plots/aggregate.py) and one known cell;
# the unmatched points; the figures; that nothing is written into a set. Refused,
# with exit 2 and one line: a set without provenance (schema 1: no cpu record;
# a meta.json without its kernel), a bad count in a meta.json, --out inside a
# result set, the same machine twice in one mode (allowed in two modes, labelled
# by mode). Deterministic: fixed data, no timing.
set -u
top=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
atlas=$top/plots/atlas
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
py=/usr/bin/python3
command -v "$py" >/dev/null 2>&1 || py=$PY
mpl=""
for c in "${PYTHON_MPL:-}" /usr/bin/python3 python3; do
	if [ -n "$c" ] && command -v "$c" >/dev/null 2>&1 && "$c" -c 'import matplotlib' 2>/dev/null; then
		mpl=$c; break
	fi
done

# with_cpu DIR MODEL SOCKETS CORES PUS: give every meta.json of DIR a cpu record (schema 2).
with_cpu() {
	"$py" -c 'import glob, json, sys
d, model, sockets, cores, pus = sys.argv[1:]
for p in glob.glob(d + "/*.meta.json"):
    m = json.load(open(p))
    m["schema_version"] = max(2, m.get("schema_version", 1))
    m["cpu"] = {"model": model, "vendor": "test", "sockets": int(sockets), "cores": int(cores),
                "pus": int(pus), "smt": "unknown", "governor": "unknown", "boost": "unknown",
                "min_mhz": "unknown", "max_mhz": "unknown"}
    json.dump(m, open(p, "w"))' "$@"
}
# copy_set SRC NAME: the CSVs, metadata and run-all.conf of SRC (no figures, no report).
copy_set() {
	mkdir "$tmp/$2" && cp "$1"/*.csv "$1"/*.meta.json "$tmp/$2/" &&
		{ [ ! -f "$1/run-all.conf" ] || cp "$1/run-all.conf" "$tmp/$2/"; } && chmod u+w "$tmp/$2"/*
}
ref=$top/results/reference/kvm-epyc-2pu
small=$top/tests/fixtures/results-small
if [ -f "$ref/dice-fig4-high.csv" ]; then
	copy_set "$ref" a
	echo "# machine A: a copy of $ref"
else
	copy_set "$small" a
	echo "mode=default" >"$tmp/a/run-all.conf"   # as the reference: a default-mode set
	echo "# machine A: a copy of $small (no reference set in this tree)"
fi
# A known cpu record, whichever machine the copy came from.
with_cpu "$tmp/a" "AMD EPYC" 1 2 2
"$py" "$top/tests/fixtures/synth_bigbox.py" "$tmp/b" >/dev/null
rm -f "$tmp/b/expected-verdicts.txt"
with_cpu "$tmp/b" "SPARC T2 Plus (synthetic)" 4 32 256
listing() { (cd "$1" && find . | LC_ALL=C sort); }
listing "$tmp/a" >"$tmp/a.before"
listing "$tmp/b" >"$tmp/b.before"

# ---- the atlas of the two machines ----------------------------------------------
"$atlas" "$tmp/a" "$tmp/b" --out "$tmp/out" >"$tmp/out.log" 2>"$tmp/out.err"
rc=$?
check "atlas_exits_0 (exit $rc)" test $rc -eq 0
check atlas_quiet_stderr test ! -s "$tmp/out.err"
md=$tmp/out/ATLAS.md
check atlas_sections sh -c "grep -qx '## The machines' '$md' &&
	grep -qx '## Which counter to use, per machine' '$md' &&
	grep -qx '## Throughput normalised to FetchAdd, per machine' '$md' &&
	grep -qx '## Which paper claims hold on which machine' '$md' &&
	grep -qx '## Points that cannot be matched' '$md'"
check machines_provenance sh -c "grep -q '^| \*\*vm\*\* | .* | AMD EPYC | 1 / 2 / 2 | 1 NUMA node | ' '$md' &&
	grep -q '^| \*\*t5440-synthetic\*\* | .* | SPARC T2 Plus (synthetic) | 4 / 32 / 256 | 4 NUMA nodes | synthetic | ' '$md'"
check matched_by_fraction grep -q 'the machines differ in PUs (vm 2, t5440-synthetic 256)' "$md"

# Each set's own report (aggregate.py and report.py on the copy), to check the atlas
# against: the winners and verdicts must be the report's, not judged anew.
for s in a b; do
	"$py" "$top/plots/aggregate.py" "$tmp/$s" >/dev/null 2>&1 &&
		"$py" "$top/plots/report.py" "$tmp/$s" >/dev/null 2>&1
done
# atlas_check.py WHAT ATLAS.md ...: the checks that read ATLAS.md's tables.
cat >"$tmp/atlas_check.py" <<'EOF'
import csv, json, re, statistics, sys
what, md = sys.argv[1], open(sys.argv[2]).read()

def cells(line):
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]

def section(title):
    return md.split("\n" + title + "\n", 1)[1].split("\n## ", 1)[0]

if what == "winners":      # every scenario's best on each machine, as REPORT.md names it
    bad = []
    for col, d in ((1, sys.argv[3]), (2, sys.argv[4])):
        rep = open(d + "/REPORT.md").read().split("## Which counter to use on this machine", 1)[1]
        best = {}
        for line in rep.splitlines():
            c = cells(line) if line.startswith("| ") else []
            if len(c) == 5 and c[0] not in ("Scenario", "---"):
                m = re.search(r"\*\*([^*]+)\*\*:", c[1])
                best[c[0]] = m.group(1) if m else "-"
        rows = [cells(l) for l in section("## Which counter to use, per machine").splitlines()
                if l.startswith("| ") and not l.startswith("| Scenario")]
        for r in rows:
            m = re.match(r"\*\*([^*]+)\*\*", r[col])
            got = m.group(1) if m else "-"
            if best.get(r[0]) != got:
                bad.append("%s: atlas %s, report %s" % (r[0], got, best.get(r[0])))
    print("; ".join(bad) or "all %d scenarios x 2 machines" % len(rows))
    sys.exit(1 if bad or not rows else 0)

if what == "cell":         # the cell of the row starting with argv[4] in section argv[3], column argv[5]
    for line in section(sys.argv[3]).splitlines():
        c = cells(line) if line.startswith("| ") else []
        if c and c[0] == sys.argv[4]:
            print(c[int(sys.argv[5])])
            sys.exit(0)
    sys.exit(1)

if what == "ratio":        # median ops/ms of variant over FetchAdd's at threads, from the raw CSV
    path, variant, threads = sys.argv[3], sys.argv[4], float(sys.argv[5])
    rows = [r for r in csv.DictReader(open(path)) if r["mode"] == "timed"
            and float(r["threads"]) == threads and (len(sys.argv) < 7 or
                                                   float(r["work_pct"]) == float(sys.argv[6]))]
    med = lambda v: statistics.median(float(r["ops_per_ms"]) for r in rows if r["counter"] == v)
    print("%.9g" % (med(variant) / med("FetchAdd")))
    sys.exit(0)

if what == "verdicts":     # every claim's cells against each set's claims.json
    marks = {"holds": "**holds**", "consistent with": "**consistent with**",
             "does not hold": "**does not hold**", "inconclusive": "*inconclusive*",
             "not measurable": "*not measurable*", "by construction": "*by construction*",
             "no test here": "*no test here*"}
    docs = [json.load(open(d + "/figdata/claims.json"))["claims"] for d in sys.argv[3:5]]
    rows = [cells(l) for l in section("## Which paper claims hold on which machine").splitlines()
            if re.match(r"\| \d+ \|", l)]
    bad = []
    for i, r in enumerate(rows):
        for k, doc in enumerate(docs):
            c = doc[i]
            want = marks[c["verdict"]] + (" (%s)" % c["cause"] if c.get("cause") else "")
            if r[2 + k] != want:
                bad.append("#%d %s: %s, claims.json %s" % (i + 1, c["id"], r[2 + k], want))
    print("; ".join(bad[:4]) or "%d claims x 2 machines" % len(rows))
    sys.exit(1 if bad or len(rows) != len(docs[0]) else 0)
EOF
chk() { "$py" "$tmp/atlas_check.py" "$@"; }

got=$(chk winners "$md" "$tmp/a" "$tmp/b")
check "winners_are_the_reports ($got)" test $? -eq 0
# The synthetic data is built so that with 7500 counters BFP-CSUP (0.9x the scalable
# rate) beats every other variant of at most 2x the smallest bytes per counter.
got=$(chk cell "$md" "## Which counter to use, per machine" \
	"Many counters, one hot (7500 counters; memory per counter matters)" 2)
check "winner_many_counters_bigbox ($got)" sh -c "case '$got' in '**BFP-CSUP** ('*'256 thr) [by contract]') exit 0;; esac; exit 1"

# A normalised value recomputed from the raw CSV: BFP-CSUP over FetchAdd, 0% work, at
# all the PUs of A (2 threads) and at half the PUs of B (128 threads).
want_a=$(chk ratio "$md" "$tmp/a/dice-fig4-high.csv" BFP-CSUP "$(
	"$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["topology"]["pus"])' "$tmp/a/dice-fig4-high.csv.meta.json")")
want_b=$(chk ratio "$md" "$tmp/b/dice-fig4-high.csv" BFP-CSUP 128)
got_a=$(chk cell "$md" "### dice-fig4-high" BFP-CSUP 5)
got_b=$(chk cell "$md" "### dice-fig4-high" BFP-CSUP 4)
check "normalised_value_all_pus_A ($got_a, recomputed $want_a)" "$py" -c '
import sys
got, want = sys.argv[1].rstrip("~"), float(sys.argv[2])
sys.exit(0 if got == "%.3gx" % want else 1)' "$got_a" "$want_a"
check "normalised_value_half_pus_B ($got_b, recomputed $want_b)" "$py" -c '
import sys
got, want = sys.argv[1].rstrip("~").replace(",", ""), float(sys.argv[2])
sys.exit(0 if abs(float(got.rstrip("x")) / want - 1) < 5e-3 else 1)' "$got_b" "$want_b"
check normalised_csv_full_precision "$py" -c '
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["panel"] == "dice-fig4-high"
        and r["variant"] == "BFP-CSUP" and r["threads"] == "128"]
sys.exit(0 if len(rows) == 1 and abs(float(rows[0]["ratio"]) / float(sys.argv[2]) - 1) < 1e-5 else 1)' \
	"$tmp/out/atlas-normalised.csv" "$want_b"

got=$(chk verdicts "$md" "$tmp/a" "$tmp/b")
check "verdicts_are_the_reports ($got)" test $? -eq 0
# Dice §5.1's 256-thread claim: too few PUs on A (the cause kept), holds on B by construction.
got=$(grep '^| 6 | At 256 threads (99% work) RBONuma and RBONumaAdapt' "$md" | sed 's/.*§5.1) | //')
check "claim_cell_rbonuma_20x ($got)" test "$got" = "*not measurable* (machine) | **holds** |"

# Unmatched points: dice-fig3 runs up to 64 threads, so B's half and all PUs are missing;
# B's 2..64 threads are no fraction matched.
check unmatched_csv_point grep -q '^t5440-synthetic,dice-fig3,FetchAdd,256,all PUs,"no run at this thread count (measured: 1, 2, 4, 8, 16, 32, 64)",' "$tmp/out/atlas-unmatched.csv"
check unmatched_listed_in_atlas sh -c "grep -q '^| t5440-synthetic | dice-fig3 | Serial, .*FetchAdd | 128, 256 | no run at this thread count (measured: 1, 2, 4, 8, 16, 32, 64) |' '$md' &&
	grep -q '^| t5440-synthetic | baselines-w0 | .* | 2, 4, 8, 16, 32, 64 | not 1 thread, half or all of this machine' '$md'"
check unmatched_cells_dashed sh -c "grep -A3 '^| Variant | vm, 1 thread' '$md' | grep -q '^| Serial | .* | - | .* | - |'"
if [ -n "$mpl" ]; then
	check figures_png sh -c "for f in atlas-dice-fig4-high atlas-baselines-w0 atlas-claims; do
		test \"\$(od -An -c -N4 '$tmp/out/'\$f.png | tr -d ' ')\" = 211PNG || exit 1; done &&
		grep -q '](atlas-dice-fig4-high.png)' '$md'"
else
	ok "figures_png # SKIP no Python with matplotlib"
fi
# Eight machines: the heat maps' column labels (machine, level) stay apart
# (side by side they overlapped beyond a few columns: plots/atlas measures the
# labels as drawn and warns).
if [ -n "$mpl" ]; then
	eight=""
	for i in 1 2 3 4 5 6 7 8; do
		copy_set "$tmp/a" "m$i"
		"$py" -c 'import glob, json, sys
for p in glob.glob(sys.argv[1] + "/*.meta.json"):
    m = json.load(open(p)); m["host"] = "machine-number-" + sys.argv[2]; json.dump(m, open(p, "w"))' "$tmp/m$i" "$i"
		eight="$eight $tmp/m$i"
	done
	# shellcheck disable=SC2086 # eight temporary paths without spaces
	"$atlas" $eight --out "$tmp/out8" >/dev/null 2>"$tmp/out8.err"
	check "eight_machines_labels_apart ($(grep -c overlap "$tmp/out8.err") warnings)" \
		sh -c "test -f '$tmp/out8/atlas-baselines-w0.png' && ! grep -q overlap '$tmp/out8.err'"
else
	ok "eight_machines_labels_apart # SKIP no Python with matplotlib"
fi
listing "$tmp/a" >"$tmp/a.after0"
# (aggregate.py above wrote figdata/ and REPORT.md into the copies: compare with a second atlas)
"$atlas" "$tmp/a" "$tmp/b" --out "$tmp/out2" --no-figures >/dev/null 2>&1
listing "$tmp/a" >"$tmp/a.after"
listing "$tmp/b" >"$tmp/b.after0"
check nothing_written_into_a_set sh -c "cmp -s '$tmp/a.after0' '$tmp/a.after' &&
	! grep -q 'atlas' '$tmp/a.after' '$tmp/b.after0'"
check deterministic_atlas cmp -s "$tmp/out/atlas-normalised.csv" "$tmp/out2/atlas-normalised.csv"

# ---- refusals: exit 2, one line, nothing written ----------------------------------
# refused NAME PATTERN ARGS...: plots/atlas ARGS exits 2 with one line matching PATTERN.
refused() {
	name=$1 pat=$2
	shift 2
	"$atlas" "$@" >"$tmp/r.out" 2>"$tmp/r.err"
	rc=$?
	check "${name} (exit $rc: $(head -c 200 "$tmp/r.err"))" sh -c "test $rc -eq 2 &&
		test \$(wc -l <'$tmp/r.err') -eq 1 && grep -q '$pat' '$tmp/r.err' && ! grep -q Traceback '$tmp/r.err' &&
		test ! -e '$tmp/never/ATLAS.md'"
}
copy_set "$small" old
refused refuse_schema1_no_cpu "old: missing provenance: .*meta.json has no cpu.model" \
	"$tmp/a" "$tmp/old" --out "$tmp/never"
copy_set "$tmp/a" nokernel
"$py" -c 'import json, sys
m = json.load(open(sys.argv[1])); del m["kernel"]; json.dump(m, open(sys.argv[1], "w"))' \
	"$tmp/nokernel/baselines.csv.meta.json"
refused refuse_missing_kernel "nokernel: missing provenance: baselines.csv.meta.json has no kernel" \
	"$tmp/nokernel" "$tmp/b" --out "$tmp/never"
copy_set "$tmp/a" badcount
"$py" -c 'import json, sys
m = json.load(open(sys.argv[1])); m["cpu"]["sockets"] = -3; json.dump(m, open(sys.argv[1], "w"))' \
	"$tmp/badcount/latency.csv.meta.json"
refused refuse_bad_count "latency.csv.meta.json field cpu.sockets: -3 is out of range" \
	"$tmp/badcount" "$tmp/b" --out "$tmp/never"
refused refuse_out_in_a_set "is inside the result set" "$tmp/a" "$tmp/b" --out "$tmp/a/atlas"
refused refuse_out_in_another_set "is inside the result set .*old" "$tmp/a" "$tmp/b" --out "$tmp/old/x/y"
check out_in_set_wrote_nothing test ! -e "$tmp/a/atlas" -a ! -e "$tmp/old/x"
copy_set "$tmp/a" twin
refused refuse_same_machine_same_mode "the same machine (host vm, .*) in the same mode" \
	"$tmp/a" "$tmp/twin" --out "$tmp/never"
refused refuse_set_twice "is given twice" "$tmp/a" "$tmp/a/" --out "$tmp/never"
refused refuse_not_a_set "not a result set" "$tmp/a" "$tmp/out" --out "$tmp/never"
mkdir "$tmp/planned" && echo "mode=quick" >"$tmp/planned/run-all.conf"
refused refuse_set_without_results "planned: not a result set" "$tmp/a" "$tmp/planned" --out "$tmp/never"

# ---- one machine in two modes: allowed, labelled by mode, matched by thread count ----
if grep -q '^mode=' "$tmp/twin/run-all.conf" 2>/dev/null; then
	sed 's/^mode=.*/mode=quick/' "$tmp/a/run-all.conf" >"$tmp/twin/run-all.conf"
else
	echo "mode=quick" >"$tmp/twin/run-all.conf"
fi
"$atlas" "$tmp/a" "$tmp/twin" --out "$tmp/modes" --no-figures >/dev/null 2>"$tmp/modes.err"
rc=$?
check "same_machine_two_modes_allowed (exit $rc)" test $rc -eq 0
# one machine is "1 machine" ("2 result sets from 1 machines")
check one_machine_singular grep -q '^2 result sets from 1 machine read side by side' "$tmp/modes/ATLAS.md"
check two_modes_labelled sh -c "grep -q '^| \*\*vm (default)\*\* | ' '$tmp/modes/ATLAS.md' &&
	grep -q '^| \*\*vm (quick)\*\* | ' '$tmp/modes/ATLAS.md' &&
	grep -q 'every machine has 2 PUs: points are matched at the same thread count' '$tmp/modes/ATLAS.md' &&
	grep -q '^| Variant | vm (default), 1 thr | vm (quick), 1 thr | vm (default), 2 thr | ' '$tmp/modes/ATLAS.md'"
# the same data in both: every normalised value matched and equal, nothing unmatched
check two_modes_same_values "$py" -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/atlas-normalised.csv")))
by = {}
for r in rows:
    by.setdefault((r["panel"], r["variant"], r["level"]), set()).add(r["ratio"])
un = list(csv.DictReader(open(sys.argv[1] + "/atlas-unmatched.csv")))
sys.exit(0 if rows and all(len(v) == 1 for v in by.values()) and not un else 1)' "$tmp/modes"

tap_done
