/* SPDX-License-Identifier: MIT */
/*
 * test_tree.c - PerCPUTree (sc_tree.h): the tree's shape and interval width
 * on synthetic machines of 1 to 256 CPUs against the binary tree's bound
 * batch x N x log2(N); get_fast's loads (counted by the header's
 * SC_TREE_LOAD hook) the same at every CPU count; carries through deep
 * trees by a seeded random walk of adds (exact sums, the interval always
 * holding, signed adds too); a storm of more threads than CPUs, migrations
 * and signals with concurrent readers checking every reading against its
 * interval; the comparisons; the handle API. Deterministic: seeds fixed,
 * no timing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdint.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every load of the readings counted, per thread. */
static _Thread_local uint64_t loads;
#define SC_TREE_LOAD(x) (loads++, (x))

#include <scounters/scounters.h>

#include "tap.h"
#include "testutil.h"

#define BATCH 64u

static int config(sc_percpu_tree_cfg *cfg, uint32_t cpus, const char *kv1, const char *kv2,
                  sc_err *err)
{
	sc_params p;
	sc_params_clear(&p);
	if ((kv1 && sc_params_add(&p, kv1, err)) || (kv2 && sc_params_add(&p, kv2, err)))
		return -1;
	sc_env env = {1, 1, cpus};
	if (sc_percpu_tree_config(cfg, &p, &env, err))
		return -1;
	return sc_params_check_unused(&p, "PerCPUTree", "batch,arity", err);
}

/* The width counted word by word for fan-out f at every level (the root holds nothing). */
static uint64_t expected_width(uint32_t n, uint64_t batch, uint32_t f)
{
	uint64_t width = batch - 1; /* the overflow word */
	uint64_t b = batch;
	do {
		width += (uint64_t)n * (b - 1);
		n = (n + f - 1) / f;
		b *= 2;
	} while (n > 1);
	return width;
}

/* Shapes, widths and get_fast's loads from 1 to 256 CPUs. */
static void shapes(void)
{
	bool widths_ok = true, bound_ok = true, fast_ok = true, sum_ok = true;
	for (uint32_t n = 1; n <= 256; n++) {
		for (uint32_t f = 2; f <= 8; f *= 2) {
			sc_percpu_tree_cfg cfg;
			sc_percpu_tree_t c;
			sc_err err;
			char arity[16];
			snprintf(arity, sizeof arity, "arity=%u", f);
			if (config(&cfg, n, "batch=64", arity, &err) || sc_percpu_tree_init(&c, &cfg, &err)) {
				tap_ok(false, "config %u CPUs arity %u: %s", n, f, err.msg);
				return;
			}
			if (cfg.width != expected_width(n, BATCH, f))
				widths_ok = false;
			unsigned lg = sc_bits_for(n);
			if (f == 2 && n >= 2 && n == (1u << lg)) {
				/* the paper's bound, plus the overflow word's batch - 1 */
				uint64_t paper = (uint64_t)BATCH * n * lg;
				if (cfg.width > paper + BATCH - 1 || cfg.width + 2 * n < paper)
					bound_ok = false;
				if (f == 2 && (n == 2 || n == 16 || n == 256))
					tap_diag("binary tree, %u CPUs, batch %u: width %llu, batch x N x log2 N "
					         "%llu, levels %u", n, BATCH, (unsigned long long)cfg.width,
					         (unsigned long long)paper, cfg.levels);
			}
			loads = 0;
			sc_tree_interval iv;
			sc_percpu_tree_get_fast(&c, &cfg, &iv);
			if (loads != 3 || iv.lo != 0 || iv.hi != cfg.width)
				fast_ok = false;
			loads = 0;
			sc_percpu_tree_get_sum(&c, &cfg);
			if (loads != (uint64_t)n + 2) /* the CPU count, then the CPUs' and the overflow word */
				sum_ok = false;
			sc_percpu_tree_destroy(&c, &cfg);
		}
	}
	tap_ok(widths_ok, "width = sum of (batch x 2^l - 1) over the non-root words, 1..256 CPUs, "
	                  "arity 2, 4, 8");
	tap_ok(bound_ok, "binary trees of 2..256 CPUs: batch x N x log2 N - 2N <= width <= "
	                 "batch x N x log2 N + batch - 1");
	tap_ok(fast_ok, "get_fast makes 3 loads at every CPU count 1..256 and arity");
	tap_ok(sum_ok, "get_sum makes CPUs + 2 loads (the hook counts what the code reads)");
}

