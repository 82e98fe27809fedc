/* SPDX-License-Identifier: MIT */
/*
 * test_handle.c - the handle API (sc_counter.h) for every variant: threads
 * that never register get contexts of their own; precise counters are exact
 * from 8 threads and from more threads than they have slots; Batched hands
 * over a thread's held increments when the thread exits; read_and_reset
 * loses nothing while 8 threads increment; indices of exited threads are
 * reused; updates a thread makes after its exit destructor (a later
 * destructor, signal handlers during its exit) reach both readings;
 * parameters are validated.
 *
 * Deterministic: the library seeds every context from a fixed base and a
 * sequence number; the precise checks are exact comparisons. The one
 * statistical check (probabilistic variants from 8 threads, |error| <= 5 x
 * the default 1% RSTDV bound, each variant's bound being at most 1% at its
 * defaults) has a false-failure probability below 5.7e-7 each (normal tail
 * at z = 5; concurrency does not raise the variance above the sequential
 * bound, see tests/testprob.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <scounters/scounters.h>

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tap.h"
#include "testutil.h"

/* ---- creation and parameters ---- */

static void test_new_validates(void)
{
	sc_err err;
	sc_counter *c = sc_counter_new("nosuch", "", &err);
	tap_ok(!c && strstr(err.msg, "nosuch") && strstr(err.msg, "Sharded"),
	       "new_unknown_variant_lists_valid_names: %s", err.msg);
	c = sc_counter_new("Batched", "batch=0", &err);
	tap_ok(!c && strstr(err.msg, "batch"), "new_out_of_range_param_is_error: %s", err.msg);
	c = sc_counter_new("CAS", "accuracy=1", &err);
	tap_ok(!c && strstr(err.msg, "accuracy"), "new_unknown_param_is_error: %s", err.msg);
	c = sc_counter_new("Sharded", "same-seed=1", &err);
	tap_ok(!c && strstr(err.msg, "same-seed"), "new_rejects_same_seed: %s", err.msg);
	c = sc_counter_new("Morris", "accuracy", &err);
	tap_ok(!c, "new_malformed_param_is_error: %s", err.msg);
	tap_ok(sc_counter_new(NULL, "", NULL) == NULL, "new_null_variant_and_null_err");
	c = sc_counter_new("bfp-csup", "accuracy=2,mantissa-threshold=100", &err);
	tap_ok(c == NULL, "new_rejects_accuracy_and_mantissa_threshold_together");
	/* Values are plain decimal: no space, tab, hex, inf or '+'. */
	const char *bad[][2] = {{"Morris", "accuracy=0x1p0"}, {"Morris", "accuracy=\t2"},
	                        {"Morris", "accuracy= 2"},    {"Morris", "accuracy=+2"},
	                        {"Batched", "batch=\t8"},     {"Batched", "batch= 8"},
	                        {"Batched", "batch=0x10"},    {"Morris", "accuracy=infinity"}};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		c = sc_counter_new(bad[i][0], bad[i][1], &err);
		tap_ok(!c && (strstr(err.msg, "decimal") || strstr(err.msg, "blank")),
		       "new_refuses_%s_%s: %s", bad[i][0], bad[i][1], c ? "accepted" : err.msg);
		sc_counter_free(c);
	}
	c = sc_counter_new("Morris", "accuracy=2.5e0", &err);
	tap_ok(c != NULL, "new_takes_decimal_exponent");
	sc_counter_free(c);
	c = sc_counter_new("batched", "batch=8", &err);
	tap_ok(c && strcmp(sc_counter_variant(c), "Batched") == 0,
	       "new_by_case_insensitive_name_with_params");
	sc_counter_free(c);
	c = sc_counter_new("interlocked", NULL, &err);
	tap_ok(c && strcmp(sc_counter_variant(c), "FetchAdd") == 0, "new_by_alias_null_params");
	sc_counter_free(c);
	sc_counter_free(NULL);
}

/*
 * sc_counter_new's error path lists the valid names (sc_variant_names) from
 * several threads at once: the list was built on first use into a static
 * buffer, written by every thread that found it empty (a data race, which
 * ThreadSanitizer reports: make check-precise). Each thread's message must
 * be whole.
 */
static void names_worker(test_thread_arg *a)
{
	sc_err err;
	bool *whole = a->shared;
	whole[a->index] = sc_counter_new("nosuch", "", &err) == NULL &&
	                  strstr(err.msg, "Serial, CAS, FetchAdd") != NULL &&
	                  strstr(err.msg, ", PerCPU") != NULL;
}

