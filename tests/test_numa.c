/* SPDX-License-Identifier: MIT */
/*
 * test_numa.c - the NUMA-aware precise counters (sc_numa.h): exactness under
 * oversubscription with virtual nodes, the multi-node paths (node recording,
 * anti-starvation's mechanics, inflation forced by hand), overflow
 * boundaries, reset, node folding and parameter validation. Thread i runs
 * on virtual node i % nodes; seeds are fixed. The properties that only
 * contention shows are tests/test_numa_contention.c.
 */
#include "testnuma.h"

/* ---- exactness ------------------------------------------------------------ */

static void exact_once(const ops *o, uint32_t threads, uint32_t nodes, uint64_t seed)
{
	inst in = make(o, nodes);
	run r;
	run_threads(&r, &in, threads, nodes, PER_THREAD, seed);
	uint64_t want = (uint64_t)threads * PER_THREAD;
	uint64_t got = o->v->get(in.c, in.cfg);
	tap_ok(got == want,
	       "%s_exact_%uthreads_%unodes seed=%" PRIu64 " (%" PRIu64 " of %" PRIu64 ")",
	       o->name, threads, nodes, seed, got, want);
	unmake(&in);
}

static void test_exact(void)
{
	static const uint32_t threads[] = {2, 4, 8};
	static const uint32_t nodes[] = {4, 1};
	for (size_t v = 0; v < sizeof all_ops / sizeof *all_ops; v++)
		for (size_t n = 0; n < 2; n++)
			for (size_t k = 0; k < 3; k++)
				for (uint64_t seed = 1; seed <= 3; seed++)
					exact_once(all_ops[v], threads[k], nodes[n], seed);
}

/* ---- RBONuma: node recording and anti-starvation ---------------------------- */

static void test_rbonuma_records_nodes(void)
{
	inst in = make(&rbonuma_ops, 4);
	run r;
	run_threads(&r, &in, 8, 4, PER_THREAD, 3);
	uint32_t seen = atomic_load(&r.nodes_seen);
	tap_ok(seen == 0xf && !atomic_load(&r.bad_node) &&
	               in.o->v->get(in.c, in.cfg) == 8 * PER_THREAD,
	       "rbonuma_word_records_all_4_nodes_8threads seed=3 (nodes seen 0x%x)", seen);
	unmake(&in);
}

static void test_rbonuma_anti_mechanics(void)
{
	inst in = make(&rbonuma_ops, 4);
	sc_rbonuma_t *c = in.c;
	_Atomic uint32_t *anti = sc_rbonuma_anti(in.cfg);
	sc_thread t1, t2;
	thread_at(&t1, 1, 1);
	thread_at(&t2, 2, 2);

	/* Another node named: the thread holds off, then increments anyway. */
	atomic_store(anti, 2);
	sc_rbonuma_inc(c, in.cfg, &t1);
	uint32_t w = atomic_load(&c->w);
	tap_ok(sc_rbonuma_get(c, in.cfg) == 1 && atomic_load(anti) == 2 &&
	               sc_rbonuma_word_node(in.cfg, w) == 1,
	       "rbonuma_other_node_named_still_increments_and_leaves_name");

	/* The named node increments: the name is cleared, the word records node 2. */
	sc_rbonuma_inc(c, in.cfg, &t2);
	w = atomic_load(&c->w);
	tap_ok(sc_rbonuma_get(c, in.cfg) == 2 && atomic_load(anti) == SC_RBONUMA_NOBODY &&
	               sc_rbonuma_word_node(in.cfg, w) == 2 && sc_rbonuma_word_recorded(w),
	       "rbonuma_named_node_increment_clears_anti_starvation");

	/* Slow path with a stale word and patience 1 publishes, then serves and clears. */
	unmake(&in);
	in = make_params(&rbonuma_ops, 4, "patience=1");
	c = in.c;
	anti = sc_rbonuma_anti(in.cfg);
	for (int i = 0; i < 10; i++)
		sc_rbonuma_inc(c, in.cfg, &t1);
	sc_rbonuma_inc_slow(c, in.cfg, &t2, 12345); /* stale: the first try fails */
	tap_ok(sc_rbonuma_get(c, in.cfg) == 11 && atomic_load(anti) == SC_RBONUMA_NOBODY,
	       "rbonuma_slow_path_with_stale_word_exact_and_anti_cleared");
	unmake(&in);
}
/* ---- overflow boundaries --------------------------------------------------- */

