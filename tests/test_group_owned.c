/* SPDX-License-Identifier: MIT */
/*
 * test_group_owned.c - one group, sc_group, held in the caller's storage
 * (sc_group_init, _init_placed, _init_attached, sc_group_destroy) and used
 * through the same functions as one on the heap: exact counts from threads
 * into a static group, a shared one counted into by a forked child, two
 * views in the caller's storage of one placed buffer, the errors, the
 * bytes, and sc_group_free on a group the caller holds (destroys, frees
 * nothing: AddressSanitizer builds fail on a free of static storage).
 * Deterministic: exact values, no timing.
 */
#include <scounters/scounters.h>

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

/* The inlined add reads a group's rows first: that layout is the ABI. */
SC_STATIC_ASSERT(offsetof(sc_group, rows_) == 0, "the rows first in sc_group");

enum { THREADS = 4, PER_THREAD = 100000, N = 5 };

static sc_group stats; /* a program's static group */

static void *count(void *arg)
{
	uint32_t k = (uint32_t)(uintptr_t)arg;
	for (int i = 0; i < PER_THREAD; i++) {
		sc_group_inc(&stats, k % N);
		sc_group_add(&stats, N - 1, 2);
	}
	return NULL;
}

static void test_static_group(void)
{
	sc_err err;
	pthread_t t[THREADS];
	uint64_t v[N], w[N];
	tap_ok(sc_group_init(&stats, N, NULL, SC_PERCPU_PRIVATE, &err) == 0,
	       "init in static storage");
	tap_ok(sc_group_size(&stats) == N, "size %u", sc_group_size(&stats));
	for (uintptr_t k = 0; k < THREADS; k++)
		pthread_create(&t[k], NULL, count, (void *)k);
	for (int k = 0; k < THREADS; k++)
		pthread_join(t[k], NULL);
	/* thread k counts PER_THREAD into k % N, and 2 x PER_THREAD into N - 1 */
	uint64_t want[N] = { 0 };
	for (uint32_t k = 0; k < THREADS; k++)
		want[k % N] += PER_THREAD;
	want[N - 1] += 2u * THREADS * PER_THREAD;
	tap_ok(sc_group_get_all(&stats, v, N) == 0 && memcmp(v, want, sizeof v) == 0,
	       "exact from %d threads: %llu %llu %llu %llu %llu", THREADS, (unsigned long long)v[0],
	       (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[3],
	       (unsigned long long)v[4]);
	tap_ok(sc_group_read_and_reset(&stats, w, N) == 0 && memcmp(w, want, sizeof w) == 0,
	       "read_and_reset reads the same");
	tap_ok(sc_group_get(&stats, 0) == 0 && sc_group_get(&stats, N - 1) == 0,
	       "and restarts each counter from 0");
	errno = 0;
	tap_ok(sc_group_inc(&stats, N) == -1 && errno == EINVAL && sc_group_get(&stats, N) == 0,
	       "an index out of range: -1, EINVAL, nothing counted");
	errno = 0;
	tap_ok(sc_group_read_and_reset(&stats, w, N - 1) == -1 && errno == ERANGE,
	       "a short output: -1, ERANGE");
	sc_group_add(&stats, 1, 7);
	sc_group_reset(&stats);
	tap_ok(sc_group_get(&stats, 1) == 0, "reset: back to 0");

	/* the bytes: what the group holds, without the structure the caller owns */
	sc_group *heap = sc_group_new(N, &err);
	tap_ok(heap && sc_group_bytes(heap) == sc_group_bytes(&stats) + sizeof(sc_group),
	       "bytes: the heap group's less its structure (%zu, %zu)",
	       heap ? sc_group_bytes(heap) : 0, sc_group_bytes(&stats));
	char a[128], b[128];
	sc_group_describe(&stats, a, sizeof a);
	sc_group_describe(heap, b, sizeof b);
	tap_ok(strcmp(a, b) == 0 && strcmp(sc_group_path(&stats), sc_group_path(heap)) == 0,
	       "described as the heap group is (%s)", a);
	sc_group_free(heap);

	/* sc_group_free on a group the caller holds destroys it and frees nothing */
	sc_group_free(&stats);
	tap_ok(sc_group_init(&stats, 1, NULL, SC_PERCPU_PRIVATE, &err) == 0 &&
	               sc_group_inc(&stats, 0) == 0 && sc_group_get(&stats, 0) == 1,
	       "made again after sc_group_free");
	sc_group_destroy(&stats);
}

static void test_errors(void)
{
	sc_err err;
	sc_group g;
	err.msg[0] = '\0';
	tap_ok(sc_group_init(&g, 0, NULL, SC_PERCPU_PRIVATE, &err) == -1 &&
	               strstr(err.msg, "0 counters"),
	       "0 counters refused: %s", err.msg);
	tap_ok(sc_group_init(&g, SC_GROUP_MAX_COUNTERS + 1, NULL, SC_PERCPU_PRIVATE, NULL) == -1,
	       "too many counters refused, err NULL");
	err.msg[0] = '\0';
	tap_ok(sc_group_init(&g, 1, NULL, 7, &err) == -1 && strstr(err.msg, "how=7"),
	       "another how refused: %s", err.msg);
	sc_env env = { 1, 1, SC_GROUP_MAX_SLOTS + 1 };
	tap_ok(sc_group_init(&g, 1, &env, SC_PERCPU_PRIVATE, &err) == -1, "too many rows refused");
	env.cpus = 3;
	tap_ok(sc_group_init(&g, 2, &env, SC_PERCPU_PRIVATE, &err) == 0 &&
	               strstr(sc_group_describe(&g, err.msg, sizeof err.msg) > 0 ? err.msg : "",
	                      "slots=3;"),
	       "env->cpus rows (%s)", err.msg);
	sc_group_destroy(&g);
}

/* SC_PERCPU_SHARED in the caller's storage: a forked child counts into the same rows. */
static void test_shared_fork(void)
{
	sc_err err;
	sc_group g;
	if (sc_group_init(&g, 2, NULL, SC_PERCPU_SHARED, &err)) {
		tap_ok(0, "shared init: %s", err.msg);
		return;
	}
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 50000; i++)
			sc_group_inc(&g, 1);
		_exit(0);
	}
	for (int i = 0; i < 30000; i++)
		sc_group_inc(&g, 1);
	int status = 1;
	waitpid(pid, &status, 0);
	tap_ok(status == 0 && sc_group_get(&g, 1) == 80000 && sc_group_get(&g, 0) == 0,
	       "shared: parent and forked child counted exactly (%llu of 80000)",
	       (unsigned long long)sc_group_get(&g, 1));
	sc_group_destroy(&g);
}