static void test_names_from_threads(void)
{
	bool whole[4] = {false, false, false, false};
	test_run_threads(4, names_worker, whole);
	tap_ok(whole[0] && whole[1] && whole[2] && whole[3],
	       "sc_counter_new's error message from 4 threads at once lists every variant");
	const char *names = sc_variant_names();
	size_t n = 0;
	for (const char *p = names; (p = strstr(p, ", ")) != NULL; p += 2)
		n++;
	tap_ok(n + 1 == SC_VARIANT_COUNT && strncmp(names, "Serial, ", 8) == 0,
	       "sc_variant_names lists the %d variants, in order: %s", SC_VARIANT_COUNT, names);
}

/*
 * RBONuma and RBONumaAdapt through the handle wrap at 2^(31 - nb), nb =
 * ceil(log2 sc_node_count()) (sc_counter.h, Values): the node field takes nb
 * of the word's 31 value bits (the header said 2^31 whatever the nodes).
 */
static void test_rbonuma_handle_range(void)
{
	static const char *const names[] = {"RBONuma", "RBONumaAdapt"};
	uint32_t nodes = sc_node_count() < SC_RBONUMA_MAX_NODES ? sc_node_count()
	                                                         : SC_RBONUMA_MAX_NODES;
	uint64_t top = ((uint64_t)1 << (31 - sc_bits_for(nodes))) - 1;
	for (int i = 0; i < 2; i++) {
		sc_counter *c = sc_counter_new(names[i], "", NULL);
		sc_counter_add(c, top);
		uint64_t at_top = sc_counter_get(c);
		sc_counter_inc(c);
		uint64_t wrapped = sc_counter_get(c);
		tap_ok(at_top == top && wrapped == 0,
		       "%s handle on %u node(s): holds 2^%u - 1 (%llu), the next increment reads 0 "
		       "(%llu)", names[i], nodes, 31 - sc_bits_for(nodes),
		       (unsigned long long)at_top, (unsigned long long)wrapped);
		sc_counter_free(c);
	}
}

/* ---- many threads, no registration ---- */

#define ROUNDS 3000
static const uint64_t ADDS[] = {1, 7, 0, 64, 2, 1000, 3};
#define N_ADDS (sizeof ADDS / sizeof ADDS[0])

static uint64_t per_thread_total(void)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < ROUNDS; i++)
		s += 1 + ADDS[i % N_ADDS];
	return s;
}

static void worker_inc_add(test_thread_arg *a)
{
	sc_counter *c = a->shared;
	for (unsigned i = 0; i < ROUNDS; i++) {
		sc_counter_inc(c);
		sc_counter_add(c, ADDS[i % N_ADDS]);
	}
}

static void check_total(sc_counter *c, const sc_variant *v, uint64_t truth, const char *what)
{
	uint64_t got = sc_counter_get(c);
	if (v->kind == SC_PRECISE)
		tap_ok(got == truth, "%s_%s_exact (%llu of %llu)", v->name, what,
		       (unsigned long long)got, (unsigned long long)truth);
	else if (v->kind == SC_RACY)
		tap_ok(got <= truth, "%s_%s_never_above_truth", v->name, what);
	else
		tap_ok(fabs((double)got / (double)truth - 1) <= 0.05,
		       "%s_%s_within_5x_its_1%%_bound (%+.3f%%)", v->name, what,
		       100 * ((double)got / (double)truth - 1));
}

static void test_threads_never_register(unsigned threads, bool precise_only)
{
	char what[64];
	snprintf(what, sizeof what, "%u_unregistered_threads", threads);
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		if (precise_only && v->kind != SC_PRECISE)
			continue;
		sc_err err;
		sc_counter *c = sc_counter_new(v->name, "", &err);
		if (!tap_ok(c != NULL, "%s_new: %s", v->name, c ? "ok" : err.msg))
			continue;
		test_run_threads(threads, worker_inc_add, c);
		check_total(c, v, threads * per_thread_total(), what);
		sc_counter_free(c);
	}
}

/* Batched: each thread holds fewer than B increments and exits; the exit flushes them. */
static void worker_few(test_thread_arg *a)
{
	for (int i = 0; i < 10; i++)
		sc_counter_inc(a->shared);
}

static void test_batched_flushed_at_thread_exit(void)
{
	sc_err err;
	sc_counter *c = sc_counter_new("Batched", "batch=1000", &err);
	test_run_threads(8, worker_few, c);
	tap_ok(sc_counter_get(c) == 80, "batched_threads_flush_at_exit (%llu of 80)",
	       (unsigned long long)sc_counter_get(c));
	sc_counter_inc(c); /* the main thread never exits during the test: flush by hand */
	bool held = sc_counter_get(c) == 80;
	sc_counter_flush(c);
	tap_ok(held && sc_counter_get(c) == 81, "batched_flush_hands_over_the_callers_count");
	sc_counter_free(c);
}

/* Threads one after the other: indices come back, the count stays exact. */
static void *one_inc(void *arg)
{
	sc_counter_inc(arg);
	return (void *)(uintptr_t)sc_thread_self()->index;
}

