/* SPDX-License-Identifier: MIT */
/*
 * counter.c - the handle API (sc_counter.h): counters made by name, each
 * thread's context made on first use and retired at thread exit.
 */
/* The library's own, exported, sc_counter_inc and sc_counter_add are defined below. */
#define SC_COUNTER_NO_INLINE 1
#include <scounters/scounters.h>

#include "node_priv.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- thread contexts ---------------------------------------------------------- */

/*
 * The registry of this file, under one lock: which thread indices are in
 * use, and the live counters whose threads hold increments back (Batched),
 * which an exiting thread must flush.
 */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *index_used; /* index_used[i]: index i belongs to a live thread */
static uint32_t index_cap;
static sc_counter *flush_list; /* the live Batched counters */
static sc_counter *all_list;   /* every live counter (fork locks their reset locks) */

/* Base of every context's seed; the sequence number makes each context's streams unique. */
#define SC_HANDLE_SEED 0x5c0c0ffee1234567ull
static SC_ATOMIC(uint64_t) context_seq;

static pthread_key_t exit_key;
static pthread_once_t handle_once = PTHREAD_ONCE_INIT;

/*
 * The context lives in the thread's own TLS block (no allocation, nothing to
 * fail). initial-exec (SC_TLS_FAST): one TLS load on the fast path instead
 * of a call to __tls_get_addr; these bytes and node.c's fit the static TLS
 * surplus glibc keeps for libraries loaded by dlopen.
 */
/*
 * index UINT32_MAX while the context is not made: sc_counter.h's inlined
 * Sharded increment takes "index < the counter's slots" for "the thread has
 * its context" (UINT32_MAX is above every SC_DIST_MAX_SLOTS).
 */
#define SC_TLS_INIT_ {.ctx = {.index = UINT32_MAX}, .ready = 0}
#ifdef SC_COUNTER_HAVE_TLS_
__thread sc_counter_tls_t_ sc_counter_tls_ SC_TLS_FAST = SC_TLS_INIT_; /* read by sc_counter.h */
#else
static _Thread_local sc_counter_tls_t_ sc_counter_tls_ = SC_TLS_INIT_;
#endif
#define self_ctx (sc_counter_tls_.ctx)
#define self_ready (sc_counter_tls_.ready) /* 1 once the context is made, 0 before and at exit */
/*
 * The thread's stream for counters whose variant fixes every thread's start
 * state (sc_table thread_seed: Scalable runtime=dotnet, the runtime's 100):
 * one per thread, started at that seed when the thread first uses such a
 * counter (as the runtime's per-thread generator), shared by all of them.
 * seeded_from is the seed it started from, 0 while unused.
 */
static _Thread_local sc_thread seeded_ctx SC_TLS_FAST;
static _Thread_local uint32_t seeded_from SC_TLS_FAST;

/* The lowest free index, marked used; UINT32_MAX (every counter's shared path) if out of memory. */
static uint32_t index_take(void)
{
	uint32_t i = 0;
	while (i < index_cap && index_used[i])
		i++;
	if (i == index_cap) {
		uint32_t cap = index_cap ? 2 * index_cap : 64;
		unsigned char *grown = realloc(index_used, cap);
		if (!grown)
			return UINT32_MAX;
		memset(grown + index_cap, 0, cap - index_cap);
		index_used = grown;
		index_cap = cap;
	}
	index_used[i] = 1;
	return i;
}

/*
 * Scalable without runtime=dotnet, for the handle: the registry's increment
 * also holds the dotnet branch, whose call keeps the context in a saved
 * register (a push and a pop at every increment); without it the handle's
 * Scalable increment took 1.49x the inlined one in make bench's pairs, 1.33x
 * with it (same run).
 */
static void scalable_ayers_inc_(void *obj, const void *cfg, sc_thread *t)
{
	sc_scalable_ayers_inc_(obj, cfg, t);
}

