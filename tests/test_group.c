/* SPDX-License-Identifier: MIT */
/*
 * test_group.c - the per-CPU add (sc_rseq.h) and the packed per-CPU counter
 * groups (sc_group.h): the inline sc_pcgroup, the handle sc_group, and
 * PerCPU and PerCPUGroup through the registry.
 *
 * The storms: more threads than CPUs, each moving itself between CPUs by
 * changing its affinity every few hundred increments, while another thread
 * sends them signals whose handler increments too. On the restartable-
 * sequence path every signal, preemption and migration inside a sequence
 * sends the thread through the abort handler, so a wrong descriptor or
 * signature is killed by the kernel (SIGSEGV), and an abort that lost or
 * repeated the add shows as an inexact total. The same storms run with
 * concurrent read_and_reset calls, whose readings must add up to every
 * increment exactly.
 *
 * tests/test_group_norseq is this program built with SC_NO_RSEQ, as a
 * program whose compiler inlines no restartable sequence: every add (the
 * cursor's too) is a call into the library, which takes the process's path.
 *
 * tests/test_percpu_paths.sh runs this program again on every path
 * (SCOUNTERS_PERCPU=lock and cpu_id, glibc.pthread.rseq=0); this program
 * checks that the path it finds is the one its environment asks for.
 * Deterministic in its checks (exact totals; no timing).
 */
#include <scounters/scounters.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

#include "testgroup_storm.h"

/* ---- the path ----------------------------------------------------------------- */

static void test_path(void)
{
	const char *path = sc_percpu_path();
	const char *want = getenv("SCOUNTERS_PERCPU");
	const char *tun = getenv("GLIBC_TUNABLES");
	bool rseq_off = tun && strstr(tun, "glibc.pthread.rseq=0");
	tap_diag("per-CPU path: %s (SCOUNTERS_PERCPU=%s)", path, want ? want : "");
	tap_ok(strcmp(path, "lock") == 0 || strcmp(path, "rseq-cpu_id") == 0 ||
	               strcmp(path, "rseq-mm_cid") == 0,
	       "percpu_path_is_one_of_three");
	if ((want && strcmp(want, "lock") == 0) || rseq_off)
		tap_ok(strcmp(path, "lock") == 0, "percpu_path_lock_when_asked_or_rseq_off");
#if SC_RSEQ_INLINE
	/* x86-64 with glibc's rseq: where glibc registered, the sequence is taken. */
	if (__rseq_size != 0 && !(want && strcmp(want, "lock") == 0))
		tap_ok(strncmp(path, "rseq-", 5) == 0, "percpu_path_is_rseq_where_glibc_registered");
	if (__rseq_size != 0 && want && strcmp(want, "cpu_id") == 0)
		tap_ok(strcmp(path, "rseq-cpu_id") == 0, "percpu_path_cpu_id_when_asked");
#endif
}

/* ---- one thread ---------------------------------------------------------------- */

static void test_validation(void)
{
	sc_pcgroup g;
	sc_err err;
	sc_env env = {1, 1, 0};
	tap_ok(sc_pcgroup_init(&g, 0, &env, &err) == -1 && strstr(err.msg, "counters"),
	       "group_refuses_0_counters: %s", err.msg);
	tap_ok(sc_pcgroup_init(&g, SC_GROUP_MAX_COUNTERS + 1, &env, &err) == -1,
	       "group_refuses_too_many_counters");
	env.cpus = SC_GROUP_MAX_SLOTS + 1;
	tap_ok(sc_pcgroup_init(&g, 4, &env, &err) == -1 && strstr(err.msg, "cpus"),
	       "group_refuses_too_many_cpus: %s", err.msg);
	env.cpus = 3;
	tap_ok(sc_pcgroup_init(&g, 9, &env, &err) == 0, "group_of_9_on_3_cpus");
	/* 9 counters: 72 bytes, one line-rounded row; 3 CPU rows + overflow + origins. */
	tap_ok(g.row == SC_PAD_UP(72) && sc_pcgroup_bytes(&g) == 5 * SC_PAD_UP(72),
	       "group_bytes_are_cpus_plus_2_rows (%zu)", sc_pcgroup_bytes(&g));
	sc_pcgroup_destroy(&g);
}

