/* SPDX-License-Identifier: MIT */
/*
 * testutil.h - helpers shared by the test programs: run a function on n
 * threads released together by a barrier, a few statistics, a monotonic
 * clock, counters made through the registry from parameter strings, and
 * moving a thread between CPUs (needs _GNU_SOURCE, which the build defines).
 */
#ifndef SC_TESTUTIL_H
#define SC_TESTUTIL_H

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <scounters/scounters.h>

typedef struct test_thread_arg {
	unsigned index;
	unsigned nthreads;
	void *shared;
	pthread_barrier_t *gate;
	void (*fn)(struct test_thread_arg *);
} test_thread_arg;

static void *test_thread_main_(void *p)
{
	test_thread_arg *a = p;
	pthread_barrier_wait(a->gate);
	a->fn(a);
	return NULL;
}

/* Run fn on n threads (oversubscription is fine) that start together. */
static inline void test_run_threads(unsigned n, void (*fn)(test_thread_arg *), void *shared)
{
	pthread_t *tid = calloc(n, sizeof *tid);
	test_thread_arg *args = calloc(n, sizeof *args);
	pthread_barrier_t gate;
	if (!tid || !args)
		abort();
	pthread_barrier_init(&gate, NULL, n);
	for (unsigned i = 0; i < n; i++) {
		args[i] = (test_thread_arg){i, n, shared, &gate, fn};
		if (pthread_create(&tid[i], NULL, test_thread_main_, &args[i]))
			abort();
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&gate);
	free(args);
	free(tid);
}

/* Running mean and variance (Welford). */
typedef struct test_stats {
	double n, mean, m2, min, max;
} test_stats;

static inline void test_stats_add(test_stats *s, double x)
{
	if (s->n == 0)
		s->min = s->max = x;
	if (x < s->min)
		s->min = x;
	if (x > s->max)
		s->max = x;
	s->n += 1;
	double d = x - s->mean;
	s->mean += d / s->n;
	s->m2 += d * (x - s->mean);
}

static inline double test_stats_sd(const test_stats *s)
{
	return s->n > 1 ? sqrt(s->m2 / (s->n - 1)) : 0;
}

/* Seconds of CLOCK_MONOTONIC. */
static inline double test_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * sc_table_create with the parameters given as one string of space-separated
 * "key=value" items (NULL or "" for none). 0, or -1 with err set.
 */
static inline int test_table_open(sc_table *t, const sc_variant *v, const sc_env *env, size_t n,
                                  const char *params, sc_err *err)
{
	char kv[256]; /* the strings p points into, while the table is made */
	sc_params p;
	sc_params_clear(&p);
	memset(t, 0, sizeof *t); /* sc_table_destroy is safe on a table that failed */
	snprintf(kv, sizeof kv, "%s", params ? params : "");
	for (char *save, *tok = strtok_r(kv, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (sc_params_add(&p, tok, err))
			return -1;
	return sc_table_create(t, v, &p, env, n, err);
}

/*
 * SC_TEST_SCALE: a factor in (0, 1], 1 when unset, by which the heavier tests
 * shrink their sizes on slow machines and emulators (tests/cross-check.sh
 * runs the suite under qemu-user with it). Tests never skip a check for it,
 * and statistical ones recompute their bounds from the scaled size, so their
 * stated false-failure probabilities still hold. Anything else in the
 * variable is a hard error (exit 99), not a silent full-size run.
 */
static inline double test_scale(void)
{
	static double scale;
	if (scale > 0)
		return scale;
	const char *s = getenv("SC_TEST_SCALE");
	scale = 1;
	if (s && *s) {
		char *end;
		double v = strtod(s, &end);
		if (*end || !(v > 0 && v <= 1)) {
			fprintf(stderr, "SC_TEST_SCALE=%s: expected a number in (0, 1]\n", s);
			exit(99);
		}
		scale = v;
		if (scale < 1)
			printf("# SC_TEST_SCALE=%g: test sizes scaled down\n", scale);
	}
	return scale;
}

/*
 * SC_TEST_FULL=1 (make check-full, which .ci/run runs): the stress loops at
 * their full sizes; unset, empty or 0 (make check): at the smaller sizes each
 * such test states, with the failure-detection power it keeps there.
 * Anything else is a hard error (exit 99).
 */
static inline int test_full(void)
{
	const char *s = getenv("SC_TEST_FULL");
	if (!s || !*s || !strcmp(s, "0"))
		return 0;
	if (strcmp(s, "1")) {
		fprintf(stderr, "SC_TEST_FULL=%s: expected 0 or 1\n", s);
		exit(99);
	}
	return 1;
}

/* n scaled by test_scale(), rounded up, and never below min (nor above n). */
static inline uint64_t test_scaled(uint64_t n, uint64_t min)
{
	uint64_t m = (uint64_t)ceil((double)n * test_scale());
	return m < min ? (min < n ? min : n) : m;
}

/* ---- moving a thread between CPUs ------------------------------------------- */

typedef struct cpu_hopper {
	cpu_set_t orig;
	int ids[CPU_SETSIZE];
	int n;
	bool ok; /* affinity can be read and set */
} cpu_hopper;

static inline void hopper_init(cpu_hopper *h)
{
	h->n = 0;
	h->ok = sched_getaffinity(0, sizeof h->orig, &h->orig) == 0;
	for (int i = 0; h->ok && i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &h->orig))
			h->ids[h->n++] = i;
}

/* Move the calling thread to its k-th allowed CPU; the CPU id, or -1. */
static inline int hopper_move(cpu_hopper *h, unsigned k)
{
	if (!h->ok || h->n < 2)
		return -1;
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(h->ids[k % (unsigned)h->n], &one);
	if (sched_setaffinity(0, sizeof one, &one)) {
		h->ok = false;
		return -1;
	}
	return h->ids[k % (unsigned)h->n];
}

static inline void hopper_restore(cpu_hopper *h)
{
	if (h->ok)
		sched_setaffinity(0, sizeof h->orig, &h->orig);
}

#endif /* SC_TESTUTIL_H */
