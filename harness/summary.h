/* SPDX-License-Identifier: MIT */
/*
 * summary.h - the table a person reads (doc/design.md §5.1): one line per
 * (variant, threads) point, on standard error, when it is a terminal or
 * --summary asks; never in the CSV or JSON, which keep their own stream.
 *
 *   counter   threads   ops/ms   ns/inc/thread   spread   error
 *
 * ops/ms is the median over the point's runs (all threads together);
 * ns/inc/thread is threads / median ops/ms, in ns (a thread's time per
 * increment); spread is (max - min) / median over the runs, "-" for one run;
 * error is the median rel_error of a variant that is not precise, "-" for a
 * precise one.
 */
#ifndef SC_SUMMARY_H
#define SC_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <scounters/scounters.h>

typedef struct summary {
	FILE *f;           /* NULL: no table */
	bool tty;          /* clear a progress line before each line */
	bool header_done;
	unsigned runs;     /* runs per point */
	unsigned n;        /* runs of the current point so far */
	double *ops, *err; /* ops_per_ms and rel_error of the current point's runs */
} summary;

/* f NULL: no table. runs: the plan's runs per point. */
void summary_init(summary *t, FILE *f, bool tty, unsigned runs);
/* One run of the current point. */
void summary_add(summary *t, double ops_per_ms, double rel_error);
/* The point is complete: its line (the header before the first), then a new point. */
void summary_point(summary *t, const sc_variant *v, uint32_t threads);
void summary_free(summary *t);

/* The median of n values (sorts x in place); NAN for none. */
double summary_median(double *x, unsigned n);

#endif /* SC_SUMMARY_H */
