/* SPDX-License-Identifier: MIT */
/*
 * numa.c - configuration, slow paths, add(n) and describe of RBONuma and
 * RBONumaAdapt (sc_numa.h); Multiline's are in multiline.c.
 */
#include "numa_priv.h"

/* ---- RBONuma and RBONumaAdapt --------------------------------------------- */

static int rbonuma_config(sc_rbonuma_cfg *cfg, sc_params *p, const sc_env *env,
                          const char *variant, sc_err *err)
{
	uint64_t patience;
	if (sc_numa_check_nodes_(env, variant, SC_RBONUMA_MAX_NODES,
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
