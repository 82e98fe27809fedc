/* SPDX-License-Identifier: MIT */
/*
 * sc_multiline.h - Multiline and MultilineAdapt (Dice §2.2), the NUMA-aware
 * precise counters with one component per node: the family's contract is at
 * the top of sc_numa.h, which includes this header (include either).
 */
#ifndef SC_MULTILINE_H
#define SC_MULTILINE_H

#include "sc_numa.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* ------------------------------------------------------------------------ */
/* Multiline and MultilineAdapt (Dice §2.2)                                 */
/* ------------------------------------------------------------------------ */

/* At most this many nodes: a counter's components then take at most 64 KiB. */
#define SC_MULTILINE_MAX_NODES 1024u

/* One node's component: an RBO counter alone on its padding unit. */
typedef struct sc_multiline_part {
	alignas(SC_LINE_SIZE) sc_rbo_t rbo;
	char pad_[SC_LINE_SIZE - sizeof(sc_rbo_t)];
} sc_multiline_part;

SC_STATIC_ASSERT(sizeof(sc_multiline_part) == SC_LINE_SIZE, "one component per padding unit");

/* The components' sum, each read relaxed; the caller masks to its range. */
static inline uint64_t sc_multiline_sum(const sc_multiline_part *parts, uint32_t nodes)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < nodes; i++)
		sum += sc_word_get(&parts[i].rbo);
	return sum;
}

/*
 * Multiline (Dice §2.2). Kind: precise. One 64-bit component per node, each
 * on its own line, incremented by RBO (CAS with randomized backoff) by the
 * threads of that node only, so no line is written from two nodes. get sums
 * the components with relaxed loads (Dice's unsynchronized read): exact
 * when no increment runs, and during increments a value between the count
 * when get started and the count when it ended. Range 0 .. 2^64-1 (the sum
 * is taken modulo 2^64, so a wrap of any component or of the total gives 0
 * after 2^64-1, as for the central-word counters). Bytes per counter: nodes
 * lines, held inline: the counter is its components, with no pointer to
 * follow (Dice §5.3 credits Multiline's lead over MultilineAdapt in Fig. 5 to
 * that), so sc_multiline_size is nodes * SC_LINE_SIZE and an array of them
 * is packed at that stride.
 *
 * Its size depends on the configuration, so sc_multiline_t is deliberately
 * an incomplete type (as sc_scalable_t): a declared `sc_multiline_t c;`
 * does not compile. Point it at sc_multiline_size(cfg) bytes aligned to
 * SC_LINE_SIZE: sc_alloc_lines, or the sc_table helper for an array.
 *
 * Parameters: backoff-min, backoff-max. env.nodes must be 1 .. 1024.
 */
typedef struct sc_multiline_storage sc_multiline_t;

/* The components of c: nodes of them, from c on (see sc_multiline_size). */
static inline sc_multiline_part *sc_multiline_parts(sc_multiline_t *c)
{
	return (sc_multiline_part *)(void *)c;
}

static inline const sc_multiline_part *sc_multiline_cparts(const sc_multiline_t *c)
{
	return (const sc_multiline_part *)(const void *)c;
}

typedef struct sc_multiline_cfg {
	sc_rbo_cfg rbo;  /* each component's backoff bounds */
	uint32_t nodes;  /* env.nodes */
} sc_multiline_cfg;

static inline void sc_multiline_inc(sc_multiline_t *c, const sc_multiline_cfg *cfg, sc_thread *t)
{
	sc_rbo_inc(&sc_multiline_parts(c)[sc_numa_node(t, cfg->nodes)].rbo, &cfg->rbo, t);
}

static inline uint64_t sc_multiline_get(const sc_multiline_t *c, const sc_multiline_cfg *cfg)
{
	return sc_multiline_sum(sc_multiline_cparts(c), cfg->nodes);
}

