/* SPDX-License-Identifier: MIT */
/*
 * test_conformance.c - every variant of the variant table (sc_variants[],
 * by name through the handle API) held to its contract: each reading
 * (sc_counter_get and sc_counter_get_fast against
 * sc_counter_error_bound(c, SC_READ_FAST), sc_counter_get_sum against
 * SC_READ_SUM) bracketed under 2, 4 and 8 writer threads with 2
 * concurrent readers (conformance.h says how):
 *
 *   SC_BOUND_EXACT  done_before <= reading <= begun_after
 *   SC_BOUND_LAG    done_before - (lag + lag_per_thread x writers) <= reading
 *                   <= begun_after
 *   SC_BOUND_NONE   reading <= begun_after (Serial loses updates)
 *   SC_BOUND_RSTDV  a statistical check at the end of a count-to-N
 *                   (test_conformance_env.c states its probability)
 *
 * and sc_counter_compare against x = done_before - 1 and done_before (never
 * -1 for a precise variant) and x = begun + 1 (never +1 when no update
 * began during the call). Each writer count runs twice: plain, and with
 * migrations (sched_setaffinity between the allowed CPUs), thread churn
 * (writers exit and are replaced, so thread indices and contexts are
 * reused), a timer signal whose handler updates the counter (variants the
 * table marks SC_PROMISE_SIGNAL_SAFE) and forks whose child checks its copy
 * (SC_PROMISE_FORK_EXACT). After each run the counter must hold exactly the
 * updates done (Serial: at most). Then the shared-memory promises
 * (SC_PROMISE_SHARED_MEMORY, and a group made with SC_PERCPU_SHARED).
 *
 * Tiers: make check (fast: 400,000 updates per run; about 40 s on 2
 * cores) and SC_TEST_FULL=1 (make check-full: 2,000,000 per run, at least
 * 10 M bracketed Batched readings, PerCPUTree's compare at 32 writers with
 * batch=8 beside a CPU load). The exact checks are deterministic in
 * outcome (a correct counter never fails them, whatever the interleaving);
 * how many defects a run finds depends on the interleavings.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "conformance.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tap.h"
#include "testutil.h"

cf_tier cf_tier_now;

uint64_t cf_reading(const sc_counter *c, int k)
{
	return k == 0 ? sc_counter_get(c) : k == 1 ? sc_counter_get_fast(c) : sc_counter_get_sum(c);
}

const char *cf_reading_name(int k)
{
	return k == 0 ? "get" : k == 1 ? "get_fast" : "get_sum";
}

static const char *cf_mode_name(unsigned mode)
{
	static char buf[64];
	snprintf(buf, sizeof buf, "%s%s%s%s%s", mode ? "" : "plain",
	         mode & CF_MIGRATE ? "+migrate" : "", mode & CF_CHURN ? "+churn" : "",
	         mode & CF_SIGNAL ? "+signal" : "", mode & CF_FORK ? "+fork" : "");
	return buf;
}

/* The TAP lines of one run. */
void cf_report(const cf_run *r, const char *what)
{
	const char *name = r->v->name;
	unsigned wr = r->writers;
	const char *mode = cf_mode_name(r->mode);
	uint64_t readings = atomic_load(&r->readings);
	for (int k = 0; k < CF_READINGS; k++) {
		uint64_t lo = atomic_load(&r->low[k]), hi = atomic_load(&r->high[k]);
		cf_ok(lo == 0 && hi == 0,
		       "%s %s %uw %s%s: %s bracketed (bound kind %d), %llu below, %llu above of %llu "
		       "readings (worst %llu below)",
		       name, what, wr, mode, "", cf_reading_name(k), (int)r->bound[k == 2].kind,
		       (unsigned long long)lo, (unsigned long long)hi,
		       (unsigned long long)(readings / CF_READINGS),
		       (unsigned long long)atomic_load(&r->worst_low));
	}
	cf_ok(atomic_load(&r->cmp_low) == 0 && atomic_load(&r->cmp_high) == 0,
	       "%s %s %uw %s: compare: %llu said -1 at done, %llu said +1 above begun, of %llu calls",
	       name, what, wr, mode, (unsigned long long)atomic_load(&r->cmp_low),
	       (unsigned long long)atomic_load(&r->cmp_high),
	       (unsigned long long)atomic_load(&r->cmp_calls));
	if (cf_bracketed(&r->bound[0]))
		cf_ok(atomic_load(&r->approx_missed) == 0,
		      "%s %s %uw %s: get_approx: %llu of %llu intervals (kind %d) missed the count",
		      name, what, wr, mode, (unsigned long long)atomic_load(&r->approx_missed),
		      (unsigned long long)atomic_load(&r->approx_calls), (int)r->bound[0].kind);
	uint64_t done = atomic_load(&r->done), sum = sc_counter_get_sum(r->c);
	bool none = r->bound[1].kind == SC_BOUND_NONE;
	tap_ok(none ? sum <= done : sum == done, "%s %s %uw %s: final get_sum %llu, done %llu",
	       name, what, wr, mode, (unsigned long long)sum, (unsigned long long)done);
	/* every writer has exited, and the library flushes what an exiting thread held back */
	if (r->v->promises & SC_PROMISE_HOLDS_BACK)
		tap_ok(sc_counter_get_fast(r->c) == done,
		       "%s %s %uw %s: final get_fast %llu, done %llu (flushed)", name, what, wr, mode,
		       (unsigned long long)sc_counter_get_fast(r->c), (unsigned long long)done);
	if (atomic_load(&r->fork_window_low))
		tap_diag("%s %s %uw %s: %llu readings below their bound overlapped a fork", name, what, wr, mode,
		         (unsigned long long)atomic_load(&r->fork_window_low));
	if (r->mode & CF_FORK)
		tap_ok(r->fork_bad == 0 && r->forks > 0, "%s %s %uw %s: %u of %u forked copies short",
		       name, what, wr, mode, r->fork_bad, r->forks);
	if (r->mode & (CF_SIGNAL | CF_MIGRATE | CF_CHURN))
		tap_diag("%s: %llu handler updates, %llu migrations, %llu writer threads", name,
		         (unsigned long long)atomic_load(&r->handler_updates),
		         (unsigned long long)atomic_load(&r->migrations),
		         (unsigned long long)atomic_load(&r->threads_made));
}

