/* SPDX-License-Identifier: MIT */
/*
 * test_counter_api.c - the handle API's signed add, its two readings, the
 * error-bound query and compare (TAP); sc_counter_new's parameter parsing
 * and messages are tests/test_counter_params.c:
 *   - sc_counter_add_signed: exact modular arithmetic on every precise
 *     variant, refused with ENOTSUP (counter unchanged) on the others;
 *   - sc_counter_error_bound: the kind and figure each variant's contract
 *     states;
 *   - the bounds against measured errors: Monte Carlo RSTDV of the
 *     probabilistic variants (R = 300 counters counted to n = 3000 by one
 *     thread) at most 1.25 x the stated bound, their mean within
 *     5 bound n / sqrt(R) of n, and for the variants whose bound is tight at
 *     n at least half of it. Seed: the handle API's fixed context seed (the
 *     main thread's context is the process's first), so the test is
 *     deterministic. False-failure probability, had the seed been random:
 *     the sample standard deviation of R = 300 has a relative standard
 *     error sqrt((kurtosis - 1)/(4R)), 0.041 for normal estimates and 0.058
 *     at kurtosis 5, so 1.25 x is over 4.3 standard errors (< 1e-5, 1e-9 if
 *     normal); the mean bound is 5 standard errors (< 1e-6); six variants:
 *     below 1e-4 in all;
 *   - sc_counter_compare: every variant at 1000, Batched with increments
 *     held back, and Morris near its threshold (probabilities below);
 *   - Batched: with 4 threads stopped holding 1000 mod B increments each
 *     (joined at a barrier, not flushed), get_fast lags by exactly what
 *     they hold, within the stated lag; get_sum is exact; after they exit,
 *     get_fast is exact. get_sum is also read while they run (ThreadSanitizer).
 */
#include <scounters/scounters.h>

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
static void signed_add(void)
{
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		sc_err err;
		sc_counter *c = sc_counter_new(v->name, "", &err);
		if (!tap_ok(c != NULL, "%s: made", v->name))
			continue;
		sc_counter_add(c, 10);
		if (v->kind == SC_PRECISE) {
			int r1 = sc_counter_add_signed(c, -3);
			uint64_t seven = sc_counter_get_sum(c);
			int r2 = sc_counter_add_signed(c, -10);
			uint64_t below = sc_counter_get_sum(c);
			int r3 = sc_counter_add_signed(c, 3);
			uint64_t zero = sc_counter_get_sum(c);
			int r4 = sc_counter_add_signed(c, INT64_MAX);
			int r5 = sc_counter_add_signed(c, -INT64_MAX);
			uint64_t zero2 = sc_counter_get_sum(c);
			/* below is -3 modulo the range 2^bits (bits 31, 32, 63 or 64): 2^bits - 3 */
			bool wrapped = below >= 0x7ffffffdu && ((below + 3) & (below + 2)) == 0;
			tap_ok(!r1 && !r2 && !r3 && !r4 && !r5 && seven == 7 && wrapped && zero == 0 &&
			           zero2 == 0,
			       "%s: add_signed: 10-3 = %llu, -3 reads %#llx, back to %llu, +-INT64_MAX %llu",
			       v->name, (unsigned long long)seven, (unsigned long long)below,
			       (unsigned long long)zero, (unsigned long long)zero2);
		} else {
			uint64_t before = sc_counter_get(c);
			errno = 0;
			int r1 = sc_counter_add_signed(c, -1);
			int e1 = errno;
			int r2 = sc_counter_add_signed(c, 1);
			tap_ok(r1 == -1 && e1 == ENOTSUP && r2 == -1 && sc_counter_get(c) == before,
			       "%s: add_signed refused with ENOTSUP, counter unchanged", v->name);
		}
		sc_counter_free(c);
	}
}

