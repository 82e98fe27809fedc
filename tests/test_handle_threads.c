/* SPDX-License-Identifier: MIT */
/*
 * test_handle_threads.c - the handle API (sc_counter.h) from many threads
 * that never register: they get contexts of their own, each with its own
 * index and generator state; precise counters are exact from 8 threads and
 * from more threads than they have slots; Batched hands over a thread's
 * held increments when the thread exits; indices of exited threads are
 * reused; read_and_reset loses nothing while 8 threads increment; Batched's
 * get_sum never exceeds the increments begun.
 *
 * Deterministic: the library seeds every context from a fixed base and a
 * sequence number; the precise checks are exact comparisons. The one
 * statistical check (probabilistic variants from 8 threads, |error| <= 5 x
 * the default 1% RSTDV bound, each variant's bound being at most 1% at its
 * defaults) has a false-failure probability below 5.7e-7 each (normal tail
 * at z = 5; concurrency does not raise the variance above the sequential
 * bound, see tests/testprob.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <scounters/scounters.h>

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "tap.h"
#include "testutil.h"

/* ---- many threads, no registration ---- */

#define ROUNDS 3000
static const uint64_t ADDS[] = { 1, 7, 0, 64, 2, 1000, 3 };
#define N_ADDS (sizeof ADDS / sizeof ADDS[0])

static uint64_t per_thread_total(void)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < ROUNDS; i++)
		s += 1 + ADDS[i % N_ADDS];
	return s;
}

static void worker_inc_add(test_thread_arg *a)
{
	sc_counter *c = a->shared;
	for (unsigned i = 0; i < ROUNDS; i++) {
		sc_counter_inc(c);
		sc_counter_add(c, ADDS[i % N_ADDS]);
	}
}

static void check_total(sc_counter *c, const sc_variant *v, uint64_t truth, const char *what)
{
	uint64_t got = sc_counter_get(c);
	if (v->kind == SC_PRECISE)
		tap_ok(got == truth, "%s_%s_exact (%llu of %llu)", v->name, what,
		       (unsigned long long)got, (unsigned long long)truth);
	else if (v->kind == SC_RACY)
		tap_ok(got <= truth, "%s_%s_never_above_truth", v->name, what);
	else
		tap_ok(fabs((double)got / (double)truth - 1) <= 0.05,
		       "%s_%s_within_5x_its_1%%_bound (%+.3f%%)", v->name, what,
		       100 * ((double)got / (double)truth - 1));
}

static void test_threads_never_register(unsigned threads, bool precise_only)
{
	char what[64];
	snprintf(what, sizeof what, "%u_unregistered_threads", threads);
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		if (precise_only && v->kind != SC_PRECISE)
			continue;
		sc_err err;
		sc_counter *c = sc_counter_new(v->name, "", &err);
		if (!tap_ok(c != NULL, "%s_new: %s", v->name, c ? "ok" : err.msg))
			continue;
		test_run_threads(threads, worker_inc_add, c);
		check_total(c, v, threads * per_thread_total(), what);
		sc_counter_free(c);
	}
}

/* Batched: each thread holds fewer than B increments and exits; the exit flushes them. */
static void worker_few(test_thread_arg *a)
{
	for (int i = 0; i < 10; i++)
		sc_counter_inc(a->shared);
}

static void test_batched_flushed_at_thread_exit(void)
{
	sc_err err;
	sc_counter *c = sc_counter_new("Batched", "batch=1000", &err);
	test_run_threads(8, worker_few, c);
	tap_ok(sc_counter_get(c) == 80, "batched_threads_flush_at_exit (%llu of 80)",
	       (unsigned long long)sc_counter_get(c));
	sc_counter_inc(c); /* the main thread never exits during the test: flush by hand */
	bool held = sc_counter_get(c) == 80;
	sc_counter_flush(c);
	tap_ok(held && sc_counter_get(c) == 81, "batched_flush_hands_over_the_callers_count");
	sc_counter_free(c);
}

