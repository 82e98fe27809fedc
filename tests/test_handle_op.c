/* SPDX-License-Identifier: MIT */
/*
 * test_handle_op.c - the head's op (sc_counter.h): FetchAdd's, Morris's and
 * Scalable's increments, and PerCPU's restartable sequence by its id,
 * inlined into sc_counter_inc. Each check is exact: the four ways of
 * incrementing a counter (the inlined sc_counter_inc, the library's
 * out-of-line one, the code a program built before op existed inlines,
 * which never reads op and takes the call through inc, and the code a
 * program built before the per-CPU ops inlines, which tests op first and
 * finds a per-CPU array by percpu_slot0) give the same value from the same
 * draws of the thread's stream, so an old binary and a new library, or the
 * reverse, count alike.
 */
#include <scounters/scounters.h>

#include <pthread.h>
#include <string.h>

#include "tap.h"

void ool_inc(sc_counter *c); /* test_handle_op_ool.c: built with SC_COUNTER_NO_INLINE */

/* What sc_counter_inc inlined before the head had op: the call for every op. */
static void old_inc(sc_counter *c)
{
	const sc_counter_head_ *h = (const sc_counter_head_ *)(const void *)c;
	sc_thread *me = &sc_counter_tls_.ctx;
	uint32_t n = h->sharded_cfg.threads;
	if (n != 0) {
		if (me->index < n) {
			sc_sharded_inc((sc_sharded_t *)&h->sharded, &h->sharded_cfg, me);
			return;
		}
		h->inc(h->obj, h->cfg, sc_counter_context_(c));
		return;
	}
	if (h->percpu_slot0) {
		sc_percpu_add_ix(h->percpu_slot0, h->percpu_stride, h->percpu_slots, h->percpu_index, 1);
		return;
	}
	h->inc(h->obj, h->cfg, sc_counter_ctx_(&sc_counter_tls_, h->mode, c));
}

/* What sc_counter_inc inlined before the per-CPU ops: op first, Sharded's first. */
static void mid_inc(sc_counter *c)
{
	const sc_counter_head_ *h = (const sc_counter_head_ *)(const void *)c;
	sc_thread *me = &sc_counter_tls_.ctx;
	uint32_t op = h->op;
	if (op == SC_HEAD_OP_SHARDED_) {
		if (me->index < h->sharded_cfg.threads)
			sc_sharded_inc((sc_sharded_t *)&h->sharded, &h->sharded_cfg, me);
		else
			h->inc(h->obj, h->cfg, sc_counter_context_(c));
		return;
	}
	if (op == SC_HEAD_OP_FETCHADD_) {
		sc_fetchadd_inc((sc_fetchadd_t *)h->obj, (const sc_fetchadd_cfg *)h->cfg, me);
		return;
	}
	if (op == SC_HEAD_OP_MORRIS_) {
		if (sc_morris_inc_rng_((sc_morris_t *)h->obj, (const sc_morris_cfg *)h->cfg, me,
		                       me->rng))
			h->inc(h->obj, h->cfg, sc_counter_context_(c));
		return;
	}
	if (op == SC_HEAD_OP_SCALABLE_) {
		if (me->rng == 0)
			h->inc(h->obj, h->cfg, sc_counter_context_(c));
		else
			sc_scalable_ayers_inc_rng_((sc_scalable_t *)h->obj,
			                           (const sc_scalable_cfg *)h->cfg, me, me->rng);
		return;
	}
	if (h->percpu_slot0) {
		sc_percpu_add_ix(h->percpu_slot0, h->percpu_stride, h->percpu_slots,
		                 h->percpu_index, 1);
		return;
	}
	h->inc(h->obj, h->cfg, sc_counter_ctx_(&sc_counter_tls_, h->mode, c));
}

static void new_inc(sc_counter *c)
{
	sc_counter_inc(c);
}

static uint32_t op_of(const sc_counter *c)
{
	return ((const sc_counter_head_ *)(const void *)c)->op;
}

/* Which variants the inlined increment takes without the call. */
static void ops_set(void)
{
	/* PerCPU's op names its sequence's id; the locked path takes the call */
	const char *path = sc_percpu_path();
	uint32_t percpu = strcmp(path, "rseq-cpu_id") == 0 ? SC_HEAD_OP_PERCPU_CPU_ID_ :
	                  strcmp(path, "rseq-mm_cid") == 0 ? SC_HEAD_OP_PERCPU_MM_CID_ :
	                                                     SC_HEAD_OP_CALL_;
	const struct {
		const char *variant, *params;
		uint32_t op;
	} want[] = {
		{ "FetchAdd", "", SC_HEAD_OP_FETCHADD_ },
		{ "Morris", "", SC_HEAD_OP_MORRIS_ },
		{ "Scalable", "", SC_HEAD_OP_SCALABLE_ },
		{ "Scalable", "runtime=dotnet",
		  SC_HEAD_OP_CALL_ }, /* its seeded stream: mode SLOW */
		{ "ScalableCapped", "", SC_HEAD_OP_CALL_ },
		{ "CAS", "", SC_HEAD_OP_CALL_ },
		{ "Sharded", "", SC_HEAD_OP_SHARDED_ },
		{ "PerCPU", "", percpu },
		{ "PerCPUGroup", "", percpu }, /* one counter: rows one line long */
		{ "MorrisAdapt", "", SC_HEAD_OP_CALL_ },
		{ "RBONuma", "", SC_HEAD_OP_CALL_ },
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		sc_err err;
		sc_counter *c = sc_counter_new(want[i].variant, want[i].params, &err);
		tap_ok(c && op_of(c) == want[i].op, "op_%s%s%s: %u (want %u)", want[i].variant,
		       *want[i].params ? "_" : "", want[i].params, c ? (unsigned)op_of(c) : 99u,
		       (unsigned)want[i].op);
		sc_counter_free(c);
	}
}

