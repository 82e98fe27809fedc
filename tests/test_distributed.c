/* SPDX-License-Identifier: MIT */
/*
 * test_distributed.c - the distributed precise counters (sc_distributed.h):
 * Sharded, Striped, Batched and PerCPU.
 *
 * Every variant: exact on one thread and under 2, 4 and 8 threads on purpose
 * more than the cores, for several seeds; get never decreases and contains
 * every increment completed before it while others run (Batched: within its
 * staleness bound); the 2^64 wrap; reset; validation of the environment.
 * Then each variant's own property: Batched's batching and batch parameter,
 * Striped's table growth, PerCPU's CPU lookup under migration.
 *
 * Deterministic: fixed seeds (sc_thread_init), no timing. Sizes are modest
 * so that the program also runs quickly under ThreadSanitizer.
 */
#include <scounters/scounters.h>

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define MAX_THREADS 16
#define NEAR_WRAP (UINT64_MAX - 2) /* 2^64 - 3 */

/* ---- the four variants: the registry's operations, plus a white-box preset -- */

typedef struct dist_variant {
	const sc_variant *v;
	/* White-box: set parts just below 2^64; returns their sum modulo 2^64. */
	uint64_t (*preset)(void *c, const void *cfg);
} dist_variant;

static uint64_t sharded_preset(void *c, const void *cfg)
{
	(void)cfg;
	sc_sharded_t *k = c;
	atomic_store(&k->slots[0].v, NEAR_WRAP);
	return NEAR_WRAP;
}

static uint64_t striped_preset(void *c, const void *cfg)
{
	sc_striped_t *k = c;
	sc_striped_grow(k, cfg); /* so that the cells, not only the base, wrap */
	sc_striped_table *tab = atomic_load(&k->table);
	uint64_t sum = NEAR_WRAP;
	atomic_store(&k->base, NEAR_WRAP);
	for (uint32_t i = 0; tab && i < tab->size; i++) {
		atomic_store(&tab->cells[i]->v, NEAR_WRAP);
		sum += NEAR_WRAP;
	}
	return sum;
}

static uint64_t batched_preset(void *c, const void *cfg)
{
	(void)cfg;
	sc_batched_t *k = c;
	atomic_store(&k->shared, NEAR_WRAP);
	return NEAR_WRAP;
}

static uint64_t percpu_preset(void *c, const void *cfg)
{
	sc_percpu_t *k = c;
	const sc_percpu_cfg *f = cfg;
	uint64_t sum = 0;
	for (uint32_t i = 0; i <= f->cpus; i++) { /* the CPU words and the overflow word */
		atomic_store(&k->slots[i].v, NEAR_WRAP);
		sum += NEAR_WRAP;
	}
	return sum;
}

#define SHARDED (&sc_variants[SC_ID_sharded])
#define STRIPED (&sc_variants[SC_ID_striped])
#define BATCHED (&sc_variants[SC_ID_batched])
#define PERCPU (&sc_variants[SC_ID_percpu])

