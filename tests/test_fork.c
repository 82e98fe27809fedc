/* SPDX-License-Identifier: MIT */
/*
 * test_fork.c - the handle API survives fork() while other threads use it.
 * Six threads loop creating short-lived threads that count (taking and
 * freeing thread indices under the registry lock), making and freeing
 * Batched counters (the flush list, under the same lock) and resetting a
 * shared counter (its reset lock); meanwhile the main thread forks 60 times.
 * Each child makes four threads that count into a new Batched counter,
 * joins them, resets the shared counter, and checks: the count is exact; the new threads got the lowest
 * thread indices (every index the parent's threads held is free in the
 * child, where those threads do not exist); and the forking thread's random
 * stream differs from the parent's. A child that deadlocks on a lock some
 * parent thread held at the fork is killed (its own alarm at 10 s, far
 * beyond the milliseconds it needs, and the parent's SIGKILL at 20 s should
 * the alarm never be delivered) and counts as a failure, so the test ends
 * instead of hanging.
 *
 * First, in a process of its own, a program's pthread_atfork handlers that
 * call the library (prepare: sc_counter_read_and_reset; child:
 * sc_counter_new), registered before the program's first use of it: the
 * library registers its handlers when it is loaded, so they wrap the
 * program's (registered at first use, they deadlocked the handlers).
 *
 * Skipped under qemu-user (SC_TEST_EMULATOR=qemu-aarch64, set by
 * tests/cross-check.sh): the emulator cannot fork a multi-threaded guest
 * safely, and its child hangs inside qemu's own locks, whatever the library
 * does (seen: a test run that never ended). A system emulator
 * (qemu-system-*) runs a real kernel, where the test runs.
 *
 * Deterministic in what it checks; the interleavings vary from run to run.
 * Without the fork handlers every child failed the index and stream checks,
 * and about one child in 60 deadlocked (20,000 live Batched counters make
 * each thread exit hold the registry lock for a while).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <scounters/scounters.h>

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"

#define WORKERS 6
#define FORKS 60
#define CHILD_THREADS 4
#define CHILD_INCS 1000
#define LIVE 20000

static SC_ATOMIC(int) stop;
static sc_counter *shared;

static void *short_lived(void *arg)
{
	(void)arg;
	sc_counter_inc(shared);
	return NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_t t;
		if (pthread_create(&t, NULL, short_lived, NULL) == 0)
			pthread_join(t, NULL);
		for (int k = 0; k < 5; k++) {
			sc_counter *b = sc_counter_new("Batched", "batch=8", NULL);
			sc_counter_inc(b);
			sc_counter_free(b);
			sc_counter_read_and_reset(shared);
		}
	}
	return NULL;
}

static void *child_thread(void *arg)
{
	sc_counter *b = arg;
	for (int i = 0; i < CHILD_INCS; i++)
		sc_counter_inc(b);
	return NULL;
}

/* The child: 0 if all is well, else a bit per failed check. */
static int child_main(uint32_t parent_rng)
{
	alarm(10);
	int bad = 0;
	if (sc_thread_self()->rng == parent_rng)
		bad |= 4;
	sc_counter *b = sc_counter_new("Batched", "batch=64", NULL);
	pthread_t t[CHILD_THREADS];
	for (int i = 0; i < CHILD_THREADS; i++) {
		pthread_create(&t[i], NULL, child_thread, b);
		pthread_join(t[i], NULL); /* one at a time: each takes the lowest free index */
	}
	/* each thread exited, flushing and freeing its index, before the next began */
	if (sc_counter_get(b) != (uint64_t)CHILD_THREADS * CHILD_INCS)
		bad |= 1;
	sc_counter_free(b);
	sc_counter_read_and_reset(shared); /* its reset lock, which a worker may have held */
	return bad;
}

/*
 * Wait for child pid at most limit_s seconds, then kill it: its status in
 * *status (a killed child is WIFSIGNALED with SIGKILL). -1 if waitpid failed.
 */
static int wait_bounded(pid_t pid, int *status, int limit_s)
{
	struct timespec nap = {0, 1000000}; /* 1 ms */
	for (long waited_ms = 0;; waited_ms++) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0)
			return -1;
		if (waited_ms >= 1000L * limit_s) {
			kill(pid, SIGKILL);
			return waitpid(pid, status, 0) == pid ? 0 : -1;
		}
		nanosleep(&nap, NULL);
	}
}

