/* SPDX-License-Identifier: MIT */
/*
 * test_conformance_env.c - the conformance suite's environments
 * (conformance.h): the timer signal whose handler updates the counter, the
 * forks whose child checks its copy, the statistical check of the
 * probabilistic variants, and the shared-memory promises.
 *
 * Statistical check (SC_BOUND_RSTDV): 4 writer threads count to N through
 * the handle; each reading E must satisfy |E - N| <= 5 r N, r the bound's
 * rstdv. E is a sum of many small martingale increments, close to normal
 * with sd at most r N (concurrency does not raise the variance above the
 * sequential bound, tests/testprob.h), so a false failure has probability
 * at most the two-sided normal tail at 5, 5.7e-7. Seeds: the library's
 * fixed context seeds (base and sequence number, as test_handle.c), the
 * interleaving choosing which thread draws which.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "conformance.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

/* one TAP counter for the program: test_conformance.c's */
#define tap_ok cf_ok

/* ---- a timer signal whose handler counts ------------------------------------- */

static _Atomic(cf_run *) cf_sig_run;

static void cf_on_alarm(int sig)
{
	(void)sig;
	int saved = errno;
	/* acquire: the run was set up before it was published. */
	cf_run *r = atomic_load_explicit(&cf_sig_run, memory_order_acquire);
	if (r) {
		cf_write_one(r, 1); /* i = 1: sc_counter_inc */
		atomic_fetch_add_explicit(&r->handler_updates, 1, memory_order_relaxed);
	}
	errno = saved;
}

void cf_signal_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = cf_on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
}

/* Writers take SIGALRM; the main thread and the readers keep it blocked. */
void cf_signal_unblock(void)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

void cf_signal_arm(cf_run *r)
{
	/* release: pairs with the handler's acquire. */
	atomic_store_explicit(&cf_sig_run, r, memory_order_release);
	struct itimerval it = {{0, 100}, {0, 100}};
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Called once the writers are joined: no handler runs any more (only writers unblock it). */
void cf_signal_disarm(void)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	atomic_store_explicit(&cf_sig_run, NULL, memory_order_relaxed);
}

/* ---- fork: a child's copy counts what completed before the fork ---------------- */

/*
 * The child: every reading of its copy, then one update of its own (its
 * copy must count it); sends the readings, the sum after, through fd.
 */
static void cf_child(cf_run *r, int fd)
{
	uint64_t out[CF_READINGS + 2];
	for (int k = 0; k < CF_READINGS; k++)
		out[k] = cf_reading(r->c, k);
	out[CF_READINGS] = sc_counter_get_sum(r->c);
	sc_counter_inc(r->c);
	out[CF_READINGS + 1] = sc_counter_get_sum(r->c);
	_exit(write(fd, out, sizeof out) == (ssize_t)sizeof out ? 0 : 1);
}

void cf_fork_check(cf_run *r)
{
	/*
	 * Fork k when the writers have done k/(max_forks + 1) of their updates
	 * (each adds at least 1 to done). relaxed: progress and stop tests only.
	 */
	uint64_t total = r->per_writer * r->writers;
	while (r->forks < r->max_forks) {
		uint64_t target = total / (r->max_forks + 1) * (r->forks + 1);
		while (atomic_load_explicit(&r->done, memory_order_relaxed) < target &&
		       atomic_load_explicit(&r->writers_left, memory_order_relaxed) > 0)
			sched_yield();
		int fd[2];
		if (pipe(fd))
			abort();
		/* acquire: the updates counted in done completed before the fork. */
		uint64_t d = atomic_load_explicit(&r->done, memory_order_acquire);
		/* seq_cst: the readers' seq_cst loads of fork_gen see the window (conformance.h). */
		atomic_fetch_add_explicit(&r->fork_gen, 1, memory_order_seq_cst);
		pid_t pid = fork();
		if (pid == 0)
			cf_child(r, fd[1]);
		atomic_fetch_add_explicit(&r->fork_gen, 1, memory_order_seq_cst);
		uint64_t b = atomic_load_explicit(&r->begun, memory_order_acquire);
		close(fd[1]);
		uint64_t in[CF_READINGS + 2];
		bool ok = pid > 0 && read(fd[0], in, sizeof in) == (ssize_t)sizeof in;
		close(fd[0]);
		int st = 0;
		if (pid > 0)
			ok = waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 && ok;
		/*
		 * As the table says (sc_contract.h): the sum, and a fast
		 * reading that is the same reading or is fork-exact, keep the
		 * sum's bound (exact: all of d; Serial: at most b); another fast
		 * reading (PerCPUTree's root) keeps its own bound with the
		 * parent's writers counted (their carries cut by the fork). A
		 * fork-exact fast reading that differs is the child's sum.
		 */
		uint64_t by;
		unsigned p = r->v->promises;
		bool fast_exact = (p & SC_PROMISE_FORK_FAST_EXACT) || !(p & SC_PROMISE_READINGS_DIFFER);
		for (int k = 0; ok && k < CF_READINGS; k++)
			ok = cf_check(&r->bound[k == 2 || fast_exact], r->writers, d, in[k], b, &by) == 0;
		ok = ok && (!(p & SC_PROMISE_FORK_FAST_EXACT) || in[1] == in[2]);
		ok = ok && in[CF_READINGS + 1] == in[CF_READINGS] + 1;
		if (!ok) {
			r->fork_bad++;
			tap_diag("%s fork: done %llu begun %llu; child read %llu %llu %llu, %llu then %llu",
			         r->v->name, (unsigned long long)d, (unsigned long long)b,
			         (unsigned long long)in[0], (unsigned long long)in[1],
			         (unsigned long long)in[2], (unsigned long long)in[3],
			         (unsigned long long)in[4]);
		}
		r->forks++;
	}
}

