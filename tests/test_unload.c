/* SPDX-License-Identifier: MIT */
/*
 * test_unload.c - a host that loads and unloads a plugin linking
 * libscounters (tests/unload_plugin.c), as a program with plugins does.
 * The host itself does not link the library: the plugin
 * brings it, so without -z nodelete the library went with the plugin.
 *
 *  1. The library's constructor never aborts the host: in a child process
 *     that took every pthread key first, loading the plugin works and
 *     making a counter fails with a message naming pthread_key_create
 *     (before: abort() inside the constructor, at dlopen).
 *  2. 2 x ROUNDS rounds: load the plugin, count N times on each of 8
 *     threads and on the main thread (PerCPU, sc_group, sc_pcgroup and the
 *     cursor inlined into the plugin, Sharded; in the first ROUNDS each
 *     thread then calls sc_rseq_prepare_unload, in the others none does:
 *     the sequences' descriptors are the library's copies, sc_rseq.h),
 *     check every count exact, close the plugin
 *     while the 8 threads live on, deliver a signal to the main thread and
 *     to each of them (the kernel reads the thread's rseq_cs at signal
 *     delivery, and killed a thread whose descriptor was unmapped), and
 *     let them exit (the library's thread-exit destructor runs after the
 *     plugin is gone). libscounters must still be mapped after each close.
 *  3. CYCLES load-count-close cycles on the main thread and on two
 *     threads that live through all of them, none calling
 *     sc_rseq_prepare_unload; after each close every one of the three is
 *     signalled (each load made a pthread key before the fix, and the
 *     1024th load aborted the host; without the descriptors' copies, the
 *     first signal after a close killed the process).
 *
 * Before the fix (no -z nodelete, no sc_rseq_prepare_unload) every run
 * died in round 1: the threads crashed at exit (their destructor was
 * unmapped) and the main thread's signal after the close killed it
 * (SIGSEGV); with nodelete only, the signal after the close still killed
 * it (the PerCPU and sc_pcgroup descriptors are in the plugin).
 * Deterministic: every check is exact. The plugin's path is argv[1], else
 * $TOP_BUILDDIR/tests/.libs/libscunload.so; argv[2] names the object that
 * holds the library (libscounters.so; the plugin itself when it links
 * libscounters.a, tests/test_pic_static.sh).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define THREADS 8
#define ROUNDS 20
#define N 20000
#define CYCLES 1100

typedef int (*open_fn)(char *, size_t);
typedef void (*count_fn)(unsigned, int);
typedef int (*check_fn)(uint64_t, char *, size_t);
typedef void (*close_fn)(void);

static char plugin_path[4096];
static void *plugin;
static open_fn p_open;
static count_fn p_count;
static check_fn p_check;
static close_fn p_close;

static atomic_int signals;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int counted, closed;

static void on_signal(int sig)
{
	(void)sig;
	atomic_fetch_add(&signals, 1);
}

/* Load the plugin and find its four functions: 0, or -1 with a diagnostic. */
static int load(void)
{
	plugin = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
	if (!plugin) {
		tap_diag("dlopen: %s", dlerror());
		return -1;
	}
	p_open = (open_fn)dlsym(plugin, "plugin_open");
	p_count = (count_fn)dlsym(plugin, "plugin_count");
	p_check = (check_fn)dlsym(plugin, "plugin_check");
	p_close = (close_fn)dlsym(plugin, "plugin_close");
	if (!p_open || !p_count || !p_check || !p_close) {
		tap_diag("dlsym: %s", dlerror());
		return -1;
	}
	return 0;
}

/* The object that holds the library: argv[2], else libscounters.so. */
static const char *lib_name = "libscounters.so";

static int find_lib(struct dl_phdr_info *info, size_t size, void *found)
{
	(void)size;
	if (strstr(info->dlpi_name, lib_name))
		*(int *)found = 1;
	return 0;
}

/* Whether the library (lib_name) is mapped in this process. */
static int lib_mapped(void)
{
	int found = 0;
	dl_iterate_phdr(find_lib, &found);
	return found;
}

/* 1: in a child with no pthread key left, loading works and making a counter fails. */
static void keys_exhausted(void)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_key_t k;
		while (pthread_key_create(&k, NULL) == 0)
			;
		if (load())
			_exit(2);
		char msg[256] = "";
		if (p_open(msg, sizeof msg) == 0) {
			fprintf(stderr, "child: a counter was made without a key\n");
			_exit(3);
		}
		if (!strstr(msg, "pthread_key_create")) {
			fprintf(stderr, "child: message '%s'\n", msg);
			_exit(4);
		}
		_exit(0);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	       "no pthread key left: the plugin loads, making a counter is an error naming "
	       "pthread_key_create (child %s %d)",
	       WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
}

static int prepare; /* whether plugin_count calls sc_rseq_prepare_unload (set before a round) */

static void *worker(void *arg)
{
	(void)arg;
	p_count(N, prepare);
	pthread_mutex_lock(&lock);
	counted++;
	pthread_cond_broadcast(&cond);
	while (!closed)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	/* the plugin is gone: a signal makes the kernel read this thread's rseq_cs */
	raise(SIGUSR1);
	return NULL; /* the library's exit destructor runs now */
}

