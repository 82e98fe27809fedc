/* SPDX-License-Identifier: MIT */
/*
 * testgroup_storm.h - the storm tests/test_group.c runs on the per-CPU
 * counter groups and on PerCPU: WRITERS threads, more than the CPUs, each
 * moving itself to another CPU every HOP_EVERY increments while adding to
 * NCOUNTERS counters (one row straddling cache lines), a thread sending
 * them signals whose handler adds to SIG_COUNTER, and optionally threads
 * calling read_and_reset; storm_run returns what every counter must hold.
 */
#ifndef SC_TESTS_TESTGROUP_STORM_H
#define SC_TESTS_TESTGROUP_STORM_H

#include <scounters/scounters.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define WRITERS 8
#define NCOUNTERS 37 /* not a multiple of 8: counters of one row straddle lines */
#define SIG_COUNTER (NCOUNTERS - 1)
#define HOP_EVERY 256

typedef struct storm {
	sc_pcgroup *g; /* the group, or NULL: the single counter below */
	const sc_variant *v; /* PerCPU (or another) through the registry */
	void *c, *cfg;
	uint64_t per_writer;
	int cursor; /* PerCPU's array through thread cursors (sc_percpu_cursor_add) */
	unsigned resetters; /* threads calling read_and_reset while writers run */
	SC_ATOMIC(unsigned) writers_done;
	SC_ATOMIC(uint64_t) signals; /* handler runs */
	SC_ATOMIC(uint64_t) read_total[NCOUNTERS];
	pthread_t writer[WRITERS];
	SC_ATOMIC(unsigned) started;
} storm;

static storm *the_storm; /* for the signal handler */

/* A cursor on PerCPU's array (the storm's counter), for the calling thread; none without. */
static inline sc_percpu_cursor storm_cursor(storm *s)
{
	sc_percpu_cursor none = { NULL, NULL, NULL, NULL, 0, 0, 0 };
	if (!s->cursor)
		return none;
	const sc_percpu_cfg *cfg = s->cfg;
	unsigned char *slot0 = (unsigned char *)(void *)((sc_percpu_t *)s->c)->slots;
	return sc_percpu_cursor_get(slot0, SC_LINE_SIZE, cfg->cpus, cfg->index);
}

static inline void storm_add(storm *s, uint32_t i, uint64_t n)
{
	if (s->cursor) {
		/* the handler's own cursor, made in the handler: nested in a writer's sequence */
		sc_percpu_cursor cur = storm_cursor(s);
		sc_percpu_cursor_add(&cur, n);
	} else if (s->g) {
		sc_pcgroup_add(s->g, i, n);
	} else {
		sc_thread t = { 0, 0, 1, 1 };
		s->v->add(s->c, s->cfg, &t, n);
	}
}

static inline void on_signal(int sig)
{
	(void)sig;
	int saved = errno;
	storm *s = the_storm;
	if (s) {
		storm_add(s, SIG_COUNTER, 1);
		/* relaxed: a tally read after the threads are joined. */
		atomic_fetch_add_explicit(&s->signals, 1, memory_order_relaxed);
	}
	errno = saved;
}

static inline void *storm_writer(void *arg)
{
	storm *s = the_storm;
	unsigned index = (unsigned)(uintptr_t)arg;
	cpu_hopper h;
	hopper_init(&h);
	sc_percpu_cursor cur = storm_cursor(s);
	atomic_fetch_add(&s->started, 1);
	for (uint64_t k = 0; k < s->per_writer; k++) {
		/* counters 0 .. NCOUNTERS-2; the handler owns the last one */
		if (s->cursor)
			sc_percpu_cursor_add(&cur, 1 + (k & 1)); /* one cursor for the whole run */
		else
			storm_add(s, (uint32_t)((index + k) % (NCOUNTERS - 1)), 1 + (k & 1));
		if (k % HOP_EVERY == 0)
			hopper_move(&h, index + (unsigned)(k / HOP_EVERY));
	}
	hopper_restore(&h);
	atomic_fetch_add(&s->writers_done, 1);
	return NULL;
}

static inline void accumulate(storm *s, const uint64_t *out)
{
	for (uint32_t i = 0; i < NCOUNTERS; i++)
		atomic_fetch_add(&s->read_total[i], out[i]);
}

static inline void *storm_resetter(void *arg)
{
	storm *s = arg;
	uint64_t out[NCOUNTERS], scratch[NCOUNTERS];
	/* alternately with the caller's scratch (row by row) and without (counter by counter) */
	for (unsigned k = 0; atomic_load(&s->writers_done) < WRITERS; k++) {
		sc_pcgroup_read_and_reset(s->g, out, NCOUNTERS, k % 2 ? scratch : NULL);
		accumulate(s, out);
	}
	return NULL;
}

/* Signals to the writers, round robin, until they are all done. */
static inline void *storm_signaller(void *arg)
{
	storm *s = arg;
	unsigned k = 0;
	while (atomic_load(&s->started) < WRITERS)
		sched_yield();
	while (atomic_load(&s->writers_done) < WRITERS) {
		pthread_kill(s->writer[k++ % WRITERS], SIGUSR1);
		if (k % 64 == 0)
			sched_yield();
	}
	return NULL;
}

/* Run the storm; the totals each counter must have (the handler's one last). */
static inline void storm_run(storm *s, uint64_t *want)
{
	pthread_t sig, res[2];
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	the_storm = s;
	sigaction(SIGUSR1, &sa, &old);
	for (unsigned w = 0; w < WRITERS; w++)
		if (pthread_create(&s->writer[w], NULL, storm_writer, (void *)(uintptr_t)w))
			abort();
	if (pthread_create(&sig, NULL, storm_signaller, s))
		abort();
	for (unsigned r = 0; r < s->resetters; r++)
		if (pthread_create(&res[r], NULL, storm_resetter, s))
			abort();
	/* the signaller first: it must not signal a writer that was joined (freed) */
	pthread_join(sig, NULL);
	for (unsigned w = 0; w < WRITERS; w++)
		pthread_join(s->writer[w], NULL);
	for (unsigned r = 0; r < s->resetters; r++)
		pthread_join(res[r], NULL);
	sigaction(SIGUSR1, &old, NULL);
	the_storm = NULL;
	memset(want, 0, NCOUNTERS * sizeof *want);
	for (unsigned w = 0; w < WRITERS; w++)
		for (uint64_t k = 0; k < s->per_writer; k++)
			want[(w + k) % (NCOUNTERS - 1)] += 1 + (k & 1);
	want[SIG_COUNTER] = atomic_load(&s->signals);
}

#endif
