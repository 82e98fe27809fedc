/* SPDX-License-Identifier: MIT */
/*
 * sc_contract.h - what a variant promises, declared once, in its family
 * header: the bound of each reading (sc_P_bound), the two readings
 * themselves where they differ (sc_P_reading_fast, sc_P_reading_sum), a
 * word of promises (SC_PROMISES_P), and what the handle API and sc_table
 * ask of the variant beyond its operations (SC_HOOKS_P, each hook
 * optional). The registry gathers them into the variant table
 * (scounters.h), sc_counter_error_bound answers from it, and the
 * conformance suite (tests/test_conformance*) checks every promise under
 * concurrency. sc_common.h includes it.
 */
#ifndef SC_CONTRACT_H
#define SC_CONTRACT_H

#include "sc_common.h" /* which includes this file at its end */

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* Which reading an error bound is about. */
typedef enum sc_reading {
	SC_READ_FAST = 0, /* sc_counter_get_fast, sc_counter_get and sc_counter_read_and_reset */
	SC_READ_SUM = 1   /* sc_counter_get_sum */
} sc_reading;

/*
 * What a reading's error bound is. "Completed" and "begun" are the updates
 * completed before the reading's call began and those begun before it
 * returned.
 */
typedef enum sc_bound_kind {
	SC_BOUND_EXACT = 0, /* completed <= reading <= begun, under any load */
	SC_BOUND_LAG = 1,   /* completed - lag - lag_per_thread x (updating threads) <= reading
	                       <= begun */
	SC_BOUND_RSTDV = 2, /* an unbiased estimate, relative standard deviation <= rstdv */
	SC_BOUND_NONE = 3   /* no bound: Serial loses updates; Scalable runtime=dotnet is biased */
} sc_bound_kind;

/* A reading's error bound, by the variant's contract (the family header states each). */
typedef struct sc_counter_bound {
	sc_bound_kind kind;
	/*
	 * SC_BOUND_LAG: the reading is at least (updates completed) - lag -
	 * lag_per_thread x (threads updating the counter during the call), and
	 * never more than the updates begun. Batched: lag = (B - 1) x the
	 * threads that own a slot (what they may hold back), lag_per_thread =
	 * B - 1. PerCPUTree: lag = the width of its interval, lag_per_thread =
	 * the largest carry one update may have in flight (sc_tree.h). Both 0
	 * for the other kinds.
	 */
	uint64_t lag;
	uint64_t lag_per_thread;
	/*
	 * SC_BOUND_RSTDV: the bound on the standard deviation of the reading
	 * divided by the true count (0.01 is 1%), at every count within the
	 * variant's range, for updates by one thread; under contention the
	 * family header's contract says how it holds (e.g. BFP-CSUP's bound holds
	 * whatever the contention). 0 for the other kinds.
	 */
	double rstdv;
} sc_counter_bound;

/*
 * Promises (SC_PROMISES_P, a family's enum constant per variant P; the
 * variant table's `promises`):
 *
 * SC_PROMISE_SIGNAL_SAFE: the handle's sc_counter_inc, _add, _add_signed
 *   and _flush (and the inlined sc_P_inc and sc_P_add) are
 *   async-signal-safe: a handler's update is not lost even when it
 *   interrupts the same thread's update of the same counter.
 * SC_PROMISE_INLINE_RSEQ: the handle's sc_counter_inc and sc_counter_add
 *   inline a restartable sequence into the caller (sc_rseq.h, "Plugins and
 *   unloading", says what that means for an object that is unloaded).
 * SC_PROMISE_FORK_EXACT: a child's copy of a handle counter counts every
 *   update completed before the fork in its exact reading (get_sum; and
 *   in get_fast, the same reading, where the readings do not differ).
 * SC_PROMISE_FORK_FAST_EXACT: where the readings differ
 *   (SC_PROMISE_READINGS_DIFFER), the child's fast reading counts every
 *   update completed before the fork too, until the child updates it.
 *   Without it the fast reading keeps its bound in the child only with the
 *   parent's updating threads counted as if they still updated: what a
 *   parent's thread had not yet carried into the fast reading's word when
 *   the process was copied stays out of it in the child (PerCPUTree).
 * SC_PROMISE_SHARED_MEMORY: one counter object (sc_P_t, initialised with
 *   sc_P_init) placed in memory that several processes map (MAP_SHARED)
 *   keeps its contract for updates from all of them.
 * SC_PROMISE_READINGS_DIFFER: sc_counter_get_fast and sc_counter_get_sum
 *   are different readings (the fast one has a looser bound).
 * SC_PROMISE_HOLDS_BACK: a thread holds updates back until it flushes
 *   (sc_P_flush does something; the library flushes at thread exit).
 * SC_PROMISE_LAG_BOUNDED: the fast reading's lag (SC_BOUND_LAG) is at most
 *   `lag` whatever the number of threads updating (lag_per_thread counts
 *   in `lag` already), so "reading + lag < x" means fewer than x updates
 *   had completed; without it, each updating thread may add
 *   lag_per_thread to the lag (PerCPUTree's carries in flight).
 */
