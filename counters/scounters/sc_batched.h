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
 * Batched (Linux lib/percpu_counter.c's batched add; seed 003's periodic
 * sampler): a shared 64-bit word plus one padded local count per thread.
 * An increment adds 1 to the thread's local count; when that reaches B
 * (parameter batch, default 64, 1 .. 2^30) it restarts from 0 and adds B to
 * the shared word with one fetch-and-add (in that order: see
 * sc_batched_hand_over_). sc_batched_flush adds what is left;
 * every thread calls it when it is done. get reads the shared word only.
 *
 * Staleness contract: a thread holds at most B-1 unflushed increments, so
 * while n threads run, get >= (increments completed before the get) - n(B-1),
 * and get is exact once every thread's flush happened before it (for
 * instance, the threads were joined). get never exceeds the number of
 * increments begun.
 *
 * Thread indices as Sharded: 0 .. env->threads-1 own a local count and
 * must be unique among running threads; only the owner touches its local
 * count while increments run, and reset zeroes them (only while nothing
 * increments). A thread whose index is at or above env->threads has no
 * local count and adds straight to the shared word (a fetch-and-add per
 * increment, exact, never out of bounds); its flush does nothing.
 *
 * Range: 2^64 total, wraps. Errors: config fails when batch is outside
 * 1 .. 2^30 or env->threads is 0 or above SC_DIST_MAX_SLOTS; init fails when
 * out of memory. Bytes per counter: 16 in the array, padded to a line (the
 * shared word is written); env->threads * SC_LINE_SIZE on the heap.
 */
#define SC_BATCHED_DEFAULT 64u
#define SC_BATCHED_MAX (1u << 30)

typedef struct sc_batched {
	SC_ATOMIC(uint64_t) shared;
	sc_padded_u64 *local; /* env->threads slots; the pointer is read-only after init */
} sc_batched_t;

typedef struct sc_batched_cfg {
	uint32_t threads;
	uint32_t batch;
} sc_batched_cfg;

SC_DIST_OPS_(batched)
SC_OP_RANGE_FULL(batched)

/*
 * The hand-over of the held increments (a full batch, or a flush): the local
 * count is marked first (a reading then takes it as 0), then what it held
 * goes to the shared word, then the mark and the batch leave the count. In that order a
 * full reading (sc_counter_get_sum: the shared word with acquire, then the
 * local counts) never counts a batch twice: if it sees the shared word with
 * the batch added, the release below makes the emptied local count visible
 * to its later loads (the fetch-and-adds on the shared word form one release
 * sequence, so a later value carries every earlier hand-over). Between the
 * two stores the batch is in neither word: a reading then misses it, within
 * the lag the contract allows. The release costs nothing on x86 (a locked
 * add is a full barrier) and is on the once-per-batch path only.
 */
/*
 * fork(). While a thread hands a batch over, its local count carries
 * SC_BATCHED_HANDING_ beside the count (a full reading takes such a count
 * as 0: the batch may already be in the shared word). The library's fork handler (context.c) raises
 * sc_batched_fork_gate_ and waits until no handle counter's local count
 * carries the mark: a hand-over that began before is finished (the batch is
 * in the shared word, in the child's copy too), one that begins after sees
 * the gate and keeps its batch in the local count, which the child's
 * handler hands over. So a child's copy counts every increment completed
 * before the fork. Library-internal; written by the fork handlers only.
 */
extern SC_ATOMIC(uint32_t) sc_batched_fork_gate_;
#define SC_BATCHED_HANDING_ (UINT64_C(1) << 63)