static void test_indices_reused(void)
{
	sc_err err;
	sc_counter *c = sc_counter_new("Sharded", "", &err);
	uint32_t max_index = 0;
	for (int i = 0; i < 200; i++) {
		pthread_t tid;
		void *ret;
		pthread_create(&tid, NULL, one_inc, c);
		pthread_join(tid, &ret);
		if ((uint32_t)(uintptr_t)ret > max_index)
			max_index = (uint32_t)(uintptr_t)ret;
	}
	tap_ok(sc_counter_get(c) == 200 && max_index <= 1,
	       "indices_of_exited_threads_reused (200 threads in turn, largest index %u)",
	       max_index);
	sc_counter_free(c);
}

/*
 * The inlined Sharded increment reads the thread's index alone (no ready
 * flag): a thread whose first library call is that increment must still get
 * its own context and slot; a TLS destructor that counts after the library's
 * exit destructor has freed the thread's index counts through the shared
 * slot, without a new context (none could be flushed: see below).
 */
#ifdef SC_COUNTER_HAVE_TLS_
static pthread_key_t late_key;
static uint32_t late_ready; /* sc_counter_tls_.ready after the late destructor's increments */

static void late_destructor(void *arg)
{
	for (int i = 0; i < 100; i++)
		sc_counter_inc(arg);
	late_ready = sc_counter_tls_.ready;
	sc_counter_flush(arg); /* a no-op for Sharded; a library call that sees the context */
}

static void *first_call_inc(void *arg)
{
	for (int i = 0; i < 1000; i++)
		sc_counter_inc(arg);
	uintptr_t ready = sc_counter_tls_.ready;
	pthread_setspecific(late_key, arg); /* key made after the library's: runs after its exit */
	return (void *)ready;
}

static void test_sharded_first_and_last_calls(void)
{
	sc_err err;
	sc_counter *c = sc_counter_new("Sharded", "", &err);
	sc_counter_inc(c); /* the main thread's own slot */
	if (pthread_key_create(&late_key, late_destructor) != 0) {
		tap_ok(false, "sharded_first_call: pthread_key_create");
		return;
	}
	pthread_t tid;
	void *ret = NULL;
	pthread_create(&tid, NULL, first_call_inc, c);
	pthread_join(tid, &ret);
	char d[128];
	sc_counter_describe(c, d, sizeof d);
	/* nonzero: the main thread's slot, the thread's own and the shared one (its late destructor) */
	tap_ok((uintptr_t)ret == 1 && strstr(d, ";nonzero=3") != NULL,
	       "sharded_first_call_is_the_inc: the thread got its context (ready %u) and its own "
	       "slot (%s)",
	       (unsigned)(uintptr_t)ret, d);
	tap_ok(late_ready == 0 && sc_counter_get(c) == 1101,
	       "sharded_inc_after_the_exit_destructor: a later destructor's 100 increments made "
	       "no new context (ready %u) and count (%llu of 1101)",
	       late_ready, (unsigned long long)sc_counter_get(c));
	pthread_key_delete(late_key);
	sc_counter_free(c);
}
#else
static void test_sharded_first_and_last_calls(void)
{
	tap_ok(true, "sharded_first_call # SKIP the handle is not inlined on this target");
}
#endif

/* Every thread's context has its own index and its own generator state. */
typedef struct ctx_seen {
	pthread_mutex_t lock;
	uint32_t index[8], rng[8];
} ctx_seen;

static void worker_ctx(test_thread_arg *a)
{
	ctx_seen *s = a->shared;
	sc_thread *t = sc_thread_self();
	pthread_mutex_lock(&s->lock);
	s->index[a->index] = t->index;
	s->rng[a->index] = t->rng;
	pthread_mutex_unlock(&s->lock);
	/* hold the index until every thread has taken one */
	pthread_barrier_wait(a->gate);
}

static void test_contexts_distinct(void)
{
	ctx_seen s;
	memset(&s, 0, sizeof s);
	pthread_mutex_init(&s.lock, NULL);
	test_run_threads(8, worker_ctx, &s);
	bool distinct = true;
	for (int i = 0; i < 8; i++)
		for (int j = 0; j < i; j++)
			distinct = distinct && s.index[i] != s.index[j] && s.rng[i] != s.rng[j];
	tap_ok(distinct, "contexts_have_distinct_indices_and_rng_streams");
	pthread_mutex_destroy(&s.lock);
}

/* ---- read_and_reset while 8 threads increment ---- */

#define RR_REPEAT 4 /* each writer makes RR_REPEAT x per_thread_total() */

typedef struct rr_shared {
	sc_counter *c;
	SC_ATOMIC(unsigned) running;   /* writers not done yet */
	SC_ATOMIC(uint64_t) readings;  /* taken so far by the reader */
} rr_shared;

