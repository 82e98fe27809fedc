/* SPDX-License-Identifier: MIT */
/*
 * sc_simple.h - the central-word counters: Serial, CAS, FetchAdd, RBO,
 * CASPrefetch and CASOnce.
 *
 * All six keep the count in one 64-bit word, so their range is 0 .. 2^64-1
 * and an increment at 2^64-1 wraps to 0 (unsigned arithmetic; a test starts a
 * counter just below the boundary). bytes per counter: 8, padded to one line
 * in arrays (Dice §5.3). They hold no per-class state except RBO's backoff
 * bounds.
 */
#ifndef SC_SIMPLE_H
#define SC_SIMPLE_H

#include "sc_common.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* Shared by the six: the counter word and a configuration with backoff bounds. */
typedef struct sc_word_counter {
	SC_ATOMIC(uint64_t) v;
} sc_word_counter;

typedef struct sc_word_cfg {
	sc_backoff_cfg backoff; /* used by RBO only */
} sc_word_cfg;

/*
 * Every read of a counter word is relaxed: a statistics counter orders
 * nothing else, and get is allowed to see any value the word has held.
 */
static inline uint64_t sc_word_get(const sc_word_counter *c)
{
	return atomic_load_explicit(&c->v, memory_order_relaxed);
}

/* reset stores 0; callers guarantee no increment is in flight (doc/design.md §3). */
static inline void sc_word_reset(sc_word_counter *c)
{
	atomic_store_explicit(&c->v, 0, memory_order_relaxed);
}

/*
 * Serial (alias racing; Dice §5, Ayers): load, add one, store - both relaxed
 * atomics, never a plain ++ (a data race in C11, which a compiler may fuse or
 * widen). Kind: racy. Between a thread's load and its store any number of
 * other increments can happen and all but one are lost, so the value never
 * exceeds the true count but may fall far below it and may go backwards.
 */
typedef sc_word_counter sc_serial_t;
typedef sc_word_cfg sc_serial_cfg;

static inline void sc_serial_inc(sc_serial_t *c, const sc_serial_cfg *cfg, sc_thread *t)
{
	(void)cfg;
	(void)t;
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	atomic_store_explicit(&c->v, v + 1, memory_order_relaxed);
}

/*
 * CAS (Dice §1): read, then compare-and-swap value+1, retried at once on
 * failure. Exact. Relaxed is enough: the counter publishes no other data.
 */
typedef sc_word_counter sc_cas_t;
typedef sc_word_cfg sc_cas_cfg;

static inline void sc_cas_inc(sc_cas_t *c, const sc_cas_cfg *cfg, sc_thread *t)
{
	(void)cfg;
	(void)t;
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	/* relaxed: only the counter word itself is involved; a failed CAS reloads v. */
	while (!atomic_compare_exchange_weak_explicit(&c->v, &v, v + 1, memory_order_relaxed,
	                                              memory_order_relaxed))
		;
}

/*
 * FetchAdd (alias interlocked; Ayers): one atomic fetch-and-add (lock xadd on
 * x86). Exact. Relaxed: the add is atomic whatever the order.
 */
typedef sc_word_counter sc_fetchadd_t;
typedef sc_word_cfg sc_fetchadd_cfg;

static inline void sc_fetchadd_inc(sc_fetchadd_t *c, const sc_fetchadd_cfg *cfg, sc_thread *t)
{
	(void)cfg;
	(void)t;
	atomic_fetch_add_explicit(&c->v, 1, memory_order_relaxed);
}

/*
 * RBO (Dice §2.1): CAS with randomized exponential backoff after each
 * failure (sc_backoff; bounds backoff-min, backoff-max in pauses, defaults
 * 4 and 1024). Exact. After each wait it reloads the word before the next
 * CAS (as BFP does, Dice Fig. 2): the value the failed CAS handed back is
 * stale by then whenever anyone incremented during the wait, so retrying
 * with it would win only when all other threads are quiet.
 */
typedef sc_word_counter sc_rbo_t;
typedef sc_word_cfg sc_rbo_cfg;

static inline void sc_rbo_inc(sc_rbo_t *c, const sc_rbo_cfg *cfg, sc_thread *t)
{
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	uint32_t failures = 0;
	/* relaxed: as CAS. */
	while (!atomic_compare_exchange_weak_explicit(&c->v, &v, v + 1, memory_order_relaxed,
	                                              memory_order_relaxed)) {
		sc_backoff(&cfg->backoff, failures++, &t->rng);
		/* relaxed: reload after the wait (as BFP, Fig. 2); the CAS validates it. */
		v = atomic_load_explicit(&c->v, memory_order_relaxed);
	}
}

