/* SPDX-License-Identifier: MIT */
/*
 * sc_tree.h - PerCPUTree: a per-CPU counter whose approximate value is one
 * load, with the interval in which the exact sum must lie (the design of
 * Linux's hierarchical per-CPU counters, percpu_counter_tree, by Mathieu
 * Desnoyers; written here from the design's published facts).
 *
 * Words. Level 0 holds one 64-bit word per CPU (cpus of them, each on its
 * own line) and an overflow word; above them, levels 1 .. levels hold carry
 * words, one line each, the last level being one word, the root. The exact
 * value is the sum of the level-0 words modulo 2^64 (get_sum, O(CPUs)).
 *
 * Batches. Level l has the batch b_l = batch x 2^l (batch a power of two,
 * parameter `batch`, default SC_TREE_BATCH_DEFAULT: the batch doubles per
 * level). An add of v to a word w of level l < levels that changes
 * floor(w / b_l) carries the change, (new - new mod b_l) - (old - old mod
 * b_l), to w's parent with an atomic fetch-and-add, which may carry on in
 * turn; the overflow word carries straight into the root. So every word
 * but the root keeps a residue w mod b_l in 0 .. b_l - 1 that has not
 * reached its parent, and (modulo 2^64)
 *
 *     exact = root + sum of residues (+ carries in flight, see below)
 *
 * The approximate value is the root: get_fast, one relaxed load, whatever
 * the number of CPUs; the exact value then lies in [root, root + width],
 * width = sum over the non-root words of (b_l - 1) (cfg->width): for a
 * binary tree over N CPUs it is at most batch x N x log2(N) + batch - 1,
 * the bound of the design's paper: with the default batch 512, 1533 at 2
 * CPUs, 33249 at 16, 1048577 at 256.
 *
 * The default batch. The batch sets both the carry rate (a level-0 word
 * carries once per batch increments) and the width (proportional to it).
 * A carry to a word that other CPUs also carry to moves that line between
 * cores (about 60-100 ns measured on a 2-vCPU AMD Zen 3 guest): there
 * PerCPUTree's increment cost PerCPU's x 1.35 at 2 threads with batch 64,
 * x 1.14 and x 1.08 with 256, x 1.03 with 512 and 1024, x 0.99 with 4096.
 * 512 is the default; a smaller batch narrows the interval at that cost.
 *
 * Carries in flight. A thread adds to its CPU's word first and carries
 * after; between the two (a few instructions, or longer if it is
 * preempted there) its carry is counted in the exact sum but not yet in
 * the root. So while updates run, root <= updates begun always holds, and
 * root >= updates completed before the read - width - (threads between
 * their add and the end of their carry) x cfg->carry_max (the largest
 * carry an increment makes, batch x 2^(levels - 1); an add(n) may carry up
 * to n more). Once no update is in its carry (the updating threads joined,
 * or between updates), the interval holds exactly.
 *
 * Shape. By default each carry word has `arity` children (parameter, 2 ..
 * 64, default 2), CPU c's parent being carry word c / arity of level 1. A
 * machine's shape (hwloc's cores, caches and NUMA nodes: the caller
 * computes it; the library depends on nothing) is passed to
 * sc_percpu_tree_config_shape as the CPUs in topology order and the
 * fan-out of each level, so that CPUs sharing a core or cache share their
 * first carry words; sc_table_create_shaped passes it (an sc_cpu_shape)
 * to a table's PerCPUTree counters given no arity.
 *
 * Increment. A restartable sequence (the rseq area glibc registers, as
 * sc_rseq.h's) adds v to the word of the calling thread's cpu_id with a
 * plain load and store and hands back the word's previous value, from
 * which the carry is decided: exact under preemption, migration, signals
 * and any number of threads. It indexes by cpu_id, not mm_cid, so that the
 * tree's groups are the machine's. A cpu_id >= cpus, or a thread without a
 * registered area, adds to the overflow word with a fetch-and-add. Where
 * sc_percpu_path() is "lock" (no rseq, or SCOUNTERS_PERCPU=lock) every add
 * is a fetch-and-add on the word of sched_getcpu(). The carry, once per
 * batch, is a call into the library.
 *
 * Range: 2^64, wrapping (sums, residues and the interval are modulo 2^64).
 * Errors: config fails when cpus exceed SC_TREE_MAX_CPUS, batch is not a
 * power of two in 1 .. 2^20, arity is outside 2 .. 64, or the tree would
 * need more than SC_TREE_MAX_LEVELS levels; init fails when out of memory.
 * Bytes per counter: a pointer (8) in the array, packed, plus (cpus + 1 +
 * carry words) x SC_LINE_SIZE on the heap.
 *
 * Thread-safety: inc, add, get, get_fast, get_sum and the comparisons may
 * run concurrently on any threads; reset only while nothing updates.
 */