static void worker_rr(test_thread_arg *a)
{
	rr_shared *s = a->shared;
	for (unsigned r = 0; r < RR_REPEAT; r++) {
		for (unsigned i = 0; i < ROUNDS; i++) {
			sc_counter_inc(s->c);
			sc_counter_add(s->c, ADDS[i % N_ADDS]);
			if (i % 64 == 0) {
				/* wait for a fresh reading, so that readings surely fall among increments */
				uint64_t seen = atomic_load(&s->readings);
				while (atomic_load(&s->readings) == seen)
					sched_yield();
			}
		}
	}
	atomic_fetch_sub(&s->running, 1);
}

typedef struct rr_reader {
	rr_shared *s;
	uint64_t sum, readings, nonzero;
} rr_reader;

static void *reader(void *arg)
{
	rr_reader *r = arg;
	while (atomic_load(&r->s->running) > 0) {
		uint64_t x = sc_counter_read_and_reset(r->s->c);
		r->sum += x;
		r->readings++;
		r->nonzero += x != 0;
		atomic_fetch_add(&r->s->readings, 1);
		sched_yield();
	}
	return NULL;
}

static void test_read_and_reset_loses_nothing(void)
{
	const unsigned writers = 8;
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		if (v->kind != SC_PRECISE)
			continue;
		sc_err err;
		rr_shared s = {sc_counter_new(v->name, "", &err), writers, 0};
		if (!s.c)
			continue;
		rr_reader r = {&s, 0, 0, 0};
		pthread_t rt;
		pthread_create(&rt, NULL, reader, &r);
		test_run_threads(writers, worker_rr, &s);
		pthread_join(rt, NULL);
		uint64_t last = sc_counter_read_and_reset(s.c);
		uint64_t truth = writers * RR_REPEAT * per_thread_total();
		tap_ok(r.sum + last == truth && sc_counter_get(s.c) == 0,
		       "%s_read_and_reset_counts_each_increment_once (%llu readings during the "
		       "increments, %llu of them non-zero; %llu + final %llu of %llu)",
		       v->name, (unsigned long long)r.readings, (unsigned long long)r.nonzero,
		       (unsigned long long)r.sum, (unsigned long long)last,
		       (unsigned long long)truth);
		sc_counter_free(s.c);
	}
}

/* Probabilistic and racy: the word is exchanged for its initial state. */
static void test_read_and_reset_single_word(void)
{
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		if (v->kind == SC_PRECISE)
			continue;
		sc_err err;
		sc_counter *c = sc_counter_new(v->name, "", &err);
		/* below every switch point, so exact; Morris is never exact: 5 x its 1% bound */
		sc_counter_add(c, 5000);
		uint64_t first = sc_counter_read_and_reset(c);
		uint64_t zero = sc_counter_get(c);
		sc_counter_add(c, 7);
		uint64_t second = sc_counter_read_and_reset(c);
		/* the reading rounds the projection at random: n(7) = 7.004 gives 8 at times */
		bool ok = i == SC_ID_morris ? fabs((double)first / 5000 - 1) <= 0.05 && second >= 1 &&
		                                      second <= 8
		                            : first == 5000 && second == 7;
		tap_ok(ok && zero == 0,
		       "%s_read_and_reset_returns_and_restarts (%llu, %llu, %llu)", v->name,
		       (unsigned long long)first, (unsigned long long)zero,
		       (unsigned long long)second);
		sc_counter_free(c);
	}
}

/*
 * Morris readings are unbiased: 100,000 read_and_reset readings of k
 * increments each (k = 30, 60) sum to 100,000 k within 6 standard
 * deviations. A reading's variance is at most k(k-1)/(2a) (a = 5000) plus
 * 1/4 for the random rounding, so 6 sd is 1,102 at k = 30 and 1,474 at
 * k = 60 (sums of 1e5 independent readings: normal; false-failure
 * probability below 2e-9 each). Rounding to nearest took 0.087 off every
 * reading at k = 30 (8,580 in all, 0.29%) and 0.35 at k = 60. Seed: the
 * library's fixed context seed (this thread's sequence number).
 */
static void test_morris_readings_unbiased(void)
{
	static const unsigned KS[] = {30, 60};
	const uint64_t readings = test_scaled(100000, 20000);
	for (unsigned j = 0; j < 2; j++) {
		unsigned k = KS[j];
		sc_counter *c = sc_counter_new("Morris", "", NULL);
		uint64_t sum = 0;
		for (uint64_t r = 0; r < readings; r++) {
			for (unsigned i = 0; i < k; i++)
				sc_counter_inc(c);
			sum += sc_counter_read_and_reset(c);
		}
		double truth = (double)readings * k;
		double sd = sqrt((double)readings * ((double)k * (k - 1) / 10000.0 + 0.25));
		tap_ok(fabs((double)sum - truth) <= 6 * sd,
		       "Morris read_and_reset: %llu readings of %u increments sum to %llu, %.0f "
		       "expected (%+.4f%%; bound 6 sd = %.0f)",
		       (unsigned long long)readings, k, (unsigned long long)sum, truth,
		       100 * ((double)sum / truth - 1), 6 * sd);
		sc_counter_free(c);
	}
}