static void test_single_thread(void)
{
	sc_pcgroup g;
	sc_err err;
	sc_env env = {1, 1, 0};
	uint64_t out[NCOUNTERS];
	bool right = true;
	if (sc_pcgroup_init(&g, NCOUNTERS, &env, &err)) {
		tap_ok(false, "group_single_thread: %s", err.msg);
		return;
	}
	for (uint32_t i = 0; i < NCOUNTERS; i++)
		for (uint32_t k = 0; k < i; k++)
			sc_pcgroup_inc(&g, i);
	sc_pcgroup_add(&g, 5, 1000);
	sc_pcgroup_add(&g, NCOUNTERS, 7);     /* out of range: nothing */
	sc_pcgroup_inc(&g, UINT32_MAX);
	tap_ok(sc_pcgroup_get_all(&g, out, NCOUNTERS) == 0, "get_all_of_a_full_array");
	for (uint32_t i = 0; i < NCOUNTERS; i++) {
		uint64_t want = i + (i == 5 ? 1000 : 0);
		right = right && out[i] == want && sc_pcgroup_get(&g, i) == want;
	}
	tap_ok(right, "group_counts_each_index_apart");
	tap_ok(sc_pcgroup_get(&g, NCOUNTERS) == 0, "group_get_out_of_range_is_0");
	sc_pcgroup_read_and_reset(&g, out, NCOUNTERS, NULL);
	tap_ok(out[5] == 1005 && out[36] == 36, "group_read_and_reset_returns_the_readings");
	sc_pcgroup_inc(&g, 5);
	tap_ok(sc_pcgroup_get(&g, 5) == 1 && sc_pcgroup_get(&g, 36) == 0,
	       "group_counts_from_0_after_read_and_reset");
	/* Wrap: row 0's word of counter 2 just below 2^64 (white box), origin 0. */
	sc_pcgroup_reset(&g);
	atomic_store((SC_ATOMIC(uint64_t) *)(void *)(g.rows + 2 * 8), UINT64_MAX - 1);
	sc_pcgroup_add(&g, 2, 3);
	tap_ok(sc_pcgroup_get(&g, 2) == 1, "group_counter_wraps_modulo_2_64");
	sc_pcgroup_read_and_reset(&g, out, NCOUNTERS, NULL);
	sc_pcgroup_add(&g, 2, 4);
	tap_ok(out[2] == 1 && sc_pcgroup_get(&g, 2) == 4, "group_read_and_reset_across_the_wrap");
	char d[128];
	int len = sc_pcgroup_describe(&g, d, sizeof d);
	tap_ok(len > 0 && strstr(d, "path=") && strstr(d, "counters=37"), "group_describe: %s", d);
	sc_pcgroup_destroy(&g);
}

static void test_handle(void)
{
	sc_err err;
	tap_ok(sc_group_new(0, &err) == NULL && err.msg[0], "handle_group_refuses_0: %s", err.msg);
	tap_ok(sc_group_new(0, NULL) == NULL, "handle_group_null_err_is_fine");
	sc_group *g = sc_group_new(3, &err);
	if (!g) {
		tap_ok(false, "handle_group_new: %s", err.msg);
		return;
	}
	uint64_t out[3];
	errno = 0;
	tap_ok(sc_group_inc(g, 3) == -1 && errno == EINVAL, "handle_group_inc_out_of_range_einval");
	tap_ok(sc_group_add(g, 0, 40) == 0 && sc_group_inc(g, 0) == 0 && sc_group_inc(g, 2) == 0,
	       "handle_group_inc_and_add");
	sc_group_get_all(g, out, 3);
	tap_ok(sc_group_size(g) == 3 && out[0] == 41 && out[1] == 0 && out[2] == 1 &&
	               sc_group_get(g, 0) == 41 && sc_group_get(g, 3) == 0,
	       "handle_group_readings");
	sc_group_read_and_reset(g, out, 3);
	tap_ok(out[0] == 41 && sc_group_get(g, 0) == 0, "handle_group_read_and_reset");
	char d[128];
	tap_ok(sc_group_bytes(g) >= 3 * (size_t)SC_LINE_SIZE && sc_group_describe(g, d, sizeof d) > 0,
	       "handle_group_bytes_and_describe: %zu, %s", sc_group_bytes(g), d);
	sc_group_free(g);
	sc_group_free(NULL);
}

