/* SPDX-License-Identifier: MIT */
/*
 * run_signals.c - interrupts (run.h), and the helper threads' sleep, priority
 * and CPU clock (run_priv.h).
 */
#include "run_priv.h"

#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Lock-free, so that the handler's store is async-signal-safe (C11 7.14.1.1). */
_Static_assert(ATOMIC_BOOL_LOCK_FREE == 2, "the abort flag must be lock-free");
static atomic_bool abort_flag;

const atomic_bool *run_abort_flag(void)
{
	return &abort_flag;
}
static volatile sig_atomic_t caught_signal;
/* Every signal whose default action ends the process and that a user or a
 * scheduler sends: each ends a run as SIGTERM does, leaving no temporary file. */
static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM};

/* Until run_started(): nothing is written yet, so a signal ends scbench at once. */
static volatile sig_atomic_t starting = 1;

static void on_signal(int sig)
{
	if (starting) {
		/* write and _exit are async-signal-safe; hwloc may be busy for minutes. */
		static const char msg[] = "scbench: interrupted during start-up; nothing written\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)w;
		_exit(128 + sig);
	}
	caught_signal = sig;
	/* relaxed: the flag carries no data; the joins after the phase order the rest. */
	atomic_store_explicit(&abort_flag, true, memory_order_relaxed);
}

void run_catch_signals(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a blocked open of a FIFO returns EINTR */
	/*
	 * SIGINT and SIGTERM are caught even when ignored at start (a shell
	 * ignores SIGINT in its background jobs): an interrupt must leave nothing
	 * half-written. The others, ignored, stay ignored (nohup's SIGHUP).
	 */
	for (size_t i = 0; i < sizeof caught_signals / sizeof caught_signals[0]; i++) {
		int sig = caught_signals[i];
		if (sig == SIGINT || sig == SIGTERM ||
		    (sigaction(sig, NULL, &old) == 0 && old.sa_handler != SIG_IGN))
			sigaction(sig, &sa, NULL);
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

void run_started(void)
{
	starting = 0;
}

int run_interrupted(void)
{
	return caught_signal;
}

static void caught_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof caught_signals / sizeof caught_signals[0]; i++)
		sigaddset(set, caught_signals[i]);
}

/*
 * The main thread's sleep: ends early on an interrupt. The signals are
 * blocked between the look at the flag and the wait, and ppoll unblocks
 * them atomically, so a signal cannot slip in between and be missed.
 */
void run_main_sleep(double sec)
{
	sigset_t set, old;
	caught_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	double end = wl_now() + sec;
	for (double left = sec; left > 0 && !run_interrupted(); left = end - wl_now()) {
		struct timespec ts = {(time_t)left, (long)((left - floor(left)) * 1e9)};
		ppoll(NULL, 0, &ts, &old);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * The helpers (the main thread, which ends a timed phase, and the reader)
 * sleep nearly all the time, but with more workers than PUs a waking helper
 * queues behind hundreds of spinning workers: at 256 threads on 2 PUs the
 * main thread's timer fired seconds late, stretching a 50 ms phase to 3 s,
 * and the reader got no sample. Run them at the lowest real-time priority
 * where allowed (root, CAP_SYS_NICE), so that a wake-up preempts a worker at
 * once; it costs the workers no more CPU than before. Without permission
 * they stay as they are (meta.json says which).
 */
static _Atomic int helper_priority = -1; /* -1 unknown, 0 normal, 1 SCHED_FIFO */

void run_helper_boost(void)
{
	struct sched_param sp = {.sched_priority = sched_get_priority_min(SCHED_FIFO)};
	int ok = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
	/* relaxed: a report for meta.json, read after the joins. */
	atomic_store_explicit(&helper_priority, ok, memory_order_relaxed);
}

void run_helper_unboost(void)
{
	struct sched_param sp = {.sched_priority = 0};
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

const char *run_helper_priority(void)
{
	switch (atomic_load_explicit(&helper_priority, memory_order_relaxed)) {
	case 1: return "SCHED_FIFO (lowest real-time priority): a wake-up preempts a worker at once";
	case 0: return "normal: no permission for SCHED_FIFO; with more workers than PUs a wake-up may wait behind them";
	default: return "unknown: no run";
	}
}

double run_thread_cpu_seconds(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double run_thread_wait_seconds(void)
{
	/* "run_ns wait_ns timeslices": the second field is the run queue's wait. */
	FILE *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long run_ns, wait_ns;
	int n = f ? fscanf(f, "%llu %llu", &run_ns, &wait_ns) : 0;
	if (f)
		fclose(f);
	return n == 2 ? (double)wait_ns * 1e-9 : NAN;
}

void run_block_signals(sigset_t *old)
{
	sigset_t set;
	caught_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

const char *run_signal_name(int sig)
{
	return sig == SIGINT  ? "SIGINT" :
	       sig == SIGTERM ? "SIGTERM" :
	       sig == SIGHUP  ? "SIGHUP" :
	                        "a signal";
}