/* Threads one after the other: indices come back, the count stays exact. */
static void *one_inc(void *arg)
{
	sc_counter_inc(arg);
	return (void *)(uintptr_t)sc_thread_self()->index;
}

static void test_indices_reused(void)
{
	sc_err err;
	sc_counter *c = sc_counter_new("Sharded", "", &err);
	uint32_t max_index = 0;
	for (int i = 0; i < 200; i++) {
		pthread_t tid;
		void *ret;
		pthread_create(&tid, NULL, one_inc, c);
		pthread_join(tid, &ret);
		if ((uint32_t)(uintptr_t)ret > max_index)
			max_index = (uint32_t)(uintptr_t)ret;
	}
	tap_ok(sc_counter_get(c) == 200 && max_index <= 1,
	       "indices_of_exited_threads_reused (200 threads in turn, largest index %u)",
	       max_index);
	sc_counter_free(c);
}
/* Every thread's context has its own index and its own generator state. */
typedef struct ctx_seen {
	pthread_mutex_t lock;
	uint32_t index[8], rng[8];
} ctx_seen;

static void worker_ctx(test_thread_arg *a)
{
	ctx_seen *s = a->shared;
	sc_thread *t = sc_thread_self();
	pthread_mutex_lock(&s->lock);
	s->index[a->index] = t->index;
	s->rng[a->index] = t->rng;
	pthread_mutex_unlock(&s->lock);
	/* hold the index until every thread has taken one */
	pthread_barrier_wait(a->gate);
}

static void test_contexts_distinct(void)
{
	ctx_seen s;
	memset(&s, 0, sizeof s);
	pthread_mutex_init(&s.lock, NULL);
	test_run_threads(8, worker_ctx, &s);
	bool distinct = true;
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < i; j++)
			distinct = distinct && s.index[i] != s.index[j] && s.rng[i] != s.rng[j];
	tap_ok(distinct, "contexts_have_distinct_indices_and_rng_streams");
	pthread_mutex_destroy(&s.lock);
}

/* ---- read_and_reset while 8 threads increment ---- */

#define RR_REPEAT 4 /* each writer makes RR_REPEAT x per_thread_total() */

typedef struct rr_shared {
	sc_counter *c;
	SC_ATOMIC(unsigned) running; /* writers not done yet */
	SC_ATOMIC(uint64_t) readings; /* taken so far by the reader */
} rr_shared;

static void worker_rr(test_thread_arg *a)
{
	rr_shared *s = a->shared;
	for (unsigned r = 0; r < RR_REPEAT; r++) {
		for (unsigned i = 0; i < ROUNDS; i++) {
			sc_counter_inc(s->c);
			sc_counter_add(s->c, ADDS[i % N_ADDS]);
			if (i % 64 == 0) {
				/* wait for a fresh reading, so that readings surely fall among increments */
				uint64_t seen = atomic_load(&s->readings);
				while (atomic_load(&s->readings) == seen)
					sched_yield();
			}
		}
	}
	atomic_fetch_sub(&s->running, 1);
}

typedef struct rr_reader {
	rr_shared *s;
	uint64_t sum, readings, nonzero;
} rr_reader;

static void *reader(void *arg)
{
	rr_reader *r = arg;
	while (atomic_load(&r->s->running) > 0) {
		uint64_t x = sc_counter_read_and_reset(r->s->c);
		r->sum += x;
		r->readings++;
		r->nonzero += x != 0;
		atomic_fetch_add(&r->s->readings, 1);
		sched_yield();
	}
	return NULL;
}