/*
 * The width of a default PerCPUTree's interval counted word by word: each
 * of the OS's CPUs and the overflow word may hold batch - 1, each carry
 * word of level l of the binary tree batch x 2^l - 1 (the root nothing).
 */
static uint64_t tree_width(uint64_t batch)
{
	sc_env env;
	sc_env_default(&env);
	uint64_t width = batch - 1, n = env.cpus;
	for (uint64_t b = batch; n > 1; n = (n + 1) / 2, b *= 2)
		width += n * (b - 1);
	return width + (env.cpus == 1 ? batch - 1 : 0); /* one CPU: its word below the root */
}

static void bounds(void)
{
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		sc_err err;
		sc_counter *c = sc_counter_new(v->name, "", &err);
		if (!c)
			continue;
		sc_counter_bound f = sc_counter_error_bound(c, SC_READ_FAST);
		sc_counter_bound s = sc_counter_error_bound(c, SC_READ_SUM);
		bool good;
		if (i == SC_ID_batched)
			good = f.kind == SC_BOUND_LAG && f.lag_per_thread == SC_BATCHED_DEFAULT - 1 &&
			       f.lag >= 8 * f.lag_per_thread && f.lag % f.lag_per_thread == 0 &&
			       s.kind == SC_BOUND_EXACT;
		else if (v->kind == SC_RACY) /* Serial, CASOnce: they lose updates */
			good = f.kind == SC_BOUND_NONE && s.kind == SC_BOUND_NONE;
		else if (i == SC_ID_percpu_tree)
			good = f.kind == SC_BOUND_LAG && f.lag == tree_width(SC_TREE_BATCH_DEFAULT) &&
			       f.lag_per_thread >= SC_TREE_BATCH_DEFAULT && s.kind == SC_BOUND_EXACT;
		else if (v->kind == SC_PRECISE)
			good = f.kind == SC_BOUND_EXACT && s.kind == SC_BOUND_EXACT && f.lag == 0;
		else
			good = f.kind == SC_BOUND_RSTDV && s.kind == SC_BOUND_RSTDV && f.rstdv == s.rstdv &&
			       f.rstdv > 0.005 && f.rstdv < 0.012;
		tap_ok(good, "%s: bound kinds %d/%d, lag %llu (%llu per thread), rstdv %.6f", v->name,
		       (int)f.kind, (int)s.kind, (unsigned long long)f.lag,
		       (unsigned long long)f.lag_per_thread, f.rstdv);
		sc_counter_free(c);
	}
	/* The figures of the contracts at their defaults. */
	static const struct {
		const char *name, *params;
		double rstdv;
	} want[] = {
		{"Morris", "", 0.01},                          /* 1/sqrt(2a), a = 5000 */
		{"Morris", "accuracy=5", 0.05},                /* a = 200 */
		{"BFP-DUP", "", 0.0100005000},                 /* sqrt(3/(8 * 3750 - 3)) */
		/* sqrt(3/(8 * 100 - 3)), as BFP-DUP (it said 1/sqrt(2 * 100) = 0.0707, 15% loose) */
		{"BFP-CSUP", "mantissa-threshold=200", 0.0613523873},
		{"Scalable", "", 0.0095683193},                /* sqrt(3/2^15) */
		{"ScalableCapped", "threshold=4", 0.2165063509}, /* sqrt(3/2^6) */
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		sc_err err;
		sc_counter *c = sc_counter_new(want[i].name, want[i].params, &err);
		double got = c ? sc_counter_error_bound(c, SC_READ_FAST).rstdv : -1;
		tap_ok(fabs(got - want[i].rstdv) < 1e-6 * want[i].rstdv,
		       "%s %s: rstdv %.10f (contract %.10f)", want[i].name, want[i].params, got,
		       want[i].rstdv);
		sc_counter_free(c);
	}
	sc_err err;
	sc_counter *c = sc_counter_new("Scalable", "runtime=dotnet", &err);
	tap_ok(c && sc_counter_error_bound(c, SC_READ_FAST).kind == SC_BOUND_NONE,
	       "Scalable runtime=dotnet: no bound (biased)");
	sc_counter_free(c);
}

