/* SPDX-License-Identifier: MIT */
/*
 * test_bfp.c - the binary floating point family (sc_bfp.h): BFP-DUP and
 * BFP-CSUP.
 *
 * Checks, in order: single-thread exactness up to each switch point;
 * unbiasedness and RSTDV against the analytic bound over many seeds, by
 * increments and by add(n); a 4-thread count; the overflow boundary and the
 * exponent steps; reset and sizes; parameters. The statistical method, its
 * false-failure probabilities and the seeds are those of tests/testprob.h.
 * add(n)'s cost in steps is tests/test_bfp_steps.c (a build of bfp.c with a
 * counting hook).
 *
 *   test_bfp               make check: K = 200, N = 2^19
 *   test_bfp --acceptance  K = 200, N = 2,000,000, with a table
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, pthread barriers under -std=c11 */
#endif

#include "testprob.h"

/* ---- analytic bounds and predictions (RSTDV of value/N) ---- */

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

/* BFP-CSUP a quarter of the run below mantissa saturation at exponent CSUP_E0. */
static uint64_t preset_csup(inst *in, uint64_t n)
{
	atomic_store(word32(in), CSUP_E0 << SC_BFP_MANT_BITS |
	                                 (SC_BFP_MANT_MAX - (uint32_t)csup_preset_d(n)));
	return inst_get(in);
}

/* ---- single-thread exactness up to the switch point ---- */

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

/* ---- unbiasedness and RSTDV across seeds (tests/testprob.h) ---- */

static const stat_spec bfp_specs[] = {
	{SC_ID_bfp_dup, "", bfp_bound, bfp_dup_predict, NULL, "sqrt(3/(8M-3)), Dice 4.2", 3},
	{SC_ID_bfp_dup, "mantissa-threshold=800", bfp_bound, bfp_dup_predict, NULL,
	 "sqrt(3/(8M-3)), Dice 4.2", 4},
	{SC_ID_bfp_csup, "", csup_bound, csup_predict, preset_csup,
	 "sqrt((2^(e+1)-1)/N) from (e,m) = (3, 2^28-1-N/32)", 5},
};

/* ---- overflow boundaries and exponent steps ---- */

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
}

static const int bfp_ids[] = {SC_ID_bfp_dup, SC_ID_bfp_csup};
static const tp_add_case bfp_adds[] = {
	{SC_ID_bfp_dup, "", 7500, 0xadd4u},
	{SC_ID_bfp_csup, "", SC_BFP_MANT_MAX, 0xadd5u},
};
static const tp_size_case bfp_sizes[] = {{SC_ID_bfp_dup, "", 4}, {SC_ID_bfp_csup, "", 4}};
static const tp_param_case bfp_params[] = {
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
};
/* The 4-thread counts of both are held to BFP-DUP's bound at the default MantThreshold. */
static const tp_family bfp_family = {
	bfp_specs, TP_LEN(bfp_specs), bfp_ids, TP_LEN(bfp_ids), bfp_bound,
	bfp_adds, TP_LEN(bfp_adds), bfp_sizes, TP_LEN(bfp_sizes),
	bfp_params, TP_LEN(bfp_params), SC_ID_bfp_csup, 2,
};

int main(int argc, char **argv)
{
	tap_plan_lazy();
	if (tp_acceptance(&bfp_family, argc, argv))
		return tap_done();
	test_bfp_dup_exact_below_threshold();
	test_bfp_csup_exact_single_thread();
	tp_statistics(&bfp_family);
	test_bfp_overflow_wraps();
	test_bfp_exponent_steps();
	tp_tables(&bfp_family);
	test_parameter_values();
	return tap_done();
}
