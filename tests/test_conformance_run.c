/* SPDX-License-Identifier: MIT */
/*
 * test_conformance_run.c - the conformance suite's bracketed run
 * (conformance.h): writer slots (plain, migrating, churning, taking the
 * counting signal), readers that bracket each reading and compare, and the
 * run that starts and joins them. No TAP output here.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "conformance.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include "testutil.h"

/* One bracketed update, i the writer's sequence number (varies the call). */
void cf_write_one(cf_run *r, uint64_t i)
{
	uint64_t n = (i % 7 == 3) ? 3 : 1;
	/* relaxed: begun only bounds readings from above; CF_FENCE orders it before the update. */
	atomic_fetch_add_explicit(&r->begun, n, memory_order_relaxed);
	CF_FENCE(memory_order_release);
	if (n == 3 && i % 2 && r->bound[1].kind != SC_BOUND_RSTDV && r->bound[1].kind != SC_BOUND_NONE)
		sc_counter_add_signed(r->c, 3);
	else if (n == 3)
		sc_counter_add(r->c, 3);
	else
		sc_counter_inc(r->c);
	/* release: a reader that acquires done sees the update completed. */
	atomic_fetch_add_explicit(&r->done, n, memory_order_release);
}

/* A writer slot's thread body for `count` updates, starting at sequence i0. */
typedef struct cf_writer {
	cf_run *r;
	unsigned slot;
	uint64_t i0, count;
} cf_writer;

static void *cf_writer_body(void *p)
{
	cf_writer *w = p;
	cf_run *r = w->r;
	cpu_hopper h;
	hopper_init(&h);
	if (r->mode & CF_SIGNAL)
		cf_signal_unblock();
	for (uint64_t i = 0; i < w->count; i++) {
		if ((r->mode & CF_MIGRATE) && i % 97 == 0 &&
		    hopper_move(&h, w->slot + (unsigned)((w->i0 + i) / 97)) >= 0)
			atomic_fetch_add_explicit(&r->migrations, 1, memory_order_relaxed);
		cf_write_one(r, w->i0 + i);
	}
	if (r->mode & CF_MIGRATE)
		hopper_restore(&h);
	/*
	 * The writer takes no more counting signals once its updates are done:
	 * a handler that runs while the thread exits, after the library's
	 * exit flush, leaves its Batched update held back in a slot no
	 * thread flushes again (get_fast then stays 1 to 6 below the count
	 * after every writer exited, in 3 of 6 runs of 2 writers, batch=8).
	 */
	if (r->mode & CF_SIGNAL) {
		sigset_t s;
		sigemptyset(&s);
		sigaddset(&s, SIGALRM);
		pthread_sigmask(SIG_BLOCK, &s, NULL);
	}
	return NULL;
}

/* A writer slot: one thread, or (CF_CHURN) a chain of threads one after another. */
static void *cf_writer_slot(void *p)
{
	cf_writer *w = p;
	cf_run *r = w->r;
	pthread_barrier_wait(r->gate); /* every writer alive at once: indices past the slots */
	if (!(r->mode & CF_CHURN)) {
		cf_writer_body(w);
	} else {
		for (uint64_t i = 0; i < r->per_writer; i += r->churn_every) {
			cf_writer g = {r, w->slot, i, r->per_writer - i < r->churn_every
			                                     ? r->per_writer - i : r->churn_every};
			pthread_t t;
			if (pthread_create(&t, NULL, cf_writer_body, &g))
				abort();
			pthread_join(t, NULL);
			atomic_fetch_add_explicit(&r->threads_made, 1, memory_order_relaxed);
		}
	}
	/* release: the readers' last pass (acquire) follows every update of this slot. */
	atomic_fetch_sub_explicit(&r->writers_left, 1, memory_order_release);
	return NULL;
}

static void cf_note_low(cf_run *r, int k, uint64_t by)
{
	atomic_fetch_add_explicit(&r->low[k], 1, memory_order_relaxed);
	uint64_t w = atomic_load_explicit(&r->worst_low, memory_order_relaxed);
	while (by > w && !atomic_compare_exchange_weak_explicit(&r->worst_low, &w, by,
	                                                        memory_order_relaxed,
	                                                        memory_order_relaxed))
		;
}

/* One pass of compare: x = done-1, done (not -1 when precise), begun+1 (not +1). */
/*
 * sc_counter_get_approx's interval, bracketed as a reading is: its lo at
 * most the updates begun after it, its hi at least those done before it.
 */
