/* SPDX-License-Identifier: MIT */
/*
 * multiline.c - configuration, slow paths, add(n) and describe of Multiline
 * and MultilineAdapt (sc_numa.h); RBONuma's are in numa.c.
 */
#include "numa_priv.h"

/* ---- Multiline and MultilineAdapt ------------------------------------------ */

static int multiline_config(sc_rbo_cfg *rbo, uint32_t *nodes, sc_params *p, const sc_env *env,
                            const char *variant, sc_err *err)
{
	if (sc_numa_check_nodes_(env, variant, SC_MULTILINE_MAX_NODES,
	                     "one line per node and counter", err) ||
	    sc_param_backoff(p, variant, &rbo->backoff, err))
		return -1;
	*nodes = env->nodes;
	return 0;
}

/* nodes zeroed components, or NULL. */
static sc_multiline_part *multiline_parts_new(uint32_t nodes)
{
	sc_multiline_part *parts = sc_alloc_lines((size_t)nodes * sizeof *parts);
	if (parts)
		for (uint32_t i = 0; i < nodes; i++)
			atomic_init(&parts[i].rbo.v, 0);
	return parts;
}

/* Zero the components; only while no thread increments. */
static void multiline_parts_zero(sc_multiline_part *parts, uint32_t nodes)
{
	for (uint32_t i = 0; i < nodes; i++)
		sc_word_reset(&parts[i].rbo);
}

int sc_multiline_config(sc_multiline_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	return multiline_config(&cfg->rbo, &cfg->nodes, p, env, "Multiline", err);
}

int sc_multiline_init(sc_multiline_t *c, const sc_multiline_cfg *cfg, sc_err *err)
{
	(void)err;
	sc_multiline_part *parts = sc_multiline_parts(c);
	for (uint32_t i = 0; i < cfg->nodes; i++)
		atomic_init(&parts[i].rbo.v, 0);
	return 0;
}

void sc_multiline_reset(sc_multiline_t *c, const sc_multiline_cfg *cfg)
{
	multiline_parts_zero(sc_multiline_parts(c), cfg->nodes);
}

void sc_multiline_destroy(sc_multiline_t *c, const sc_multiline_cfg *cfg)
{
	(void)c;
	(void)cfg;
}

int sc_multiline_adapt_config(sc_multiline_adapt_cfg *cfg, sc_params *p, const sc_env *env,
                              sc_err *err)
{
	uint64_t after;
	if (multiline_config(&cfg->rbo, &cfg->nodes, p, env, "MultilineAdapt", err) ||
	    sc_param_u64(p, "MultilineAdapt", "inflate-after",
	                 SC_MULTILINE_ADAPT_INFLATE_AFTER_DEFAULT, 0,
	                 SC_MULTILINE_ADAPT_INFLATE_AFTER_MAX, &after, err))
		return -1;
	cfg->inflate_after = (uint32_t)after;
	return 0;
}

int sc_multiline_adapt_init(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg,
                            sc_err *err)
{
	(void)cfg;
	(void)err;
	atomic_init(&c->w, 0);
	return 0;
}

/*
 * One inflation attempt from the value form *w: 1 if the word now points to
 * new components holding the value, 0 if the CAS lost (*w is then the
 * current word, maybe another thread's pointer), -1 if out of memory.
 */
static int multiline_adapt_try_inflate(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg,
                                       uint64_t *w)
{
	sc_multiline_part *parts = multiline_parts_new(cfg->nodes);
	if (!parts)
		return -1;
	atomic_init(&parts[0].rbo.v, *w >> 1);
	uint64_t tagged = (uint64_t)(uintptr_t)parts | SC_MULTILINE_ADAPT_INFLATED;
	/*
	 * release: whoever loads the pointer with acquire must see the
	 * initialised components. acquire on failure: the word handed back may
	 * be another thread's pointer. Success is acq_rel because C11 wants it at
	 * least as strong as the failure order.
	 */
	if (atomic_compare_exchange_strong_explicit(&c->w, w, tagged, memory_order_acq_rel,
	                                            memory_order_acquire)) {
		*w = tagged;
		return 1;
	}
	sc_free_lines(parts); /* never published: no other thread can see it */
	return 0;
}

