/* SPDX-License-Identifier: MIT */
/*
 * test_group_shared.c - a per-CPU group made for shared memory
 * (sc_pcgroup_init_as with SC_PERCPU_SHARED): processes forked after init
 * count into the same rows, and the total is exact. Under mm_cid (the
 * index of a private array) each single-threaded process holds id 0, so
 * the 4 processes would add to one word from both CPUs with plain adds
 * and lose increments (1.3 M of 20 M in the review that found it); cpu_id
 * gives each CPU's word one writer at a time. The same through a thread's
 * cursor (sc_percpu_cursor_add) on a shared per-CPU array: the children
 * inherit the parent's cursor, with the id it kept, across the fork.
 * Deterministic: an exact total, no timing.
 */
#include <scounters/scounters.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#define PROCS 4
#define PER_PROC 5000000u
#define NCOUNTERS 3

/*
 * PROCS children each add PER_PROC to counter 1 (and 1 to counter 2),
 * starting together (each bumps a shared start word and waits until all
 * have), so that they run at once. 0 when all exit 0.
 */
static int run_children(sc_pcgroup *g, SC_ATOMIC(uint32_t) *start)
{
	pid_t pid[PROCS];
	for (int p = 0; p < PROCS; p++) {
		pid[p] = fork();
		if (pid[p] < 0)
			return -1;
		if (pid[p] == 0) {
			/* relaxed: a start line only; the counts need no ordering. */
			atomic_fetch_add_explicit(start, 1, memory_order_relaxed);
			while (atomic_load_explicit(start, memory_order_relaxed) < PROCS)
				;
			for (uint32_t k = 0; k < PER_PROC; k++)
				sc_pcgroup_inc(g, 1);
			sc_pcgroup_add(g, 2, 1);
			_exit(0);
		}
	}
	int bad = 0;
	for (int p = 0; p < PROCS; p++) {
		int st;
		if (waitpid(pid[p], &st, 0) != pid[p] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	return bad ? -1 : 0;
}

static void test_shared_exact(void)
{
	sc_pcgroup g;
	sc_err err;
	sc_env env;
	sc_env_default(&env);
	if (!tap_ok(sc_pcgroup_init_as(&g, NCOUNTERS, &env, SC_PERCPU_SHARED, &err) == 0,
	            "shared_group_init"))
		return;
	char d[128];
	sc_pcgroup_describe(&g, d, sizeof d);
	tap_diag("%s", d);
	const char *path = sc_percpu_path();
	tap_ok(strcmp(path, "lock") == 0 || strstr(d, "path=rseq-cpu_id") != NULL,
	       "shared_group_indexed_by_cpu_id_on_the_sequence (%s)", d);
	sc_pcgroup_add(&g, 0, 7); /* before the fork: the children see it, and add to it */
	SC_ATOMIC(uint32_t) *start = mmap(NULL, sizeof *start, PROT_READ | PROT_WRITE,
	                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!tap_ok(start != MAP_FAILED, "start_word_mapped"))
		return;
	sc_atomic_init(start, 0);
	int rc = run_children(&g, start);
	munmap((void *)start, sizeof *start);
	tap_ok(rc == 0, "shared_group_children_exit_0");
	uint64_t out[NCOUNTERS];
	sc_pcgroup_get_all(&g, out, NCOUNTERS);
	uint64_t want = (uint64_t)PROCS * PER_PROC;
	tap_ok(out[1] == want, "shared_group_exact_across_%d_processes (%llu of %llu, %lld lost)", PROCS,
	       (unsigned long long)out[1], (unsigned long long)want,
	       (long long)(want - out[1]));
	tap_ok(out[0] == 7 && out[2] == PROCS, "shared_group_other_counters (%llu, %llu)",
	       (unsigned long long)out[0], (unsigned long long)out[2]);
	sc_pcgroup_destroy(&g);
}

/*
 * A per-CPU array in shared memory indexed for sharing (cpu_id), and a
 * cursor on it made and used by the parent before the fork: PROCS children
 * each add CURSOR_PER_PROC through their copy of it, starting together (an
 * add through a cursor costs about 1 ns: 8 times PER_PROC keeps the
 * children running at once for some 40 ms, long enough that the same
 * cursor on a private index, mm_cid, loses increments on 2 CPUs: 15 to 25
 * M of 160 M in 3 of 3 runs; SC_TEST_SCALE shrinks it under emulators).
 */
#define CURSOR_PER_PROC ((uint32_t)test_scaled(8 * (uint64_t)PER_PROC, 100000))
static void test_shared_cursor(void)
{
	uint32_t cpus = 64; /* more slots than this machine's CPUs: every id has its word */
	size_t bytes = (size_t)(cpus + 1) * SC_LINE_SIZE + SC_LINE_SIZE;
	unsigned char *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!tap_ok(map != MAP_FAILED, "shared_cursor_array_mapped"))
		return;
	SC_ATOMIC(uint32_t) *start = (SC_ATOMIC(uint32_t) *)(void *)(map + (size_t)(cpus + 1) * SC_LINE_SIZE);
	sc_atomic_init(start, 0);
	uint64_t ix = sc_percpu_index(SC_PERCPU_SHARED);
	sc_percpu_cursor cur = sc_percpu_cursor_get(map, SC_LINE_SIZE, cpus, ix);
	sc_percpu_cursor_add(&cur, 3); /* the parent's add: the cursor keeps its id */
	pid_t pid[PROCS];
	int bad = 0;
	for (int p = 0; p < PROCS; p++) {
		pid[p] = fork();
		if (pid[p] < 0) {
			bad = 1;
			break;
		}
		if (pid[p] == 0) {
			/* relaxed: a start line only; the counts need no ordering. */
			atomic_fetch_add_explicit(start, 1, memory_order_relaxed);
			while (atomic_load_explicit(start, memory_order_relaxed) < PROCS)
				;
			for (uint32_t k = 0; k < CURSOR_PER_PROC; k++)
				sc_percpu_cursor_add(&cur, 1);
			_exit(0);
		}
	}
	for (int p = 0; p < PROCS && pid[p] > 0; p++) {
		int st;
		if (waitpid(pid[p], &st, 0) != pid[p] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad = 1;
	}
	tap_ok(!bad, "shared_cursor_children_exit_0");
	uint64_t got = 0;
	for (uint32_t k = 0; k <= cpus; k++)
		/* relaxed: the children were reaped; any order gives the same sum */
		got += atomic_load_explicit((SC_ATOMIC(uint64_t) *)(void *)(map + (size_t)k * SC_LINE_SIZE),
		                            memory_order_relaxed);
	uint64_t want = (uint64_t)PROCS * CURSOR_PER_PROC + 3;
	tap_ok(got == want, "shared_cursor_exact_across_%d_processes (%s: %llu of %llu, %lld lost)", PROCS,
	       sc_percpu_index_name(ix), (unsigned long long)got, (unsigned long long)want,
	       (long long)(want - got));
	munmap(map, bytes);
}

static void test_how_refused(void)
{
	sc_pcgroup g;
	sc_err err;
	sc_env env;
	sc_env_default(&env);
	tap_ok(sc_pcgroup_init_as(&g, 1, &env, 7, &err) == -1 && g.rows == NULL,
	       "group_refuses_how_7: %s", err.msg);
}

int main(void)
{
	test_shared_exact();
	test_shared_cursor();
	test_how_refused();
	return tap_done();
}