#define MC_R 300
#define MC_N 3000

static void monte_carlo(void)
{
	static const struct {
		const char *name, *params;
		bool tight; /* the bound is within 2x of the true RSTDV at MC_N */
	} mc[] = {
		{"Morris", "accuracy=10", true},
		{"MorrisAdapt", "accuracy=10", false}, /* one thread: stays exact */
		{"BFP-DUP", "mantissa-threshold=32", true},
		{"BFP-CSUP", "mantissa-threshold=32", false}, /* one thread: exact */
		{"Scalable", "threshold=4", true},
		{"ScalableCapped", "threshold=4,cap=3", false},
	};
	for (size_t k = 0; k < sizeof mc / sizeof *mc; k++) {
		double sum = 0, sum2 = 0, bound = 0;
		for (int r = 0; r < MC_R; r++) {
			sc_err err;
			sc_counter *c = sc_counter_new(mc[k].name, mc[k].params, &err);
			if (!c) {
				tap_ok(false, "%s %s: %s", mc[k].name, mc[k].params, err.msg);
				return;
			}
			bound = sc_counter_error_bound(c, SC_READ_FAST).rstdv;
			for (int j = 0; j < MC_N; j++)
				sc_counter_inc(c);
			double e = (double)sc_counter_get(c) / MC_N;
			sum += e;
			sum2 += e * e;
			sc_counter_free(c);
		}
		double mean = sum / MC_R;
		double sd = sqrt((sum2 - MC_R * mean * mean) / (MC_R - 1));
		tap_ok(sd <= 1.25 * bound && fabs(mean - 1) <= 5 * bound / sqrt(MC_R) &&
		           (!mc[k].tight || sd >= 0.5 * bound),
		       "%s %s: measured RSTDV %.4f, mean %.4f n, stated bound %.4f%s", mc[k].name,
		       mc[k].params, sd, mean, bound, mc[k].tight ? " (tight)" : "");
	}
}

#define LAG_THREADS 4
#define LAG_INCS 1000
#define LAG_BATCH 64

static sc_counter *lag_c;
static pthread_barrier_t lag_stop, lag_go;

static void *lag_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < LAG_INCS; i++)
		sc_counter_inc(lag_c);
	pthread_barrier_wait(&lag_stop); /* the main thread reads here */
	pthread_barrier_wait(&lag_go);
	return NULL; /* exit flushes */
}

static void batched_lag(void)
{
	sc_err err;
	char params[32];
	snprintf(params, sizeof params, "batch=%d", LAG_BATCH);
	lag_c = sc_counter_new("Batched", params, &err);
	sc_counter_bound b = sc_counter_error_bound(lag_c, SC_READ_FAST);
	pthread_barrier_init(&lag_stop, NULL, LAG_THREADS + 1);
	pthread_barrier_init(&lag_go, NULL, LAG_THREADS + 1);
	pthread_t th[LAG_THREADS];
	for (int i = 0; i < LAG_THREADS; i++)
		pthread_create(&th[i], NULL, lag_worker, NULL);
	const uint64_t total = (uint64_t)LAG_THREADS * LAG_INCS;
	bool sane = true; /* get_sum while they run: at most the total plus one flush each */
	for (int i = 0; i < 200; i++)
		sane &= sc_counter_get_sum(lag_c) <= total + LAG_THREADS * LAG_BATCH;
	pthread_barrier_wait(&lag_stop);
	uint64_t fast = sc_counter_get_fast(lag_c), sum = sc_counter_get_sum(lag_c);
	uint64_t held = (uint64_t)LAG_THREADS * (LAG_INCS % LAG_BATCH);
	tap_ok(sane, "Batched: get_sum while threads run stays within one flush per thread");
	tap_ok(fast == total - held && sc_counter_get(lag_c) == fast,
	       "Batched: get_fast %llu lags %llu by the %llu held back", (unsigned long long)fast,
	       (unsigned long long)total, (unsigned long long)held);
	tap_ok(total - fast <= b.lag && LAG_INCS % LAG_BATCH <= b.lag_per_thread,
	       "Batched: measured lag %llu within the stated %llu (%llu per thread)",
	       (unsigned long long)(total - fast), (unsigned long long)b.lag,
	       (unsigned long long)b.lag_per_thread);
	tap_ok(sum == total, "Batched: get_sum %llu exact without a flush", (unsigned long long)sum);
	pthread_barrier_wait(&lag_go);
	for (int i = 0; i < LAG_THREADS; i++)
		pthread_join(th[i], NULL);
	tap_ok(sc_counter_get_fast(lag_c) == total, "Batched: get_fast exact after the threads exit");
	pthread_barrier_destroy(&lag_stop);
	pthread_barrier_destroy(&lag_go);
	sc_counter_free(lag_c);
}

