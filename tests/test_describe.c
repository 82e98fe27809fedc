/* SPDX-License-Identifier: MIT */
/*
 * test_describe.c - the describe operation (the end_state column): for every
 * variant through the registry, the string's form and snprintf-like
 * contract; then, for every variant that has state, that the description
 * says the state the counter is in, reached deterministically from one
 * thread (single-threaded counters never switch mode on their own, so the
 * switches are made with the operations that force them: add up to a full
 * exact half, inflate, grow, or a word written as a contended increment
 * would leave it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scounters/scounters.h>
#include "tap.h"
#include "testutil.h"

/* A table of one counter of the named variant with threads and nodes; NULL on error. */
static sc_table *open_one(sc_table *t, const char *name, uint32_t threads, uint32_t nodes,
                          const char *params)
{
	sc_env env;
	sc_err err;
	sc_env_default(&env);
	env.threads = threads;
	env.nodes = nodes;
	if (test_table_open(t, sc_variant_find(name), &env, 1, params, &err)) {
		tap_diag("%s: %s", name, err.msg);
		return NULL;
	}
	return t;
}

static const char *describe(const sc_table *t, char *buf, size_t size)
{
	t->v->describe(sc_table_at(t, 0), t->cfg, buf, size);
	return buf;
}

/* "key=value(;key=value)*" with keys [a-z_] and values without , ; = " or spaces. */
static bool well_formed(const char *s)
{
	if (!*s)
		return true;
	for (;;) {
		const char *k = s;
		while ((*s >= 'a' && *s <= 'z') || *s == '_')
			s++;
		if (s == k || *s++ != '=')
			return false;
		const char *v = s;
		while (*s && !strchr(",;=\" \n", *s))
			s++;
		if (s == v)
			return false;
		if (!*s)
			return true;
		if (*s++ != ';')
			return false;
	}
}

static bool stateless(const sc_variant *v)
{
	return v == &sc_variants[SC_ID_serial] || v == &sc_variants[SC_ID_cas] ||
	       v == &sc_variants[SC_ID_fetchadd] || v == &sc_variants[SC_ID_rbo] ||
	       v == &sc_variants[SC_ID_cas_prefetch] || v == &sc_variants[SC_ID_cas_once];
}

/* Every variant: the form, empty only when stateless, and the snprintf contract. */
static void test_contract(const sc_variant *v)
{
	sc_table t;
	char buf[256], small[5];
	sc_thread ctx;
	if (!open_one(&t, v->name, 2, 2, NULL)) {
		tap_ok(false, "%s_describe_table", v->name);
		return;
	}
	sc_thread_init(&ctx, 0, 0, 1, false);
	for (int i = 0; i < 100; i++)
		v->inc(sc_table_at(&t, 0), t.cfg, &ctx);
	v->flush(sc_table_at(&t, 0), t.cfg, &ctx);
	int n = v->describe(sc_table_at(&t, 0), t.cfg, buf, sizeof buf);
	tap_ok(n >= 0 && (size_t)n == strlen(buf) && well_formed(buf),
	       "%s_describe_well_formed '%s'", v->name, buf);
	tap_ok(stateless(v) ? n == 0 : n > 0, "%s_describe_empty_only_if_stateless", v->name);
	memset(small, 'x', sizeof small);
	int m = v->describe(sc_table_at(&t, 0), t.cfg, small, sizeof small);
	tap_ok(m == n && strlen(small) == (size_t)(n < 4 ? n : 4) && strncmp(small, buf, 4) == 0,
	       "%s_describe_truncates_like_snprintf (%d)", v->name, m);
	char none = 'x';
	tap_ok(v->describe(sc_table_at(&t, 0), t.cfg, &none, 0) == n && none == 'x',
	       "%s_describe_size_0_writes_nothing", v->name);
	sc_table_destroy(&t);
}

static void incs(sc_table *t, sc_thread *ctx, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		t->v->inc(sc_table_at(t, 0), t->cfg, ctx);
}

#define SAYS(t, want, name)                                                                \
	do {                                                                               \
		char b_[256];                                                              \
		const char *got_ = describe(t, b_, sizeof b_);                             \
		tap_ok(strcmp(got_, want) == 0, "%s: '%s' (want '%s')", name, got_, want); \
	} while (0)

