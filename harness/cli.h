/* SPDX-License-Identifier: MIT */
/*
 * cli.h - scbench's command line (doc/design.md §5.1): a contract that scripts and
 * tests depend on. Parsing validates every value; a bad one is a usage error
 * (exit 2) with one line naming the option, the value and what is accepted.
 * Included by the parser itself (cli.c, cli_values.c, cli_usage.c), by
 * scbench.c and by listing.h (--list answers from the parsed options); the
 * units below them read the plan (plan.h), never the options.
 */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <scounters/scounters.h>

#include "plan.h"

/* Upper bounds that keep a typo from exhausting the machine, not NUMA limits. */
#define CLI_MAX_THREADS 16384u
#define CLI_MAX_COUNTERS (1u << 26)
#define CLI_MAX_NODES 1024u
#define CLI_MAX_FIRST_RUN 1000000u


/*
 * The parsed command line: what to do (list, help, version, or run) and, to
 * run, the plan with every value checked and resolved.
 */
typedef struct cli_opts {
	run_plan plan;
	uint32_t *threads; /* owned: plan.threads points here */
	sc_params params;  /* every --param as given; each variant's share goes to the plan */
	bool list, help, version;
	bool list_json; /* --list=json */
} cli_opts;

/* Outcome of parsing: go on, stop with status 0 (help/version), or usage error. */
enum { CLI_OK = 0, CLI_EXIT_OK = 1, CLI_USAGE = 2 };

/*
 * Parse argv. pus is the number of processing units, used by "pow2" and
 * for the default thread list. On CLI_USAGE the message has been printed.
 */
int cli_parse(cli_opts *o, int argc, char **argv, uint32_t pus);
void cli_free(cli_opts *o);
void cli_usage(FILE *f);

/* Default base seed (doc/design.md §5.1: "default fixed"). */
#define CLI_DEFAULT_SEED 20130623ull

#endif /* SC_CLI_H */