#define SC_PROMISE_SIGNAL_SAFE (1u << 0)
#define SC_PROMISE_INLINE_RSEQ (1u << 1)
#define SC_PROMISE_FORK_EXACT (1u << 2)
#define SC_PROMISE_SHARED_MEMORY (1u << 3)
#define SC_PROMISE_READINGS_DIFFER (1u << 4)
#define SC_PROMISE_HOLDS_BACK (1u << 5)
#define SC_PROMISE_LAG_BOUNDED (1u << 6)
#define SC_PROMISE_FORK_FAST_EXACT (1u << 7)

/*
 * How the handle API's inlined increment (sc_counter.h) reaches a variant,
 * as its family declares it (the handle_path hook below; the handle copies
 * it into the counter's head when the counter is made, so the increment
 * itself tests only the head). SC_PATH_CALL: the variant's increment
 * through a pointer (the default); SC_PATH_NODE: the same, with the
 * context from the library, which keeps the thread's node fresh (for a
 * variant whose increment reads t->node); the others name the increment that
 * sc_counter_inc inlines: FetchAdd's, Morris's and Scalable's on the
 * counter and its configuration, Sharded's on copies of both, and the
 * per-CPU add on the array given by slot0, stride, slots and index (the
 * arguments of sc_percpu_add_ix).
 */
typedef enum sc_path_kind {
	SC_PATH_CALL = 0,
	SC_PATH_FETCHADD = 1,
	SC_PATH_MORRIS = 2,
	SC_PATH_SCALABLE = 3,
	SC_PATH_SHARDED = 4,
	SC_PATH_PERCPU = 5,
	SC_PATH_NODE = 6
} sc_path_kind;

typedef struct sc_handle_path {
	sc_path_kind kind;
	/* the increment the handle calls instead of the variant's (NULL: the variant's) */
	void (*inc)(void *c, const void *cfg, sc_thread *t);
	unsigned char *slot0; /* SC_PATH_PERCPU: the array; NULL and 0 otherwise */
	size_t stride;
	uint32_t slots;
	uint64_t index;
} sc_handle_path;

/* A path of one kind, nothing else set. */
static inline sc_handle_path sc_path_of_kind_(sc_path_kind kind)
{
	sc_handle_path p;
	p.kind = kind;
	p.inc = NULL;
	p.slot0 = NULL;
	p.stride = 0;
	p.slots = 0;
	p.index = 0;
	return p;
}

/*
 * A machine's shape, for the variants whose words follow it (the
 * config_shape hook below: PerCPUTree): its CPUs in topology order and the
 * size of each of its groupings. order[id], for CPU ids 0 .. cpus-1, is
 * the id's position in that order (a permutation of 0 .. cpus-1);
 * fanout[0 .. levels-1], from the CPUs up, how many groups of the level
 * below one group of a level holds (2 PUs to a core, 8 cores to a cache,
 * ...). The caller computes it (scbench from hwloc): the library reads no
 * topology. order and fanout must outlive every counter configured by it.
 */
typedef struct sc_cpu_shape {
	uint32_t cpus;
	const uint32_t *order;
	uint32_t levels;
	const uint32_t *fanout;
} sc_cpu_shape;

