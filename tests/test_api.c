/* SPDX-License-Identifier: MIT */
/*
 * test_api.c - the per-variant API beyond the increment, for every
 * variant through the registry: add(n) of the precise variants is exact
 * (one thread, and 8 threads mixing adds and increments) and wraps at the top
 * of each variant's range, Serial's add never
 * overshoots, and no thread index or node id, however large, makes any
 * variant write outside its memory (run under AddressSanitizer by CI): an
 * index at or above the configured thread count still counts exactly.
 * The statistical contract of the probabilistic variants' add is checked in
 * test_morris.c, test_bfp.c and test_scalable.c.
 *
 * Deterministic: fixed seeds, no timing; the multi-threaded checks are exact
 * comparisons.
 */
#include <scounters/scounters.h>

#include <string.h>

#include "tap.h"
#include "testutil.h"

static const uint64_t ADD_SIZES[] = {1, 5, 0, 64, 1000, 3, 63, 65, 100000, 2};
#define N_ADD_SIZES (sizeof ADD_SIZES / sizeof ADD_SIZES[0])

/* One counter of v in a table of one, for env; NULL on failure (reported). */
static void *open_one(sc_table *t, const sc_variant *v, sc_env env)
{
	sc_err err;
	if (test_table_open(t, v, &env, 1, "", &err)) {
		tap_ok(false, "%s: configure: %s", v->name, err.msg);
		return NULL;
	}
	return sc_table_at(t, 0);
}

/* add(n) on one thread, mixed with increments: exact for precise, never above for Serial. */
static void test_add_single_thread(const sc_variant *v)
{
	sc_table t;
	sc_env env = {4, 2, 4};
	void *c = open_one(&t, v, env);
	if (!c)
		return;
	sc_thread th;
	sc_thread_init(&th, 1, 1, 0xa11u, false);
	uint64_t truth = 0;
	bool exact = true;
	for (unsigned i = 0; i < 200; i++) {
		uint64_t n = ADD_SIZES[i % N_ADD_SIZES];
		v->add(c, t.cfg, &th, n);
		v->inc(c, t.cfg, &th);
		truth += n + 1;
		v->flush(c, t.cfg, &th);
		exact = exact && v->get(c, t.cfg) == truth;
	}
	tap_ok(exact, "%s_add_exact_single_thread (%llu)", v->name, (unsigned long long)truth);
	sc_table_destroy(&t);
}

typedef struct mt_add {
	sc_table *t;
	uint32_t index_base; /* thread i uses index index_base + i */
	uint32_t node_base;
} mt_add;

#define MT_ROUNDS 2000
/* Per thread: MT_ROUNDS rounds of one add from ADD_SIZES and one increment. */
static uint64_t mt_per_thread(void)
{
	uint64_t sum = 0;
	for (unsigned i = 0; i < MT_ROUNDS; i++)
		sum += ADD_SIZES[i % N_ADD_SIZES] + 1;
	return sum;
}

static void mt_add_worker(test_thread_arg *a)
{
	mt_add *s = a->shared;
	const sc_variant *v = s->t->v;
	void *c = sc_table_at(s->t, 0);
	sc_thread th;
	sc_thread_init(&th, s->index_base + a->index, s->node_base + a->index, 0xb0bu, false);
	for (unsigned i = 0; i < MT_ROUNDS; i++) {
		v->add(c, s->t->cfg, &th, ADD_SIZES[(i + a->index) % N_ADD_SIZES]);
		v->inc(c, s->t->cfg, &th);
	}
	v->flush(c, s->t->cfg, &th);
}

/*
 * 8 threads (more than the cores, on purpose) with the counter configured
 * for 2 threads and 2 nodes: threads 0 and 1 own slots, 2..7 have indices
 * at or above the configured count, and node ids run past the node count.
 */
static void test_add_8_threads_beyond_configured(const sc_variant *v, uint32_t index_base)
{
	sc_table t;
	sc_env env = {2, 2, 2};
	if (!open_one(&t, v, env))
		return;
	mt_add s = {&t, index_base, 0};
	test_run_threads(8, mt_add_worker, &s);
	uint64_t truth = 8 * mt_per_thread(), got = v->get(sc_table_at(&t, 0), t.cfg);
	if (v->kind == SC_PRECISE)
		tap_ok(got == truth, "%s_8_threads_indices_from_%u_add_and_inc_exact (%llu of %llu)",
		       v->name, index_base, (unsigned long long)got, (unsigned long long)truth);
	else if (v->kind == SC_RACY)
		tap_ok(got <= truth, "%s_8_threads_indices_from_%u_never_above_truth", v->name,
		       index_base);
	else /* probabilistic: only memory safety is at stake here (ASan); the value is plausible */
		tap_ok(got > 0, "%s_8_threads_indices_from_%u_in_bounds", v->name, index_base);
	sc_table_destroy(&t);
}

