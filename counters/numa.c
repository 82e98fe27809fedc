/* SPDX-License-Identifier: MIT */
/* numa.c - configuration and slow paths of the NUMA-aware counters (sc_numa.h). */
#include <scounters/sc_numa.h>

#include <stdio.h>

/*
 * SC_NUMA_TEST_INTERFERE(word): a test build defines it to write the word as
 * another thread would, just before a CAS of an adaptive slow path, so that
 * the CAS fails on cue and the switch thresholds can be tested on one thread
 * (tests/test_numa_switch.c includes this file). Otherwise it is nothing.
 */
#ifndef SC_NUMA_TEST_INTERFERE
#define SC_NUMA_TEST_INTERFERE(word) ((void)0)
#endif

/* env.nodes in 1 .. max, or -1 with a message saying why. */
static int numa_check_nodes(const sc_env *env, const char *variant, uint32_t max,
                            const char *why, sc_err *err)
{
	if (env->nodes < 1 || env->nodes > max) {
		sc_err_set(err, "%s: %u nodes is out of range: expected 1 to %u (%s)", variant,
		           env->nodes, max, why);
		return -1;
	}
	return 0;
}

/* ---- RBONuma and RBONumaAdapt --------------------------------------------- */

static int rbonuma_config(sc_rbonuma_cfg *cfg, sc_params *p, const sc_env *env,
                          const char *variant, sc_err *err)
{
	uint64_t patience;
	if (numa_check_nodes(env, variant, SC_RBONUMA_MAX_NODES,
	                     "the 32-bit word keeps at least 23 value bits", err) ||
	    sc_param_backoff(p, variant, &cfg->backoff, err) ||
	    sc_param_u64(p, variant, "patience", SC_RBONUMA_PATIENCE_DEFAULT, 1,
	                 SC_RBONUMA_PATIENCE_MAX, &patience, err))
		return -1;
	unsigned value_bits = 31 - sc_bits_for(env->nodes);
	cfg->patience = (uint32_t)patience;
	cfg->nodes = env->nodes;
	cfg->node_shift = value_bits;
	cfg->value_mask = (UINT32_C(1) << value_bits) - 1;
	atomic_init(&cfg->anti, SC_RBONUMA_NOBODY);
	return 0;
}

int sc_rbonuma_config(sc_rbonuma_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	return rbonuma_config(cfg, p, env, "RBONuma", err);
}

int sc_rbonuma_adapt_config(sc_rbonuma_adapt_cfg *cfg, sc_params *p, const sc_env *env,
                            sc_err *err)
{
	return rbonuma_config(cfg, p, env, "RBONumaAdapt", err);
}

int sc_rbonuma_init(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_err *err)
{
	(void)cfg;
	(void)err;
	atomic_init(&c->w, 0); /* flag clear: no node recorded yet */
	return 0;
}

int sc_rbonuma_adapt_init(sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg, sc_err *err)
{
	return sc_rbonuma_init(c, cfg, err);
}

/* Zero the value, keep the flag and node bits (see RBONumaAdapt in sc_numa.h). */
void sc_rbonuma_reset(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg)
{
	/* relaxed, load and store: reset runs while no thread increments (doc/design.md §3). */
	uint32_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	atomic_store_explicit(&c->w, w & ~cfg->value_mask, memory_order_relaxed);
}

void sc_rbonuma_adapt_reset(sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg)
{
	sc_rbonuma_reset(c, cfg);
}

void sc_rbonuma_destroy(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg)
{
	(void)c;
	(void)cfg;
}

void sc_rbonuma_adapt_destroy(sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg)
{
	(void)c;
	(void)cfg;
}

/* A thread of `node` succeeded: if its node is named, priority is served. */
void sc_rbonuma_served(const sc_rbonuma_cfg *cfg, uint32_t node)
{
	_Atomic uint32_t *anti = sc_rbonuma_anti(cfg);
	uint32_t named = node;
	/*
	 * relaxed: the variable is a hint that orders no data. The load keeps
	 * the line shared when there is nothing to clear; the CAS leaves a name
	 * another node wrote meanwhile in place.
	 */
	if (atomic_load_explicit(anti, memory_order_relaxed) == node)
		atomic_compare_exchange_strong_explicit(anti, &named, SC_RBONUMA_NOBODY,
		                                        memory_order_relaxed, memory_order_relaxed);
}