/*
 * What the handle API and sc_table ask of a variant beyond its operations
 * and its contract, each optional: NULL is the default, stated at each
 * field. A family header declares them for each of its variants P as
 * SC_HOOKS_P, a C initialiser of this struct (SC_HOOKS_NONE when the
 * variant needs none); the registry puts it in the variant table (the
 * `hooks` of sc_variant, scounters.h). Each hook is called with the
 * table's configuration (and counter) and is safe wherever the call that
 * uses it is: set-up (sc_table_create, sc_counter_new), teardown, or a
 * reading.
 */
typedef struct sc_variant_hooks {
	/* Add the handle API's defaults (sc_counter_new) for the keys p does not
	 * give: 0, or -1 with err set. NULL: the variant's own defaults. */
	int (*handle_defaults)(sc_params *p, sc_err *err);
	/* How the handle's increment reaches counter c. NULL: SC_PATH_CALL. */
	sc_handle_path (*handle_path)(const void *c, const void *cfg);
	/* The value of counter word w (a private copy) as one reading of
	 * sc_counter_read_and_reset, unbiased over many, drawing from *rng.
	 * NULL: get. */
	uint64_t (*value_unbiased)(const void *w, const void *cfg, uint32_t *rng);
	/* The state every thread's counter stream must start from (sc_table's
	 * thread_seed), or 0 for per-thread seeds. NULL: 0. */
	uint32_t (*thread_seed)(const void *cfg);
	/* Before the table's n inits: what they take their counters from (0, or
	 * -1 with err set); after every destroy: release it (also after a
	 * failed reserve). NULL: nothing. */
	int (*table_reserve)(void *cfg, size_t n, sc_err *err);
	void (*table_release)(void *cfg);
	/* After config, given a machine's shape (sc_table_create_shaped): lay
	 * cfg out by it unless p, the parameters config read, fixes the
	 * layout (0, or -1 with err set). NULL: the variant has no shape. */
	int (*config_shape)(void *cfg, const sc_params *p, const sc_cpu_shape *shape, sc_err *err);
} sc_variant_hooks;
#define SC_HOOKS_NONE                                    \
	{                                                \
		NULL, NULL, NULL, NULL, NULL, NULL, NULL \
	}

/* The bound of a reading that is the same for both readings. */
static inline sc_counter_bound sc_bound_of_kind_(sc_bound_kind kind)
{
	sc_counter_bound b;
	b.kind = kind;
	b.lag = 0;
	b.lag_per_thread = 0;
	b.rstdv = 0.0;
	return b;
}

/* An unbiased estimate whose relative standard deviation is at most rstdv. */
static inline sc_counter_bound sc_bound_rstdv_(double rstdv)
{
	sc_counter_bound b = sc_bound_of_kind_(SC_BOUND_RSTDV);
	b.rstdv = rstdv;
	return b;
}

/* sc_P_bound for a variant whose readings both have one kind of bound. */
#define SC_OP_BOUND_KIND(P, KIND)                                                          \
	static inline sc_counter_bound sc_##P##_bound(const sc_##P##_cfg *cfg, sc_reading r) \
	{                                                                                  \
		(void)cfg;                                                                 \
		(void)r;                                                                   \
		return sc_bound_of_kind_(KIND);                                            \
	}
#define SC_OP_BOUND_EXACT(P) SC_OP_BOUND_KIND(P, SC_BOUND_EXACT)

/* sc_P_reading_fast and sc_P_reading_sum for a variant with one reading: its get. */
#define SC_OP_ONE_READING(P)                                                               \
	static inline uint64_t sc_##P##_reading_fast(const sc_##P##_t *c, const sc_##P##_cfg *cfg) \
	{                                                                                  \
		return sc_##P##_get(c, cfg);                                               \
	}                                                                                  \
	static inline uint64_t sc_##P##_reading_sum(const sc_##P##_t *c, const sc_##P##_cfg *cfg) \
	{                                                                                  \
		return sc_##P##_get(c, cfg);                                               \
	}

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_CONTRACT_H */