/*
 * Single thread, huge indices and node ids: each of inc, add, flush stays in
 * bounds and the count is exact (precise), for a counter configured for one
 * thread, one node and one CPU, the smallest environment.
 */
static void test_out_of_range_index_single(const sc_variant *v)
{
	static const uint32_t ids[] = {1, 2, 63, 64, 1000, 1u << 20, UINT32_MAX - 1, UINT32_MAX};
	sc_table t;
	sc_env env = {1, 1, 1};
	void *c = open_one(&t, v, env);
	if (!c)
		return;
	uint64_t truth = 0;
	for (unsigned i = 0; i < sizeof ids / sizeof ids[0]; i++) {
		sc_thread th;
		sc_thread_init(&th, ids[i], ids[i], 0xc0ffeeu, false);
		for (unsigned k = 0; k < 100; k++)
			v->inc(c, t.cfg, &th);
		v->add(c, t.cfg, &th, 1000);
		v->flush(c, t.cfg, &th);
		truth += 1100;
	}
	uint64_t got = v->get(c, t.cfg);
	if (v->kind == SC_PROBABILISTIC)
		tap_ok(got > 0, "%s_index_and_node_up_to_2^32-1_in_bounds", v->name);
	else
		tap_ok(v->kind == SC_PRECISE ? got == truth : got <= truth,
		       "%s_index_and_node_up_to_2^32-1_in_bounds_and_%s (%llu of %llu)", v->name,
		       v->kind == SC_PRECISE ? "exact" : "never_above", (unsigned long long)got,
		       (unsigned long long)truth);
	sc_table_destroy(&t);
}

/*
 * add at the top of the range: add(max) then one increment wraps every
 * precise variant to 0, max being its range (2^64 - 1; 2^(31-nb) - 1 for
 * RBONuma(Adapt); 2^63 - 1 for MultilineAdapt), on 2 nodes.
 */
static void test_add_wraps_at_range(const sc_variant *v)
{
	sc_table t;
	sc_env env = {2, 2, 2};
	void *c = open_one(&t, v, env);
	if (!c)
		return;
	uint64_t max = UINT64_MAX;
	if (v == &sc_variants[SC_ID_rbonuma] || v == &sc_variants[SC_ID_rbonuma_adapt])
		max = ((const sc_rbonuma_cfg *)t.cfg)->value_mask;
	else if (v == &sc_variants[SC_ID_multiline_adapt])
		max = SC_MULTILINE_ADAPT_VALUE_MASK;
	sc_thread th;
	sc_thread_init(&th, 1, 1, 0xf00u, false);
	v->add(c, t.cfg, &th, max);
	v->flush(c, t.cfg, &th);
	bool top = v->get(c, t.cfg) == max;
	v->inc(c, t.cfg, &th);
	v->flush(c, t.cfg, &th);
	tap_ok(top && v->get(c, t.cfg) == 0, "%s_add_reaches_%#llx_then_wraps_to_0", v->name,
	       (unsigned long long)max);
	/* The handle API masks differences of precise values with the range. */
	tap_ok(v->range(t.cfg) == max, "%s_range_is_the_wrap_point (%#llx)", v->name,
	       (unsigned long long)v->range(t.cfg));
	sc_table_destroy(&t);
}

/* The overflow slot of Sharded takes part in the 2^64 wrap like any slot. */
static void test_sharded_overflow_slot_wraps(void)
{
	sc_table t;
	sc_env env = {1, 1, 1};
	sc_sharded_t *c = open_one(&t, &sc_variants[SC_ID_sharded], env);
	if (!c)
		return;
	sc_thread th;
	sc_thread_init(&th, 7, 0, 1, false);
	sc_sharded_add(c, t.cfg, &th, UINT64_MAX);
	bool top = sc_sharded_get(c, t.cfg) == UINT64_MAX;
	sc_sharded_inc(c, t.cfg, &th);
	tap_ok(top && sc_sharded_get(c, t.cfg) == 0, "sharded_overflow_slot_wraps_at_2^64");
	sc_table_destroy(&t);
}

int main(void)
{
	tap_plan_lazy();
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		if (v->kind != SC_PROBABILISTIC)
			test_add_single_thread(v);
		if (v->kind == SC_PRECISE)
			test_add_wraps_at_range(v);
		test_out_of_range_index_single(v);
		test_add_8_threads_beyond_configured(v, 0);
		test_add_8_threads_beyond_configured(v, UINT32_MAX - 7);
	}
	test_sharded_overflow_slot_wraps();
	return tap_done();
}