/*
 * Batched get_sum never exceeds the increments begun: writers count each
 * increment in begun[] before making it (then a release fence, so a reader
 * that sees the increment in the counter sees it in begun[] too: the
 * fence-fence synchronisation of C11 7.17.4), a reader compares get_sum with
 * the sum of begun[] read after the reading (after an acquire fence). With a
 * small batch a flush happens every other increment; reading a thread's
 * local count before its flush and the shared word after it counted the
 * batch twice (seen: 73 of 3,000,000 readings above, up to +62 at batch 64).
 * Deterministic in what it checks (every reading must pass); how many
 * readings race with a flush varies from run to run.
 */
#define SUM_WRITERS 3
static SC_ATOMIC(uint64_t) sum_begun[SUM_WRITERS];
static SC_ATOMIC(int) sum_stop;

static void sum_writer(test_thread_arg *a)
{
	sc_counter *c = a->shared;
	if (a->index == SUM_WRITERS) { /* the reader */
		uint64_t readings = test_scaled(2000000, 50000), above = 0, worst = 0;
		for (uint64_t r = 0; r < readings; r++) {
			uint64_t got = sc_counter_get_sum(c);
			atomic_thread_fence(memory_order_acquire);
			uint64_t begun = 0;
			for (unsigned i = 0; i < SUM_WRITERS; i++)
				begun += atomic_load_explicit(&sum_begun[i], memory_order_relaxed);
			if (got > begun) {
				above++;
				worst = got - begun > worst ? got - begun : worst;
			}
		}
		atomic_store(&sum_stop, 1);
		tap_ok(above == 0, "Batched get_sum never exceeds the increments begun while 3 "
		       "threads flush (batch=2): %llu of %llu readings above, by up to %llu",
		       (unsigned long long)above, (unsigned long long)readings,
		       (unsigned long long)worst);
		return;
	}
	while (!atomic_load_explicit(&sum_stop, memory_order_relaxed)) {
		for (int i = 0; i < 64; i++) {
			/* relaxed: only this thread writes its entry; the fence publishes it */
			atomic_store_explicit(&sum_begun[a->index],
			                      atomic_load_explicit(&sum_begun[a->index],
			                                           memory_order_relaxed) + 1,
			                      memory_order_relaxed);
			atomic_thread_fence(memory_order_release);
			sc_counter_inc(c);
		}
	}
}

static void test_batched_sum_never_above_begun(void)
{
	sc_counter *c = sc_counter_new("Batched", "batch=2", NULL);
	test_run_threads(SUM_WRITERS + 1, sum_writer, c);
	sc_counter_free(c);
}

/*
 * Morris read_and_reset of 2 increments at a time: the readings' mean is 2
 * (MorrisAdapt's Morris half is read by the same code). The closed-form projection at the float
 * thresholds gave 1.9999006 on average, a bias of -1e-4 per reading, 7.7
 * standard errors over 2e6 readings and 11 over the 4e6 here. Check: |mean -
 * 2| <= 5 standard errors of the mean (the sample's own standard deviation,
 * about 0.017, over sqrt(N)); the readings are independent and bounded, so
 * the mean is normal and the false-failure probability is 5.7e-7 per
 * variant. Seed: the library's fixed context seed (this thread's sequence
 * number).
 */
static void test_morris_small_readings_unbiased(const char *variant)
{
	const uint64_t readings = test_scaled(4000000, 200000);
	sc_counter *c = sc_counter_new(variant, "", NULL);
	test_stats st = {0};
	for (uint64_t r = 0; r < readings; r++) {
		sc_counter_inc(c);
		sc_counter_inc(c);
		test_stats_add(&st, (double)sc_counter_read_and_reset(c));
	}
	double se = test_stats_sd(&st) / sqrt(st.n);
	tap_ok(fabs(st.mean - 2.0) <= 5 * se,
	       "%s read_and_reset of 2 increments: mean of %llu readings %.7f, 2 expected (%.1f "
	       "standard errors of %.2g; bound 5)", variant, (unsigned long long)readings,
	       st.mean, (st.mean - 2.0) / se, se);
	sc_counter_free(c);
}

/* runtime=dotnet through the handle: a fresh thread's stream starts at the runtime's 100. */
static void *dotnet_handle_thread(void *arg)
{
	sc_counter *c = arg;
	for (int i = 0; i < 20000; i++)
		sc_counter_inc(c);
	return NULL;
}

