/* SPDX-License-Identifier: MIT */
/* summary.c - the per-point table on standard error (summary.h). */
#include "summary.h"

#include <math.h>
#include <stdlib.h>

#include "cli_values.h"

void summary_init(summary *t, FILE *f, bool tty, unsigned runs)
{
	*t = (summary){.f = f, .tty = tty, .runs = runs};
	if (!f)
		return;
	t->ops = must_alloc(calloc(runs ? runs : 1, sizeof *t->ops));
	t->err = must_alloc(calloc(runs ? runs : 1, sizeof *t->err));
}

void summary_add(summary *t, double ops_per_ms, double rel_error)
{
	if (!t->f || t->n >= t->runs)
		return;
	t->ops[t->n] = ops_per_ms;
	t->err[t->n] = rel_error;
	t->n++;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double summary_median(double *x, unsigned n)
{
	if (!n)
		return NAN;
	qsort(x, n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

void summary_point(summary *t, const sc_variant *v, uint32_t threads)
{
	if (!t->f || !t->n)
		return;
	double med = summary_median(t->ops, t->n); /* sorts: ops[0] is the least */
	double lo = t->ops[0], hi = t->ops[t->n - 1];
	char spread[32] = "-", err[32] = "-", ns[32] = "-";
	if (t->n > 1 && med > 0)
		snprintf(spread, sizeof spread, "%.1f%%", (hi - lo) / med * 100);
	if (med > 0)
		snprintf(ns, sizeof ns, "%.2f", threads * 1e6 / med);
	if (v->kind != SC_PRECISE)
		snprintf(err, sizeof err, "%.3g%%", summary_median(t->err, t->n) * 100);
	if (t->tty)
		fputs("\r\033[K", t->f);
	if (!t->header_done) {
		fprintf(t->f, "%-14s %7s %14s %14s %7s %9s\n", "counter", "threads",
		        "ops/ms", "ns/inc/thread", "spread", "error");
		t->header_done = true;
	}
	fprintf(t->f, "%-14s %7u %14.1f %14s %7s %9s\n", v->name, threads, med, ns, spread,
	        err);
	fflush(t->f);
	t->n = 0;
}

void summary_free(summary *t)
{
	free(t->ops);
	free(t->err);
	t->ops = t->err = NULL;
}
