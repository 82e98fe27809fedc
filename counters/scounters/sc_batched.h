/* SPDX-License-Identifier: MIT */
/*
 * sc_batched.h - Batched, the distributed precise counter whose threads hold
 * up to a batch of increments back: the family's contract is at the top of
 * sc_distributed.h, which includes this header (include either).
 */
#ifndef SC_BATCHED_H
#define SC_BATCHED_H

#include "sc_distributed.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * Batched (Linux lib/percpu_counter.c's batched add; a periodic
 * sampler; the sum over cells that only grow of Java's LongAdder): a shared
 * 64-bit word plus one padded slot per thread. A slot holds the thread's
 * total, every increment the thread made through it (it only grows), and
 * how much of that total it has handed over to the shared word. An
 * increment adds 1 to the total; when the total is a batch B (parameter
 * batch, default 64, 1 .. 2^30) or more ahead of what was handed over, the
 * thread adds the difference to the shared word with one fetch-and-add
 * (sc_batched_hand_over_). sc_batched_flush hands over what is left; every
 * thread calls it when it is done (the handle API does at thread exit).
 *
 * Two readings. get (the fast one, one load) reads the shared word: while
 * n threads run it is at least (increments completed before the get) -
 * n(B - 1) and never above the increments begun; it is exact once every
 * thread's flush happened before it (for instance, the threads were
 * joined). get_sum adds the overflow word and every slot's total: exact
 * under any load (at least every increment completed before it began, at
 * most those begun before it returned), since every word it adds only
 * grows and holds only increments that were made.
 *
 * Thread indices as Sharded: 0 .. env->threads-1 own a slot and must be
 * unique among running threads; only the owner writes its slot while
 * increments run, and reset zeroes them (only while nothing increments).
 * A thread whose index is at or above env->threads has no slot and adds to
 * the overflow word and the shared word (two fetch-and-adds per increment,
 * exact, never out of bounds); so does an add of a batch or more at once.
 * Its flush does nothing.
 *
 * Range: 2^64 total, wraps. Errors: config fails when batch is outside
 * 1 .. 2^30 or env->threads is 0 or above SC_DIST_MAX_SLOTS; init fails when
 * out of memory. Bytes per counter: 16 in the array, padded to a line (the
 * shared word is written); env->threads * SC_LINE_SIZE on the heap.
 */
#define SC_BATCHED_DEFAULT 64u
#define SC_BATCHED_MAX (1u << 30)

/* A thread's slot: its total and what of it went to the shared word. */
typedef struct sc_batched_slot {
	alignas(SC_LINE_SIZE) SC_ATOMIC(uint64_t) total; /* written by the owner only */
	SC_ATOMIC(uint64_t) handed; /* the owner's; SC_BATCHED_HANDING_ while it hands over */
	char pad_[SC_LINE_SIZE - 2 * sizeof(SC_ATOMIC(uint64_t))];
} sc_batched_slot;

typedef struct sc_batched {
	SC_ATOMIC(uint64_t) shared;
	SC_ATOMIC(uint64_t) overflow; /* adds that bypass the slots (see above) */
	sc_batched_slot *local; /* env->threads slots; the pointer is read-only after init */
} sc_batched_t;

typedef struct sc_batched_cfg {
	uint32_t threads;
	uint32_t batch;
} sc_batched_cfg;

SC_DIST_OPS_(batched)
SC_OP_RANGE_FULL(batched)

/*
 * fork(). While a thread hands a batch over, its slot's handed word
 * carries SC_BATCHED_HANDING_. The library's fork handler (context.c)
 * blocks the forking thread's signals, raises sc_batched_fork_gate_ and
 * waits until no other thread's slot of a handle counter carries the mark:
 * a hand-over that began before is finished (the batch is in the shared
 * word, in the child's copy too); one that begins after sees the gate,
 * drops its mark and waits until the gate is down (the fork's end in the
 * parent), then hands over. So a child's copy counts every increment
 * completed before the fork, in both readings (the child's handler hands
 * over what the parent's other threads held in their slots), and the fast
 * reading's bound holds across the fork too: a thread that waits at the
 * gate holds at most B - 1 completed increments (its own update has not
 * completed). The cost: an increment or flush that reaches a hand-over
 * while another thread forks waits for the fork (the copy of the process),
 * as it would for a lock; increments that do not hand over never wait.
 * Library-internal; written by the fork handlers only.
 */
