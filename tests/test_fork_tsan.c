/* SPDX-License-Identifier: MIT */
/*
 * test_fork_tsan.c - fork while other threads hold thread contexts, then
 * count from two threads in the child, in a form ThreadSanitizer can judge
 * (the program is in PRECISE_TESTS, which CI runs under
 * -fsanitize=thread). Two threads of the parent take thread indices and
 * count into a Sharded and a Batched handle counter, and exit (so the
 * registry was written by threads other than the forking one; TSan cannot
 * follow a child of a process with live threads that starts threads of its
 * own: it stops it with "dup thread"); the
 * main thread forks 20 times; each child starts two threads that take
 * indices and count 10,000 times each into a new Batched counter (batch=7)
 * and into the parent's Batched counter, joins them, and checks both counts
 * exact. A child's failure, a TSan report in it (TSan exits 66) or a
 * deadlock (alarm at 10 s) fails the test.
 *
 * Before the fix the child's atfork handler made registry_lock anew with
 * pthread_mutex_init while the forking thread held it (undefined), and
 * TSan reported data races (in index_take, sc_handle_register_) in each of
 * the 20 children. Deterministic in what it checks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <scounters/scounters.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define FORKS 20
#define PER_THREAD 10000

static sc_counter *shared_batched;
static sc_counter *shared_sharded;

static void *parent_worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < PER_THREAD; i++) {
		sc_counter_inc(shared_sharded);
		sc_counter_inc(shared_batched);
	}
	return NULL;
}

static void *child_worker(void *arg)
{
	sc_counter *c = arg;
	for (int i = 0; i < PER_THREAD; i++) {
		sc_counter_inc(c);
		sc_counter_inc(shared_batched);
	}
	return NULL;
}

/* The child: 2 threads count; exit 0 when both counts are exact. */
static int child(void)
{
	alarm(10);
	sc_err err;
	sc_counter_flush(shared_batched);
	uint64_t before = sc_counter_get_sum(shared_batched);
	sc_counter *c = sc_counter_new("Batched", "batch=7", &err);
	if (!c)
		return 2;
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, child_worker, c))
			return 3;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	uint64_t got = sc_counter_get_sum(c), got_shared = sc_counter_get_sum(shared_batched);
	sc_counter_free(c);
	if (got != 2 * PER_THREAD || got_shared - before != 2 * PER_THREAD) {
		fprintf(stderr, "child: %llu and %llu, expected %d each\n", (unsigned long long)got,
		        (unsigned long long)(got_shared - before), 2 * PER_THREAD);
		return 4;
	}
	return 0;
}

int main(void)
{
	tap_plan_lazy();
	sc_err err;
	shared_batched = sc_counter_new("Batched", "batch=5", &err);
	shared_sharded = sc_counter_new("Sharded", "", &err);
	if (!shared_batched || !shared_sharded) {
		printf("Bail out! sc_counter_new: %s\n", err.msg);
		return 1;
	}
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, parent_worker, NULL)) {
			printf("Bail out! pthread_create\n");
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	int ok = 0;
	for (int f = 0; f < FORKS; f++) {
		fflush(NULL);
		pid_t pid = fork();
		if (pid < 0) {
			printf("Bail out! fork\n");
			return 1;
		}
		if (pid == 0)
			_exit(child());
		int st = 0;
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			ok++;
		else
			tap_diag("child %d: %s %d", f, WIFEXITED(st) ? "exit" : "signal",
			         WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	}
	tap_ok(ok == FORKS, "%d of %d children counted exactly from 2 threads (no TSan report, "
	       "no deadlock)", ok, FORKS);
	sc_counter_free(shared_batched);
	sc_counter_free(shared_sharded);
	return tap_done();
}