/* ---- the runs ---------------------------------------------------------------- */

/* A spinning thread beside the writers (the full tier's CPU load). */
static atomic_int cf_load_stop;

static void *cf_load_body(void *p)
{
	(void)p;
	volatile uint64_t x = 1;
	/* relaxed: a stop flag only. */
	while (!atomic_load_explicit(&cf_load_stop, memory_order_relaxed))
		x = x * 6364136223846793005ull + 1;
	return NULL;
}

/* One bracketed run of variant v with params, writers and mode; its TAP lines. */
static uint64_t cf_one(const sc_variant *v, const char *params, unsigned writers, unsigned mode,
                       uint64_t ops, unsigned loaders)
{
	sc_err err;
	cf_run *r = calloc(1, sizeof *r);
	if (!r)
		abort();
	r->c = sc_counter_new(v->name, params, &err);
	if (!tap_ok(r->c != NULL, "%s %s: sc_counter_new (%s)", v->name, params, r->c ? "" : err.msg)) {
		free(r);
		return 0;
	}
	r->v = v;
	r->bound[0] = sc_counter_error_bound(r->c, SC_READ_FAST);
	r->bound[1] = sc_counter_error_bound(r->c, SC_READ_SUM);
	r->writers = writers;
	r->readers = 2;
	r->mode = mode;
	r->per_writer = ops / writers;
	r->churn_every = r->per_writer / 8 + 1;
	r->max_forks = cf_tier_now.forks;
	pthread_t lt[4];
	atomic_store(&cf_load_stop, 0);
	for (unsigned i = 0; i < loaders; i++)
		pthread_create(&lt[i], NULL, cf_load_body, NULL);
	cf_run_bracketed(r);
	atomic_store(&cf_load_stop, 1);
	for (unsigned i = 0; i < loaders; i++)
		pthread_join(lt[i], NULL);
	cf_report(r, *params ? params : "defaults");
	uint64_t readings = atomic_load(&r->readings);
	sc_counter_free(r->c);
	free(r);
	return readings;
}

/*
 * Every bracketed run of a variant: 2, 4 and 8 writers, plain, with
 * migrations, churn and signals, and with forks; then 16 plain writers.
 */
/*
 * ThreadSanitizer's runtime does not support fork() in a process with
 * other threads running (its own state is copied mid-update): there, in
 * make check-precise, the fork runs are left to the plain and ASan builds
 * (under TSan every variant, CAS and FetchAdd too, read 1-2 of 3 forked
 * copies short).
 */
#if defined(__SANITIZE_THREAD__)
#define CF_NO_FORK_RUNS 1
#else
#define CF_NO_FORK_RUNS 0
#endif

static void cf_variant(const sc_variant *v, const char *params)
{
	static const unsigned wr[] = {2, 4, 8};
	unsigned mixed = CF_MIGRATE | CF_CHURN;
	if (v->promises & SC_PROMISE_SIGNAL_SAFE)
		mixed |= CF_SIGNAL;
	for (size_t i = 0; i < sizeof wr / sizeof *wr; i++) {
		cf_one(v, params, wr[i], 0, cf_tier_now.ops_per_run, 0);
		cf_one(v, params, wr[i], mixed, cf_tier_now.ops_per_run, 0);
		if ((v->promises & SC_PROMISE_FORK_EXACT) && !CF_NO_FORK_RUNS)
			cf_one(v, params, wr[i], CF_FORK, cf_tier_now.ops_per_run / 2, 0);
	}
	/* more writers than the handle's per-thread slots (8 on 2 CPUs): the shared paths */
	cf_one(v, params, 16, 0, cf_tier_now.ops_per_run / 2, 0);
}