extern SC_ATOMIC(uint32_t) sc_batched_fork_gate_;
#define SC_BATCHED_HANDING_ (UINT64_C(1) << 63)

/*
 * The hand-over of what the slot's total holds beyond what was handed
 * over: mark the handed word (seq_cst, with the gate's load below: against
 * the fork handler's seq_cst store of the gate and load of the mark, so
 * either it sees the mark and waits, or this sees the gate), read the
 * total (a signal handler may have added to it since the caller saw it),
 * add the difference to the shared word, then store the new handed word,
 * which clears the mark. A signal handler that lands inside the hand-over
 * sees the mark and leaves its increments in the total for the next one.
 * Every increment is in the total before the hand-over starts, so get_sum
 * never misses one, whatever the hand-over's progress. Out of line (noinline
 * and cold, a copy in each object that uses it): it runs once per batch,
 * and the increment's inlined path without it is no longer than it was
 * when the hand-over was inlined (gcc -O2, x86-64: 14 instructions, was 16).
 */
#if defined(__GNUC__)
#define SC_BATCHED_COLD_ __attribute__((noinline, cold, unused))
#else
#define SC_BATCHED_COLD_
#endif
static SC_BATCHED_COLD_ void sc_batched_gate_wait_(sc_batched_t *c, sc_batched_slot *slot,
                                                   uint64_t h);

static SC_BATCHED_COLD_ void sc_batched_hand_over_(sc_batched_t *c, sc_batched_slot *slot)
{
	uint64_t h = atomic_fetch_or_explicit(&slot->handed, SC_BATCHED_HANDING_,
	                                      memory_order_seq_cst);
	if (h & SC_BATCHED_HANDING_)
		return; /* a handler inside this thread's own hand-over, which finishes it */
	if (atomic_load_explicit(&sc_batched_fork_gate_, memory_order_seq_cst)) {
		sc_batched_gate_wait_(c, slot, h); /* another thread forks */
		return;
	}
	/* relaxed: the owner's own word (its handlers' adds are ordered by the thread) */
	uint64_t t = atomic_load_explicit(&slot->total, memory_order_relaxed);
	if (t != h)
		/* relaxed: get reads a sum and orders nothing by it. */
		atomic_fetch_add_explicit(&c->shared, t - h, memory_order_relaxed);
	/* release: the fork handler that sees the mark gone sees the batch added. */
	atomic_store_explicit(&slot->handed, t, memory_order_release);
}

/*
 * Another thread forks (see fork() above): the mark dropped, so that the
 * fork handler goes on, then the hand-over waits until the gate is down and
 * starts again.
 */
static SC_BATCHED_COLD_ void sc_batched_gate_wait_(sc_batched_t *c, sc_batched_slot *slot,
                                                   uint64_t h)
{
	/* relaxed: the owner's own word, nothing added */
	atomic_store_explicit(&slot->handed, h, memory_order_relaxed);
	/* relaxed: the seq_cst pair of the hand-over decides, this only waits */
	while (atomic_load_explicit(&sc_batched_fork_gate_, memory_order_relaxed))
		sc_cpu_relax();
	sc_batched_hand_over_(c, slot);
}

/* Straight to the shared word, counted in the overflow word for get_sum. */
static inline void sc_batched_add_direct_(sc_batched_t *c, uint64_t n)
{
	/* relaxed: both are sums of adds; the overflow word first, so that
	 * get_sum (which does not read the shared word) sees it as early. */
	atomic_fetch_add_explicit(&c->overflow, n, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->shared, n, memory_order_relaxed);
}

/*
 * n (below the batch) added to the thread's own slot, then a hand-over if
 * the total is a batch ahead of what was handed over. The total is an
 * atomic only its owner writes, with one add that returns the new total
 * (sc_dist_own_xadd_), so a signal handler's increment on this thread is
 * not lost, and every increment is a real memory update; handed is read
 * with a relaxed load (the owner's own word: a marked one, inside this
 * thread's hand-over, reads as far behind and goes to the hand-over, which
 * returns at once).
 */
static inline void sc_batched_add_own_(sc_batched_t *c, const sc_batched_cfg *cfg,
                                       sc_batched_slot *slot, uint64_t n)
{
	uint64_t t = sc_dist_own_xadd_(&slot->total, n);
	/* relaxed: see above */
	if (t - atomic_load_explicit(&slot->handed, memory_order_relaxed) >= cfg->batch)
		sc_batched_hand_over_(c, slot);
}