static void test_read_and_reset_loses_nothing(void)
{
	const unsigned writers = 8;
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		if (v->kind != SC_PRECISE)
			continue;
		sc_err err;
		rr_shared s = { sc_counter_new(v->name, "", &err), writers, 0 };
		if (!s.c)
			continue;
		rr_reader r = { &s, 0, 0, 0 };
		pthread_t rt;
		pthread_create(&rt, NULL, reader, &r);
		test_run_threads(writers, worker_rr, &s);
		pthread_join(rt, NULL);
		uint64_t last = sc_counter_read_and_reset(s.c);
		uint64_t truth = writers * RR_REPEAT * per_thread_total();
		tap_ok(r.sum + last == truth && sc_counter_get(s.c) == 0,
		       "%s_read_and_reset_counts_each_increment_once (%llu readings during the "
		       "increments, %llu of them non-zero; %llu + final %llu of %llu)",
		       v->name, (unsigned long long)r.readings, (unsigned long long)r.nonzero,
		       (unsigned long long)r.sum, (unsigned long long)last,
		       (unsigned long long)truth);
		sc_counter_free(s.c);
	}
}

/*
 * Batched get_sum never exceeds the increments begun: writers count each
 * increment in begun[] before making it (then a release fence, so a reader
 * that sees the increment in the counter sees it in begun[] too: the
 * fence-fence synchronisation of C11 7.17.4), a reader compares get_sum with
 * the sum of begun[] read after the reading (after an acquire fence). With a
 * small batch a flush happens every other increment; reading a thread's
 * local count before its flush and the shared word after it counted the
 * batch twice (seen: 73 of 3,000,000 readings above, up to +62 at batch 64).
 * Deterministic in what it checks (every reading must pass); how many
 * readings race with a flush varies from run to run.
 */
#define SUM_WRITERS 3
static SC_ATOMIC(uint64_t) sum_begun[SUM_WRITERS];
static SC_ATOMIC(int) sum_stop;

static void sum_writer(test_thread_arg *a)
{
	sc_counter *c = a->shared;
	if (a->index == SUM_WRITERS) { /* the reader */
		uint64_t readings = test_scaled(2000000, 50000), above = 0, worst = 0;
		for (uint64_t r = 0; r < readings; r++) {
			uint64_t got = sc_counter_get_sum(c);
			atomic_thread_fence(memory_order_acquire);
			uint64_t begun = 0;
			for (unsigned i = 0; i < SUM_WRITERS; i++)
				begun += atomic_load_explicit(&sum_begun[i], memory_order_relaxed);
			if (got > begun) {
				above++;
				worst = got - begun > worst ? got - begun : worst;
			}
		}
		atomic_store(&sum_stop, 1);
		tap_ok(above == 0,
		       "Batched get_sum never exceeds the increments begun while 3 "
		       "threads flush (batch=2): %llu of %llu readings above, by up to %llu",
		       (unsigned long long)above, (unsigned long long)readings,
		       (unsigned long long)worst);
		return;
	}
	while (!atomic_load_explicit(&sum_stop, memory_order_relaxed)) {
		for (int i = 0; i < 64; i++) {
			/* relaxed: only this thread writes its entry; the fence publishes it */
			atomic_store_explicit(&sum_begun[a->index],
			                      atomic_load_explicit(&sum_begun[a->index],
			                                           memory_order_relaxed) +
			                              1,
			                      memory_order_relaxed);
			atomic_thread_fence(memory_order_release);
			sc_counter_inc(c);
		}
	}
}

static void test_batched_sum_never_above_begun(void)
{
	sc_counter *c = sc_counter_new("Batched", "batch=2", NULL);
	test_run_threads(SUM_WRITERS + 1, sum_writer, c);
	sc_counter_free(c);
}
int main(void)
{
	tap_plan_lazy();
	/*
	 * The main thread's context first (sequence number 0), so that the
	 * threads below take the sequence numbers, and so the seeds, from 1 on.
	 */
	(void)sc_thread_self();
	test_threads_never_register(8, false);
	test_threads_never_register(40, true); /* more threads than the 8 (2-core) slots */
	test_batched_flushed_at_thread_exit();
	test_indices_reused();
	test_contexts_distinct();
	test_read_and_reset_loses_nothing();
	test_batched_sum_never_above_begun();
	return tap_done();
}