struct sc_counter {
	sc_counter_head_ head;     /* first: what sc_counter.h's inline increment reads */
	sc_table t;                /* a table of one counter */
	void *obj;                 /* the counter: sc_table_at(&t, 0) */
	int id;                    /* enum sc_variant_id */
	uint64_t mask;             /* precise: the value's range, 2^bits - 1 (v->range) */
	SC_ATOMIC(uint64_t) origin; /* precise: the raw value at the last read_and_reset */
	pthread_mutex_t reset_lock; /* serialises read_and_reset of a precise counter */
	sc_counter *next, **pprev; /* in flush_list (Batched only) */
	sc_counter *all_next, **all_pprev; /* in all_list */
};

/* Thread exit: flush what this thread holds in every Batched counter, free its index. */
static void thread_exit(void *arg)
{
	sc_thread *t = arg;
	pthread_mutex_lock(&registry_lock);
	for (sc_counter *c = flush_list; c; c = c->next)
		c->t.v->flush(c->obj, c->t.cfg, t);
	if (t->index < index_cap)
		index_used[t->index] = 0;
	/*
	 * A later destructor that counts again gets a fresh context and index.
	 * Both cleared before the index can pass to another thread, so this
	 * thread's inlined Sharded increment (see SC_TLS_INIT_) never writes a
	 * slot it no longer owns.
	 */
	self_ready = 0;
	self_ctx.index = UINT32_MAX;
	pthread_mutex_unlock(&registry_lock);
	seeded_from = 0;
}

/* A context's streams, unique per sequence number; salt tells processes apart (fork). */
static void self_seed(uint32_t index, uint64_t salt)
{
	/* relaxed: only uniqueness of the number matters. */
	uint64_t seq = atomic_fetch_add_explicit(&context_seq, 1, memory_order_relaxed);
	sc_thread_init(&self_ctx, index, 0, sc_mix64(SC_HANDLE_SEED + seq) ^ salt, false);
	sc_node_refresh(&self_ctx); /* the node the kernel says, and what to watch */
}

/*
 * fork(): no other thread may hold the registry lock or a counter's reset
 * lock while the process is copied, or the child, which has none of those
 * threads, would wait for them forever. prepare takes them all (registry
 * first, the order sc_counter_free also takes), parent releases them.
 */
static void fork_prepare(void)
{
	pthread_mutex_lock(&registry_lock);
	for (sc_counter *c = all_list; c; c = c->all_next)
		pthread_mutex_lock(&c->reset_lock);
}

static void fork_parent(void)
{
	for (sc_counter *c = all_list; c; c = c->all_next)
		pthread_mutex_unlock(&c->reset_lock);
	pthread_mutex_unlock(&registry_lock);
}

/*
 * The child has one thread, the one that forked: the locks are made anew,
 * every thread index but its own is free again (the threads that held them
 * do not exist here and their exit destructors never run, so what they held
 * back in a Batched counter is handed over here), and it gets a new random
 * stream, so parent and child do not draw the same numbers.
 */
static void fork_child(void)
{
	pthread_mutex_init(&registry_lock, NULL);
	for (sc_counter *c = all_list; c; c = c->all_next)
		pthread_mutex_init(&c->reset_lock, NULL);
	/*
	 * What the parent's other threads held back in a Batched counter is in
	 * their slots of the child's copy, which no thread of the child owns:
	 * added to the shared word here, so the child's copy counts every
	 * increment completed before the fork and a thread that takes such an
	 * index later starts from an empty slot. Relaxed: the child has one thread.
	 */
	for (sc_counter *c = flush_list; c; c = c->next) {
		sc_batched_t *b = c->obj;
		const sc_batched_cfg *cfg = c->t.cfg;
		for (uint32_t i = 0; i < cfg->threads; i++) {
			if (self_ready && i == self_ctx.index)
				continue;
			uint64_t n = atomic_load_explicit(&b->local[i].v, memory_order_relaxed);
			if (n) {
				atomic_fetch_add_explicit(&b->shared, n, memory_order_relaxed);
				atomic_store_explicit(&b->local[i].v, 0, memory_order_relaxed);
			}
		}
	}
	if (index_used)
		memset(index_used, 0, index_cap);
	if (self_ready) {
		if (self_ctx.index < index_cap)
			index_used[self_ctx.index] = 1;
		self_seed(self_ctx.index, sc_mix64((uint64_t)getpid()));
	}
}

