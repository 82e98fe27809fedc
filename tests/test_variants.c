/* SPDX-License-Identifier: MIT */
/*
 * test_variants.c - properties every variant must have, checked through the
 * registry and the measured loops of workloads/ (so the code scbench runs is
 * the code tested): the list itself, reset, parameter validation, single-
 * thread exactness, exactness of every precise variant under 2, 4 and 8
 * threads on any machine (oversubscribed on purpose) with 1 and 4 virtual
 * nodes, in single-counter and array form, and which of its readings its get
 * is. Driven by the variant list, so a
 * new variant is held to all of it without an edit here; what only one
 * family must do is in that family's program (tests/test_<family>.c).
 */
#include <string.h>

#include <scounters/scounters.h>
#include "tap.h"
#include "testutil.h"
#include "workload.h"

static void test_registry(void)
{
	/* The count is the list's (SC_VARIANTS), stated nowhere else: every entry named. */
	bool unique = true, found = true, named = SC_VARIANT_COUNT > 0;
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		named &= v->name != NULL && v->name[0] != '\0';
		for (int j = 0; j < i; j++)
			unique &= strcasecmp(v->name, sc_variants[j].name) != 0;
		found &= sc_variant_find(v->name) == v;
		if (v->alias)
			found &= sc_variant_find(v->alias) == v;
	}
	tap_ok(named, "registry_has_%d_named_variants", SC_VARIANT_COUNT);
	tap_ok(unique, "registry_names_unique");
	tap_ok(found, "registry_find_by_name_and_alias");
	tap_ok(sc_variant_find("bfp-csup") == &sc_variants[SC_ID_bfp_csup] &&
	               sc_variant_find("RACING") == &sc_variants[SC_ID_serial] &&
	               sc_variant_find("Interlocked") == &sc_variants[SC_ID_fetchadd],
	       "registry_find_case_insensitive");
	tap_ok(sc_variant_find("nosuch") == NULL && sc_variant_find("") == NULL,
	       "registry_unknown_name_is_null");
}

static int make_table(sc_table *t, const sc_variant *v, uint32_t threads, uint32_t nodes,
                      size_t n, const char *kv)
{
	sc_env env;
	sc_err err;
	sc_env_default(&env);
	env.threads = threads;
	env.nodes = nodes;
	if (test_table_open(t, v, &env, n, kv, &err)) {
		tap_diag("%s", err.msg);
		return -1;
	}
	return 0;
}

static void test_params_and_layout(const sc_variant *v)
{
	sc_table t;
	tap_ok(make_table(&t, v, 4, 1, 1, "no-such-key=1") != 0,
	       "%s_rejects_unknown_parameter", v->name);
	tap_ok(make_table(&t, v, 4, 1, 1, "same-seed=2") != 0, "%s_rejects_same_seed_2",
	       v->name);
	if (!tap_ok(make_table(&t, v, 4, 1, 1, "same-seed=1") == 0,
	            "%s_accepts_same_seed_1", v->name))
		return;
	tap_ok(t.same_seed, "%s_same_seed_recorded", v->name);
	double bpc = sc_table_bytes_per_counter(&t);
	tap_ok(v->layout == SC_PACKED ? bpc >= (double)t.stride
	                              : t.stride % SC_LINE_SIZE == 0 && bpc >= SC_LINE_SIZE,
	       "%s_layout_%s_bytes_per_counter=%.0f", v->name,
	       v->layout == SC_PACKED ? "packed" : "padded", bpc);
	sc_table_destroy(&t);
}

/* One phase of the count loop on the calling thread. */
static void count_phase(sc_table *t, wl_thread *w, uint64_t ops)
{
	wl_phase ph = {.table = t, .work_iters = 0, .ops = ops, .stop = NULL};
	wl_loops_for(t->v)->count(&ph, w);
	for (size_t i = 0; i < t->n; i++)
		t->v->flush(sc_table_at(t, i), t->cfg, &w->ctx);
}

