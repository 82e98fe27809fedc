/* SPDX-License-Identifier: MIT */
/*
 * test_probabilistic.c - the probabilistic counters: Morris, MorrisAdapt,
 * BFP-DUP, BFP-CSUP, Scalable, ScalableCAS and ScalableCapped.
 *
 * Checks, in order: single-thread exactness up to each switch point;
 * unbiasedness and RSTDV against each analytic bound over many seeds; a
 * 4-thread count; the overflow boundary of each; reset; parameter
 * validation. Deterministic: every thread context is seeded with a fixed
 * seed (sc_thread_init), and the statistical checks state their
 * false-failure probability.
 *
 * Statistical checks (check_statistics): K single-thread runs of N
 * increments, run i seeded with base seed + i, each giving x = value/N.
 *  (a) mean: |mean(x) - 1| <= 5 bound/sqrt(K). x is a sum of many small
 *      martingale increments, close to normal, and its sd is at most the
 *      bound, so a false failure has probability at most the two-sided
 *      normal tail at 5, 5.7e-7.
 *  (b) RSTDV: sd(x) <= bound sqrt(q/(K - 1)), q the chi-square(K - 1)
 *      quantile with upper tail 1e-6, so a false failure has probability at
 *      most 1e-6 (normal x, true sd at most the bound).
 *  (c) not degenerate: sd(x) >= half the RSTDV predicted for this N (a
 *      counter that had silently become exact would pass (a) and (b)); the
 *      chi-square lower tail this allows is printed, 1.7e-29 at K = 200.
 *
 * add(n) is held to the same three checks with the same bounds (its contract
 * is that of n increments, see the family headers): the N of a run is
 * given as adds of a cycle of sizes from 1 to 2^17 (ADD_CHUNKS), seeded from
 * base seed + 0x800000.
 *
 *   test_probabilistic               make check: K = 200, N = 2^19 (about 3 s
 *                                    at -O2, 10 s under ASan+UBSan, 2 cores)
 *   test_probabilistic --acceptance  K = 200, N = 2,000,000, with a table
 *
 * SC_TEST_SCALE=s (testutil.h) makes K = ceil(200 s) runs, but never fewer
 * than the smallest K whose check (c) lower tail is at most 1e-6 (K = 38).
 * N, and so each run's distribution, is unchanged; (a) and (b) take their
 * limits from K as above, so every false-failure probability stays 1e-6 or
 * less.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, pthread barriers under -std=c11 */
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scounters/scounters.h>
#include "tap.h"
#include "testutil.h"

/* ---- one counter of a variant, through the registry ---- */

/* What config wrote, for the checks that read it. */
typedef union any_cfg {
	sc_morris_cfg morris;
	sc_bfp_cfg bfp;
	sc_scalable_cfg scalable;
} any_cfg;

/* A table of one counter, and views into it. */
typedef struct inst {
	sc_table t;
	const sc_variant *v; /* t.v */
	const any_cfg *cfg;  /* t.cfg */
	void *c;             /* the counter */
} inst;

/*
 * Configure variant id from params ("k=v k=v") and make one counter with
 * sc_table_create, which also rejects keys the variant did not read.
 */
static int inst_open(inst *in, int id, const char *params, sc_err *err)
{
	sc_env env = {1, 1, 1};
	memset(in, 0, sizeof *in);
	in->v = &sc_variants[id];
	err->msg[0] = '\0';
	if (test_table_open(&in->t, in->v, &env, 1, params, err))
		return -1;
	in->cfg = in->t.cfg;
	in->c = sc_table_at(&in->t, 0);
	return 0;
}

static void inst_must_open(inst *in, int id, const char *params)
{
	sc_err err;
	if (inst_open(in, id, params, &err)) {
		fprintf(stderr, "cannot configure %s with '%s': %s\n", sc_variants[id].name, params,
		        err.msg);
		exit(99);
	}
}

static void inst_close(inst *in)
{
	sc_table_destroy(&in->t);
	in->c = NULL;
}

static uint64_t inst_get(const inst *in)
{
	return in->v->get(in->c, in->cfg);
}

/*
 * n increments through the variant's inlined fast path, as scbench's loops
 * make them: the statistical runs make some 10^9 increments, which one
 * indirect call each (the registry's inc) makes a third slower.
 */
typedef void (*inc_n_fn)(void *c, const void *cfg, sc_thread *t, uint64_t n);

#define INC_N_(P, ...)                                                                     \
	static void P##_inc_n(void *c, const void *cfg, sc_thread *t, uint64_t n)          \
	{                                                                                  \
		for (uint64_t i = 0; i < n; i++)                                           \
			sc_##P##_inc(c, cfg, t);                                           \
	}
SC_VARIANTS(INC_N_)
#undef INC_N_

#define INC_N_ENTRY_(P, ...) [SC_ID_##P] = P##_inc_n,
static const inc_n_fn inc_n[SC_VARIANT_COUNT] = {SC_VARIANTS(INC_N_ENTRY_)};
#undef INC_N_ENTRY_

static void inst_inc(inst *in, sc_thread *t, uint64_t n)
{
	inc_n[in->v - sc_variants](in->c, in->cfg, t, n);
}

/*
 * n increments given as adds whose sizes cycle through ADD_CHUNKS, starting
 * at entry `phase`: singles, small and large adds mixed, so that add's runs
 * of bumps, its gaps and its ordinary single updates all take part.
 */
static const uint64_t ADD_CHUNKS[] = {1, 3, 1000, 2, 17, 131072, 1, 4096, 250, 65536, 7, 30000};
#define N_ADD_CHUNKS (sizeof ADD_CHUNKS / sizeof ADD_CHUNKS[0])

static void inst_add_chunks(inst *in, sc_thread *t, uint64_t n, unsigned phase)
{
	for (unsigned i = phase; n; i++) {
		uint64_t k = ADD_CHUNKS[i % N_ADD_CHUNKS];
		k = k < n ? k : n;
		in->v->add(in->c, in->cfg, t, k);
		n -= k;
	}
}

/* The raw counter word (every variant here is one 32- or 64-bit atomic word). */
static _Atomic uint32_t *word32(inst *in)
{
	return (_Atomic uint32_t *)in->c;
}

static _Atomic uint64_t *word64(inst *in)
{
	return (_Atomic uint64_t *)in->c;
}

/* ---- statistics: the chi-square distribution and the normal tail ---- */

/* Regularized lower incomplete gamma P(s, x) by its series (accurate for x < s + 1). */
static double gamma_p_series(double s, double x)
{
	double term = 1.0 / s, sum = term;
	for (int n = 1; n < 100000 && term > sum * 1e-17; n++) {
		term *= x / (s + n);
		sum += term;
	}
	return sum * exp(s * log(x) - x - lgamma(s));
}

/* Regularized upper incomplete gamma Q(s, x) by its continued fraction (x >= s + 1). */
static double gamma_q_fraction(double s, double x)
{
	const double tiny = 1e-300;
	double b = x + 1.0 - s, c = 1.0 / tiny, d = 1.0 / b, h = d;
	for (int i = 1; i < 100000; i++) {
		double an = -i * (i - s);
		b += 2.0;
		d = an * d + b;
		d = fabs(d) < tiny ? tiny : d;
		c = b + an / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		if (fabs(d * c - 1.0) < 1e-16)
			break;
	}
	return h * exp(s * log(x) - x - lgamma(s));
}

/* P(chi-square(k) <= x) and P(chi-square(k) > x), each computed where it is accurate. */
static double chi2_lower_tail(double k, double x)
{
	if (x <= 0)
		return 0;
	return x / 2 < k / 2 + 1 ? gamma_p_series(k / 2, x / 2)
	                         : 1.0 - gamma_q_fraction(k / 2, x / 2);
}

static double chi2_upper_tail(double k, double x)
{
	if (x <= 0)
		return 1;
	return x / 2 < k / 2 + 1 ? 1.0 - gamma_p_series(k / 2, x / 2)
	                         : gamma_q_fraction(k / 2, x / 2);
}