#ifndef SC_TREE_H
#define SC_TREE_H

#include "sc_common.h"
#include "sc_rseq.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

#define SC_TREE_MAX_CPUS (1u << 16)
#define SC_TREE_MAX_LEVELS 24
#define SC_TREE_BATCH_DEFAULT 512u
#define SC_TREE_ARITY_DEFAULT 2u

typedef struct sc_percpu_tree {
	/*
	 * cpus + 1 + cfg->nodes padded words: the CPUs' words, the overflow
	 * word, then the carry words level by level, the root last. The
	 * pointer is read-only after init.
	 */
	sc_padded_u64 *words;
} sc_percpu_tree_t;

typedef struct sc_percpu_tree_cfg {
	uint32_t cpus;        /* level-0 CPU words */
	uint32_t batch_shift; /* log2 of the level-0 batch */
	uint32_t levels;      /* carry levels, the root's included (>= 1) */
	uint32_t nodes;       /* carry words, the root's included */
	uint32_t root;        /* the root's word: cpus + nodes */
	uint32_t fanout[SC_TREE_MAX_LEVELS]; /* children of a word of level l + 1 */
	uint32_t first[SC_TREE_MAX_LEVELS + 1]; /* level l's first carry word (l >= 1) */
	uint64_t width;       /* the interval's width: sum of (b_l - 1) over non-root words */
	uint64_t carry_max;   /* the largest carry of one increment: batch << (levels - 1) */
	uint64_t carry_mask;  /* ~(batch - 1): a level-0 word crosses its batch when these bits change */
	/* NULL (CPU c is leaf c), or the caller's map from CPU to leaf position */
	const uint32_t *order;
} sc_percpu_tree_cfg;

/* An interval [lo, lo + width] modulo 2^64: hi = lo + width, wrapped. */
typedef struct sc_tree_interval {
	uint64_t lo;
	uint64_t hi;
} sc_tree_interval;

SC_OP_DECLARE_OUT_OF_LINE(percpu_tree)
size_t sc_percpu_tree_heap_bytes(const sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg);
SC_OP_SIZEOF(percpu_tree)
SC_OP_RANGE_FULL(percpu_tree)
SC_OP_NO_FLUSH(percpu_tree)
/*
 * describe keys: path=<rseq-cpu_id or lock>;cpus=<CPU words>;levels=<carry
 * levels>;nodes=<carry words>;fanout=<children per word, level by level from
 * the CPUs up, "2x8x2x4">;order=<machine: the caller's CPU order, or ids: CPU
 * c is leaf c>;batch=<level-0 batch>;width=<the interval's width>;root=<the
 * root's value>.
 */
SC_OP_DECLARE_DESCRIBE(percpu_tree)

/*
 * Configure for the machine's shape: cpus CPU words (0: the OS's count), the
 * level-0 batch (a power of two, 1 .. 2^20), order (NULL, or order[c] =
 * CPU c's position among the leaves, a permutation of 0 .. cpus-1 that the
 * caller keeps alive as long as any counter of cfg) and nlevels fan-outs
 * from the CPUs up (fanout[0]: CPUs per first-level carry word, each >= 2);
 * when the fan-outs end before one word remains, one more level, the root,
 * takes all that remain. 0, or -1 with err set. Not thread-safe with uses
 * of cfg.
 */
int sc_percpu_tree_config_shape(sc_percpu_tree_cfg *cfg, uint32_t cpus, uint32_t batch,
                                const uint32_t *order, const uint32_t *fanout, uint32_t nlevels,
                                sc_err *err);

/* The carry of an add, once per batch (tree.c): propagate `carry` above level-0 word `leaf`. */
void sc_percpu_tree_carry_(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg, uint32_t leaf,
                           uint64_t carry);
/* The add where the inlined sequence is not taken (tree.c): the same contract as add. */
void sc_percpu_tree_add_slow_(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg, uint64_t v);

