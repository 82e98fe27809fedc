/* SPDX-License-Identifier: MIT */
/*
 * testprob.h - what the probabilistic families' tests share (test_morris.c,
 * test_bfp.c, test_scalable.c): one counter of a variant through the
 * registry, increments through its inlined fast path, the chi-square and
 * normal tails, and the checks run per variant from a family's tables.
 * Deterministic: every thread context is seeded with a fixed seed
 * (sc_thread_init), and the statistical checks state their false-failure
 * probability and seed.
 *
 * Statistical checks (tp_check_statistics): K single-thread runs of N
 * increments, run i seeded with base seed + i, each giving x = value/N.
 *  (a) mean: |mean(x) - 1| <= 5 bound/sqrt(K). x is a sum of many small
 *      martingale increments, close to normal, and its sd is at most the
 *      bound, so a false failure has probability at most the two-sided
 *      normal tail at 5, 5.7e-7.
 *  (b) RSTDV: sd(x) <= bound sqrt(q/(K - 1)), q the chi-square(K - 1)
 *      quantile with upper tail 1e-6, so a false failure has probability at
 *      most 1e-6 (normal x, true sd at most the bound).
 *  (c) not degenerate: sd(x) >= half the RSTDV predicted for this N (a
 *      counter that had silently become exact would pass (a) and (b)); the
 *      chi-square lower tail this allows is printed, 1.7e-29 at K = 200.
 *
 * add(n) is held to the same three checks with the same bounds (its contract
 * is that of n increments, see the family headers): the N of a run is
 * given as adds of a cycle of sizes from 1 to 2^17 (ADD_CHUNKS), seeded from
 * base seed + 0x800000.
 *
 * Seeds: statistical spec k of the list the three programs share (Morris 0-2,
 * BFP 3-5, Scalable 6-9, the order of one program before the split) runs
 * with base seed STAT_SEED + 0x10000 k (tp_spec_seed), its run j with base + j;
 * each check prints its base seed.
 *
 *   test_<family>               make check: K = 200, N = 2^19
 *   test_<family> --acceptance  K = 200, N = 2,000,000, with a table
 *
 * SC_TEST_SCALE=s (testutil.h) makes K = ceil(200 s) runs, but never fewer
 * than the smallest K whose check (c) lower tail is at most 1e-6 (K = 38).
 * N, and so each run's distribution, is unchanged; (a) and (b) take their
 * limits from K as above, so every false-failure probability stays 1e-6 or
 * less.
 */
#ifndef SC_TESTPROB_H
#define SC_TESTPROB_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scounters/scounters.h>
#include "tap.h"
#include "testutil.h"

/* ---- one counter of a variant, through the registry ---- */

/* What config wrote, for the checks that read it. */
typedef union any_cfg {
	sc_morris_cfg morris;
	sc_bfp_cfg bfp;
	sc_scalable_cfg scalable;
} any_cfg;

/* A table of one counter, and views into it. */
typedef struct inst {
	sc_table t;
	const sc_variant *v; /* t.v */
	const any_cfg *cfg;  /* t.cfg */
	void *c;             /* the counter */
} inst;

/*
 * Configure variant id from params ("k=v k=v") and make one counter with
 * sc_table_create, which also rejects keys the variant did not read.
 */
static inline int inst_open(inst *in, int id, const char *params, sc_err *err)
{
	sc_env env = {1, 1, 1};
	memset(in, 0, sizeof *in);
	in->v = &sc_variants[id];
	err->msg[0] = '\0';
	if (test_table_open(&in->t, in->v, &env, 1, params, err))
		return -1;
	in->cfg = in->t.cfg;
	in->c = sc_table_at(&in->t, 0);
	return 0;
}

static inline void inst_must_open(inst *in, int id, const char *params)
{
	sc_err err;
	if (inst_open(in, id, params, &err)) {
		fprintf(stderr, "cannot configure %s with '%s': %s\n", sc_variants[id].name, params,
		        err.msg);
		exit(99);
	}
}

static inline void inst_close(inst *in)
{
	sc_table_destroy(&in->t);
	in->c = NULL;
}

static inline uint64_t inst_get(const inst *in)
{
	return in->v->get(in->c, in->cfg);
}

