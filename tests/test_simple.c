/* SPDX-License-Identifier: MIT */
/*
 * test_simple.c - the central-word counters (sc_simple.h): Serial, CAS,
 * FetchAdd, RBO, CASPrefetch and CASOnce, through their typed inline API as
 * an embedding program calls it (the every-variant contract through the
 * registry and scbench's loops is tests/test_variants.c). Checks: the racy
 * ones (Serial, CASOnce) never count above the truth under 8 threads; the
 * precise ones exact under 8 threads mixing
 * increments and adds (oversubscribed on purpose); the 2^64 wrap of the
 * increment and of add; 8 bytes, no heap, range 2^64 - 1; the parameters
 * (only RBO reads backoff bounds). Deterministic: nothing is random but
 * RBO's backoff, whose seeds are fixed (thread i: seed 0x51 + i).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread barriers under -std=c11 */
#endif

#include <string.h>

#include <scounters/scounters.h>
#include "tap.h"
#include "testutil.h"

/* The family's increment and add, type-erased for the tables below. */
typedef struct simple_ops {
	int id;
	void (*inc)(void *c, const void *cfg, sc_thread *t);
	void (*add)(void *c, const void *cfg, sc_thread *t, uint64_t n);
} simple_ops;

#define SIMPLE_OPS_(P)                                                                     \
	static void P##_inc1(void *c, const void *cfg, sc_thread *t)                       \
	{                                                                                  \
		sc_##P##_inc(c, cfg, t);                                                   \
	}                                                                                  \
	static void P##_addn(void *c, const void *cfg, sc_thread *t, uint64_t n)           \
	{                                                                                  \
		sc_##P##_add(c, cfg, t, n);                                                \
	}
SIMPLE_OPS_(serial)
SIMPLE_OPS_(cas)
SIMPLE_OPS_(fetchadd)
SIMPLE_OPS_(rbo)
SIMPLE_OPS_(cas_prefetch)
SIMPLE_OPS_(cas_once)
#undef SIMPLE_OPS_

static const simple_ops family[] = {
	{ SC_ID_serial, serial_inc1, serial_addn },
	{ SC_ID_cas, cas_inc1, cas_addn },
	{ SC_ID_fetchadd, fetchadd_inc1, fetchadd_addn },
	{ SC_ID_rbo, rbo_inc1, rbo_addn },
	{ SC_ID_cas_prefetch, cas_prefetch_inc1, cas_prefetch_addn },
	{ SC_ID_cas_once, cas_once_inc1, cas_once_addn },
};
#define N_FAMILY (sizeof family / sizeof family[0])

/* A table of one counter of o's variant for threads threads; exits 99 if it cannot be made. */
static void open_one(sc_table *t, const simple_ops *o, uint32_t threads, const char *params)
{
	sc_env env;
	sc_err err;
	sc_env_default(&env);
	env.threads = threads;
	if (test_table_open(t, &sc_variants[o->id], &env, 1, params, &err)) {
		fprintf(stderr, "%s '%s': %s\n", sc_variants[o->id].name, params ? params : "",
		        err.msg);
		exit(99);
	}
}

typedef struct job {
	const simple_ops *o;
	sc_table *t;
	uint64_t per_thread; /* counted by each thread */
	bool adds;           /* half of it as adds of 1 .. 64 */
} job;

static void worker(test_thread_arg *a)
{
	job *j = a->shared;
	sc_thread th;
	sc_thread_init(&th, a->index, 0, 0x51 + a->index, false);
	void *c = sc_table_at(j->t, 0);
	uint64_t left = j->per_thread;
	for (uint64_t i = 0; left; i++) {
		uint64_t k = j->adds && (i & 1) ? 1 + i % 64 : 1;
		k = k < left ? k : left;
		if (k == 1)
			j->o->inc(c, j->t->cfg, &th);
		else
			j->o->add(c, j->t->cfg, &th, k);
		left -= k;
	}
}

/*
 * The racy ones (Serial, CASOnce) lose updates but never invent one: at
 * most the true count (5 runs each, increments and adds mixed).
 */
static void test_racy_never_above(void)
{
	for (unsigned i = 0; i < N_FAMILY; i++) {
		const sc_variant *v = &sc_variants[family[i].id];
		if (v->kind != SC_RACY)
			continue;
		bool ok = true;
		for (unsigned run = 1; run <= 5; run++) {
			sc_table t;
			open_one(&t, &family[i], 8, NULL);
			job j = { &family[i], &t, test_scaled(50000, 5000), true };
			test_run_threads(8, worker, &j);
			uint64_t got = v->get(sc_table_at(&t, 0), t.cfg), want = 8 * j.per_thread;
			ok &= got <= want;
			tap_diag("%s 8 threads run %u: %llu of %llu (%.2f%% lost)", v->name, run,
			         (unsigned long long)got, (unsigned long long)want,
			         100.0 * (1 - (double)got / (double)want));
			sc_table_destroy(&t);
		}
		tap_ok(ok, "%s_never_above_true_count_8_threads", v->name);
	}
}