/* What the add does once it knows its word (the locked path's steps, for any leaf). */
static void add_at(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg, uint32_t leaf, uint64_t v)
{
	uint64_t old = atomic_fetch_add(&c->words[leaf].v, v);
	uint64_t carry = sc_tree_carry_of_(old, v, cfg->batch_shift);
	if (carry)
		sc_percpu_tree_carry_(c, cfg, leaf, carry);
}

/* root + the residue of every non-root word: the exact sum when no carry is in flight. */
static uint64_t rebuilt(const sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg)
{
	uint64_t s = atomic_load(&c->words[cfg->root].v);
	uint64_t b = UINT64_C(1) << cfg->batch_shift;
	for (uint32_t i = 0; i <= cfg->cpus; i++)
		s += atomic_load(&c->words[i].v) & (b - 1);
	for (uint32_t l = 1; l < cfg->levels; l++) {
		uint32_t end = cfg->first[l + 1];
		for (uint32_t j = cfg->first[l]; j < end; j++)
			s += atomic_load(&c->words[cfg->cpus + 1 + j].v) & ((b << l) - 1);
	}
	return s;
}

/*
 * Seeded random adds on synthetic machines (every leaf, the overflow word
 * included), a machine-like shape with a CPU order among them; signed adds
 * when `signed_adds`.
 */
static void walk(uint32_t n, const uint32_t *order, const uint32_t *fan, uint32_t nfan,
                 bool signed_adds, const char *what)
{
	sc_percpu_tree_cfg cfg;
	sc_percpu_tree_t c;
	sc_err err;
	if (sc_percpu_tree_config_shape(&cfg, n, 8, order, fan, nfan, &err) ||
	    sc_percpu_tree_init(&c, &cfg, &err)) {
		tap_ok(false, "%s: %s", what, err.msg);
		return;
	}
	uint32_t rng = 12345;
	uint64_t total = 0, worst = 0;
	bool exact = true, inside = true, identity = true;
	for (int k = 0; k < 200000; k++) {
		uint32_t leaf = sc_xorshift_dice(&rng) % (n + 1);
		uint64_t v = k % 97 == 0 ? sc_xorshift_dice(&rng) % 1000 : 1;
		if (signed_adds && k % 3 == 0)
			v = (uint64_t) - (int64_t)(sc_xorshift_dice(&rng) % 20);
		add_at(&c, &cfg, leaf, v);
		total += v;
		if (k % 101 != 0)
			continue;
		sc_tree_interval iv;
		sc_percpu_tree_get_fast(&c, &cfg, &iv);
		uint64_t sum = sc_percpu_tree_get_sum(&c, &cfg);
		exact &= sum == total;
		inside &= sum - iv.lo <= cfg.width; /* modulo 2^64: in [lo, lo + width] */
		identity &= rebuilt(&c, &cfg) == sum;
		if (sum - iv.lo > worst)
			worst = sum - iv.lo;
	}
	tap_ok(exact && inside && identity,
	       "%s: 200000 adds, get_sum exact, root + residues = sum, sum - root <= width "
	       "(largest seen %llu of %llu, %u levels)",
	       what, (unsigned long long)worst, (unsigned long long)cfg.width, cfg.levels);
	sc_percpu_tree_destroy(&c, &cfg);
}

