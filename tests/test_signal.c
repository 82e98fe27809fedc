/* SPDX-License-Identifier: MIT */
/*
 * test_signal.c - handle increments from signal handlers, as
 * sc_counter_inc(3) promises them async-signal-safe:
 *
 *  1. The main thread increments a Sharded, a Batched (batch=3), a PerCPU
 *     and a FetchAdd counter LOOPS times while an interval timer
 *     (setitimer ITIMER_REAL, every 50 us) raises SIGALRM, whose handler
 *     increments each of them once. Every counter must end at LOOPS plus
 *     the handler's calls. Before the fix the handler's Sharded and Batched
 *     increments that interrupted the thread's own (between its load and
 *     its store) were lost; at a quarter of these loops (2,000,000, about
 *     4,000 signals) Sharded lost 1 to 4 in 2 of 3 runs and Batched 6 to 15
 *     in 3 of 3; PerCPU and FetchAdd were exact.
 *  2. THREADS threads that have made no thread context each make and free
 *     Batched counters (taking the library's registry lock) until a signal
 *     sent by the main thread (pthread_kill) lands; its handler makes the
 *     thread's first sc_counter_inc. A handler that interrupted the lock's
 *     holder waited for itself before the fix (a deadlock, found here by a
 *     5 s join timeout); now it counts on the shared slot. The counter must
 *     hold one increment per thread. Before the fix, with 300 threads, 2 of
 *     3 runs deadlocked (at the 29th and the 106th thread): about one
 *     thread in 150, so 1,000 threads deadlock with probability 0.999.
 *
 * No timing is asserted; the interleavings vary, the checks are exact.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <scounters/scounters.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define LOOPS 8000000
#define THREADS 1000

static const char *const names[] = {"Sharded", "Batched", "PerCPU", "FetchAdd"};
#define NC (sizeof names / sizeof *names)
static sc_counter *ctr[NC];
static volatile sig_atomic_t handled;

static void on_alarm(int sig)
{
	(void)sig;
	for (size_t i = 0; i < NC; i++)
		sc_counter_inc(ctr[i]);
	handled++;
}

static void timer_part(void)
{
	sc_err err;
	for (size_t i = 0; i < NC; i++) {
		ctr[i] = sc_counter_new(names[i], i == 1 ? "batch=3" : "", &err);
		if (!ctr[i]) {
			printf("Bail out! %s: %s\n", names[i], err.msg);
			exit(1);
		}
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 50}, {0, 50}};
	setitimer(ITIMER_REAL, &it, NULL);
	for (long n = 0; n < LOOPS; n++)
		for (size_t i = 0; i < NC; i++)
			sc_counter_inc(ctr[i]);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	uint64_t want = (uint64_t)LOOPS + (uint64_t)handled;
	tap_diag("%d handler calls", (int)handled);
	for (size_t i = 0; i < NC; i++) {
		sc_counter_flush(ctr[i]);
		uint64_t got = sc_counter_get_sum(ctr[i]);
		tap_ok(got == want && handled > 0,
		       "%s: %llu increments from the loop and its SIGALRM handler, %llu counted",
		       names[i], (unsigned long long)want, (unsigned long long)got);
	}
}

/* part 2 */
static sc_counter *first;
static __thread volatile sig_atomic_t got_signal;

static void on_usr1(int sig)
{
	(void)sig;
	sc_counter_inc(first); /* this thread's first call that needs a context */
	got_signal = 1;
}

static void *churn(void *arg)
{
	(void)arg;
	sc_err err;
	while (!got_signal) {
		sc_counter *c = sc_counter_new("Batched", "", &err);
		sc_counter_free(c);
	}
	return NULL;
}

static void first_call_part(void)
{
	sc_err err;
	first = sc_counter_new("Sharded", "", &err);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	int done = 0;
	for (int i = 0; i < THREADS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, churn, NULL)) {
			printf("Bail out! pthread_create\n");
			exit(1);
		}
		/* a few microseconds of churn, varied, before the signal */
		struct timespec d = {0, 2000 + (i % 17) * 700};
		nanosleep(&d, NULL);
		pthread_kill(t, SIGUSR1);
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 5;
		if (pthread_timedjoin_np(t, NULL, &until) != 0) {
			tap_diag("thread %d: no return in 5 s (its handler waits for the lock it holds)",
			         i);
			break;
		}
		done++;
	}
	tap_ok(done == THREADS, "%d of %d threads whose first increment was in a handler returned",
	       done, THREADS);
	if (done == THREADS)
		tap_ok(sc_counter_get(first) == THREADS, "their %llu increments counted (%d made)",
		       (unsigned long long)sc_counter_get(first), THREADS);
	else
		tap_ok(0, "a thread is stuck: increments not checked");
}

int main(void)
{
	tap_plan_lazy();
	timer_part();
	first_call_part();
	fflush(stdout);
	int rc = tap_done();
	_exit(rc); /* a stuck thread must not keep the process alive */
}
