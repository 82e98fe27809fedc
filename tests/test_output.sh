#!/bin/sh
# SPDX-License-Identifier: MIT
# test_output.sh - where scbench's output goes (doc/design.md §5.4, §8, §10), as TAP:
# a symlink is written through to its target, an existing FIFO is written in
# place and never replaced, - is standard output, and a write error (EPIPE,
# EFBIG) is exit 1 with one line and leaves no partial file behind.
# Everything happens in a mktemp -d directory: never /dev (as root, a rename
# there would replace device nodes); the FIFO made here is the non-regular
# file, and the file size limit (ulimit -f) stands in for a full disk.
set -u
: "${SCBENCH:?SCBENCH must name the scbench binary}"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
# No temporary file of scbench left anywhere in the directory.
no_temporaries() { ! find "$tmp" -name '*.tmp.*' | grep -q .; }
# whole_rows FILE: a header and rows of its width only (no partial row).
whole_rows() {
	"$PY" -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
sys.exit(0 if rows and rows[0][0] == "counter" and all(len(r) == len(rows[0]) for r in rows) else 1)' "$1"
}
run() { "$SCBENCH" --counter=CAS --threads=1 --ops=100 --runs=2 --events=none "$@"; }

# A symlink: the target is replaced, the link stays a link, meta.json beside the target.
mkdir "$tmp/data"
echo old >"$tmp/data/target.csv"
ln -s data/target.csv "$tmp/link.csv"
run --output="$tmp/link.csv" 2>"$tmp/err"
check symlink_exit_0 test $? -eq 0
check symlink_still_a_link test -L "$tmp/link.csv"
check symlink_target_written grep -q '^counter,kind' "$tmp/data/target.csv"
check symlink_target_rows_complete test "$(wc -l <"$tmp/data/target.csv")" -eq 3
check symlink_meta_beside_target test -s "$tmp/data/target.csv.meta.json"

# A dangling symlink names the file to create.
ln -s data/new.csv "$tmp/dangling.csv"
run --output="$tmp/dangling.csv" 2>"$tmp/err"
check dangling_symlink_creates_target test -L "$tmp/dangling.csv" -a -s "$tmp/data/new.csv"
ln -s nowhere/x.csv "$tmp/bad.csv"
run --output="$tmp/bad.csv" 2>"$tmp/err"
check dangling_symlink_missing_dir_exit_2 test $? -eq 2 -a "$(wc -l <"$tmp/err")" -eq 1

# A FIFO: the CSV streams to its reader, the FIFO is never replaced, meta.json beside it.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from_fifo" &
reader=$!
run --output="$tmp/fifo" 2>"$tmp/err"
rc=$?
wait "$reader"
check fifo_exit_0 test "$rc" -eq 0
check fifo_still_a_fifo test -p "$tmp/fifo"
check fifo_reader_got_csv sh -c "head -1 '$tmp/from_fifo' | grep -q '^counter,kind' &&
	test \$(wc -l <'$tmp/from_fifo') -eq 3"
check fifo_meta_beside_it test -s "$tmp/fifo.meta.json"

# - is standard output: no file named -, no meta.json.
(cd "$tmp" && run --output=- >"$tmp/stdout.csv" 2>"$tmp/err")
check dash_exit_0 test $? -eq 0
check dash_writes_stdout test "$(wc -l <"$tmp/stdout.csv")" -eq 3
check dash_creates_no_file test ! -e "$tmp/-" -a ! -e "$tmp/-.meta.json"

# Things that cannot take output are usage errors, and nothing is touched.
mkdir "$tmp/adir"
run --output="$tmp/adir" 2>"$tmp/err"
check directory_is_usage_error test $? -eq 2 -a "$(wc -l <"$tmp/err")" -eq 1

# EPIPE: the FIFO's reader goes away after a few bytes. scbench must say so
# in one line and exit 1 (not die of SIGPIPE); the FIFO stays.
head -c 10 "$tmp/fifo" >"$tmp/head_got" &
reader=$!
"$SCBENCH" --counter=CAS --threads=1 --duration=0.1 --warmup=0.01 --runs=20 --events=none \
	--output="$tmp/fifo" 2>"$tmp/err"
rc=$?
wait "$reader"
check epipe_exit_1 test "$rc" -eq 1
check epipe_one_line_says_why sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q 'Broken pipe' '$tmp/err'"
check epipe_fifo_still_a_fifo test -p "$tmp/fifo"

# EFBIG (a write error on a regular file): the size limit is hit while the
# CSV is written. Exit 1, one line, the earlier file untouched, no temporary.
echo precious >"$tmp/big.csv"
(ulimit -f 1 && exec "$SCBENCH" --counter=CAS,FetchAdd,RBO --threads=1 --ops=100 --runs=4 \
	--events=none --output="$tmp/big.csv") 2>"$tmp/err"
rc=$?
check write_error_exit_1 test "$rc" -eq 1
check write_error_one_line sh -c "test \$(wc -l <'$tmp/err') -eq 1 && grep -q 'too large' '$tmp/err'"
check write_error_keeps_old_file grep -qx precious "$tmp/big.csv"
check write_error_no_meta test ! -e "$tmp/big.csv.meta.json"
check write_error_no_temporaries no_temporaries

# An output name that is not UTF-8 (byte 0xff) and one that is (é): the
# meta.json is valid UTF-8 all the same; the 0xff byte is the escape \udcff
# (Python's surrogateescape), so the name's bytes come back from the JSON.
odd=$tmp/$(printf 'r\377-\303\251').csv
"$SCBENCH" --counter=FetchAdd --ops=100 --runs=1 --events=none --output="$odd" 2>/dev/null
check meta_json_utf8_with_0xff_name "$PY" -c '
import json, os, sys
raw = open(sys.argv[1] + ".meta.json", "rb").read()
meta = json.loads(raw.decode("utf-8"))  # strict: a 0xff byte would raise here
arg = [a for a in meta["command_line"] if a.startswith("--output=")][0]
sys.exit(0 if os.fsencode(arg[len("--output="):]) == os.fsencode(sys.argv[1]) else 1)
' "$odd"

check no_temporaries_anywhere no_temporaries
check streamed_rows_complete whole_rows "$tmp/from_fifo"

tap_done
