/* SPDX-License-Identifier: MIT */
/*
 * test_bfp_steps.c - BFP-CSUP's add(n) costs O(log n) steps. counters/bfp.c
 * is compiled into this test with SC_BFP_TEST_STEP counting the iterations
 * of add's loops (each at most one draw or Binomial and one CAS), so the
 * cost is counted, not timed: deterministic. Past 2^28 the mantissa is full
 * and every exponent e holds 2^27 plain bumps; add went through them one
 * update at a time (about 1.3e8 steps for add(2^30) from 0, more than
 * 2^30 increments' worth of time), and now takes chunks of Binomial many.
 * Bound: add(n) from 0 in at most 64 steps per exponent reached plus 256
 * single updates per exponent (the last bumps of a mantissa) and the e = 0
 * run: 15 x (64 + 256) + 16 = 4,816 for any n.
 *
 * Also its distribution (one thread): 200 repetitions of add(2^31) from 0
 * against the uncontended increments' law: 2^28 exact trials, then 2^28 at
 * e = 1, 2^29 at e = 2 and 2^30 at e = 3, variance
 * 2^28 (1 + 3 x 2 + 7 x 4) = 35 x 2^28: the mean within 5 standard errors
 * of 2^31 (false-failure probability 5.7e-7) and the sample variance
 * within a factor 1.6 of 35 x 2^28 (4.7 sd of the log ratio for 199
 * degrees of freedom, about 3e-6). Seed 19 per repetition's thread.
 */
#include <scounters/scounters.h>

#include <math.h>

#include "tap.h"

static uint64_t steps;
#define SC_BFP_TEST_STEP() (steps++)
#include "../counters/bfp.c"

#define STEP_BOUND 4816u

int main(void)
{
	tap_plan_lazy();
	sc_bfp_csup_cfg cfg;
	sc_params p;
	sc_err err;
	sc_env env = {1, 1, 1};
	sc_params_clear(&p);
	if (sc_bfp_csup_config(&cfg, &p, &env, &err)) {
		tap_ok(false, "config: %s", err.msg);
		return tap_done();
	}
	static const unsigned LOGS[] = {20, 28, 29, 30, 34, 38, 42};
	bool ok = true;
	for (unsigned i = 0; i < sizeof LOGS / sizeof LOGS[0] && ok; i++) {
		sc_bfp_csup_t c;
		sc_thread t;
		sc_bfp_csup_init(&c, &cfg, &err);
		sc_thread_init(&t, 0, 0, 19, false);
		steps = 0;
		uint64_t n = 1ull << LOGS[i];
		sc_bfp_csup_add(&c, &cfg, &t, n);
		double rel = (double)sc_bfp_csup_get(&c, &cfg) / (double)n - 1;
		ok = tap_ok(steps <= STEP_BOUND && fabs(rel) < 0.01,
		            "BFP-CSUP add(2^%u) from 0: %llu steps (bound %u), value %+.4f%% of n",
		            LOGS[i], (unsigned long long)steps, STEP_BOUND, 100 * rel);
	}
	/* the distribution of add(2^31) */
	const unsigned reps = 200;
	double sum = 0, sum2 = 0;
	for (unsigned r = 0; r < reps; r++) {
		sc_bfp_csup_t c;
		sc_thread t;
		sc_bfp_csup_init(&c, &cfg, &err);
		sc_thread_init(&t, r, 0, 19, false);
		sc_bfp_csup_add(&c, &cfg, &t, 1ull << 31);
		double v = (double)sc_bfp_csup_get(&c, &cfg) - 0x1p31;
		sum += v;
		sum2 += v * v;
	}
	double mean = sum / reps, var = (sum2 - reps * mean * mean) / (reps - 1);
	double want = 35 * 0x1p28, se = sqrt(want / reps);
	tap_ok(fabs(mean) <= 5 * se && var < 1.6 * want && var > want / 1.6,
	       "BFP-CSUP add(2^31) x %u: mean 2^31 %+.0f (5 se %.0f), variance %.4g (expected "
	       "%.4g)", reps, mean, 5 * se, var, want);
	return tap_done();
}