/* Two views in the caller's storage of one placed buffer. */
static void test_placed_views(void)
{
	sc_err err;
	sc_group maker, view;
	size_t size = sc_group_placed_bytes(3, 2);
	void *buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		tap_ok(0, "mmap %zu bytes", size);
		return;
	}
	tap_ok(size > 0 && size == sc_pcgroup_placed_bytes(3, 2), "placed bytes (%zu) as before",
	       size);
	err.msg[0] = '\0';
	tap_ok(sc_group_init_attached(&view, buf, size, &err) == -1 && err.msg[0],
	       "attach before any group is made: refused (%s)", err.msg);
	tap_ok(sc_group_init_placed(&maker, buf, size, 3, 2, &err) == 0, "made in the buffer");
	tap_ok(sc_group_init_attached(&view, buf, size, &err) == 0, "a second view attached");
	sc_group_add(&maker, 2, 40);
	sc_group_inc(&view, 2);
	tap_ok(sc_group_get(&view, 2) == 41 && sc_group_get(&maker, 2) == 41,
	       "either view counts and reads the same rows");
	tap_ok(strcmp(sc_group_path(&view), sc_group_path(&maker)) == 0 &&
	               strcmp(sc_group_path(&view), "rseq-mm_cid") != 0,
	       "indexed for sharing (%s)", sc_group_path(&view));
	sc_group_destroy(&view);
	sc_group_destroy(&maker);
	tap_ok(sc_group_init_attached(&view, buf, size, &err) == 0 && sc_group_get(&view, 2) == 41,
	       "destroying the views left the buffer whole");
	sc_group_destroy(&view);
	munmap(buf, size);
}

int main(void)
{
	tap_plan_lazy();
	test_static_group();
	test_errors();
	test_shared_fork();
	test_placed_views();
	return tap_done();
}
