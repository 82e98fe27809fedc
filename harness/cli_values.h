/* SPDX-License-Identifier: MIT */
/*
 * cli_values.h - strict parsing of scbench's option values (doc/design.md
 * §5.1: numbers are decimal, no hex, inf or nan, no spaces) and the one-line
 * usage error. For cli.c, and error_line for every message of scbench that
 * quotes an error or a path.
 */
#ifndef SC_CLI_VALUES_H
#define SC_CLI_VALUES_H

#include <stdbool.h>
#include <stdint.h>

/*
 * "scbench: --opt=value: <message>" (or "scbench: opt: <message>" when value
 * is NULL) on standard error; returns CLI_USAGE.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int usage_error(const char *opt, const char *value, const char *fmt, ...);

/*
 * "scbench: <message>" on standard error, the message formatted by fmt with
 * its control bytes but a tab as \xNN (a path or an option holding a line
 * break or an ESC stays one line and never drives the terminal).
 */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void error_line(const char *fmt, ...);
/*
 * A SCOUNTERS_NODE the library would ignore (not rseq, getcpu or fixed):
 * a warning, once, before the runs.
 */
void warn_node_env(void);

/* Strict unsigned parse: decimal digits only, in [min, max]. */
bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/*
 * Strict decimal parse: as strtod, but no leading space or sign '+', and no
 * hexadecimal, infinity or NaN (integers take no hex either); -0 is 0.
 */
bool parse_double(const char *s, double *out);

/* p, or the end of scbench (status 1) when an allocation failed. */
void *must_alloc(void *p);

#endif /* SC_CLI_VALUES_H */
