/* SPDX-License-Identifier: MIT */
/*
 * context.c - the handle API's thread contexts (sc_counter.h): each thread's
 * context made on first use and retired at thread exit, the registry of live
 * counters that fork and thread exit must visit, and the entry points that
 * read the context on every update (sc_counter_inc, _add, _flush).
 */
#include "counter_priv.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The registry of this file, under one lock: which thread indices are in use,
 * and the live counters whose threads hold increments back (flushed at exit). */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned char *index_used; /* index_used[i]: index i belongs to a live thread */
static uint32_t index_cap;
/*
 * The live counters whose threads hold updates back (SC_PROMISE_HOLDS_BACK):
 * thread exit flushes them through the variant's flush; the fork handlers
 * below hand over what other threads hold as Batched's slots, Batched being
 * the one variant that promises it (a second would bring its own hand-over).
 */
static sc_counter *flush_list;
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

/*
 * Signal handlers. self_busy is set while this thread is inside a section
 * of this file that holds registry_lock or is making its context: a handler
 * that interrupts it there and counts must not take the lock again (it would
 * wait for itself) nor make a second context. Its update then uses
 * busy_ctx, a context of index UINT32_MAX: every Sharded and Batched
 * counter's shared slot, an atomic add, exact. Only this thread and its
 * handlers touch either (volatile sig_atomic_t: the type a handler may read).
 */
static _Thread_local volatile sig_atomic_t self_busy SC_TLS_FAST;
static _Thread_local sc_thread busy_ctx SC_TLS_FAST;
/*
 * 1 from the start of the thread's exit destructor: from then on it counts
 * with self_ctx at index UINT32_MAX (every Sharded and Batched counter's
 * shared path, exact, nothing held back) and never makes a context again,
 * since no exit destructor may be left to flush one (a signal handler after
 * the destructors' last round, or a later destructor in that round).
 */
static _Thread_local volatile sig_atomic_t self_exited SC_TLS_FAST;

static void registry_enter(void)
{
	self_busy = 1;
	pthread_mutex_lock(&registry_lock);
}

static void registry_leave(void)
{
	pthread_mutex_unlock(&registry_lock);
	self_busy = 0;
}

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
 * Thread exit: the thread leaves its index, then flushes what it held under
 * it in every Batched counter and frees it. The order matters because a
 * signal handler may count on this thread at any point: once the context
 * shows index UINT32_MAX (and self_exited), a handler's update takes every
 * counter's shared path, so none lands in a slot after the flush has read it
 * (one that did, inside the flush's hand-over or after it, stayed held back
 * with no flush left to hand it over: the fast reading lost it for good when
 * no later thread took the index). A handler that ran before the switch
 * finished before it, and the flush, made with a copy of the context as it
 * was, hands its updates over with the rest. Every store of the switch is
 * made under self_busy (registry_enter), so a handler in between takes
 * busy_ctx, the shared paths too, and never makes a new context.
 */
static void thread_exit(void *arg)
{
	sc_thread held = *(sc_thread *)arg;
	registry_enter();
	/*
	 * A later destructor or signal handler that counts again uses the
	 * shared paths (see self_exited). Cleared before the index passes to
	 * another thread, so this thread's inlined Sharded increment (see
	 * SC_TLS_INIT_) never writes a slot it no longer owns.
	 */
	self_ready = 0;
	self_ctx.index = UINT32_MAX;
	self_exited = 1;
	/* the switch made before the flush reads a slot, in the order a handler sees */
	atomic_signal_fence(memory_order_seq_cst);
	for (sc_counter *c = flush_list; c; c = c->next)
		c->t.v->flush(c->obj, c->t.cfg, &held);
	if (held.index < index_cap)
		index_used[held.index] = 0;
	registry_leave();
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
/*
 * The forking thread's signal mask while the gate is up, to restore
 * (written and read under registry_lock, and in the child by its one thread).
 */
static sigset_t fork_saved_mask;

static void fork_prepare(void)
{
	registry_enter();
	for (sc_counter *c = all_list; c; c = c->all_next)
		pthread_mutex_lock(&c->reset_lock);
	/*
	 * No Batched hand-over across the fork (sc_batched.h): the forking
	 * thread's signals blocked (a handler of its own that hands over would
	 * wait at the gate for this very fork), the gate up, then every other
	 * thread's hand-over in flight waited for. seq_cst: see
	 * sc_batched_hand_over_.
	 */
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &fork_saved_mask);
	atomic_store_explicit(&sc_batched_fork_gate_, 1, memory_order_seq_cst);
	for (sc_counter *c = flush_list; c; c = c->next)
		sc_batched_fork_wait_(c->obj, c->t.cfg, self_ready ? self_ctx.index : UINT32_MAX);
}