/*
 * n increments of a fresh counter of v by inc, from the thread's stream
 * state rng; out: the value and the stream's state after them.
 */
static uint64_t run(const char *v, void (*inc)(sc_counter *), uint32_t rng, int n,
                    uint32_t *rng_after)
{
	sc_counter *c = sc_counter_new(v, "", NULL);
	*rng_after = 0;
	if (!c)
		return UINT64_MAX;
	sc_thread_self()->rng = rng;
	for (int i = 0; i < n; i++)
		inc(c);
	*rng_after = sc_thread_self()->rng;
	uint64_t value = sc_counter_get(c);
	sc_counter_free(c);
	return value;
}

static void same_draws(void)
{
	static const char *const variants[] = { "FetchAdd",    "Morris",        "Scalable",
		                                "CAS",         "Sharded",       "PerCPU",
		                                "PerCPUGroup", "ScalableCapped" };
	const int n = 200000;
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		const char *v = variants[i];
		uint32_t start = 0x9e3779b9u + (uint32_t)i, r_new = 0, r_old = 0, r_ool = 0,
			 r_mid = 0;
		uint64_t a = run(v, new_inc, start, n, &r_new);
		uint64_t b = run(v, old_inc, start, n, &r_old);
		uint64_t d = run(v, ool_inc, start, n, &r_ool);
		uint64_t m = run(v, mid_inc, start, n, &r_mid);
		tap_ok(a != UINT64_MAX && a == b && a == d && a == m && r_new == r_old &&
		               r_new == r_ool && r_new == r_mid,
		       "same_value_and_draws_%s: inlined %llu (stream %08x), old binary's %llu (%08x), "
		       "out-of-line %llu (%08x), op-first binary's %llu (%08x)",
		       v, (unsigned long long)a, r_new, (unsigned long long)b, r_old,
		       (unsigned long long)d, r_ool, (unsigned long long)m, r_mid);
		/* the precise ones count every increment; the probabilistic ones drew */
		if (strcmp(v, "FetchAdd") == 0 || strcmp(v, "CAS") == 0 ||
		    strcmp(v, "Sharded") == 0 || strncmp(v, "PerCPU", 6) == 0)
			tap_ok(a == (uint64_t)n, "exact_%s: %llu of %d", v, (unsigned long long)a, n);
		else
			tap_ok(r_new != start, "drew_%s", v);
	}
}

/* A thread's first call is an inlined Morris or FetchAdd increment. */
struct first {
	sc_counter *c;
	uint32_t ready_before, ready_after, rng_after;
};

static void *first_call(void *arg)
{
	struct first *f = arg;
	f->ready_before = sc_counter_tls_.ready;
	sc_counter_inc(f->c);
	f->ready_after = sc_counter_tls_.ready;
	f->rng_after = sc_counter_tls_.ctx.rng;
	return NULL;
}

/*
 * A thread's first call on a counter that has already grown, so that the
 * increment draws (Morris: the generator state of a thread without a
 * context is 0, which sc_counter_inc does not test before the draw; the
 * draw must come back for the context, not pass as "not chosen").
 */
static void first_calls_after_growth(void)
{
	static const char *const variants[] = {"Morris", "Scalable"};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		struct first f = {sc_counter_new(variants[i], "threshold=4", NULL), 0, 0, 0};
		if (!f.c) /* Morris has no threshold */
			f.c = sc_counter_new(variants[i], "", NULL);
		for (int k = 0; f.c && k < 100000; k++)
			sc_counter_inc(f.c);
		uint64_t before = f.c ? sc_counter_get(f.c) : 0;
		pthread_t th;
		int made = f.c && pthread_create(&th, NULL, first_call, &f) == 0;
		if (made)
			pthread_join(th, NULL);
		tap_ok(made && before > 1000 && f.ready_before == 0 && f.ready_after == 1 &&
		               f.rng_after != 0,
		       "first_call_after_growth_%s: value %llu before, ready %u then %u, stream %08x",
		       variants[i], (unsigned long long)before, f.ready_before, f.ready_after,
		       f.rng_after);
		sc_counter_free(f.c);
	}
}

static void first_calls(void)
{
	static const char *const variants[] = {"FetchAdd", "Morris", "Scalable"};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		struct first f = {sc_counter_new(variants[i], "", NULL), 0, 0, 0};
		pthread_t th;
		int made = f.c && pthread_create(&th, NULL, first_call, &f) == 0;
		if (made)
			pthread_join(th, NULL);
		/* Morris's and Scalable's first increment always updates: projection 1 */
		uint64_t v = made ? sc_counter_get(f.c) : 0;
		int ctx_made = strcmp(variants[i], "FetchAdd") == 0 ? 1 : f.ready_after == 1;
		tap_ok(made && f.ready_before == 0 && ctx_made && v == 1,
		       "first_call_%s: value %llu, ready %u then %u", variants[i],
		       (unsigned long long)v, f.ready_before, f.ready_after);
		sc_counter_free(f.c);
	}
}

int main(void)
{
	tap_plan_lazy();
	ops_set();
	same_draws();
	first_calls();
	first_calls_after_growth();
	return tap_done();
}