static inline void sc_batched_inc(sc_batched_t *c, const sc_batched_cfg *cfg, sc_thread *t)
{
	if (__builtin_expect(t->index >= cfg->threads, 0)) {
		sc_batched_add_direct_(c, 1);
		return;
	}
	sc_batched_add_own_(c, cfg, &c->local[t->index], 1);
}

static inline void sc_batched_add(sc_batched_t *c, const sc_batched_cfg *cfg, sc_thread *t,
                                  uint64_t n)
{
	/*
	 * A batch or more at once (a decrement's two's complement too) goes
	 * straight to the shared word, so a slot's total never passes what was
	 * handed over by more than twice the batch.
	 */
	if (__builtin_expect(t->index >= cfg->threads || n >= cfg->batch, 0)) {
		sc_batched_add_direct_(c, n);
		return;
	}
	sc_batched_add_own_(c, cfg, &c->local[t->index], n);
}

/* The fast reading: the shared word, one load. */
static inline uint64_t sc_batched_get(const sc_batched_t *c, const sc_batched_cfg *cfg)
{
	(void)cfg;
	/* relaxed: a statistics read; exactness after flush comes from the caller's join. */
	return atomic_load_explicit(&c->shared, memory_order_relaxed);
}

/*
 * The exact reading: the overflow word and every slot's total, each only
 * growing (relaxed loads: any value a word held is a correct part of the
 * sum; a caller that synchronised with an updating thread sees at least
 * the total it had then). O(threads).
 */
static inline uint64_t sc_batched_get_sum(const sc_batched_t *c, const sc_batched_cfg *cfg)
{
	/* relaxed: see above */
	uint64_t sum = atomic_load_explicit(&c->overflow, memory_order_relaxed);
	for (uint32_t i = 0; i < cfg->threads; i++)
		sum += atomic_load_explicit(&c->local[i].total, memory_order_relaxed);
	return sum;
}

static inline void sc_batched_flush(sc_batched_t *c, const sc_batched_cfg *cfg, sc_thread *t)
{
	if (t->index >= cfg->threads)
		return; /* such a thread holds nothing back (see above) */
	sc_batched_slot *slot = &c->local[t->index];
	/* relaxed: the owner's own words: skip a slot with nothing held. */
	if (atomic_load_explicit(&slot->total, memory_order_relaxed) !=
	    atomic_load_explicit(&slot->handed, memory_order_relaxed))
		sc_batched_hand_over_(c, slot);
}

/*
 * The contract (sc_contract.h): the fast reading trails by at most B - 1
 * per thread that owns a slot (a signal handler's increments made while
 * its thread is inside a hand-over are held back with the thread's), also
 * while another thread forks (see fork() above); the sum is exact; both
 * are async-signal-safe; a thread holds increments back until it flushes.
 */
static inline uint64_t sc_batched_reading_fast(const sc_batched_t *c, const sc_batched_cfg *cfg)
{
	return sc_batched_get(c, cfg);
}
static inline uint64_t sc_batched_reading_sum(const sc_batched_t *c, const sc_batched_cfg *cfg)
{
	return sc_batched_get_sum(c, cfg);
}
static inline sc_counter_bound sc_batched_bound(const sc_batched_cfg *cfg, sc_reading r)
{
	sc_counter_bound b = sc_bound_of_kind_(SC_BOUND_EXACT);
	if (r != SC_READ_SUM) {
		b.kind = SC_BOUND_LAG;
		b.lag_per_thread = cfg->batch - 1;
		b.lag = (uint64_t)(cfg->batch - 1) * cfg->threads;
	}
	return b;
}
enum {
	SC_PROMISES_batched = SC_PROMISE_SIGNAL_SAFE | SC_PROMISE_FORK_EXACT |
	                      SC_PROMISE_FORK_FAST_EXACT |
	                      SC_PROMISE_READINGS_DIFFER | SC_PROMISE_HOLDS_BACK |
	                      SC_PROMISE_LAG_BOUNDED
};
#define SC_HOOKS_batched SC_HOOKS_NONE

SC_OP_DECLARE_DESCRIBE(batched)

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_BATCHED_H */
