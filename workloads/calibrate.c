/* SPDX-License-Identifier: MIT */
/*
 * calibrate.c - turn an external-work percentage into a mean pause count
 * (doc/design.md §4, Dice §5: "99% external work means that the single-thread
 * throughput is 1/100 of the throughput achieved with no external work").
 */
#include <math.h>
#include <time.h>

#include "workload.h"

double wl_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ns per iteration of the single-thread CAS loop with m pauses on average. */
static double cas_loop_ns(const sc_table *cas, double m, uint64_t ops)
{
	wl_thread w;
	wl_thread_init(&w, 0, 0, 1, false);
	wl_phase ph = {.table = cas, .work_iters = m, .ops = ops, .stop = NULL};
	double best = INFINITY;
	/* Best of nine short repetitions: the least disturbed by other work. */
	for (int rep = 0; rep < 9; rep++) {
		double t0 = wl_now();
		wl_variant_loops[SC_ID_cas].count(&ph, &w);
		double ns = (wl_now() - t0) * 1e9 / (double)ops;
		if (ns < best)
			best = ns;
	}
	return best;
}

/*
 * The model t(m) = t_inc + m * t_pause is only approximately linear: at a
 * few pauses per increment the pauses overlap the increment and the loop's
 * own work, so the effective cost per pause depends on m. Start from the
 * model with t_pause measured at 256 pauses, then refine m by measuring the
 * loop at the current estimate and re-solving with the effective slope.
 */
int wl_calibrate(double pct, wl_calibration *cal)
{
	enum { PROBE_M = 256, REFINE_STEPS = 3 };
	sc_table cas;
	sc_params p;
	sc_env env;
	sc_err err;
	sc_params_clear(&p);
	sc_env_default(&env);
	if (sc_table_create(&cas, &sc_variants[SC_ID_cas], &p, &env, 1, &err))
		return -1;
	double t_inc = cas_loop_ns(&cas, 0, 1000000);
	double t_pause = (cas_loop_ns(&cas, PROBE_M, 10000) - t_inc) / PROBE_M;
	double target = pct / (100.0 - pct) * t_inc; /* ns of work per increment */
	double m = t_pause > 0 ? target / t_pause : 0;
	for (int step = 0; step < REFINE_STEPS && m > 0 && m < WL_MAX_WORK_ITERS; step++) {
		uint64_t ops = (uint64_t)(4e6 / (t_inc + target)) + 1000; /* ~4 ms */
		double slope = (cas_loop_ns(&cas, m, ops) - t_inc) / m;
		if (!(slope > 0))
			break;
		t_pause = slope;
		m = target / t_pause;
	}
	sc_table_destroy(&cas);
	if (!(t_inc > 0) || !(t_pause > 0))
		return -1;
	cal->pct = pct;
	cal->ns_per_inc = t_inc;
	cal->ns_per_pause = t_pause;
	/* Not clamped: m above WL_MAX_WORK_ITERS is the caller's error to report. */
	cal->work_iters = m;
	return 0;
}
