/* SPDX-License-Identifier: MIT */
/*
 * test_scalable.c - the Scalable family (sc_scalable.h): Scalable,
 * ScalableCAS and ScalableCapped.
 *
 * Checks, in order: single-thread exactness up to each switch point;
 * unbiasedness and RSTDV against Ayers's bound over many seeds, by
 * increments and by add(n); a 4-thread count; the overflow boundaries;
 * ScalableCAS's sticky switch; a stale step across a reset; declared
 * ranges; step exponents; the typed API; reset and sizes; parameters. The
 * statistical method, its false-failure probabilities and the seeds are
 * those of tests/testprob.h. Scalable's model of the .NET runtime
 * (runtime=dotnet) is tests/test_scalable_dotnet.c; its generators (rng)
 * tests/test_scalable_rng.c, but rng=mix's statistics are here.
 *
 *   test_scalable               make check: K = 200, N = 2^19
 *   test_scalable --acceptance  K = 200, N = 2,000,000, with a table
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, pthread barriers under -std=c11 */
#endif

#include "testprob.h"

/* ---- analytic bounds and predictions (RSTDV of value/N) ---- */

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

/* ---- single-thread exactness up to the switch point ---- */

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

/* ---- unbiasedness and RSTDV across seeds (tests/testprob.h) ---- */

static const stat_spec scalable_specs[] = {
	{ SC_ID_scalable, "", scalable_bound, scalable_predict, NULL, "sqrt(3/2^(T+2)), Ayers", 6 },
	{ SC_ID_scalable, "width=64 threshold=10", scalable_bound, scalable_predict, NULL,
	  "sqrt(3/2^(T+2)), Ayers", 7 },
	{ SC_ID_scalable_capped, "", scalable_bound, scalable_predict, NULL,
	  "sqrt(3/2^(T+2)), Ayers (capped is below)", 8 },
	{ SC_ID_scalable_capped, "cap=2", scalable_bound, scalable_predict, NULL,
	  "sqrt(3/2^(T+2)), Ayers (capped is below)", 9 },
	/* the scrambled generator keeps the contract (sc_scalable.h) */
	{ SC_ID_scalable, "rng=mix", scalable_bound, scalable_predict, NULL,
	  "sqrt(3/2^(T+2)), Ayers (rng=mix)", 10 },
	{ SC_ID_scalable_capped, "rng=mix", scalable_bound, scalable_predict, NULL,
	  "sqrt(3/2^(T+2)), Ayers (capped, rng=mix)", 11 },
};

/* ---- overflow boundaries ---- */

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
	sc_scalable_add32_(&w32, 1u << 20, UINT32_MAX, &cfg, &r32, false);
	cfg.width = 64;
	uint32_t r64 = rng;
	_Atomic uint64_t w64 = 5;
	sc_scalable_add64_(&w64, 1ull << 20, UINT64_MAX, &cfg, &r64, false);
	cfg.width = 32;
	uint32_t rcas = rng;
	_Atomic uint32_t wcas = SC_SCALABLE_CAS_TAG32 | 5;
	sc_scalable_add32_(&wcas, SC_SCALABLE_CAS_TAG32 | 1u << 20, ~SC_SCALABLE_CAS_TAG32, &cfg,
	                   &rcas, false);
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

/* Values the parameters give. */
static void test_parameter_values(void)
{
	inst in;
	inst_must_open(&in, SC_ID_scalable_capped, "");
	sc_scalable_cfg c = in.cfg->scalable;
	inst_close(&in);
	tap_ok(c.width == 32 && c.threshold == 13 && c.cap == 10,
	       "ScalableCapped defaults: width 32, threshold 13, cap 10");
}

static const int scalable_ids[] = {SC_ID_scalable, SC_ID_scalable_cas, SC_ID_scalable_capped};
static const tp_add_case scalable_adds[] = {
	{SC_ID_scalable, "", 1u << 13, 0xadd0u},
	{SC_ID_scalable_capped, "threshold=20", 1u << 20, 0xadd1u},
	{SC_ID_scalable_cas, "", 3000000, 0xadd2u},
	{SC_ID_scalable_cas, "width=64", 3000000, 0xadd3u},
};
static const tp_size_case scalable_sizes[] = {
	{SC_ID_scalable, "", 4},
	{SC_ID_scalable, "width=64", 8},
	{SC_ID_scalable_cas, "", 4},
	{SC_ID_scalable_capped, "width=64", 8},
};
static const tp_param_case scalable_params[] = {
	{ SC_ID_scalable, "threshold=0", false },
	{ SC_ID_scalable, "threshold=32", false },
	{ SC_ID_scalable, "threshold=31", true },
	{ SC_ID_scalable, "width=64 threshold=63", true },
	{ SC_ID_scalable, "width=64 threshold=64", false },
	{ SC_ID_scalable, "width=48", false },
	{ SC_ID_scalable, "width=16", false },
	{ SC_ID_scalable, "cap=4", false }, /* not Scalable's key: left for the generic check */
	{ SC_ID_scalable_cas, "width=64 threshold=20", true },
	{ SC_ID_scalable_capped, "cap=0", false },
	{ SC_ID_scalable_capped, "cap=33", false },
	{ SC_ID_scalable_capped, "cap=32", true },
	{ SC_ID_scalable, "rng=mix", true },
	{ SC_ID_scalable, "rng=xorshift", true },
	{ SC_ID_scalable, "rng=", false },
	{ SC_ID_scalable_capped, "rng=mix", true },
	{ SC_ID_scalable_cas, "rng=mix", false },
};
static const tp_family scalable_family = {
	scalable_specs, TP_LEN(scalable_specs), scalable_ids, TP_LEN(scalable_ids), scalable_bound,
	scalable_adds, TP_LEN(scalable_adds), scalable_sizes, TP_LEN(scalable_sizes),
	scalable_params, TP_LEN(scalable_params), SC_ID_scalable_cas, 3,
};

int main(int argc, char **argv)
{
	tap_plan_lazy();
	if (tp_acceptance(&scalable_family, argc, argv))
		return tap_done();
	test_scalable_exact_below_threshold();
	test_scalable_cas_exact_single_thread();
	tp_statistics(&scalable_family);
	test_scalable_overflow_wraps();
	test_scalable_cas_overflow_wraps();
	test_scalable_cas_sticky_switch();
	test_scalable_stale_step_after_reset();
	test_scalable_range_is_a_bound();
	test_scalable_steps();
	test_scalable_typed_storage();
	tp_tables(&scalable_family);
	test_parameter_values();
	return tap_done();
}
