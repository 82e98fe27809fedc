/* SPDX-License-Identifier: MIT */
/*
 * test_numa_switch.c - the switch thresholds of RBONumaAdapt (records its
 * node after 3 quick and 16 backoff tries fail) and MultilineAdapt (inflates
 * after inflate-after failed tries), on one thread and deterministically.
 *
 * Two threads on two CPUs seldom make one increment fail that many times in
 * a row (each retry reloads the word), so test_numa's duels can only show
 * these switches when the machine happens to. Here counters/numa.c and
 * multiline.c are compiled into the test with SC_NUMA_TEST_INTERFERE defined: just before
 * each CAS of the adaptive slow paths, the hook writes the word as another
 * thread's increment would, for as many tries as the test asks. The test
 * enters the slow path as the inlined increment does after its own CAS lost
 * to such a write, and checks: one failure short of the threshold the
 * counter stays as it was, at the threshold it switches, the hook ran once
 * per try, and every increment (the test's and the "other thread's") counts.
 */
#include <scounters/scounters.h>

#include <stdatomic.h>
#include <stdint.h>

static const sc_rbonuma_cfg *interfere_cfg; /* RBONumaAdapt: the counter's configuration */
static unsigned interfere_left;              /* writes still to make */
static unsigned interfere_calls;             /* tries seen */
static uint32_t interfere_record_node;       /* RBONumaAdapt: write as a recorded word of this node */
static bool interfere_record;

/* Another thread's increment of an RBONumaAdapt word (plain, or recording a node). */
static void interfere_rbonuma(SC_ATOMIC(uint32_t) *word)
{
	interfere_calls++;
	if (!interfere_left)
		return;
	interfere_left--;
	uint32_t w = atomic_load(word);
	uint32_t value = (sc_rbonuma_word_value(interfere_cfg, w) + 1) & interfere_cfg->value_mask;
	uint32_t bits = interfere_record ? sc_rbonuma_tag(interfere_cfg, interfere_record_node)
	                                 : (w & ~interfere_cfg->value_mask);
	atomic_store(word, bits | value);
}

/* Another thread's increment of a MultilineAdapt word in its value form. */
static void interfere_multiline(SC_ATOMIC(uint64_t) *word)
{
	interfere_calls++;
	if (!interfere_left)
		return;
	interfere_left--;
	atomic_fetch_add(word, 2);
}

#define SC_NUMA_TEST_INTERFERE(word)                                                             \
	_Generic((word), SC_ATOMIC(uint32_t) *: interfere_rbonuma,                                \
	         SC_ATOMIC(uint64_t) *: interfere_multiline)(word)
#include "../counters/numa.c"
#include "../counters/multiline.c"

#include "tap.h"
#include "testutil.h"

#include <inttypes.h>

static void *open_counter(sc_table *t, const sc_variant *v, const char *params)
{
	sc_env env = {.threads = 8, .nodes = 4, .cpus = 2};
	sc_err err;
	if (test_table_open(t, v, &env, 1, params, &err)) {
		printf("Bail out! %s: %s\n", v->name, err.msg);
		exit(1);
	}
	return sc_table_at(t, 0);
}

/*
 * RBONumaAdapt: 5 uncontended increments, then one whose inline CAS lost to
 * another thread and whose slow-path tries meet `fails` more foreign writes.
 */
