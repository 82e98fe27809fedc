/* SPDX-License-Identifier: MIT */
/*
 * cli.h - scbench's command line (doc/design.md §5.1): a contract that scripts and
 * tests depend on. Parsing validates every value; a bad one is a usage error
 * (exit 2) with one line naming the option, the value and what is accepted.
 */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <scounters/scounters.h>

#include "placement.h"

/* Upper bounds that keep a typo from exhausting the machine, not NUMA limits. */
#define CLI_MAX_THREADS 16384u
#define CLI_MAX_COUNTERS (1u << 26)
#define CLI_MAX_NODES 1024u
#define CLI_MAX_FIRST_RUN 1000000u


typedef struct cli_opts {
	const sc_variant *variants[SC_VARIANT_COUNT];
	unsigned nvariants;
	uint32_t *threads; /* thread counts, in the order given */
	unsigned nthreads;
	bool count_mode;   /* --ops given */
	uint64_t ops;      /* increments per thread in count mode */
	double duration;   /* seconds, timed mode */
	double warmup;     /* seconds, timed mode */
	unsigned runs;
	unsigned first_run; /* --first-run: index (and seed offset) of the first run */
	bool read_cost;     /* --read-cost=on: a reader thread samples get (read_ns) */
	double work_pct;   /* --work */
	bool work_iters_given;
	double work_iters;   /* --work-iters */
	uint32_t counters;
	placement_kind placement;
	uint32_t nodes;    /* 0: the real nodes */
	sc_params params;  /* every --param, validated against the chosen variants */
	uint64_t seed;
	const char *events; /* NULL: the default set */
	bool latency;
	const char *output; /* NULL: standard output (no --output, or --output=-) */
	bool force;         /* --force: allow external work over 1 ms per increment */
	bool list, help, version;
	int argc;
	char **argv;
} cli_opts;

/* Outcome of parsing: go on, stop with status 0 (help/version), or usage error. */
enum { CLI_OK = 0, CLI_EXIT_OK = 1, CLI_USAGE = 2 };

/* scbench's exit status when the external work cannot be calibrated (--help). */
#define SCBENCH_EXIT_CALIBRATION 3

/*
 * Parse argv. pus is the number of processing units, used by "pow2" and
 * for the default thread list. On CLI_USAGE the message has been printed.
 */
int cli_parse(cli_opts *o, int argc, char **argv, uint32_t pus);
void cli_free(cli_opts *o);
/* The --param keys that variant v accepts, ready for sc_table_create. */
void cli_variant_params(const cli_opts *o, const sc_variant *v, sc_params *out);
void cli_usage(FILE *f);

/* Default base seed (doc/design.md §5.1: "default fixed"). */
#define CLI_DEFAULT_SEED 20130623ull

#endif /* SC_CLI_H */
