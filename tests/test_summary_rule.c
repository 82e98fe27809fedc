/* SPDX-License-Identifier: MIT */
/*
 * test_summary_rule.c - scbench's table (harness/summary.h) on made-up runs:
 * the outlier rule (beyond 3 x 1.4826 MAD of the logs, 5 runs or more), the
 * busy and time flags, the default baseline (the slowest precise counter at
 * the most threads, not a slower probabilistic one), --baseline, the ratio
 * column, the closing line and the JSON aggregates. Deterministic.
 */
#include "summary.h"
#include "tap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool outlier(const double *v, unsigned n)
{
	double x[8];
	char out[2];
	memcpy(x, v, n * sizeof *x);
	summary_outlier_flag(x, n, out);
	return out[0] == 'o';
}

/* One point of runs equal to ops each (5 runs), seconds and busy as given. */
static void point(summary *t, const sc_variant *v, uint32_t threads, double ops, double seconds,
                  bool busy)
{
	for (unsigned i = 0; i < 5; i++)
		summary_add(t, ops * (1 + 0.001 * i), 0.01, seconds, busy && i == 2);
	summary_point(t, v, threads);
}

static char *finish(summary *t, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (json)
		summary_finish(t, m);
	else {
		t->f = m;
		summary_finish(t, NULL);
	}
	fclose(m);
	return buf;
}

int main(void)
{
	tap_plan_lazy();
	const double tight[5] = {100, 101, 99, 100.5, 99.5}, one_off[5] = {100, 101, 99, 100.5, 200};
	const double four[4] = {100, 101, 99, 200}, flat[5] = {100, 100, 100, 100, 300};
	tap_ok(!outlier(tight, 5), "five runs within 1%%: no outlier");
	tap_ok(outlier(one_off, 5), "one run at twice the others: an outlier");
	tap_ok(!outlier(four, 4), "four runs: the rule needs five");
	tap_ok(!outlier(flat, 5), "a MAD of 0: no scale, no flag");
	const double near[5] = {100, 100.5, 99.5, 101, 102};
	tap_ok(!outlier(near, 5), "a run 2%% off among runs within 1%%: no outlier (3 MADs)");

	const sc_variant *fa = &sc_variants[SC_ID_fetchadd], *sh = &sc_variants[SC_ID_sharded];
	const sc_variant *mo = &sc_variants[SC_ID_morris];
	summary t;
	summary_init(&t, NULL, true, false, 5, 1.0, NULL);
	point(&t, fa, 1, 1000, 1.0, false);
	point(&t, fa, 2, 500, 1.0, false);
	point(&t, sh, 1, 2000, 1.0, true);
	point(&t, sh, 2, 2000, 1.2, false); /* 0.2 s off a 1 s target: t */
	point(&t, mo, 1, 900, 1.0, false);
	point(&t, mo, 2, 100, 1.0, false); /* slower, but not precise */
	tap_ok(summary_baseline(&t) == fa, "default baseline: the slowest precise counter (FetchAdd)");
	tap_ok(!strcmp(t.rows[2].flags, "b") && !strcmp(t.rows[3].flags, "t") && !t.rows[0].flags[0],
	       "flags: b for a busy run, t for 0.2 s off 1 s, none otherwise");
	tap_ok(fabs(t.rows[0].mean - 1002) < 1e-9 && fabs(t.rows[0].median - 1002) < 1e-9,
	       "mean and median of 1000 x (1, 1.001 .. 1.004): 1002");
	double sd = 1000 * 0.001 * sqrt(2.5); /* sample sd of 0, 1, 2, 3, 4 is sqrt(2.5) */
	tap_ok(fabs(t.rows[0].sd - sd) < 1e-9 && fabs(t.rows[0].cv - sd / 1002) < 1e-12,
	       "stddev (n - 1) and cv");
	char *out = finish(&t, false);
	tap_ok(strstr(out, "x FetchAdd") != NULL, "the ratio column is headed x FetchAdd");
	tap_ok(strstr(out, "Sharded ran 4.00x faster than FetchAdd at 2 threads\n") != NULL,
	       "closing line: Sharded ran 4.00x faster than FetchAdd at 2 threads");
	tap_ok(strstr(out, "flags: b a busy run") != NULL, "a legend when a point is flagged");
	free(out);
	out = finish(&t, true);
	tap_ok(strstr(out, "{\"aggregate\":\"point\",\"counter\":\"Sharded\",\"threads\":2,") &&
	       strstr(out, "\"baseline\":\"FetchAdd\",\"ratio\":4,\"flags\":\"t\"}\n"),
	       "JSON: an aggregate object per point with its ratio and flags");
	tap_ok(strstr(out, "\"stddev_ops_per_ms\":") && strstr(out, "\"cv\":"),
	       "JSON: mean, stddev and cv");
	free(out);
	t.baseline = sh;
	tap_ok(summary_baseline(&t) == sh, "--baseline=Sharded is used when measured");
	t.f = NULL;
	out = finish(&t, false);
	tap_ok(strstr(out, "Sharded (the baseline) ran fastest at 2 threads\n") != NULL,
	       "the baseline fastest: said so");
	free(out);
	summary_free(&t);
	return tap_done();
}