/*
 * sc_counter_compare on every variant: counted to 1000 by add (one thread),
 * compared with 0, 999, 1000, 1001 and 10^6. Precise variants and Serial
 * (exact with one thread): +1, +1, 0, -1, -1. Probabilistic ones (default
 * parameters, bounds of 1% or less: the band is 10% of x): +1 at 0 (their
 * first increments are exact), 0 at 999, 1000 and 1001, -1 at 10^6. A
 * probabilistic answer other than 0 near 1000 is wrong with probability at
 * most 2/101 by Cantelli (1.5e-23 for a normal estimate, which Morris's sum
 * of 1000 small steps is near to; the others are still exact at 1000).
 * sc_counter_compare_sure: the same, with SC_COMPARE_UNSURE for the
 * probabilistic 0s, and 0 at 0 before any count for every variant.
 * Seed: the handle API's fixed context seed.
 */
static void compare_every_variant(void)
{
	static const uint64_t xs[] = {0, 999, 1000, 1001, 1000000};
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		sc_err err;
		sc_counter *c = sc_counter_new(v->name, "", &err);
		if (!c) {
			tap_ok(false, "%s: %s", v->name, err.msg);
			continue;
		}
		int none = sc_counter_compare_sure(c, 0);
		sc_counter_add(c, 1000);
		bool exact = v->kind != SC_PROBABILISTIC;
		const int u = SC_COMPARE_UNSURE;
		int want_exact[] = {1, 1, 0, -1, -1}, want_prob[] = {1, 0, 0, 0, -1};
		int want_sure[] = { 1, u, u, u, -1 };
		int got[5], sure[5];
		bool good = true, good_sure = none == 0;
		for (int j = 0; j < 5; j++) {
			got[j] = sc_counter_compare(c, xs[j]);
			sure[j] = sc_counter_compare_sure(c, xs[j]);
			good &= got[j] == (exact ? want_exact[j] : want_prob[j]);
			good_sure &= sure[j] == (exact ? want_exact[j] : want_sure[j]);
		}
		tap_ok(good, "%s: compare at 1000 with 0, 999, 1000, 1001, 10^6: %d %d %d %d %d",
		       v->name, got[0], got[1], got[2], got[3], got[4]);
		tap_ok(good_sure,
		       "%s: compare_sure at 0 with 0: %d; at 1000 with 0, 999, 1000, 1001, 10^6: "
		       "%d %d %d %d %d (%d: cannot tell)",
		       v->name, none, sure[0], sure[1], sure[2], sure[3], sure[4], u);
		sc_counter_free(c);
	}
}

/*
 * Batched's compare with 7 increments held back by a thread (batch 64): the
 * fast reading (0) decides nothing near 7, the sum does; far away (10^5,
 * beyond the lag) the fast reading decides.
 */
