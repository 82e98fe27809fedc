/* SPDX-License-Identifier: MIT */
/*
 * distributed.c - the slow paths of the distributed counters (sc_distributed.h):
 * configuration, allocation of the slot arrays and Striped's table growth.
 */
#include <scounters/sc_distributed.h>

#include <stdio.h>

#include "env_priv.h"

/* Validate a slot count taken from the environment (threads or CPUs). */
static int check_slots(const char *variant, const char *what, uint32_t n, sc_err *err)
{
	if (n == 0 || n > SC_DIST_MAX_SLOTS) {
		sc_err_set(err, "%s: %s=%u is invalid: expected an integer in [1, %u]", variant, what,
		           n, SC_DIST_MAX_SLOTS);
		return -1;
	}
	return 0;
}

/* env->cpus, or the OS's count when it is 0; validated. */
static int resolve_cpus(const char *variant, const sc_env *env, uint32_t *out, sc_err *err)
{
	*out = sc_env_cpus_(env);
	return check_slots(variant, "cpus", *out, err);
}

/* n zeroed padded words, or NULL with a message. */
static sc_padded_u64 *slots_alloc(const char *variant, uint32_t n, sc_err *err)
{
	sc_padded_u64 *s = sc_alloc_lines((size_t)n * sizeof *s);
	if (!s) {
		sc_err_set(err, "%s: out of memory for %u slots", variant, n);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		atomic_init(&s[i].v, 0);
	return s;
}

/* Callers guarantee that nothing increments (reset), so relaxed stores suffice. */
static void slots_zero(sc_padded_u64 *s, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		/* relaxed: the caller's synchronisation (a barrier, a join) orders it. */
		atomic_store_explicit(&s[i].v, 0, memory_order_relaxed);
}

static size_t slots_bytes(const sc_padded_u64 *s, uint32_t n)
{
	return s ? SC_PAD_UP((size_t)n * sizeof *s) : 0;
}

/* ---- Sharded ------------------------------------------------------------- */

int sc_sharded_config(sc_sharded_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)p;
	cfg->threads = env->threads;
	return check_slots("Sharded", "threads", cfg->threads, err);
}

int sc_sharded_init(sc_sharded_t *c, const sc_sharded_cfg *cfg, sc_err *err)
{
	c->slots = slots_alloc("Sharded", cfg->threads + 1, err); /* + the overflow slot */
	return c->slots ? 0 : -1;
}

void sc_sharded_reset(sc_sharded_t *c, const sc_sharded_cfg *cfg)
{
	slots_zero(c->slots, cfg->threads + 1);
}

void sc_sharded_destroy(sc_sharded_t *c, const sc_sharded_cfg *cfg)
{
	(void)cfg;
	sc_free_lines(c->slots);
	c->slots = NULL;
}

size_t sc_sharded_heap_bytes(const sc_sharded_t *c, const sc_sharded_cfg *cfg)
{
	return slots_bytes(c->slots, cfg->threads + 1);
}

/* ---- Striped ------------------------------------------------------------- */

/* LongAdder's first table size. */
#define STRIPED_MIN_CELLS 2u

int sc_striped_config(sc_striped_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)p;
	uint32_t cpus;
	if (resolve_cpus("Striped", env, &cpus, err))
		return -1;
	/* LongAdder doubles while the table is smaller than the CPU count. */
	cfg->max_cells = STRIPED_MIN_CELLS;
	while (cfg->max_cells < cpus)
		cfg->max_cells *= 2;
	return 0;
}

int sc_striped_init(sc_striped_t *c, const sc_striped_cfg *cfg, sc_err *err)
{
	(void)cfg;
	(void)err;
	atomic_init(&c->base, 0);
	atomic_init(&c->table, NULL);
	atomic_init(&c->busy, 0);
	return 0;
}

/*
 * The try-lock guarding creation and doubling. Nobody waits for it: a thread
 * that finds it taken goes back to the base word or rehashes.
 */
static bool striped_try_lock(sc_striped_t *c)
{
	/* relaxed: a cheap look before the exchange; the exchange decides. */
	if (atomic_load_explicit(&c->busy, memory_order_relaxed))
		return false;
	/* acquire: see the table the previous holder published before its unlock. */
	return atomic_exchange_explicit(&c->busy, 1, memory_order_acquire) == 0;
}