static void test_rbonuma_wrap(const ops *o, uint32_t nodes, bool recorded)
{
	inst in = make(o, nodes);
	sc_rbonuma_t *c = in.c;
	const sc_rbonuma_cfg *cfg = in.cfg;
	unsigned value_bits = 31 - sc_bits_for(nodes);
	uint32_t max = (UINT32_C(1) << value_bits) - 1;
	uint32_t node = nodes - 1;
	uint32_t tag = recorded ? sc_rbonuma_tag(cfg, node) : 0;
	sc_thread t;
	thread_at(&t, 0, node);
	atomic_store(&c->w, (max - 1) | tag);
	o->v->inc(c, cfg, &t);
	bool at_max = o->v->get(c, cfg) == max;
	o->v->inc(c, cfg, &t);
	uint32_t w = atomic_load(&c->w);
	bool wrapped = o->v->get(c, cfg) == 0 && w == tag;
	tap_ok(cfg->value_mask == max && at_max && wrapped,
	       "%s_wraps_to_0_after_2^%u-1_%unodes_%s (word 0x%08x)", o->name, value_bits, nodes,
	       recorded ? "node_bits_kept" : "unrecorded_stays_unrecorded", w);
	unmake(&in);
}

static void test_multiline_wrap(void)
{
	inst in = make(&multiline_ops, 4);
	sc_multiline_t *c = in.c;
	sc_thread t;
	thread_at(&t, 0, 1);
	atomic_store(&sc_multiline_parts(c)[0].rbo.v, UINT64_MAX);
	bool at_max = sc_multiline_get(c, in.cfg) == UINT64_MAX;
	sc_multiline_inc(c, in.cfg, &t);
	tap_ok(at_max && sc_multiline_get(c, in.cfg) == 0,
	       "multiline_sum_wraps_to_0_after_2^64-1_4nodes");
	unmake(&in);
}

static void test_multiline_adapt_wrap(void)
{
	const uint64_t max = SC_MULTILINE_ADAPT_VALUE_MASK;
	inst in = make(&multiline_adapt_ops, 4);
	sc_multiline_adapt_t *c = in.c;
	sc_thread t;
	thread_at(&t, 0, 3);
	atomic_store(&c->w, max << 1);
	bool at_max = sc_multiline_adapt_get(c, in.cfg) == max;
	sc_multiline_adapt_inc(c, in.cfg, &t);
	tap_ok(at_max && sc_multiline_adapt_get(c, in.cfg) == 0 &&
	               !sc_multiline_adapt_word_inflated(atomic_load(&c->w)),
	       "multiline_adapt_word_wraps_to_0_after_2^63-1");

	atomic_store(&c->w, (max - 1) << 1);
	bool inflated = sc_multiline_adapt_inflate(c, in.cfg);
	bool kept = sc_multiline_adapt_get(c, in.cfg) == max - 1;
	sc_multiline_adapt_inc(c, in.cfg, &t);
	at_max = sc_multiline_adapt_get(c, in.cfg) == max;
	sc_multiline_adapt_inc(c, in.cfg, &t);
	tap_ok(inflated && kept && at_max && sc_multiline_adapt_get(c, in.cfg) == 0,
	       "multiline_adapt_inflated_wraps_to_0_after_2^63-1");
	unmake(&in);
}

/* ---- MultilineAdapt inflation ------------------------------------------------ */

static void test_multiline_adapt_inflate(uint32_t nodes, uint32_t threads)
{
	const uint64_t v0 = 123456789;
	inst in = make(&multiline_adapt_ops, nodes);
	sc_multiline_adapt_t *c = in.c;
	atomic_store(&c->w, v0 << 1);
	bool small = sc_multiline_adapt_heap_bytes(c, in.cfg) == 0;
	bool ok = sc_multiline_adapt_inflate(c, in.cfg);
	uint64_t w = atomic_load(&c->w);
	tap_ok(small && ok && sc_multiline_adapt_word_inflated(w) &&
	               sc_multiline_adapt_get(c, in.cfg) == v0 &&
	               sc_multiline_adapt_heap_bytes(c, in.cfg) == nodes * (size_t)SC_LINE_SIZE,
	       "multiline_adapt_forced_inflation_keeps_value_%unodes", nodes);
	tap_ok(sc_multiline_adapt_inflate(c, in.cfg) && atomic_load(&c->w) == w,
	       "multiline_adapt_inflate_twice_keeps_the_first_%unodes", nodes);

	run r;
	run_threads(&r, &in, threads, nodes, PER_THREAD, 5);
	uint64_t want = v0 + threads * PER_THREAD;
	tap_ok(sc_multiline_adapt_get(c, in.cfg) == want,
	       "multiline_adapt_inflated_exact_%uthreads_%unodes seed=5", threads, nodes);

	sc_multiline_adapt_reset(c, in.cfg);
	tap_ok(sc_multiline_adapt_get(c, in.cfg) == 0 && atomic_load(&c->w) == w,
	       "multiline_adapt_reset_zeroes_components_keeps_inflation_%unodes", nodes);
	run_threads(&r, &in, threads, nodes, PER_THREAD, 6);
	tap_ok(sc_multiline_adapt_get(c, in.cfg) == threads * PER_THREAD,
	       "multiline_adapt_exact_after_reset_%uthreads_%unodes seed=6", threads, nodes);
	unmake(&in);
}
/* ---- Multiline layout, reset -------------------------------------------------- */