static const dist_variant variants[] = {
	{SHARDED, sharded_preset},
	{STRIPED, striped_preset},
	{BATCHED, batched_preset},
	{PERCPU, percpu_preset},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

/* ---- one configured counter ------------------------------------------------ */

typedef struct counter {
	sc_table t; /* a table of one */
	const sc_variant *v;
	void *cfg;
	void *c;
	uint32_t batch; /* Batched's B, else 1 */
} counter;

static sc_env test_env(uint32_t threads, uint32_t cpus)
{
	sc_env env;
	sc_env_default(&env);
	env.threads = threads;
	env.cpus = cpus;
	return env;
}

/* batch: Batched's parameter (0: its default); the other variants take none. */
static bool counter_new(counter *k, const sc_variant *v, const sc_env *env, uint32_t batch)
{
	sc_err err = {{0}};
	char kv[32] = "";
	if (batch && v == BATCHED)
		snprintf(kv, sizeof kv, "batch=%u", batch);
	if (test_table_open(&k->t, v, env, 1, kv, &err)) {
		tap_diag("%s: %s", v->name, err.msg);
		return false;
	}
	k->v = v;
	k->cfg = k->t.cfg;
	k->c = sc_table_at(&k->t, 0);
	k->batch = v == BATCHED ? ((sc_batched_cfg *)k->cfg)->batch : 1;
	return true;
}

static void counter_free(counter *k)
{
	sc_table_destroy(&k->t);
}

static uint64_t counter_get(const counter *k)
{
	return k->v->get(k->c, k->cfg);
}

/* ---- a multi-threaded run --------------------------------------------------- */

typedef struct run {
	counter *k;
	uint64_t seed;
	unsigned writers;     /* threads 0 .. writers-1 increment, the rest read */
	unsigned readers;
	uint64_t per_thread;  /* writer i performs per_thread + 7i increments */
	unsigned hop_every;   /* 0, or move to another CPU every hop_every increments */
	bool track;           /* publish completed counts for the readers */
	_Atomic uint64_t done[MAX_THREADS];
	_Atomic unsigned finished;
	_Atomic unsigned readers_ready; /* writers start once every reader has read once */
	_Atomic uint64_t reads, decreases, behind, cpu_changes;
	_Atomic uint64_t max_behind;
} run;

static uint64_t writer_count(const run *r, unsigned i)
{
	return r->per_thread + 7u * i;
}

static uint64_t run_total(const run *r)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < r->writers; i++)
		total += writer_count(r, i);
	return total;
}

static void run_writer(run *r, unsigned index)
{
	counter *k = r->k;
	sc_thread t;
	cpu_hopper h;
	uint64_t n = writer_count(r, index), changes = 0;
	uint32_t last_cpu = (uint32_t)sched_getcpu();
	sc_thread_init(&t, index, 0, r->seed, false);
	if (r->hop_every)
		hopper_init(&h);
	while (atomic_load(&r->readers_ready) < r->readers)
		sched_yield();
	for (uint64_t i = 0; i < n; i++) {
		k->v->inc(k->c, k->cfg, &t);
		if (r->track) {
			/* release: the increment above happens before a reader that sees this count. */
			atomic_store_explicit(&r->done[index], i + 1, memory_order_release);
			if (i % 4096 == 0)
				sched_yield(); /* let the reader in (more threads than cores) */
		}
		if (r->hop_every && i % r->hop_every == 0) {
			hopper_move(&h, index + (unsigned)(i / r->hop_every));
			uint32_t cpu = (uint32_t)sched_getcpu();
			changes += cpu != last_cpu;
			last_cpu = cpu;
		}
	}
	k->v->flush(k->c, k->cfg, &t);
	if (r->hop_every)
		hopper_restore(&h);
	atomic_fetch_add(&r->cpu_changes, changes);
	atomic_fetch_add(&r->finished, 1);
}

/*
 * A reader: the completed counts first, then get. Every increment counted
 * in S happened before the get, so get >= S - slack, where slack is
 * writers*(B-1) for Batched and 0 for the others. Reads must not decrease.
 */
static void run_reader(run *r)
{
	counter *k = r->k;
	uint64_t slack = (uint64_t)r->writers * (k->batch - 1), prev = 0;
	uint64_t reads = 0, decreases = 0, behind = 0, max_behind = 0;
	bool first = true;
	while (first || atomic_load(&r->finished) < r->writers) {
		uint64_t s = 0;
		for (unsigned i = 0; i < r->writers; i++)
			/* acquire: pairs with the writer's release, so get must contain the count. */
			s += atomic_load_explicit(&r->done[i], memory_order_acquire);
		uint64_t g = counter_get(k);
		decreases += g < prev;
		if (g < s && s - g > max_behind)
			max_behind = s - g;
		behind += g + slack < s;
		prev = g;
		reads++;
		if (first)
			atomic_fetch_add(&r->readers_ready, 1);
		first = false;
	}
	atomic_fetch_add(&r->reads, reads);
	atomic_fetch_add(&r->decreases, decreases);
	atomic_fetch_add(&r->behind, behind);
	atomic_store(&r->max_behind, max_behind);
}