/* An impatient thread names its node unless one is named already; returns the name now. */
static uint32_t rbonuma_publish(const sc_rbonuma_cfg *cfg, uint32_t me)
{
	uint32_t named = SC_RBONUMA_NOBODY;
	/* relaxed: a hint, as in sc_rbonuma_served. */
	if (atomic_compare_exchange_strong_explicit(sc_rbonuma_anti(cfg), &named, me,
	                                            memory_order_relaxed, memory_order_relaxed))
		return me;
	return named;
}

/*
 * Hold off while another node has priority: SC_RBONUMA_HOLD_WINDOWS backoff
 * windows of this round, cut short as soon as our node is named. Bounded, so
 * the counter stays non-blocking. Returns the word as it is after the wait.
 */
static uint32_t rbonuma_hold_off(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_thread *t,
                                 uint32_t me, uint32_t round)
{
	for (unsigned i = 0; i < SC_RBONUMA_HOLD_WINDOWS; i++) {
		sc_backoff(&cfg->backoff, round, &t->rng);
		/* relaxed: a hint, as in sc_rbonuma_inc. */
		if (atomic_load_explicit(sc_rbonuma_anti(cfg), memory_order_relaxed) == me)
			break;
	}
	/* relaxed: the CAS that follows checks the word. */
	return atomic_load_explicit(&c->w, memory_order_relaxed);
}

/* Does the word record a node other than ours? */
static bool rbonuma_other_node(const sc_rbonuma_cfg *cfg, uint32_t w, uint32_t me)
{
	return sc_rbonuma_word_recorded(w) && sc_rbonuma_word_node(cfg, w) != me;
}

/*
 * The contended increment: w is the word after a failed try, or as loaded
 * when another node was named before the first try. Each round waits (not
 * at all if our node is named; hold-off if another node is named or
 * recorded; an ordinary backoff window otherwise), then tries once.
 */
void sc_rbonuma_inc_slow(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_thread *t, uint32_t w)
{
	uint32_t me = sc_numa_node(t, cfg->nodes);
	uint32_t tag = sc_rbonuma_tag(cfg, me);
	for (uint32_t round = 0;; round++) {
		/* relaxed: a hint, as in sc_rbonuma_inc. */
		uint32_t anti = atomic_load_explicit(sc_rbonuma_anti(cfg), memory_order_relaxed);
		if (anti == SC_RBONUMA_NOBODY && round >= cfg->patience)
			anti = rbonuma_publish(cfg, me);
		if (anti != me) {
			if (anti != SC_RBONUMA_NOBODY || rbonuma_other_node(cfg, w, me))
				w = rbonuma_hold_off(c, cfg, t, me, round);
			else {
				sc_backoff(&cfg->backoff, round, &t->rng);
				/* relaxed: reload after the wait (as RBO); the CAS checks it. */
				w = atomic_load_explicit(&c->w, memory_order_relaxed);
			}
		}
		if (sc_rbonuma_try(c, cfg, &w, tag)) {
			sc_rbonuma_served(cfg, me);
			return;
		}
	}
}

/*
 * RBONumaAdapt after its first try failed (w unrecorded) or found the word
 * recorded. 3 quick tries and 16 with backoff as a plain counter; a thread
 * that needs more goes on as RBONuma, whose every CAS records its node.
 */
void sc_rbonuma_adapt_inc_slow(sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg,
                               sc_thread *t, uint32_t w)
{
	if (sc_rbonuma_word_recorded(w)) {
		sc_rbonuma_inc(c, cfg, t);
		return;
	}
	const uint32_t quick = SC_RBONUMA_ADAPT_QUICK_TRIES;
	for (uint32_t failed = 1; failed < quick + SC_RBONUMA_ADAPT_BACKOFF_TRIES; failed++) {
		if (failed >= quick) {
			sc_backoff(&cfg->backoff, failed - quick, &t->rng);
			/* relaxed: reload after the wait (as RBO); the CAS checks it. */
			w = atomic_load_explicit(&c->w, memory_order_relaxed);
			if (sc_rbonuma_word_recorded(w))
				break; /* another thread switched the counter meanwhile */
		}
		SC_NUMA_TEST_INTERFERE(&c->w);
		if (sc_rbonuma_try(c, cfg, &w, 0))
			return;
		if (sc_rbonuma_word_recorded(w))
			break; /* another thread switched the counter meanwhile */
	}
	sc_rbonuma_inc_slow(c, cfg, t, w);
}