static void test_dotnet_handle_seeding(void)
{
	sc_counter *c = sc_counter_new("Scalable", "runtime=dotnet,threshold=4", NULL);
	pthread_t th;
	pthread_create(&th, NULL, dotnet_handle_thread, c);
	pthread_join(th, NULL);
	/* the same increments inlined, from the state scbench gives such a thread */
	sc_table t;
	sc_err err;
	sc_env env = {1, 1, 1};
	test_table_open(&t, &sc_variants[SC_ID_scalable], &env, 1, "runtime=dotnet threshold=4",
	                &err);
	sc_thread me;
	sc_thread_init(&me, 0, 0, 1, false);
	me.rng = t.thread_seed;
	for (int i = 0; i < 20000; i++)
		t.v->inc(sc_table_at(&t, 0), t.cfg, &me);
	uint64_t handle = sc_counter_get(c), inlined = t.v->get(sc_table_at(&t, 0), t.cfg);
	tap_ok(t.thread_seed == 100 && handle == inlined,
	       "Scalable runtime=dotnet via the handle: a new thread draws the runtime's stream "
	       "from 100 (%llu, inlined %llu)", (unsigned long long)handle,
	       (unsigned long long)inlined);
	sc_table_destroy(&t);
	sc_counter_free(c);
}

/*
 * runtime=dotnet's add(n) through the handle: 2^40 returns (it does not loop
 * 2^40 times; alarm turns a hang into a failure) and, at width 64, lands
 * within 5% of 2^40 (the RSTDV at T = 13 is below 1%, the runtime's
 * downward bias 2^(s-32) of the odds below 2^-12: 5 sd plus the bias,
 * false-failure probability below 6e-7); and add(n) has the distribution
 * of n of the runtime's increments: over 1,000 repetitions each of
 * add(50,000) and of 50,000 inlined increments, the means agree within 5
 * standard errors of their difference (6e-7) and the variances within a
 * ratio of 1.33 (4.5 sd of the log ratio, about 7e-6). Seeds: the handle's
 * context; the inlined stream from 100.
 */
static void test_dotnet_handle_add(void)
{
	alarm(120);
	sc_counter *c = sc_counter_new("Scalable", "runtime=dotnet,width=32", NULL);
	sc_counter_add(c, 1ull << 40);
	uint64_t w32 = sc_counter_get(c);
	sc_counter_free(c);
	c = sc_counter_new("Scalable", "runtime=dotnet,width=64", NULL);
	sc_counter_add(c, 1ull << 40);
	double rel = (double)sc_counter_get(c) / 0x1p40 - 1;
	tap_ok(w32 <= UINT32_MAX && fabs(rel) < 0.05,
	       "Scalable runtime=dotnet via the handle: add(2^40) returns (width 32: %llu "
	       "after its wraps; width 64: %+.3f%% of 2^40)", (unsigned long long)w32, 100 * rel);
	sc_counter_free(c);
	alarm(0);

	const unsigned reps = (unsigned)test_scaled(1000, 300);
	const uint64_t n = 50000;
	test_stats added = {0}, looped = {0};
	c = sc_counter_new("Scalable", "runtime=dotnet,width=32", NULL);
	for (unsigned r = 0; r < reps; r++) {
		sc_counter_add(c, n);
		test_stats_add(&added, (double)sc_counter_read_and_reset(c));
	}
	sc_counter_free(c);
	sc_table t;
	sc_err err;
	sc_env env = {1, 1, 1};
	test_table_open(&t, &sc_variants[SC_ID_scalable], &env, 1, "runtime=dotnet", &err);
	sc_thread me;
	sc_thread_init(&me, 0, 0, 1, false);
	me.rng = t.thread_seed;
	for (unsigned r = 0; r < reps; r++) {
		t.v->reset(sc_table_at(&t, 0), t.cfg);
		for (uint64_t i = 0; i < n; i++)
			t.v->inc(sc_table_at(&t, 0), t.cfg, &me);
		test_stats_add(&looped, (double)t.v->get(sc_table_at(&t, 0), t.cfg));
	}
	sc_table_destroy(&t);
	double sa = test_stats_sd(&added), sl = test_stats_sd(&looped);
	double se = sqrt((sa * sa + sl * sl) / reps), ratio = (sa * sa) / (sl * sl);
	tap_ok(fabs(added.mean - looped.mean) <= 5 * se && ratio < 1.33 && ratio > 1 / 1.33,
	       "Scalable runtime=dotnet via the handle: add(%llu) as %llu increments over %u "
	       "repetitions: mean %.1f vs %.1f (5 se %.1f), sd %.1f vs %.1f",
	       (unsigned long long)n, (unsigned long long)n, reps, added.mean, looped.mean,
	       5 * se, sa, sl);
}

/*
 * A thread counts after its exit destructor ran: in the destructors' last
 * round (a destructor that set its key again three times), and from signal
 * handlers that land anywhere in its exit. Such an update must reach the
 * fast reading too: a context made then would hold it back in a Batched
 * slot with no destructor round left to flush it (the fast reading then
 * stays short; get_sum counts it). Both exact comparisons.
 */
