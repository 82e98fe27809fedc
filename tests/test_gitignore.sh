#!/bin/sh
# SPDX-License-Identifier: MIT
# test_gitignore.sh - results/.gitignore keeps a user's result sets out of
# git while the reference set and the schema stay tracked, as TAP. Checked
# with git check-ignore in a scratch repository (so it also runs from a
# tarball); skipped (77) without git.
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
command -v git >/dev/null 2>&1 || { echo "1..0 # SKIP git not installed"; exit 0; }
src=${TOP_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
repo=$tmp/repo
mkdir -p "$repo/results"
git init -q "$repo" || exit 1
cp "$src/results/.gitignore" "$repo/results/.gitignore"
ignored() { git -C "$repo" check-ignore -q "$1"; }
tracked() { ! git -C "$repo" check-ignore -q "$1"; }
# What run-all.sh writes by default: results/<host>-<date>/ (its own line).
grep -q 'os.path.join(top, "results", "%s-%s" % (host' "$src/harness/runall/__main__.py" &&
	ok "run-all.sh writes new result sets under results/" ||
	not_ok "run-all.sh writes new result sets under results/ (default --out changed: update results/.gitignore and this test)"
for p in results/myhost-20261123-214500/dice-fig3.csv \
	results/myhost-20261123-214500/figures/dice-fig3.png \
	results/myhost-20261123-214500/REPORT.md results/stray.csv; do
	mkdir -p "$repo/$(dirname "$p")"; [ -e "$repo/$p" ] || : >"$repo/$p"
	check "ignored: $p" ignored "$p"
done
for p in results/README.md results/.gitignore \
	results/reference/kvm-epyc-2pu/dice-fig3.csv \
	results/reference/kvm-epyc-2pu/figures/dice-fig3.png \
	results/reference/kvm-epyc-2pu/REPORT.md; do
	mkdir -p "$repo/$(dirname "$p")"; [ -e "$repo/$p" ] || : >"$repo/$p"
	check "tracked: $p" tracked "$p"
done
# git status after a run: only the new files of the repository itself show.
git -C "$repo" add -A || not_ok "git add"
git -C "$repo" status --porcelain >"$tmp/status"
sed 's/^/# /' "$tmp/status"
n_new=$(grep -c 'myhost\|stray' "$tmp/status")
check "git status shows no user result set ($n_new)" [ "$n_new" -eq 0 ]
# In a git checkout of the project itself, every committed file under
# results/ is tracked despite the rules (nothing committed is ignored).
if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	bad=$(git -C "$src" ls-files -ci --exclude-standard -- results | head -3)
	check "no committed file under results/ is ignored${bad:+: $bad}" [ -z "$bad" ]
fi
tap_done