static void handle_init(void)
{
	if (pthread_key_create(&exit_key, thread_exit) != 0 ||
	    pthread_atfork(fork_prepare, fork_parent, fork_child) != 0)
		abort(); /* only when the process is out of keys or memory: nothing sensible remains */
}

/*
 * The fork handlers are registered when the library is loaded, not at its
 * first use: pthread_atfork runs prepare handlers in the reverse order of
 * registration and parent and child handlers in that order, so handlers
 * registered before ours would run inside our locks (prepare after ours has
 * taken them, child before ours has made them anew), and a program's
 * handler that calls sc_counter_read_and_reset (prepare) or sc_counter_new
 * (child) would wait for itself. Registered first, ours wrap every handler
 * the program registers after the library is loaded (an executable's
 * constructors and main run after those of its libraries). The pthread_once
 * of the entry points stays, for compilers without constructors.
 */
#if defined(__GNUC__)
__attribute__((constructor)) static void handle_load(void)
{
	pthread_once(&handle_once, handle_init);
}
#endif

static sc_thread *self_create(void)
{
	pthread_once(&handle_once, handle_init);
	pthread_mutex_lock(&registry_lock);
	uint32_t index = index_take();
	pthread_mutex_unlock(&registry_lock);
	sc_node_setup();
	self_seed(index, 0);
	/*
	 * The index's previous owner released it under registry_lock after its
	 * last update, and we took it under the same lock, so its single-writer
	 * slots pass to us with everything it wrote visible.
	 */
	pthread_setspecific(exit_key, &self_ctx);
	self_ready = 1;
	return &self_ctx;
}

/*
 * The node id is refreshed when it may be stale (node_priv.h): at once when
 * the rseq area shows another CPU, else every SC_NODE_REFRESH_CALLS calls.
 */
#if defined(__GNUC__)
#define SC_NOINLINE __attribute__((noinline))
#else
#define SC_NOINLINE
#endif

/* Out of line, so that the fast path below saves no registers. */
static SC_NOINLINE sc_thread *self_slow(void)
{
	if (!self_ready)
		return self_create();
	sc_node_refresh(&self_ctx);
	return &self_ctx;
}

/* The fast path, inlined into sc_counter_inc and _add (no call through the PLT). */
static inline sc_thread *self_get(void)
{
	if (__builtin_expect(self_ready && sc_node_fresh(), 1))
		return &self_ctx;
	return self_slow();
}

sc_thread *sc_thread_self(void)
{
	return self_get();
}

/* The context an update of c uses: the thread's, or its seeded stream (see seeded_ctx). */
static sc_thread *context_for(const sc_counter *c)
{
	sc_thread *t = self_get();
	uint32_t seed = c->t.thread_seed;
	if (__builtin_expect(seed == 0, 1))
		return t;
	if (seeded_from != seed) {
		seeded_ctx = *t;
		seeded_ctx.rng = seed;
		seeded_from = seed;
	}
	seeded_ctx.index = t->index;
	seeded_ctx.node = t->node;
	return &seeded_ctx;
}

/* ---- counters ------------------------------------------------------------------ */

/* Each variant's family (the header sc_<family>.h): "numa" marks the ones that read t->node. */
#define SC_FAMILY_(P, NAME, ALIAS, KIND, LAYOUT, SUMMARY, PARAMS, FAMILY, ...) [SC_ID_##P] = FAMILY,
static const char *const family_of[SC_VARIANT_COUNT] = {SC_VARIANTS(SC_FAMILY_)};
#undef SC_FAMILY_

/* Per-thread slots of the Sharded and Batched counters made here. */
static uint32_t handle_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t n = cpus > 0 ? 2 * (uint64_t)cpus : 8;
	if (n < 8)
		n = 8;
	return n < SC_DIST_MAX_SLOTS ? (uint32_t)n : SC_DIST_MAX_SLOTS;
}