/* The carry of a word that went from old to old + v under batch 2^shift: 0 if none. */
static inline uint64_t sc_tree_carry_of_(uint64_t old, uint64_t v, uint32_t shift)
{
	uint64_t mask = ~((UINT64_C(1) << shift) - 1);
	return ((old + v) & mask) - (old & mask);
}

/*
 * Add v (modulo 2^64) to the counter: v to the calling CPU's word, then
 * the carry if the word crossed a multiple of the batch. Exact; thread-safe
 * with every other operation but reset and destroy; never fails.
 */
SC_ALWAYS_INLINE void sc_percpu_tree_add(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg,
                                         sc_thread *t, uint64_t v)
{
	(void)t;
#if SC_RSEQ_INLINE
	/*
	 * The process's path (sc_rseq.h): relaxed, written once with a CAS; 0
	 * (not chosen) takes the library's path, which chooses it.
	 */
	uint64_t where = atomic_load_explicit(&sc_rseq_where_, memory_order_relaxed);
	if (__builtin_expect((where & SC_RSEQ_ON_) != 0, 1)) {
		unsigned char *area = sc_rseq_area_(where);
		unsigned char *slot0 = (unsigned char *)(void *)c->words;
		/* taken before the sequence, whose "memory" clobber would reload them */
		uint32_t cpus = cfg->cpus;
		uint64_t mask = cfg->carry_mask, off, old, now;
		/*
		 * The sequence (sc_rseq.h) adds v to the word of the area's
		 * cpu_id and hands back its previous and new values; an
		 * unregistered area's cpu_id, or one >= cpus, writes nothing and
		 * adds to the overflow word below.
		 */
		SC_RSEQ_FETCH_ADD_CPU_ID_LINE_(area, slot0, cpus, v, off, old, now, overflow);
		if (0) {
		overflow:
			off = (uint64_t)cpus << SC_RSEQ_LINE_SHIFT_;
			/* relaxed: the overflow word's adds are atomic whatever the order. */
			old = atomic_fetch_add_explicit(&c->words[cpus].v, v, memory_order_relaxed);
			now = old + v;
		}
		/* the batch's bits changed: carry their change (sc_tree_carry_of_) */
		if (__builtin_expect(((old ^ now) & mask) != 0, 0))
			sc_percpu_tree_carry_(c, cfg, (uint32_t)(off >> SC_RSEQ_LINE_SHIFT_),
			                      (now & mask) - (old & mask));
		return;
	}
#endif
	sc_percpu_tree_add_slow_(c, cfg, v);
}

static inline void sc_percpu_tree_inc(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg,
                                      sc_thread *t)
{
	sc_percpu_tree_add(c, cfg, t, 1);
}

/*
 * Test builds count the loads of the readings by defining SC_TREE_LOAD(x)
 * before including this header (tests/test_tree.c): every memory load
 * get_fast, get_sum and the comparisons make is an SC_TREE_LOAD.
 */
#ifndef SC_TREE_LOAD
#define SC_TREE_LOAD(x) (x)
#endif

/*
 * The approximate value, the root, with the interval of the exact value in
 * *iv (may be NULL): [root, root + width] modulo 2^64, under the contract
 * above (exact once no carry is in flight). Three loads whatever the CPU
 * count: the root's index and the width from cfg, and the root.
 * Thread-safe; never fails.
 */
static inline uint64_t sc_percpu_tree_get_fast(const sc_percpu_tree_t *c,
                                               const sc_percpu_tree_cfg *cfg,
                                               sc_tree_interval *iv)
{
	uint32_t at = SC_TREE_LOAD(cfg->root);
	uint64_t width = SC_TREE_LOAD(cfg->width);
	/* relaxed: the root is one sum of carries; the reading orders nothing. */
	uint64_t root = SC_TREE_LOAD(atomic_load_explicit(&c->words[at].v, memory_order_relaxed));
	if (iv) {
		iv->lo = root;
		iv->hi = root + width;
	}
	return root;
}

/*
 * The exact value: the level-0 words summed with relaxed loads (cpus + 1
 * of them), as PerCPU's get: it contains every add that happened before
 * it began and may contain some that run concurrently. Thread-safe.
 */
static inline uint64_t sc_percpu_tree_get_sum(const sc_percpu_tree_t *c,
                                              const sc_percpu_tree_cfg *cfg)
{
	uint64_t sum = 0;
	uint32_t cpus = SC_TREE_LOAD(cfg->cpus);
	for (uint32_t i = 0; i <= cpus; i++)
		/* relaxed: each word is a sum of adds; the sum orders nothing. */
		sum += SC_TREE_LOAD(atomic_load_explicit(&c->words[i].v, memory_order_relaxed));
	return sum;
}