static void run_thread(test_thread_arg *a)
{
	run *r = a->shared;
	if (a->index < r->writers)
		run_writer(r, a->index);
	else
		run_reader(r);
}

static void run_init(run *r, counter *k, unsigned writers, uint64_t per_thread, uint64_t seed)
{
	memset(r, 0, sizeof *r);
	r->k = k;
	r->writers = writers;
	r->per_thread = per_thread;
	r->seed = seed;
}

/* Run the writers (plus readers) and return the total they performed. */
static uint64_t run_go(run *r, unsigned readers)
{
	r->readers = readers;
	test_run_threads(r->writers + readers, run_thread, r);
	return run_total(r);
}

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

/* ---- Batched ---------------------------------------------------------------- */

static void test_batched_lags_by_less_than_B(void)
{
	sc_env env = test_env(1, 0);
	counter k;
	sc_thread t;
	bool ok = counter_new(&k, BATCHED, &env, 0) && k.batch == SC_BATCHED_DEFAULT;
	tap_ok(ok, "batched_default_batch_is_64");
	sc_thread_init(&t, 0, 0, 1, false);
	for (uint64_t i = 1; ok && i <= 1000; i++) {
		sc_batched_inc(k.c, k.cfg, &t);
		ok = sc_batched_get(k.c, k.cfg) == i / 64 * 64;
	}
	tap_ok(ok, "batched_single_thread_get_is_floor_to_multiple_of_B");
	sc_batched_flush(k.c, k.cfg, &t);
	tap_ok(sc_batched_get(k.c, k.cfg) == 1000, "batched_exact_after_flush");
	sc_batched_flush(k.c, k.cfg, &t);
	tap_ok(sc_batched_get(k.c, k.cfg) == 1000, "batched_second_flush_adds_nothing");
	counter_free(&k);
}

static int batched_config_with(const char *kv, sc_batched_cfg *cfg, sc_err *err)
{
	sc_env env = test_env(2, 0);
	sc_params p;
	sc_params_clear(&p);
	err->msg[0] = '\0';
	if (sc_params_add(&p, kv, err))
		return -2;
	return sc_batched_config(cfg, &p, &env, err);
}

static void test_batched_batch_validation(void)
{
	static const char *bad[] = {"batch=0", "batch=1073741825", "batch=-1", "batch=abc",
	                            "batch=1.5", "batch=18446744073709551616"};
	sc_batched_cfg cfg;
	sc_err err;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = batched_config_with(bad[i], &cfg, &err);
		tap_ok(rc == -1 && strstr(err.msg, "Batched") && strstr(err.msg, "batch"),
		       "batched_rejects_%s", bad[i]);
	}
	tap_ok(batched_config_with("batch=1", &cfg, &err) == 0 && cfg.batch == 1,
	       "batched_accepts_batch=1");
	tap_ok(batched_config_with("batch=1073741824", &cfg, &err) == 0 &&
	               cfg.batch == SC_BATCHED_MAX,
	       "batched_accepts_batch=2^30");
}

/* ---- Striped ---------------------------------------------------------------- */

static sc_striped_table *striped_table(const counter *k)
{
	return atomic_load(&((sc_striped_t *)k->c)->table);
}

static unsigned striped_cells(const counter *k)
{
	sc_striped_table *tab = striped_table(k);
	return tab ? tab->size : 0;
}