/* The full tier's long runs: 10 M Batched readings; PerCPUTree batch=8 at 32 writers, loaded. */
static void cf_long_runs(void)
{
	const sc_variant *b = sc_variant_find("Batched"), *t = sc_variant_find("PerCPUTree");
	uint64_t total = 0;
	for (unsigned round = 0; total < cf_tier_now.batched_reads; round++)
		total += cf_one(b, round % 2 ? "batch=8" : "", 2u << (round % 3),
		                round % 2 ? CF_MIGRATE | CF_CHURN | CF_SIGNAL : 0,
		                cf_tier_now.ops_per_run * 4, 0);
	tap_diag("Batched: %llu bracketed readings in the long runs", (unsigned long long)total);
	for (int k = 0; k < 3; k++)
		cf_one(t, "batch=8", 32, k == 2 ? CF_MIGRATE : 0, cf_tier_now.ops_per_run * 4, 2);
}

/* Print one TAP check (the env file's checks come here, so that one counter numbers them). */
bool cf_ok(bool cond, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	return tap_ok(cond, "%s", buf);
}

/*
 * test_conformance VARIANT PARAMS WRITERS MODE: one bracketed run (MODE the
 * CF_* mask), for looking into a failure; no arguments: the suite.
 */
int main(int argc, char **argv)
{
	tap_plan_lazy();
	if (argc == 5) {
		cf_tier_now.ops_per_run = 400000;
		cf_tier_now.forks = 3;
		cf_signal_install();
		cf_one(sc_variant_find(argv[1]), argv[2], (unsigned)atoi(argv[3]),
		       (unsigned)atoi(argv[4]), cf_tier_now.ops_per_run, 0);
		return tap_done();
	}
	cf_tier_now.full = test_full();
	cf_tier_now.ops_per_run = test_scaled(cf_tier_now.full ? 2000000 : 400000, 20000);
#if defined(__SANITIZE_THREAD__)
	/* ThreadSanitizer (make check-precise) runs the same checks 8 times smaller */
	cf_tier_now.ops_per_run /= 8;
#endif
	cf_tier_now.batched_reads = cf_tier_now.full ? 10000000 : 0;
	cf_tier_now.rstdv_n = test_scaled(cf_tier_now.full ? 20000000 : 2000000, 200000);
	cf_tier_now.forks = cf_tier_now.full ? 20 : 3;
	cf_tier_now.shared_per_proc = test_scaled(cf_tier_now.full ? 2000000 : 200000, 20000);
	tap_diag("tier: %s, %llu updates per run", cf_tier_now.full ? "full" : "fast",
	         (unsigned long long)cf_tier_now.ops_per_run);
	cf_signal_install();
	/* SC_CONFORMANCE_STOP=1 (tests/mutants.sh): stop after the variant that failed a check */
	const char *st = getenv("SC_CONFORMANCE_STOP");
	bool stop = st && !strcmp(st, "1");
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		sc_err err;
		sc_counter *c = sc_counter_new(v->name, "", &err);
		sc_counter_bound b = c ? sc_counter_error_bound(c, SC_READ_SUM) : sc_bound_of_kind_(0);
		sc_counter_free(c);
		if (b.kind == SC_BOUND_RSTDV)
			cf_test_rstdv(v);
		else
			cf_variant(v, "");
		if (v->promises & SC_PROMISE_SHARED_MEMORY)
			cf_test_shared_variant(v);
		if (stop && tap_failed_)
			return tap_done();
	}
	/* small batches: more hand-overs and carries per update */
	cf_variant(sc_variant_find("Batched"), "batch=8");
	cf_one(sc_variant_find("PerCPUTree"), "batch=8", 16, 0, cf_tier_now.ops_per_run, 0);
	cf_one(sc_variant_find("PerCPUTree"), "batch=8", 16, CF_MIGRATE | CF_CHURN,
	       cf_tier_now.ops_per_run, 0);
	/* MultilineAdapt inflated at its first contended update */
	cf_one(sc_variant_find("MultilineAdapt"), "inflate-after=0", 8, CF_MIGRATE | CF_CHURN,
	       cf_tier_now.ops_per_run, 0);
	cf_test_shared_group();
	if (cf_tier_now.full)
		cf_long_runs();
	return tap_done();
}
