/* SPDX-License-Identifier: MIT */
/*
 * batched_fork.c - Batched across fork() (sc_batched.h): the gate that
 * holds new hand-overs back while the process is copied, the wait for those
 * already in flight, and the child's hand-over of what the parent's other
 * threads held back. The library's fork handlers (context.c) call these for
 * every live handle counter that holds updates back.
 */
#include "counter_priv.h"

#include <sched.h>

SC_ATOMIC(uint32_t) sc_batched_fork_gate_;

void sc_batched_fork_wait_(sc_batched_t *b, const sc_batched_cfg *cfg, uint32_t own)
{
	for (uint32_t i = 0; i < cfg->threads; i++) {
		if (i == own)
			continue;
		/* seq_cst: against the mark's store in sc_batched_hand_over_ (see there) */
		while (atomic_load_explicit(&b->local[i].handed, memory_order_seq_cst) &
		       SC_BATCHED_HANDING_)
			sched_yield();
	}
}

void sc_batched_fork_adopt_(sc_batched_t *b, const sc_batched_cfg *cfg, uint32_t own)
{
	for (uint32_t i = 0; i < cfg->threads; i++) {
		if (i == own)
			continue;
		/*
		 * A mark left here is a hand-over that had not added to the
		 * shared word when the process was copied (it saw the gate, or
		 * had not yet read it): what the slot's total holds beyond the
		 * handed word is not in the shared word, and goes there now.
		 * Relaxed: the child has one thread.
		 */
		sc_batched_slot *slot = &b->local[i];
		uint64_t t = atomic_load_explicit(&slot->total, memory_order_relaxed);
		uint64_t h = atomic_load_explicit(&slot->handed, memory_order_relaxed) &
		             ~SC_BATCHED_HANDING_;
		if (t != h)
			atomic_fetch_add_explicit(&b->shared, t - h, memory_order_relaxed);
		atomic_store_explicit(&slot->handed, t, memory_order_relaxed);
	}
}