static void fork_parent(void)
{
	/* relaxed: a hand-over waiting at the gate only needs to see it down at last */
	atomic_store_explicit(&sc_batched_fork_gate_, 0, memory_order_relaxed);
	pthread_sigmask(SIG_SETMASK, &fork_saved_mask, NULL);
	for (sc_counter *c = all_list; c; c = c->all_next)
		pthread_mutex_unlock(&c->reset_lock);
	registry_leave();
}

/*
 * The child has one thread, the one that forked, which holds every lock
 * prepare took: they are released as in the parent, at the end (a default
 * mutex held by the calling thread is unlocked in a defined way; making it
 * anew with pthread_mutex_init while it is locked, as this did before, is
 * undefined, and lost ThreadSanitizer the order between the parent's
 * threads' last registry updates and the child's, which it then reported
 * as races in index_take). Every thread index but its own is free again (the threads that held them
 * do not exist here and their exit destructors never run, so what they held
 * back in a Batched counter is handed over here), and it gets a new random
 * stream, so parent and child do not draw the same numbers.
 */
static void fork_child(void)
{
	/*
	 * What the parent's other threads held back in a Batched counter is in
	 * their slots of the child's copy, which no thread of the child owns:
	 * handed over here, so the child's copy counts every increment
	 * completed before the fork and a thread that takes such an index
	 * later finds nothing held back in it.
	 */
	for (sc_counter *c = flush_list; c; c = c->next)
		sc_batched_fork_adopt_(c->obj, c->t.cfg, self_ready ? self_ctx.index : UINT32_MAX);
	if (index_used)
		memset(index_used, 0, index_cap);
	if (self_ready) {
		if (self_ctx.index < index_cap)
			index_used[self_ctx.index] = 1;
		self_seed(self_ctx.index, sc_mix64((uint64_t)getpid()));
	}
	fork_parent(); /* the same release */
}

/*
 * What handle_init could not make (the process out of pthread keys or of
 * memory): NULL when it made everything. Loading the library never aborts
 * its host: the failure is reported by every call that makes a counter
 * (sc_handle_init_). Written once inside pthread_once, read after it.
 */
static const char *handle_failed;
static int handle_errno;

static void handle_init(void)
{
	int e = pthread_key_create(&exit_key, thread_exit);
	if (e) {
		handle_failed = "pthread_key_create";
		handle_errno = e;
		return;
	}
	e = pthread_atfork(fork_prepare, fork_parent, fork_child);
	if (e) {
		pthread_key_delete(exit_key);
		handle_failed = "pthread_atfork";
		handle_errno = e;
	}
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
	/*
	 * Without the exit key (handle_failed) no counter can be made, and an
	 * index could never be freed: a context for sc_thread_self only, with
	 * index UINT32_MAX (every Sharded and Batched counter's shared slot).
	 */
	uint32_t index = UINT32_MAX;
	self_busy = 1; /* until the context is made: see busy_ctx */
	/*
	 * A handler that ran between the caller's test of self_ready and the
	 * line above made the context itself (its index, its held-back
	 * updates): keep it. Taking a second index would leave the first one's
	 * slots, and the handler's updates held back in them, to no thread.
	 */
	atomic_signal_fence(memory_order_seq_cst);
	if (self_ready) {
		self_busy = 0;
		return &self_ctx;
	}
	if (!handle_failed) {
		pthread_mutex_lock(&registry_lock);
		index = index_take();
		pthread_mutex_unlock(&registry_lock);
	}
	sc_node_setup();
	self_seed(index, 0);
	/*
	 * The index's previous owner released it under registry_lock after its
	 * last update, and we took it under the same lock, so its single-writer
	 * slots pass to us with everything it wrote visible.
	 */
	if (!handle_failed)
		pthread_setspecific(exit_key, &self_ctx);
	self_ready = 1;
	self_busy = 0;
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
	if (self_busy) {
		/* a handler that interrupted this thread inside the registry: see self_busy */
		if (busy_ctx.index != UINT32_MAX)
			sc_thread_init(&busy_ctx, UINT32_MAX, 0, SC_HANDLE_SEED ^ 0x51c5, false);
		return &busy_ctx;
	}
	if (!self_ready && !self_exited)
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


void sc_handle_register_(sc_counter *c)
{
	registry_enter();
	if (c->t.v->promises & SC_PROMISE_HOLDS_BACK) {
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
	registry_leave();
}

void sc_handle_unregister_(sc_counter *c)
{
	registry_enter();
	if (c->pprev) {
		*c->pprev = c->next;
		if (c->next)
			c->next->pprev = c->pprev;
	}
	*c->all_pprev = c->all_next;
	if (c->all_next)
		c->all_next->all_pprev = c->all_pprev;
	registry_leave();
	pthread_mutex_destroy(&c->reset_lock);
}

int sc_handle_init_(sc_err *err)
{
	pthread_once(&handle_once, handle_init);
	if (!handle_failed)
		return 0;
	sc_err_set(err, "the library could not start: %s: %s", handle_failed,
	           strerror(handle_errno));
	return -1;
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
