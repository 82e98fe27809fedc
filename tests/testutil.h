/*
 * testutil.h - helpers shared by the test programs: run a function on n
 * threads released together by a barrier, and a few statistics.
 */
#ifndef SC_TESTUTIL_H
#define SC_TESTUTIL_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

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

#endif /* SC_TESTUTIL_H */