static void test_striped_max_cells(void)
{
	static const uint32_t cpus[] = {1, 2, 3, 5, 8, 9};
	static const uint32_t cells[] = {2, 2, 4, 8, 8, 16};
	sc_params p;
	sc_err err;
	sc_striped_cfg cfg;
	sc_params_clear(&p);
	for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++) {
		sc_env env = test_env(1, cpus[i]);
		tap_ok(sc_striped_config(&cfg, &p, &env, &err) == 0 && cfg.max_cells == cells[i],
		       "striped_max_cells_is_%u_for_%u_cpus", cells[i], cpus[i]);
	}
}

/* Growth forced through sc_striped_grow: deterministic, one thread. */
static void test_striped_grows_and_keeps_cells(void)
{
	sc_env env = test_env(1, 8);
	counter k;
	sc_thread t;
	if (!counter_new(&k, STRIPED, &env, 0)) {
		tap_ok(false, "striped_grows");
		return;
	}
	sc_striped_t *c = k.c;
	sc_thread_init(&t, 0, 0, 5, false);
	uint64_t n = 0;
	for (; n < 100; n++)
		sc_striped_inc(c, k.cfg, &t);
	tap_ok(striped_table(&k) == NULL && STRIPED->heap_bytes(c, k.cfg) == 0 &&
	               atomic_load(&c->base) == 100,
	       "striped_uncontended_uses_base_only_and_allocates_nothing");

	bool exact = true, cells_kept = true, bytes_grow = true, retired_ok = true;
	size_t bytes = 0;
	sc_padded_u64 *first[8] = {0};
	unsigned sizes = 0;
	for (unsigned expect = 2; expect <= 8; expect *= 2) {
		sc_striped_table *old = striped_table(&k);
		if (sc_striped_grow(c, k.cfg) != 0 || striped_cells(&k) != expect) {
			tap_ok(false, "striped_grow_to_%u_cells", expect);
			counter_free(&k);
			return;
		}
		sc_striped_table *tab = striped_table(&k);
		retired_ok = retired_ok && tab->retired == old;
		for (unsigned i = 0; i < expect; i++) {
			if (first[i] == NULL)
				first[i] = tab->cells[i];
			cells_kept = cells_kept && tab->cells[i] == first[i];
		}
		size_t b = STRIPED->heap_bytes(c, k.cfg);
		bytes_grow = bytes_grow && b > bytes;
		bytes = b;
		sizes += expect;
		for (unsigned i = 0; i < 50 * expect; i++, n++)
			sc_striped_inc(c, k.cfg, &t);
		exact = exact && sc_striped_get(c, k.cfg) == n;
		/* spread the next increments over other cells, as a collision would */
		sc_xorshift_ayers(&t.probe);
	}
	tap_ok(exact, "striped_exact_across_growth");
	tap_ok(atomic_load(&c->base) == 100, "striped_with_a_table_increments_cells_not_base");
	tap_ok(cells_kept, "striped_doubling_keeps_every_cell_in_place");
	tap_ok(retired_ok, "striped_old_tables_are_on_the_retired_list");
	tap_ok(sc_striped_grow(c, k.cfg) == -1 && striped_cells(&k) == 8,
	       "striped_does_not_grow_past_max_cells");
	size_t tables = SC_PAD_UP(sizeof(sc_striped_table) + 2 * sizeof(void *)) +
	                SC_PAD_UP(sizeof(sc_striped_table) + 4 * sizeof(void *)) +
	                SC_PAD_UP(sizeof(sc_striped_table) + 8 * sizeof(void *));
	tap_ok(bytes_grow && bytes == tables + 8 * sizeof(sc_padded_u64) && sizes == 14,
	       "striped_heap_bytes_counts_cells_and_every_table_%zu", bytes);
	counter_free(&k); /* LeakSanitizer checks that retired tables and cells are freed */
}