/*
 * n increments through the variant's inlined fast path, as scbench's loops
 * make them: the statistical runs make some 10^9 increments, which one
 * indirect call each (the registry's inc) makes a third slower.
 */
typedef void (*inc_n_fn)(void *c, const void *cfg, sc_thread *t, uint64_t n);

#define INC_N_(P, ...)                                                                     \
	static void P##_inc_n(void *c, const void *cfg, sc_thread *t, uint64_t n)          \
	{                                                                                  \
		for (uint64_t i = 0; i < n; i++)                                           \
			sc_##P##_inc(c, cfg, t);                                           \
	}
SC_VARIANTS(INC_N_)
#undef INC_N_

#define INC_N_ENTRY_(P, ...) [SC_ID_##P] = P##_inc_n,
static const inc_n_fn inc_n[SC_VARIANT_COUNT] = {SC_VARIANTS(INC_N_ENTRY_)};
#undef INC_N_ENTRY_

static inline void inst_inc(inst *in, sc_thread *t, uint64_t n)
{
	inc_n[in->v - sc_variants](in->c, in->cfg, t, n);
}

/*
 * n increments given as adds whose sizes cycle through ADD_CHUNKS, starting
 * at entry `phase`: singles, small and large adds mixed, so that add's runs
 * of bumps, its gaps and its ordinary single updates all take part.
 */
static const uint64_t ADD_CHUNKS[] = {1, 3, 1000, 2, 17, 131072, 1, 4096, 250, 65536, 7, 30000};
#define N_ADD_CHUNKS (sizeof ADD_CHUNKS / sizeof ADD_CHUNKS[0])

static inline void inst_add_chunks(inst *in, sc_thread *t, uint64_t n, unsigned phase)
{
	for (unsigned i = phase; n; i++) {
		uint64_t k = ADD_CHUNKS[i % N_ADD_CHUNKS];
		k = k < n ? k : n;
		in->v->add(in->c, in->cfg, t, k);
		n -= k;
	}
}

/* The raw counter word (every variant here is one 32- or 64-bit atomic word). */
static inline _Atomic uint32_t *word32(inst *in)
{
	return (_Atomic uint32_t *)in->c;
}

static inline _Atomic uint64_t *word64(inst *in)
{
	return (_Atomic uint64_t *)in->c;
}

/* ---- statistics: the chi-square distribution and the normal tail ---- */

/* Regularized lower incomplete gamma P(s, x) by its series (accurate for x < s + 1). */
static inline double gamma_p_series(double s, double x)
{
	double term = 1.0 / s, sum = term;
	for (int n = 1; n < 100000 && term > sum * 1e-17; n++) {
		term *= x / (s + n);
		sum += term;
	}
	return sum * exp(s * log(x) - x - lgamma(s));
}

/* Regularized upper incomplete gamma Q(s, x) by its continued fraction (x >= s + 1). */
static inline double gamma_q_fraction(double s, double x)
{
	const double tiny = 1e-300;
	double b = x + 1.0 - s, c = 1.0 / tiny, d = 1.0 / b, h = d;
	for (int i = 1; i < 100000; i++) {
		double an = -i * (i - s);
		b += 2.0;
		d = an * d + b;
		d = fabs(d) < tiny ? tiny : d;
		c = b + an / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		if (fabs(d * c - 1.0) < 1e-16)
			break;
	}
	return h * exp(s * log(x) - x - lgamma(s));
}

/* P(chi-square(k) <= x) and P(chi-square(k) > x), each computed where it is accurate. */
static inline double chi2_lower_tail(double k, double x)
{
	if (x <= 0)
		return 0;
	return x / 2 < k / 2 + 1 ? gamma_p_series(k / 2, x / 2)
	                         : 1.0 - gamma_q_fraction(k / 2, x / 2);
}

static inline double chi2_upper_tail(double k, double x)
{
	if (x <= 0)
		return 1;
	return x / 2 < k / 2 + 1 ? 1.0 - gamma_p_series(k / 2, x / 2)
	                         : gamma_q_fraction(k / 2, x / 2);
}