#define STARTS(t, want, name)                                                              \
	do {                                                                               \
		char b_[256];                                                              \
		const char *got_ = describe(t, b_, sizeof b_);                             \
		tap_ok(strncmp(got_, want, strlen(want)) == 0, "%s: '%s' (want '%s...')", name, \
		       got_, want);                                                        \
	} while (0)

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

static void test_morris(void)
{
	sc_table t;
	sc_thread ctx;
	char b[256];
	if (!open_one(&t, "Morris", 1, 1, NULL))
		return;
	sc_thread_init(&ctx, 0, 0, 7, false);
	SAYS(&t, "threshold=4.2949673e+09;updates=0", "morris_describe_fresh");
	incs(&t, &ctx, 1); /* the first update is certain */
	describe(&t, b, sizeof b);
	tap_ok(strncmp(b, "threshold=", 10) == 0 && ends_with(b, ";updates=1"),
	       "morris_describe_one_update '%s'", b);
	/* updates against the projection: n(v) = scale (MaxInt/T - 1) with T = T0 factor^v. */
	t.v->add(sc_table_at(&t, 0), t.cfg, &ctx, 1000000);
	describe(&t, b, sizeof b);
	long v = -1;
	const char *u = strstr(b, "updates=");
	if (u)
		v = strtol(u + 8, NULL, 10);
	const sc_morris_cfg *cfg = t.cfg;
	double proj = cfg->scale * (pow(1.0 / cfg->factor, (double)v) - 1.0);
	double got = (double)t.v->get(sc_table_at(&t, 0), t.cfg);
	tap_ok(v > 1 && fabs(proj - got) <= 1e-4 * got, "morris_describe_updates_match_value "
	       "(updates=%ld: projection %.0f, get %.0f)", v, proj, got);
	sc_table_destroy(&t);
}

static void test_morris_adapt(void)
{
	sc_table t;
	sc_thread ctx;
	char b[256];
	if (!open_one(&t, "MorrisAdapt", 1, 1, NULL))
		return;
	sc_thread_init(&ctx, 0, 0, 7, false);
	SAYS(&t, "mode=exact;exact=0", "morris_adapt_describe_fresh_exact");
	incs(&t, &ctx, 5);
	SAYS(&t, "mode=exact;exact=5", "morris_adapt_describe_exact_count");
	/* Fill the exact half: the next increment must go to the Morris half. */
	t.v->add(sc_table_at(&t, 0), t.cfg, &ctx, UINT32_MAX - 5);
	SAYS(&t, "mode=exact;exact=4294967295", "morris_adapt_describe_exact_full");
	incs(&t, &ctx, 1);
	describe(&t, b, sizeof b);
	tap_ok(strncmp(b, "mode=morris;switched_at=4294967295;threshold=", 45) == 0 &&
	               ends_with(b, ";updates=1"),
	       "morris_adapt_describe_switched '%s'", b);
	/* reset keeps the adaptation (as RBONumaAdapt's and MultilineAdapt's) */
	sc_table_reset(&t);
	describe(&t, b, sizeof b);
	tap_ok(strncmp(b, "mode=morris;switched_at=0;threshold=", 36) == 0 &&
	               ends_with(b, ";updates=0") && t.v->get(sc_table_at(&t, 0), t.cfg) == 0,
	       "morris_adapt_describe_reset_keeps_morris_mode '%s'", b);
	incs(&t, &ctx, 1);
	describe(&t, b, sizeof b);
	tap_ok(strncmp(b, "mode=morris;switched_at=0;threshold=", 36) == 0 &&
	               ends_with(b, ";updates=1") && t.v->get(sc_table_at(&t, 0), t.cfg) == 1,
	       "morris_adapt_after_reset_counts_in_the_morris_half '%s'", b);
	/* a reset in exact mode stays exact */
	sc_table_destroy(&t);
	if (!open_one(&t, "MorrisAdapt", 1, 1, NULL))
		return;
	incs(&t, &ctx, 3);
	sc_table_reset(&t);
	SAYS(&t, "mode=exact;exact=0", "morris_adapt_describe_reset_in_exact_mode_stays_exact");
	sc_table_destroy(&t);
}