/* 2: one round; 0 when every check held. */
static int round_once(int r)
{
	if (load())
		return -1;
	char msg[256];
	if (p_open(msg, sizeof msg)) {
		tap_diag("round %d: plugin_open: %s", r, msg);
		return -1;
	}
	counted = closed = 0;
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL)) {
			tap_diag("pthread_create failed");
			exit(1);
		}
	pthread_mutex_lock(&lock);
	while (counted < THREADS)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	p_count(N, prepare); /* the main thread counts last: its rseq_cs names a plugin sequence */
	int bad = p_check((uint64_t)(THREADS + 1) * N, msg, sizeof msg);
	if (bad)
		tap_diag("round %d: %s", r, msg);
	p_close();
	dlclose(plugin);
	raise(SIGUSR1);
	int mapped = lib_mapped();
	if (!mapped)
		tap_diag("round %d: %s unmapped with the plugin", r, lib_name);
	pthread_mutex_lock(&lock);
	closed = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return bad || !mapped ? -1 : 0;
}

/* 3: the cycles, two threads living through them (CYCLERS + the main thread count) */
#define CYCLERS 2
static pthread_barrier_t go, done;
static atomic_int stop;

static void *cycler(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&go);
		if (atomic_load(&stop))
			return NULL;
		p_count(1, 0);
		pthread_barrier_wait(&done);
	}
}

static void cycles_with_live_threads(void)
{
	pthread_t t[CYCLERS];
	pthread_barrier_init(&go, NULL, CYCLERS + 1);
	pthread_barrier_init(&done, NULL, CYCLERS + 1);
	for (int i = 0; i < CYCLERS; i++)
		if (pthread_create(&t[i], NULL, cycler, NULL)) {
			tap_diag("pthread_create failed");
			exit(1);
		}
	int before = atomic_load(&signals), cycles = 0;
	char msg[256];
	for (int i = 0; i < CYCLES; i++) {
		if (load() || p_open(msg, sizeof msg))
			break;
		pthread_barrier_wait(&go);
		p_count(1, 0);
		pthread_barrier_wait(&done);
		int bad = p_check(CYCLERS + 1, msg, sizeof msg);
		if (bad)
			tap_diag("cycle %d: %s", i, msg);
		p_close();
		dlclose(plugin);
		/* the kernel reads each thread's rseq_cs as it delivers the signal */
		for (int k = 0; k < CYCLERS; k++)
			pthread_kill(t[k], SIGUSR1);
		raise(SIGUSR1);
		if (bad)
			break;
		cycles++;
	}
	atomic_store(&stop, 1);
	pthread_barrier_wait(&go);
	for (int i = 0; i < CYCLERS; i++)
		pthread_join(t[i], NULL);
	tap_ok(cycles == CYCLES,
	       "%d of %d load-count-close cycles by 3 threads that live on, none calling "
	       "sc_rseq_prepare_unload (a pthread key per load before: the 1024th load aborted)",
	       cycles, CYCLES);
	tap_ok(atomic_load(&signals) - before == (CYCLES) * (CYCLERS + 1),
	       "%d signals after the closes delivered and handled, no thread killed",
	       atomic_load(&signals) - before);
}

int main(int argc, char **argv)
{
	const char *top = getenv("TOP_BUILDDIR");
	if (argc > 2)
		lib_name = argv[2];
	if (argc > 1)
		snprintf(plugin_path, sizeof plugin_path, "%s", argv[1]);
	else
		snprintf(plugin_path, sizeof plugin_path, "%s/tests/.libs/libscunload.so",
		         top ? top : ".");
	/*
	 * A build without shared libraries (configure --disable-shared, as the
	 * aarch64 cross-check's) makes no plugin and no libscounters.so to bring:
	 * nothing here can be loaded. A missing plugin beside a shared library is
	 * a failure of the build, not a skip.
	 */
	char shared[4096];
	snprintf(shared, sizeof shared, "%s/counters/.libs/libscounters.so", top ? top : ".");
	if (argc <= 1 && access(plugin_path, R_OK) != 0 && access(shared, R_OK) != 0)
		tap_skip_all("no shared libraries in this build (configure --disable-shared): no plugin to load");
	tap_plan_lazy();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);

	tap_ok(!lib_mapped(), "the host does not link the library (the plugin brings it)");
	keys_exhausted();

	int ok = 0;
	prepare = 1;
	for (int r = 0; r < ROUNDS; r++)
		ok += round_once(r) == 0;
	tap_ok(ok == ROUNDS,
	       "%d of %d rounds with sc_rseq_prepare_unload: 9 threads count exactly, the plugin "
	       "closed, each thread signalled and exits after the close, the library still mapped",
	       ok, ROUNDS);
	ok = 0;
	prepare = 0;
	for (int r = 0; r < ROUNDS; r++)
		ok += round_once(ROUNDS + r) == 0;
	tap_ok(ok == ROUNDS,
	       "%d of %d rounds without sc_rseq_prepare_unload: the same, no thread killed", ok,
	       ROUNDS);
	tap_ok(atomic_load(&signals) == 2 * ROUNDS * (THREADS + 1),
	       "%d signals delivered and handled", atomic_load(&signals));
	cycles_with_live_threads();
	return tap_done();
}
