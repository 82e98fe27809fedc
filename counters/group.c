/* SPDX-License-Identifier: MIT */
/*
 * group.c - packed per-CPU counter groups (sc_group.h): allocation, the
 * readings and read_and_reset, the opaque handle, and the PerCPUGroup
 * variant's slow paths.
 */
#include <scounters/scounters.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "env_priv.h"

/* ---- sc_pcgroup ------------------------------------------------------------------ */

/* The word of counter i in row r. */
static SC_ATOMIC(uint64_t) *word(const sc_pcgroup *g, uint32_t r, uint32_t i)
{
	return (SC_ATOMIC(uint64_t) *)(void *)(g->rows + (size_t)r * g->row + (size_t)i * 8);
}

/* The row of origins. */
static SC_ATOMIC(uint64_t) *origin(const sc_pcgroup *g, uint32_t i)
{
	return word(g, g->slots + 1, i);
}

/* The rows: line-aligned heap (private), or an anonymous shared mapping (page-aligned). */
static unsigned char *rows_alloc(size_t bytes, unsigned how)
{
	if (how == SC_PERCPU_PRIVATE)
		return sc_alloc_lines(bytes);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

int sc_pcgroup_init(sc_pcgroup *g, uint32_t n, const sc_env *env, sc_err *err)
{
	return sc_pcgroup_init_as(g, n, env, SC_PERCPU_PRIVATE, err);
}

int sc_pcgroup_init_as(sc_pcgroup *g, uint32_t n, const sc_env *env, unsigned how, sc_err *err)
{
	g->rows = NULL;
	if (how != SC_PERCPU_PRIVATE && how != SC_PERCPU_SHARED) {
		sc_err_set(err, "group: how=%u is invalid: expected SC_PERCPU_PRIVATE (%u) or "
		                "SC_PERCPU_SHARED (%u)", how, SC_PERCPU_PRIVATE, SC_PERCPU_SHARED);
		return -1;
	}
	if (n == 0 || n > SC_GROUP_MAX_COUNTERS) {
		sc_err_set(err, "group: %u counters is invalid: expected an integer in [1, %u]", n,
		           SC_GROUP_MAX_COUNTERS);
		return -1;
	}
	uint32_t slots = sc_env_cpus_(env);
	if (slots > SC_GROUP_MAX_SLOTS) {
		sc_err_set(err, "group: cpus=%u is invalid: expected an integer in [1, %u]", slots,
		           SC_GROUP_MAX_SLOTS);
		return -1;
	}
	g->n = n;
	g->slots = slots;
	g->index = sc_percpu_index(how);
	g->how = how;
	g->row = SC_PAD_UP((size_t)n * 8);
	/* At most 2^26 * 8 bytes per row and 2^20 + 2 rows: well inside size_t on 64 bits. */
	if ((size_t)slots + 2 > SIZE_MAX / g->row ||
	    !(g->rows = rows_alloc(((size_t)slots + 2) * g->row, how))) {
		sc_err_set(err, "group: %s for %u counters x %u CPUs",
		           how == SC_PERCPU_PRIVATE ? "out of memory" : "no shared mapping (mmap)", n,
		           slots);
		return -1;
	}
	for (uint32_t r = 0; r < slots + 2; r++)
		for (uint32_t i = 0; i < n; i++)
			sc_atomic_init(word(g, r, i), 0);
	return 0;
}

void sc_pcgroup_destroy(sc_pcgroup *g)
{
	if (g->rows && g->how == SC_PERCPU_SHARED)
		munmap(g->rows, sc_pcgroup_bytes(g));
	else
		sc_free_lines(g->rows);
	g->rows = NULL;
}

/* Counter i's raw value: the sum of its CPU and overflow words. */
static uint64_t raw(const sc_pcgroup *g, uint32_t i)
{
	return sc_pcgroup_column_sum_(g->rows + (size_t)i * 8, g->row, g->slots);
}

uint64_t sc_pcgroup_get(const sc_pcgroup *g, uint32_t i)
{
	if (i >= g->n)
		return 0;
	/*
	 * acquire: pairs with the release CAS of read_and_reset, which came
	 * after that call's loads of the words; the loads below then see
	 * words at least as new (coherence), so the raw sum is >= the origin
	 * and the difference is the increments since.
	 */
	uint64_t o = atomic_load_explicit(origin(g, i), memory_order_acquire);
	return raw(g, i) - o;
}

/*
 * Add every counter's raw sum to out[i], row by row (each row read in
 * order, the way it lies in memory). Callers load the origins first, with
 * acquire (see sc_pcgroup_get).
 */
static void add_raw_all(const sc_pcgroup *g, uint64_t *out)
{
	for (uint32_t r = 0; r <= g->slots; r++)
		for (uint32_t i = 0; i < g->n; i++)
			/* relaxed: monotone words (sc_pcgroup_column_sum_). */
			out[i] += atomic_load_explicit(word(g, r, i), memory_order_relaxed);
}

void sc_pcgroup_get_all(const sc_pcgroup *g, uint64_t *out)
{
	/* out starts at minus each origin (loaded first, as sc_pcgroup_get does). */
	for (uint32_t i = 0; i < g->n; i++)
		/* acquire: as in sc_pcgroup_get. */
		out[i] = 0 - atomic_load_explicit(origin(g, i), memory_order_acquire);
	add_raw_all(g, out);
}

void sc_pcgroup_read_and_reset(sc_pcgroup *g, uint64_t *out)
{
	/*
	 * Pass 1: each origin (acquire), then every raw sum. Pass 2: move each
	 * origin from what pass 1 loaded to the raw sum with a CAS; the
	 * reading is the difference. A failed CAS means another read_and_reset
	 * moved that origin in between: load it again and sum that counter
	 * again (the new raw sum is >= the new origin, by the argument of
	 * sc_pcgroup_get), until a CAS wins. Each increment is then counted
	 * by the one call whose CAS moved the origin past it.
	 */
	uint64_t *o = malloc((size_t)g->n * sizeof *o);
	if (o)
		for (uint32_t i = 0; i < g->n; i++)
			/* acquire: as in sc_pcgroup_get. */
			o[i] = atomic_load_explicit(origin(g, i), memory_order_acquire);
	if (o) {
		for (uint32_t i = 0; i < g->n; i++)
			out[i] = 0;
		add_raw_all(g, out);
	}
	for (uint32_t i = 0; i < g->n; i++) {
		uint64_t old, now;
		if (o) {
			old = o[i];
			now = out[i];
		} else { /* out of memory for the copy: counter by counter */
			old = atomic_load_explicit(origin(g, i), memory_order_acquire);
			now = raw(g, i);
		}
		/*
		 * release on success: a reader that acquires the new origin sees
		 * words at least as new as those summed here. acquire on failure:
		 * the value found plays the part of the acquire load above.
		 */
		while (!atomic_compare_exchange_strong_explicit(origin(g, i), &old, now,
		                                                memory_order_release,
		                                                memory_order_acquire))
			now = raw(g, i);
		out[i] = now - old;
	}
	free(o);
}

void sc_pcgroup_reset(sc_pcgroup *g)
{
	for (uint32_t r = 0; r < g->slots + 2; r++)
		for (uint32_t i = 0; i < g->n; i++)
			/* relaxed: nothing else runs (the contract); the caller's join orders it. */
			atomic_store_explicit(word(g, r, i), 0, memory_order_relaxed);
}

size_t sc_pcgroup_bytes(const sc_pcgroup *g)
{
	return g->rows ? ((size_t)g->slots + 2) * g->row : 0;
}

int sc_pcgroup_describe(const sc_pcgroup *g, char *buf, size_t size)
{
	return snprintf(buf, size, "path=%s;slots=%u;counters=%u;row=%zu", sc_percpu_index_name(g->index),
	                g->slots, g->n, g->row);
}

/* ---- sc_group: the handle ------------------------------------------------------ */

struct sc_group {
	sc_pcgroup g;
};

sc_group *sc_group_new(uint32_t n, sc_err *err)
{
	sc_err local;
	sc_env env;
	sc_group *h = malloc(sizeof *h);
	if (!err)
		err = &local;
	if (!h) {
		sc_err_set(err, "group: out of memory");
		return NULL;
	}
	sc_env_default(&env);
	if (sc_pcgroup_init(&h->g, n, &env, err)) {
		free(h);
		return NULL;
	}
	return h;
}

void sc_group_free(sc_group *g)
{
	if (!g)
		return;
	sc_pcgroup_destroy(&g->g);
	free(g);
}

uint32_t sc_group_size(const sc_group *g)
{
	return g->g.n;
}

int sc_group_add(sc_group *g, uint32_t i, uint64_t v)
{
	if (i >= g->g.n) {
		errno = EINVAL;
		return -1;
	}
	sc_pcgroup_add(&g->g, i, v);
	return 0;
}

int sc_group_inc(sc_group *g, uint32_t i)
{
	return sc_group_add(g, i, 1);
}

uint64_t sc_group_get(const sc_group *g, uint32_t i)
{
	return sc_pcgroup_get(&g->g, i);
}

void sc_group_get_all(const sc_group *g, uint64_t *out)
{
	sc_pcgroup_get_all(&g->g, out);
}

void sc_group_read_and_reset(sc_group *g, uint64_t *out)
{
	sc_pcgroup_read_and_reset(&g->g, out);
}

size_t sc_group_bytes(const sc_group *g)
{
	return sizeof *g + sc_pcgroup_bytes(&g->g);
}

int sc_group_describe(const sc_group *g, char *buf, size_t size)
{
	return sc_pcgroup_describe(&g->g, buf, size);
}

/* ---- PerCPUGroup: the counters of a table as one group -------------------------- */

struct sc_percpu_group_pool {
	sc_pcgroup g;
	uint32_t taken; /* counters handed out by init (set-up only, single-threaded) */
};

int sc_percpu_group_config(sc_percpu_group_cfg *cfg, sc_params *p, const sc_env *env,
                           sc_err *err)
{
	(void)p;
	cfg->cpus = sc_env_cpus_(env);
	cfg->row = 0;
	cfg->pool = NULL;
	cfg->index = 0;
	if (cfg->cpus > SC_GROUP_MAX_SLOTS) {
		sc_err_set(err, "PerCPUGroup: cpus=%u is invalid: expected an integer in [1, %u]",
		           cfg->cpus, SC_GROUP_MAX_SLOTS);
		return -1;
	}
	return 0;
}

int sc_percpu_group_reserve(sc_percpu_group_cfg *cfg, size_t n, sc_err *err)
{
	if (cfg->pool) {
		sc_err_set(err, "PerCPUGroup: this configuration already has its group");
		return -1;
	}
	if (n > SC_GROUP_MAX_COUNTERS) {
		sc_err_set(err, "PerCPUGroup: %zu counters is too many for one group (at most %u)", n,
		           SC_GROUP_MAX_COUNTERS);
		return -1;
	}
	sc_percpu_group_pool *pool = malloc(sizeof *pool);
	sc_env env = {1, 1, cfg->cpus};
	if (!pool) {
		sc_err_set(err, "PerCPUGroup: out of memory");
		return -1;
	}
	if (sc_pcgroup_init(&pool->g, (uint32_t)n, &env, err)) {
		free(pool);
		return -1;
	}
	pool->taken = 0;
	cfg->row = pool->g.row;
	cfg->index = pool->g.index;
	cfg->pool = pool;
	return 0;
}

void sc_percpu_group_release(sc_percpu_group_cfg *cfg)
{
	if (!cfg->pool)
		return;
	sc_pcgroup_destroy(&cfg->pool->g);
	free(cfg->pool);
	cfg->pool = NULL;
}

int sc_percpu_group_init(sc_percpu_group_t *c, const sc_percpu_group_cfg *cfg, sc_err *err)
{
	sc_percpu_group_pool *pool = cfg->pool;
	if (!pool || pool->taken == pool->g.n) {
		sc_err_set(err, "PerCPUGroup: %s", pool ? "the group is full"
		                                        : "no group reserved (sc_percpu_group_reserve)");
		return -1;
	}
	c->col = pool->g.rows + (size_t)pool->taken++ * 8;
	return 0;
}

void sc_percpu_group_reset(sc_percpu_group_t *c, const sc_percpu_group_cfg *cfg)
{
	for (uint32_t r = 0; r <= cfg->cpus; r++)
		/* relaxed: only while nothing increments (the contract). */
		atomic_store_explicit((SC_ATOMIC(uint64_t) *)(void *)(c->col + r * cfg->row), 0,
		                      memory_order_relaxed);
}

void sc_percpu_group_destroy(sc_percpu_group_t *c, const sc_percpu_group_cfg *cfg)
{
	(void)cfg;
	c->col = NULL; /* the group is the table's: sc_percpu_group_release */
}

size_t sc_percpu_group_heap_bytes(const sc_percpu_group_t *c, const sc_percpu_group_cfg *cfg)
{
	(void)c;
	if (!cfg->pool)
		return 0;
	size_t n = cfg->pool->g.n;
	return (sc_pcgroup_bytes(&cfg->pool->g) + sizeof *cfg->pool + n - 1) / n;
}

int sc_percpu_group_describe(const sc_percpu_group_t *c, const sc_percpu_group_cfg *cfg,
                             char *buf, size_t size)
{
	(void)c;
	/* a counter exists only once its table reserved the group */
	return sc_pcgroup_describe(&cfg->pool->g, buf, size);
}
