/* SPDX-License-Identifier: MIT */
/* csv.c - the CSV's header and rows, from the one column list of csv.h. */
#include "csv.h"

#include <math.h>
#include <string.h>

#include "cli.h"
#include "histogram.h"
#include "meta.h"
#include "output.h"

/* A CSV field: quoted when it holds a comma, quote or newline. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* A number, or an empty field when it was not measured. */
static void num_field(FILE *f, bool have, double x, int decimals)
{
	if (have && isfinite(x))
		fprintf(f, "%.*f", decimals, x);
}

/* The formats of csv.h. */
static void csv_put_TEXT(FILE *f, const char *s) { csv_field(f, s); }
static void csv_put_UINT(FILE *f, unsigned x) { fprintf(f, "%u", x); }
static void csv_put_U64(FILE *f, uint64_t x) { fprintf(f, "%llu", (unsigned long long)x); }
static void csv_put_FLAG(FILE *f, bool x) { fputc(x ? '1' : '0', f); }
static void csv_put_FIX1(FILE *f, double x) { fprintf(f, "%.1f", x); }
static void csv_put_FIX4(FILE *f, double x) { fprintf(f, "%.4f", x); }
static void csv_put_G6(FILE *f, double x) { fprintf(f, "%.6g", x); }
static void csv_put_G9(FILE *f, double x) { fprintf(f, "%.9g", x); }
static void csv_put_OPT0(FILE *f, double x) { num_field(f, true, x, 0); }
static void csv_put_OPT1(FILE *f, double x) { num_field(f, true, x, 1); }
static void csv_put_OPT2(FILE *f, double x) { num_field(f, true, x, 2); }
static void csv_put_OPT3(FILE *f, double x) { num_field(f, true, x, 3); }

/* What the column values of csv.h are computed from. */
typedef struct csv_row {
	const run_setup *s;
	const run_plan *p;
	const sc_variant *v;
	uint32_t threads;
	unsigned run;
	const run_result *r;
	char params[1024];     /* key=value;key=value */
	const char *pmu_status; /* the setup's in the first row, "" after it (meta.json has it),
	                           unless this run's workers failed to count */
	char failed[300];
	char pus_used[OUT_SET_TEXT], nodes_used[OUT_SET_TEXT];
} csv_row;

static void row_prepare(csv_row *x, const plan_variant *pv)
{
	const sc_params *pp = &pv->params;
	size_t at = 0;
	x->params[0] = '\0';
	for (unsigned i = 0; i < pp->n && at < sizeof x->params; i++)
		at += (size_t)snprintf(x->params + at, sizeof x->params - at, "%s%s=%s",
		                       i ? ";" : "", pp->key[i], pp->value[i]);
	const run_plan *p = x->s->plan;
	bool first = pv == &p->variants[0] && p->nthreads && x->threads == p->threads[0] &&
	             x->run == p->first_run;
	x->pmu_status = first ? x->s->pmu_status : "";
	if (x->r->pmu_failure) {
		snprintf(x->failed, sizeof x->failed, "failed in this run: %s", x->r->pmu_failure);
		x->pmu_status = x->failed;
	}
	out_set_text(&x->r->pus_used, ' ', x->pus_used, sizeof x->pus_used);
	out_set_text(&x->r->nodes_used, ' ', x->nodes_used, sizeof x->nodes_used);
}

