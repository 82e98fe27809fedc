/* SPDX-License-Identifier: MIT */
/*
 * test_distributed.c - the distributed precise counters (sc_distributed.h):
 * Sharded, Striped, Batched and PerCPU, each held to what all four promise.
 *
 * Every variant: exact on one thread and under 2, 4 and 8 threads on purpose
 * more than the cores, for several seeds; get never decreases and contains
 * every increment completed before it while others run (Batched: within its
 * staleness bound); the 2^64 wrap; reset; validation of the environment;
 * the bytes of its slots. Each variant's own property (Batched's batching,
 * Striped's table growth, PerCPU's CPU lookup) is tests/test_distributed_own.c.
 *
 * Deterministic: fixed seeds (sc_thread_init), no timing. Sizes are modest
 * so that the program also runs quickly under ThreadSanitizer.
 */
#include "testdist.h"

/* ---- tests every variant passes ------------------------------------------- */

static void test_single_thread_exact(const sc_variant *v)
{
	sc_env env = test_env(1, 0);
	counter k;
	sc_thread t;
	bool ok = counter_new(&k, v, &env, 1); /* Batched with B = 1: get is exact at once */
	uint64_t i = 0;
	sc_thread_init(&t, 0, 0, 1, false);
	for (; ok && i < 5000; i++) {
		ok = counter_get(&k) == i;
		v->inc(k.c, k.cfg, &t);
	}
	tap_ok(ok && counter_get(&k) == 5000, "%s_single_thread_exact_after_every_increment",
	       v->name);
	counter_free(&k);
}

static void test_exact_oversubscribed(const sc_variant *v, unsigned threads, uint64_t seed)
{
	sc_env env = test_env(threads, 0);
	counter k;
	run r;
	if (!counter_new(&k, v, &env, 0)) {
		tap_ok(false, "%s_exact_%u_threads_seed_%llu", v->name, threads,
		       (unsigned long long)seed);
		return;
	}
	run_init(&r, &k, threads, 60000 + 5000 * seed, seed);
	uint64_t total = run_go(&r, 0), got = counter_get(&k);
	if (!tap_ok(got == total, "%s_exact_%u_threads_seed_%llu", v->name, threads,
	            (unsigned long long)seed))
		tap_diag("got %llu, expected %llu", (unsigned long long)got,
		         (unsigned long long)total);
	counter_free(&k);
}

/* 3 writers and 1 reader: reads never decrease and lag by at most the slack. */
static void test_get_while_running(const sc_variant *v, uint32_t batch)
{
	sc_env env = test_env(4, 0);
	counter k;
	run r;
	if (!counter_new(&k, v, &env, batch)) {
		tap_ok(false, "%s_get_while_running", v->name);
		return;
	}
	run_init(&r, &k, 3, 50000, 7);
	r.track = true;
	uint64_t total = run_go(&r, 1);
	uint64_t slack = (uint64_t)r.writers * (k.batch - 1);
	char name[64];
	if (v == BATCHED)
		snprintf(name, sizeof name, "%s_B%u", v->name, k.batch);
	else
		snprintf(name, sizeof name, "%s", v->name);
	tap_diag("%s: %llu reads, at most %llu behind (bound %llu)", name,
	         (unsigned long long)r.reads, (unsigned long long)r.max_behind,
	         (unsigned long long)slack);
	tap_ok(r.decreases == 0, "%s_get_never_decreases_while_running", name);
	if (v == BATCHED)
		tap_ok(r.behind == 0,
		       "%s_get_at_least_completed_minus_threads_times_B_minus_1_while_running",
		       name);
	else
		tap_ok(r.behind == 0, "%s_get_contains_every_completed_increment_while_running",
		       name);
	tap_ok(counter_get(&k) == total, "%s_exact_after_readers_and_flush", name);
	counter_free(&k);
}

/* Parts just below 2^64: one thread steps across the boundary, then 4 threads. */
static void test_wraps_at_2_64(const dist_variant *dv)
{
	const sc_variant *v = dv->v;
	sc_env env = test_env(4, 2);
	counter k;
	sc_thread t;
	run r;
	if (!counter_new(&k, v, &env, 1)) {
		tap_ok(false, "%s_wraps_modulo_2^64", v->name);
		return;
	}
	uint64_t start = dv->preset(k.c, k.cfg);
	bool steps_ok = counter_get(&k) == start;
	sc_thread_init(&t, 0, 0, 3, false);
	for (uint64_t i = 1; i <= 10; i++) {
		v->inc(k.c, k.cfg, &t);
		steps_ok = steps_ok && counter_get(&k) == start + i;
	}
	tap_ok(steps_ok, "%s_single_thread_steps_across_2^64_one_by_one", v->name);
	run_init(&r, &k, 4, 3000, 3);
	uint64_t expect = start + 10 + run_go(&r, 0), got = counter_get(&k);
	if (!tap_ok(got == expect && got < run_total(&r) + 10, "%s_wraps_modulo_2^64_under_4_threads",
	            v->name))
		tap_diag("got %llu, expected %llu", (unsigned long long)got,
		         (unsigned long long)expect);
	counter_free(&k);
}