static void walks(void)
{
	uint32_t two[SC_TREE_MAX_LEVELS];
	for (int l = 0; l < SC_TREE_MAX_LEVELS; l++)
		two[l] = 2;
	walk(256, NULL, two, SC_TREE_MAX_LEVELS, false, "binary tree, 256 CPUs");
	walk(256, NULL, two, SC_TREE_MAX_LEVELS, true, "binary tree, 256 CPUs, signed adds");
	walk(7, NULL, two, SC_TREE_MAX_LEVELS, false, "binary tree, 7 CPUs");
	walk(256, NULL, two, 1, false, "256 CPUs in pairs under one root");
	/* 256 CPUs: SMT siblings c and c + 128 side by side, 8 cores per cache, 4 caches per node */
	static uint32_t order[256];
	for (uint32_t c = 0; c < 256; c++)
		order[c] = 2 * (c % 128) + c / 128;
	uint32_t machine[3] = {2, 8, 4};
	walk(256, order, machine, 3, false, "SMT pairs, 8 cores per cache, 4 caches per node");
	sc_percpu_tree_cfg cfg;
	sc_err err;
	tap_ok(sc_percpu_tree_config_shape(&cfg, 256, 8, order, machine, 3, &err) == 0 &&
	               cfg.levels == 4 && cfg.fanout[3] == 4 && cfg.nodes == 128 + 16 + 4 + 1,
	       "the machine's shape: 128 cores, 16 caches, 4 nodes, the root over the nodes");
	order[5] = order[6];
	tap_ok(sc_percpu_tree_config_shape(&cfg, 256, 8, order, machine, 3, &err) == -1,
	       "an order that is not a permutation is refused: %s", err.msg);
	tap_ok(config(&cfg, 4, "batch=3", NULL, &err) == -1, "batch=3 refused: %s", err.msg);
	tap_ok(config(&cfg, 4, "arity=1", NULL, &err) == -1, "arity=1 refused: %s", err.msg);
}

/* ---- the storm: more threads than CPUs, migrations, signals, readers ----------- */

typedef struct storm {
	sc_percpu_tree_t c;
	sc_percpu_tree_cfg cfg;
	SC_ATOMIC(uint64_t) begun, completed, bad_fast, bad_sum, readings;
	SC_ATOMIC(unsigned) writers_done;
	unsigned writers;
	uint64_t per_writer;
	pthread_t writer[64];
} storm;

static storm *the_storm;

static void one(storm *s)
{
	atomic_fetch_add(&s->begun, 1);
	sc_percpu_tree_inc(&s->c, &s->cfg, NULL);
	atomic_fetch_add(&s->completed, 1);
}

static void on_signal(int sig)
{
	(void)sig;
	if (the_storm)
		one(the_storm);
}

static void *storm_writer(void *arg)
{
	storm *s = the_storm;
	unsigned index = (unsigned)(uintptr_t)arg;
	cpu_hopper h;
	hopper_init(&h);
	for (uint64_t k = 0; k < s->per_writer; k++) {
		one(s);
		if (k % 97 == 0)
			hopper_move(&h, index + (unsigned)(k / 97));
	}
	hopper_restore(&h);
	atomic_fetch_add(&s->writers_done, 1);
	return NULL;
}

/*
 * A reading is inside its contract when lo <= begun (read after) and
 * completed (read before) <= lo + width + in-flight, in-flight being one
 * carry per writer and one per handler it may be running.
 */
static void *storm_reader(void *arg)
{
	storm *s = arg;
	uint64_t slack = s->cfg.width + 2 * (uint64_t)s->writers * s->cfg.carry_max;
	while (atomic_load(&s->writers_done) < s->writers) {
		uint64_t before = atomic_load(&s->completed);
		sc_tree_interval iv;
		sc_percpu_tree_get_fast(&s->c, &s->cfg, &iv);
		uint64_t sum = sc_percpu_tree_get_sum(&s->c, &s->cfg);
		uint64_t after = atomic_load(&s->begun);
		if (iv.lo > after || before > iv.lo + slack)
			atomic_fetch_add(&s->bad_fast, 1);
		if (sum < before || sum > after)
			atomic_fetch_add(&s->bad_sum, 1);
		atomic_fetch_add(&s->readings, 1);
	}
	return NULL;
}

static void *storm_signaller(void *arg)
{
	storm *s = arg;
	unsigned k = 0;
	while (atomic_load(&s->writers_done) < s->writers) {
		pthread_kill(s->writer[k++ % s->writers], SIGUSR1);
		if (k % 32 == 0)
			sched_yield();
	}
	return NULL;
}

