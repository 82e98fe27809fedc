/* SPDX-License-Identifier: MIT */
/* plan.c - the variants' parameters and the external work of a plan, and how long it will take (plan.h). */
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Does variant v accept this parameter key? */
static bool variant_accepts(const sc_variant *v, const char *key)
{
	if (strcmp(key, "same-seed") == 0)
		return true;
	size_t kl = strlen(key);
	for (const char *s = v->params; *s;) {
		const char *e = strchr(s, ',');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		if (l == kl && strncmp(s, key, l) == 0)
			return true;
		s += l + (e ? 1 : 0);
	}
	return false;
}

/* pv->params: the keys of given that pv->v accepts, ready for sc_table_create. */
static void variant_params(plan_variant *pv, const sc_params *given)
{
	sc_params_clear(&pv->params);
	for (unsigned k = 0; k < given->n; k++)
		if (variant_accepts(pv->v, given->key[k])) {
			unsigned j = pv->params.n++;
			memcpy(pv->params.key[j], given->key[k], SC_MAX_KEY);
			pv->params.value[j] = given->value[k];
		}
}

int plan_set_params(run_plan *p, const sc_params *given, int *bad_key, sc_err *err)
{
	*bad_key = -1;
	for (unsigned k = 0; k < given->n; k++) {
		bool taken = false;
		for (unsigned i = 0; i < p->nvariants && !taken; i++)
			taken = variant_accepts(p->variants[i].v, given->key[k]);
		if (!taken) {
			*bad_key = (int)k;
			return -1;
		}
	}
	sc_env env;
	sc_env_default(&env);
	env.nodes = p->nodes ? p->nodes : 1;
	for (unsigned i = 0; i < p->nvariants; i++) {
		plan_variant *pv = &p->variants[i];
		sc_table t;
		variant_params(pv, given);
		sc_params copy = pv->params; /* sc_table_create marks the keys it used */
		if (sc_table_create(&t, pv->v, &copy, &env, 1, err))
			return -1;
		sc_table_destroy(&t);
	}
	return 0;
}

/* A disturbed machine gets this many calibration attempts. */
#define CAL_ATTEMPTS 3
#define CAL_ATTEMPTS_TEXT "3"

/* wl_calibrate at pct%, retried while the machine is too disturbed. */
static int calibrate(double pct, bool for_work, wl_calibration *cal)
{
	int cr = WL_CAL_RETRY;
	for (int attempt = 1; attempt <= CAL_ATTEMPTS && cr == WL_CAL_RETRY; attempt++) {
		if (attempt > 1) {
			fprintf(stderr, "scbench: calibration attempt %d of %d: %s; trying again\n",
			        attempt - 1, CAL_ATTEMPTS, cal->why);
			nanosleep(&(struct timespec){0, 200000000}, NULL); /* let a burst pass */
		}
		cr = wl_calibrate(pct, cal);
	}
	if (cr == WL_CAL_OK)
		return 0;
	fprintf(stderr, "scbench: calibration of the external work for %s failed: %s%s\n",
	        for_work ? "--work" : "--work-iters", cal->why,
	        cr == WL_CAL_RETRY ? " (after " CAL_ATTEMPTS_TEXT " attempts)" : "");
	return SCBENCH_EXIT_CALIBRATION;
}

int plan_work(const run_plan *p, double *work_iters, wl_calibration *cal, bool *calibrated,
              double *work_ns)
{
	char opt[64];
	*calibrated = false;
	*work_ns = 0;
	*work_iters = p->work_iters;
	bool given = p->work_iters_given || p->work_iters_for_pct;
	bool pct = !given && p->work_pct > 0;
	/* --work-iters: the pause cost matters only for large m or a count-mode estimate. */
	bool iters = given && p->work_iters > 0 && (p->work_iters > 1000 || p->count_mode);
	if (!pct && !iters)
		return 0;
	int rc = calibrate(pct ? p->work_pct : 50, pct, cal);
	if (rc)
		return rc;
	double m = pct ? cal->work_iters : p->work_iters;
	if (pct) {
		*work_iters = m;
		*calibrated = true;
		snprintf(opt, sizeof opt, "--work=%.10g", p->work_pct);
	} else {
		snprintf(opt, sizeof opt, "--work-iters=%.10g", p->work_iters);
	}
	*work_ns = m * cal->ns_per_pause;
	char cost[32];
	if (*work_ns >= 1e9)
		snprintf(cost, sizeof cost, "%.3g s", *work_ns * 1e-9);
	else
		snprintf(cost, sizeof cost, "%.3g ms", *work_ns * 1e-6);
	if (*work_ns > 1e6 && !p->force) {
		fprintf(stderr, "scbench: %s: one increment would take %s of external work "
		                "(%.3g pauses of %.1f ns), over 1 ms; give --force to run it anyway\n",
		        opt, cost, m, cal->ns_per_pause);
		return 2;
	}
	if (m > WL_MAX_WORK_ITERS) {
		fprintf(stderr, "scbench: %s: one increment would need %.3g pauses (%s of external "
		                "work), more than the %.0f scbench can run\n",
		        opt, m, cost, WL_MAX_WORK_ITERS);
		return 2;
	}
	return 0;
}

/*
 * Expected seconds of one run at this thread count. Timed: warm-up, the
 * measured phase, and about 50 ms to create, pin and join the threads.
 * Count mode: 2 ms, plus every increment serialised on one contended line
 * (about 6.65 ns each, the worst case), plus the external work, which runs
 * in parallel on at most min(threads, PUs) PUs.
 */
static double run_seconds_estimate(const run_plan *p, uint32_t pus, uint32_t threads,
                                   double work_ns)
{
	if (!p->count_mode)
		return p->warmup + p->duration + 0.05;
	double incs = (double)p->ops * threads;
	double par = threads < pus ? threads : pus;
	return 0.002 + incs * 6.65e-9 + incs * work_ns * 1e-9 / par;
}

double plan_seconds(const run_plan *p, uint32_t pus, double work_ns, bool calibrates)
{
	double t = calibrates ? 0.3 : 0;
	for (unsigned ti = 0; ti < p->nthreads; ti++)
		t += (double)p->nvariants * p->runs *
		     run_seconds_estimate(p, pus, p->threads[ti], work_ns);
	return t;
}

void plan_format_duration(char *buf, size_t n, double sec)
{
	if (sec < 120)
		snprintf(buf, n, "%.0f s", sec);
	else if (sec < 7200)
		snprintf(buf, n, "%.0f min", sec / 60);
	else
		snprintf(buf, n, "%.0f h %.0f min", floor(sec / 3600), fmod(sec, 3600) / 60);
}
