/* SPDX-License-Identifier: MIT */
/*
 * sc_numa.h - the NUMA-aware precise counters of Dice §2.1-2.2: RBONuma,
 * RBONumaAdapt, Multiline and MultilineAdapt.
 *
 * All four are exact under any number of threads: every increment is one
 * successful CAS on a word or a component, and nothing is ever dropped. They
 * differ in how they keep the counter's cache line on one node:
 *   RBONuma(Adapt)    one 32-bit word that also records the node of the last
 *                     increment; other nodes hold off (Dice §2.1)
 *   Multiline(Adapt)  one component per node, each on its own line (§2.2)
 *
 * Node ids come from the thread context (t->node, real or virtual) and must
 * be 0 .. env.nodes-1. An id outside that range is folded into it (node %
 * nodes): that can only weaken the locality heuristics, never the count, and
 * never touches memory or bits outside the counter.
 *
 * Multiline and MultilineAdapt build on RBO (simple.h): each per-node
 * component is an RBO counter alone on its line. This header holds what
 * all four share and RBONuma's pair; sc_multiline.h (included at the end)
 * holds Multiline's.
 */
#ifndef SC_NUMA_H
#define SC_NUMA_H

#include "sc_common.h"
#include "sc_simple.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* The calling thread's node, folded into 0 .. nodes-1 (a compare when in range). */
static inline uint32_t sc_numa_node(const sc_thread *t, uint32_t nodes)
{
	uint32_t n = t->node;
	return n < nodes ? n : n % nodes;
}

/* ------------------------------------------------------------------------ */
/* RBONuma and RBONumaAdapt (Dice §2.1)                                     */
/* ------------------------------------------------------------------------ */

/*
 * The 32-bit word, nb = ceil(log2 nodes) (0 for one node):
 *
 *   bit 31           flag: a node is recorded
 *   bits 31-nb..30   id of the node of the last increment (meaningful if flag)
 *   bits 0..30-nb    the value
 *
 * Range 0 .. 2^(31-nb)-1 (2^29-1 for 4 nodes, as in Dice). An increment at
 * the top wraps the value to 0; the carry never reaches the node bits or the
 * flag. At most SC_RBONUMA_MAX_NODES nodes, so that at least 23 value bits
 * (about 8.4 million) remain; config rejects more.
 */
#define SC_RBONUMA_FLAG 0x80000000u
#define SC_RBONUMA_MAX_NODES 256u

/* The anti-starvation variable's value when no node asks for priority. */
#define SC_RBONUMA_NOBODY UINT32_MAX

/*
 * patience: slow-path rounds (one wait and one CAS each) a thread spends
 * before it becomes impatient. The paper gives no number; 8 rounds of
 * exponential backoff are some thousands of pauses, long enough that
 * impatience stays the exception at the default backoff bounds.
 */
#define SC_RBONUMA_PATIENCE_DEFAULT 8u
#define SC_RBONUMA_PATIENCE_MAX (1u << 20)

/*
 * Holding off for another node lasts this many backoff windows of the
 * current round (instead of the one window of an ordinary retry), checking
 * the anti-starvation variable between windows.
 */
#define SC_RBONUMA_HOLD_WINDOWS 4u

/* RBONumaAdapt records its node after 3 quick tries and 16 with backoff (Dice §2.1). */
#define SC_RBONUMA_ADAPT_QUICK_TRIES 3u
#define SC_RBONUMA_ADAPT_BACKOFF_TRIES 16u

typedef struct sc_rbonuma {
	SC_ATOMIC(uint32_t) w;
} sc_rbonuma_t;

/*
 * Per-class configuration. The anti-starvation variable is the one field
 * written after config: Dice's footnote allows one such variable for many
 * counters, so every counter of a class shares this one. It names the node
 * of an impatient thread, or SC_RBONUMA_NOBODY, and sits alone on its line
 * so that its rare writes do not evict the read-only fields below.
 *
 * The operations take the configuration const like every variant's; the
 * variable is reached through sc_rbonuma_anti(), which casts the const away.
 * That is defined because no configuration can be a const object: config
 * writes it.
 */
typedef struct sc_rbonuma_cfg {
	alignas(SC_LINE_SIZE) SC_ATOMIC(uint32_t) anti;
	char anti_pad_[SC_LINE_SIZE - sizeof(SC_ATOMIC(uint32_t))];
	sc_backoff_cfg backoff; /* backoff-min, backoff-max */
	uint32_t patience;      /* rounds before a thread is impatient */
	uint32_t nodes;         /* env.nodes */
	uint32_t node_shift;    /* 31 - nb: the number of value bits */
	uint32_t value_mask;    /* 2^(31-nb) - 1 */
} sc_rbonuma_cfg;