static void storm_run(uint32_t cpus, uint32_t batch)
{
	storm *s = calloc(1, sizeof *s);
	sc_err err;
	uint32_t fan[SC_TREE_MAX_LEVELS]; /* binary, to the root */
	for (int l = 0; l < SC_TREE_MAX_LEVELS; l++)
		fan[l] = 2;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	if (!s || sc_percpu_tree_config_shape(&s->cfg, cpus, batch, NULL, fan, SC_TREE_MAX_LEVELS, &err) ||
	    sc_percpu_tree_init(&s->c, &s->cfg, &err))
		abort();
	s->writers = (unsigned)(2 * (online > 0 ? online : 1) + 2);
	if (s->writers > 64)
		s->writers = 64;
	s->per_writer = test_scaled(200000, 2000);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	the_storm = s;
	sigaction(SIGUSR1, &sa, &old);
	pthread_t sig, rd[2];
	for (unsigned w = 0; w < s->writers; w++)
		if (pthread_create(&s->writer[w], NULL, storm_writer, (void *)(uintptr_t)w))
			abort();
	if (pthread_create(&sig, NULL, storm_signaller, s) ||
	    pthread_create(&rd[0], NULL, storm_reader, s) ||
	    pthread_create(&rd[1], NULL, storm_reader, s))
		abort();
	pthread_join(sig, NULL); /* first: it must not signal a joined writer */
	for (unsigned w = 0; w < s->writers; w++)
		pthread_join(s->writer[w], NULL);
	pthread_join(rd[0], NULL);
	pthread_join(rd[1], NULL);
	sigaction(SIGUSR1, &old, NULL);
	the_storm = NULL;
	uint64_t total = atomic_load(&s->completed);
	sc_tree_interval iv;
	sc_percpu_tree_get_fast(&s->c, &s->cfg, &iv);
	uint64_t sum = sc_percpu_tree_get_sum(&s->c, &s->cfg);
	tap_ok(sum == total && total == atomic_load(&s->begun),
	       "storm on %u CPU words (%u levels), batch %u, %u writers (%ld CPUs online): get_sum "
	       "%llu = increments %llu (%llu by signal handlers)", cpus, s->cfg.levels, batch,
	       s->writers, online,
	       (unsigned long long)sum, (unsigned long long)total,
	       (unsigned long long)(total - s->writers * s->per_writer));
	tap_ok(iv.lo <= sum && sum <= iv.hi,
	       "after the storm: %llu in [%llu, %llu] (width %llu)", (unsigned long long)sum,
	       (unsigned long long)iv.lo, (unsigned long long)iv.hi,
	       (unsigned long long)s->cfg.width);
	tap_ok(atomic_load(&s->bad_fast) == 0 && atomic_load(&s->bad_sum) == 0 &&
	               atomic_load(&s->readings) > 0,
	       "during the storm: %llu concurrent readings, %llu get_fast outside its interval, "
	       "%llu get_sum outside [completed, begun]",
	       (unsigned long long)atomic_load(&s->readings),
	       (unsigned long long)atomic_load(&s->bad_fast),
	       (unsigned long long)atomic_load(&s->bad_sum));
	sc_percpu_tree_destroy(&s->c, &s->cfg);
	free(s);
}

/* ---- comparisons and the handle API --------------------------------------------- */