/* PerCPUGroup through the registry: one table is one group; its bytes per counter. */
static void test_table_variant(void)
{
	const sc_variant *v = sc_variant_find("PerCPUGroup");
	sc_table t;
	sc_err err;
	sc_env env = {1, 1, 4};
	if (!v || test_table_open(&t, v, &env, 7500, NULL, &err)) {
		tap_ok(false, "percpu_group_table_of_7500: %s", v ? err.msg : "no variant");
		return;
	}
	/* 7500 counters: a row of 60000 bytes, 4 CPU rows + 2; plus the 8-byte pointer. */
	double want = 8 + (double)((6 * SC_PAD_UP(60000) + 64 + 7499) / 7500);
	double got = sc_table_bytes_per_counter(&t);
	tap_ok(got <= want && got >= want - 1, "percpu_group_bytes_per_counter_7500 (%.1f)", got);
	sc_thread th;
	sc_thread_init(&th, 0, 0, 1, false);
	for (size_t i = 0; i < 7500; i += 7)
		v->add(sc_table_at(&t, i), t.cfg, &th, i);
	bool right = true;
	for (size_t i = 0; i < 7500; i++)
		right = right && v->get(sc_table_at(&t, i), t.cfg) == (i % 7 ? 0 : i);
	tap_ok(right, "percpu_group_table_counters_apart");
	sc_table_destroy(&t);
	tap_ok(sc_table_create(&t, v, &(sc_params){0}, &env, 0, &err) == -1,
	       "percpu_group_table_of_0_refused");
}

/* ---- the storms (tests/testgroup_storm.h) ----------------------------------------- */

static void test_group_storm(unsigned resetters)
{
	sc_pcgroup g;
	sc_err err;
	sc_env env = {1, 1, 0};
	uint64_t want[NCOUNTERS], out[NCOUNTERS];
	if (sc_pcgroup_init(&g, NCOUNTERS, &env, &err)) {
		tap_ok(false, "group_storm: %s", err.msg);
		return;
	}
	storm *s = calloc(1, sizeof *s);
	if (!s)
		abort();
	s->g = &g;
	s->per_writer = test_scaled(60000, 4000);
	s->resetters = resetters;
	storm_run(s, want);
	bool exact = true;
	if (resetters) {
		sc_pcgroup_read_and_reset(&g, out, NCOUNTERS, NULL);
		accumulate(s, out);
		for (uint32_t i = 0; i < NCOUNTERS; i++)
			exact = exact && atomic_load(&s->read_total[i]) == want[i];
		tap_ok(exact, "group_exact_in_readings_with_%u_resetters_under_a_storm (%llu signals)",
		       resetters, (unsigned long long)want[SIG_COUNTER]);
	} else {
		sc_pcgroup_get_all(&g, out, NCOUNTERS);
		for (uint32_t i = 0; i < NCOUNTERS; i++)
			exact = exact && out[i] == want[i];
		tap_ok(exact, "group_exact_under_a_storm (%u writers, %llu signals)", WRITERS,
		       (unsigned long long)want[SIG_COUNTER]);
	}
	free(s);
	sc_pcgroup_destroy(&g);
}

