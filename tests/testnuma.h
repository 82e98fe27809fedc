/* SPDX-License-Identifier: MIT */
/*
 * testnuma.h - what the NUMA-aware precise counters' tests share
 * (test_numa.c, test_numa_contention.c): the four variants (RBONuma,
 * RBONumaAdapt, Multiline, MultilineAdapt) through the registry, one
 * counter of one on virtual nodes, and the multi-threaded run in which
 * thread i runs on virtual node i % nodes from a fixed seed, watching the
 * nodes an RBONuma word records.
 */
#ifndef SC_TESTS_TESTNUMA_H
#define SC_TESTS_TESTNUMA_H

#include <scounters/scounters.h>
#include "tap.h"
#include "testutil.h"

#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

/* ---- the four variants, through the registry ------------------------------- */

/* A variant and the prefix its test names use. */
typedef struct ops {
	const char *name;
	const sc_variant *v;
} ops;

static const ops rbonuma_ops = { "rbonuma", &sc_variants[SC_ID_rbonuma] };
static const ops rbonuma_adapt_ops = { "rbonuma_adapt", &sc_variants[SC_ID_rbonuma_adapt] };
static const ops multiline_ops = { "multiline", &sc_variants[SC_ID_multiline] };
static const ops multiline_adapt_ops = { "multiline_adapt", &sc_variants[SC_ID_multiline_adapt] };

static const ops *const all_ops[] = { &rbonuma_ops, &rbonuma_adapt_ops, &multiline_ops,
	                              &multiline_adapt_ops };

/* One counter with its own configuration, both line-aligned (a table of one). */
typedef struct inst {
	const ops *o;
	sc_table t;
	void *cfg; /* t.cfg */
	void *c; /* the counter */
} inst;

static inline void die(const char *what, const sc_err *err)
{
	printf("Bail out! %s: %s\n", what, err->msg);
	exit(1);
}

/* Configure with params given as one string of space-separated "key=value" (or NULL). */
static inline inst make_params(const ops *o, uint32_t nodes, const char *params)
{
	sc_env env = { .threads = 8, .nodes = nodes, .cpus = 2 };
	sc_err err;
	inst in = { .o = o };
	if (test_table_open(&in.t, o->v, &env, 1, params, &err))
		die(o->name, &err);
	in.cfg = in.t.cfg;
	in.c = sc_table_at(&in.t, 0);
	return in;
}

static inline inst make(const ops *o, uint32_t nodes)
{
	return make_params(o, nodes, NULL);
}

static inline void unmake(inst *in)
{
	sc_table_destroy(&in->t);
}

static inline void thread_at(sc_thread *t, uint32_t index, uint32_t node)
{
	sc_thread_init(t, index, node, 42, false);
}

/* ---- the multi-threaded run ---------------------------------------------- */

typedef struct run {
	inst *in;
	uint64_t seed;
	uint32_t nodes; /* thread i runs on node i % nodes */
	uint32_t threads;
	uint64_t per_thread;
	_Atomic uint32_t arrived; /* start gate, see worker */
	_Atomic uint32_t nodes_seen; /* RBONuma words: bit n when the word recorded node n */
	_Atomic uint32_t bad_node; /* RBONuma words: a recorded node id >= nodes was seen */
} run;

/*
 * Every thread waits here until all have started, yielding meanwhile: the
 * barrier releases threads one by one, and a short loop would otherwise run
 * to its end before the next thread is even scheduled.
 */
static inline void start_gate(_Atomic uint32_t *arrived, uint32_t n)
{
	atomic_fetch_add(arrived, 1);
	while (atomic_load(arrived) < n)
		sched_yield();
}

static inline bool has_rbonuma_word(const inst *in)
{
	return in->o == &rbonuma_ops || in->o == &rbonuma_adapt_ops;
}

/* Look at an RBONuma word: which node it records, and that the id is in range. */
static inline void sample_word(run *r)
{
	const sc_rbonuma_cfg *cfg = r->in->cfg;
	uint32_t w = atomic_load_explicit(&((sc_rbonuma_t *)r->in->c)->w, memory_order_relaxed);
	if (!sc_rbonuma_word_recorded(w))
		return;
	uint32_t node = sc_rbonuma_word_node(cfg, w);
	if (node >= r->nodes)
		atomic_store(&r->bad_node, 1);
	else if (node < 32)
		atomic_fetch_or(&r->nodes_seen, UINT32_C(1) << node);
}

static inline void worker(test_thread_arg *a)
{
	run *r = a->shared;
	bool sample = has_rbonuma_word(r->in);
	sc_thread t;
	sc_thread_init(&t, a->index, a->index % r->nodes, r->seed, false);
	start_gate(&r->arrived, r->threads);
	for (uint64_t i = 0; i < r->per_thread; i++) {
		r->in->o->v->inc(r->in->c, r->in->cfg, &t);
		if (sample && (i & 7) == 0)
			sample_word(r);
	}
}

/* threads x per_thread increments; r keeps the run's observations. */
static inline void run_threads(run *r, inst *in, uint32_t threads, uint32_t nodes,
                               uint64_t per_thread, uint64_t seed)
{
	memset(r, 0, sizeof *r);
	r->in = in;
	r->seed = seed;
	r->nodes = nodes;
	r->threads = threads;
	r->per_thread = per_thread;
	test_run_threads(threads, worker, r);
}

/* increments per thread of a run */
#define PER_THREAD 20000u

#endif