/*
 * Two of Dice §1's "minor variations" of the naive counters, there to be
 * measured against CAS and FetchAdd (the atomic add, the third one).
 *
 * CASPrefetch: CAS's retry loop after a prefetch of the counter's line for
 * writing. It asks for the line in a writable (exclusive) state before the
 * load, so that the CAS need not upgrade a line the load fetched shared. A
 * hint only: it changes no value and orders nothing. Exact, as CAS.
 *
 * The hint is prefetchw on x86-64, written out because GCC turns
 * __builtin_prefetch(p, 1, 3) into prefetchw only when told the CPU has it
 * (-mprfchw, -march=broadwell and later) and into the read prefetch
 * prefetcht0 otherwise; CPUs without it execute the opcode as a NOP.
 * Elsewhere __builtin_prefetch(p, 1, 3): PRFM PSTL1KEEP on aarch64.
 */
typedef sc_word_counter sc_cas_prefetch_t;
typedef sc_word_cfg sc_cas_prefetch_cfg;

static inline void sc_prefetch_for_write_(const void *p)
{
#if defined(__x86_64__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

static inline void sc_cas_prefetch_step_(sc_word_counter *c, uint64_t n)
{
	sc_prefetch_for_write_((const void *)&c->v);
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	/* relaxed: as CAS; the prefetch is no access in the C11 model. */
	while (!atomic_compare_exchange_weak_explicit(&c->v, &v, v + n, memory_order_relaxed,
	                                              memory_order_relaxed))
		;
}

static inline void sc_cas_prefetch_inc(sc_cas_prefetch_t *c, const sc_cas_prefetch_cfg *cfg,
                                       sc_thread *t)
{
	(void)cfg;
	(void)t;
	sc_cas_prefetch_step_(c, 1);
}

/*
 * CASOnce: one load and one compare-and-swap of value+1; a failed CAS is
 * ignored and the increment is lost (Dice §1, "ignoring CAS failures"). Kind:
 * racy, as Serial: under contention it loses updates by design, so it has no
 * bound. Each successful CAS adds exactly one to the value it replaced, so
 * the value never exceeds the true count and never goes backwards (unlike
 * Serial's store). A strong CAS, so that no spurious failure loses an
 * increment that met no other thread.
 */
typedef sc_word_counter sc_cas_once_t;
typedef sc_word_cfg sc_cas_once_cfg;

static inline void sc_cas_once_step_(sc_word_counter *c, uint64_t n)
{
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	/* relaxed: only the counter word is involved; a failure is dropped, lossy by design. */
	(void)atomic_compare_exchange_strong_explicit(&c->v, &v, v + n, memory_order_relaxed,
	                                              memory_order_relaxed);
}

static inline void sc_cas_once_inc(sc_cas_once_t *c, const sc_cas_once_cfg *cfg, sc_thread *t)
{
	(void)cfg;
	(void)t;
	sc_cas_once_step_(c, 1);
}

/*
 * add(n) for the six: the increment's own step with n in place of 1, so
 * the same contract holds (Serial and CASOnce may lose whole adds; the
 * others are exact and wrap modulo 2^64). Thread-safe as inc.
 */
static inline void sc_serial_add(sc_serial_t *c, const sc_serial_cfg *cfg, sc_thread *t,
                                 uint64_t n)
{
	(void)cfg;
	(void)t;
	/* relaxed: as sc_serial_inc, racy by design. */
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	atomic_store_explicit(&c->v, v + n, memory_order_relaxed);
}

static inline void sc_cas_add(sc_cas_t *c, const sc_cas_cfg *cfg, sc_thread *t, uint64_t n)
{
	(void)cfg;
	(void)t;
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	/* relaxed: as sc_cas_inc. */
	while (!atomic_compare_exchange_weak_explicit(&c->v, &v, v + n, memory_order_relaxed,
	                                              memory_order_relaxed))
		;
}

static inline void sc_fetchadd_add(sc_fetchadd_t *c, const sc_fetchadd_cfg *cfg, sc_thread *t,
                                   uint64_t n)
{
	(void)cfg;
	(void)t;
	/* relaxed: as sc_fetchadd_inc. */
	atomic_fetch_add_explicit(&c->v, n, memory_order_relaxed);
}

static inline void sc_rbo_add(sc_rbo_t *c, const sc_rbo_cfg *cfg, sc_thread *t, uint64_t n)
{
	uint64_t v = atomic_load_explicit(&c->v, memory_order_relaxed);
	uint32_t failures = 0;
	/* relaxed: as sc_rbo_inc. */
	while (!atomic_compare_exchange_weak_explicit(&c->v, &v, v + n, memory_order_relaxed,
	                                              memory_order_relaxed)) {
		sc_backoff(&cfg->backoff, failures++, &t->rng);
		/* relaxed: reload after the wait, as sc_rbo_inc. */
		v = atomic_load_explicit(&c->v, memory_order_relaxed);
	}
}

static inline void sc_cas_prefetch_add(sc_cas_prefetch_t *c, const sc_cas_prefetch_cfg *cfg,
                                       sc_thread *t, uint64_t n)
{
	(void)cfg;
	(void)t;
	sc_cas_prefetch_step_(c, n);
}

static inline void sc_cas_once_add(sc_cas_once_t *c, const sc_cas_once_cfg *cfg, sc_thread *t,
                                   uint64_t n)
{
	(void)cfg;
	(void)t;
	sc_cas_once_step_(c, n);
}

/* The common operations, stamped out for the six word counters. */
#define SC_WORD_OPS_(P)                                                                    \
	int sc_##P##_config(sc_##P##_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err); \
	static inline uint64_t sc_##P##_get(const sc_##P##_t *c, const sc_##P##_cfg *cfg)  \
	{                                                                                  \
		(void)cfg;                                                                 \
		return sc_word_get(c);                                                     \
	}                                                                                  \
	SC_OP_SIZEOF(P)                                                                    \
	SC_OP_WORD_INIT_RESET(P, v, 0)                                                     \
	SC_OPS_SELF_CONTAINED(P)                                                           \
	SC_OP_RANGE_FULL(P)                                                                \
	SC_OP_ONE_READING(P)

SC_WORD_OPS_(serial)
SC_WORD_OPS_(cas)
SC_WORD_OPS_(fetchadd)
SC_WORD_OPS_(rbo)
SC_WORD_OPS_(cas_prefetch)
SC_WORD_OPS_(cas_once)

/*
 * The contract (sc_contract.h): Serial and CASOnce have no bound (they lose
 * updates); the other four are exact, async-signal-safe (one atomic
 * instruction, or a CAS loop on one word) and exact in shared memory (their
 * one word is the whole counter). The two lossy ones promise only that a
 * forked child's copy holds what was counted before the fork (one word,
 * copied whole).
 */
SC_OP_BOUND_KIND(serial, SC_BOUND_NONE)
SC_OP_BOUND_EXACT(cas)
SC_OP_BOUND_EXACT(fetchadd)
SC_OP_BOUND_EXACT(rbo)
SC_OP_BOUND_EXACT(cas_prefetch)
SC_OP_BOUND_KIND(cas_once, SC_BOUND_NONE)
#define SC_WORD_PROMISES_ (SC_PROMISE_SIGNAL_SAFE | SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY)
enum {
	SC_PROMISES_serial = SC_PROMISE_FORK_EXACT,
	SC_PROMISES_cas = SC_WORD_PROMISES_,
	SC_PROMISES_fetchadd = SC_WORD_PROMISES_,
	SC_PROMISES_rbo = SC_WORD_PROMISES_,
	SC_PROMISES_cas_prefetch = SC_WORD_PROMISES_,
	SC_PROMISES_cas_once = SC_PROMISE_FORK_EXACT
};
#undef SC_WORD_PROMISES_

/* The handle inlines FetchAdd's increment (no context); the others need no hook. */
static inline sc_handle_path sc_fetchadd_handle_path_(const void *c, const void *cfg)
{
	(void)c;
	(void)cfg;
	return sc_path_of_kind_(SC_PATH_FETCHADD);
}
#define SC_HOOKS_serial SC_HOOKS_NONE
#define SC_HOOKS_cas SC_HOOKS_NONE
#define SC_HOOKS_fetchadd {.handle_path = sc_fetchadd_handle_path_}
#define SC_HOOKS_rbo SC_HOOKS_NONE
#define SC_HOOKS_cas_prefetch SC_HOOKS_NONE
#define SC_HOOKS_cas_once SC_HOOKS_NONE

/* describe: "" for all six; their only state is the value (get). */
SC_OP_NO_STATE_DESCRIBE(serial)
SC_OP_NO_STATE_DESCRIBE(cas)
SC_OP_NO_STATE_DESCRIBE(fetchadd)
SC_OP_NO_STATE_DESCRIBE(rbo)
SC_OP_NO_STATE_DESCRIBE(cas_prefetch)
SC_OP_NO_STATE_DESCRIBE(cas_once)

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_SIMPLE_H */