static void test_bfp(void)
{
	sc_table t;
	sc_thread ctx;
	sc_thread_init(&ctx, 0, 0, 7, false);
	if (open_one(&t, "BFP-DUP", 1, 1, NULL)) {
		SAYS(&t, "exp=0;mant=0", "bfp_dup_describe_fresh");
		incs(&t, &ctx, 7499); /* MantThreshold 7500 at 1%: exact up to here */
		SAYS(&t, "exp=0;mant=7499", "bfp_dup_describe_below_threshold");
		incs(&t, &ctx, 1);
		SAYS(&t, "exp=1;mant=3750", "bfp_dup_describe_exponent_grown");
		sc_table_destroy(&t);
	}
	if (open_one(&t, "BFP-CSUP", 1, 1, NULL)) {
		incs(&t, &ctx, 10000); /* uncontended: no exponent growth below 2^28 */
		SAYS(&t, "exp=0;mant=10000", "bfp_csup_describe_uncontended_exact");
		sc_table_destroy(&t);
	}
}

static void test_scalable(void)
{
	static const char *const names[] = {"Scalable", "ScalableCAS", "ScalableCapped"};
	static const char *const params[] = {"threshold=4", "threshold=4", "threshold=4 cap=1"};
	sc_thread ctx;
	char b[256], want[64];
	sc_thread_init(&ctx, 0, 0, 7, false);
	for (int i = 0; i < 3; i++) {
		sc_table t;
		if (!open_one(&t, names[i], 1, 1, params[i]))
			continue;
		if (i == 1) {
			/* ScalableCAS: exact by CAS until a CAS fails (never on one thread). */
			incs(&t, &ctx, 16);
			SAYS(&t, "mode=cas", "ScalableCAS_one_thread_stays_cas");
			t.v->add(sc_table_at(&t, 0), t.cfg, &ctx, 1000);
			SAYS(&t, "mode=cas", "ScalableCAS_add_one_thread_stays_cas");
			/* The sticky switch is the word's top bit (width 32 here): set it as a
			 * failed CAS would; the count 1016 then has step 2^(9 - 3). */
			atomic_fetch_or((_Atomic uint32_t *)sc_table_at(&t, 0), 0x80000000u);
			SAYS(&t, "mode=scalable;delta=64", "ScalableCAS_switched_says_scalable");
			sc_table_destroy(&t);
			continue;
		}
		incs(&t, &ctx, 15);
		SAYS(&t, "delta=1", names[i]);
		incs(&t, &ctx, 1); /* count 16 = 2^T: the step doubles */
		SAYS(&t, "delta=2", names[i]);
		t.v->add(sc_table_at(&t, 0), t.cfg, &ctx, 1000);
		/* the step of the count reached: 2^(floor(log2 count) - (T - 1)), capped */
		uint64_t v = t.v->get(sc_table_at(&t, 0), t.cfg);
		unsigned k = 0;
		while ((v >> (k + 1)) != 0)
			k++;
		unsigned s = k - 3;
		if (i == 2 && s > 1)
			s = 1;
		snprintf(want, sizeof want, "delta=%llu", 1ull << s);
		describe(&t, b, sizeof b);
		tap_ok(strcmp(b, want) == 0, "%s_describe_step_at_count_%llu: '%s' (want '%s')",
		       names[i], (unsigned long long)v, b, want);
		sc_table_destroy(&t);
	}
}

