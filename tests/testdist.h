/* SPDX-License-Identifier: MIT */
/*
 * testdist.h - what the distributed precise counters' tests share
 * (test_distributed.c, test_distributed_own.c): the four variants (Sharded,
 * Striped, Batched, PerCPU) with a white-box preset of each that sets its
 * parts just below 2^64, one configured counter through the registry's
 * operations, and a multi-threaded run of writers (fixed seeds, optionally
 * moving between CPUs) and readers that check every reading.
 */
#ifndef SC_TESTS_TESTDIST_H
#define SC_TESTS_TESTDIST_H

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

static inline uint64_t sharded_preset(void *c, const void *cfg)
{
	(void)cfg;
	sc_sharded_t *k = c;
	atomic_store(&k->slots[0].v, NEAR_WRAP);
	return NEAR_WRAP;
}

static inline uint64_t striped_preset(void *c, const void *cfg)
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

static inline uint64_t batched_preset(void *c, const void *cfg)
{
	(void)cfg;
	sc_batched_t *k = c;
	atomic_store(&k->shared, NEAR_WRAP);
	return NEAR_WRAP;
}

static inline uint64_t percpu_preset(void *c, const void *cfg)
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
	{ SHARDED, sharded_preset },
	{ STRIPED, striped_preset },
	{ BATCHED, batched_preset },
	{ PERCPU, percpu_preset },
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

static inline sc_env test_env(uint32_t threads, uint32_t cpus)
{
	sc_env env;
	sc_env_default(&env);
	env.threads = threads;
	env.cpus = cpus;
	return env;
}

/* batch: Batched's parameter (0: its default); the other variants take none. */
static inline bool counter_new(counter *k, const sc_variant *v, const sc_env *env, uint32_t batch)
{
	sc_err err = { { 0 } };
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

static inline void counter_free(counter *k)
{
	sc_table_destroy(&k->t);
}

static inline uint64_t counter_get(const counter *k)
{
	return k->v->get(k->c, k->cfg);
}

/* ---- a multi-threaded run --------------------------------------------------- */

typedef struct run {
	counter *k;
	uint64_t seed;
	unsigned writers; /* threads 0 .. writers-1 increment, the rest read */
	unsigned readers;
	uint64_t per_thread; /* writer i performs per_thread + 7i increments */
	unsigned hop_every; /* 0, or move to another CPU every hop_every increments */
	bool track; /* publish completed counts for the readers */
	_Atomic uint64_t done[MAX_THREADS];
	_Atomic unsigned finished;
	_Atomic unsigned readers_ready; /* writers start once every reader has read once */
	_Atomic uint64_t reads, decreases, behind, cpu_changes;
	_Atomic uint64_t max_behind;
} run;

static inline uint64_t writer_count(const run *r, unsigned i)
{
	return r->per_thread + 7u * i;
}

static inline uint64_t run_total(const run *r)
{
	uint64_t total = 0;
	for (unsigned i = 0; i < r->writers; i++)
		total += writer_count(r, i);
	return total;
}

static inline void run_writer(run *r, unsigned index)
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
static inline void run_reader(run *r)
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

static inline void run_thread(test_thread_arg *a)
{
	run *r = a->shared;
	if (a->index < r->writers)
		run_writer(r, a->index);
	else
		run_reader(r);
}

static inline void run_init(run *r, counter *k, unsigned writers, uint64_t per_thread,
                            uint64_t seed)
{
	memset(r, 0, sizeof *r);
	r->k = k;
	r->writers = writers;
	r->per_thread = per_thread;
	r->seed = seed;
}

/* Run the writers (plus readers) and return the total they performed. */
static inline uint64_t run_go(run *r, unsigned readers)
{
	r->readers = readers;
	test_run_threads(r->writers + readers, run_thread, r);
	return run_total(r);
}

#endif