static void comparisons(void)
{
	sc_percpu_tree_cfg cfg;
	sc_percpu_tree_t a, b;
	sc_err err;
	if (config(&cfg, 256, "batch=8", NULL, &err) || sc_percpu_tree_init(&a, &cfg, &err) ||
	    sc_percpu_tree_init(&b, &cfg, &err)) {
		tap_ok(false, "comparison counters: %s", err.msg);
		return;
	}
	for (uint32_t k = 0; k < 1000000; k++)
		add_at(&a, &cfg, k % 257, 1);
	for (uint32_t k = 0; k < 10; k++)
		add_at(&b, &cfg, k, 1);
	loads = 0;
	int ab = sc_percpu_tree_compare(&a, &cfg, &b, &cfg);
	uint64_t l1 = loads;
	loads = 0;
	int ba = sc_percpu_tree_compare(&b, &cfg, &a, &cfg);
	tap_ok(ab == 1 && ba == -1 && l1 == 6 && loads == 6,
	       "1000000 against 10 on 256 CPUs: decided from the intervals (+1, -1) in 6 loads");
	loads = 0;
	int aa = sc_percpu_tree_compare(&a, &cfg, &a, &cfg);
	tap_ok(aa == 0 && loads == 6 + 2 * 258,
	       "a counter against itself: the intervals overlap, the exact sums decide (%llu loads)",
	       (unsigned long long)loads);
	loads = 0;
	int above = sc_percpu_tree_compare_value(&a, &cfg, 1000);
	uint64_t l2 = loads;
	tap_ok(above == 1 && l2 == 3 && sc_percpu_tree_compare_value(&a, &cfg, 1000000) == 0 &&
	               sc_percpu_tree_compare_value(&a, &cfg, 999999) == 1 &&
	               sc_percpu_tree_compare_value(&a, &cfg, 1000001) == -1 &&
	               sc_percpu_tree_compare_value(&b, &cfg, 20000000) == -1,
	       "compare_value: outside the interval in 3 loads, inside it exact");
	sc_percpu_tree_destroy(&a, &cfg);
	sc_percpu_tree_destroy(&b, &cfg);
}

static void handle(void)
{
	sc_err err;
	sc_counter *c = sc_counter_new("PerCPUTree", "batch=8,arity=4", &err);
	if (!tap_ok(c != NULL, "sc_counter_new(\"PerCPUTree\", \"batch=8,arity=4\")"))
		return;
	for (int k = 0; k < 100000; k++)
		sc_counter_inc(c);
	sc_counter_bound bd = sc_counter_error_bound(c, SC_READ_FAST);
	uint64_t fast = sc_counter_get_fast(c), sum = sc_counter_get_sum(c);
	tap_ok(bd.kind == SC_BOUND_LAG && sum == 100000 && sc_counter_get(c) == 100000 &&
	               fast <= sum && sum <= fast + bd.lag && fast > 0,
	       "handle: get_fast %llu <= get_sum %llu <= get_fast + lag %llu",
	       (unsigned long long)fast, (unsigned long long)sum, (unsigned long long)bd.lag);
	tap_ok(sc_counter_compare(c, 100000) == 0 && sc_counter_compare(c, 10) == 1 &&
	               sc_counter_compare(c, 99999) == 1 && sc_counter_compare(c, 100001) == -1 &&
	               sc_counter_compare(c, 1000000) == -1,
	       "handle: sc_counter_compare exact around the count, by the interval away from it");
	uint64_t got = sc_counter_read_and_reset(c);
	fast = sc_counter_get_fast(c);
	tap_ok(got == 100000 && sc_counter_get(c) == 0 && fast <= 0 + bd.lag,
	       "handle: read_and_reset %llu, then get_fast %llu within the lag of 0",
	       (unsigned long long)got, (unsigned long long)fast);
	char buf[200];
	sc_counter_describe(c, buf, sizeof buf);
	/* the tree takes the process's per-CPU path, indexed by cpu_id where it is rseq */
	bool lock = strcmp(sc_percpu_path(), "lock") == 0;
	tap_ok(strncmp(buf, lock ? "path=lock;" : "path=rseq-cpu_id;", lock ? 10 : 17) == 0,
	       "the tree's path follows sc_percpu_path (%s): %s", sc_percpu_path(), buf);
	sc_counter_free(c);
}

int main(void)
{
	printf("# per-CPU path: %s\n", sc_percpu_path());
	shapes();
	walks();
	comparisons();
	long online = sysconf(_SC_NPROCESSORS_CONF);
	storm_run(online > 0 ? (uint32_t)online : 1, 4);
	storm_run(1, 2); /* every CPU but 0 on the overflow word */
	storm_run(64, 2); /* the real CPUs' carries through a 6-level binary tree */
	handle();
	return tap_done();
}