static void striped_unlock(sc_striped_t *c)
{
	/* release: the next holder sees this holder's table store. */
	atomic_store_explicit(&c->busy, 0, memory_order_release);
}

/*
 * A table that replaces old (NULL: the first one): old's cell pointers, then
 * as many new zeroed cells, allocated as one block. Cell blocks therefore
 * start at index 0 and at every power of two from STRIPED_MIN_CELLS on,
 * which is how destroy finds them.
 */
static sc_striped_table *striped_table_new(sc_striped_table *old)
{
	uint32_t from = old ? old->size : 0;
	uint32_t n = old ? 2 * old->size : STRIPED_MIN_CELLS;
	sc_striped_table *tab = sc_alloc_lines(sizeof *tab + (size_t)n * sizeof tab->cells[0]);
	sc_padded_u64 *block = sc_alloc_lines((size_t)(n - from) * sizeof *block);
	if (!tab || !block) {
		sc_free_lines(tab);
		sc_free_lines(block);
		return NULL;
	}
	tab->size = n;
	tab->retired = old;
	tab->cells = (sc_padded_u64 **)(void *)(tab + 1);
	for (uint32_t i = 0; i < from; i++)
		tab->cells[i] = old->cells[i];
	for (uint32_t i = from; i < n; i++) {
		atomic_init(&block[i - from].v, 0);
		tab->cells[i] = &block[i - from];
	}
	return tab;
}

/*
 * Create the table (seen == NULL) or double seen. 0 when, on return, the
 * table is no longer seen (this thread or another replaced it); -1 when the
 * lock is taken, seen already has max_cells, or memory ran out.
 */
static int striped_expand(sc_striped_t *c, const sc_striped_cfg *cfg, sc_striped_table *seen)
{
	if (!striped_try_lock(c))
		return -1;
	int rc = 0;
	/* relaxed: only lock holders store the table, and the lock orders them. */
	if (atomic_load_explicit(&c->table, memory_order_relaxed) == seen) {
		sc_striped_table *next = NULL;
		if (!seen || seen->size < cfg->max_cells)
			next = striped_table_new(seen);
		if (next)
			/* release: publishes the initialised table to the acquire loads. */
			atomic_store_explicit(&c->table, next, memory_order_release);
		else
			rc = -1;
	}
	striped_unlock(c);
	return rc;
}

int sc_striped_grow(sc_striped_t *c, const sc_striped_cfg *cfg)
{
	/* acquire: as in sc_striped_inc. */
	return striped_expand(c, cfg, atomic_load_explicit(&c->table, memory_order_acquire));
}

/*
 * LongAdder's longAccumulate, for an add of 1: a thread whose cell CAS
 * failed rehashes first; one that fails again on the same table marks a
 * collision, and on the next failure doubles the table (below max_cells)
 * and retries without rehashing. Without a table, the first thread to get
 * the lock creates one; the others try the base word meanwhile. Each pass
 * makes one CAS attempt, so the loop is lock-free.
 */
void sc_striped_inc_slow(sc_striped_t *c, const sc_striped_cfg *cfg, sc_thread *t,
                         bool cell_failed)
{
	bool collide = false;
	if (cell_failed)
		sc_xorshift_ayers(&t->probe); /* (13,17,5): LongAdder's advanceProbe */
	for (;;) {
		/* acquire: as in sc_striped_inc. */
		sc_striped_table *tab = atomic_load_explicit(&c->table, memory_order_acquire);
		if (!tab) {
			if (striped_expand(c, cfg, NULL) == 0)
				continue;
			if (sc_striped_try_inc_(&c->base))
				return;
			continue;
		}
		if (sc_striped_try_inc_(&tab->cells[t->probe & (tab->size - 1)]->v))
			return;
		/* relaxed: a stale answer only delays the growth by one pass. */
		if (tab->size >= cfg->max_cells || tab != atomic_load_explicit(&c->table,
		                                                               memory_order_relaxed))
			collide = false;
		else if (!collide)
			collide = true;
		else if (striped_expand(c, cfg, tab) == 0) {
			collide = false;
			continue;
		}
		sc_xorshift_ayers(&t->probe);
	}
}