/* Whether key is one of the comma-separated keys of accepted. */
static bool key_accepted(const char *accepted, const char *key)
{
	size_t len = strlen(key);
	for (const char *a = accepted; *a;) {
		const char *end = strchr(a, ',');
		size_t n = end ? (size_t)(end - a) : strlen(a);
		if (n == len && strncmp(a, key, n) == 0)
			return true;
		a += n + (end != NULL);
	}
	return false;
}

/*
 * Split "k=v,k=v" (buf is modified and must outlive p) into p. An empty
 * item ("batch=4,,", ",batch=4") is an error; "" alone means no parameters.
 * Keys the variant does not accept are refused here, with the list of
 * those it does (same-seed, which sc_table_create would take, is not one).
 */
static int parse_params(sc_params *p, const sc_variant *v, char *buf, sc_err *err)
{
	sc_params_clear(p);
	const char *all = buf[0] ? NULL : "";
	for (char *tok = buf; !all;) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		while (*tok == ' ')
			tok++;
		size_t len = strlen(tok);
		while (len && tok[len - 1] == ' ')
			tok[--len] = '\0';
		if (len == 0) {
			sc_err_set(err, "%s: empty item in the parameters (a stray comma?)", v->name);
			return -1;
		}
		if (sc_params_add(p, tok, err))
			return -1;
		const char *key = p->key[p->n - 1];
		if (strcmp(key, "same-seed") == 0) {
			sc_err_set(err, "same-seed=%s: a benchmark parameter, not accepted by "
			           "sc_counter_new (each thread has its own streams)", tok + 10);
			return -1;
		}
		if (!key_accepted(v->params, key)) {
			sc_err_set(err, "%s: unknown parameter '%s' (accepted: %s)", v->name, key,
			           v->params[0] ? v->params : "none");
			return -1;
		}
		if (!comma)
			break;
		tok = comma + 1;
	}
	return 0;
}

/*
 * The Scalable family defaults to width=64 here (not 32, the inlined API's
 * and scbench's default, which the papers measure): a handle counter is
 * meant to count for as long as a program runs, and 32 bits wrap after
 * about 4e9 increments. An explicit width is kept.
 */
static int widen_default(sc_params *p, const sc_variant *v, sc_err *err)
{
	if (v != &sc_variants[SC_ID_scalable] && v != &sc_variants[SC_ID_scalable_cas] &&
	    v != &sc_variants[SC_ID_scalable_capped])
		return 0;
	for (unsigned i = 0; i < p->n; i++)
		if (strcmp(p->key[i], "width") == 0)
			return 0;
	return sc_params_add(p, "width=64", err);
}