typedef struct last_round {
	sc_counter *c;
	/*
	 * Atomic: written by the thread's key destructors, which run after the
	 * thread function returns, where ThreadSanitizer's pthread_join no
	 * longer orders them before the joiner. done, stored after the last
	 * round's increments and loaded after the join, orders them for it.
	 */
	atomic_int round;
	atomic_int done;
} last_round;

static pthread_key_t last_key;

static void last_destructor(void *arg)
{
	last_round *r = arg;
	if (atomic_fetch_add(&r->round, 1) + 1 < PTHREAD_DESTRUCTOR_ITERATIONS) {
		pthread_setspecific(last_key, r); /* called again in the next round */
		return;
	}
	for (int i = 0; i < 100; i++)
		sc_counter_inc(r->c);
	atomic_store(&r->done, 1);
}

static void *count_then_arm(void *arg)
{
	last_round *r = arg;
	for (int i = 0; i < 10; i++)
		sc_counter_inc(r->c);
	pthread_setspecific(last_key, r);
	return NULL;
}

static void test_batched_inc_in_the_last_destructor_round(void)
{
	sc_err err;
	last_round r = {sc_counter_new("Batched", "batch=1000", &err), 0, 0};
	if (pthread_key_create(&last_key, last_destructor) != 0) {
		tap_ok(false, "batched_inc_in_the_last_destructor_round: pthread_key_create");
		return;
	}
	pthread_t tid;
	pthread_create(&tid, NULL, count_then_arm, &r);
	pthread_join(tid, NULL);
	int round = atomic_load(&r.done) ? atomic_load(&r.round) : -1;
	tap_ok(round == PTHREAD_DESTRUCTOR_ITERATIONS && sc_counter_get_fast(r.c) == 110 &&
	       sc_counter_get_sum(r.c) == 110,
	       "batched_inc_in_the_last_destructor_round: round %d, get_fast %llu, get_sum %llu "
	       "of 110",
	       round, (unsigned long long)sc_counter_get_fast(r.c),
	       (unsigned long long)sc_counter_get_sum(r.c));
	pthread_key_delete(last_key);
	sc_counter_free(r.c);
}

/*
 * Waves of short-lived threads, each signalled again and again while it
 * exits; each also waits in its destructors' last round (as above) until a
 * handler of its own has counted there, so that every thread has at least
 * one update made after its exit destructor, by a signal handler. Each
 * thread also counts once in STORM_OTHERS more Batched counters, so that
 * its exit flush takes a while: a handler that lands in it, after the
 * flush of the counter it counts into, must not leave that update held back
 * in a slot nobody flushes again. Both readings are checked after every wave
 * (every thread of it joined), so an update lost from the fast reading is
 * seen even when a thread of a later wave, taking the same index, would
 * hand it over. With the exit flush's old order (flush, then leave the
 * index) 116 of 2,000 such waves failed under qemu-aarch64 and 4 of 5,000
 * natively.
 */
enum { STORM_WAVES = 100, STORM_THREADS = 8, STORM_INCS = 50, STORM_OTHERS = 300 };
static sc_counter *storm_c, *storm_others[STORM_OTHERS];
static atomic_uint_least64_t storm_begun, storm_done;
static atomic_uint storm_finished; /* threads of the wave past their last round's wait */
static atomic_uint storm_late;     /* threads a handler counted on in their last round */
static pthread_key_t storm_key;
static _Thread_local volatile sig_atomic_t storm_seen; /* handlers completed on this thread */
static _Thread_local int storm_round;

static void storm_handler(int sig)
{
	(void)sig;
	atomic_fetch_add(&storm_begun, 1);
	sc_counter_inc(storm_c);
	atomic_fetch_add(&storm_done, 1);
	storm_seen = storm_seen + 1;
}

static void storm_destructor(void *arg)
{
	if (++storm_round < PTHREAD_DESTRUCTOR_ITERATIONS) {
		pthread_setspecific(storm_key, arg);
		return;
	}
	sig_atomic_t seen = storm_seen;
	/*
	 * The main thread signals until every thread of the wave is past here;
	 * at most 5 s (a runtime that delays handlers, such as ThreadSanitizer's,
	 * must not hang the test: the counts are checked all the same).
	 */
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (storm_seen != seen) {
			atomic_fetch_add(&storm_late, 1);
			break;
		}
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec < 5);
	atomic_fetch_add(&storm_finished, 1);
}

static void *storm_worker(void *arg)
{
	for (int i = 0; i < STORM_INCS; i++)
		sc_counter_inc(storm_c);
	for (int i = 0; i < STORM_OTHERS; i++)
		sc_counter_inc(storm_others[i]);
	pthread_setspecific(storm_key, arg);
	return NULL; /* exits: the library's destructor flushes, the storm goes on */
}