/*
 * One thread increments while a 20 kHz interval timer interrupts it, until
 * 2,000 signals have arrived: most signals land between two sequences, but
 * hundreds land inside one and send it through the abort handler (an abort
 * that skipped the add lost 2,233 of 300 million increments to 8,946
 * signals on the machine this was written on). The handler increments the
 * same counter.
 */
static SC_ATOMIC(uint64_t) alarms;
static sc_pcgroup *alarm_group;

static void on_alarm(int sig)
{
	(void)sig;
	sc_pcgroup_inc(alarm_group, 0);
	/* relaxed: read by the same thread after the timer is stopped. */
	atomic_fetch_add_explicit(&alarms, 1, memory_order_relaxed);
}

static void test_group_timer_signals(void)
{
	sc_pcgroup g;
	sc_err err;
	sc_env env = {1, 1, 0};
	struct sigaction sa, old;
	struct itimerval on = {{0, 50}, {0, 50}}, off = {{0, 0}, {0, 0}};
	if (sc_pcgroup_init(&g, 1, &env, &err)) {
		tap_ok(false, "group_exact_under_timer_signals: %s", err.msg);
		return;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	alarm_group = &g;
	atomic_store(&alarms, 0);
	sigaction(SIGALRM, &sa, &old);
	setitimer(ITIMER_REAL, &on, NULL);
	uint64_t n = 0;
	/* relaxed: this thread's own handler wrote it. */
	while (atomic_load_explicit(&alarms, memory_order_relaxed) < 2000 && n < (UINT64_C(1) << 34))
		for (int k = 0; k < 4096; k++, n++)
			sc_pcgroup_inc(&g, 0);
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &old, NULL);
	uint64_t sigs = atomic_load(&alarms);
	tap_ok(sc_pcgroup_get(&g, 0) == n + sigs,
	       "group_exact_under_timer_signals (%llu increments, %llu signals)",
	       (unsigned long long)n, (unsigned long long)sigs);
	sc_pcgroup_destroy(&g);
}

/*
 * PerCPU through the registry: every writer and the handler on one counter;
 * with cursor, PerCPU's array through the writers' cursors (each made once,
 * kept across its migrations) and a cursor the handler makes.
 */
static void test_percpu_storm(const char *name, uint32_t cpus, int cursor)
{
	sc_table t;
	sc_err err;
	sc_env env = {WRITERS, 1, cpus};
	uint64_t want[NCOUNTERS];
	const sc_variant *v = sc_variant_find(name);
	if (!v || test_table_open(&t, v, &env, 1, NULL, &err)) {
		tap_ok(false, "%s_storm: %s", name, v ? err.msg : "no variant");
		return;
	}
	storm *s = calloc(1, sizeof *s);
	if (!s)
		abort();
	s->v = v;
	s->c = sc_table_at(&t, 0);
	s->cfg = t.cfg;
	s->cursor = cursor;
	s->per_writer = test_scaled(60000, 4000);
	storm_run(s, want);
	uint64_t total = 0;
	for (uint32_t i = 0; i < NCOUNTERS; i++)
		total += want[i];
	char d[160];
	v->describe(s->c, t.cfg, d, sizeof d);
	tap_ok(v->get(s->c, t.cfg) == total, "%s%s_exact_under_a_storm_cpus_%u (%s)", name,
	       cursor ? "_cursor" : "", cpus, d);
	free(s);
	sc_table_destroy(&t);
}

int main(void)
{
	tap_plan_lazy();
	test_path();
	test_validation();
	test_single_thread();
	test_handle();
	test_table_variant();
	test_group_timer_signals();
	test_group_storm(0);
	test_group_storm(1);
	test_group_storm(2);
	test_percpu_storm("PerCPU", 0, 0);
	/* one CPU slot: every other id goes to the overflow word (or folds, locked) */
	test_percpu_storm("PerCPU", 1, 0);
	test_percpu_storm("PerCPUGroup", 0, 0);
	test_percpu_storm("PerCPU", 0, 1);
	test_percpu_storm("PerCPU", 1, 1);
	return tap_done();
}