sc_counter *sc_counter_new(const char *variant, const char *params, sc_err *err)
{
	sc_err local;
	if (!err)
		err = &local;
	const sc_variant *v = variant ? sc_variant_find(variant) : NULL;
	if (!v) {
		sc_err_set(err, "unknown counter variant '%s'; valid: %s", variant ? variant : "(null)",
		           sc_variant_names());
		return NULL;
	}
	pthread_once(&handle_once, handle_init);
	char *buf = strdup(params ? params : "");
	sc_counter *c = calloc(1, sizeof *c);
	if (!buf || !c) {
		sc_err_set(err, "%s: out of memory", v->name);
		free(buf);
		free(c);
		return NULL;
	}
	sc_params p;
	/* Every online node its own index (sc_node.h); RBONuma takes at most 256. */
	uint32_t nodes = sc_node_count();
	sc_env env = {handle_threads(), nodes < SC_RBONUMA_MAX_NODES ? nodes : SC_RBONUMA_MAX_NODES, 0};
	if (parse_params(&p, v, buf, err) || widen_default(&p, v, err) ||
	    sc_table_create(&c->t, v, &p, &env, 1, err)) {
		free(buf);
		free(c);
		return NULL;
	}
	free(buf);
	size_t size = v->size(c->t.cfg);
	if (v->kind != SC_PRECISE &&
	    ((size != 4 && size != 8) || v->heap_bytes(sc_table_at(&c->t, 0), c->t.cfg) != 0)) {
		/* read_and_reset below exchanges the one word of such a counter */
		sc_err_set(err, "%s: not a single-word counter; the handle API cannot reset it",
		           v->name);
		sc_table_destroy(&c->t);
		free(c);
		return NULL;
	}
	c->obj = sc_table_at(&c->t, 0);
	c->id = (int)(v - sc_variants);
	c->head.inc = v->inc;
	if (c->id == SC_ID_scalable && !((const sc_scalable_cfg *)c->t.cfg)->dotnet)
		c->head.inc = scalable_ayers_inc_;
	c->head.add = v->add;
	c->head.obj = c->obj;
	c->head.cfg = c->t.cfg;
	/* the node (refreshed by context_for) or the seeded stream: the slow context */
	if (strcmp(family_of[c->id], "numa") == 0 || c->t.thread_seed != 0) {
		c->head.mode = SC_HEAD_SLOW_;
	} else if (c->id == SC_ID_sharded) {
		c->head.mode = SC_HEAD_SHARDED_;
		c->head.sharded = *(const sc_sharded_t *)c->obj; /* the slot pointer, fixed by init */
		c->head.sharded_cfg = *(const sc_sharded_cfg *)c->t.cfg;
	} else if (c->id == SC_ID_percpu) {
		/* the array and its shape, fixed by init (sc_percpu_add's arguments) */
		c->head.mode = SC_HEAD_PERCPU_;
		c->head.percpu_slot0 = (unsigned char *)(void *)((const sc_percpu_t *)c->obj)->slots;
		c->head.percpu_stride = sizeof(sc_padded_u64);
		c->head.percpu_slots = ((const sc_percpu_cfg *)c->t.cfg)->cpus;
	} else if (c->id == SC_ID_percpu_group) {
		c->head.mode = SC_HEAD_PERCPU_; /* as PerCPU: sc_percpu_group_add's arguments */
		c->head.percpu_slot0 = ((const sc_percpu_group_t *)c->obj)->col;
		c->head.percpu_stride = ((const sc_percpu_group_cfg *)c->t.cfg)->row;
		c->head.percpu_slots = ((const sc_percpu_group_cfg *)c->t.cfg)->cpus;
	} else {
		c->head.mode = SC_HEAD_CALL_;
	}
	/* A precise value wraps after its range, 2^bits - 1 for every precise variant. */
	c->mask = v->range(c->t.cfg);
	atomic_init(&c->origin, 0);
	pthread_mutex_init(&c->reset_lock, NULL);
	pthread_mutex_lock(&registry_lock);
	if (c->id == SC_ID_batched) {
		c->next = flush_list;
		if (flush_list)
			flush_list->pprev = &c->next;
		c->pprev = &flush_list;
		flush_list = c;
	}
	c->all_next = all_list;
	if (all_list)
		all_list->all_pprev = &c->all_next;
	c->all_pprev = &all_list;
	all_list = c;
	pthread_mutex_unlock(&registry_lock);
	return c;
}

void sc_counter_free(sc_counter *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&registry_lock);
	if (c->pprev) {
		*c->pprev = c->next;
		if (c->next)
			c->next->pprev = c->pprev;
	}
	*c->all_pprev = c->all_next;
	if (c->all_next)
		c->all_next->all_pprev = c->all_pprev;
	pthread_mutex_unlock(&registry_lock);
	pthread_mutex_destroy(&c->reset_lock);
	sc_table_destroy(&c->t);
	free(c);
}

sc_thread *sc_counter_context_(const sc_counter *c)
{
	return context_for(c);
}

/* For programs built with SC_COUNTER_NO_INLINE or without GNU C: the same as the inline ones. */
void sc_counter_inc(sc_counter *c)
{
	c->head.inc(c->head.obj, c->head.cfg, context_for(c));
}

void sc_counter_add(sc_counter *c, uint64_t n)
{
	c->head.add(c->head.obj, c->head.cfg, context_for(c), n);
}

void sc_counter_flush(sc_counter *c)
{
	c->t.v->flush(c->obj, c->t.cfg, self_get());
}

const char *sc_counter_variant(const sc_counter *c)
{
	return c->t.v->name;
}