static inline SC_ATOMIC(uint32_t) *sc_rbonuma_anti(const sc_rbonuma_cfg *cfg)
{
	return (SC_ATOMIC(uint32_t) *)&cfg->anti;
}

/* Decoding a word (also for tests and diagnostics). */
static inline uint32_t sc_rbonuma_word_value(const sc_rbonuma_cfg *cfg, uint32_t w)
{
	return w & cfg->value_mask;
}

static inline bool sc_rbonuma_word_recorded(uint32_t w)
{
	return (w & SC_RBONUMA_FLAG) != 0;
}

static inline uint32_t sc_rbonuma_word_node(const sc_rbonuma_cfg *cfg, uint32_t w)
{
	return (w & ~SC_RBONUMA_FLAG) >> cfg->node_shift;
}

/* The flag and node bits an increment by a thread of `node` writes. */
static inline uint32_t sc_rbonuma_tag(const sc_rbonuma_cfg *cfg, uint32_t node)
{
	return SC_RBONUMA_FLAG | node << cfg->node_shift;
}

/* One CAS from *w to value+1 with the given tag; on failure *w is the current word. */
static inline bool sc_rbonuma_try(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, uint32_t *w,
                                  uint32_t tag)
{
	/* relaxed: the word orders no other data; a failed CAS hands back the current word. */
	return atomic_compare_exchange_weak_explicit(&c->w, w, ((*w + 1) & cfg->value_mask) | tag,
	                                             memory_order_relaxed, memory_order_relaxed);
}

/* Slow paths (numa.c). */
void sc_rbonuma_inc_slow(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_thread *t, uint32_t w);
void sc_rbonuma_served(const sc_rbonuma_cfg *cfg, uint32_t node);

/*
 * RBONuma (Dice §2.1). Kind: precise. Error contract: exact; get returns
 * the number of completed increments modulo 2^(31-nb), and during
 * increments some value the counter held. Bytes per counter: 4, padded to
 * one line in arrays; plus one line per class (the anti-starvation variable).
 *
 * Every increment writes the thread's node into the word. After a failed
 * CAS a thread whose node is not the recorded one holds off (several backoff
 * windows) before it retries, so that the line tends to stay on one node for
 * consecutive increments. A thread that has spent `patience` rounds becomes
 * impatient and, if no node is named yet, names its own in the class's
 * anti-starvation variable. While a node is named, threads of other nodes
 * hold off even before their first try, and threads of the named node stop
 * waiting and try at once; the first of them to succeed clears the name.
 * Holding off is bounded (the thread tries after the wait whatever it
 * sees), so the counter stays non-blocking. The word starts at 0 with no
 * node recorded (nobody holds off for it); reset zeroes the value and keeps
 * the recorded node, as RBONumaAdapt's reset does.
 *
 * Parameters: backoff-min, backoff-max (pauses, as RBO), patience (rounds,
 * default 8, 1 .. 2^20). env.nodes must be 1 .. 256.
 */
/* RBONuma's increment from the word w just loaded (shared with RBONumaAdapt). */
static inline void sc_rbonuma_inc_from_(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_thread *t,
                                        uint32_t w)
{
	uint32_t me = sc_numa_node(t, cfg->nodes);
	/* relaxed: the variable is a hint; a stale name only delays or hurries one try. */
	uint32_t anti = atomic_load_explicit(sc_rbonuma_anti(cfg), memory_order_relaxed);
	if ((anti == SC_RBONUMA_NOBODY || anti == me) &&
	    sc_rbonuma_try(c, cfg, &w, sc_rbonuma_tag(cfg, me))) {
		if (anti == me)
			sc_rbonuma_served(cfg, me);
		return;
	}
	sc_rbonuma_inc_slow(c, cfg, t, w);
}

static inline void sc_rbonuma_inc(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_thread *t)
{
	/* relaxed: the CAS checks the word. */
	sc_rbonuma_inc_from_(c, cfg, t, atomic_load_explicit(&c->w, memory_order_relaxed));
}

static inline uint64_t sc_rbonuma_get(const sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg)
{
	/* relaxed: a statistics counter orders nothing else (as simple.h). */
	return sc_rbonuma_word_value(cfg, atomic_load_explicit(&c->w, memory_order_relaxed));
}

/*
 * RBONumaAdapt (Dice §2.1). Kind: precise. Same word, range, overflow,
 * error contract and bytes as RBONuma. It starts with the flag clear; while
 * it is clear an increment is a plain CAS with randomized backoff that never
 * reads the anti-starvation variable (and keeps the node bits 0). A thread
 * whose increment fails 3 quick tries and then 16 tries with backoff records
 * its node (sets the flag); from then on every thread sees the flag and the
 * counter is an RBONuma. Reset zeroes the value but keeps the flag and node:
 * a benchmark resets after its warm-up, and its measured phase should see
 * the state the counter adapted to, not start over as a plain counter.
 *
 * Parameters and limits as RBONuma (patience applies once the node is
 * recorded).
 */