/*
 * A program's own fork handlers, registered before its first use of the
 * library (in main, after the library was loaded): prepare resets a precise
 * counter (its reset lock), child makes, counts and frees a counter (the
 * registry lock). With the library's handlers registered at its first use,
 * they ran inside ours: prepare after ours had taken the reset locks, child
 * before ours had made the registry lock anew; both waited for themselves.
 */
static sc_counter *handler_counter; /* made after the handlers were registered */
static SC_ATOMIC(int) handler_prepared, handler_child_ok;

static void user_prepare(void)
{
	if (handler_counter) {
		sc_counter_read_and_reset(handler_counter);
		atomic_store(&handler_prepared, 1);
	}
}

static void user_child(void)
{
	sc_counter *c = sc_counter_new("Batched", "batch=4", NULL);
	if (c) {
		sc_counter_add(c, 9);
		atomic_store(&handler_child_ok, sc_counter_get_sum(c) == 9);
		sc_counter_free(c);
	}
}

/* A thread that holds 7 increments back in a Batched counter until told to exit. */
static sc_counter *held_counter;
static int held_pipe[2];
static SC_ATOMIC(int) held_ready;

static void *holder(void *arg)
{
	(void)arg;
	sc_counter_add(held_counter, 7);
	atomic_store(&held_ready, 1);
	char ch;
	while (read(held_pipe[0], &ch, 1) < 0) /* until the parent has forked */
		;
	return NULL;
}

/*
 * In a process of its own (a deadlock there is its alarm's SIGALRM, not a
 * hung test): register the handlers before any library call, make a
 * counter, fork. 0 if the child's handler counted, the parent's prepare
 * handler ran, and the child's copy of a Batched counter counts the 7
 * increments a parent thread held back at the fork (in get too: the
 * child's handler hands them over); else a bit per failure (the child's
 * deadlock shows as 8, the held-back increments as 32).
 */
static int handlers_main(void)
{
	alarm(10);
	if (pthread_atfork(user_prepare, NULL, user_child) != 0 || pipe(held_pipe) != 0)
		return 1;
	handler_counter = sc_counter_new("FetchAdd", "", NULL);
	sc_counter_inc(handler_counter);
	held_counter = sc_counter_new("Batched", "batch=64", NULL);
	pthread_t th;
	if (pthread_create(&th, NULL, holder, NULL) != 0)
		return 1;
	while (!atomic_load(&held_ready))
		usleep(100);
	pid_t pid = fork();
	if (pid == 0) {
		int bad = atomic_load(&handler_child_ok) ? 0 : 1;
		if (sc_counter_get(held_counter) != 7 || sc_counter_get_sum(held_counter) != 7)
			bad |= 32;
		_exit(bad);
	}
	if (write(held_pipe[1], "x", 1) != 1)
		return 1;
	pthread_join(th, NULL);
	int status = 0, bad = 0;
	if (pid < 0 || wait_bounded(pid, &status, 5) != 0)
		return 2;
	if (WIFSIGNALED(status))
		bad |= 8;
	else
		bad |= WEXITSTATUS(status) & 32 ? 32 : WEXITSTATUS(status) ? 4 : 0;
	if (!atomic_load(&handler_prepared) || sc_counter_get(handler_counter) != 0)
		bad |= 16;
	return bad;
}

/* A thread that reports its index. */
static void *index_of_new_thread(void *arg)
{
	*(uint32_t *)arg = sc_thread_self()->index;
	return NULL;
}