int sc_counter_describe(const sc_counter *c, char *buf, size_t size)
{
	return c->t.v->describe(c->obj, c->t.cfg, buf, size);
}

uint64_t sc_counter_get(const sc_counter *c)
{
	if (c->t.v->kind != SC_PRECISE)
		return c->t.v->get(c->obj, c->t.cfg);
	/*
	 * acquire: pairs with the release store in read_and_reset, so the parts
	 * read below are at least as new as the reading the origin came from,
	 * and (every part being monotone) the difference is never negative.
	 */
	uint64_t origin = atomic_load_explicit(&c->origin, memory_order_acquire);
	return (c->t.v->get(c->obj, c->t.cfg) - origin) & c->mask;
}

/*
 * x rounded to an integer at random, up with probability frac(x): unbiased
 * (E = x), unlike rounding to nearest, which at a Morris projection of
 * n + 0.087 (30 increments at a = 5000) always takes 0.087 off. The uniform
 * has 2^-32 resolution.
 */
static uint64_t round_randomly(double x, uint32_t *rng)
{
	double whole = floor(x);
	double u = (double)(sc_xorshift_dice(rng) - 1) * 0x1p-32;
	return (uint64_t)whole + (u < x - whole ? 1 : 0);
}

/*
 * The unbiased projection of Morris threshold bits tbits, exactly: the sum
 * of 1/p over the thresholds the chain passed through from T0, p being the
 * probability with which an update is applied at each (sc_morris_chosen_:
 * floor(T)/MaxInt, 1 at T0). sc_morris_projection's closed form,
 * (MaxInt/T - 1) scale, is that sum only for thresholds that are exact
 * powers of the factor; the stored ones are rounded to float at every step,
 * and the closed form's error at them is a bias that does not average out
 * (about -1e-4 per reading of 2 increments at a = 5000: 2 increments read
 * as 1.9999006 on average). The walk costs one float multiplication and one
 * division per update applied since T0, a ln(1 + n/a) of them at count n
 * (26,500 at n = 10^6, a = 5000). A tbits not on the chain (only a word
 * not made by the increments) takes the closed form once the walk passes it.
 */
static double morris_exact_projection(uint32_t tbits, const sc_morris_cfg *cfg)
{
	if (tbits == SC_MORRIS_ADAPT_ZERO_BITS) /* MorrisAdapt's reset word: nothing counted */
		return 0.0;
	double sum = 0.0;
	float target = sc_morris_float_(tbits);
	for (uint32_t at = SC_MORRIS_T0_BITS; at != tbits;) {
		float t = sc_morris_float_(at);
		if (t < target)
			return sc_morris_projection(tbits, cfg);
		int64_t floor_t = (int64_t)t;
		sum += floor_t >= (int64_t)UINT32_MAX ? 1.0 : (double)UINT32_MAX / (double)floor_t;
		at = sc_morris_next_(at, cfg);
		if (at == SC_MORRIS_T0_BITS) /* wrapped: tbits is not on the chain */
			return sc_morris_projection(tbits, cfg);
	}
	return sum;
}

/*
 * The value of a probabilistic or Serial word w as one reading of
 * read_and_reset: the variant's get, but for Morris and MorrisAdapt, whose
 * get rounds the closed-form projection to the nearest integer (biased: the
 * projections of small counts sit just above integers, and the closed form
 * is off at rounded thresholds), the exact projection rounded at random, so
 * that readings summed over many resets are unbiased.
 */
static uint64_t unbiased_value(const sc_counter *c, const void *w)
{
	const sc_morris_cfg *mcfg = c->t.cfg;
	if (c->id == SC_ID_morris) {
		/* relaxed: w is this call's private copy. */
		uint32_t tbits = atomic_load_explicit(&((const sc_morris_t *)w)->t, memory_order_relaxed);
		return round_randomly(morris_exact_projection(tbits, mcfg), &context_for(c)->rng);
	}
	if (c->id == SC_ID_morris_adapt) {
		/* relaxed: as above. */
		uint64_t word = atomic_load_explicit(&((const sc_morris_adapt_t *)w)->w,
		                                     memory_order_relaxed);
		return (uint32_t)word +
		       round_randomly(morris_exact_projection((uint32_t)(word >> 32), mcfg),
		                      &context_for(c)->rng);
	}
	return c->t.v->get(w, c->t.cfg);
}