/* The x with P(chi-square(k) > x) = tail, by bisection. */
static double chi2_upper_quantile(double k, double tail)
{
	double lo = k, hi = 20 * k + 200;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (chi2_upper_tail(k, mid) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

#define FALSE_FAIL 1e-6 /* per statistical check */
#define MEAN_Z 5.0      /* two-sided normal tail erfc(5/sqrt 2) = 5.7e-7 */
#define MT_Z 5.0        /* the multi-threaded check uses the same z */

static double normal_two_sided_tail(double z)
{
	return erfc(z / sqrt(2.0));
}

/* ---- analytic bounds and predictions (RSTDV of value/N) ---- */

/* Morris: variance n(n-1)/(2a) (Dice §3.1), bound 1/sqrt(2a). */
static double morris_bound(const inst *in, uint64_t n)
{
	(void)n;
	return 1.0 / sqrt(2.0 * in->cfg->morris.a);
}

/* The a the rounded float factor implies (scale >= a, see morris.c). */
static double morris_predict(const inst *in, uint64_t n)
{
	return sqrt((double)(n - 1) / (2.0 * in->cfg->morris.scale * (double)n));
}

/* BFP-DUP: limsup sqrt(3/(8M - 3)), M = MantThreshold/2 (Dice §4.2). */
static double bfp_bound(const inst *in, uint64_t n)
{
	(void)n;
	double m = in->cfg->bfp.mant_threshold / 2.0;
	return sqrt(3.0 / (8.0 * m - 3.0));
}

/*
 * The exponent BFP-DUP holds at count k taken as certain: 0 below
 * MantThreshold, e from MantThreshold 2^(e-1) on. An increment at exponent e
 * adds variance 2^e - 1, so Var(value_N) ~ sum over k < N of 2^e(k) - 1.
 */
static double bfp_dup_predict(const inst *in, uint64_t n)
{
	uint64_t mt = in->cfg->bfp.mant_threshold;
	double var = 0;
	for (uint64_t k = 0, e = 0; k < n; k++) {
		while (e < SC_BFP_EXP_MAX && k >= mt << e)
			e++;
		var += (double)((1ull << e) - 1);
	}
	return sqrt(var) / (double)n;
}

/*
 * BFP-CSUP from a preset word (CSUP_E0, MANT_MAX - d), d = N/(4 2^E0): its
 * d + 1 updates at 2^-E0 (the last one saturates the mantissa and moves to
 * E0 + 1) then updates at 2^-(E0+1). Every increment adds variance at most
 * 2^(E0+1) - 1, hence the bound.
 */
#define CSUP_E0 3u

static uint64_t csup_preset_d(uint64_t n)
{
	return n / (4u << CSUP_E0);
}

static double csup_bound(const inst *in, uint64_t n)
{
	(void)in;
	return sqrt((double)((2u << CSUP_E0) - 1) / (double)n);
}

static double csup_predict(const inst *in, uint64_t n)
{
	(void)in;
	double at_e0 = (double)((csup_preset_d(n) + 1) << CSUP_E0);
	if (at_e0 > (double)n)
		at_e0 = (double)n;
	double var = at_e0 * ((1u << CSUP_E0) - 1) + ((double)n - at_e0) * ((2u << CSUP_E0) - 1);
	return sqrt(var) / (double)n;
}

/*
 * Scalable family, Ayers's binomial estimate: the increment made at true
 * count k adds 2^s(k) with probability 2^-s(k), variance 2^s(k) - 1, so
 * Var(value_N) ~ sum over k < N; s from the counter's own step function (with
 * the cap, for ScalableCapped).
 */
static double scalable_predict(const inst *in, uint64_t n)
{
	double var = 0;
	for (uint64_t k = 0; k < n; k++)
		var += (double)((1ull << sc_scalable_shift_(k, &in->cfg->scalable)) - 1);
	return sqrt(var) / (double)n;
}

/* The estimate's maximum over all N: (2/3 + 2x)/(2^T (1+x)^2) <= 3/2^(T+2). */
static double scalable_bound(const inst *in, uint64_t n)
{
	(void)n;
	return sqrt(3.0 / ldexp(1.0, (int)in->cfg->scalable.threshold + 2));
}

/* ---- presets for the statistical runs (return the value before the run) ---- */

/* MorrisAdapt with a full exact half: every increment goes to the Morris half. */
static uint64_t preset_morris_adapt(inst *in, uint64_t n)
{
	(void)n;
	atomic_store(word64(in), SC_MORRIS_ADAPT_INIT | UINT32_MAX);
	return inst_get(in);
}

/* BFP-CSUP a quarter of the run below mantissa saturation at exponent CSUP_E0. */
static uint64_t preset_csup(inst *in, uint64_t n)
{
	atomic_store(word32(in), CSUP_E0 << SC_BFP_MANT_BITS |
	                                 (SC_BFP_MANT_MAX - (uint32_t)csup_preset_d(n)));
	return inst_get(in);
}

/* ---- 1. single-thread exactness up to the switch point ---- */

/* Every value after 1 .. n increments equals the count. */
static bool counts_exactly(inst *in, sc_thread *t, uint64_t n)
{
	uint64_t start = inst_get(in);
	for (uint64_t k = 1; k <= n; k++) {
		inst_inc(in, t, 1);
		if (inst_get(in) != start + k)
			return false;
	}
	return true;
}

static void test_scalable_exact_below_threshold(void)
{
	static const char *const cfgs[] = {"", "width=64", "threshold=5", "width=64 threshold=20"};
	static const int ids[] = {SC_ID_scalable, SC_ID_scalable_capped};
	for (unsigned i = 0; i < 2; i++) {
		for (unsigned j = 0; j < sizeof cfgs / sizeof *cfgs; j++) {
			inst in;
			sc_thread t;
			inst_must_open(&in, ids[i], cfgs[j]);
			sc_thread_init(&t, 0, 0, 1, false);
			uint64_t n = 1ull << in.cfg->scalable.threshold;
			bool ok = counts_exactly(&in, &t, n);
			inst_close(&in);
			tap_ok(ok, "%s '%s': exact for the first 2^T = %llu increments",
			       sc_variants[ids[i]].name, cfgs[j], (unsigned long long)n);
		}
	}
}

static void test_scalable_cas_exact_single_thread(void)
{
	static const char *const cfgs[] = {"", "width=64", "threshold=1"};
	for (unsigned j = 0; j < sizeof cfgs / sizeof *cfgs; j++) {
		inst in;
		sc_thread t;
		inst_must_open(&in, SC_ID_scalable_cas, cfgs[j]);
		sc_thread_init(&t, 0, 0, 2, false);
		bool ok = counts_exactly(&in, &t, 1000000);
		inst_close(&in);
		tap_ok(ok, "ScalableCAS '%s': one thread counts 1,000,000 exactly (past 2^T)",
		       cfgs[j]);
	}
}

/* BFP-DUP: exact up to MantThreshold, where the exponent first grows. */
static void test_bfp_dup_exact_below_threshold(void)
{
	static const char *const cfgs[] = {"", "accuracy=3", "mantissa-threshold=2"};
	for (unsigned j = 0; j < sizeof cfgs / sizeof *cfgs; j++) {
		inst in;
		sc_thread t;
		inst_must_open(&in, SC_ID_bfp_dup, cfgs[j]);
		sc_thread_init(&t, 0, 0, 3, false);
		uint32_t mt = in.cfg->bfp.mant_threshold;
		bool ok = counts_exactly(&in, &t, mt);
		uint32_t w = atomic_load(word32(&in));
		inst_close(&in);
		tap_ok(ok && w == (1u << SC_BFP_MANT_BITS | mt / 2),
		       "BFP-DUP '%s': exact for the first MantThreshold = %u increments, then "
		       "(e, m) = (1, %u)",
		       cfgs[j], mt, mt / 2);
	}
}

/* BFP-CSUP: one thread never fails a CAS, so exact up to mantissa saturation. */
static void test_bfp_csup_exact_single_thread(void)
{
	inst in;
	sc_thread t;
	inst_must_open(&in, SC_ID_bfp_csup, "");
	sc_thread_init(&t, 0, 0, 4, false);
	bool ok = counts_exactly(&in, &t, 1000000);
	tap_ok(ok, "BFP-CSUP: one thread counts 1,000,000 exactly (MantThreshold is 7500)");
	atomic_store(word32(&in), SC_BFP_MANT_MAX - 99);
	ok = counts_exactly(&in, &t, 100);
	uint32_t w = atomic_load(word32(&in));
	tap_ok(ok && w == (1u << SC_BFP_MANT_BITS | 1u << 27),
	       "BFP-CSUP: exact up to 2^28 = (e, m) = (1, 2^27): the exponent grows when the "
	       "mantissa is full");
	inst_close(&in);
}

/* MorrisAdapt: one thread counts in the exact half; a full exact half spills to Morris. */
static void test_morris_adapt_exact_half(void)
{
	inst in;
	sc_thread t;
	inst_must_open(&in, SC_ID_morris_adapt, "");
	sc_thread_init(&t, 0, 0, 5, false);
	bool ok = counts_exactly(&in, &t, 1000000);
	tap_ok(ok && atomic_load(word64(&in)) >> 32 == SC_MORRIS_T0_BITS,
	       "MorrisAdapt: one thread counts 1,000,000 exactly in the exact half");
	atomic_store(word64(&in), SC_MORRIS_ADAPT_INIT | (UINT32_MAX - 3));
	ok = counts_exactly(&in, &t, 4);
	uint64_t w = atomic_load(word64(&in));
	tap_ok(ok && (uint32_t)w == UINT32_MAX && w >> 32 != SC_MORRIS_T0_BITS,
	       "MorrisAdapt: exact up to 2^32 - 1, then the first Morris update (certain) "
	       "gives 2^32");
	inst_close(&in);
}

/*
 * Morris is exact only as far as its math says: the first increment always
 * updates (value 1); the stored v projects to exactly v while v(v-1)/(2a) <
 * 1/2 (v <= 70 at a = 5000); and v never exceeds the count, so after n <= 70
 * increments the value is in [1, n].
 */
static void test_morris_small_counts(void)
{
	inst in;
	sc_thread t;
	inst_must_open(&in, SC_ID_morris, "");
	sc_thread_init(&t, 0, 0, 6, false);
	const sc_morris_cfg *cfg = &in.cfg->morris;
	bool ok = inst_get(&in) == 0;
	inst_inc(&in, &t, 1);
	tap_ok(ok && inst_get(&in) == 1, "Morris: 0 at start, 1 after one increment (certain)");
	uint32_t tb = SC_MORRIS_T0_BITS;
	unsigned v = 0;
	while (sc_morris_project_(tb, cfg) == v && v < 1000) {
		tb = sc_morris_next_(tb, cfg);
		v++;
	}
	tap_ok(v > 70, "Morris: stored v projects to exactly v for v = 0..70 (first inexact: %u)",
	       v);
	ok = true;
	for (uint64_t n = 2; n <= 70; n++) {
		inst_inc(&in, &t, 1);
		uint64_t x = inst_get(&in);
		ok = ok && x >= 1 && x <= n;
	}
	tap_ok(ok, "Morris: after n = 2..70 increments the value is in [1, n]");
	inst_close(&in);
}

/* ---- 2. unbiasedness and RSTDV across seeds ---- */

typedef struct stat_spec {
	int id;
	const char *params;
	double (*bound)(const inst *in, uint64_t n);   /* pass/fail for (a), (b) */
	double (*predict)(const inst *in, uint64_t n); /* for (c), and shown */
	uint64_t (*preset)(inst *in, uint64_t n);      /* NULL: from 0 */
	const char *why;                               /* what the bound is */
} stat_spec;

static const stat_spec stat_specs[] = {
	{SC_ID_morris, "", morris_bound, morris_predict, NULL, "1/sqrt(2a), Dice 3.1"},
	{SC_ID_morris, "accuracy=5", morris_bound, morris_predict, NULL, "1/sqrt(2a), Dice 3.1"},
	{SC_ID_morris_adapt, "", morris_bound, morris_predict, preset_morris_adapt,
	 "1/sqrt(2a) on the Morris half (exact half preset full)"},
	{SC_ID_bfp_dup, "", bfp_bound, bfp_dup_predict, NULL, "sqrt(3/(8M-3)), Dice 4.2"},
	{SC_ID_bfp_dup, "mantissa-threshold=800", bfp_bound, bfp_dup_predict, NULL,
	 "sqrt(3/(8M-3)), Dice 4.2"},
	{SC_ID_bfp_csup, "", csup_bound, csup_predict, preset_csup,
	 "sqrt((2^(e+1)-1)/N) from (e,m) = (3, 2^28-1-N/32)"},
	{SC_ID_scalable, "", scalable_bound, scalable_predict, NULL, "sqrt(3/2^(T+2)), Ayers"},
	{SC_ID_scalable, "width=64 threshold=10", scalable_bound, scalable_predict, NULL,
	 "sqrt(3/2^(T+2)), Ayers"},
	{SC_ID_scalable_capped, "", scalable_bound, scalable_predict, NULL,
	 "sqrt(3/2^(T+2)), Ayers (capped is below)"},
	{SC_ID_scalable_capped, "cap=2", scalable_bound, scalable_predict, NULL,
	 "sqrt(3/2^(T+2)), Ayers (capped is below)"},
};

/*
 * Seeds: spec i (in the order above) runs with base seed STAT_SEED + 0x10000 i,
 * its run j with base + j; each check prints its base seed.
 */
#define STAT_SEED 0x5eed0000u
#define CHECK_RUNS 200       /* make check: runs per statistical spec */
#define CHECK_N (1u << 19)   /* make check: increments per run */

typedef struct stat_result {
	test_stats x;
	double bound, predicted, seconds;
} stat_result;

static void run_statistics(const stat_spec *s, unsigned runs, uint64_t n, uint64_t seed,
                           bool by_add, stat_result *res)
{
	inst in;
	inst_must_open(&in, s->id, s->params);
	memset(res, 0, sizeof *res);
	double t0 = test_seconds();
	for (unsigned i = 0; i < runs; i++) {
		sc_thread t;
		sc_thread_init(&t, 0, 0, seed + i, false);
		in.v->reset(in.c, in.cfg);
		uint64_t start = s->preset ? s->preset(&in, n) : 0;
		if (by_add)
			inst_add_chunks(&in, &t, n, i);
		else
			inst_inc(&in, &t, n);
		test_stats_add(&res->x, (double)(inst_get(&in) - start) / (double)n);
	}
	res->seconds = test_seconds() - t0;
	res->bound = s->bound(&in, n);
	res->predicted = s->predict(&in, n);
	inst_close(&in);
}

/* Checks (a), (b), (c) of the top comment on r, each with its false-failure probability. */
static void check_statistics(const stat_spec *s, unsigned runs, uint64_t n, uint64_t seed,
                             bool by_add, const stat_result *res)
{
	const stat_result r = *res;
	char name[64];
	snprintf(name, sizeof name, "%s%s", sc_variants[s->id].name, by_add ? " add" : "");
	double k = runs - 1, sd = test_stats_sd(&r.x);
	double z = (r.x.mean - 1.0) / (r.bound / sqrt(runs));
	double q = chi2_upper_quantile(k, FALSE_FAIL);
	double sd_max = r.bound * sqrt(q / k);
	double p_low = chi2_lower_tail(k, k * 0.25);
	tap_diag("%s '%s': N = %llu, %u runs, seeds %#llx + 0..%u, %.2f s", name, s->params,
	         (unsigned long long)n, runs, (unsigned long long)seed, runs - 1, r.seconds);
	tap_ok(fabs(z) <= MEAN_Z, "%s '%s': unbiased: mean %.6f, |z| = %.2f <= %.0f", name,
	       s->params, r.x.mean, fabs(z), MEAN_Z);
	tap_diag("  false-failure probability %.1e (two-sided normal tail at z = %.0f, standard "
	         "error %.5f%% from the bound), seed %#llx",
	         normal_two_sided_tail(MEAN_Z), MEAN_Z, 100 * r.bound / sqrt(runs),
	         (unsigned long long)seed);
	tap_ok(sd <= sd_max, "%s '%s': RSTDV %.4f%% <= %.4f%% (bound %.4f%% = %s, x %.4f)", name,
	       s->params, 100 * sd, 100 * sd_max, 100 * r.bound, s->why, sqrt(q / k));
	tap_diag("  false-failure probability %.0e (chi-square(%.0f) upper quantile %.1f), "
	         "seed %#llx; predicted RSTDV at this N %.4f%%",
	         FALSE_FAIL, k, q, (unsigned long long)seed, 100 * r.predicted);
	tap_ok(sd >= r.predicted / 2, "%s '%s': not degenerate: RSTDV %.4f%% >= half the "
	       "predicted %.4f%%", name, s->params, 100 * sd, 100 * r.predicted);
	tap_diag("  false-failure probability %.1e (chi-square(%.0f) lower tail at k/4), "
	         "seed %#llx",
	         p_low, k, (unsigned long long)seed);
}

static void print_table_row(const stat_spec *s, unsigned runs, const stat_result *r);

/*
 * Runs per spec in make check: CHECK_RUNS scaled by SC_TEST_SCALE, never
 * below the K at which check (c) keeps its false-failure probability at
 * FALSE_FAIL or less (the bounds of (a) and (b) follow K by themselves).
 */
static unsigned check_runs(void)
{
	unsigned k_min = 2;
	while (chi2_lower_tail(k_min - 1, (k_min - 1) * 0.25) > FALSE_FAIL)
		k_min++;
	return (unsigned)test_scaled(CHECK_RUNS, k_min);
}

/* Each spec: runs seeded runs of n; acceptance also prints a table row. */
static void test_unbiased_rstdv_within_bound(unsigned runs, uint64_t n, bool table, bool by_add)
{
	for (unsigned i = 0; i < sizeof stat_specs / sizeof *stat_specs; i++) {
		const stat_spec *s = &stat_specs[i];
		uint64_t seed = STAT_SEED + 0x10000u * i + (by_add ? 0x800000u : 0);
		stat_result r;
		run_statistics(s, runs, n, seed, by_add, &r);
		if (table)
			print_table_row(s, runs, &r);
		check_statistics(s, runs, n, seed, by_add, &r);
	}
}

/* ---- 3. several threads on one counter ---- */

typedef struct mt_shared {
	inst *in;
	uint64_t per_thread;
	uint64_t seed;
	bool by_add; /* adds cycling through ADD_CHUNKS instead of increments */
} mt_shared;

static void mt_worker(test_thread_arg *a)
{
	mt_shared *s = a->shared;
	sc_thread t;
	sc_thread_init(&t, a->index, 0, s->seed, false);
	if (s->by_add)
		inst_add_chunks(s->in, &t, s->per_thread, a->index);
	else
		inst_inc(s->in, &t, s->per_thread);
	s->in->v->flush(s->in->c, s->in->cfg, &t);
}

/* The bound the multi-threaded count is held to: the family's sequential one. */
static double mt_bound(inst *in, uint64_t n)
{
	switch (in->v - sc_variants) {
	case SC_ID_morris:
	case SC_ID_morris_adapt: return morris_bound(in, n);
	case SC_ID_bfp_dup:
	case SC_ID_bfp_csup: return bfp_bound(in, n);
	default: return scalable_bound(in, n);
	}
}

/*
 * 4 threads x 250,000 increments: |value/N - 1| <= 5 bound. Concurrency does
 * not raise the variance above the sequential bound (each applied update
 * has the probability of the value it lands on, and a stale Scalable read
 * only shrinks the step), so a false failure has probability at most the
 * normal tail at 5, 5.7e-7. Thread interleavings vary; the seeds are fixed:
 * 0x7007 + the variant's index among the probabilistic ones (thread i uses
 * stream i of it), printed. by_add: the same 250,000 per thread given as
 * adds cycling through ADD_CHUNKS (seeds 0x7107 + the index), same bound.
 */
static void test_multithreaded_within_bound(bool by_add)
{
	const unsigned threads = 4;
	const uint64_t per = 250000, n = per * threads;
	unsigned index = 0;
	for (int id = 0; id < SC_VARIANT_COUNT; id++) {
		if (sc_variants[id].kind != SC_PROBABILISTIC)
			continue;
		inst in;
		inst_must_open(&in, id, "");
		mt_shared s = {&in, per, (by_add ? 0x7107u : 0x7007u) + index++, by_add};
		test_run_threads(threads, mt_worker, &s);
		double rel = (double)inst_get(&in) / (double)n - 1.0, b = mt_bound(&in, n);
		tap_ok(fabs(rel) <= MT_Z * b, "%s%s: %u threads x %llu: relative error %+.4f%%, "
		       "within %.0f x %.4f%%", sc_variants[id].name, by_add ? " add" : "", threads,
		       (unsigned long long)per, 100 * rel, MT_Z, 100 * b);
		tap_diag("  false-failure probability %.1e (normal tail at z = %.0f), seed %#llx; "
		         "final word %#llx",
		         normal_two_sided_tail(MT_Z), MT_Z, (unsigned long long)s.seed,
		         (unsigned long long)(in.v->size(in.cfg) == 8 ? atomic_load(word64(&in))
		                                                       : atomic_load(word32(&in))));
		inst_close(&in);
	}
}

/*
 * Where n increments by one thread are exact, so is add(n) (it applies the
 * same updates): each variant's exact range, reached by adds of mixed sizes,
 * checked after every add. add(0) changes nothing.
 */
static void test_add_exact_where_inc_is(void)
{
	static const struct {
		int id;
		const char *params;
		uint64_t limit; /* exact up to here */
	} cases[] = {
		{SC_ID_scalable, "", 1u << 13},
		{SC_ID_scalable_capped, "threshold=20", 1u << 20},
		{SC_ID_scalable_cas, "", 3000000},
		{SC_ID_scalable_cas, "width=64", 3000000},
		{SC_ID_bfp_dup, "", 7500},
		{SC_ID_bfp_csup, "", SC_BFP_MANT_MAX},
		{SC_ID_morris_adapt, "", 3000000},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		inst in;
		inst_must_open(&in, cases[i].id, cases[i].params);
		sc_thread t;
		sc_thread_init(&t, 0, 0, 0xadd0u + i, false);
		uint64_t done = 0;
		bool ok = true;
		for (unsigned j = 0; done < cases[i].limit; j++) {
			uint64_t k = ADD_CHUNKS[j % N_ADD_CHUNKS] * (j % 3 == 0 ? 97 : 1);
			k = k < cases[i].limit - done ? k : cases[i].limit - done;
			in.v->add(in.c, in.cfg, &t, k);
			done += k;
			ok = ok && inst_get(&in) == done;
		}
		in.v->add(in.c, in.cfg, &t, 0);
		ok = ok && inst_get(&in) == done;
		tap_ok(ok, "%s '%s': add is exact up to %llu, as the increment", sc_variants[cases[i].id].name,
		       cases[i].params, (unsigned long long)cases[i].limit);
		inst_close(&in);
	}
	/* MorrisAdapt: the exact half fills to 2^32 - 1 by add, then the Morris half takes over. */
	inst in;
	inst_must_open(&in, SC_ID_morris_adapt, "");
	sc_thread t;
	sc_thread_init(&t, 0, 0, 0xadd9u, false);
	in.v->add(in.c, in.cfg, &t, UINT32_MAX - 5);
	bool exact = inst_get(&in) == UINT32_MAX - 5;
	in.v->add(in.c, in.cfg, &t, 10);
	uint64_t w = atomic_load(word64(&in));
	tap_ok(exact && (uint32_t)w == UINT32_MAX && (uint32_t)(w >> 32) != SC_MORRIS_T0_BITS,
	       "MorrisAdapt: add fills the exact half to 2^32-1, the rest goes to the Morris half");
	inst_close(&in);
}

/* ---- 4. overflow boundaries ---- */

/* Increment until the value changes (at most max times); the new value. */
static uint64_t inc_until_change(inst *in, sc_thread *t, uint64_t max)
{
	uint64_t before = inst_get(in);
	for (uint64_t i = 0; i < max; i++) {
		inst_inc(in, t, 1);
		uint64_t after = inst_get(in);
		if (after != before)
			return after;
	}
	return before;
}

/* The last threshold of Morris's chain, the first below a + 1 (its range top). */
static uint32_t morris_last_threshold(const sc_morris_cfg *cfg)
{
	uint32_t tb = SC_MORRIS_T0_BITS;
	while (sc_morris_next_(tb, cfg) != SC_MORRIS_T0_BITS)
		tb = sc_morris_next_(tb, cfg);
	return tb;
}

static uint32_t morris_prev_threshold(const sc_morris_cfg *cfg, uint32_t last)
{
	uint32_t tb = SC_MORRIS_T0_BITS;
	while (sc_morris_next_(tb, cfg) != last)
		tb = sc_morris_next_(tb, cfg);
	return tb;
}

static void test_morris_overflow_wraps(void)
{
	inst in;
	sc_thread t;
	inst_must_open(&in, SC_ID_morris, "");
	sc_thread_init(&t, 0, 0, 7, false);
	uint32_t last = morris_last_threshold(&in.cfg->morris);
	uint32_t prev = morris_prev_threshold(&in.cfg->morris, last);
	atomic_store(word32(&in), prev);
	uint64_t before = inst_get(&in), after = inc_until_change(&in, &t, 100000000);
	tap_ok(after > before && atomic_load(word32(&in)) == last,
	       "Morris: from %llu the next update reaches the top of the range, %llu",
	       (unsigned long long)before, (unsigned long long)after);
	after = inc_until_change(&in, &t, 100000000);
	tap_ok(after == 0 && atomic_load(word32(&in)) == SC_MORRIS_T0_BITS,
	       "Morris: the next update chosen at T < a + 1 wraps the counter to 0");
	inst_close(&in);
}

static void test_morris_adapt_overflow_wraps(void)
{
	inst in;
	sc_thread t;
	inst_must_open(&in, SC_ID_morris_adapt, "");
	sc_thread_init(&t, 0, 0, 8, false);
	uint32_t last = morris_last_threshold(&in.cfg->morris);
	atomic_store(word64(&in), (uint64_t)last << 32 | 12345);
	uint64_t before = inst_get(&in), after = inc_until_change(&in, &t, 100000000);
	tap_ok(before == 12345 + sc_morris_project_(last, &in.cfg->morris) && after == 0 &&
	           atomic_load(word64(&in)) == SC_MORRIS_ADAPT_INIT,
	       "MorrisAdapt: at the top of the Morris half (%llu) the next update resets the "
	       "whole word to 0",
	       (unsigned long long)before);
	inst_close(&in);
}

static uint32_t bfp_word(uint32_t e, uint32_t m)
{
	return e << SC_BFP_MANT_BITS | m;
}

/* One update of the given variant from word w0 (single thread); the word after. */
static uint32_t bfp_step(inst *in, sc_thread *t, uint32_t w0)
{
	atomic_store(word32(in), w0);
	inc_until_change(in, t, 100000000);
	return atomic_load(word32(in));
}

static void test_bfp_overflow_wraps(void)
{
	static const int ids[] = {SC_ID_bfp_dup, SC_ID_bfp_csup};
	const uint64_t top = (uint64_t)SC_BFP_MANT_MAX << SC_BFP_EXP_MAX;
	for (unsigned i = 0; i < 2; i++) {
		inst in;
		sc_thread t;
		inst_must_open(&in, ids[i], "");
		sc_thread_init(&t, 0, 0, 9 + i, false);
		atomic_store(word32(&in), bfp_word(SC_BFP_EXP_MAX, SC_BFP_MANT_MAX));
		bool at_top = inst_get(&in) == top;
		uint32_t w = bfp_step(&in, &t, bfp_word(SC_BFP_EXP_MAX, SC_BFP_MANT_MAX));
		tap_ok(at_top && w == 0, "%s: saturated at (2^28-1) 2^15 = %llu, the next update "
		       "wraps to 0", sc_variants[ids[i]].name, (unsigned long long)top);
		uint32_t mt = in.cfg->bfp.mant_threshold;
		w = bfp_step(&in, &t, bfp_word(SC_BFP_EXP_MAX, mt - 1));
		tap_ok(w == bfp_word(SC_BFP_EXP_MAX, mt), "%s: at e = 15 the mantissa passes "
		       "MantThreshold", sc_variants[ids[i]].name);
		inst_close(&in);
	}
}

/* The exponent steps: DUP's at MantThreshold, CSUP's (single thread) only at saturation. */
static void test_bfp_exponent_steps(void)
{
	inst dup, csup;
	sc_thread t;
	inst_must_open(&dup, SC_ID_bfp_dup, "");
	inst_must_open(&csup, SC_ID_bfp_csup, "");
	sc_thread_init(&t, 0, 0, 11, false);
	uint32_t mt = dup.cfg->bfp.mant_threshold;
	uint32_t w = bfp_step(&dup, &t, bfp_word(14, mt - 1));
	tap_ok(w == bfp_word(15, mt / 2), "BFP-DUP: (14, MT-1) steps to (15, MT/2), same value");
	w = bfp_step(&csup, &t, bfp_word(3, mt + 1));
	tap_ok(w == bfp_word(3, mt + 2), "BFP-CSUP: one thread at (3, MT+1) bumps the mantissa "
	       "(no contention, no exponent step)");
	w = bfp_step(&csup, &t, bfp_word(7, SC_BFP_MANT_MAX));
	tap_ok(w == bfp_word(8, 1u << 27), "BFP-CSUP: (7, 2^28-1) steps to (8, 2^27)");
	const sc_bfp_cfg *cc = &csup.cfg->bfp;
	bool odd = sc_bfp_csup_next_contended_(bfp_word(3, mt), cc, 1) == bfp_word(3, mt + 1);
	bool even = sc_bfp_csup_next_contended_(bfp_word(3, mt + 1), cc, 1) ==
	            bfp_word(4, mt / 2 + 1);
	bool low = sc_bfp_csup_next_contended_(bfp_word(3, mt - 3), cc, 1) == bfp_word(3, mt - 2);
	tap_ok(odd && even && low,
	       "BFP-CSUP contended rule: grows only when m+1 >= MT and m+1 is even");
	/* grow-after=2: the first failed CAS only bumps, the second may grow. */
	inst csup2;
	inst_must_open(&csup2, SC_ID_bfp_csup, "grow-after=2");
	const sc_bfp_cfg *c2 = &csup2.cfg->bfp;
	bool first = sc_bfp_csup_next_contended_(bfp_word(3, mt + 1), c2, 1) ==
	             bfp_word(3, mt + 2);
	bool second = sc_bfp_csup_next_contended_(bfp_word(3, mt + 1), c2, 2) ==
	              bfp_word(4, mt / 2 + 1);
	tap_ok(first && second, "BFP-CSUP grow-after=2: grows only from the second failed CAS");
	/* The corrected header comment's example: from (0, 29999) 4 contended updates, 3 steps. */
	uint32_t x = bfp_word(0, 29999);
	for (int i = 0; i < 4; i++)
		x = sc_bfp_csup_next_contended_(x, cc, 1);
	tap_ok(sc_bfp_exp_(x) == 3, "BFP-CSUP: from (0, 29999) four contended updates make 3 steps");
	inst_close(&csup2);
	inst_close(&dup);
	inst_close(&csup);
}

static void test_scalable_overflow_wraps(void)
{
	inst in;
	sc_thread t;
	sc_thread_init(&t, 0, 0, 12, false);
	inst_must_open(&in, SC_ID_scalable, "");
	atomic_store(word32(&in), UINT32_MAX - 10);
	uint64_t after = inc_until_change(&in, &t, 100000000);
	tap_ok(after == (1u << 19) - 11, "Scalable: 2^32-11 + step 2^19 wraps to 2^19-11 = %llu",
	       (unsigned long long)after);
	inst_close(&in);
	inst_must_open(&in, SC_ID_scalable, "width=64 threshold=63");
	atomic_store(word64(&in), UINT64_MAX - 2);
	uint64_t a1 = inc_until_change(&in, &t, 1000), a2 = inc_until_change(&in, &t, 1000);
	tap_ok(a1 == UINT64_MAX && a2 == 1, "Scalable width=64 T=63: steps of 2 from 2^64-3 "
	       "give 2^64-1, then wrap to 1");
	inst_close(&in);
	inst_must_open(&in, SC_ID_scalable_capped, "");
	atomic_store(word32(&in), UINT32_MAX - 10);
	after = inc_until_change(&in, &t, 100000000);
	tap_ok(after == 1024 - 11, "ScalableCapped: 2^32-11 + step 2^10 wraps to 1013");
	inst_close(&in);
}

static void test_scalable_cas_overflow_wraps(void)
{
	inst in;
	sc_thread t;
	sc_thread_init(&t, 0, 0, 13, false);
	inst_must_open(&in, SC_ID_scalable_cas, "");
	tap_ok(in.v->range(in.cfg) < 0x7fffffffu, "ScalableCAS: range below 2^31-1 (the tag takes a bit)");
	atomic_store(word32(&in), 0x7ffffffeu);
	inst_inc(&in, &t, 1);
	uint64_t a1 = inst_get(&in);
	inst_inc(&in, &t, 2);
	tap_ok(a1 == 0x7fffffffu && inst_get(&in) == 1 && atomic_load(word32(&in)) == 1,
	       "ScalableCAS: one thread counts exactly through 2^31-1 and wraps to 0, 1, "
	       "still exact");
	inst_close(&in);
	inst_must_open(&in, SC_ID_scalable_cas, "width=64");
	atomic_store(word64(&in), UINT64_MAX >> 1);
	inst_inc(&in, &t, 1);
	tap_ok(inst_get(&in) == 0 && atomic_load(word64(&in)) == 0,
	       "ScalableCAS width=64: 2^63-1 + 1 wraps to 0");
	inst_close(&in);
}

/*
 * ScalableCAS's sticky switch, white-box: once the tag is set (what the
 * first failed CAS does), increments are Scalable's on the value bits, get
 * hides the tag, reset keeps it, and a carry out of the value bits clears it.
 */
static void test_scalable_cas_sticky_switch(void)
{
	inst in;
	sc_thread t;
	sc_thread_init(&t, 0, 0, 14, false);
	inst_must_open(&in, SC_ID_scalable_cas, "");
	uint32_t start = 1u << 20; /* step 2^8 there at T = 13 */
	atomic_store(word32(&in), SC_SCALABLE_CAS_TAG32 | start);
	bool steps = true, tagged = true;
	for (int i = 0; i < 100000; i++) {
		uint64_t before = inst_get(&in);
		inst_inc(&in, &t, 1);
		uint64_t d = inst_get(&in) - before;
		steps = steps && (d == 0 || d == 256);
		tagged = tagged && (atomic_load(word32(&in)) & SC_SCALABLE_CAS_TAG32);
	}
	uint64_t grew = inst_get(&in) - start;
	/*
	 * 100000 trials at p = 2^-8: updates ~ Binomial(1e5, 1/256), mean 390.6,
	 * sd 19.7; 6 sd either side fails with probability below 1e-8 (seed 14).
	 */
	tap_ok(steps && tagged && grew >= 256 * 272 && grew <= 256 * 510,
	       "ScalableCAS tagged: Scalable's steps of 2^8 at 2^20 (gain %llu for 100000)",
	       (unsigned long long)grew);
	in.v->reset(in.c, in.cfg);
	tap_ok(inst_get(&in) == 0 && atomic_load(word32(&in)) == SC_SCALABLE_CAS_TAG32,
	       "ScalableCAS: reset zeroes the value and keeps the switch");
	atomic_store(word32(&in), UINT32_MAX); /* tagged, value 2^31-1 */
	while (atomic_load(word32(&in)) & SC_SCALABLE_CAS_TAG32)
		inst_inc(&in, &t, 1);
	tap_ok(inst_get(&in) < (1u << 19),
	       "ScalableCAS tagged: the carry out of the value bits wraps to a small value and "
	       "clears the tag");
	/* add(n) in exact mode stays exact; on a tagged word it is Scalable's. */
	in.v->reset(in.c, in.cfg);
	atomic_store(word32(&in), 0);
	in.v->add(in.c, in.cfg, &t, 1000000);
	tap_ok(inst_get(&in) == 1000000 && atomic_load(word32(&in)) == 1000000,
	       "ScalableCAS: add(10^6) by one thread is exact and leaves the exact mode");
	inst_close(&in);
}

/*
 * A model of the .NET runtime's JIT_CountProfile32, written from its
 * description (dotnet/runtime src/coreclr/vm/jithelpers.cpp): a signed
 * 32-bit count; from 2^13 on, delta = 2^(floor(log2 count) - 12), added
 * when the low bits of the thread's xorshift (13,17,5) draw, seeded with
 * 100, are zero. Plain sequential code, independent of sc_scalable.h.
 */
static uint32_t dotnet_model_rand(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static void dotnet_model_count32(int32_t *count, uint32_t *rng)
{
	int32_t c = *count;
	uint32_t delta = 1;
	if (c > 0) {
		int log = 31;
		while (!((uint32_t)c >> log))
			log--;
		if (log >= 13) {
			delta = 1u << (log - 12);
			if ((dotnet_model_rand(rng) & (delta - 1)) != 0)
				return;
		}
	}
	*count = (int32_t)((uint32_t)c + delta);
}

/*
 * A stale step crossing a reset (deterministic interleaving): a thread
 * loads the count 2^20 (step 2^8 at T = 13), the word is then reset and 5
 * increments land, and only then does the thread's chosen update apply.
 * The reading must stay exact below 2^T: 6, not 5 + 2^8. Scalable at both
 * widths and ScalableCAS in its probabilistic mode (tag set), through the
 * increment's update step with the load and the update split apart, and
 * add(n)'s path (the same apply step). The draw is picked to pass 2^-8.
 */
static void test_scalable_stale_step_after_reset(void)
{
	sc_scalable_cfg cfg = {32, 13, SC_SCALABLE_STEP_MAX, 0, 0};
	uint32_t rng = 1;
	for (;;) { /* a state whose next draw passes 2^-8 */
		uint32_t probe = rng;
		if (((sc_xorshift_ayers(&probe) - 1) & 0xffu) == 0)
			break;
		rng++;
	}
	uint32_t r32 = rng;
	_Atomic uint32_t w32 = 5;
	sc_scalable_add32_(&w32, 1u << 20, UINT32_MAX, &cfg, &r32);
	cfg.width = 64;
	uint32_t r64 = rng;
	_Atomic uint64_t w64 = 5;
	sc_scalable_add64_(&w64, 1ull << 20, UINT64_MAX, &cfg, &r64);
	cfg.width = 32;
	uint32_t rcas = rng;
	_Atomic uint32_t wcas = SC_SCALABLE_CAS_TAG32 | 5;
	sc_scalable_add32_(&wcas, SC_SCALABLE_CAS_TAG32 | 1u << 20, ~SC_SCALABLE_CAS_TAG32, &cfg,
	                   &rcas);
	uint32_t v32 = atomic_load(&w32), vcas = atomic_load(&wcas) & ~SC_SCALABLE_CAS_TAG32;
	uint64_t v64 = atomic_load(&w64);
	tap_ok(v32 == 6 && v64 == 6 && vcas == 6,
	       "Scalable/ScalableCAS: an update chosen at a stale step 2^8 that lands after a "
	       "reset adds 1 below 2^T (width 32: %u, width 64: %llu, ScalableCAS: %u; 6 exact)",
	       v32, (unsigned long long)v64, vcas);
	_Atomic uint32_t wa = 5;
	uint32_t next = sc_scalable_apply32_(&wa, 1u << 20, 8, UINT32_MAX, &cfg);
	tap_ok(next == 6 && atomic_load(&wa) == 6,
	       "Scalable: the update step re-validates against the word it finds (%u)", next);
}

/*
 * Ranges are bounds: counting up to the declared range (add(range) from 0,
 * 300 times each) never wraps Scalable at width 32 nor ScalableCAS in its
 * probabilistic mode (tag set); the declared range sits below the top from
 * which an update can carry out (2^32 - 2^19, 2^31 - 2^18). Each run wraps
 * with probability below 1e-7 (sc_scalable_range), so the check fails
 * falsely with probability below 3e-5. Seeds 1 .. 300. The old range,
 * 2^32 - 1, wrapped about half such runs (and 12% at 0.99 of it).
 */
static void test_scalable_range_is_a_bound(void)
{
	static const struct {
		int id;
		uint64_t top, tag;
	} V[] = {{SC_ID_scalable, (1ull << 32) - (1ull << 19), 0},
	         {SC_ID_scalable_cas, (1ull << 31) - (1ull << 18), SC_SCALABLE_CAS_TAG32}};
	const unsigned reps = (unsigned)test_scaled(300, 60);
	for (unsigned j = 0; j < 2; j++) {
		inst in;
		inst_must_open(&in, V[j].id, "");
		uint64_t range = in.v->range(in.cfg);
		unsigned wrapped = 0;
		for (unsigned r = 0; r < reps; r++) {
			sc_thread t;
			sc_thread_init(&t, 0, 0, 1 + r, false);
			atomic_store(word32(&in), (uint32_t)V[j].tag);
			in.v->add(in.c, in.cfg, &t, range);
			wrapped += inst_get(&in) < range / 2;
		}
		tap_ok(range < V[j].top && range > V[j].top / 1.06 && wrapped == 0,
		       "%s: declared range %llu (top %llu) is a bound: %u of %u counts to it wrapped",
		       in.v->name, (unsigned long long)range, (unsigned long long)V[j].top, wrapped,
		       reps);
		inst_close(&in);
	}
	/* Through the handle the family defaults to width 64: 5e9 does not wrap. */
	const char *names[] = {"Scalable", "ScalableCAS", "ScalableCapped"};
	for (unsigned j = 0; j < 3; j++) {
		sc_counter *c = sc_counter_new(names[j], "", NULL);
		sc_counter_add(c, 5000000000ull);
		double rel = (double)sc_counter_get(c) / 5e9 - 1;
		tap_ok(fabs(rel) < 0.05, "%s via the handle: 5e9 added reads %+.3f%% of 5e9 (width 64 "
		       "by default; was about 0.7e9 at width 32)", names[j], 100 * rel);
		sc_counter_free(c);
	}
}

static void test_scalable_dotnet_model(void)
{
	inst in;
	inst_must_open(&in, SC_ID_scalable, "runtime=dotnet");
	tap_ok(in.t.thread_seed == 100, "Scalable runtime=dotnet: every thread's generator starts "
	       "at 100");
	sc_thread t;
	sc_thread_init(&t, 0, 0, 15, false);
	t.rng = in.t.thread_seed; /* what scbench does for such a table */
	int32_t model = 0;
	uint32_t mrng = 100;
	bool same = true;
	for (int i = 0; i < 3000000 && same; i++) {
		inst_inc(&in, &t, 1);
		dotnet_model_count32(&model, &mrng);
		same = inst_get(&in) == (uint32_t)model && t.rng == mrng;
	}
	tap_ok(same, "Scalable runtime=dotnet: 3,000,000 increments match the runtime model "
	       "step by step (value %llu)", (unsigned long long)inst_get(&in));
	/* Signed reading: from 2^31 on the runtime adds 1 exactly. */
	atomic_store(word32(&in), 0x80000000u);
	model = INT32_MIN;
	for (int i = 0; i < 100000 && same; i++) {
		inst_inc(&in, &t, 1);
		dotnet_model_count32(&model, &mrng);
		same = inst_get(&in) == (uint32_t)model;
	}
	tap_ok(same && inst_get(&in) == 0x80000000u + 100000,
	       "Scalable runtime=dotnet: past 2^31 the count is negative and grows by 1, as the "
	       "model");
	inst_close(&in);
	inst_must_open(&in, SC_ID_scalable, "runtime=dotnet width=64");
	tap_ok(in.v->range(in.cfg) < (1ull << 44) && in.v->range(in.cfg) > (1ull << 44) / 1.06,
	       "Scalable runtime=dotnet width=64: range a bound below 2^44, where the count stops");
	atomic_store(word64(&in), 1ull << 44);
	for (int i = 0; i < 100000; i++)
		inst_inc(&in, &t, 1);
	tap_ok(inst_get(&in) == 1ull << 44,
	       "Scalable runtime=dotnet width=64: from 2^44 the count stops (32-bit draw)");
	inst_close(&in);
	inst_must_open(&in, SC_ID_scalable, "");
	tap_ok(in.t.thread_seed == 0, "Scalable default (runtime=ayers): per-thread seeds");
	inst_close(&in);
	sc_err err;
	tap_ok(inst_open(&in, SC_ID_scalable, "runtime=java", &err) != 0 &&
	       strstr(err.msg, "runtime=java") != NULL,
	       "Scalable: runtime=java is rejected: %s", err.msg);
}

/* Declared ranges: MorrisAdapt switch-after, Morris's range below its true top. */
static void test_ranges_and_switch_after(void)
{
	inst in;
	inst_must_open(&in, SC_ID_morris, "");
	uint32_t last = morris_last_threshold(&in.cfg->morris);
	uint64_t top = sc_morris_project_(last, &in.cfg->morris), range = in.v->range(in.cfg);
	tap_ok(range <= top && range > top - top / 1000,
	       "Morris: declared range %llu is at most the true top %llu and within 0.1%% of it",
	       (unsigned long long)range, (unsigned long long)top);
	inst_close(&in);
	sc_err err;
	for (unsigned k = 0; k <= 5; k++) {
		char p[32];
		snprintf(p, sizeof p, "switch-after=%u", k);
		int rc = inst_open(&in, SC_ID_morris_adapt, p, &err);
		bool ok = (k >= 1 && k <= 4) ? rc == 0 && in.cfg->morris.switch_after == k : rc != 0;
		if (rc == 0)
			inst_close(&in);
		tap_ok(ok, "MorrisAdapt %s: %s", p, k >= 1 && k <= 4 ? "accepted" : "rejected");
	}
	inst_must_open(&in, SC_ID_morris_adapt, "");
	tap_ok(in.cfg->morris.switch_after == SC_MORRIS_ADAPT_SWITCH_AFTER_DEFAULT,
	       "MorrisAdapt: switch-after defaults to %u", SC_MORRIS_ADAPT_SWITCH_AFTER_DEFAULT);
	inst_close(&in);
}

/* Step exponents, including the 2^32 ceiling of width 64 and the cap. */
static void test_scalable_steps(void)
{
	sc_scalable_cfg c13 = {64, 13, SC_SCALABLE_STEP_MAX, 0, 0}, cap = {32, 13, 10, 0, 0};
	tap_ok(sc_scalable_shift_(8191, &c13) == 0 && sc_scalable_shift_(8192, &c13) == 1 &&
	           sc_scalable_shift_(16384, &c13) == 2 &&
	           sc_scalable_shift_(1ull << 44, &c13) == 32 &&
	           sc_scalable_shift_(UINT64_MAX, &c13) == 32,
	       "Scalable steps: 1 below 2^13, 2 from 2^13, 4 from 2^14, at most 2^32 (width 64)");
	tap_ok(sc_scalable_shift_(1u << 21, &cap) == 9 &&
	           sc_scalable_shift_(1u << 22, &cap) == 10 &&
	           sc_scalable_shift_(UINT32_MAX, &cap) == 10,
	       "ScalableCapped steps: 2^9 at 2^21, capped at 2^10 from 2^22 on");
}

/* The typed API on one counter in sc_scalable_storage, as an embedding program would. */
static void test_scalable_typed_storage(void)
{
	sc_params p;
	sc_err err;
	sc_scalable_cfg cfg;
	sc_scalable_storage st;
	sc_thread t;
	sc_env env = {1, 1, 1};
	sc_params_clear(&p);
	sc_params_add(&p, "width=64", &err);
	sc_thread_init(&t, 0, 0, 15, false);
	sc_scalable_t *c = (sc_scalable_t *)&st;
	bool ok = sc_scalable_config(&cfg, &p, &env, &err) == 0 &&
	          sc_scalable_init(c, &cfg, &err) == 0;
	for (int i = 0; i < 5000; i++)
		sc_scalable_inc(c, &cfg, &t);
	tap_ok(ok && sc_scalable_get(c, &cfg) == 5000 && sc_scalable_size(&cfg) == sizeof st,
	       "Scalable width=64 in sc_scalable_storage through the typed API: 5000 exact");
}

/* ---- 5. reset, sizes ---- */

static void test_reset_and_sizes(void)
{
	static const struct {
		int id;
		const char *params;
		size_t bytes;
	} cases[] = {
		{SC_ID_morris, "", 4},           {SC_ID_morris_adapt, "", 8}, {SC_ID_bfp_dup, "", 4},
		{SC_ID_bfp_csup, "", 4},         {SC_ID_scalable, "", 4},     {SC_ID_scalable, "width=64", 8},
		{SC_ID_scalable_cas, "", 4},     {SC_ID_scalable_capped, "width=64", 8},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
		inst in;
		sc_thread t;
		inst_must_open(&in, cases[i].id, cases[i].params);
		sc_thread_init(&t, 0, 0, 14, false);
		inst_inc(&in, &t, 100000);
		uint64_t before = inst_get(&in);
		in.v->reset(in.c, in.cfg);
		uint64_t zero = inst_get(&in);
		inst_inc(&in, &t, 1);
		tap_ok(before > 0 && zero == 0 && inst_get(&in) == 1 &&
		           in.v->size(in.cfg) == cases[i].bytes &&
		           in.v->heap_bytes(in.c, in.cfg) == 0,
		       "%s '%s': reset gives 0 and counting restarts; %zu bytes, no heap",
		       in.v->name, cases[i].params, cases[i].bytes);
		inst_close(&in);
	}
}

/* ---- 6. parameters ---- */

static void test_parameter_validation(void)
{
	static const struct {
		int id;
		const char *params;
		bool ok;
	} cases[] = {
		{SC_ID_morris, "accuracy=0.5", true},
		{SC_ID_morris, "accuracy=0.4", false},
		{SC_ID_morris, "accuracy=51", false},
		{SC_ID_morris, "accuracy=abc", false},
		{SC_ID_morris_adapt, "accuracy=0", false},
		{SC_ID_morris_adapt, "accuracy=50", true},
		{SC_ID_bfp_dup, "mantissa-threshold=7501", false},
		{SC_ID_bfp_dup, "mantissa-threshold=0", false},
		{SC_ID_bfp_dup, "mantissa-threshold=268435458", false},
		{SC_ID_bfp_dup, "mantissa-threshold=268435456", true},
		{SC_ID_bfp_dup, "mantissa-threshold=2", true},
		{SC_ID_bfp_dup, "accuracy=1 mantissa-threshold=7500", false},
		{SC_ID_bfp_csup, "accuracy=0.005", false},
		{SC_ID_bfp_csup, "accuracy=50", true},
		{SC_ID_bfp_csup, "accuracy=60", false},
		{SC_ID_bfp_csup, "backoff-min=8 backoff-max=4", false},
		{SC_ID_scalable, "threshold=0", false},
		{SC_ID_scalable, "threshold=32", false},
		{SC_ID_scalable, "threshold=31", true},
		{SC_ID_scalable, "width=64 threshold=63", true},
		{SC_ID_scalable, "width=64 threshold=64", false},
		{SC_ID_scalable, "width=48", false},
		{SC_ID_scalable, "width=16", false},
		{SC_ID_scalable, "cap=4", false}, /* not Scalable's key: left for the generic check */
		{SC_ID_scalable_cas, "width=64 threshold=20", true},
		{SC_ID_scalable_capped, "cap=0", false},
		{SC_ID_scalable_capped, "cap=33", false},
		{SC_ID_scalable_capped, "cap=32", true},
	};
	for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
		inst in;
		sc_err err;
		bool ok = inst_open(&in, cases[i].id, cases[i].params, &err) == 0;
		inst_close(&in);
		tap_ok(ok == cases[i].ok && (ok || err.msg[0]), "%s '%s': %s%s%s",
		       sc_variants[cases[i].id].name, cases[i].params,
		       cases[i].ok ? "accepted" : "rejected: ", ok ? "" : err.msg,
		       ok == cases[i].ok ? "" : " (WRONG)");
	}
}

/* Values the parameters give. */
static void test_parameter_values(void)
{
	inst in;
	inst_must_open(&in, SC_ID_bfp_dup, "");
	uint32_t mt1 = in.cfg->bfp.mant_threshold;
	inst_close(&in);
	inst_must_open(&in, SC_ID_bfp_csup, "accuracy=2");
	uint32_t mt2 = in.cfg->bfp.mant_threshold;
	inst_close(&in);
	tap_ok(mt1 == 7500 && mt2 == 1874,
	       "BFP MantThreshold: 7500 at 1%%, 1874 at 2%% (got %u, %u)", mt1, mt2);
	inst_must_open(&in, SC_ID_morris, "");
	double a = in.cfg->morris.a, scale = in.cfg->morris.scale;
	inst_close(&in);
	tap_ok(a == 5000 && scale >= a && scale < a * 1.001,
	       "Morris: a = 5000 at 1%%; the rounded factor implies a' = %.2f >= a", scale);
	inst_must_open(&in, SC_ID_scalable_capped, "");
	sc_scalable_cfg c = in.cfg->scalable;
	inst_close(&in);
	tap_ok(c.width == 32 && c.threshold == 13 && c.cap == 10,
	       "ScalableCapped defaults: width 32, threshold 13, cap 10");
}

/* ---- the acceptance measurement: 200 runs of 2,000,000 ---- */

static void print_table_row(const stat_spec *s, unsigned runs, const stat_result *r)
{
	double sd = test_stats_sd(&r->x), se = sd / sqrt(runs);
	tap_diag("TABLE %-15s %-24s mean %.6f se %.6f z %+6.2f RSTDV %.4f%% pred %.4f%% "
	         "bound %.4f%% %.1f s",
	         sc_variants[s->id].name, s->params[0] ? s->params : "(defaults)", r->x.mean, se,
	         se > 0 ? (r->x.mean - 1) / se : 0.0, 100 * sd, 100 * r->predicted,
	         100 * r->bound, r->seconds);
}

/*
 * The variants that one thread drives exactly (MorrisAdapt below 2^32,
 * BFP-CSUP below 2^28, ScalableCAS everywhere), run from 0 as the others.
 */
static void test_single_thread_exact_from_zero(unsigned runs, uint64_t n)
{
	static const int ids[] = {SC_ID_morris_adapt, SC_ID_bfp_csup, SC_ID_scalable_cas};
	for (unsigned i = 0; i < 3; i++) {
		stat_spec s = {ids[i], "", morris_bound, morris_predict, NULL, "exact"};
		stat_result r;
		run_statistics(&s, runs, n, STAT_SEED + 0x100000u * (i + 1), false, &r);
		r.bound = r.predicted = 0;
		print_table_row(&s, runs, &r);
		tap_ok(r.x.min == 1 && r.x.max == 1, "%s: %u single-thread runs of %llu from 0 are "
		       "exact", sc_variants[ids[i]].name, runs, (unsigned long long)n);
	}
}

int main(int argc, char **argv)
{
	tap_plan_lazy();
	if (argc > 1 && strcmp(argv[1], "--acceptance") == 0) {
		test_unbiased_rstdv_within_bound(200, 2000000, true, false);
		test_single_thread_exact_from_zero(200, 2000000);
		return tap_done();
	}
	test_scalable_exact_below_threshold();
	test_scalable_cas_exact_single_thread();
	test_bfp_dup_exact_below_threshold();
	test_bfp_csup_exact_single_thread();
	test_morris_adapt_exact_half();
	test_morris_small_counts();
	test_unbiased_rstdv_within_bound(check_runs(), CHECK_N, false, false);
	test_multithreaded_within_bound(false);
	test_unbiased_rstdv_within_bound(check_runs(), CHECK_N, false, true);
	test_add_exact_where_inc_is();
	test_multithreaded_within_bound(true);
	test_morris_overflow_wraps();
	test_morris_adapt_overflow_wraps();
	test_bfp_overflow_wraps();
	test_bfp_exponent_steps();
	test_scalable_overflow_wraps();
	test_scalable_cas_overflow_wraps();
	test_scalable_cas_sticky_switch();
	test_scalable_dotnet_model();
	test_scalable_stale_step_after_reset();
	test_scalable_range_is_a_bound();
	test_ranges_and_switch_after();
	test_scalable_steps();
	test_scalable_typed_storage();
	test_reset_and_sizes();
	test_parameter_validation();
	test_parameter_values();
	return tap_done();
}
