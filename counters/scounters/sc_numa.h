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
 * component is an RBO counter alone on its line.
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
 * What all four share: config, init, reset and destroy are in numa.c, size
 * is the type's, flush does nothing. heap_bytes is each pair's own.
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
 * describe (numa.c; contract in scounters.h), keys:
 *   RBONuma         node=<id of the last increment's node, or none>;
 *                   priority=<node named in the anti-starvation variable, or none>
 *   RBONumaAdapt    mode=plain (no node recorded yet), or
 *                   mode=numa;node=<id>;priority=<id or none>
 *   Multiline       nodes=<components>;nonzero=<components written since reset>
 *   MultilineAdapt  mode=word, or mode=inflated;nodes=<n>;nonzero=<n>
 */
SC_OP_DECLARE_DESCRIBE(rbonuma)
SC_OP_DECLARE_DESCRIBE(rbonuma_adapt)
SC_OP_DECLARE_DESCRIBE(multiline)
SC_OP_DECLARE_DESCRIBE(multiline_adapt)

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_NUMA_H */
