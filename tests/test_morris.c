/* SPDX-License-Identifier: MIT */
/*
 * test_morris.c - the Morris family (sc_morris.h): Morris and MorrisAdapt.
 *
 * Checks, in order: single-thread exactness up to each switch point;
 * unbiasedness and RSTDV against the analytic bound over many seeds, by
 * increments and by add(n); a 4-thread count; the overflow boundaries;
 * declared ranges and switch-after; reset and sizes; parameters; the
 * harness's reading from v (morris_decode.h) against the library's. The
 * statistical method, its false-failure probabilities and the seeds are
 * those of tests/testprob.h.
 *
 *   test_morris               make check: K = 200, N = 2^19
 *   test_morris --acceptance  K = 200, N = 2,000,000, with a table
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, pthread barriers under -std=c11 */
#endif

#include "morris_decode.h"
#include "testprob.h"

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

/* MorrisAdapt with a full exact half: every increment goes to the Morris half. */
static uint64_t preset_morris_adapt(inst *in, uint64_t n)
{
	(void)n;
	atomic_store(word64(in), SC_MORRIS_ADAPT_INIT | UINT32_MAX);
	return inst_get(in);
}

/* ---- single-thread exactness up to the switch point ---- */

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

/* ---- unbiasedness and RSTDV across seeds (tests/testprob.h) ---- */

static const stat_spec morris_specs[] = {
	{SC_ID_morris, "", morris_bound, morris_predict, NULL, "1/sqrt(2a), Dice 3.1", 0},
	{SC_ID_morris, "accuracy=5", morris_bound, morris_predict, NULL, "1/sqrt(2a), Dice 3.1", 1},
	{SC_ID_morris_adapt, "", morris_bound, morris_predict, preset_morris_adapt,
	 "1/sqrt(2a) on the Morris half (exact half preset full)", 2},
};

/* ---- add(n) ---- */

/* MorrisAdapt: the exact half fills to 2^32 - 1 by add, then the Morris half takes over. */
static void test_morris_adapt_add_fills_exact_half(void)
{
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

/* Values the parameters give. */
static void test_parameter_values(void)
{
	inst in;
	inst_must_open(&in, SC_ID_morris, "");
	double a = in.cfg->morris.a, scale = in.cfg->morris.scale;
	inst_close(&in);
	tap_ok(a == 5000 && scale >= a && scale < a * 1.001,
	       "Morris: a = 5000 at 1%%; the rounded factor implies a' = %.2f >= a", scale);
}

/*
 * scbench's decode from v (harness/morris_decode.h, decode_v_ns) reads what
 * the library's projection reads (decode_p_ns): over states spread across
 * the whole range, within 1e-5 (n + a), the float rounding of the chain of
 * thresholds; with the cfg's a instead of its scale it would be off by 2e-3
 * at the top. The states reach the top of the range: the chain's last one
 * reads between the declared range and 1.001 times it (a = 5000).
 */
static void test_decode_from_v(void)
{
	enum { N = 4096 };
	static uint32_t tb[N];
	static double v[N];
	const char *params[][2] = { { "Morris", "" },
		                    { "Morris", "accuracy=0.5" },
		                    { "Morris", "accuracy=10" },
		                    { "Morris", "accuracy=50" },
		                    { "MorrisAdapt", "" } };
	for (size_t k = 0; k < sizeof params / sizeof params[0]; k++) {
		inst in;
		int id = strcmp(params[k][0], "Morris") == 0 ? SC_ID_morris : SC_ID_morris_adapt;
		inst_must_open(&in, id, params[k][1]);
		const sc_morris_cfg *cfg = &in.cfg->morris;
		morris_v_decoder d = morris_v_decoder_of(cfg);
		uint64_t len = morris_decode_states(cfg, tb, v, N);
		double worst = 0;
		for (unsigned i = 0; i < N; i++) {
			double nv = morris_n_of_v(v[i], &d);
			double off = fabs(nv - sc_morris_projection(tb[i], cfg)) / (nv + d.a);
			worst = off > worst ? off : worst;
		}
		tap_ok(worst <= 1e-5 && v[N - 1] < (double)len && len > 0,
		       "%s %s: decode from v agrees with the projection over %u states of %llu "
		       "updates (worst %.3g of n + a)",
		       params[k][0], params[k][1][0] ? params[k][1] : "(default)", (unsigned)N,
		       (unsigned long long)len, worst);
		if (k == 0) {
			double top = morris_n_of_v((double)len, &d),
			       range = (double)sc_morris_range(cfg);
			tap_ok(top >= range && top <= 1.001 * range,
			       "Morris: the chain's last state reads %.0f, the range %.0f", top,
			       range);
		}
		inst_close(&in);
	}
}

static const int morris_ids[] = {SC_ID_morris, SC_ID_morris_adapt};
static const tp_add_case morris_adds[] = {{SC_ID_morris_adapt, "", 3000000, 0xadd6u}};
static const tp_size_case morris_sizes[] = {{SC_ID_morris, "", 4}, {SC_ID_morris_adapt, "", 8}};
static const tp_param_case morris_params[] = {
	{SC_ID_morris, "accuracy=0.5", true},
	{SC_ID_morris, "accuracy=0.4", false},
	{SC_ID_morris, "accuracy=51", false},
	{SC_ID_morris, "accuracy=abc", false},
	{SC_ID_morris_adapt, "accuracy=0", false},
	{SC_ID_morris_adapt, "accuracy=50", true},
};
static const tp_family morris_family = {
	morris_specs, TP_LEN(morris_specs), morris_ids, TP_LEN(morris_ids), morris_bound,
	morris_adds, TP_LEN(morris_adds), morris_sizes, TP_LEN(morris_sizes),
	morris_params, TP_LEN(morris_params), SC_ID_morris_adapt, 1,
};

int main(int argc, char **argv)
{
	tap_plan_lazy();
	if (tp_acceptance(&morris_family, argc, argv))
		return tap_done();
	test_morris_adapt_exact_half();
	test_morris_small_counts();
	tp_statistics(&morris_family);
	test_morris_adapt_add_fills_exact_half();
	test_morris_overflow_wraps();
	test_morris_adapt_overflow_wraps();
	test_ranges_and_switch_after();
	tp_tables(&morris_family);
	test_parameter_values();
	test_decode_from_v();
	return tap_done();
}