static void test_multiline_layout_reset(void)
{
	inst in = make(&multiline_ops, 4);
	sc_multiline_t *c = in.c;
	sc_multiline_part *parts = sc_multiline_parts(c);
	tap_ok(sc_multiline_size(in.cfg) == 4 * SC_LINE_SIZE &&
	               sc_multiline_heap_bytes(c, in.cfg) == 0 && (void *)parts == (void *)c &&
	               (uintptr_t)parts % SC_LINE_SIZE == 0,
	       "multiline_one_line_per_node_inline_no_indirection_4nodes");
	run r;
	run_threads(&r, &in, 4, 4, PER_THREAD, 9);
	bool spread = true;
	for (int i = 0; i < 4; i++)
		spread = spread && sc_word_get(&parts[i].rbo) == PER_THREAD;
	tap_ok(spread, "multiline_each_node_increments_its_own_component_4threads_4nodes");
	sc_multiline_reset(c, in.cfg);
	tap_ok(sc_multiline_get(c, in.cfg) == 0 && sc_multiline_parts(c) == parts,
	       "multiline_reset_zeroes_components");
	unmake(&in);
}

static void test_rbonuma_reset(void)
{
	inst in = make(&rbonuma_ops, 4);
	sc_rbonuma_t *c = in.c;
	sc_thread t;
	thread_at(&t, 0, 3);
	for (int i = 0; i < 10; i++)
		sc_rbonuma_inc(c, in.cfg, &t);
	sc_rbonuma_reset(c, in.cfg);
	tap_ok(sc_rbonuma_get(c, in.cfg) == 0 && atomic_load(&c->w) == sc_rbonuma_tag(in.cfg, 3),
	       "rbonuma_reset_zeroes_value_keeps_node");
	unmake(&in);
}

/* Node ids outside 0 .. nodes-1 are folded in and never reach other bits or memory. */
static void test_node_folding(void)
{
	for (size_t v = 0; v < sizeof all_ops / sizeof *all_ops; v++) {
		inst in = make(all_ops[v], 3);
		sc_thread t;
		thread_at(&t, 0, 7); /* folded to 7 % 3 = 1 */
		if (in.o == &multiline_adapt_ops)
			sc_multiline_adapt_inflate(in.c, in.cfg);
		for (int i = 0; i < 5; i++)
			in.o->v->inc(in.c, in.cfg, &t);
		bool ok = in.o->v->get(in.c, in.cfg) == 5;
		if (in.o == &rbonuma_ops) {
			uint32_t w = atomic_load(&((sc_rbonuma_t *)in.c)->w);
			ok = ok && w == (sc_rbonuma_tag(in.cfg, 1) | 5);
		} else if (in.o == &multiline_ops) {
			ok = ok && sc_word_get(&sc_multiline_parts((sc_multiline_t *)in.c)[1].rbo) == 5;
		} else if (in.o == &multiline_adapt_ops) {
			uint64_t w = atomic_load(&((sc_multiline_adapt_t *)in.c)->w);
			ok = ok && sc_word_get(&sc_multiline_adapt_word_parts(w)[1].rbo) == 5;
		}
		tap_ok(ok, "%s_node_id_7_of_3_nodes_folded_to_1", in.o->name);
		unmake(&in);
	}
}

/* ---- parameters -------------------------------------------------------------- */

/* Configure o with one "key=value" (or none) on `nodes` nodes; returns config's result. */
static int try_config(const ops *o, uint32_t nodes, const char *kv, sc_params *p, void *cfg,
                      sc_err *err)
{
	sc_env env = {.threads = 1, .nodes = nodes, .cpus = 1};
	sc_params_clear(p);
	err->msg[0] = '\0';
	if (kv && sc_params_add(p, kv, err))
		die(o->name, err);
	return o->v->config(cfg, p, &env, err);
}

