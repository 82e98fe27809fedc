/* SPDX-License-Identifier: MIT */
/*
 * sc_distributed.h - precise counters that spread one count over several words,
 * so that increments of different threads write different cache lines:
 * Sharded, Striped, Batched (sc_batched.h, included at the end) and PerCPU.
 *
 * Common to the four:
 *  - Range: the total is 0 .. 2^64-1. Every part is a 64-bit word that wraps
 *    modulo 2^64 and get adds the parts modulo 2^64, so get returns the true
 *    count modulo 2^64: an increment at a total of 2^64-1 gives 0, wherever
 *    the parts stand (the tests start a part just below 2^64).
 *  - Exact under any number of threads, oversubscribed too (Batched after
 *    every thread has called flush; see its staleness contract).
 *  - get is a sum of relaxed loads of monotone words taken one after another
 *    (Linux's percpu_counter_sum, LongAdder's sum): it contains every
 *    increment that happened before the get began and may contain some that
 *    run concurrently with it; successive gets by one thread never decrease
 *    (until the total wraps).
 *  - The counter object holds a pointer to line-aligned parts allocated with
 *    sc_alloc_lines (Striped: allocated lazily), so init can fail with a
 *    message (out of memory) and destroy frees them; heap_bytes reports them.
 *  - reset stores 0 everywhere and keeps the allocation; only while nothing
 *    increments (doc/design.md §3).
 *  - add(n) is the increment's update with n in place of 1: exact, same
 *    parts, same thread-index rules (Striped: see its comment).
 */
#ifndef SC_DISTRIBUTED_H
#define SC_DISTRIBUTED_H

#include "sc_common.h"
#include "sc_rseq.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* Most slots (threads or CPUs) one counter may have; more is a configuration error. */
#define SC_DIST_MAX_SLOTS (1u << 20)

/*
 * What all four share: config, init, reset, destroy and heap_bytes are in
 * distributed.c, size is the type's.
 */
#define SC_DIST_OPS_(P)                                                                    \
	SC_OP_DECLARE_OUT_OF_LINE(P)                                                       \
	size_t sc_##P##_heap_bytes(const sc_##P##_t *c, const sc_##P##_cfg *cfg);          \
	SC_OP_SIZEOF(P)

/*
 * Shared by Sharded, Batched and PerCPU: an array of n padded words.
 * Relaxed loads: get orders nothing, and each word only grows between resets,
 * so any value it has held is a correct part of the sum.
 */
static inline uint64_t sc_dist_slots_sum(const sc_padded_u64 *slots, uint32_t n)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < n; i++)
		/* relaxed: see above; the sum is modulo 2^64 by unsigned arithmetic. */
		sum += atomic_load_explicit(&slots[i].v, memory_order_relaxed);
	return sum;
}

/*
 * Adding v to a word only the calling thread writes (a Sharded slot, a
 * Batched local count), so that a signal handler on the same thread that
 * adds to it too loses nothing: the read-modify-write is one instruction,
 * which a signal can only precede or follow. x86-64: a plain add to
 * memory (no lock prefix: other threads never write the word, they only
 * read it, and an aligned 8-byte store is single-copy atomic, so they see
 * the old or the new value), the cost of the load and store it replaces.
 * Elsewhere a relaxed atomic fetch-and-add (aarch64 with LSE: one ldadd or
 * stadd; without, a load-exclusive/store-exclusive loop, which a signal
 * restarts). sc_dist_own_add_ returns nothing, sc_dist_own_xadd_ the new
 * value (x86-64: xadd without lock, also one instruction). In C the
 * x86-64 form is asm, as the per-CPU add of sc_rseq.h; the word is an
 * atomic for its readers (get, the flush at thread exit, fork).
 */
SC_ALWAYS_INLINE void sc_dist_own_add_(SC_ATOMIC(uint64_t) *w, uint64_t v)
{
#if defined(__x86_64__) && defined(__GNUC__)
	__asm__("addq %1, %0" : "+m"(*(uint64_t *)(void *)w) : "er"(v));
#else
	/* relaxed: see above; the add publishes nothing else. */
	atomic_fetch_add_explicit(w, v, memory_order_relaxed);
#endif
}

SC_ALWAYS_INLINE uint64_t sc_dist_own_xadd_(SC_ATOMIC(uint64_t) *w, uint64_t v)
{
#if defined(__x86_64__) && defined(__GNUC__)
	uint64_t old = v;
	__asm__("xaddq %0, %1" : "+r"(old), "+m"(*(uint64_t *)(void *)w));
	return old + v;
#else
	/* relaxed: as sc_dist_own_add_. */
	return atomic_fetch_add_explicit(w, v, memory_order_relaxed) + v;
#endif
}