/*
 * A single-word counter: replace its word by what the variant's reset leaves
 * of it (the initial word, or for ScalableCAS and MorrisAdapt the initial
 * value in the mode the word is in: their reset keeps the adaptation), in
 * one CAS, and return the old word's value.
 */
static uint64_t exchange_word(sc_counter *c)
{
	union {
		SC_ATOMIC(uint32_t) w32;
		SC_ATOMIC(uint64_t) w64;
	} fresh;
	const sc_variant *v = c->t.v;
	if (v->size(c->t.cfg) == 4) {
		SC_ATOMIC(uint32_t) *w = c->obj;
		/* relaxed: the word publishes nothing else; the CAS alone is the point. */
		uint32_t old = atomic_load_explicit(w, memory_order_relaxed), next;
		do {
			/* relaxed: fresh is private to this call. */
			atomic_store_explicit(&fresh.w32, old, memory_order_relaxed);
			v->reset(&fresh, c->t.cfg);
			next = atomic_load_explicit(&fresh.w32, memory_order_relaxed);
		} while (!atomic_compare_exchange_weak_explicit(w, &old, next, memory_order_relaxed,
		                                                memory_order_relaxed));
		atomic_store_explicit(&fresh.w32, old, memory_order_relaxed);
	} else {
		SC_ATOMIC(uint64_t) *w = c->obj;
		/* relaxed: as above. */
		uint64_t old = atomic_load_explicit(w, memory_order_relaxed), next;
		do {
			atomic_store_explicit(&fresh.w64, old, memory_order_relaxed);
			v->reset(&fresh, c->t.cfg);
			next = atomic_load_explicit(&fresh.w64, memory_order_relaxed);
		} while (!atomic_compare_exchange_weak_explicit(w, &old, next, memory_order_relaxed,
		                                                memory_order_relaxed));
		atomic_store_explicit(&fresh.w64, old, memory_order_relaxed);
	}
	return unbiased_value(c, &fresh);
}

uint64_t sc_counter_read_and_reset(sc_counter *c)
{
	if (c->t.v->kind != SC_PRECISE)
		return exchange_word(c);
	pthread_mutex_lock(&c->reset_lock);
	/* relaxed: only read_and_reset writes origin, under this lock. */
	uint64_t origin = atomic_load_explicit(&c->origin, memory_order_relaxed);
	uint64_t now = c->t.v->get(c->obj, c->t.cfg);
	/* release: see sc_counter_get. */
	atomic_store_explicit(&c->origin, now, memory_order_release);
	pthread_mutex_unlock(&c->reset_lock);
	return (now - origin) & c->mask;
}

int sc_counter_add_signed(sc_counter *c, int64_t n)
{
	if (c->t.v->kind != SC_PRECISE) {
		errno = ENOTSUP;
		return -1;
	}
	/*
	 * Two's complement: adding (uint64_t)n is adding n modulo 2^64, and every
	 * precise variant adds modulo its range (a power of two), so a negative n
	 * subtracts -n from the value modulo the range.
	 */
	c->t.v->add(c->obj, c->t.cfg, sc_thread_self(), (uint64_t)n);
	return 0;
}

uint64_t sc_counter_get_fast(const sc_counter *c)
{
	return sc_counter_get(c);
}