static void test_batched_signals_during_exit(void)
{
	sc_err err;
	for (int i = 0; i < STORM_OTHERS; i++)
		storm_others[i] = sc_counter_new("Batched", "batch=1000", &err);
	storm_c = sc_counter_new("Batched", "batch=1000", &err);
	if (pthread_key_create(&storm_key, storm_destructor) != 0) {
		tap_ok(false, "batched_signals_during_exit: pthread_key_create");
		return;
	}
	struct sigaction sa = {.sa_handler = storm_handler};
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR2);
	unsigned bad_waves = 0;
	char first_bad[160] = "";
	for (int w = 0; w < STORM_WAVES; w++) {
		pthread_t t[STORM_THREADS];
		atomic_store(&storm_finished, 0);
		for (int i = 0; i < STORM_THREADS; i++)
			pthread_create(&t[i], NULL, storm_worker, storm_c);
		/* unjoined, each thread's id stays valid for pthread_kill after it exits */
		pthread_sigmask(SIG_BLOCK, &block, &old);
		for (unsigned k = 0; atomic_load(&storm_finished) < STORM_THREADS || k < 8; k++) {
			for (int i = 0; i < STORM_THREADS; i++)
				pthread_kill(t[i], SIGUSR2);
			sched_yield();
		}
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		for (int i = 0; i < STORM_THREADS; i++)
			pthread_join(t[i], NULL);
		uint64_t so_far =
			(uint64_t)(w + 1) * STORM_THREADS * STORM_INCS + atomic_load(&storm_done);
		uint64_t f = sc_counter_get_fast(storm_c), s = sc_counter_get_sum(storm_c);
		if ((f != so_far || s != so_far) && bad_waves++ == 0)
			snprintf(first_bad, sizeof first_bad,
			         "; first after wave %d: get_fast %llu, get_sum %llu, want %llu", w,
			         (unsigned long long)f, (unsigned long long)s,
			         (unsigned long long)so_far);
	}
	signal(SIGUSR2, SIG_DFL);
	uint64_t want = (uint64_t)STORM_WAVES * STORM_THREADS * STORM_INCS + atomic_load(&storm_done);
	uint64_t fast = sc_counter_get_fast(storm_c), sum = sc_counter_get_sum(storm_c);
	tap_ok(atomic_load(&storm_begun) == atomic_load(&storm_done) && fast == want &&
	               sum == want && bad_waves == 0,
	       "batched_signals_during_exit: %llu handler updates (in the last destructor round "
	       "of %u of %d threads), get_fast %llu, get_sum %llu, want %llu; %u of %d waves "
	       "off%s",
	       (unsigned long long)atomic_load(&storm_done), atomic_load(&storm_late),
	       STORM_WAVES * STORM_THREADS, (unsigned long long)fast, (unsigned long long)sum,
	       (unsigned long long)want, bad_waves, STORM_WAVES, first_bad);
	pthread_key_delete(storm_key);
	sc_counter_free(storm_c);
	for (int i = 0; i < STORM_OTHERS; i++)
		sc_counter_free(storm_others[i]);
}

int main(void)
{
	tap_plan_lazy();
	test_names_from_threads(); /* first: nothing has listed the names yet */
	test_new_validates();
	test_rbonuma_handle_range();
	test_threads_never_register(8, false);
	test_threads_never_register(40, true); /* more threads than the 8 (2-core) slots */
	test_batched_flushed_at_thread_exit();
	test_indices_reused();
	test_sharded_first_and_last_calls();
#if defined(__SANITIZE_THREAD__)
	/*
	 * ThreadSanitizer's runtime treats a thread as finished when its function
	 * returns: the key destructors that run after it are not ordered before
	 * pthread_join for it, and a signal delivered during them crashes it
	 * (SEGV inside the runtime). Both tests count in those destructors.
	 */
	tap_ok(true, "batched_inc_in_the_last_destructor_round # SKIP under ThreadSanitizer "
	             "(key destructors run after the thread it tracks has ended)");
	tap_ok(true, "batched_signals_during_exit # SKIP under ThreadSanitizer (a signal during "
	             "a thread's key destructors crashes its runtime)");
	(void)test_batched_inc_in_the_last_destructor_round;
	(void)test_batched_signals_during_exit;
#else
	test_batched_inc_in_the_last_destructor_round();
	test_batched_signals_during_exit();
#endif
	test_contexts_distinct();
	test_read_and_reset_loses_nothing();
	test_read_and_reset_single_word();
	test_morris_readings_unbiased();
	test_morris_small_readings_unbiased("Morris");
	test_batched_sum_never_above_begun();
	test_dotnet_handle_seeding();
	test_dotnet_handle_add();
	return tap_done();
}