static void test_reset(const sc_variant *v)
{
	sc_env env = test_env(4, 0);
	counter k;
	sc_thread t;
	run r;
	if (!counter_new(&k, v, &env, 0)) {
		tap_ok(false, "%s_reset", v->name);
		return;
	}
	run_init(&r, &k, 4, 5000, 11);
	run_go(&r, 0);
	size_t heap = v->heap_bytes(k.c, k.cfg);
	/* leave some increments unflushed: reset must drop Batched's local counts too */
	sc_thread_init(&t, 0, 0, 11, false);
	for (int i = 0; i < 10; i++)
		v->inc(k.c, k.cfg, &t);
	v->reset(k.c, k.cfg);
	bool zero = counter_get(&k) == 0;
	v->flush(k.c, k.cfg, &t);
	zero = zero && counter_get(&k) == 0;
	tap_ok(zero, "%s_reset_zeroes_value_and_unflushed_counts", v->name);
	tap_ok(v->heap_bytes(k.c, k.cfg) == heap, "%s_reset_keeps_allocation", v->name);
	run_init(&r, &k, 4, 4000, 12);
	uint64_t total = run_go(&r, 0);
	tap_ok(counter_get(&k) == total, "%s_exact_after_reset_under_4_threads", v->name);
	counter_free(&k);
}

/* ---- Sharded, Batched and PerCPU: slots and environment -------------------- */

static int config_rc(const sc_variant *v, uint32_t threads, uint32_t cpus, sc_err *err)
{
	sc_env env = test_env(threads, cpus);
	sc_params p;
	alignas(64) unsigned char cfg[256];
	sc_params_clear(&p);
	err->msg[0] = '\0';
	return v->config(cfg, &p, &env, err);
}

static void test_env_validation(void)
{
	sc_err err;
	tap_ok(config_rc(SHARDED, 0, 0, &err) == -1 && strstr(err.msg, "Sharded") &&
	               strstr(err.msg, "threads=0"),
	       "sharded_rejects_zero_threads");
	tap_ok(config_rc(SHARDED, SC_DIST_MAX_SLOTS + 1, 0, &err) == -1,
	       "sharded_rejects_threads_above_max_slots");
	tap_ok(config_rc(SHARDED, SC_DIST_MAX_SLOTS, 0, &err) == 0,
	       "sharded_accepts_max_slots_threads");
	tap_ok(config_rc(BATCHED, 0, 0, &err) == -1 && strstr(err.msg, "Batched"),
	       "batched_rejects_zero_threads");
	tap_ok(config_rc(PERCPU, 1, SC_DIST_MAX_SLOTS + 1, &err) == -1 &&
	               strstr(err.msg, "PerCPU") && strstr(err.msg, "cpus="),
	       "percpu_rejects_cpus_above_max_slots");
	tap_ok(config_rc(STRIPED, 1, SC_DIST_MAX_SLOTS + 1, &err) == -1 &&
	               strstr(err.msg, "Striped"),
	       "striped_rejects_cpus_above_max_slots");

	sc_env env = test_env(3, 0);
	sc_percpu_cfg pc;
	sc_params p;
	sc_params_clear(&p);
	long os = sysconf(_SC_NPROCESSORS_CONF);
	tap_ok(sc_percpu_config(&pc, &p, &env, &err) == 0 && (long)pc.cpus == os,
	       "percpu_cpus_0_means_the_os_count");
}

static void test_heap_bytes(void)
{
	sc_env env = test_env(5, 3);
	counter k;
	static const size_t per_slot = sizeof(sc_padded_u64);
	tap_ok(per_slot == SC_LINE_SIZE, "slot_is_one_padding_unit");
	for (size_t i = 0; i < NVARIANTS; i++) {
		const sc_variant *v = variants[i].v;
		if (!counter_new(&k, v, &env, 0))
			continue;
		size_t expect = 0;
		if (v == SHARDED)
			expect = 6 * per_slot; /* 5 threads + the overflow slot */
		else if (v == BATCHED)
			expect = 5 * per_slot;
		else if (v == PERCPU)
			expect = 4 * per_slot; /* 3 CPUs + the overflow word */
		tap_ok(v->heap_bytes(k.c, k.cfg) == expect, "%s_heap_bytes_%zu_before_use", v->name,
		       expect);
		counter_free(&k);
	}
}

int main(void)
{
	tap_plan_lazy();
	for (size_t i = 0; i < NVARIANTS; i++) {
		const sc_variant *v = variants[i].v;
		test_single_thread_exact(v);
		for (unsigned threads = 2; threads <= 8; threads *= 2)
			for (uint64_t seed = 1; seed <= 3; seed++)
				test_exact_oversubscribed(v, threads, seed);
		test_get_while_running(v, 0);
		test_wraps_at_2_64(&variants[i]);
		test_reset(v);
	}
	test_get_while_running(BATCHED, 7);
	test_get_while_running(BATCHED, 1);
	test_env_validation();
	test_heap_bytes();
	return tap_done();
}