/* The precise ones: 8 threads, increments and adds mixed, the count exact. */
static void test_precise_exact_inc_and_add(void)
{
	for (unsigned i = 0; i < N_FAMILY; i++) {
		if (sc_variants[family[i].id].kind != SC_PRECISE)
			continue;
		sc_table t;
		open_one(&t, &family[i], 8, NULL);
		job j = {&family[i], &t, test_scaled(40000, 4000), true};
		test_run_threads(8, worker, &j);
		uint64_t got = sc_variants[family[i].id].get(sc_table_at(&t, 0), t.cfg);
		tap_ok(got == 8 * j.per_thread, "%s_exact_8_threads_inc_and_add (%llu of %llu)",
		       sc_variants[family[i].id].name, (unsigned long long)got,
		       (unsigned long long)(8 * j.per_thread));
		sc_table_destroy(&t);
	}
}

/*
 * The 2^64 wrap (sc_simple.h): from 2^64 - 2, two increments give 2^64 - 1
 * then 0; add(5) from 2^64 - 2 gives 3. One thread, so Serial and CASOnce
 * are exact too.
 */
static void test_wraps_at_2_64(void)
{
	for (unsigned i = 0; i < N_FAMILY; i++) {
		const sc_variant *v = &sc_variants[family[i].id];
		sc_table t;
		sc_thread th;
		open_one(&t, &family[i], 1, NULL);
		sc_thread_init(&th, 0, 0, 0x52, false);
		sc_word_counter *c = sc_table_at(&t, 0);
		atomic_store(&c->v, UINT64_MAX - 1);
		family[i].inc(c, t.cfg, &th);
		bool top = v->get(c, t.cfg) == UINT64_MAX;
		family[i].inc(c, t.cfg, &th);
		bool zero = v->get(c, t.cfg) == 0;
		atomic_store(&c->v, UINT64_MAX - 1);
		family[i].add(c, t.cfg, &th, 5);
		tap_ok(top && zero && v->get(c, t.cfg) == 3,
		       "%s_inc_and_add_wrap_modulo_2^64", v->name);
		sc_table_destroy(&t);
	}
}

/* One word: 8 bytes, no heap, every 64-bit count in range; reset gives 0. */
static void test_size_range_reset(void)
{
	for (unsigned i = 0; i < N_FAMILY; i++) {
		const sc_variant *v = &sc_variants[family[i].id];
		sc_table t;
		sc_thread th;
		open_one(&t, &family[i], 1, NULL);
		sc_thread_init(&th, 0, 0, 0x53, false);
		void *c = sc_table_at(&t, 0);
		family[i].add(c, t.cfg, &th, 1000);
		v->reset(c, t.cfg);
		tap_ok(v->size(t.cfg) == 8 && v->heap_bytes(c, t.cfg) == 0 &&
		               v->range(t.cfg) == UINT64_MAX && v->get(c, t.cfg) == 0,
		       "%s_8_bytes_no_heap_range_2^64-1_reset_to_0", v->name);
		sc_table_destroy(&t);
	}
}

/* Only RBO reads backoff bounds; they must be ordered; its defaults are 4 and 1024. */
static void test_parameters(void)
{
	sc_err err;
	for (unsigned i = 0; i < N_FAMILY; i++) {
		const sc_variant *v = &sc_variants[family[i].id];
		sc_table t;
		sc_env env;
		sc_env_default(&env);
		bool ok = test_table_open(&t, v, &env, 1, "backoff-min=8 backoff-max=64", &err) == 0;
		bool want = family[i].id == SC_ID_rbo;
		const sc_word_cfg *cfg = t.cfg;
		if (ok && want)
			ok = cfg->backoff.min == 8 && cfg->backoff.max == 64;
		tap_ok(ok == want && (ok || err.msg[0]), "%s_backoff_bounds_%s%s", v->name,
		       want ? "read" : "rejected: ", want ? "" : err.msg);
		sc_table_destroy(&t);
	}
	sc_table t;
	sc_env env;
	sc_env_default(&env);
	const sc_variant *rbo = &sc_variants[SC_ID_rbo];
	tap_ok(test_table_open(&t, rbo, &env, 1, "backoff-min=8 backoff-max=4", &err) != 0 &&
	               err.msg[0],
	       "RBO_rejects_backoff_min_above_max: %s", err.msg);
	sc_table_destroy(&t);
	bool ok = test_table_open(&t, rbo, &env, 1, NULL, &err) == 0;
	const sc_word_cfg *cfg = t.cfg;
	tap_ok(ok && cfg->backoff.min == SC_BACKOFF_MIN_DEFAULT &&
	               cfg->backoff.max == SC_BACKOFF_MAX_DEFAULT,
	       "RBO_backoff_defaults_%u_%u", SC_BACKOFF_MIN_DEFAULT, SC_BACKOFF_MAX_DEFAULT);
	sc_table_destroy(&t);
}

int main(void)
{
	tap_plan_lazy();
	test_racy_never_above();
	test_precise_exact_inc_and_add();
	test_wraps_at_2_64();
	test_size_range_reset();
	test_parameters();
	return tap_done();
}