static void test_single_thread_and_reset(const sc_variant *v)
{
	sc_table t;
	if (make_table(&t, v, 1, 1, 1, NULL))
		return;
	wl_thread w;
	wl_thread_init(&w, 0, 0, 42, false);
	const uint64_t n = 100000;
	count_phase(&t, &w, n);
	uint64_t got = v->get(t.base, t.cfg);
	if (v->kind != SC_PROBABILISTIC)
		tap_ok(got == n, "%s_single_thread_exact (%llu of %llu)", v->name,
		       (unsigned long long)got, (unsigned long long)n);
	else
		tap_ok(got > n / 2 && got < 2 * n, "%s_single_thread_plausible (%llu of %llu)",
		       v->name, (unsigned long long)got, (unsigned long long)n);
	sc_table_reset(&t);
	tap_ok(v->get(t.base, t.cfg) == 0, "%s_reset_to_zero", v->name);
	count_phase(&t, &w, 10);
	got = v->get(t.base, t.cfg);
	/* Morris estimates from its second increment on; the rest are exact this low. */
	tap_ok(v->kind == SC_PROBABILISTIC ? got >= 5 && got <= 20 : got == 10,
	       "%s_counts_after_reset (%llu of 10)", v->name, (unsigned long long)got);
	sc_table_destroy(&t);
}

/*
 * Which reading get is (sc_variant_has_fast_apart: the sum, or the fast
 * reading), after three increments of one thread left unflushed: where a
 * variant's readings differ (SC_PROMISE_READINGS_DIFFER) they must differ
 * here, held back from its fast reading, or the check would say nothing.
 */
static void test_get_reading(const sc_variant *v)
{
	sc_table t;
	if (make_table(&t, v, 1, 1, 1, NULL))
		return;
	wl_thread w;
	wl_thread_init(&w, 0, 0, 42, false);
	void *c = sc_table_at(&t, 0);
	for (int i = 0; i < 3; i++)
		v->inc(c, t.cfg, &w.ctx);
	uint64_t get = v->get(c, t.cfg), fast = v->reading_fast(c, t.cfg);
	uint64_t sum = v->reading_sum(c, t.cfg);
	bool apart = sc_variant_has_fast_apart(v);
	tap_ok(v->promises & SC_PROMISE_READINGS_DIFFER ?
	               fast != sum && get == (apart ? sum : fast) :
	               !apart && get == fast && fast == sum,
	       "%s_get_is_its_%s_reading (get %llu, fast %llu, sum %llu)", v->name,
	       apart ? "sum" : "fast", (unsigned long long)get, (unsigned long long)fast,
	       (unsigned long long)sum);
	v->flush(c, t.cfg, &w.ctx);
	sc_table_destroy(&t);
}

typedef struct mt_job {
	sc_table *table;
	uint32_t nodes;
	uint64_t seed;
	uint64_t ops;
	uint64_t hot[64];
} mt_job;

static void mt_worker(test_thread_arg *a)
{
	mt_job *j = a->shared;
	wl_thread w;
	wl_thread_init(&w, a->index, a->index % j->nodes, j->seed, false);
	count_phase(j->table, &w, j->ops);
	j->hot[a->index] = w.hot_ops;
}

static void test_precise_exact(const sc_variant *v)
{
	static const unsigned threads[] = {2, 4, 8};
	static const uint32_t nodes[] = {1, 4};
	static const size_t arrays[] = {1, 64};
	bool all_exact = true;
	unsigned cases = 0;
	for (unsigned ti = 0; ti < 3; ti++)
		for (unsigned ni = 0; ni < 2; ni++)
			for (unsigned ai = 0; ai < 2; ai++)
				for (uint64_t seed = 1; seed <= 3; seed++) {
					sc_table t;
					if (make_table(&t, v, threads[ti], nodes[ni], arrays[ai], NULL)) {
						all_exact = false;
						continue;
					}
					mt_job j = {.table = &t, .nodes = nodes[ni], .seed = seed,
					            .ops = test_scaled(20000, 2000)};
					test_run_threads(threads[ti], mt_worker, &j);
					uint64_t want = 0;
					for (unsigned i = 0; i < threads[ti]; i++)
						want += j.hot[i];
					uint64_t got = v->get(t.base, t.cfg);
					if (got != want) {
						all_exact = false;
						tap_diag("%s threads=%u nodes=%u counters=%zu seed=%llu: "
						         "%llu != %llu",
						         v->name, threads[ti], nodes[ni], arrays[ai],
						         (unsigned long long)seed, (unsigned long long)got,
						         (unsigned long long)want);
					}
					cases++;
					sc_table_destroy(&t);
				}
	tap_ok(all_exact && cases == 36,
	       "%s_precise_exact_2_4_8_threads_1_4_nodes_oversubscribed (%u cases)", v->name,
	       cases);
}

int main(void)
{
	tap_plan_lazy();
	test_registry();
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		test_params_and_layout(v);
		test_single_thread_and_reset(v);
		test_get_reading(v);
		if (v->kind == SC_PRECISE)
			test_precise_exact(v);
	}
	return tap_done();
}