/* ---- Multiline and MultilineAdapt ------------------------------------------ */

static int multiline_config(sc_rbo_cfg *rbo, uint32_t *nodes, sc_params *p, const sc_env *env,
                            const char *variant, sc_err *err)
{
	if (numa_check_nodes(env, variant, SC_MULTILINE_MAX_NODES,
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

/* The new word after adding n to w's value; tagged with `me` when tag is set. */
static uint32_t rbonuma_word_plus(const sc_rbonuma_cfg *cfg, uint32_t w, uint64_t n, bool tag,
                                  uint32_t me)
{
	uint32_t value = (uint32_t)(((uint64_t)(w & cfg->value_mask) + n) & cfg->value_mask);
	uint32_t bits = tag ? sc_rbonuma_tag(cfg, me) : (w & ~cfg->value_mask);
	return bits | value;
}

/* adaptive: tag only once a node is recorded (RBONumaAdapt), else always (RBONuma). */
static void rbonuma_add(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_thread *t, uint64_t n,
                        bool adaptive)
{
	uint32_t me = sc_numa_node(t, cfg->nodes);
	/* relaxed: the CAS validates it. */
	uint32_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	for (uint32_t failures = 0;; failures++) {
		bool tag = !adaptive || sc_rbonuma_word_recorded(w);
		/* relaxed: as sc_rbonuma_try; a failed CAS hands back the current word. */
		if (atomic_compare_exchange_weak_explicit(&c->w, &w,
		                                          rbonuma_word_plus(cfg, w, n, tag, me),
		                                          memory_order_relaxed, memory_order_relaxed))
			return;
		sc_backoff(&cfg->backoff, failures, &t->rng);
		/* relaxed: reload after the wait (as RBO); the CAS validates it. */
		w = atomic_load_explicit(&c->w, memory_order_relaxed);
	}
}

void sc_rbonuma_add(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_thread *t, uint64_t n)
{
	rbonuma_add(c, cfg, t, n, false);
}

void sc_rbonuma_adapt_add(sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg, sc_thread *t,
                          uint64_t n)
{
	rbonuma_add(c, cfg, t, n, true);
}

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

/* "<id>" or "none" into buf (at least 12 bytes). */
static const char *rbonuma_id_text(char *buf, size_t size, uint32_t id, bool known)
{
	if (!known)
		return "none";
	snprintf(buf, size, "%u", id);
	return buf;
}

static int rbonuma_describe(const sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, char *buf,
                            size_t size, bool adaptive)
{
	/* relaxed: a snapshot for diagnostics; the word and the variable order nothing. */
	uint32_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	uint32_t anti = atomic_load_explicit(sc_rbonuma_anti(cfg), memory_order_relaxed);
	char node[12], prio[12];
	bool recorded = sc_rbonuma_word_recorded(w);
	const char *nt = rbonuma_id_text(node, sizeof node, sc_rbonuma_word_node(cfg, w), recorded);
	const char *pt = rbonuma_id_text(prio, sizeof prio, anti, anti != SC_RBONUMA_NOBODY);
	if (adaptive && !recorded)
		return snprintf(buf, size, "mode=plain");
	return snprintf(buf, size, "%snode=%s;priority=%s", adaptive ? "mode=numa;" : "", nt, pt);
}

int sc_rbonuma_describe(const sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, char *buf, size_t size)
{
	return rbonuma_describe(c, cfg, buf, size, false);
}

int sc_rbonuma_adapt_describe(const sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg,
                              char *buf, size_t size)
{
	return rbonuma_describe(c, cfg, buf, size, true);
}

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