void sc_striped_add(sc_striped_t *c, const sc_striped_cfg *cfg, sc_thread *t, uint64_t n)
{
	/* acquire: as in sc_striped_inc. */
	sc_striped_table *tab = atomic_load_explicit(&c->table, memory_order_acquire);
	SC_ATOMIC(uint64_t) *w = tab ? &tab->cells[t->probe & (tab->size - 1)]->v : &c->base;
	/* relaxed: as sc_striped_try_inc_; a failure only signals contention. */
	uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
	if (atomic_compare_exchange_strong_explicit(w, &v, v + n, memory_order_relaxed,
	                                            memory_order_relaxed))
		return;
	if (!tab) {
		striped_expand(c, cfg, NULL); /* a no-op when another thread holds the lock */
	} else {
		sc_xorshift_ayers(&t->probe); /* as the increment's rehash */
		w = &tab->cells[t->probe & (tab->size - 1)]->v;
	}
	/* relaxed: the add is atomic whatever the order; nothing else is published. */
	atomic_fetch_add_explicit(w, n, memory_order_relaxed);
}

void sc_striped_reset(sc_striped_t *c, const sc_striped_cfg *cfg)
{
	(void)cfg;
	/* relaxed here and below: nothing increments (the caller's synchronisation orders it). */
	atomic_store_explicit(&c->base, 0, memory_order_relaxed);
	/* relaxed: as above; the table was published before the caller's synchronisation. */
	sc_striped_table *tab = atomic_load_explicit(&c->table, memory_order_relaxed);
	if (tab)
		for (uint32_t i = 0; i < tab->size; i++)
			/* relaxed: as above. */
			atomic_store_explicit(&tab->cells[i]->v, 0, memory_order_relaxed);
}

void sc_striped_destroy(sc_striped_t *c, const sc_striped_cfg *cfg)
{
	(void)cfg;
	/* relaxed: destroy runs after every user of the counter is done. */
	sc_striped_table *tab = atomic_load_explicit(&c->table, memory_order_relaxed);
	if (tab) {
		sc_free_lines(tab->cells[0]);
		for (uint32_t i = STRIPED_MIN_CELLS; i < tab->size; i *= 2)
			sc_free_lines(tab->cells[i]);
	}
	while (tab) {
		sc_striped_table *older = tab->retired;
		sc_free_lines(tab);
		tab = older;
	}
	atomic_init(&c->table, NULL);
}

size_t sc_striped_heap_bytes(const sc_striped_t *c, const sc_striped_cfg *cfg)
{
	(void)cfg;
	/* acquire: as in sc_striped_inc, before reading the tables. */
	const sc_striped_table *tab = atomic_load_explicit(&c->table, memory_order_acquire);
	size_t bytes = tab ? (size_t)tab->size * sizeof(sc_padded_u64) : 0;
	for (; tab; tab = tab->retired)
		bytes += SC_PAD_UP(sizeof *tab + (size_t)tab->size * sizeof tab->cells[0]);
	return bytes;
}

/* ---- Batched ------------------------------------------------------------- */

int sc_batched_config(sc_batched_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	uint64_t batch;
	if (sc_param_u64(p, "Batched", "batch", SC_BATCHED_DEFAULT, 1, SC_BATCHED_MAX, &batch,
	                 err))
		return -1;
	cfg->batch = (uint32_t)batch;
	cfg->threads = env->threads;
	return check_slots("Batched", "threads", cfg->threads, err);
}

/* A Batched slot's two words set to v (init: atomic_init; reset: relaxed stores). */
static void batched_slots_set(sc_batched_slot *s, uint32_t n, int init)
{
	for (uint32_t i = 0; i < n; i++) {
		if (init) {
			atomic_init(&s[i].total, 0);
			atomic_init(&s[i].handed, 0);
		} else {
			/* relaxed: nothing increments; the caller's synchronisation orders it. */
			atomic_store_explicit(&s[i].total, 0, memory_order_relaxed);
			atomic_store_explicit(&s[i].handed, 0, memory_order_relaxed);
		}
	}
}

int sc_batched_init(sc_batched_t *c, const sc_batched_cfg *cfg, sc_err *err)
{
	atomic_init(&c->shared, 0);
	atomic_init(&c->overflow, 0);
	c->local = sc_alloc_lines((size_t)cfg->threads * sizeof *c->local);
	if (!c->local) {
		sc_err_set(err, "Batched: out of memory for %u slots", cfg->threads);
		return -1;
	}
	batched_slots_set(c->local, cfg->threads, 1);
	return 0;
}