void out_csv_header(FILE *f, const run_setup *s)
{
	static const char *const names[] = {
#define CSV_NAME_(name, format, value, min, max, allowed, meaning) #name,
		CSV_COLUMNS(CSV_NAME_)
#undef CSV_NAME_
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		fprintf(f, "%s%s", i ? "," : "", names[i]);
	for (unsigned e = 0; s->pmu && e < s->pmu->nrequested; e++)
		fprintf(f, ",%s_per_op", s->pmu->requested[e]);
#define CSV_LAT_NAME_(name, i, meaning) fputs("," #name, f);
	if (s->plan->latency) {
		CSV_LATENCY_COLUMNS(CSV_LAT_NAME_)
	}
#undef CSV_LAT_NAME_
	fputc('\n', f);
}

/*
 * --format=json: the same columns as the CSV, one JSON object per row (JSON
 * Lines); a number that is not finite, or an empty optional one, is null.
 */
static void json_num(FILE *f, bool have, double x, int decimals)
{
	if (have && isfinite(x))
		fprintf(f, "%.*f", decimals, x);
	else
		fputs("null", f);
}
static void json_g(FILE *f, double x, int digits)
{
	if (isfinite(x))
		fprintf(f, "%.*g", digits, x);
	else
		fputs("null", f);
}
static void json_put_TEXT(FILE *f, const char *s) { meta_json_string(f, s); }
static void json_put_UINT(FILE *f, unsigned x) { fprintf(f, "%u", x); }
static void json_put_U64(FILE *f, uint64_t x) { fprintf(f, "%llu", (unsigned long long)x); }
static void json_put_FLAG(FILE *f, bool x) { fputc(x ? '1' : '0', f); }
static void json_put_FIX1(FILE *f, double x) { json_num(f, true, x, 1); }
static void json_put_FIX4(FILE *f, double x) { json_num(f, true, x, 4); }
static void json_put_G6(FILE *f, double x) { json_g(f, x, 6); }
static void json_put_G9(FILE *f, double x) { json_g(f, x, 9); }
static void json_put_OPT0(FILE *f, double x) { json_num(f, true, x, 0); }
static void json_put_OPT1(FILE *f, double x) { json_num(f, true, x, 1); }
static void json_put_OPT2(FILE *f, double x) { json_num(f, true, x, 2); }
static void json_put_OPT3(FILE *f, double x) { json_num(f, true, x, 3); }

/* Before a field: the comma (CSV), or the key and its colon (JSON, "{" first). */
static void field_start(FILE *f, bool json, const char *name, int *col)
{
	if (json) {
		fputc(*col ? ',' : '{', f);
		meta_json_string(f, name);
		fputc(':', f);
	} else if (*col) {
		fputc(',', f);
	}
	(*col)++;
}

/* A measured number: decimals places, or empty (CSV) / null (JSON) when not measured. */
static void measured(FILE *f, bool json, bool have, double x, int decimals)
{
	if (json)
		json_num(f, have, x, decimals);
	else
		num_field(f, have, x, decimals);
}

/* One run's row, as CSV (the header's order) or as one JSON object with those keys. */
static void out_row(FILE *f, bool json, const run_setup *s, const plan_variant *pv,
                    uint32_t threads, unsigned run, const run_result *r)
{
	csv_row row = {.s = s, .p = s->plan, .v = pv->v, .threads = threads, .run = run, .r = r};
	const csv_row *x = &row;
	int col = 0;
	row_prepare(&row, pv);
#define ROW_PUT_(name, format, value, min, max, allowed, meaning) \
	field_start(f, json, #name, &col);                        \
	if (json)                                                 \
		json_put_##format(f, (value));                    \
	else                                                      \
		csv_put_##format(f, (value));
	CSV_COLUMNS(ROW_PUT_)
#undef ROW_PUT_
	/* Requested events that are not counted here keep their (empty) columns. */
	for (unsigned e = 0; s->pmu && e < s->pmu->nrequested; e++) {
		int k = pmu_column_event(s->pmu, e);
		char key[256];
		snprintf(key, sizeof key, "%s_per_op", s->pmu->requested[e]);
		field_start(f, json, key, &col);
		measured(f, json, r->pmu_counted && k >= 0, k >= 0 ? r->per_op[k] : 0, 4);
	}
#define ROW_LAT_PUT_(name, i, meaning)     \
	field_start(f, json, #name, &col); \
	measured(f, json, r->latency, r->lat_ns[i], 1);
	if (s->plan->latency) {
		CSV_LATENCY_COLUMNS(ROW_LAT_PUT_)
	}
#undef ROW_LAT_PUT_
	fputs(json ? "}\n" : "\n", f);
}

void out_csv_row(FILE *f, const run_setup *s, const plan_variant *pv, uint32_t threads,
                 unsigned run, const run_result *r)
{
	out_row(f, false, s, pv, threads, run, r);
}

void out_json_row(FILE *f, const run_setup *s, const plan_variant *pv, uint32_t threads,
                  unsigned run, const run_result *r)
{
	out_row(f, true, s, pv, threads, run, r);
}

/* A column's type, from the format it is printed in (csv.h). */
#define CSV_TYPE_TEXT "text"
#define CSV_TYPE_UINT "int"
#define CSV_TYPE_U64 "int"
#define CSV_TYPE_OPT0 "int"
#define CSV_TYPE_FLAG "0/1"
#define CSV_TYPE_FIX1 "real"
#define CSV_TYPE_FIX4 "real"
#define CSV_TYPE_G6 "real"
#define CSV_TYPE_G9 "real"
#define CSV_TYPE_OPT1 "real"
#define CSV_TYPE_OPT2 "real"
#define CSV_TYPE_OPT3 "real"

/* A bound of a number's column: null when unbounded (or text), else as written. */
static void schema_bound(FILE *f, const char *type, double x)
{
	if (strcmp(type, "text") == 0 || !isfinite(x))
		fputs("null", f);
	else if (x >= CSV_U64_MAX)
		fputs("18446744073709551615", f); /* exactly, where a double would round up */
	else
		fprintf(f, "%.17g", x);
}

/* One column of the schema (csv.h); allowed is "" or values joined by '|'. */
static void schema_column(FILE *f, bool first, const char *name, const char *type, double min,
                          double max, const char *allowed, const char *meaning)
{
	fputs(first ? "\n  {\"name\": " : ",\n  {\"name\": ", f);
	meta_json_string(f, name);
	fprintf(f, ", \"type\": \"%s\", \"min\": ", type);
	schema_bound(f, type, min);
	fputs(", \"max\": ", f);
	schema_bound(f, type, max);
	fputs(", \"allowed\": [", f);
	for (const char *at = allowed; *at;) {
		size_t n = strcspn(at, "|");
		char value[64];
		snprintf(value, sizeof value, "%.*s", (int)n, at);
		fputs(at == allowed ? "" : ", ", f);
		meta_json_string(f, value);
		at += n + (at[n] == '|');
	}
	fputs("], \"meaning\": ", f);
	meta_json_string(f, meaning);
	fputc('}', f);
}

void out_csv_schema_json(FILE *f)
{
	bool first = true;
	fputs("{\"columns\": [", f);
#define SCHEMA_COLUMN_(name, format, value, min, max, allowed, meaning)                \
	schema_column(f, first, #name, CSV_TYPE_##format, min, max, allowed, meaning); \
	first = false;
	CSV_COLUMNS(SCHEMA_COLUMN_)
#undef SCHEMA_COLUMN_
	fputs("],\n \"event_suffix\": \"_per_op\", \"latency_columns\": [", f);
	first = true;
#define SCHEMA_LAT_(name, i, meaning)                                          \
	schema_column(f, first, #name, "real", 0, CSV_UNBOUNDED, "", meaning); \
	first = false;
	CSV_LATENCY_COLUMNS(SCHEMA_LAT_)
#undef SCHEMA_LAT_
	fputs("]}", f);
}

const char out_latency_header[] = "counter,threads,run,bucket_low_ns,bucket_high_ns,count\n";

void out_latency_rows(FILE *f, const sc_variant *v, uint32_t threads, unsigned run,
                      const run_result *r)
{
	const lat_hist *h = r->hist;
	uint64_t zero = 0;
	if (!h)
		return;
	/* Buckets wholly at or below the tick-read overhead are 0 ns: one row [0, 0]. */
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned b = 0; b < LAT_HIST_BUCKETS; b++) {
			uint64_t lo, hi;
			if (!h->counts[b])
				continue;
			lat_hist_bucket_bounds(lat_hist_bucket_first(b), &lo, &hi);
			double low = fmax(0, (double)lo - r->lat_overhead_ticks) * r->lat_ns_per_tick;
			double high = fmax(0, (double)hi + 1 - r->lat_overhead_ticks) * r->lat_ns_per_tick;
			if (pass == 0) {
				zero += high == 0 ? h->counts[b] : 0;
				continue;
			}
			if (high == 0)
				continue;
			csv_field(f, v->name);
			fprintf(f, ",%u,%u,%.3f,%.3f,%llu\n", threads, run, low, high,
			        (unsigned long long)h->counts[b]);
		}
		if (pass == 0 && zero) {
			csv_field(f, v->name);
			fprintf(f, ",%u,%u,0,0,%llu\n", threads, run, (unsigned long long)zero);
		}
	}
}