/* The x with P(chi-square(k) > x) = tail, by bisection. */
static inline double chi2_upper_quantile(double k, double tail)
{
	double lo = k, hi = 20 * k + 200;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (chi2_upper_tail(k, mid) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

#define FALSE_FAIL 1e-6 /* per statistical check */
#define MEAN_Z 5.0      /* two-sided normal tail erfc(5/sqrt 2) = 5.7e-7 */
#define MT_Z 5.0        /* the multi-threaded check uses the same z */

static inline double normal_two_sided_tail(double z)
{
	return erfc(z / sqrt(2.0));
}

/* ---- single-thread helpers ---- */

/* Every value after 1 .. n increments equals the count. */
static inline bool counts_exactly(inst *in, sc_thread *t, uint64_t n)
{
	uint64_t start = inst_get(in);
	for (uint64_t k = 1; k <= n; k++) {
		inst_inc(in, t, 1);
		if (inst_get(in) != start + k)
			return false;
	}
	return true;
}

/* Increment until the value changes (at most max times); the new value. */
static inline uint64_t inc_until_change(inst *in, sc_thread *t, uint64_t max)
{
	uint64_t before = inst_get(in);
	for (uint64_t i = 0; i < max; i++) {
		inst_inc(in, t, 1);
		uint64_t after = inst_get(in);
		if (after != before)
			return after;
	}
	return before;
}

/* ---- unbiasedness and RSTDV across seeds ---- */

typedef struct stat_spec {
	int id;
	const char *params;
	double (*bound)(const inst *in, uint64_t n);   /* pass/fail for (a), (b); NULL: exact */
	double (*predict)(const inst *in, uint64_t n); /* for (c), and shown; NULL: exact */
	uint64_t (*preset)(inst *in, uint64_t n);      /* NULL: from 0 */
	const char *why;                               /* what the bound is */
	unsigned seed_index;                           /* k of the top comment */
} stat_spec;

#define STAT_SEED 0x5eed0000u
#define CHECK_RUNS 200       /* make check: runs per statistical spec */
#define CHECK_N (1u << 19)   /* make check: increments per run */

/* The base seed of spec s (the top comment), of its add(n) form with by_add. */
static inline uint64_t tp_spec_seed(const stat_spec *s, bool by_add)
{
	return STAT_SEED + 0x10000u * s->seed_index + (by_add ? 0x800000u : 0);
}

typedef struct stat_result {
	test_stats x;
	double bound, predicted, seconds;
} stat_result;

static inline void run_statistics(const stat_spec *s, unsigned runs, uint64_t n, uint64_t seed,
                                  bool by_add, stat_result *res)
{
	inst in;
	inst_must_open(&in, s->id, s->params);
	memset(res, 0, sizeof *res);
	double t0 = test_seconds();
	for (unsigned i = 0; i < runs; i++) {
		sc_thread t;
		sc_thread_init(&t, 0, 0, seed + i, false);
		in.v->reset(in.c, in.cfg);
		uint64_t start = s->preset ? s->preset(&in, n) : 0;
		if (by_add)
			inst_add_chunks(&in, &t, n, i);
		else
			inst_inc(&in, &t, n);
		test_stats_add(&res->x, (double)(inst_get(&in) - start) / (double)n);
	}
	res->seconds = test_seconds() - t0;
	res->bound = s->bound ? s->bound(&in, n) : 0; /* 0: no bound, an exact run */
	res->predicted = s->predict ? s->predict(&in, n) : 0;
	inst_close(&in);
}

/* Checks (a), (b), (c) of the top comment on r, each with its false-failure probability. */
static inline void check_statistics(const stat_spec *s, unsigned runs, uint64_t n, uint64_t seed,
                                    bool by_add, const stat_result *res)
{
	const stat_result r = *res;
	char name[64];
	snprintf(name, sizeof name, "%s%s", sc_variants[s->id].name, by_add ? " add" : "");
	double k = runs - 1, sd = test_stats_sd(&r.x);
	double z = (r.x.mean - 1.0) / (r.bound / sqrt(runs));
	double q = chi2_upper_quantile(k, FALSE_FAIL);
	double sd_max = r.bound * sqrt(q / k);
	double p_low = chi2_lower_tail(k, k * 0.25);
	tap_diag("%s '%s': N = %llu, %u runs, seeds %#llx + 0..%u, %.2f s", name, s->params,
	         (unsigned long long)n, runs, (unsigned long long)seed, runs - 1, r.seconds);
	tap_ok(fabs(z) <= MEAN_Z, "%s '%s': unbiased: mean %.6f, |z| = %.2f <= %.0f", name,
	       s->params, r.x.mean, fabs(z), MEAN_Z);
	tap_diag("  false-failure probability %.1e (two-sided normal tail at z = %.0f, standard "
	         "error %.5f%% from the bound), seed %#llx",
	         normal_two_sided_tail(MEAN_Z), MEAN_Z, 100 * r.bound / sqrt(runs),
	         (unsigned long long)seed);
	tap_ok(sd <= sd_max, "%s '%s': RSTDV %.4f%% <= %.4f%% (bound %.4f%% = %s, x %.4f)", name,
	       s->params, 100 * sd, 100 * sd_max, 100 * r.bound, s->why, sqrt(q / k));
	tap_diag("  false-failure probability %.0e (chi-square(%.0f) upper quantile %.1f), "
	         "seed %#llx; predicted RSTDV at this N %.4f%%",
	         FALSE_FAIL, k, q, (unsigned long long)seed, 100 * r.predicted);
	tap_ok(sd >= r.predicted / 2, "%s '%s': not degenerate: RSTDV %.4f%% >= half the "
	       "predicted %.4f%%", name, s->params, 100 * sd, 100 * r.predicted);
	tap_diag("  false-failure probability %.1e (chi-square(%.0f) lower tail at k/4), "
	         "seed %#llx",
	         p_low, k, (unsigned long long)seed);
}

/*
 * Runs per spec in make check: CHECK_RUNS scaled by SC_TEST_SCALE, never
 * below the K at which check (c) keeps its false-failure probability at
 * FALSE_FAIL or less (the bounds of (a) and (b) follow K by themselves).
 */
static inline unsigned check_runs(void)
{
	unsigned k_min = 2;
	while (chi2_lower_tail(k_min - 1, (k_min - 1) * 0.25) > FALSE_FAIL)
		k_min++;
	return (unsigned)test_scaled(CHECK_RUNS, k_min);
}

/* The acceptance table's row of one spec. */
static inline void print_table_row(const stat_spec *s, unsigned runs, const stat_result *r)
{
	double sd = test_stats_sd(&r->x), se = sd / sqrt(runs);
	tap_diag("TABLE %-15s %-24s mean %.6f se %.6f z %+6.2f RSTDV %.4f%% pred %.4f%% "
	         "bound %.4f%% %.1f s",
	         sc_variants[s->id].name, s->params[0] ? s->params : "(defaults)", r->x.mean, se,
	         se > 0 ? (r->x.mean - 1) / se : 0.0, 100 * sd, 100 * r->predicted,
	         100 * r->bound, r->seconds);
}

/* Each of the nspecs specs: runs seeded runs of n; acceptance also prints a table row. */
static inline void test_unbiased_rstdv_within_bound(const stat_spec *specs, size_t nspecs,
                                                    unsigned runs, uint64_t n, bool table,
                                                    bool by_add)
{
	for (size_t i = 0; i < nspecs; i++) {
		const stat_spec *s = &specs[i];
		uint64_t seed = tp_spec_seed(s, by_add);
		stat_result r;
		run_statistics(s, runs, n, seed, by_add, &r);
		if (table)
			print_table_row(s, runs, &r);
		check_statistics(s, runs, n, seed, by_add, &r);
	}
}

/*
 * A variant that one thread drives exactly (MorrisAdapt below 2^32, BFP-CSUP
 * below 2^28, ScalableCAS everywhere), run from 0 as the others in the
 * acceptance measurement; seed_index i (1, 2, 3 for those three) gives base
 * seed STAT_SEED + 0x100000 i.
 */
static inline void test_single_thread_exact_from_zero(int id, unsigned seed_index, unsigned runs,
                                                      uint64_t n)
{
	stat_spec s = {id, "", NULL, NULL, NULL, "exact", 0};
	stat_result r;
	run_statistics(&s, runs, n, STAT_SEED + 0x100000u * seed_index, false, &r);
	print_table_row(&s, runs, &r);
	tap_ok(r.x.min == 1 && r.x.max == 1, "%s: %u single-thread runs of %llu from 0 are "
	       "exact", sc_variants[id].name, runs, (unsigned long long)n);
}

/* ---- several threads on one counter ---- */

typedef struct mt_shared {
	inst *in;
	uint64_t per_thread;
	uint64_t seed;
	bool by_add; /* adds cycling through ADD_CHUNKS instead of increments */
} mt_shared;

static inline void mt_worker(test_thread_arg *a)
{
	mt_shared *s = a->shared;
	sc_thread t;
	sc_thread_init(&t, a->index, 0, s->seed, false);
	if (s->by_add)
		inst_add_chunks(s->in, &t, s->per_thread, a->index);
	else
		inst_inc(s->in, &t, s->per_thread);
	s->in->v->flush(s->in->c, s->in->cfg, &t);
}

/* The index of variant id among the probabilistic ones, in registry order. */
static inline unsigned tp_probabilistic_index(int id)
{
	unsigned index = 0;
	for (int i = 0; i < id; i++)
		index += sc_variants[i].kind == SC_PROBABILISTIC;
	return index;
}

/*
 * 4 threads x 250,000 increments on variant id: |value/N - 1| <= 5 bound,
 * bound the family's sequential one. Concurrency does not raise the
 * variance above the sequential bound (each applied update has the
 * probability of the value it lands on, and a stale Scalable read only
 * shrinks the step), so a false failure has probability at most the normal
 * tail at 5, 5.7e-7. Thread interleavings vary; the seeds are fixed: 0x7007
 * + the variant's index among the probabilistic ones (thread i uses stream
 * i of it), printed. by_add: the same 250,000 per thread given as adds
 * cycling through ADD_CHUNKS (seeds 0x7107 + the index), same bound.
 */
static inline void test_multithreaded_within_bound(int id, double (*bound)(const inst *, uint64_t),
                                                   bool by_add)
{
	const unsigned threads = 4;
	const uint64_t per = 250000, n = per * threads;
	inst in;
	inst_must_open(&in, id, "");
	mt_shared s = {&in, per, (by_add ? 0x7107u : 0x7007u) + tp_probabilistic_index(id), by_add};
	test_run_threads(threads, mt_worker, &s);
	double rel = (double)inst_get(&in) / (double)n - 1.0, b = bound(&in, n);
	tap_ok(fabs(rel) <= MT_Z * b, "%s%s: %u threads x %llu: relative error %+.4f%%, "
	       "within %.0f x %.4f%%", sc_variants[id].name, by_add ? " add" : "", threads,
	       (unsigned long long)per, 100 * rel, MT_Z, 100 * b);
	tap_diag("  false-failure probability %.1e (normal tail at z = %.0f), seed %#llx; "
	         "final word %#llx",
	         normal_two_sided_tail(MT_Z), MT_Z, (unsigned long long)s.seed,
	         (unsigned long long)(in.v->size(in.cfg) == 8 ? atomic_load(word64(&in))
	                                                       : atomic_load(word32(&in))));
	inst_close(&in);
}

/* ---- tables of cases: add's exact range, reset and sizes, parameters ---- */

/*
 * Where n increments by one thread are exact, so is add(n) (it applies the
 * same updates): the variant's exact range `limit`, reached by adds of
 * mixed sizes, checked after every add. add(0) changes nothing.
 */
typedef struct tp_add_case {
	int id;
	const char *params;
	uint64_t limit; /* exact up to here */
	uint64_t seed;
} tp_add_case;

static inline void test_add_exact_where_inc_is(const tp_add_case *cases, size_t ncases)
{
	for (size_t i = 0; i < ncases; i++) {
		inst in;
		inst_must_open(&in, cases[i].id, cases[i].params);
		sc_thread t;
		sc_thread_init(&t, 0, 0, cases[i].seed, false);
		uint64_t done = 0;
		bool ok = true;
		for (unsigned j = 0; done < cases[i].limit; j++) {
			uint64_t k = ADD_CHUNKS[j % N_ADD_CHUNKS] * (j % 3 == 0 ? 97 : 1);
			k = k < cases[i].limit - done ? k : cases[i].limit - done;
			in.v->add(in.c, in.cfg, &t, k);
			done += k;
			ok = ok && inst_get(&in) == done;
		}
		in.v->add(in.c, in.cfg, &t, 0);
		ok = ok && inst_get(&in) == done;
		tap_ok(ok, "%s '%s': add is exact up to %llu, as the increment", sc_variants[cases[i].id].name,
		       cases[i].params, (unsigned long long)cases[i].limit);
		inst_close(&in);
	}
}

/* reset gives 0 and counting restarts; the counter's size, and no heap. */
typedef struct tp_size_case {
	int id;
	const char *params;
	size_t bytes;
} tp_size_case;

static inline void test_reset_and_sizes(const tp_size_case *cases, size_t ncases)
{
	for (size_t i = 0; i < ncases; i++) {
		inst in;
		sc_thread t;
		inst_must_open(&in, cases[i].id, cases[i].params);
		sc_thread_init(&t, 0, 0, 14, false);
		inst_inc(&in, &t, 100000);
		uint64_t before = inst_get(&in);
		in.v->reset(in.c, in.cfg);
		uint64_t zero = inst_get(&in);
		inst_inc(&in, &t, 1);
		tap_ok(before > 0 && zero == 0 && inst_get(&in) == 1 &&
		           in.v->size(in.cfg) == cases[i].bytes &&
		           in.v->heap_bytes(in.c, in.cfg) == 0,
		       "%s '%s': reset gives 0 and counting restarts; %zu bytes, no heap",
		       in.v->name, cases[i].params, cases[i].bytes);
		inst_close(&in);
	}
}

/* Parameters accepted (ok) or rejected with a message. */
typedef struct tp_param_case {
	int id;
	const char *params;
	bool ok;
} tp_param_case;

static inline void test_parameter_validation(const tp_param_case *cases, size_t ncases)
{
	for (size_t i = 0; i < ncases; i++) {
		inst in;
		sc_err err;
		bool ok = inst_open(&in, cases[i].id, cases[i].params, &err) == 0;
		inst_close(&in);
		tap_ok(ok == cases[i].ok && (ok || err.msg[0]), "%s '%s': %s%s%s",
		       sc_variants[cases[i].id].name, cases[i].params,
		       cases[i].ok ? "accepted" : "rejected: ", ok ? "" : err.msg,
		       ok == cases[i].ok ? "" : " (WRONG)");
	}
}

#define TP_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a family's program: its tables, and the runs every family makes ---- */

typedef struct tp_family {
	const stat_spec *specs; /* the statistical runs */
	size_t nspecs;
	const int *ids; /* the family's variants, for the 4-thread counts */
	size_t nids;
	double (*bound)(const inst *in, uint64_t n); /* the 4-thread counts' bound */
	const tp_add_case *adds;                     /* add's exact ranges */
	size_t nadds;
	const tp_size_case *sizes; /* reset and sizes */
	size_t nsizes;
	const tp_param_case *params; /* parameter validation */
	size_t nparams;
	int exact_id;               /* the variant one thread drives exactly */
	unsigned exact_seed_index;  /* its seed (test_single_thread_exact_from_zero) */
} tp_family;

/*
 * The statistical checks of tests/testprob.h for the family, by increments
 * and by add(n), each followed by the 4-thread counts; add's exact ranges
 * between the two.
 */
static inline void tp_statistics(const tp_family *f)
{
	for (int by_add = 0; by_add <= 1; by_add++) {
		test_unbiased_rstdv_within_bound(f->specs, f->nspecs, check_runs(), CHECK_N, false,
		                                 by_add);
		if (by_add)
			test_add_exact_where_inc_is(f->adds, f->nadds);
		for (size_t i = 0; i < f->nids; i++)
			test_multithreaded_within_bound(f->ids[i], f->bound, by_add);
	}
}

/* Reset and sizes, then the parameter cases. */
static inline void tp_tables(const tp_family *f)
{
	test_reset_and_sizes(f->sizes, f->nsizes);
	test_parameter_validation(f->params, f->nparams);
}

/* --acceptance: 200 runs of 2,000,000 per spec, with a table; the exact variant's runs. */
static inline bool tp_acceptance(const tp_family *f, int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--acceptance") != 0)
		return false;
	test_unbiased_rstdv_within_bound(f->specs, f->nspecs, 200, 2000000, true, false);
	test_single_thread_exact_from_zero(f->exact_id, f->exact_seed_index, 200, 2000000);
	return true;
}

#endif /* SC_TESTPROB_H */
