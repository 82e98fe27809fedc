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

/* Is arg (the value of --list=..., NULL for a bare --list) a format --list offers? */
bool listing_format_ok(const char *arg, bool *json);

/*
 * The registry as one JSON object on f: {"schema": 1, "variants": [...]},
 * each variant with its name, alias, kind, layout, family, origin, groups,
 * bytes per counter (at pus threads), summary and parameter keys with their
 * defaults, in the order --counter=all runs them. Returns 0, or -1 when a
 * variant cannot be configured (said on stderr); a write error is left in f
 * for the caller to find with fflush/ferror and say.
 */
int listing_print_json(FILE *f, uint32_t pus);

#endif