/*
 * Sharded (Dice §2's per-thread components, Ayers's end notes): one padded
 * word per thread, written by that thread only, so an increment is a plain
 * add to memory, no locked read-modify-write (sc_dist_own_add_: one
 * instruction on x86-64, so a signal handler's increment on the same
 * thread is not lost); get sums all words.
 *
 * Thread indices: indices 0 .. env->threads-1 each own a slot; two threads
 * that may increment at the same time must never share one of those
 * indices (that would lose increments; it is not checked). An index at or
 * above env->threads is never used to index memory: such threads share one
 * extra overflow slot, updated with an atomic fetch-and-add, so they count
 * exactly too, at the cost of contention among themselves. The check is
 * one well-predicted compare on the fast path.
 *
 * Range: 2^64 total, wraps (see above). Errors: config fails when
 * env->threads is 0 or above SC_DIST_MAX_SLOTS; init fails when out of
 * memory. Bytes per counter: a pointer (8) in the array, packed, plus
 * (env->threads + 1) * SC_LINE_SIZE on the heap.
 */
typedef struct sc_sharded {
	sc_padded_u64 *slots; /* env->threads + 1 slots; the pointer is read-only after init */
} sc_sharded_t;

typedef struct sc_sharded_cfg {
	uint32_t threads;
} sc_sharded_cfg;

SC_DIST_OPS_(sharded)
SC_OP_RANGE_FULL(sharded)

static inline void sc_sharded_inc(sc_sharded_t *c, const sc_sharded_cfg *cfg, sc_thread *t)
{
	if (__builtin_expect(t->index >= cfg->threads, 0)) {
		/* relaxed: the shared overflow slot; the add is atomic whatever the order. */
		atomic_fetch_add_explicit(&c->slots[cfg->threads].v, 1, memory_order_relaxed);
		return;
	}
	/*
	 * This thread is the only writer of its slot; one add, so that a signal
	 * handler's increment on this thread is not lost (sc_dist_own_add_).
	 * get reads the slot from other threads and needs no ordering.
	 */
	sc_dist_own_add_(&c->slots[t->index].v, 1);
}

static inline void sc_sharded_add(sc_sharded_t *c, const sc_sharded_cfg *cfg, sc_thread *t,
                                  uint64_t n)
{
	if (__builtin_expect(t->index >= cfg->threads, 0)) {
		/* relaxed: as in sc_sharded_inc. */
		atomic_fetch_add_explicit(&c->slots[cfg->threads].v, n, memory_order_relaxed);
		return;
	}
	sc_dist_own_add_(&c->slots[t->index].v, n); /* as in sc_sharded_inc */
}

static inline uint64_t sc_sharded_get(const sc_sharded_t *c, const sc_sharded_cfg *cfg)
{
	return sc_dist_slots_sum(c->slots, cfg->threads + 1);
}

SC_OP_NO_FLUSH(sharded)

/*
 * Striped (the design of Java's LongAdder): increments first try one CAS on
 * a base word. When that CAS fails (contention), the first failing thread
 * creates a table of 2 padded cells and threads then CAS the cell that their
 * probe (t->probe) selects. A thread whose cell CAS fails rehashes its probe
 * (xorshift 13,17,5, LongAdder's advanceProbe); a thread that fails twice in
 * a row on the same table doubles it, up to max_cells = the smallest power
 * of two >= the number of CPUs (env->cpus, 0: the OS's count), at least 2.
 *
 * Creation and doubling run under a one-word try-lock (busy); a thread that
 * finds it taken falls back on the base word or rehashes, so increments never
 * wait. Cells never move: a table is an array of pointers to cells and a
 * doubled table copies the old pointers and adds new cells, so an increment
 * that still uses an old table updates a cell the new table also sums. Old
 * tables go on a retired list (the new table's `retired` link) and are freed
 * only by destroy, so a thread still reading one never touches freed memory.
 *
 * get = base + the cells of the current table. Range: 2^64 total, wraps.
 * Errors: config fails when env->cpus is above SC_DIST_MAX_SLOTS; init
 * cannot fail; if growing runs out of memory the increment falls back on the
 * base word (never lost). Bytes per counter: 24 in the array, padded to a
 * line (the base word is written while there is no table); on the heap, once
 * contended, every table ever made (a line-rounded header plus one pointer
 * per cell) plus SC_LINE_SIZE per cell; heap_bytes counts all of it.
 */
typedef struct sc_striped_table {
	uint32_t size;                    /* cells: a power of two >= 2 */
	struct sc_striped_table *retired; /* the table this one replaced, or NULL */
	/*
	 * size pointers, immutable once published; they sit right after this
	 * header in the same allocation (a pointer, not a flexible array member,
	 * which C++ does not have).
	 */
	sc_padded_u64 **cells;
} sc_striped_table;