/* ---- probabilistic variants: count to N ------------------------------------------ */

typedef struct cf_count {
	sc_counter *c;
	uint64_t per_thread;
} cf_count;

static void cf_count_body(test_thread_arg *a)
{
	cf_count *k = a->shared;
	for (uint64_t i = 0; i < k->per_thread; i++)
		sc_counter_inc(k->c);
}

void cf_test_rstdv(const sc_variant *v)
{
	sc_err err;
	cf_count k = {sc_counter_new(v->name, "", &err), cf_tier_now.rstdv_n / 4};
	if (!tap_ok(k.c != NULL, "%s: sc_counter_new", v->name))
		return;
	test_run_threads(4, cf_count_body, &k);
	double n = (double)(k.per_thread * 4);
	for (int r = 0; r < CF_READINGS; r++) {
		sc_counter_bound b = sc_counter_error_bound(k.c, r == 2 ? SC_READ_SUM : SC_READ_FAST);
		double e = (double)cf_reading(k.c, r);
		tap_ok(b.kind == SC_BOUND_RSTDV && fabs(e - n) <= 5 * b.rstdv * n,
		       "%s 4w: %s after %.0f updates is %.0f, within 5 x rstdv %.4g (%.2f sd)", v->name,
		       cf_reading_name(r), n, e, b.rstdv, b.rstdv > 0 ? (e - n) / (b.rstdv * n) : 0);
	}
	sc_counter_free(k.c);
}

/* ---- shared memory ---------------------------------------------------------------- */

#define CF_PROCS 3

typedef struct cf_shared {
	atomic_uint_least64_t begun, done;
	atomic_uint finished, start;
} cf_shared;

/* Fork CF_PROCS children running body(i, s, arg); 0 when all exit 0. */
static int cf_children(cf_shared *s, void (*body)(unsigned, cf_shared *, void *), void *arg,
                       pid_t *pid)
{
	for (unsigned p = 0; p < CF_PROCS; p++) {
		pid[p] = fork();
		if (pid[p] < 0)
			return -1;
		if (pid[p] == 0) {
			/* relaxed: a start line; the counts need no ordering from it. */
			atomic_fetch_add_explicit(&s->start, 1, memory_order_relaxed);
			while (atomic_load_explicit(&s->start, memory_order_relaxed) < CF_PROCS)
				;
			body(p, s, arg);
			/* release: the parent's acquire of finished follows the child's updates. */
			atomic_fetch_add_explicit(&s->finished, 1, memory_order_release);
			_exit(0);
		}
	}
	return 0;
}

static int cf_reap(const pid_t *pid)
{
	int bad = 0;
	for (unsigned p = 0; p < CF_PROCS; p++) {
		int st;
		if (pid[p] <= 0 || waitpid(pid[p], &st, 0) != pid[p] || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			bad = 1;
	}
	return bad;
}

/* Bracket read() against s until every child finished; the readings out of bounds. */
static uint64_t cf_bracket_shared(cf_shared *s, uint64_t (*read)(void *), void *arg,
                                  const sc_counter_bound *b, uint64_t *readings)
{
	uint64_t bad = 0, by;
	while (atomic_load_explicit(&s->finished, memory_order_acquire) < CF_PROCS) {
		uint64_t d = atomic_load_explicit(&s->done, memory_order_acquire);
		uint64_t v = read(arg);
		CF_FENCE(memory_order_acquire);
		uint64_t e = atomic_load_explicit(&s->begun, memory_order_acquire);
		bad += cf_check(b, CF_PROCS, d, v, e, &by) != 0;
		++*readings;
	}
	return bad;
}

static void cf_group_body(unsigned p, cf_shared *s, void *arg)
{
	sc_group *g = arg;
	for (uint64_t i = 0; i < cf_tier_now.shared_per_proc; i++) {
		uint64_t n = i % 5 == 0 ? 4 : 1;
		/* relaxed + fence: as cf_write_one. */
		atomic_fetch_add_explicit(&s->begun, n, memory_order_relaxed);
		CF_FENCE(memory_order_release);
		if (n == 4)
			sc_group_add(g, 1, 4);
		else
			sc_group_inc(g, 1);
		/* release: a reader that acquires done sees the update. */
		atomic_fetch_add_explicit(&s->done, n, memory_order_release);
	}
	sc_group_inc(g, 2 + p % 2);
}

static uint64_t cf_group_read(void *arg)
{
	return sc_group_get(arg, 1);
}

void cf_test_shared_group(void)
{
	sc_err err;
	sc_group *g = sc_group_new_as(4, NULL, SC_PERCPU_SHARED, &err);
	cf_shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!tap_ok(g && s != MAP_FAILED, "shared group: made (%s)", g ? "" : err.msg))
		return;
	memset(s, 0, sizeof *s);
	pid_t pid[CF_PROCS];
	sc_counter_bound exact = sc_bound_of_kind_(SC_BOUND_EXACT);
	uint64_t readings = 0, bad = 0;
	int rc = cf_children(s, cf_group_body, g, pid);
	if (rc == 0)
		bad = cf_bracket_shared(s, cf_group_read, g, &exact, &readings);
	rc |= cf_reap(pid);
	uint64_t done = atomic_load(&s->done);
	tap_ok(rc == 0 && bad == 0 && sc_group_get(g, 1) == done &&
	           sc_group_get(g, 2) + sc_group_get(g, 3) == CF_PROCS,
	       "shared group (SC_PERCPU_SHARED), %d processes: %llu of %llu readings out of bounds, "
	       "final %llu, done %llu", CF_PROCS, (unsigned long long)bad,
	       (unsigned long long)readings, (unsigned long long)sc_group_get(g, 1),
	       (unsigned long long)done);
	munmap(s, sizeof *s);
	sc_group_free(g);
}