bool sc_multiline_adapt_inflate(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg)
{
	/* acquire: as in sc_multiline_adapt_inc. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_acquire);
	while (!sc_multiline_adapt_word_inflated(w))
		if (multiline_adapt_try_inflate(c, cfg, &w) < 0)
			return false;
	return true;
}

/*
 * After the first CAS failed (w is the value form then) or found the
 * pointer. Retries with backoff; once more than inflate-after attempts have
 * failed, each further round first tries to inflate.
 */
void sc_multiline_adapt_inc_slow(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg,
                                 sc_thread *t, uint64_t w)
{
	for (uint32_t failed = 1; !sc_multiline_adapt_word_inflated(w); failed++) {
		if (failed > cfg->inflate_after && multiline_adapt_try_inflate(c, cfg, &w) > 0)
			break;
		if (sc_multiline_adapt_word_inflated(w))
			break; /* another thread inflated */
		sc_backoff(&cfg->rbo.backoff, failed - 1, &t->rng);
		/* acquire: reload after the wait (as RBO); the word may be the pointer. */
		w = atomic_load_explicit(&c->w, memory_order_acquire);
		if (sc_multiline_adapt_word_inflated(w))
			break; /* another thread inflated during the wait */
		SC_NUMA_TEST_INTERFERE(&c->w);
		/* acquire: as in sc_multiline_adapt_inc. */
		if (atomic_compare_exchange_weak_explicit(&c->w, &w, w + 2, memory_order_acquire,
		                                          memory_order_acquire))
			return;
	}
	sc_rbo_inc(&sc_multiline_adapt_word_parts(w)[sc_numa_node(t, cfg->nodes)].rbo, &cfg->rbo,
	           t);
}

void sc_multiline_adapt_reset(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg)
{
	/* acquire: as in sc_multiline_adapt_inc (reset runs while no thread increments). */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_acquire);
	if (sc_multiline_adapt_word_inflated(w))
		multiline_parts_zero(sc_multiline_adapt_word_parts(w), cfg->nodes);
	else /* relaxed: no one increments */
		atomic_store_explicit(&c->w, 0, memory_order_relaxed);
}

void sc_multiline_adapt_destroy(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg)
{
	(void)cfg;
	/* acquire: as in sc_multiline_adapt_inc. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_acquire);
	if (sc_multiline_adapt_word_inflated(w))
		sc_free_lines(sc_multiline_adapt_word_parts(w));
	atomic_store_explicit(&c->w, 0, memory_order_relaxed); /* relaxed: the counter is dead */
}

/* ---- add(n) ---------------------------------------------------------------- */

void sc_multiline_adapt_add(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg,
                            sc_thread *t, uint64_t n)
{
	/* acquire: as in sc_multiline_adapt_inc, a pointer comes with its components. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_acquire);
	for (uint32_t failures = 0;; failures++) {
		if (sc_multiline_adapt_word_inflated(w)) {
			sc_rbo_add(&sc_multiline_adapt_word_parts(w)[sc_numa_node(t, cfg->nodes)].rbo,
			           &cfg->rbo, t, n);
			return;
		}
		/*
		 * value + n in the value form: w + 2n keeps the tag bit 0 and wraps
		 * the value modulo 2^63. acquire on both: as in the increment, the
		 * word handed back may be the pointer.
		 */
		if (atomic_compare_exchange_weak_explicit(&c->w, &w, w + 2 * n, memory_order_acquire,
		                                          memory_order_acquire))
			return;
		sc_backoff(&cfg->rbo.backoff, failures, &t->rng);
		/* acquire: reload after the wait (as RBO); the word may be the pointer. */
		w = atomic_load_explicit(&c->w, memory_order_acquire);
	}
}

/* ---- describe (sc_numa.h) ---------------------------------------------------- */

/* Components with a non-zero value (each read relaxed, as get reads them). */
static uint32_t multiline_nonzero(const sc_multiline_part *parts, uint32_t nodes)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < nodes; i++)
		k += sc_word_get(&parts[i].rbo) != 0;
	return k;
}

int sc_multiline_describe(const sc_multiline_t *c, const sc_multiline_cfg *cfg, char *buf,
                          size_t size)
{
	return snprintf(buf, size, "nodes=%u;nonzero=%u", cfg->nodes,
	                multiline_nonzero(sc_multiline_cparts(c), cfg->nodes));
}

int sc_multiline_adapt_describe(const sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg,
                                char *buf, size_t size)
{
	/* acquire: as in sc_multiline_adapt_get, a pointer comes with its components. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_acquire);
	if (!sc_multiline_adapt_word_inflated(w))
		return snprintf(buf, size, "mode=word");
	return snprintf(buf, size, "mode=inflated;nodes=%u;nonzero=%u", cfg->nodes,
	                multiline_nonzero(sc_multiline_adapt_word_parts(w), cfg->nodes));
}