static void expect_rejected(const ops *o, uint32_t nodes, const char *kv, const char *needle)
{
	sc_params p;
	sc_err err;
	void *cfg = sc_alloc_lines(o->v->cfg_size);
	int rc = try_config(o, nodes, kv, &p, cfg, &err);
	tap_ok(rc == -1 && strstr(err.msg, needle) != NULL,
	       "%s_rejects_%s_nodes=%u (\"%s\")", o->name, kv ? kv : "default", nodes, err.msg);
	sc_free_lines(cfg);
}

static void expect_accepted(const ops *o, uint32_t nodes, const char *kv)
{
	sc_params p;
	sc_err err;
	void *cfg = sc_alloc_lines(o->v->cfg_size);
	int rc = try_config(o, nodes, kv, &p, cfg, &err);
	tap_ok(rc == 0 && (!kv || p.used[0]), "%s_accepts_%s_nodes=%u %s", o->name,
	       kv ? kv : "default", nodes, err.msg);
	sc_free_lines(cfg);
}

static void test_params(void)
{
	for (int v = 0; v < 2; v++) {
		const ops *o = all_ops[v];
		expect_rejected(o, 4, "patience=0", "patience");
		expect_rejected(o, 4, "patience=1048577", "patience");
		expect_rejected(o, 4, "patience=soon", "patience");
		expect_rejected(o, 4, "backoff-min=0", "backoff-min");
		expect_rejected(o, 0, NULL, "nodes");
		expect_rejected(o, 257, NULL, "257 nodes");
		expect_accepted(o, 4, "patience=1");
		expect_accepted(o, 256, NULL);
	}
	for (int v = 2; v < 4; v++) {
		const ops *o = all_ops[v];
		expect_rejected(o, 4, "backoff-max=0", "backoff-max");
		expect_rejected(o, 0, NULL, "nodes");
		expect_rejected(o, 1025, NULL, "1025 nodes");
		expect_accepted(o, 1024, "backoff-max=64");
	}
	expect_rejected(&multiline_adapt_ops, 4, "inflate-after=1048577", "inflate-after");
	expect_rejected(&multiline_adapt_ops, 4, "inflate-after=-1", "inflate-after");
	expect_accepted(&multiline_adapt_ops, 4, "inflate-after=0");

	/* Defaults and derived fields. */
	sc_params p;
	sc_err err;
	sc_rbonuma_cfg *rc = sc_alloc_lines(sizeof *rc);
	try_config(&rbonuma_ops, 256, NULL, &p, rc, &err);
	bool rb = rc->patience == SC_RBONUMA_PATIENCE_DEFAULT && rc->value_mask == (1u << 23) - 1 &&
	          atomic_load(&rc->anti) == SC_RBONUMA_NOBODY &&
	          (uintptr_t)&rc->anti % SC_LINE_SIZE == 0 &&
	          (uintptr_t)&rc->backoff - (uintptr_t)&rc->anti >= SC_LINE_SIZE;
	tap_ok(rb, "rbonuma_defaults_256nodes_patience=8_23_value_bits_anti_on_own_line");
	sc_free_lines(rc);
	sc_multiline_adapt_cfg *mc = sc_alloc_lines(sizeof *mc);
	try_config(&multiline_adapt_ops, 4, NULL, &p, mc, &err);
	tap_ok(mc->inflate_after == 4 && mc->rbo.backoff.min == SC_BACKOFF_MIN_DEFAULT,
	       "multiline_adapt_defaults_inflate-after=4");
	sc_free_lines(mc);

	/* Unknown keys are the generic layer's business: config must leave them unread. */
	for (size_t v = 0; v < sizeof all_ops / sizeof *all_ops; v++) {
		void *cfg = sc_alloc_lines(all_ops[v]->v->cfg_size);
		int r = try_config(all_ops[v], 4, "bogus=1", &p, cfg, &err);
		tap_ok(r == 0 && !p.used[0], "%s_config_leaves_unknown_keys_unread",
		       all_ops[v]->name);
		sc_free_lines(cfg);
	}
}

int main(void)
{
	tap_plan_lazy();
	test_params();
	test_rbonuma_wrap(&rbonuma_ops, 1, true);
	test_rbonuma_wrap(&rbonuma_ops, 4, true);
	test_rbonuma_wrap(&rbonuma_ops, 256, true);
	test_rbonuma_wrap(&rbonuma_adapt_ops, 4, false);
	test_rbonuma_wrap(&rbonuma_adapt_ops, 4, true);
	test_multiline_wrap();
	test_multiline_adapt_wrap();
	test_rbonuma_reset();
	test_node_folding();
	test_rbonuma_anti_mechanics();
	test_exact();
	test_rbonuma_records_nodes();
	test_multiline_layout_reset();
	test_multiline_adapt_inflate(4, 8);
	test_multiline_adapt_inflate(1, 4);
	return tap_done();
}