typedef struct sc_striped {
	SC_ATOMIC(uint64_t) base;
	SC_ATOMIC(sc_striped_table *) table; /* NULL until the first failed base CAS */
	SC_ATOMIC(uint32_t) busy;             /* try-lock for creating or doubling the table */
} sc_striped_t;

typedef struct sc_striped_cfg {
	uint32_t max_cells; /* power of two >= 2 */
} sc_striped_cfg;

SC_DIST_OPS_(striped)
SC_OP_RANGE_FULL(striped)
/* The contended path of sc_striped_inc; cell_failed: the fast path's cell CAS failed. */
void sc_striped_inc_slow(sc_striped_t *c, const sc_striped_cfg *cfg, sc_thread *t,
                         bool cell_failed);
/*
 * Create the table, or double it, now rather than on contention (pre-sizing
 * a counter known to be hot; the tests use it to grow the table
 * deterministically). 0 on success; -1 when the table already has max_cells,
 * another thread holds the lock, or memory ran out.
 */
int sc_striped_grow(sc_striped_t *c, const sc_striped_cfg *cfg);

/*
 * One CAS of w from its current value to value+1. Relaxed throughout: the
 * word publishes nothing else, and a failure means only "contended".
 */
static inline bool sc_striped_try_inc_(SC_ATOMIC(uint64_t) *w)
{
	/* relaxed: a stale value just makes the CAS fail, which is a contention signal. */
	uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
	/* relaxed: the add alone matters; nothing is published with it. */
	return atomic_compare_exchange_strong_explicit(w, &v, v + 1, memory_order_relaxed,
	                                               memory_order_relaxed);
}

static inline void sc_striped_inc(sc_striped_t *c, const sc_striped_cfg *cfg, sc_thread *t)
{
	/*
	 * acquire: pairs with the release store that published the table, so
	 * its size, its cell pointers and the zeroed cells they point to are
	 * visible before this thread dereferences them.
	 */
	sc_striped_table *tab = atomic_load_explicit(&c->table, memory_order_acquire);
	if (!tab) {
		if (sc_striped_try_inc_(&c->base))
			return;
	} else if (sc_striped_try_inc_(&tab->cells[t->probe & (tab->size - 1)]->v)) {
		return;
	}
	sc_striped_inc_slow(c, cfg, t, tab != NULL);
}

/*
 * add(n): one CAS of +n on the base word (no table yet) or on the probe's
 * cell; when that CAS fails, the first failure creates the table (the same
 * try-lock as increments; never waits) and a failed cell rehashes the
 * probe, and then the n goes in by one fetch-and-add on the base or the
 * cell, so an add never loops. Exact. Doubling is left to increments, which
 * measure repeated collisions.
 */
void sc_striped_add(sc_striped_t *c, const sc_striped_cfg *cfg, sc_thread *t, uint64_t n);

static inline uint64_t sc_striped_get(const sc_striped_t *c, const sc_striped_cfg *cfg)
{
	(void)cfg;
	/* relaxed: as every part of a sum (see the top of this file). */
	uint64_t sum = atomic_load_explicit(&c->base, memory_order_relaxed);
	/* acquire: as in sc_striped_inc, before reading the table's cells. */
	const sc_striped_table *tab = atomic_load_explicit(&c->table, memory_order_acquire);
	if (tab)
		for (uint32_t i = 0; i < tab->size; i++)
			/* relaxed: as the base word. */
			sum += atomic_load_explicit(&tab->cells[i]->v, memory_order_relaxed);
	return sum;
}

SC_OP_NO_FLUSH(striped)

/*
 * PerCPU (Linux's this_cpu ops, librseq's per-CPU adds): one padded word per
 * CPU and an overflow word; an increment adds 1 to the word of the CPU (or
 * rseq concurrency id) it runs on by sc_percpu_add_at (sc_rseq.h): a
 * restartable sequence whose commit is a plain add where the kernel and
 * glibc provide rseq (x86-64), else an atomic fetch-and-add on the word of
 * sched_getcpu(). get sums the words. Exact under preemption, migration,
 * signals and oversubscription on either path; describe's `path` says which
 * one this process takes.
 *
 * Slots: env->cpus, 0 meaning the OS's configured CPU count, plus the
 * overflow word. An id >= slots (a smaller env->cpus, a CPU brought online
 * later) goes to the overflow word with an atomic add (restartable
 * sequence), or is folded in with a modulo (locked path); never out of
 * bounds.
 *
 * Range: 2^64 total, wraps. Errors: config fails when env->cpus is above
 * SC_DIST_MAX_SLOTS; init fails when out of memory. Bytes per counter: a
 * pointer (8) in the array, packed, plus (slots + 1) * SC_LINE_SIZE on the
 * heap. The packed groups of sc_group.h keep many such counters in 8 bytes
 * per CPU each.
 */
