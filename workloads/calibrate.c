/* SPDX-License-Identifier: MIT */
/*
 * calibrate.c - turn an external-work percentage into a mean pause count
 * (doc/design.md §4, Dice §5: "99% external work means that the single-thread
 * throughput is 1/100 of the throughput achieved with no external work").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "workload.h"

double wl_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * ns per iteration of the single-thread CAS loop with m pauses on average:
 * the best of nine short repetitions (the least disturbed by other work);
 * *median gets their median and *shortest_s the shortest repetition's
 * length in seconds, for the checks of wl_calibrate.
 */
static double cas_loop_ns(const sc_table *cas, double m, uint64_t ops, double *median,
                          double *shortest_s)
{
	enum { REPS = 9 };
	wl_thread w;
	wl_thread_init(&w, 0, 0, 1, false);
	wl_phase ph = {.table = cas, .work_iters = m, .ops = ops, .stop = NULL};
	double ns[REPS], shortest = INFINITY;
	for (int rep = 0; rep < REPS; rep++) {
		double t0 = wl_now();
		wl_variant_loops[SC_ID_cas].count(&ph, &w);
		double dt = wl_now() - t0;
		shortest = fmin(shortest, dt);
		/* insertion sort: nine values */
		int i = rep;
		for (double x = dt * 1e9 / (double)ops; i > 0 && ns[i - 1] > x; i--)
			ns[i] = ns[i - 1];
		ns[i] = dt * 1e9 / (double)ops;
	}
	if (median)
		*median = ns[REPS / 2];
	if (shortest_s)
		*shortest_s = shortest;
	return ns[0];
}

/* A repetition must last this many timer resolutions for its time to mean anything. */
#define WL_CAL_MIN_TICKS 100.0

/*
 * The model t(m) = t_inc + m * t_pause is only approximately linear: at a
 * few pauses per increment the pauses overlap the increment and the loop's
 * own work, so the effective cost per pause depends on m. Start from the
 * model with t_pause measured at 256 pauses, then refine m by measuring the
 * loop at the current estimate and re-solving with the effective slope.
 *
 * Usable only when the 256 pauses of the probe add at least one increment's
 * time and more than three times the no-work loop's own spread (median less
 * best of its repetitions): below that, t_pause is noise.
 *
 * The probe only gives the refinement its starting point (the refined slope
 * decides m), so it is kept short: 2,500 increments of 256 pauses, about 12 ms
 * a repetition at 20 ns per pause, still thousands of timer resolutions. It
 * was 10,000 increments, about half of every --work invocation's start-up.
 */
int wl_calibrate(double pct, wl_calibration *cal)
{
	enum { PROBE_M = 256, PROBE_OPS = 2500, REFINE_STEPS = 3 };
	sc_table cas;
	sc_params p;
	sc_env env;
	sc_err err;
	struct timespec res;
	cal->why[0] = '\0';
	sc_params_clear(&p);
	sc_env_default(&env);
	if (sc_table_create(&cas, &sc_variants[SC_ID_cas], &p, &env, 1, &err)) {
		snprintf(cal->why, sizeof cal->why, "cannot make the CAS counter: %s", err.msg);
		return WL_CAL_UNUSABLE;
	}
	double res_s = clock_getres(CLOCK_MONOTONIC, &res) == 0
	                   ? (double)res.tv_sec + (double)res.tv_nsec * 1e-9 : NAN;
	/* Test hook (scbench --help, doc/running.md): the probe's pauses replaced by nothing, as if a pause cost nothing. */
	const char *hook = getenv("SCBENCH_TEST_FREE_PAUSE");
	double probe_m = hook && *hook && strcmp(hook, "0") != 0 ? 0 : PROBE_M;
	double inc_median, inc_short, probe_median, probe_short;
	double t_inc = cas_loop_ns(&cas, 0, 1000000, &inc_median, &inc_short);
	double t_probe = cas_loop_ns(&cas, probe_m, PROBE_OPS, &probe_median, &probe_short);
	double added = t_probe - t_inc; /* ns the probe's pauses add per increment */
	double spread = inc_median - t_inc;
	double t_pause = added / PROBE_M;
	int rc = WL_CAL_OK;
	if (!(res_s > 0) || fmin(inc_short, probe_short) < WL_CAL_MIN_TICKS * res_s) {
		snprintf(cal->why, sizeof cal->why,
		         "the timer is too coarse: resolution %.3g s, shortest timed repetition "
		         "%.3g s (at least %.0f resolutions needed)",
		         res_s, fmin(inc_short, probe_short), WL_CAL_MIN_TICKS);
		rc = WL_CAL_UNUSABLE;
	} else if (!(t_inc > 0)) {
		snprintf(cal->why, sizeof cal->why, "an increment took %.3g ns: no time measured", t_inc);
		rc = WL_CAL_UNUSABLE;
	} else if (!(added >= t_inc) || !(added > 3 * spread)) {
		/*
		 * A noisy no-work loop (median far above best) says the machine was
		 * disturbed: another try may see it quiet. Otherwise the pause itself
		 * costs nothing measurable, and trying again will not change that.
		 */
		bool disturbed = spread > 0.25 * t_inc;
		snprintf(cal->why, sizeof cal->why,
		         "%s: %d pauses added %.3g ns to a %.3g ns increment (best of 9; the "
		         "no-work loop's median was %.3g ns, a spread of %.3g ns); usable only "
		         "when they add at least one increment and more than 3 spreads",
		         disturbed ? "the machine is too disturbed to measure a pause"
		                   : "a pause costs nothing measurable",
		         PROBE_M, added, t_inc, inc_median, spread);
		rc = disturbed ? WL_CAL_RETRY : WL_CAL_UNUSABLE;
	}
	double target = pct / (100.0 - pct) * t_inc; /* ns of work per increment */
	double m = rc == WL_CAL_OK ? target / t_pause : 0;
	for (int step = 0; step < REFINE_STEPS && m > 0 && m < WL_MAX_WORK_ITERS; step++) {
		uint64_t ops = (uint64_t)(4e6 / (t_inc + target)) + 1000; /* ~4 ms */
		double slope = (cas_loop_ns(&cas, probe_m ? m : 0, ops, NULL, NULL) - t_inc) / m;
		if (!(slope > 0))
			break;
		t_pause = slope;
		m = target / t_pause;
	}
	sc_table_destroy(&cas);
	cal->pct = pct;
	cal->ns_per_inc = t_inc;
	cal->ns_per_pause = t_pause;
	/* Not clamped: m above WL_MAX_WORK_ITERS is the caller's error to report. */
	cal->work_iters = m;
	return rc;
}