/* One counter object of a variant in MAP_SHARED memory, with its configuration. */
typedef struct cf_obj {
	const sc_variant *v;
	sc_table t; /* for the configuration only */
	void *mem;
} cf_obj;

static void cf_obj_body(unsigned p, cf_shared *s, void *arg)
{
	cf_obj *o = arg;
	sc_thread th;
	sc_thread_init(&th, p, 0, 0x5eed0000u + p, false);
	for (uint64_t i = 0; i < cf_tier_now.shared_per_proc; i++) {
		/* relaxed + fence: as cf_write_one. */
		atomic_fetch_add_explicit(&s->begun, 1, memory_order_relaxed);
		CF_FENCE(memory_order_release);
		o->v->inc(o->mem, o->t.cfg, &th);
		/* release: a reader that acquires done sees the update. */
		atomic_fetch_add_explicit(&s->done, 1, memory_order_release);
	}
	if (o->v->flush)
		o->v->flush(o->mem, o->t.cfg, &th);
}

static uint64_t cf_obj_read(void *arg)
{
	cf_obj *o = arg;
	return o->v->reading_sum(o->mem, o->t.cfg);
}

/*
 * SC_PROMISE_SHARED_MEMORY: one sc_P_t made with sc_P_init in MAP_SHARED
 * memory, CF_PROCS forked processes updating it: precise variants bracketed
 * (the sum reading) and exact at the end; probabilistic ones within 5 x
 * rstdv at the end (5.7e-7, as cf_test_rstdv).
 */
void cf_test_shared_variant(const sc_variant *v)
{
	cf_obj o = {v, {0}, MAP_FAILED};
	sc_err err;
	sc_env env;
	sc_env_default(&env);
	env.threads = CF_PROCS;
	if (!tap_ok(test_table_open(&o.t, v, &env, 1, "", &err) == 0, "%s shared: config", v->name))
		return;
	cf_shared *s = mmap(NULL, sizeof *s, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	o.mem = mmap(NULL, o.t.stride, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!tap_ok(s != MAP_FAILED && o.mem != MAP_FAILED && v->init(o.mem, o.t.cfg, &err) == 0,
	            "%s shared: init in shared memory", v->name))
		return;
	memset(s, 0, sizeof *s);
	sc_counter_bound b = v->bound(o.t.cfg, SC_READ_SUM);
	pid_t pid[CF_PROCS];
	uint64_t readings = 0, bad = 0;
	int rc = cf_children(s, cf_obj_body, &o, pid);
	if (rc == 0 && b.kind != SC_BOUND_RSTDV)
		bad = cf_bracket_shared(s, cf_obj_read, &o, &b, &readings);
	rc |= cf_reap(pid);
	uint64_t done = atomic_load(&s->done), got = cf_obj_read(&o);
	double err_sd = b.kind == SC_BOUND_RSTDV
	                        ? ((double)got - (double)done) / (b.rstdv * (double)done) : 0;
	bool fin = b.kind == SC_BOUND_RSTDV ? fabs(err_sd) <= 5 : got == done;
	tap_ok(rc == 0 && bad == 0 && fin,
	       "%s shared memory, %d processes: %llu of %llu readings out of bounds, final %llu, "
	       "done %llu (%.2f sd)", v->name, CF_PROCS, (unsigned long long)bad,
	       (unsigned long long)readings, (unsigned long long)got, (unsigned long long)done,
	       err_sd);
	v->destroy(o.mem, o.t.cfg);
	munmap(o.mem, o.t.stride);
	munmap(s, sizeof *s);
	sc_table_destroy(&o.t);
}
