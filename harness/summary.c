/* SPDX-License-Identifier: MIT */
/* summary.c - the figures of each point for the table (summary.h). */
#include "summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_values.h"

void summary_init(summary *t, FILE *f, bool json, bool tty, unsigned runs, double target_s,
                  const sc_variant *baseline)
{
	*t = (summary){.f = f, .json = json, .tty = tty, .runs = runs, .target_s = target_s,
	               .baseline = baseline};
	if (!f && !json)
		return;
	t->ops = must_alloc(calloc(runs ? runs : 1, sizeof *t->ops));
	t->err = must_alloc(calloc(runs ? runs : 1, sizeof *t->err));
}

void summary_add(summary *t, double ops_per_ms, double rel_error, double seconds, bool busy)
{
	if (!t->ops || t->n >= t->runs)
		return;
	t->ops[t->n] = ops_per_ms;
	t->err[t->n] = rel_error;
	t->n++;
	t->busy |= busy;
	if (t->target_s > 0 &&
	    fabs(seconds - t->target_s) > SUMMARY_TIME_SLACK_S + SUMMARY_TIME_SLACK * t->target_s)
		t->time_off = true;
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

void summary_outlier_flag(double *x, unsigned n, char out[2])
{
	out[0] = out[1] = '\0';
	if (n < SUMMARY_OUTLIER_MIN_RUNS)
		return;
	double *l = must_alloc(calloc(n, sizeof *l)), *d = must_alloc(calloc(n, sizeof *d));
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++)
		if (x[i] > 0 && isfinite(x[i]))
			l[k++] = log(x[i]);
	if (k >= SUMMARY_OUTLIER_MIN_RUNS) {
		double med = summary_median(l, k);
		for (unsigned i = 0; i < k; i++)
			d[i] = fabs(l[i] - med);
		double mad = summary_median(d, k); /* sorts d: d[k - 1] is the largest */
		if (mad > 0 && d[k - 1] > SUMMARY_OUTLIER_K * 1.4826 * mad)
			out[0] = 'o';
	}
	free(l);
	free(d);
}

void summary_point(summary *t, const sc_variant *v, uint32_t threads)
{
	if (!t->ops || !t->n)
		return;
	summary_row r = {.v = v, .threads = threads, .n = t->n, .spread = NAN, .err = NAN};
	double sum = 0, ss = 0;
	for (unsigned i = 0; i < t->n; i++)
		sum += t->ops[i];
	r.mean = sum / t->n;
	for (unsigned i = 0; i < t->n; i++)
		ss += (t->ops[i] - r.mean) * (t->ops[i] - r.mean);
	r.sd = t->n > 1 ? sqrt(ss / (t->n - 1)) : NAN;
	r.cv = r.mean > 0 ? r.sd / r.mean : NAN;
	char out[2];
	summary_outlier_flag(t->ops, t->n, out);
	r.median = summary_median(t->ops, t->n); /* sorts: ops[0] is the least */
	if (t->n > 1 && r.median > 0)
		r.spread = (t->ops[t->n - 1] - t->ops[0]) / r.median;
	if (v->kind != SC_PRECISE)
		r.err = summary_median(t->err, t->n);
	size_t at = 0;
	if (t->busy)
		r.flags[at++] = 'b';
	if (t->time_off)
		r.flags[at++] = 't';
	if (out[0])
		r.flags[at++] = 'o';
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->rows = must_alloc(realloc(t->rows, t->cap * sizeof *t->rows));
	}
	t->rows[t->nrows++] = r;
	t->n = 0;
	t->busy = t->time_off = false;
}

const sc_variant *summary_baseline(const summary *t)
{
	uint32_t most = 0;
	for (unsigned i = 0; i < t->nrows; i++) {
		if (t->rows[i].v == t->baseline)
			return t->baseline;
		if (t->rows[i].threads > most)
			most = t->rows[i].threads;
	}
	const summary_row *slow = NULL;
	for (int precise = 1; precise >= 0 && !slow; precise--)
		for (unsigned i = 0; i < t->nrows; i++) {
			const summary_row *r = &t->rows[i];
			if (r->threads == most && (!precise || r->v->kind == SC_PRECISE) &&
			    (!slow || r->median < slow->median))
				slow = r;
		}
	return slow ? slow->v : NULL;
}

void summary_free(summary *t)
{
	free(t->ops);
	free(t->err);
	free(t->rows);
	t->ops = t->err = NULL;
	t->rows = NULL;
}
