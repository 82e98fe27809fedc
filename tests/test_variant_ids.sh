#!/bin/sh
# SPDX-License-Identifier: MIT
# test_variant_ids.sh - the library's sources name no variant (TAP): what
# one variant needs beyond the common operations is declared in its family
# header (the contract and the optional hooks of sc_contract.h) and reached
# through the variant table, so no counters/*.c file tests or indexes a
# particular variant's id (SC_ID_batched, sc_variants[SC_ID_scalable]).
# Nor does the harness (scbench). The X-macro's own SC_ID_##P and the
# enum's SC_VARIANT_COUNT are fine.
# The check is also run on a line that holds such a test, and must find it.
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/tap.sh"
: "${TOP_SRCDIR:=.}"

# named_ids FILE...: "file:line: text" for every named variant id in the files
named_ids() {
	grep -nE 'SC_ID_[A-Za-z0-9]' "$@" /dev/null | grep -v 'SC_ID_##'
}

found=$(cd "$TOP_SRCDIR" && named_ids counters/*.c)
check "no counters/*.c file names a variant id (move the fact into the variant's family: sc_contract.h's hooks or promises)${found:+; found: $found}" \
	[ -z "$found" ]
# The harness too: what it does for one variant (PerCPUTree's machine shape,
# which reading it times as get_fast) it asks of the variant table.
found=$(cd "$TOP_SRCDIR" && named_ids harness/*.c harness/*.h)
check "no harness/*.c or *.h file names a variant id${found:+; found: $found}" [ -z "$found" ]
printf 'static int f(sc_counter *c)\n{\n\treturn c->id == SC_ID_batched;\n}\n' >"$tmp/bad.c"
printf '#define E_(P, ...) [SC_ID_##P] = 1,\n' >"$tmp/good.c"
bad=$(named_ids "$tmp/bad.c")
good=$(named_ids "$tmp/good.c")
check "the check finds a named id and passes the X-macro's SC_ID_##P" [ -n "$bad" ] && [ -z "$good" ]
tap_done
