/* SPDX-License-Identifier: MIT */
/* summary_print.c - the table, its closing line and the JSON aggregates (summary.h). */
#include "summary.h"

#include <math.h>
#include <string.h>

/* The median ops/ms of v at threads, or NAN when not measured. */
static double median_of(const summary *t, const sc_variant *v, uint32_t threads)
{
	for (unsigned i = 0; i < t->nrows; i++)
		if (t->rows[i].v == v && t->rows[i].threads == threads)
			return t->rows[i].median;
	return NAN;
}

static double ratio_of(const summary *t, const summary_row *r, const sc_variant *base)
{
	double b = base ? median_of(t, base, r->threads) : NAN;
	return b > 0 ? r->median / b : NAN;
}

/* x as text with prec decimals (a percent sign after it when pct), or "-" when not finite. */
static const char *num(char *buf, size_t size, int prec, bool pct, double x)
{
	if (!isfinite(x))
		return "-";
	snprintf(buf, size, "%.*f%s", prec, x, pct ? "%" : "");
	return buf;
}

static void table(const summary *t, const sc_variant *base)
{
	FILE *f = t->f;
	char head[64];
	snprintf(head, sizeof head, "x %s", base ? base->name : "-");
	int w = (int)strlen(head) > 8 ? (int)strlen(head) : 8;
	bool flagged = false;
	if (t->tty)
		fputs("\r\033[K", f);
	fprintf(f, "%-14s %7s %12s %13s %*s %12s %10s %6s %7s %8s %5s\n", "counter", "threads",
	        "ops/ms", "ns/inc/thread", w, head, "mean", "stddev", "cv", "spread", "error",
	        "flags");
	for (unsigned i = 0; i < t->nrows; i++) {
		const summary_row *r = &t->rows[i];
		char b[7][32];
		fprintf(f, "%-14s %7u %12.1f %13s %*s %12.1f %10s %6s %7s %8s %5s\n", r->v->name,
		        r->threads, r->median,
		        num(b[0], sizeof b[0], 2, false,
		            r->median > 0 ? r->threads * 1e6 / r->median : NAN),
		        w, num(b[1], sizeof b[1], 2, false, ratio_of(t, r, base)), r->mean,
		        num(b[2], sizeof b[2], 1, false, r->sd),
		        num(b[3], sizeof b[3], 1, true, r->cv * 100),
		        num(b[4], sizeof b[4], 1, true, r->spread * 100),
		        num(b[5], sizeof b[5], 3, true, r->err * 100), r->flags[0] ? r->flags : "-");
		flagged |= r->flags[0] != '\0';
	}
	if (flagged)
		fprintf(f, "flags: b a busy run (other work on the PUs), t a run %.2f s + %.0f%% off "
		           "its duration, o a run beyond %.0f x 1.4826 MAD of the point's log ops/ms\n",
		        SUMMARY_TIME_SLACK_S, SUMMARY_TIME_SLACK * 100, SUMMARY_OUTLIER_K);
}

/* The closing line: the fastest at the largest thread count against the baseline. */
static void closing(const summary *t, const sc_variant *base)
{
	uint32_t most = 0;
	for (unsigned i = 0; i < t->nrows; i++)
		if (t->rows[i].threads > most)
			most = t->rows[i].threads;
	const summary_row *fast = NULL;
	unsigned at_most = 0;
	for (unsigned i = 0; i < t->nrows; i++)
		if (t->rows[i].threads == most) {
			at_most++;
			if (!fast || t->rows[i].median > fast->median)
				fast = &t->rows[i];
		}
	double b = base ? median_of(t, base, most) : NAN;
	if (at_most < 2 || !fast || !(b > 0))
		return;
	if (fast->v == base)
		fprintf(t->f, "%s (the baseline) ran fastest at %u thread%s\n", base->name, most,
		        most == 1 ? "" : "s");
	else
		fprintf(t->f, "%s ran %.2fx faster than %s at %u thread%s\n", fast->v->name,
		        fast->median / b, base->name, most, most == 1 ? "" : "s");
}

/* A JSON number, or null when not finite. */
static void jnum(FILE *f, const char *key, double x)
{
	fprintf(f, ",\"%s\":", key);
	if (isfinite(x))
		fprintf(f, "%.17g", x);
	else
		fputs("null", f);
}

static void aggregates(const summary *t, FILE *f, const sc_variant *base)
{
	for (unsigned i = 0; i < t->nrows; i++) {
		const summary_row *r = &t->rows[i];
		/* variant names are the library's identifiers: no character to escape */
		fprintf(f, "{\"aggregate\":\"point\",\"counter\":\"%s\",\"threads\":%u,"
		                 "\"runs\":%u", r->v->name, r->threads, r->n);
		jnum(f, "median_ops_per_ms", r->median);
		jnum(f, "mean_ops_per_ms", r->mean);
		jnum(f, "stddev_ops_per_ms", r->sd);
		jnum(f, "cv", r->cv);
		jnum(f, "spread", r->spread);
		jnum(f, "median_rel_error", r->err);
		fprintf(f, ",\"baseline\":");
		if (base)
			fprintf(f, "\"%s\"", base->name);
		else
			fputs("null", f);
		jnum(f, "ratio", ratio_of(t, r, base));
		fprintf(f, ",\"flags\":\"%s\"}\n", r->flags);
	}
}

void summary_finish(summary *t, FILE *json)
{
	if (!t->nrows)
		return;
	const sc_variant *base = summary_baseline(t);
	if (t->json && json)
		aggregates(t, json, base);
	if (t->f) {
		table(t, base);
		closing(t, base);
		fflush(t->f);
	}
}
