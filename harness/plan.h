/* SPDX-License-Identifier: MIT */
/*
 * plan.h - what one scbench invocation will do, as plain values: the command
 * line (doc/design.md §5.1) parsed, checked and resolved once by cli.c. Every
 * unit below the command line (run, output, meta) reads this, never the
 * options themselves.
 */
#ifndef SC_PLAN_H
#define SC_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include <scounters/scounters.h>

#include "placement.h"
#include "workload.h"

/* scbench's exit status when the external work cannot be calibrated (--help). */
#define SCBENCH_EXIT_CALIBRATION 3

/* A chosen variant and the --param values it accepts, ready for sc_table_create. */
typedef struct plan_variant {
	const sc_variant *v;
	sc_params params;
} plan_variant;

typedef struct run_plan {
	plan_variant variants[SC_VARIANT_COUNT]; /* --counter, in the order given */
	unsigned nvariants;
	const uint32_t *threads; /* thread counts, in the order given */
	unsigned nthreads;
	uint32_t threads_max;    /* the largest of them */
	bool count_mode;         /* --ops given */
	uint64_t ops;            /* increments per thread in count mode */
	double duration;         /* seconds, timed mode */
	double warmup;           /* seconds, timed mode */
	unsigned runs;
	unsigned first_run;      /* index (and seed offset) of the first run */
	bool read_cost;          /* a reader thread samples get (read_ns) */
	/* --work; 0 when --work-iters is given alone */
	double work_pct;
	/* --work-iters alone (its pauses are the work: the CSV's work_pct is 0) */
	bool work_iters_given;
	/* --work-iters with --work: the pauses that stand for it, uncalibrated */
	bool work_iters_for_pct;
	double work_iters;       /* --work-iters */
	uint32_t counters;       /* counters in the array */
	placement_kind placement;
	uint32_t nodes;          /* --nodes; 0: the real nodes */
	uint64_t seed;
	const char *events;      /* NULL: the default set */
	bool latency;
	bool json;               /* --format=json: JSON Lines instead of CSV */
	int summary;             /* --summary: 1 on, 0 off, -1 when standard error is a terminal */
	const sc_variant *baseline; /* --baseline; NULL: the slowest precise counter measured */
	const char *output;      /* NULL: standard output */
	bool force;              /* allow external work over 1 ms per increment */
	int argc;                /* the command line, for meta.json */
	char *const *argv;
} run_plan;

/* Every (variant, threads, run) point of the plan. */
static inline unsigned plan_points(const run_plan *p)
{
	return p->nvariants * p->nthreads * p->runs;
}

/*
 * Give each chosen variant the --param values it accepts (given: every
 * --param; same-seed goes to all), and check that each configures with them.
 * 0; or -1 with *bad_key the index in given of a key no chosen variant
 * accepts, or with *bad_key -1 and err saying why a variant refused a value.
 */
int plan_set_params(run_plan *p, const sc_params *given, int *bad_key, sc_err *err);

/*
 * External work (doc/design.md §4): measure what an increment will cost,
 * refuse a setting over 1 ms per increment unless --force, and m beyond
 * WL_MAX_WORK_ITERS always. *work_iters: m for the loops (--work-iters when
 * given, alone or standing for --work uncalibrated; else calibrated for
 * --work); *calibrated: cal holds a --work calibration;
 * *work_ns: ns of external work per increment (0 when not measured).
 * 0, 1 (runtime failure), 2 (usage error) or SCBENCH_EXIT_CALIBRATION, the
 * message printed.
 */
int plan_work(const run_plan *p, double *work_iters, wl_calibration *cal, bool *calibrated,
              double *work_ns);

/*
 * Expected seconds of the whole invocation on pus processing units (every
 * point, plus calibration when calibrates), with work_ns of external work
 * per increment.
 */
double plan_seconds(const run_plan *p, uint32_t pus, double work_ns, bool calibrates);

/* "45 s", "12 min", "3 h 20 min". */
void plan_format_duration(char *buf, size_t n, double sec);

#endif /* SC_PLAN_H */
