/* SPDX-License-Identifier: MIT */
/* clock.c - calibration of the tick clock (clock.h). */
#include "clock.h"

#include <math.h>
#include <stdlib.h>

#include "workload.h"

static const char *rate_source = "measured";

double clk_ns_per_tick(void)
{
	static double ns_per_tick;
	if (ns_per_tick > 0)
		return ns_per_tick;
	double w0 = wl_now();
	uint64_t t0 = clk_ticks();
	double w1;
	do
		w1 = wl_now();
	while (w1 - w0 < 0.02);
	uint64_t t1 = clk_ticks();
	ns_per_tick = t1 > t0 ? (w1 - w0) * 1e9 / (double)(t1 - t0) : 1.0;
#if defined(__aarch64__)
	uint64_t hz = clk_nominal_hz();
	if (hz > 0) {
		double nominal = 1e9 / (double)hz;
		if (fabs(nominal - ns_per_tick) <= 0.01 * ns_per_tick) {
			ns_per_tick = nominal;
			rate_source = "cntfrq_el0";
		}
	}
#endif
	return ns_per_tick;
}

const char *clk_rate_source(void)
{
	clk_ns_per_tick();
	return rate_source;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

uint64_t clk_overhead_ticks(void)
{
	static uint64_t overhead = UINT64_MAX;
	if (overhead != UINT64_MAX)
		return overhead;
	enum { N = 1001 };
	uint64_t d[N];
	for (int i = 0; i < N; i++) {
		uint64_t a = clk_ticks();
		uint64_t b = clk_ticks();
		d[i] = b - a;
	}
	qsort(d, N, sizeof d[0], cmp_u64);
	overhead = d[N / 2];
	return overhead;
}

uint64_t clk_step_ticks(void)
{
	static uint64_t step;
	if (step)
		return step;
	uint64_t best = UINT64_MAX, prev = clk_ticks();
	for (int i = 0; i < 20000; i++) {
		uint64_t t = clk_ticks();
		if (t > prev && t - prev < best)
			best = t - prev;
		prev = t;
	}
	step = best == UINT64_MAX ? 1 : best;
	return step;
}