uint64_t sc_counter_get_sum(const sc_counter *c)
{
	if (c->id != SC_ID_batched)
		return sc_counter_get(c);
	const sc_batched_t *b = c->obj;
	const sc_batched_cfg *cfg = c->t.cfg;
	/* acquire: as in sc_counter_get. */
	uint64_t origin = atomic_load_explicit(&c->origin, memory_order_acquire);
	/*
	 * The shared word first, with acquire: it pairs with the release of the
	 * hand-over (sc_batched_hand_over_, which empties the local count before
	 * adding the batch), so a batch seen here is seen emptied in the local
	 * counts below and never counted twice; a batch handed over after this
	 * load is missed or still read locally, never both.
	 */
	uint64_t shared = atomic_load_explicit(&b->shared, memory_order_acquire);
	uint64_t held = 0;
	/*
	 * relaxed: each slot is an atomic its owner writes (no data race); the
	 * exactness the header promises needs the caller's synchronisation with
	 * the updating threads, which makes their last stores visible here.
	 */
	for (uint32_t i = 0; i < cfg->threads; i++)
		held += atomic_load_explicit(&b->local[i].v, memory_order_relaxed);
	return (shared + held - origin) & c->mask;
}

sc_counter_bound sc_counter_error_bound(const sc_counter *c, sc_reading r)
{
	sc_counter_bound b = {SC_BOUND_EXACT, 0, 0, 0.0};
	const void *cfg = c->t.cfg;
	switch (c->id) {
	case SC_ID_serial:
		b.kind = SC_BOUND_NONE;
		break;
	case SC_ID_batched:
		if (r != SC_READ_SUM) {
			const sc_batched_cfg *bc = cfg;
			b.kind = SC_BOUND_LAG;
			b.lag_per_thread = bc->batch - 1;
			b.lag = (uint64_t)(bc->batch - 1) * bc->threads;
		}
		break;
	case SC_ID_morris:
	case SC_ID_morris_adapt:
		b.kind = SC_BOUND_RSTDV;
		b.rstdv = 1.0 / sqrt(2.0 * ((const sc_morris_cfg *)cfg)->a);
		break;
	case SC_ID_bfp_dup:
	case SC_ID_bfp_csup: /* sc_bfp.h: CSUP's exponent never exceeds DUP's at the same value */
		b.kind = SC_BOUND_RSTDV;
		b.rstdv = sqrt(3.0 / (4.0 * ((const sc_bfp_cfg *)cfg)->mant_threshold - 3.0));
		break;
	case SC_ID_scalable:
	case SC_ID_scalable_cas:
	case SC_ID_scalable_capped: {
		const sc_scalable_cfg *sc = cfg;
		if (sc->dotnet) {
			b.kind = SC_BOUND_NONE;
			break;
		}
		b.kind = SC_BOUND_RSTDV;
		b.rstdv = sqrt(3.0 / ldexp(1.0, (int)sc->threshold + 2));
		break;
	}
	default:
		if (c->t.v->kind != SC_PRECISE)
			b.kind = SC_BOUND_NONE; /* a variant added later without a stated bound */
		break;
	}
	return b;
}

/* -1, 0 or +1: the sign of v - x. */
static int sign_of(uint64_t v, uint64_t x)
{
	return v < x ? -1 : v > x;
}

int sc_counter_compare(const sc_counter *c, uint64_t x)
{
	sc_counter_bound b = sc_counter_error_bound(c, SC_READ_FAST);
	uint64_t fast = sc_counter_get(c);
	switch (b.kind) {
	case SC_BOUND_LAG:
		/* fast <= begun, and completed before the call <= fast + lag */
		if (fast > x)
			return 1;
		if (fast < x && x - fast > b.lag)
			return -1;
		return sign_of(sc_counter_get_sum(c), x);
	case SC_BOUND_RSTDV: {
		/*
		 * Cantelli: for a count n <= x, E - n > x (1 + k r) - n >= k r x >= k sd
		 * (sd <= r n <= r x), so a +1 is wrong with probability at most
		 * 1/(1 + k^2); for n >= x, n - E > n - x (1 - k r) >= k r n >= k sd
		 * (as k r < 1 below; when k r >= 1 there is no -1), likewise.
		 */
		double band = (double)SC_COMPARE_SIGMAS * b.rstdv * (double)x;
		double e = (double)fast, xd = (double)x;
		if (e > xd + band)
			return 1;
		if (e < xd - band)
			return -1;
		return 0;
	}
	default: /* SC_BOUND_EXACT, SC_BOUND_NONE */
		return sign_of(fast, x);
	}
}