/* add(n): RBO's add on the calling thread's component. Exact. */
static inline void sc_multiline_add(sc_multiline_t *c, const sc_multiline_cfg *cfg, sc_thread *t,
                                    uint64_t n)
{
	sc_rbo_add(&sc_multiline_parts(c)[sc_numa_node(t, cfg->nodes)].rbo, &cfg->rbo, t, n);
}

static inline size_t sc_multiline_heap_bytes(const sc_multiline_t *c, const sc_multiline_cfg *cfg)
{
	(void)c;
	(void)cfg;
	return 0;
}

static inline size_t sc_multiline_size(const sc_multiline_cfg *cfg)
{
	return (size_t)cfg->nodes * sizeof(sc_multiline_part);
}

/*
 * MultilineAdapt (Dice §2.2). Kind: precise. One 64-bit word whose bit 0 is
 * a tag:
 *   0: the word is value << 1, incremented by CAS with randomized backoff;
 *   1: the word (tag cleared) points to nodes components as Multiline's.
 * An increment that fails more than inflate-after CAS attempts (default 4,
 * as Dice) inflates: it allocates the components, puts the current value in
 * component 0 and swings the word from that value to the tagged pointer. If
 * that CAS loses (the value moved, or another thread inflated first) it frees
 * its components and retries as before. If the allocation fails the counter
 * simply stays a single word. Inflation is for good; reset keeps it and
 * zeroes the components. The word is never written again once it holds the
 * pointer, so a packed array of these suffers no false sharing after
 * inflation (Dice §5.3).
 *
 * Error contract: exact, get returns the number of completed increments
 * modulo 2^63 (the value form's range 0 .. 2^63-1; the inflated sum is
 * masked to the same range so the counter wraps to 0 after 2^63-1 either
 * way), during increments as Multiline. Bytes per counter: 8, packed; plus
 * nodes lines once inflated.
 *
 * Parameters: backoff-min, backoff-max, inflate-after (0 .. 2^20; 0
 * inflates on the first failed CAS). env.nodes must be 1 .. 1024.
 */
#define SC_MULTILINE_ADAPT_INFLATED 1u
#define SC_MULTILINE_ADAPT_VALUE_MASK (UINT64_MAX >> 1)
#define SC_MULTILINE_ADAPT_INFLATE_AFTER_DEFAULT 4u
#define SC_MULTILINE_ADAPT_INFLATE_AFTER_MAX (1u << 20)

typedef struct sc_multiline_adapt {
	SC_ATOMIC(uint64_t) w;
} sc_multiline_adapt_t;

typedef struct sc_multiline_adapt_cfg {
	sc_rbo_cfg rbo;         /* backoff bounds, before and after inflation */
	uint32_t nodes;         /* env.nodes */
	uint32_t inflate_after; /* failed CAS attempts tolerated before inflating */
} sc_multiline_adapt_cfg;

static inline bool sc_multiline_adapt_word_inflated(uint64_t w)
{
	return (w & SC_MULTILINE_ADAPT_INFLATED) != 0;
}

static inline sc_multiline_part *sc_multiline_adapt_word_parts(uint64_t w)
{
	return (sc_multiline_part *)(uintptr_t)(w & ~(uint64_t)SC_MULTILINE_ADAPT_INFLATED);
}

/*
 * Inflate c now if it is not inflated yet (the step an increment takes under
 * contention; exposed so that tests and callers can force it). Keeps the
 * value. Safe while other threads increment. true when c is inflated on
 * return, false if the allocation failed.
 */
bool sc_multiline_adapt_inflate(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg);

void sc_multiline_adapt_inc_slow(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg,
                                 sc_thread *t, uint64_t w);