static void test_adaptive_precise(void)
{
	sc_table t;
	sc_thread ctx;
	sc_thread_init(&ctx, 1, 1, 7, false);
	if (open_one(&t, "MultilineAdapt", 1, 2, NULL)) {
		SAYS(&t, "mode=word", "multiline_adapt_describe_fresh_word");
		incs(&t, &ctx, 3);
		SAYS(&t, "mode=word", "multiline_adapt_describe_uncontended_word");
		tap_ok(sc_multiline_adapt_inflate(sc_table_at(&t, 0), t.cfg), "multiline_adapt_inflate");
		SAYS(&t, "mode=inflated;nodes=2;nonzero=1", "multiline_adapt_describe_inflated");
		incs(&t, &ctx, 1); /* node 1's component */
		SAYS(&t, "mode=inflated;nodes=2;nonzero=2", "multiline_adapt_describe_both_nodes");
		sc_table_reset(&t);
		SAYS(&t, "mode=inflated;nodes=2;nonzero=0", "multiline_adapt_describe_reset_keeps_mode");
		sc_table_destroy(&t);
	}
	if (open_one(&t, "Multiline", 1, 2, NULL)) {
		SAYS(&t, "nodes=2;nonzero=0", "multiline_describe_fresh");
		incs(&t, &ctx, 1);
		SAYS(&t, "nodes=2;nonzero=1", "multiline_describe_one_node");
		sc_table_destroy(&t);
	}
	if (open_one(&t, "RBONuma", 1, 2, NULL)) {
		SAYS(&t, "node=none;priority=none", "rbonuma_describe_fresh");
		incs(&t, &ctx, 1);
		SAYS(&t, "node=1;priority=none", "rbonuma_describe_records_node");
		sc_table_destroy(&t);
	}
	if (open_one(&t, "RBONumaAdapt", 1, 2, NULL)) {
		SAYS(&t, "mode=plain", "rbonuma_adapt_describe_fresh_plain");
		incs(&t, &ctx, 3);
		SAYS(&t, "mode=plain", "rbonuma_adapt_describe_uncontended_plain");
		/* The word as a thread of node 1 leaves it when its patience ran out. */
		sc_rbonuma_adapt_t *c = sc_table_at(&t, 0);
		const sc_rbonuma_adapt_cfg *cfg = t.cfg;
		atomic_store(&c->w, sc_rbonuma_tag(cfg, 1) | 3);
		SAYS(&t, "mode=numa;node=1;priority=none", "rbonuma_adapt_describe_numa");
		sc_table_destroy(&t);
	}
	if (open_one(&t, "Striped", 1, 1, NULL)) {
		incs(&t, &ctx, 3);
		SAYS(&t, "mode=base", "striped_describe_uncontended_base");
		tap_ok(sc_striped_grow(sc_table_at(&t, 0), t.cfg) == 0, "striped_grow");
		SAYS(&t, "mode=cells;cells=2", "striped_describe_cells");
		sc_table_destroy(&t);
	}
}

static void test_distributed(void)
{
	sc_table t;
	sc_thread a, b;
	sc_thread_init(&a, 0, 0, 7, false);
	sc_thread_init(&b, 1, 0, 7, false);
	if (open_one(&t, "Sharded", 2, 1, NULL)) {
		SAYS(&t, "slots=3;nonzero=0", "sharded_describe_fresh");
		incs(&t, &b, 2);
		SAYS(&t, "slots=3;nonzero=1", "sharded_describe_one_slot");
		sc_table_destroy(&t);
	}
	if (open_one(&t, "Batched", 2, 1, "batch=8")) {
		incs(&t, &a, 5);
		incs(&t, &b, 11);
		SAYS(&t, "batch=8;held=8", "batched_describe_held_back");
		t.v->flush(sc_table_at(&t, 0), t.cfg, &a);
		t.v->flush(sc_table_at(&t, 0), t.cfg, &b);
		SAYS(&t, "batch=8;held=0", "batched_describe_after_flush");
		sc_table_destroy(&t);
	}
	if (open_one(&t, "PerCPU", 1, 1, NULL)) {
		const sc_percpu_cfg *cfg = t.cfg;
		char want[96];
		snprintf(want, sizeof want, "path=%s;slots=%u;nonzero=0;overflow=0", sc_percpu_path(),
		         cfg->cpus);
		SAYS(&t, want, "percpu_describe_fresh");
		incs(&t, &a, 1);
		snprintf(want, sizeof want, "path=%s;slots=%u;nonzero=1;overflow=0", sc_percpu_path(),
		         cfg->cpus);
		SAYS(&t, want, "percpu_describe_one_cpu");
		sc_table_destroy(&t);
	}
	if (open_one(&t, "PerCPUGroup", 1, 1, NULL)) {
		const sc_percpu_group_cfg *cfg = t.cfg;
		char want[96];
		snprintf(want, sizeof want, "path=%s;slots=%u;counters=1;row=%d", sc_percpu_path(),
		         cfg->cpus, SC_LINE_SIZE);
		SAYS(&t, want, "percpu_group_describe");
		sc_table_destroy(&t);
	}
}

static void test_handle(void)
{
	sc_err err;
	char b[64];
	sc_counter *c = sc_counter_new("Striped", "", &err);
	if (!tap_ok(c != NULL, "handle_new"))
		return;
	sc_counter_inc(c);
	int n = sc_counter_describe(c, b, sizeof b);
	tap_ok(n == 9 && strcmp(b, "mode=base") == 0, "handle_describe '%s'", b);
	sc_counter_free(c);
}

int main(void)
{
	for (int i = 0; i < SC_VARIANT_COUNT; i++)
		test_contract(&sc_variants[i]);
	test_morris();
	test_morris_adapt();
	test_bfp();
	test_scalable();
	test_adaptive_precise();
	test_distributed();
	test_handle();
	return tap_done();
}