static inline void sc_batched_hand_over_(sc_batched_t *c, SC_ATOMIC(uint64_t) *local)
{
	/*
	 * The mark set, the count kept: whatever the local count holds now is
	 * handed over, once (a signal handler may have added to it since the
	 * caller saw it reach the batch). seq_cst, with the gate's load below:
	 * against the fork handler's seq_cst store of the gate and load of the
	 * count (either it sees the mark and waits, or this sees the gate).
	 */
	uint64_t n = atomic_fetch_or_explicit(local, SC_BATCHED_HANDING_, memory_order_seq_cst);
	if (n & SC_BATCHED_HANDING_)
		return; /* a handler inside this thread's own hand-over, which finishes it */
	if (atomic_load_explicit(&sc_batched_fork_gate_, memory_order_seq_cst)) {
		/* a fork is being prepared: the batch stays held. relaxed: own count */
		atomic_fetch_sub_explicit(local, SC_BATCHED_HANDING_, memory_order_relaxed);
		return;
	}
	if (n)
		/* release: see above; get's relaxed readers need only the sum. */
		atomic_fetch_add_explicit(&c->shared, n, memory_order_release);
	/*
	 * The batch and the mark taken out at once (what handlers added stays).
	 * release: the fork handler that sees the mark gone sees the batch added.
	 */
	atomic_fetch_sub_explicit(local, SC_BATCHED_HANDING_ + n, memory_order_release);
}

static inline void sc_batched_inc(sc_batched_t *c, const sc_batched_cfg *cfg, sc_thread *t)
{
	if (__builtin_expect(t->index >= cfg->threads, 0)) {
		/* relaxed: as the flush below; no local count for this index. */
		atomic_fetch_add_explicit(&c->shared, 1, memory_order_relaxed);
		return;
	}
	SC_ATOMIC(uint64_t) *local = &c->local[t->index].v;
	/*
	 * Only this thread writes its local count during a run; one add that
	 * returns the new count (sc_dist_own_xadd_), so that a signal handler's
	 * increment on this thread is not lost. It is an atomic (not a plain
	 * word the compiler could keep in a register across a measured loop)
	 * so every increment is a real memory update, as in the other variants.
	 */
	if (sc_dist_own_xadd_(local, 1) >= cfg->batch)
		sc_batched_hand_over_(c, local);
}

static inline void sc_batched_add(sc_batched_t *c, const sc_batched_cfg *cfg, sc_thread *t,
                                  uint64_t n)
{
	if (__builtin_expect(t->index >= cfg->threads, 0)) {
		/* relaxed: as in sc_batched_inc. */
		atomic_fetch_add_explicit(&c->shared, n, memory_order_relaxed);
		return;
	}
	if (__builtin_expect(n >= cfg->batch, 0)) {
		/*
		 * A batch or more at once (a decrement's two's complement too):
		 * straight to the shared word, so a local count stays below twice
		 * the batch and never reaches the hand-over's mark. relaxed: as
		 * the overflow path; no local count is involved.
		 */
		atomic_fetch_add_explicit(&c->shared, n, memory_order_relaxed);
		return;
	}
	SC_ATOMIC(uint64_t) *local = &c->local[t->index].v;
	if (sc_dist_own_xadd_(local, n) >= cfg->batch) /* as in sc_batched_inc */
		sc_batched_hand_over_(c, local);
}

static inline uint64_t sc_batched_get(const sc_batched_t *c, const sc_batched_cfg *cfg)
{
	(void)cfg;
	/* relaxed: a statistics read; exactness after flush comes from the caller's join. */
	return atomic_load_explicit(&c->shared, memory_order_relaxed);
}

static inline void sc_batched_flush(sc_batched_t *c, const sc_batched_cfg *cfg, sc_thread *t)
{
	if (t->index >= cfg->threads)
		return; /* such a thread holds nothing back (see above) */
	SC_ATOMIC(uint64_t) *local = &c->local[t->index].v;
	/* relaxed: as in sc_batched_inc (this thread's own count): skip an empty one. */
	if (atomic_load_explicit(local, memory_order_relaxed))
		sc_batched_hand_over_(c, local);
}

SC_OP_DECLARE_DESCRIBE(batched)

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_BATCHED_H */