static void test_striped_base_wraps(void)
{
	sc_env env = test_env(1, 8);
	counter k;
	sc_thread t;
	if (!counter_new(&k, STRIPED, &env, 0)) {
		tap_ok(false, "striped_base_wraps");
		return;
	}
	sc_striped_t *c = k.c;
	atomic_store(&c->base, NEAR_WRAP);
	sc_thread_init(&t, 0, 0, 1, false);
	for (int i = 0; i < 5; i++)
		sc_striped_inc(c, k.cfg, &t);
	tap_ok(striped_table(&k) == NULL && sc_striped_get(c, k.cfg) == 2,
	       "striped_base_word_wraps_modulo_2^64");
	counter_free(&k);
}

/*
 * The table appears at the first failed CAS on the base word (contention):
 * sc_striped_inc then calls sc_striped_inc_slow(..., false), called here
 * directly so that the check does not depend on two threads ever racing.
 * Then 8 threads on 2 cores, each until the table exists (it does) and 5000
 * increments more: exact with the table. And 8 threads on a fresh counter,
 * hammering the base word until a CAS of theirs fails and the table
 * appears, or CONTEND_CAP increments each: exact whatever the schedule; the
 * table is reported, not asserted (a loaded machine may run the threads one
 * after another, between CASes, and never fail one).
 */
#define CONTEND_CAP (1u << 22)

typedef struct contend {
	counter *k;
	_Atomic uint64_t total;
} contend;

static void contend_thread(test_thread_arg *a)
{
	contend *x = a->shared;
	sc_thread t;
	uint64_t n = 0;
	sc_thread_init(&t, a->index, 0, 21, false);
	while (striped_table(x->k) == NULL && n < CONTEND_CAP)
		for (int i = 0; i < 256; i++, n++)
			sc_striped_inc(x->k->c, x->k->cfg, &t);
	for (int i = 0; i < 5000; i++, n++)
		sc_striped_inc(x->k->c, x->k->cfg, &t);
	atomic_fetch_add(&x->total, n);
}

static void test_striped_grows_under_contention(void)
{
	sc_env env = test_env(8, 8);
	counter k, fresh;
	contend x = {&k, 0}, y = {&fresh, 0};
	if (!counter_new(&k, STRIPED, &env, 0) || !counter_new(&fresh, STRIPED, &env, 0)) {
		tap_ok(false, "striped_grows_under_contention");
		return;
	}
	sc_thread t;
	sc_thread_init(&t, 0, 0, 21, false);
	sc_striped_inc_slow(k.c, k.cfg, &t, false);
	tap_ok(STRIPED->heap_bytes(k.c, k.cfg) > 0 && striped_cells(&k) >= 2 && counter_get(&k) == 1,
	       "striped_creates_its_table_at_the_first_failed_cas (%u cells, count %llu of 1)",
	       striped_cells(&k), (unsigned long long)counter_get(&k));
	test_run_threads(8, contend_thread, &x);
	tap_diag("Striped with its table after 8 threads: %llu increments, %u cells, %zu heap bytes",
	         (unsigned long long)x.total, striped_cells(&k), STRIPED->heap_bytes(k.c, k.cfg));
	tap_ok(counter_get(&k) == x.total + 1, "striped_exact_with_its_table_under_8_threads");
	test_run_threads(8, contend_thread, &y);
	tap_diag("Striped from its base word under 8 threads: %llu increments, table %s (%u cells)",
	         (unsigned long long)y.total, striped_table(&fresh) ? "made" : "not made",
	         striped_cells(&fresh));
	tap_ok(counter_get(&fresh) == y.total, "striped_exact_from_its_base_word_under_8_threads");
	counter_free(&fresh);
	counter_free(&k);
}

/* ---- PerCPU ----------------------------------------------------------------- */

/*
 * Each increment lands on one word: on the locked path and on the sequence
 * indexed by cpu_id, the word of the CPU the thread was moved to (folded
 * modulo the slots, or the overflow word); indexed by mm_cid, some word.
 */
