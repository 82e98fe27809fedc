/* SPDX-License-Identifier: MIT */
/*
 * group_handle.c - the group sc_group, held by its caller or on the heap,
 * and the PerCPUGroup variant's slow paths (sc_group.h), over the rows of
 * group.c.
 */
#define SC_GROUP_NO_INLINE /* the out-of-line sc_group_inc and sc_group_add, exported */
#include <scounters/scounters.h>

#include <errno.h>
#include <stdlib.h>

#include "env_priv.h"

/* ---- sc_group: over its rows (group.c), held by the caller or on the heap ------ */

int sc_group_einval_(void)
{
	errno = EINVAL;
	return -1;
}

/*
 * g's scratch for n counters, made before its rows so that a failure leaves
 * a placed buffer untouched (n out of range: none, and the rows' init
 * refuses n), or -1 with err set.
 */
static int scratch_first(sc_group *g, uint32_t n, sc_err *err)
{
	g->scratch_ = NULL;
	g->heap_ = 0;
	sc_atomic_init(&g->busy_, 0);
	if (n == 0 || n > SC_GROUP_MAX_COUNTERS)
		return 0;
	if (!(g->scratch_ = malloc((size_t)n * sizeof *g->scratch_))) {
		sc_err_set(err, "group: out of memory");
		return -1;
	}
	return 0;
}

/* rc, the rows' init's: on a failure the scratch is freed. */
static int rows_made(sc_group *g, int rc)
{
	if (rc) {
		free(g->scratch_);
		g->scratch_ = NULL;
	}
	return rc;
}

int sc_group_init(sc_group *g, uint32_t n, const sc_env *env, unsigned how, sc_err *err)
{
	if (scratch_first(g, n, err))
		return -1;
	return rows_made(g, sc_pcgroup_init_as(&g->rows_, n, env, how, err));
}

int sc_group_init_placed(sc_group *g, void *buf, size_t size, uint32_t n, uint32_t cpus,
                         sc_err *err)
{
	if (scratch_first(g, n, err))
		return -1;
	return rows_made(g, sc_pcgroup_init_placed(&g->rows_, buf, size, n, cpus, err));
}

/* n is the buffer's, known once attached (attach writes nothing to buf). */
int sc_group_init_attached(sc_group *g, void *buf, size_t size, sc_err *err)
{
	scratch_first(g, 0, err); /* no scratch yet: the fields cleared, for a failed attach */
	if (sc_pcgroup_attach(&g->rows_, buf, size, err))
		return -1;
	if (scratch_first(g, g->rows_.n, err)) {
		sc_pcgroup_destroy(&g->rows_); /* a view: frees nothing */
		return -1;
	}
	return 0;
}

size_t sc_group_placed_bytes(uint32_t n, uint32_t cpus)
{
	return sc_pcgroup_placed_bytes(n, cpus);
}

void sc_group_destroy(sc_group *g)
{
	sc_pcgroup_destroy(&g->rows_);
	free(g->scratch_);
	g->scratch_ = NULL;
}

/* Room for a group on the heap, or NULL with err set. */
static sc_group *heap_alloc(sc_err *err)
{
	sc_group *g = malloc(sizeof *g);
	if (!g)
		sc_err_set(err, "group: out of memory");
	return g;
}

/* g once an init returned rc: g marked as the heap's, or NULL and g freed. */
static sc_group *heap_done(sc_group *g, int rc)
{
	if (rc) {
		free(g);
		return NULL;
	}
	g->heap_ = 1;
	return g;
}

sc_group *sc_group_new(uint32_t n, sc_err *err)
{
	return sc_group_new_as(n, NULL, SC_PERCPU_PRIVATE, err);
}

sc_group *sc_group_new_as(uint32_t n, const sc_env *env, unsigned how, sc_err *err)
{
	sc_group *g = heap_alloc(err);
	return g ? heap_done(g, sc_group_init(g, n, env, how, err)) : NULL;
}

sc_group *sc_group_new_placed(void *buf, size_t size, uint32_t n, uint32_t cpus, sc_err *err)
{
	sc_group *g = heap_alloc(err);
	return g ? heap_done(g, sc_group_init_placed(g, buf, size, n, cpus, err)) : NULL;
}

sc_group *sc_group_attach(void *buf, size_t size, sc_err *err)
{
	sc_group *g = heap_alloc(err);
	return g ? heap_done(g, sc_group_init_attached(g, buf, size, err)) : NULL;
}

void sc_group_free(sc_group *g)
{
	if (!g)
		return;
	uint32_t heap = g->heap_;
	sc_group_destroy(g);
	if (heap)
		free(g);
}

const char *sc_group_path(const sc_group *g)
{
	return sc_pcgroup_path(&g->rows_);
}

uint32_t sc_group_size(const sc_group *g)
{
	return g->rows_.n;
}

int sc_group_add(sc_group *g, uint32_t i, uint64_t v)
{
	if (i >= g->rows_.n)
		return sc_group_einval_();
	sc_pcgroup_add(&g->rows_, i, v);
	return 0;
}

int sc_group_inc(sc_group *g, uint32_t i)
{
	return sc_group_add(g, i, 1);
}

uint64_t sc_group_get(const sc_group *g, uint32_t i)
{
	return sc_pcgroup_get(&g->rows_, i);
}

int sc_group_get_all(const sc_group *g, uint64_t *out, size_t len)
{
	return sc_pcgroup_get_all(&g->rows_, out, len);
}

int sc_group_read_and_reset(sc_group *g, uint64_t *out, size_t len)
{
	uint32_t free_ = 0;
	/*
	 * acquire: this call's writes to the scratch come after the previous
	 * holder's (released below); no lock is waited for: a call that finds
	 * the scratch held, or a child forked while a parent's thread held it,
	 * reads counter by counter.
	 */
	if (atomic_compare_exchange_strong_explicit(&g->busy_, &free_, 1, memory_order_acquire,
	                                            memory_order_relaxed)) {
		int rc = sc_pcgroup_read_and_reset(&g->rows_, out, len, g->scratch_);
		/* release: hands the scratch to the next holder, after this call's use */
		atomic_store_explicit(&g->busy_, 0, memory_order_release);
		return rc;
	}
	return sc_pcgroup_read_and_reset(&g->rows_, out, len, NULL);
}

void sc_group_reset(sc_group *g)
{
	sc_pcgroup_reset(&g->rows_);
}

size_t sc_group_bytes(const sc_group *g)
{
	return (g->heap_ ? sizeof *g : 0) + (size_t)g->rows_.n * sizeof *g->scratch_ +
	       sc_pcgroup_bytes(&g->rows_);
}

int sc_group_describe(const sc_group *g, char *buf, size_t size)
{
	return sc_pcgroup_describe(&g->rows_, buf, size);
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