static sc_counter *cmp_batched;
static pthread_barrier_t cmp_held, cmp_done;

static void *cmp_holder(void *arg)
{
	(void)arg;
	sc_counter_add(cmp_batched, 7);
	pthread_barrier_wait(&cmp_held);
	pthread_barrier_wait(&cmp_done);
	return NULL;
}

static void compare_batched(void)
{
	cmp_batched = sc_counter_new("Batched", "batch=64", NULL);
	pthread_barrier_init(&cmp_held, NULL, 2);
	pthread_barrier_init(&cmp_done, NULL, 2);
	pthread_t t;
	pthread_create(&t, NULL, cmp_holder, NULL);
	pthread_barrier_wait(&cmp_held);
	uint64_t lag = sc_counter_error_bound(cmp_batched, SC_READ_FAST).lag;
	int a = sc_counter_compare(cmp_batched, 6), b = sc_counter_compare(cmp_batched, 7);
	int d = sc_counter_compare(cmp_batched, 8), e = sc_counter_compare(cmp_batched, lag + 1);
	tap_ok(sc_counter_get_fast(cmp_batched) == 0 && a == 1 && b == 0 && d == -1 && e == -1,
	       "Batched, 7 held back: compare with 6, 7, 8 and lag + 1 = %llu: %d %d %d %d",
	       (unsigned long long)lag + 1, a, b, d, e);
	pthread_barrier_wait(&cmp_done);
	pthread_join(t, NULL);
	tap_ok(sc_counter_compare(cmp_batched, 7) == 0 && sc_counter_get_fast(cmp_batched) == 7,
	       "Batched: after the holder's exit (its count handed over), compare with 7 is 0 "
	       "and the fast reading is 7");
	pthread_barrier_destroy(&cmp_held);
	pthread_barrier_destroy(&cmp_done);
	sc_counter_free(cmp_batched);
}

/*
 * Near the threshold, probabilistic: R = 200 Morris counters (a = 5000, r =
 * 1%, band 10% of x) at x = 20,000. Counted to x(1 + 2 k r) = 24,000, each
 * must answer +1 unless its estimate fell 8.3 bounds (2,000 / (r 24,000))
 * below its count: Cantelli puts that at most 1/(1 + 8.33^2) = 1.42% per
 * counter, so 21 or more of 200 not answering +1 has probability below
 * 1.9e-12 (binomial tail). Counted to x itself, a +1 or -1 is wrong, at
 * most 2/101 per counter by Cantelli: 17 or more of 200 has probability
 * below 6.6e-7. (Under the normal approximation both are below 1e-15.)
 * Seed: the handle API's fixed context seed.
 */
#define CMP_R 200
static void compare_near_threshold(void)
{
	const uint64_t x = 20000, above = 24000;
	int said_above = 0, said_other_at_x = 0;
	for (int i = 0; i < CMP_R; i++) {
		sc_counter *c = sc_counter_new("Morris", "", NULL);
		sc_counter_add(c, above);
		said_above += sc_counter_compare(c, x) == 1;
		sc_counter_free(c);
		c = sc_counter_new("Morris", "", NULL);
		sc_counter_add(c, x);
		said_other_at_x += sc_counter_compare(c, x) != 0;
		sc_counter_free(c);
	}
	tap_ok(said_above >= CMP_R - 20, "Morris near the threshold: %d of %d counters at 24,000 "
	       "compare +1 with 20,000 (at least 180)", said_above, CMP_R);
	tap_ok(said_other_at_x <= 16, "Morris at the threshold: %d of %d counters at 20,000 "
	       "answer other than 0 (at most 16)", said_other_at_x, CMP_R);
}

int main(void)
{
	tap_plan_lazy();
	monte_carlo(); /* first: its streams come from the main thread's (first) context */
	signed_add();
	bounds();
	batched_lag();
	compare_every_variant();
	compare_batched();
	compare_near_threshold();
	return tap_done();
}