/* get, the variant's one reading for the registry: the exact sum. */
static inline uint64_t sc_percpu_tree_get(const sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg)
{
	return sc_percpu_tree_get_sum(c, cfg);
}

/* -1, 0 or +1: the sign of v - x. */
static inline int sc_tree_sign_(uint64_t v, uint64_t x)
{
	return v < x ? -1 : v > x;
}

/*
 * Whether the counter's value is below (-1), equal to (0) or above (+1) x:
 * +1 from the root alone when it exceeds x (the root never exceeds the
 * updates begun), else the sign of get_sum - x. Not -1 from root + width
 * < x: while updates run, each thread between its add and the end of its
 * carry holds up to carry_max beyond the interval (see "Carries in
 * flight"), and the number of such threads has no bound. So a -1 means
 * fewer than x updates had completed before the call, a +1 that more than
 * x had begun, under any load. Thread-safe; never fails.
 */
static inline int sc_percpu_tree_compare_value(const sc_percpu_tree_t *c,
                                               const sc_percpu_tree_cfg *cfg, uint64_t x)
{
	if (sc_percpu_tree_get_fast(c, cfg, NULL) > x)
		return 1;
	return sc_tree_sign_(sc_percpu_tree_get_sum(c, cfg), x);
}

/*
 * Compare two counters' values: -1, 0 or +1 as a's is below, equal to or
 * above b's, decided from the two intervals when they do not overlap (six
 * loads), from the two exact sums when they do (then only, the O(CPUs)
 * readings). Exact when neither counter is updated during the call.
 * Thread-safe; never fails.
 */
static inline int sc_percpu_tree_compare(const sc_percpu_tree_t *a,
                                         const sc_percpu_tree_cfg *cfg_a,
                                         const sc_percpu_tree_t *b,
                                         const sc_percpu_tree_cfg *cfg_b)
{
	sc_tree_interval ia, ib;
	sc_percpu_tree_get_fast(a, cfg_a, &ia);
	sc_percpu_tree_get_fast(b, cfg_b, &ib);
	if (ia.hi >= ia.lo && ib.hi >= ib.lo) {
		if (ia.lo > ib.hi)
			return 1;
		if (ia.hi < ib.lo)
			return -1;
	}
	return sc_tree_sign_(sc_percpu_tree_get_sum(a, cfg_a), sc_percpu_tree_get_sum(b, cfg_b));
}

/*
 * The contract (sc_contract.h): the root trails the exact sum by the
 * interval's width plus carry_max per thread inside its carry (so its lag
 * has no bound independent of the thread count); the sum is exact. A
 * fork's child counts every update completed before the fork in its sum,
 * but not in its root: a parent's thread that was inside its carry when the
 * process was copied does not finish it in the child, so the child's root
 * stays behind by up to carry_max for each such thread, for good (no
 * SC_PROMISE_FORK_FAST_EXACT).
 */
static inline uint64_t sc_percpu_tree_reading_fast(const sc_percpu_tree_t *c,
                                                   const sc_percpu_tree_cfg *cfg)
{
	return sc_percpu_tree_get_fast(c, cfg, NULL);
}
static inline uint64_t sc_percpu_tree_reading_sum(const sc_percpu_tree_t *c,
                                                  const sc_percpu_tree_cfg *cfg)
{
	return sc_percpu_tree_get_sum(c, cfg);
}
static inline sc_counter_bound sc_percpu_tree_bound(const sc_percpu_tree_cfg *cfg, sc_reading r)
{
	sc_counter_bound b = sc_bound_of_kind_(SC_BOUND_EXACT);
	if (r != SC_READ_SUM) {
		b.kind = SC_BOUND_LAG;
		b.lag = cfg->width;
		b.lag_per_thread = cfg->carry_max;
	}
	return b;
}
enum { SC_PROMISES_percpu_tree = SC_PROMISE_FORK_EXACT | SC_PROMISE_READINGS_DIFFER };
/* The machine's shape (tree.c), where no arity is given; the batch kept. */
int sc_percpu_tree_config_machine_(void *cfg, const sc_params *p, const sc_cpu_shape *shape,
                                   sc_err *err);
#define SC_HOOKS_percpu_tree                                   \
	{                                                      \
		.config_shape = sc_percpu_tree_config_machine_ \
	}

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_TREE_H */