/*
 * AddressSanitizer's allocator (GCC 12's libasan) is not fork-safe: a child
 * blocks forever in its allocator lock (SizeClassAllocator64::
 * GetFromAllocator, seen with gdb) when another parent thread allocated at
 * the fork, whatever the library does. The checks need a fork-safe malloc.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SC_FORK_UNSAFE_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SC_FORK_UNSAFE_MALLOC 1
#endif
#endif

/* Handlers registered before this process uses the library run outside its locks. */
static void check_handlers_first(void)
{
	pid_t hp = fork();
	if (hp == 0)
		_exit(handlers_main());
	int hstatus = 0;
	bool hdone = hp > 0 && wait_bounded(hp, &hstatus, 20) == 0;
	tap_ok(hdone && WIFEXITED(hstatus) && WEXITSTATUS(hstatus) == 0,
	       "fork handlers registered before the library's first use may call it: prepare "
	       "resets, child makes a counter; the child's copy of a Batched counter counts what "
	       "a parent thread held back (%s %d)",
	       !hdone ? "not waited" : WIFSIGNALED(hstatus) ? "killed by signal" : "status",
	       !hdone ? 0 : WIFSIGNALED(hstatus) ? WTERMSIG(hstatus) : WEXITSTATUS(hstatus));
}

/* What the children of the forks under load found wrong. */
typedef struct fork_tally {
	int failures, deadlocks, stale_index, same_stream, miscount;
} fork_tally;

/* One fork while the workers run: its child checks itself; the tally counts what it found. */
static void fork_once(fork_tally *n)
{
	uint32_t parent_rng = sc_thread_self()->rng;
	pid_t pid = fork();
	if (pid == 0) {
		int bad = child_main(parent_rng);
		uint32_t fresh = UINT32_MAX;
		pthread_t t;
		pthread_create(&t, NULL, index_of_new_thread, &fresh);
		pthread_join(t, NULL);
		/* only the forking thread holds an index: a new thread takes 0 or 1 */
		if (fresh > 1)
			bad |= 2;
		_exit(bad);
	}
	int status = 0;
	if (pid < 0 || wait_bounded(pid, &status, 20) != 0) {
		n->failures++;
		return;
	}
	if (WIFSIGNALED(status)) {
		n->deadlocks += WTERMSIG(status) == SIGALRM || WTERMSIG(status) == SIGKILL;
		n->failures++;
	} else if (WEXITSTATUS(status) != 0) {
		int bad = WEXITSTATUS(status);
		n->miscount += (bad & 1) != 0;
		n->stale_index += (bad & 2) != 0;
		n->same_stream += (bad & 4) != 0;
		n->failures++;
	}
}

int main(void)
{
	tap_plan_lazy();
#ifdef SC_FORK_UNSAFE_MALLOC
	tap_skip_all("AddressSanitizer's allocator is not fork-safe in a multi-threaded process");
#endif
	const char *emu = getenv("SC_TEST_EMULATOR");
	if (emu && *emu && strncmp(emu, "qemu-system", 11) != 0)
		tap_skip_all("qemu-user cannot fork a multi-threaded guest (its child hangs in the "
		             "emulator)");
	check_handlers_first();
	alarm(600); /* the whole test, generously: each child has its own 10 s alarm */
	shared = sc_counter_new("FetchAdd", "", NULL);
	sc_counter_inc(shared); /* the main thread's context */
	/*
	 * Live Batched counters, which every exiting thread flushes under the
	 * registry lock: the lock is then held long enough at each exit that a
	 * fork often finds it taken.
	 */
	sc_counter *live[LIVE];
	for (int i = 0; i < LIVE; i++)
		live[i] = sc_counter_new("Batched", "", NULL);
	pthread_t w[WORKERS];
	for (int i = 0; i < WORKERS; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	fork_tally n = { 0 };
	for (int f = 0; f < FORKS; f++) {
		usleep(500);
		fork_once(&n);
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	tap_ok(n.deadlocks == 0,
	       "fork under load: no child deadlocked (%d of %d killed by their alarm or the parent)",
	       n.deadlocks, FORKS);
	tap_ok(n.miscount == 0, "fork under load: every child's Batched counter exact (%d wrong)",
	       n.miscount);
	tap_ok(n.stale_index == 0,
	       "fork under load: a child's new thread takes a low index, the "
	       "parent's threads' indices being free (%d stale)",
	       n.stale_index);
	tap_ok(n.same_stream == 0,
	       "fork under load: the child's forking thread has a new random stream (%d the same)",
	       n.same_stream);
	tap_ok(n.failures == 0, "fork under load: %d of %d children ended well", FORKS - n.failures,
	       FORKS);
	for (int i = 0; i < LIVE; i++)
		sc_counter_free(live[i]);
	sc_counter_free(shared);
	return tap_done();
}