static void rbonuma_adapt_case(unsigned fails, bool record_other)
{
	sc_table tab;
	sc_rbonuma_adapt_t *c = open_counter(&tab, &sc_variants[SC_ID_rbonuma_adapt], NULL);
	const sc_rbonuma_adapt_cfg *cfg = tab.cfg;
	const unsigned tries = SC_RBONUMA_ADAPT_QUICK_TRIES + SC_RBONUMA_ADAPT_BACKOFF_TRIES - 1;
	sc_thread t;
	sc_thread_init(&t, 0, 2, 5, false);
	for (int i = 0; i < 5; i++)
		sc_rbonuma_adapt_inc(c, cfg, &t);
	interfere_cfg = cfg;
	interfere_record = false;
	interfere_left = 1; /* the write that made the inline CAS fail */
	interfere_rbonuma(&c->w);
	interfere_calls = 0;
	interfere_left = fails;
	interfere_record = record_other;
	interfere_record_node = 1;
	sc_rbonuma_adapt_inc_slow(c, cfg, &t, atomic_load(&c->w));
	uint32_t w = atomic_load(&c->w);
	unsigned made = fails - interfere_left; /* foreign writes in the slow path */
	uint64_t want = 5 + 1 + made + 1;
	bool recorded = sc_rbonuma_word_recorded(w);
	if (record_other) {
		/* The first foreign write records node 1: the loop sees the flag and the
		 * increment goes on as RBONuma's (which names node 2, the incrementer's). */
		tap_ok(recorded && sc_rbonuma_word_node(cfg, w) == 2 && interfere_calls == 1 &&
		               sc_rbonuma_adapt_get(c, cfg) == want,
		       "rbonuma_adapt_another_thread_recorded_meanwhile: follows it, exact "
		       "(word 0x%08x, %u tries, value %" PRIu64 " of %" PRIu64 ")",
		       w, interfere_calls, sc_rbonuma_adapt_get(c, cfg), want);
	} else {
		bool should = fails >= tries; /* the inline failure and every slow-path try */
		tap_ok(recorded == should && (!recorded || sc_rbonuma_word_node(cfg, w) == 2),
		       "rbonuma_adapt_%u_failures_%s (word 0x%08x)", 1 + fails,
		       should ? "records_its_node" : "stays_plain", w);
		tap_ok(interfere_calls == (fails < tries ? fails + 1 : tries),
		       "rbonuma_adapt_%u_failures_tries_%u (slow-path tries: %u)", 1 + fails,
		       fails < tries ? fails + 1 : tries, interfere_calls);
		tap_ok(sc_rbonuma_adapt_get(c, cfg) == want,
		       "rbonuma_adapt_%u_failures_exact (%" PRIu64 " of %" PRIu64 ")", 1 + fails,
		       sc_rbonuma_adapt_get(c, cfg), want);
	}
	sc_table_destroy(&tab);
}

/* MultilineAdapt with inflate-after=after: the same shape as above. */
static void multiline_adapt_case(unsigned after, unsigned fails)
{
	char params[64];
	snprintf(params, sizeof params, "inflate-after=%u", after);
	sc_table tab;
	sc_multiline_adapt_t *c = open_counter(&tab, &sc_variants[SC_ID_multiline_adapt], params);
	const sc_multiline_adapt_cfg *cfg = tab.cfg;
	sc_thread t;
	sc_thread_init(&t, 0, 3, 6, false);
	for (int i = 0; i < 5; i++)
		sc_multiline_adapt_inc(c, cfg, &t);
	interfere_left = 1;
	interfere_multiline(&c->w);
	interfere_calls = 0;
	interfere_left = fails;
	sc_multiline_adapt_inc_slow(c, cfg, &t, atomic_load(&c->w));
	bool inflated = sc_multiline_adapt_word_inflated(atomic_load(&c->w));
	bool should = fails >= after; /* the slow path's tries that failed */
	uint64_t want = 5 + 1 + (fails - interfere_left) + 1;
	tap_ok(inflated == should, "multiline_adapt_after%u_%u_failures_%s", after, 1 + fails,
	       should ? "inflates" : "stays_one_word");
	tap_ok(interfere_calls == (should ? after : fails + 1),
	       "multiline_adapt_after%u_%u_failures_tries_%u (slow-path tries: %u)", after,
	       1 + fails, should ? after : fails + 1, interfere_calls);
	tap_ok(sc_multiline_adapt_get(c, cfg) == want,
	       "multiline_adapt_after%u_%u_failures_exact (%" PRIu64 " of %" PRIu64 ")", after,
	       1 + fails, sc_multiline_adapt_get(c, cfg), want);
	if (inflated) {
		/* Inflated: increments go to the thread's node's component. */
		for (int i = 0; i < 7; i++)
			sc_multiline_adapt_inc(c, cfg, &t);
		tap_ok(sc_multiline_adapt_get(c, cfg) == want + 7,
		       "multiline_adapt_after%u_inflated_exact", after);
	}
	sc_table_destroy(&tab);
}

int main(void)
{
	tap_plan_lazy();
	const unsigned tries = SC_RBONUMA_ADAPT_QUICK_TRIES + SC_RBONUMA_ADAPT_BACKOFF_TRIES - 1;
	rbonuma_adapt_case(0, false);
	rbonuma_adapt_case(tries - 1, false); /* 18 failures in all: one short */
	rbonuma_adapt_case(tries, false);     /* 19: records */
	rbonuma_adapt_case(tries + 5, false); /* writes left over: the loop stops at 19 anyway */
	rbonuma_adapt_case(1, true);
	static const unsigned afters[] = {1, 4, 9};
	for (size_t i = 0; i < sizeof afters / sizeof *afters; i++) {
		multiline_adapt_case(afters[i], afters[i] - 1);
		multiline_adapt_case(afters[i], afters[i]);
	}
	return tap_done();
}