void sc_batched_reset(sc_batched_t *c, const sc_batched_cfg *cfg)
{
	/* relaxed: nothing increments; the caller's synchronisation orders it. */
	atomic_store_explicit(&c->shared, 0, memory_order_relaxed);
	atomic_store_explicit(&c->overflow, 0, memory_order_relaxed);
	batched_slots_set(c->local, cfg->threads, 0);
}

void sc_batched_destroy(sc_batched_t *c, const sc_batched_cfg *cfg)
{
	(void)cfg;
	sc_free_lines(c->local);
	c->local = NULL;
}

size_t sc_batched_heap_bytes(const sc_batched_t *c, const sc_batched_cfg *cfg)
{
	return c->local ? SC_PAD_UP((size_t)cfg->threads * sizeof *c->local) : 0;
}

/* ---- PerCPU -------------------------------------------------------------- */

int sc_percpu_config(sc_percpu_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)p;
	cfg->index = sc_percpu_index(SC_PERCPU_PRIVATE);
	return resolve_cpus("PerCPU", env, &cfg->cpus, err);
}

int sc_percpu_init(sc_percpu_t *c, const sc_percpu_cfg *cfg, sc_err *err)
{
	c->slots = slots_alloc("PerCPU", cfg->cpus + 1, err); /* + the overflow word */
	return c->slots ? 0 : -1;
}

void sc_percpu_reset(sc_percpu_t *c, const sc_percpu_cfg *cfg)
{
	slots_zero(c->slots, cfg->cpus + 1);
}

void sc_percpu_destroy(sc_percpu_t *c, const sc_percpu_cfg *cfg)
{
	(void)cfg;
	sc_free_lines(c->slots);
	c->slots = NULL;
}

size_t sc_percpu_heap_bytes(const sc_percpu_t *c, const sc_percpu_cfg *cfg)
{
	return slots_bytes(c->slots, cfg->cpus + 1);
}

/* ---- describe (sc_distributed.h) ------------------------------------------- */

/* Slots with a non-zero word (relaxed loads, as the sums read them). */
static uint32_t slots_nonzero(const sc_padded_u64 *s, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		/* relaxed: a snapshot for diagnostics. */
		k += atomic_load_explicit(&s[i].v, memory_order_relaxed) != 0;
	return k;
}

int sc_sharded_describe(const sc_sharded_t *c, const sc_sharded_cfg *cfg, char *buf, size_t size)
{
	return snprintf(buf, size, "slots=%u;nonzero=%u", cfg->threads + 1,
	                slots_nonzero(c->slots, cfg->threads + 1));
}

int sc_striped_describe(const sc_striped_t *c, const sc_striped_cfg *cfg, char *buf, size_t size)
{
	(void)cfg;
	/* acquire: as in sc_striped_inc, before reading the table's size. */
	const sc_striped_table *tab = atomic_load_explicit(&c->table, memory_order_acquire);
	if (!tab)
		return snprintf(buf, size, "mode=base");
	return snprintf(buf, size, "mode=cells;cells=%u", tab->size);
}

int sc_batched_describe(const sc_batched_t *c, const sc_batched_cfg *cfg, char *buf, size_t size)
{
	uint64_t held = 0;
	for (uint32_t i = 0; i < cfg->threads; i++) {
		/* relaxed: a snapshot; only the owner writes its slot. */
		uint64_t t = atomic_load_explicit(&c->local[i].total, memory_order_relaxed);
		uint64_t h = atomic_load_explicit(&c->local[i].handed, memory_order_relaxed);
		held += t - (h & ~SC_BATCHED_HANDING_);
	}
	return snprintf(buf, size, "batch=%u;held=%llu", cfg->batch, (unsigned long long)held);
}

int sc_percpu_describe(const sc_percpu_t *c, const sc_percpu_cfg *cfg, char *buf, size_t size)
{
	/* relaxed: a snapshot for diagnostics. */
	uint64_t overflow = atomic_load_explicit(&c->slots[cfg->cpus].v, memory_order_relaxed);
	return snprintf(buf, size, "path=%s;slots=%u;nonzero=%u;overflow=%llu", sc_percpu_index_name(cfg->index),
	                cfg->cpus, slots_nonzero(c->slots, cfg->cpus), (unsigned long long)overflow);
}
