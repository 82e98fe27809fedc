/* SPDX-License-Identifier: MIT */
/*
 * counter.c - the handle API (sc_counter.h): counters made by name, each
 * thread's context made on first use and retired at thread exit.
 */
#include <scounters/scounters.h>

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
static sc_counter *flush_list;

/* Base of every context's seed; the sequence number makes each context's streams unique. */
#define SC_HANDLE_SEED 0x5c0c0ffee1234567ull
static SC_ATOMIC(uint64_t) context_seq;

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/*
 * The context lives in the thread's own TLS block (no allocation, nothing to
 * fail). initial-exec: one TLS load on the fast path instead of a call to
 * __tls_get_addr; the 24 bytes fit the static TLS surplus glibc keeps for
 * libraries loaded by dlopen.
 */
#if defined(__GNUC__)
#define SC_TLS_FAST __attribute__((tls_model("initial-exec")))
#else
#define SC_TLS_FAST
#endif
static _Thread_local sc_thread self_ctx SC_TLS_FAST;
static _Thread_local bool self_ready SC_TLS_FAST;

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

struct sc_counter {
	sc_table t;                /* a table of one counter */
	void *obj;                 /* the counter: sc_table_at(&t, 0) */
	int id;                    /* enum sc_variant_id */
	uint64_t mask;             /* precise: the value's range, 2^bits - 1 (v->range) */
	SC_ATOMIC(uint64_t) origin; /* precise: the raw value at the last read_and_reset */
	pthread_mutex_t reset_lock; /* serialises read_and_reset of a precise counter */
	sc_counter *next, **pprev; /* in flush_list (Batched only) */
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
	pthread_mutex_unlock(&registry_lock);
	/* a later destructor that counts again gets a fresh context and index */
	self_ready = false;
}

static void exit_key_create(void)
{
	if (pthread_key_create(&exit_key, thread_exit) != 0)
		abort(); /* only when the process is out of keys: nothing sensible remains */
}

static sc_thread *self_create(void)
{
	pthread_once(&exit_key_once, exit_key_create);
	pthread_mutex_lock(&registry_lock);
	uint32_t index = index_take();
	pthread_mutex_unlock(&registry_lock);
	/* relaxed: only uniqueness of the number matters. */
	uint64_t seq = atomic_fetch_add_explicit(&context_seq, 1, memory_order_relaxed);
	sc_thread_init(&self_ctx, index, 0, sc_mix64(SC_HANDLE_SEED + seq), false);
	/*
	 * The index's previous owner released it under registry_lock after its
	 * last update, and we took it under the same lock, so its single-writer
	 * slots pass to us with everything it wrote visible.
	 */
	pthread_setspecific(exit_key, &self_ctx);
	self_ready = true;
	return &self_ctx;
}

sc_thread *sc_thread_self(void)
{
	if (__builtin_expect(self_ready, 1))
		return &self_ctx;
	return self_create();
}

/* ---- counters ------------------------------------------------------------------ */

/* Per-thread slots of the Sharded and Batched counters made here. */
static uint32_t handle_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t n = cpus > 0 ? 2 * (uint64_t)cpus : 8;
	if (n < 8)
		n = 8;
	return n < SC_DIST_MAX_SLOTS ? (uint32_t)n : SC_DIST_MAX_SLOTS;
}

/* Split "k=v,k=v" (buf is modified and must outlive p) into p. */
static int parse_params(sc_params *p, char *buf, sc_err *err)
{
	sc_params_clear(p);
	for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		size_t len = strlen(tok);
		while (len && tok[len - 1] == ' ')
			tok[--len] = '\0';
		if (len == 0)
			continue;
		if (sc_params_add(p, tok, err))
			return -1;
		if (strcmp(p->key[p->n - 1], "same-seed") == 0) {
			sc_err_set(err, "same-seed=%s: a benchmark parameter, not accepted by "
			           "sc_counter_new (each thread has its own streams)", tok + 10);
			return -1;
		}
	}
	return 0;
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
	char *buf = strdup(params ? params : "");
	sc_counter *c = calloc(1, sizeof *c);
	if (!buf || !c) {
		sc_err_set(err, "%s: out of memory", v->name);
		free(buf);
		free(c);
		return NULL;
	}
	sc_params p;
	sc_env env = {handle_threads(), 1, 0};
	if (parse_params(&p, buf, err) || sc_table_create(&c->t, v, &p, &env, 1, err)) {
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
	/* A precise value wraps after its range, 2^bits - 1 for every precise variant. */
	c->mask = v->range(c->t.cfg);
	atomic_init(&c->origin, 0);
	pthread_mutex_init(&c->reset_lock, NULL);
	if (c->id == SC_ID_batched) {
		pthread_mutex_lock(&registry_lock);
		c->next = flush_list;
		if (flush_list)
			flush_list->pprev = &c->next;
		c->pprev = &flush_list;
		flush_list = c;
		pthread_mutex_unlock(&registry_lock);
	}
	return c;
}

void sc_counter_free(sc_counter *c)
{
	if (!c)
		return;
	if (c->pprev) {
		pthread_mutex_lock(&registry_lock);
		*c->pprev = c->next;
		if (c->next)
			c->next->pprev = c->pprev;
		pthread_mutex_unlock(&registry_lock);
	}
	pthread_mutex_destroy(&c->reset_lock);
	sc_table_destroy(&c->t);
	free(c);
}

void sc_counter_inc(sc_counter *c)
{
	c->t.v->inc(c->obj, c->t.cfg, sc_thread_self());
}

void sc_counter_add(sc_counter *c, uint64_t n)
{
	c->t.v->add(c->obj, c->t.cfg, sc_thread_self(), n);
}

void sc_counter_flush(sc_counter *c)
{
	c->t.v->flush(c->obj, c->t.cfg, sc_thread_self());
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

/* A single-word counter: exchange its word for the initial one, return the old word's value. */
static uint64_t exchange_word(sc_counter *c)
{
	union {
		SC_ATOMIC(uint32_t) w32;
		SC_ATOMIC(uint64_t) w64;
	} fresh;
	sc_err err;
	const sc_variant *v = c->t.v;
	v->init(&fresh, c->t.cfg, &err); /* cannot fail for these variants: no allocation */
	if (v->size(c->t.cfg) == 4) {
		/* relaxed: fresh is private to this call. */
		uint32_t init = atomic_load_explicit(&fresh.w32, memory_order_relaxed);
		/* relaxed: the word publishes nothing else; the exchange alone is the point. */
		uint32_t old = atomic_exchange_explicit((SC_ATOMIC(uint32_t) *)c->obj, init,
		                                        memory_order_relaxed);
		atomic_store_explicit(&fresh.w32, old, memory_order_relaxed);
	} else {
		/* relaxed: as above. */
		uint64_t init = atomic_load_explicit(&fresh.w64, memory_order_relaxed);
		uint64_t old = atomic_exchange_explicit((SC_ATOMIC(uint64_t) *)c->obj, init,
		                                        memory_order_relaxed);
		atomic_store_explicit(&fresh.w64, old, memory_order_relaxed);
	}
	return v->get(&fresh, c->t.cfg);
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