typedef struct sc_percpu {
	sc_padded_u64 *slots; /* cfg->cpus + 1 words; the pointer is read-only after init */
} sc_percpu_t;

typedef struct sc_percpu_cfg {
	uint32_t cpus;
	uint64_t index; /* how the array is indexed: sc_percpu_index(SC_PERCPU_PRIVATE) */
} sc_percpu_cfg;

SC_DIST_OPS_(percpu)
SC_OP_RANGE_FULL(percpu)

static inline void sc_percpu_add(sc_percpu_t *c, const sc_percpu_cfg *cfg, sc_thread *t,
                                 uint64_t n)
{
	(void)t;
	sc_percpu_add_ix((unsigned char *)(void *)c->slots, sizeof *c->slots, cfg->cpus, cfg->index, n);
}

static inline void sc_percpu_inc(sc_percpu_t *c, const sc_percpu_cfg *cfg, sc_thread *t)
{
	sc_percpu_add(c, cfg, t, 1);
}

static inline uint64_t sc_percpu_get(const sc_percpu_t *c, const sc_percpu_cfg *cfg)
{
	return sc_dist_slots_sum(c->slots, cfg->cpus + 1);
}

SC_OP_NO_FLUSH(percpu)

/*
 * describe (distributed.c; contract in scounters.h), keys:
 *   Sharded  slots=<per-thread slots + the overflow slot>;nonzero=<slots written>
 *   Striped  mode=base (no table: no CAS on the base word has failed), or
 *            mode=cells;cells=<cells in the current table>
 *   Batched  batch=<B>;held=<increments held in per-thread counts, not yet
 *            in get; 0 once every thread has flushed>
 *   PerCPU   path=<rseq-mm_cid, rseq-cpu_id or lock: sc_percpu_path>;
 *            slots=<CPU slots>;nonzero=<CPU slots written>;overflow=<its count>
 */
SC_OP_DECLARE_DESCRIBE(sharded)
SC_OP_DECLARE_DESCRIBE(striped)
SC_OP_DECLARE_DESCRIBE(percpu)

/*
 * The contract (sc_contract.h): exact. Sharded's and PerCPU's updates are
 * async-signal-safe (one instruction on the thread's own slot; a
 * restartable sequence); Striped allocates its table, so is not. PerCPU's
 * handle increment inlines the restartable sequence into the caller. The
 * slots are on the heap and indexed per process: not for shared memory
 * (a per-CPU array made for it, sc_percpu_index(SC_PERCPU_SHARED), is).
 */
SC_OP_ONE_READING(sharded)
SC_OP_ONE_READING(striped)
SC_OP_ONE_READING(percpu)
SC_OP_BOUND_EXACT(sharded)
SC_OP_BOUND_EXACT(striped)
SC_OP_BOUND_EXACT(percpu)
enum {
	SC_PROMISES_sharded = SC_PROMISE_SIGNAL_SAFE | SC_PROMISE_FORK_EXACT,
	SC_PROMISES_striped = SC_PROMISE_FORK_EXACT,
	SC_PROMISES_percpu = SC_PROMISE_SIGNAL_SAFE | SC_PROMISE_FORK_EXACT | SC_PROMISE_INLINE_RSEQ
};

/*
 * The handle inlines Sharded's increment on copies of the slot pointer and
 * the configuration (fixed by init), and PerCPU's add on its array.
 */
static inline sc_handle_path sc_sharded_handle_path_(const void *c, const void *cfg)
{
	(void)c;
	(void)cfg;
	return sc_path_of_kind_(SC_PATH_SHARDED);
}
static inline sc_handle_path sc_percpu_handle_path_(const void *c, const void *cfg)
{
	sc_handle_path p = sc_path_of_kind_(SC_PATH_PERCPU);
	p.slot0 = (unsigned char *)(void *)((const sc_percpu_t *)c)->slots;
	p.stride = sizeof(sc_padded_u64);
	p.slots = ((const sc_percpu_cfg *)cfg)->cpus;
	p.index = ((const sc_percpu_cfg *)cfg)->index;
	return p;
}
#define SC_HOOKS_sharded {.handle_path = sc_sharded_handle_path_}
#define SC_HOOKS_striped SC_HOOKS_NONE
#define SC_HOOKS_percpu {.handle_path = sc_percpu_handle_path_}

SC_API_END
#ifdef __cplusplus
}
#endif

/* Batched, the family's fourth member. */
#include "sc_batched.h"

#endif /* SC_DISTRIBUTED_H */
