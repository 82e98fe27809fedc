/* SPDX-License-Identifier: MIT */
/*
 * listing.h - scbench --list=json: the registry of variants in a form a
 * program reads (run-all derives its experiment groups from it), beside the
 * human-readable --list.
 */
#ifndef SC_LISTING_H
#define SC_LISTING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* Is arg (the value of --list=..., NULL for a bare --list) a format --list offers? */
bool listing_format_ok(const char *arg, bool *json);

/* The registry's family of v, one of sc_variants ("simple", "morris", ...). */
const char *listing_family(const sc_variant *v);

/*
 * The registry as one JSON object on f: {"schema": 1, "variants": [...]},
 * each variant with its name, alias, kind, layout, family, origin, groups,
 * bytes per counter (at pus threads), summary and parameter keys with their
 * defaults, in the order --counter=all runs them. Returns 0, or -1 when a
 * variant cannot be configured (said on stderr); a write error is left in f
 * for the caller to find with fflush/ferror and say.
 */
int listing_print_json(FILE *f, uint32_t pus);

/* --help, --version, --list or --list=json (pus: the machine's PUs), or a
 * usage error (rc CLI_USAGE: 2): the exit status; a closed standard output
 * (| head) is a quiet 141, another write error one line and 1. */
int listing_answer(const cli_opts *o, int rc, uint32_t pus);

#endif
