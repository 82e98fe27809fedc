/* SPDX-License-Identifier: MIT */
/*
 * testprob.h - what the probabilistic families' tests share (test_morris.c,
 * test_bfp.c, test_scalable.c): one counter of a variant through the
 * registry (testprob_inst.h), the chi-square and normal tails
 * (testprob_dist.h), the statistical checks across seeds (testprob_runs.h,
 * whose header states their bounds, seeds and false-failure probabilities),
 * and here several threads on one counter and the checks run per variant
 * from a family's tables.
 * Deterministic: every thread context is seeded with a fixed seed
 * (sc_thread_init), and the statistical checks state their false-failure
 * probability and seed.
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

#include "testprob_dist.h"
#include "testprob_inst.h"
#include "testprob_runs.h"

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