static void cf_approx_pass(cf_run *r)
{
	uint64_t d = atomic_load_explicit(&r->done, memory_order_acquire);
	sc_counter_approx a = sc_counter_get_approx(r->c);
	CF_FENCE(memory_order_acquire);
	uint64_t b = atomic_load_explicit(&r->begun, memory_order_acquire);
	atomic_fetch_add_explicit(&r->approx_calls, 1, memory_order_relaxed);
	if (a.lo > b || a.hi < d || a.lo > a.value || a.value > a.hi)
		atomic_fetch_add_explicit(&r->approx_missed, 1, memory_order_relaxed);
}

static void cf_compare_pass(cf_run *r)
{
	bool precise = r->bound[1].kind == SC_BOUND_EXACT;
	uint64_t d = atomic_load_explicit(&r->done, memory_order_acquire);
	int lo1 = d ? sc_counter_compare(r->c, d - 1) : 1;
	int lo2 = sc_counter_compare(r->c, d);
	uint64_t b0 = atomic_load_explicit(&r->begun, memory_order_acquire);
	int hi = sc_counter_compare(r->c, b0 + 1);
	CF_FENCE(memory_order_acquire);
	uint64_t b1 = atomic_load_explicit(&r->begun, memory_order_acquire);
	atomic_fetch_add_explicit(&r->cmp_calls, 3, memory_order_relaxed);
	if (precise && (lo1 < 0 || lo2 < 0))
		atomic_fetch_add_explicit(&r->cmp_low, 1, memory_order_relaxed);
	if (hi > 0 && b1 <= b0 + 1)
		atomic_fetch_add_explicit(&r->cmp_high, 1, memory_order_relaxed);
	if (cf_bracketed(&r->bound[0]))
		cf_approx_pass(r);
}

static void *cf_reader(void *p)
{
	cf_run *r = p;
	uint64_t n = 0;
	/* acquire: pairs with the slots' release, so the last pass sees every update. */
	while (atomic_load_explicit(&r->writers_left, memory_order_acquire) > 0) {
		for (int k = 0; k < CF_READINGS; k++) {
			unsigned g0 = atomic_load_explicit(&r->fork_gen, memory_order_seq_cst);
			uint64_t d = atomic_load_explicit(&r->done, memory_order_acquire);
			uint64_t v = cf_reading(r->c, k);
			CF_FENCE(memory_order_acquire);
			uint64_t b = atomic_load_explicit(&r->begun, memory_order_acquire);
			uint64_t by = 0;
			int s = cf_check(&r->bound[k == 2], r->writers, d, v, b, &by);
			/* seq_cst, with the forking thread's seq_cst updates of fork_gen. */
			unsigned g1 = atomic_load_explicit(&r->fork_gen, memory_order_seq_cst);
			bool in_fork = (g0 & 1) || g0 != g1;
			if (s > 0)
				atomic_fetch_add_explicit(&r->high[k], 1, memory_order_relaxed);
			else if (s < 0)
				cf_note_low(r, k, by);
			if (s < 0 && in_fork)
				atomic_fetch_add_explicit(&r->fork_window_low, 1, memory_order_relaxed);
			n++;
		}
		cf_compare_pass(r);
	}
	atomic_fetch_add_explicit(&r->readings, n, memory_order_relaxed);
	return NULL;
}

void cf_run_bracketed(cf_run *r)
{
	pthread_t wt[64], rt[8];
	cf_writer w[64];
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &block, &old); /* the threads inherit it; writers unblock */
	pthread_barrier_t gate;
	pthread_barrier_init(&gate, NULL, r->writers);
	r->gate = &gate;
	atomic_store_explicit(&r->writers_left, r->writers, memory_order_relaxed);
	for (unsigned i = 0; i < r->readers; i++)
		if (pthread_create(&rt[i], NULL, cf_reader, r))
			abort();
	for (unsigned i = 0; i < r->writers; i++) {
		w[i] = (cf_writer){r, i, 0, r->per_writer};
		if (pthread_create(&wt[i], NULL, cf_writer_slot, &w[i]))
			abort();
	}
	if (r->mode & CF_SIGNAL)
		cf_signal_arm(r);
	if (r->mode & CF_FORK)
		cf_fork_check(r);
	for (unsigned i = 0; i < r->writers; i++)
		pthread_join(wt[i], NULL);
	if (r->mode & CF_SIGNAL)
		cf_signal_disarm();
	for (unsigned i = 0; i < r->readers; i++)
		pthread_join(rt[i], NULL);
	pthread_barrier_destroy(&gate);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