static void test_percpu_word_per_cpu(void)
{
	sc_env env = test_env(1, 0);
	const char *path = sc_percpu_path();
	counter k;
	cpu_hopper h;
	tap_diag("PerCPU: path %s", path);
	if (!counter_new(&k, PERCPU, &env, 0)) {
		tap_ok(false, "percpu_word_per_cpu");
		return;
	}
	const sc_percpu_t *c = k.c;
	uint32_t slots = ((const sc_percpu_cfg *)k.cfg)->cpus;
	bool by_cpu = strcmp(path, "rseq-mm_cid") != 0, one = true, right = true;
	hopper_init(&h);
	for (int i = 0; i < 2 * (h.n > 1 ? h.n : 1); i++) {
		int cpu = hopper_move(&h, (unsigned)i);
		if (cpu < 0)
			cpu = sched_getcpu();
		uint64_t before[CPU_SETSIZE + 1], moved = 0;
		uint32_t which = 0;
		for (uint32_t s = 0; s <= slots && s <= CPU_SETSIZE; s++)
			before[s] = atomic_load(&c->slots[s].v);
		PERCPU->inc(k.c, k.cfg, &(sc_thread){0, 0, 1, 1});
		for (uint32_t s = 0; s <= slots && s <= CPU_SETSIZE; s++)
			if (atomic_load(&c->slots[s].v) != before[s]) {
				moved += atomic_load(&c->slots[s].v) - before[s];
				which = s;
			}
		one = one && moved == 1;
		uint32_t want = strcmp(path, "lock") == 0 ? (uint32_t)cpu % slots
		                : (uint32_t)cpu < slots ? (uint32_t)cpu : slots;
		right = right && (!by_cpu || which == want);
	}
	hopper_restore(&h);
	tap_ok(one, "percpu_each_increment_adds_1_to_one_word");
	tap_ok(right, "percpu_word_is_the_cpus_on_the_%s_path", path);
	counter_free(&k);
}

/* Writers move between CPUs by changing their affinity every 500 increments. */
static void test_percpu_exact_with_migrations(void)
{
	sc_env env = test_env(8, 0);
	counter k;
	run r;
	cpu_hopper h;
	if (!counter_new(&k, PERCPU, &env, 0)) {
		tap_ok(false, "percpu_exact_with_migrations");
		return;
	}
	run_init(&r, &k, 8, 20000, 31);
	r.hop_every = 500;
	uint64_t total = run_go(&r, 0);
	hopper_init(&h);
	tap_diag("PerCPU: %llu CPU changes seen by the writers",
	         (unsigned long long)r.cpu_changes);
	if (h.ok && h.n >= 2)
		tap_ok(r.cpu_changes > 0, "percpu_writers_did_migrate");
	tap_ok(counter_get(&k) == total, "percpu_exact_with_8_migrating_threads");
	counter_free(&k);
}

/* One slot: every CPU id (0, 1, ...) is out of range and must fold into it. */
static void test_percpu_folds_out_of_range_cpus(void)
{
	sc_env env = test_env(4, 1);
	counter k;
	run r;
	if (!counter_new(&k, PERCPU, &env, 0)) {
		tap_ok(false, "percpu_folds_out_of_range_cpus");
		return;
	}
	run_init(&r, &k, 4, 10000, 41);
	r.hop_every = 1000;
	uint64_t total = run_go(&r, 0);
	tap_ok(counter_get(&k) == total && PERCPU->heap_bytes(k.c, k.cfg) == 2 * SC_LINE_SIZE,
	       "percpu_cpu_ids_beyond_the_slots_fold_in_bounds");
	counter_free(&k);
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
	test_batched_lags_by_less_than_B();
	test_batched_batch_validation();
	test_striped_max_cells();
	test_striped_grows_and_keeps_cells();
	test_striped_base_wraps();
	test_striped_grows_under_contention();
	test_percpu_word_per_cpu();
	test_percpu_exact_with_migrations();
	test_percpu_folds_out_of_range_cpus();
	return tap_done();
}
