/* SPDX-License-Identifier: MIT */
/*
 * counter_priv.h - what the handle API's files share (library-internal):
 * the counter's layout, and the registry of live counters in context.c.
 */
#ifndef SC_COUNTER_PRIV_H
#define SC_COUNTER_PRIV_H

/* The library's own, exported, sc_counter_inc and sc_counter_add are in context.c. */
#define SC_COUNTER_NO_INLINE 1
#include <scounters/scounters.h>

#include "node_priv.h"

#include <pthread.h>

struct sc_counter {
	sc_counter_head_ head;     /* first: what sc_counter.h's inline increment reads */
	sc_table t;                /* a table of one counter */
	void *obj;                 /* the counter: sc_table_at(&t, 0) */
	int id;                    /* enum sc_variant_id */
	uint64_t mask;             /* precise: the value's range, 2^bits - 1 (v->range) */
	SC_ATOMIC(uint64_t) origin; /* precise: the raw value at the last read_and_reset */
	pthread_mutex_t reset_lock; /* serialises read_and_reset of a precise counter */
	sc_counter *next, **pprev; /* in flush_list (SC_PROMISE_HOLDS_BACK only) */
	sc_counter *all_next, **all_pprev; /* in all_list */
};

/*
 * The thread-exit key and fork handlers made (once, at load; context.c):
 * 0, or -1 with a message in err when the process had no key or memory
 * left for them then (every later call says the same).
 */
int sc_handle_init_(sc_err *err) SC_HIDDEN;
/* c entered in the registry (fork and thread exit visit it; after
 * sc_handle_init_ returned 0) and taken out of it. */
void sc_handle_register_(sc_counter *c) SC_HIDDEN;
void sc_handle_unregister_(sc_counter *c) SC_HIDDEN;

/*
 * Batched across fork() (batched_fork.c), for the fork handlers. own: the
 * forking thread's index (UINT32_MAX: it has none), whose slot is skipped:
 * a handler of its own that forks may have interrupted its hand-over, which
 * it finishes itself, in both processes. _wait returns once no other slot
 * of b is inside a hand-over (the gate up, so none begins); _adopt, in the
 * child, hands over what every other slot holds back, which no thread of
 * the child owns.
 */
void sc_batched_fork_wait_(sc_batched_t *b, const sc_batched_cfg *cfg, uint32_t own) SC_HIDDEN;
void sc_batched_fork_adopt_(sc_batched_t *b, const sc_batched_cfg *cfg, uint32_t own) SC_HIDDEN;

#endif
