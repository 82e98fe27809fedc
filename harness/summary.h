/* SPDX-License-Identifier: MIT */
/*
 * summary.h - the table a person reads (doc/design.md §5.1), printed on
 * standard error after the runs (also after an interrupt, for the points
 * completed) when standard error is a terminal, --output names a file or
 * --summary asks; never in the CSV. With --format=json the same figures
 * follow the rows as one "aggregate" object per point.
 *
 *   counter threads ops/ms ns/inc/thread x BASE mean stddev cv spread error flags
 *
 * ops/ms is the median over the point's runs (all threads together), mean and
 * stddev (n - 1) theirs, cv = stddev / mean; ns/inc/thread is threads /
 * median ops/ms, in ns; "x BASE" is the median ops/ms over the baseline's at
 * the same thread count (above 1: faster), the baseline --baseline or else the
 * slowest precise counter at the largest thread count measured; spread is
 * (max - min) / median; error is the median rel_error of a variant that is
 * not precise, "-" for a precise one. flags, "-" for none:
 *   b  a run of the point was busy (load.h; the CSV's busy column)
 *   t  a run's measured phase was off its --duration by more than
 *      SUMMARY_TIME_SLACK_S + SUMMARY_TIME_SLACK x duration (timed mode)
 *   o  with SUMMARY_OUTLIER_MIN_RUNS (5) or more runs, a run whose ln(ops/ms) is further from the
 *      point's median ln than SUMMARY_OUTLIER_K x 1.4826 x MAD of the lns
 *      (the MAD scaled to a normal's sigma; no flag when the MAD is 0)
 * A closing line names the fastest counter at the largest thread count
 * against the baseline: "Sharded ran 7.30x faster than FetchAdd at 8 threads".
 */
#ifndef SC_SUMMARY_H
#define SC_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <scounters/scounters.h>

#define SUMMARY_TIME_SLACK_S 0.05
#define SUMMARY_TIME_SLACK 0.10
#define SUMMARY_OUTLIER_K 3.0
#define SUMMARY_OUTLIER_MIN_RUNS 5u /* with 3, the MAD is the smaller of two gaps: too often tiny */

/* One point's figures. */
typedef struct summary_row {
	const sc_variant *v;
	uint32_t threads;
	unsigned n;                              /* runs */
	double median, mean, sd, cv, spread, err; /* spread NAN for one run; err NAN if precise */
	char flags[4];                           /* "b", "t", "o" in that order; "" for none */
} summary_row;

typedef struct summary {
	FILE *f;           /* the table's stream; NULL: no table */
	bool json;         /* keep the figures for the aggregate objects */
	bool tty;          /* clear a progress line before the table */
	unsigned runs;     /* runs per point */
	double target_s;   /* --duration; 0 in count mode (no t flag) */
	const sc_variant *baseline; /* --baseline, or NULL */
	unsigned n;        /* runs of the current point so far */
	double *ops, *err; /* ops_per_ms and rel_error of the current point's runs */
	bool busy, time_off; /* of the current point's runs so far */
	summary_row *rows; /* the points done */
	unsigned nrows, cap;
} summary;

/* f NULL: no table; json false: no aggregate objects. runs: the plan's runs per point. */
void summary_init(summary *t, FILE *f, bool json, bool tty, unsigned runs, double target_s,
                  const sc_variant *baseline);
/* One run of the current point: its ops/ms, rel_error, measured seconds and busy mark. */
void summary_add(summary *t, double ops_per_ms, double rel_error, double seconds, bool busy);
/* The point is complete: its figures are kept, then a new point. */
void summary_point(summary *t, const sc_variant *v, uint32_t threads);
/* After the runs: the table and the closing line on f, the aggregates on json (when kept). */
void summary_finish(summary *t, FILE *json);
void summary_free(summary *t);

/* The median of n values (sorts x in place); NAN for none. */
double summary_median(double *x, unsigned n);
/*
 * The flags of a point's n runs (x: ops/ms, reordered): 'o' in out[0] when a
 * run is an outlier by the rule above, else "". Pure; out holds 2 chars.
 */
void summary_outlier_flag(double *x, unsigned n, char out[2]);
/* The baseline of rows (t->baseline if measured, else the slowest precise at the most threads). */
const sc_variant *summary_baseline(const summary *t);

#endif /* SC_SUMMARY_H */