typedef sc_rbonuma_t sc_rbonuma_adapt_t;
typedef sc_rbonuma_cfg sc_rbonuma_adapt_cfg;

void sc_rbonuma_adapt_inc_slow(sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg,
                               sc_thread *t, uint32_t w);

static inline void sc_rbonuma_adapt_inc(sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg,
                                        sc_thread *t)
{
	/* relaxed: the CAS below checks the word. */
	uint32_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	/*
	 * Once a node is recorded, RBONuma's fast path inline, from the word
	 * already loaded (no call, no second load of the word).
	 */
	if (sc_rbonuma_word_recorded(w)) {
		sc_rbonuma_inc_from_(c, cfg, t, w);
		return;
	}
	/* An unrecorded word has only value bits, so value+1 with tag 0 is the whole new word. */
	if (sc_rbonuma_try(c, cfg, &w, 0))
		return;
	sc_rbonuma_adapt_inc_slow(c, cfg, t, w);
}

static inline uint64_t sc_rbonuma_adapt_get(const sc_rbonuma_adapt_t *c,
                                            const sc_rbonuma_adapt_cfg *cfg)
{
	return sc_rbonuma_get(c, cfg);
}

/*
 * add(n), both variants: one CAS of value + n (modulo the range) with the
 * calling thread's node recorded as an increment records it (RBONumaAdapt:
 * only once a node is recorded), retried with randomized backoff. Exact.
 * An add does not take part in the hold-off and anti-starvation protocol:
 * it is one update however large n is, rare next to increments.
 */
void sc_rbonuma_add(sc_rbonuma_t *c, const sc_rbonuma_cfg *cfg, sc_thread *t, uint64_t n);
void sc_rbonuma_adapt_add(sc_rbonuma_adapt_t *c, const sc_rbonuma_adapt_cfg *cfg, sc_thread *t,
                          uint64_t n);

/*
 * What all four share: config, init, reset and destroy are in numa.c and
 * multiline.c, size is the type's, flush does nothing. heap_bytes is each
 * pair's own.
 */
#define SC_NUMA_OPS_(P)                                                                    \
	SC_OP_DECLARE_OUT_OF_LINE(P)                                                       \
	SC_OP_SIZEOF(P)                                                                    \
	SC_OP_NO_FLUSH(P)

SC_NUMA_OPS_(rbonuma)
SC_NUMA_OPS_(rbonuma_adapt)
SC_OP_NO_HEAP(rbonuma)
SC_OP_NO_HEAP(rbonuma_adapt)

/* Range: the value bits, 2^(31-nb) - 1 (2^31 - 1 on one node, 2^23 - 1 on 256). */
static inline uint64_t sc_rbonuma_range(const sc_rbonuma_cfg *cfg)
{
	return cfg->value_mask;
}

static inline uint64_t sc_rbonuma_adapt_range(const sc_rbonuma_adapt_cfg *cfg)
{
	return cfg->value_mask;
}

/*
 * describe (numa.c; contract in scounters.h), keys:
 *   RBONuma         node=<id of the last increment's node, or none>;
 *                   priority=<node named in the anti-starvation variable, or none>
 *   RBONumaAdapt    mode=plain (no node recorded yet), or
 *                   mode=numa;node=<id>;priority=<id or none>
 */
SC_OP_DECLARE_DESCRIBE(rbonuma)
SC_OP_DECLARE_DESCRIBE(rbonuma_adapt)

/*
 * The contract (sc_contract.h): exact (CAS on one 32-bit word), exact in
 * shared memory (the word is the counter; the anti-starvation word of the
 * configuration only steers who waits); not async-signal-safe (a thread's
 * node is refreshed from the kernel through the library).
 */
SC_OP_ONE_READING(rbonuma)
SC_OP_ONE_READING(rbonuma_adapt)
SC_OP_BOUND_EXACT(rbonuma)
SC_OP_BOUND_EXACT(rbonuma_adapt)
enum {
	SC_PROMISES_rbonuma = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY,
	SC_PROMISES_rbonuma_adapt = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY
};

/* The increments read the thread's node: the handle's context comes from the library. */
static inline sc_handle_path sc_numa_handle_path_(const void *c, const void *cfg)
{
	(void)c;
	(void)cfg;
	return sc_path_of_kind_(SC_PATH_NODE);
}
#define SC_HOOKS_rbonuma {.handle_path = sc_numa_handle_path_}
#define SC_HOOKS_rbonuma_adapt {.handle_path = sc_numa_handle_path_}

SC_API_END
#ifdef __cplusplus
}
#endif

/* Multiline and MultilineAdapt, the family's other half. */
#include "sc_multiline.h"

#endif /* SC_NUMA_H */
