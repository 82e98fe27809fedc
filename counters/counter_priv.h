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

#endif