static inline void sc_multiline_adapt_inc(sc_multiline_adapt_t *c,
                                          const sc_multiline_adapt_cfg *cfg, sc_thread *t)
{
	/*
	 * acquire: if the word holds the pointer, the components it points to
	 * were initialised before the inflating CAS (release) that stored it.
	 */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_acquire);
	if (sc_multiline_adapt_word_inflated(w)) {
		sc_rbo_inc(&sc_multiline_adapt_word_parts(w)[sc_numa_node(t, cfg->nodes)].rbo,
		           &cfg->rbo, t);
		return;
	}
	/*
	 * acquire on failure: the word handed back may be the pointer (as
	 * above). C11 wants the success order at least as strong as the failure
	 * order, hence acquire there too; it orders nothing we rely on.
	 */
	if (atomic_compare_exchange_weak_explicit(&c->w, &w, w + 2, memory_order_acquire,
	                                          memory_order_acquire))
		return;
	sc_multiline_adapt_inc_slow(c, cfg, t, w);
}

static inline uint64_t sc_multiline_adapt_get(const sc_multiline_adapt_t *c,
                                              const sc_multiline_adapt_cfg *cfg)
{
	/* acquire: as in inc, a pointer must come with its initialised components. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_acquire);
	if (!sc_multiline_adapt_word_inflated(w))
		return w >> 1;
	return sc_multiline_sum(sc_multiline_adapt_word_parts(w), cfg->nodes) &
	       SC_MULTILINE_ADAPT_VALUE_MASK;
}

/*
 * add(n): one CAS of value + n (modulo 2^63) on the word, with backoff; once
 * inflated, RBO's add on the calling thread's component. Exact. An add
 * never inflates the counter: only increments measure contention.
 */
void sc_multiline_adapt_add(sc_multiline_adapt_t *c, const sc_multiline_adapt_cfg *cfg,
                            sc_thread *t, uint64_t n);

static inline size_t sc_multiline_adapt_heap_bytes(const sc_multiline_adapt_t *c,
                                                   const sc_multiline_adapt_cfg *cfg)
{
	/* relaxed: only the tag is looked at, the components are not read. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	return sc_multiline_adapt_word_inflated(w) ? (size_t)cfg->nodes * sizeof(sc_multiline_part)
	                                           : 0;
}

SC_OP_DECLARE_OUT_OF_LINE(multiline)
SC_OP_NO_FLUSH(multiline)
SC_NUMA_OPS_(multiline_adapt)
SC_OP_RANGE_FULL(multiline)

/* Range: the value form's 2^63 - 1 (the inflated sum is masked to it too). */
static inline uint64_t sc_multiline_adapt_range(const sc_multiline_adapt_cfg *cfg)
{
	(void)cfg;
	return SC_MULTILINE_ADAPT_VALUE_MASK;
}

/*
 * describe (multiline.c; contract in scounters.h), keys:
 *   Multiline       nodes=<components>;nonzero=<components written since reset>
 *   MultilineAdapt  mode=word, or mode=inflated;nodes=<n>;nonzero=<n>
 */
SC_OP_DECLARE_DESCRIBE(multiline)
SC_OP_DECLARE_DESCRIBE(multiline_adapt)

/*
 * The contract (sc_contract.h): exact; the components are on the heap
 * (Multiline, and MultilineAdapt once inflated, which allocates: not
 * async-signal-safe), so not for shared memory.
 */
SC_OP_ONE_READING(multiline)
SC_OP_ONE_READING(multiline_adapt)
SC_OP_BOUND_EXACT(multiline)
SC_OP_BOUND_EXACT(multiline_adapt)
enum {
	SC_PROMISES_multiline = SC_PROMISE_FORK_EXACT,
	SC_PROMISES_multiline_adapt = SC_PROMISE_FORK_EXACT
};
/* The increments read the thread's node (sc_numa_handle_path_, sc_numa.h). */
#define SC_HOOKS_multiline {.handle_path = sc_numa_handle_path_}
#define SC_HOOKS_multiline_adapt {.handle_path = sc_numa_handle_path_}

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_MULTILINE_H */
