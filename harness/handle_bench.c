/* SPDX-License-Identifier: MIT */
/*
 * handle_bench.c - ns per sc_counter_inc on one thread, for make bench
 * (harness/bench.sh): what the handle API's increment costs, with the node
 * id refreshed from the kernel (sc_node.h) or, under SCOUNTERS_NODE=fixed,
 * without; and what it costs next to the inlined increment of the same
 * variant. Not installed.
 *
 *   handle_bench VARIANT SECONDS          prints: VARIANT NODE_SOURCE NS_PER_INC
 *   handle_bench --paired VARIANT SECONDS prints: VARIANT INLINE_NS HANDLE_NS RATIO
 *   handle_bench --versus REF VARIANT SECONDS  prints: VARIANT REF NS NS_REF RATIO
 *   handle_bench --floor SECONDS          prints five lines: NAME NS NS_FLOOR RATIO
 *   handle_bench --librseq SECONDS        prints up to four: NAME NS NS_REF RATIO
 *
 * --paired: the inlined sc_P_inc (the family header's static inline
 * function, on a counter made with the handle's configuration: the same
 * parameters, thread slots and nodes, and the library's context from
 * sc_thread_self) and sc_counter_inc alternate in chunks of 2^18 increments
 * within one process, so both see the same machine state; RATIO is the
 * median over the chunk pairs of handle/inline, INLINE_NS and HANDLE_NS the
 * medians of each. Each inlined loop is its own function, not inlined into
 * main, so the compiler treats both loops alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <scounters/scounters.h>
#ifdef SC_BENCH_LIBRSEQ
#include "handle_bench_librseq.h"
#endif

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CHUNK 262144
#define MAX_PAIRS 4096

/* One inlined loop per variant: CHUNK increments through sc_P_inc. */
#if defined(__GNUC__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE
#endif
#define SC_LOOP_(P, ...)                                                                   \
	static NOINLINE void loop_##P(void *c, const void *cfg, sc_thread *t)              \
	{                                                                                  \
		for (int i = 0; i < CHUNK; i++)                                            \
			sc_##P##_inc((sc_##P##_t *)c, (const sc_##P##_cfg *)cfg, t);        \
	}
SC_VARIANTS(SC_LOOP_)
#undef SC_LOOP_

typedef void (*loop_fn)(void *c, const void *cfg, sc_thread *t);
#define SC_LOOP_ENTRY_(P, ...) loop_##P,
static const loop_fn loops[SC_VARIANT_COUNT] = {SC_VARIANTS(SC_LOOP_ENTRY_)};
#undef SC_LOOP_ENTRY_

/*
 * The floor of a per-CPU add: a relaxed load and store of a word only
 * this thread writes (obj), CHUNK times.
 */
static NOINLINE void floor_loop(void *obj, const void *cfg, sc_thread *t)
{
	SC_ATOMIC(uint64_t) *w = obj;
	(void)cfg;
	(void)t;
	for (int i = 0; i < CHUNK; i++)
		/* relaxed: the thread's own word; nothing is ordered by it. */
		atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) + 1,
		                      memory_order_relaxed);
}

/*
 * The indexed floor: the same load and store, of a word of a thread-private
 * array (obj, padded to a line as PerCPU's slots are) at an index loaded at
 * every increment, as a per-CPU add loads its CPU's id. Some cores forward
 * a store to the next load of the same base+displacement address without
 * the store-to-load latency (memory renaming) but not of an indexed one,
 * which every per-CPU add is: the difference of the two floors is what that
 * costs on this core.
 */
static SC_ATOMIC(uint32_t) floor_index;

static NOINLINE void floor_indexed_loop(void *obj, const void *cfg, sc_thread *t)
{
	sc_padded_u64 *words = obj;
	(void)cfg;
	(void)t;
	for (int i = 0; i < CHUNK; i++) {
		/* relaxed: written once before the loops; loaded here as a CPU id is */
		uint32_t k = atomic_load_explicit(&floor_index, memory_order_relaxed);
		SC_ATOMIC(uint64_t) *w = &words[k].v;
		/* relaxed: the thread's own word; nothing is ordered by it. */
		atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) + 1,
		                      memory_order_relaxed);
	}
}

/* CHUNK adds to a PerCPU counter's array through the thread's cursor (sc_rseq.h). */
static NOINLINE void cursor_loop(void *obj, const void *cfg, sc_thread *t)
{
	const sc_percpu_cfg *pc = cfg;
	unsigned char *slot0 = (unsigned char *)(void *)((sc_percpu_t *)obj)->slots;
	sc_percpu_cursor cur = sc_percpu_cursor_get(slot0, SC_LINE_SIZE, pc->cpus, pc->index);
	(void)t;
	for (int i = 0; i < CHUNK; i++)
		sc_percpu_cursor_add(&cur, 1);
}

static NOINLINE void handle_loop(sc_counter *c)
{
	for (int i = 0; i < CHUNK; i++)
		sc_counter_inc(c);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *x, int n)
{
	qsort(x, (size_t)n, sizeof *x, cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* The handle API's configuration of v (counter.c): its thread slots, nodes and defaults. */
static int inline_table(sc_table *t, const sc_variant *v, sc_err *err)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t threads = cpus > 0 ? 2 * (uint64_t)cpus : 8;
	if (threads < 8)
		threads = 8;
	if (threads > SC_DIST_MAX_SLOTS)
		threads = SC_DIST_MAX_SLOTS;
	uint32_t nodes = sc_node_count();
	sc_env env = {(uint32_t)threads, nodes < SC_RBONUMA_MAX_NODES ? nodes : SC_RBONUMA_MAX_NODES,
	              0};
	sc_params p;
	sc_params_clear(&p);
	if (strstr(v->params, "width") && sc_params_add(&p, "width=64", err))
		return -1;
	return sc_table_create(t, v, &p, &env, 1, err);
}

/* One side of a pair: an inlined loop on a counter, or the handle's loop. */
typedef struct side {
	loop_fn loop;
	void *obj;
	const void *cfg;
	sc_counter *handle; /* non-NULL: handle_loop(handle) */
} side;

static void run_side(const side *s, sc_thread *self)
{
	if (s->handle)
		handle_loop(s->handle);
	else
		s->loop(s->obj, s->cfg, self);
}

/*
 * a and b alternate in chunks for secs seconds (at least 8 pairs), each
 * going first in every other pair; out: the medians of a's and b's ns per
 * increment and of a/b.
 */
static void alternate(const side *a, const side *b, double secs, double out[3])
{
	static double ns_a[MAX_PAIRS], ns_b[MAX_PAIRS], ratio[MAX_PAIRS];
	sc_thread *self = sc_thread_self();
	int n = 0;
	double t0 = now();
	run_side(a, self); /* a warm-up pair, not kept */
	run_side(b, self);
	while (n < MAX_PAIRS && (n < 8 || now() - t0 < secs)) {
		const side *first = n % 2 ? b : a, *second = n % 2 ? a : b;
		double t1 = now();
		run_side(first, self);
		double t2 = now();
		run_side(second, self);
		double t3 = now();
		double ns1 = (t2 - t1) * 1e9 / CHUNK, ns2 = (t3 - t2) * 1e9 / CHUNK;
		ns_a[n] = n % 2 ? ns2 : ns1;
		ns_b[n] = n % 2 ? ns1 : ns2;
		ratio[n] = ns_a[n] / ns_b[n];
		n++;
	}
	out[0] = median(ns_a, n);
	out[1] = median(ns_b, n);
	out[2] = median(ratio, n);
}

static int paired(const char *name, double secs)
{
	sc_err err;
	const sc_variant *v = sc_variant_find(name);
	sc_counter *c = v ? sc_counter_new(name, "", &err) : NULL;
	sc_table t;
	if (!c || inline_table(&t, v, &err)) {
		fprintf(stderr, "handle_bench: %s\n", v ? err.msg : "unknown variant");
		return 1;
	}
	side handle = {NULL, NULL, NULL, c};
	side inlined = {loops[v - sc_variants], sc_table_at(&t, 0), t.cfg, NULL};
	double m[3];
	alternate(&handle, &inlined, secs, m);
	printf("%s %.4f %.4f %.4f\n", sc_counter_variant(c), m[1], m[0], m[2]);
	sc_table_destroy(&t);
	sc_counter_free(c);
	return 0;
}

/*
 * --versus REF VARIANT SECONDS: the inlined increments of two variants
 * alternating in chunks, as --paired does; prints VARIANT REF NS NS_REF RATIO
 * (the median of VARIANT/REF over the chunk pairs). For the adaptive
 * counters against CAS at 1 thread, where scbench's separate runs feel every
 * other process of a shared machine.
 */
static int versus(const char *ref_name, const char *name, double secs)
{
	sc_err err;
	const sc_variant *v = sc_variant_find(name), *r = sc_variant_find(ref_name);
	sc_table tv, tr;
	if (!v || !r || inline_table(&tv, v, &err) || inline_table(&tr, r, &err)) {
		fprintf(stderr, "handle_bench: %s\n", v && r ? err.msg : "unknown variant");
		return 1;
	}
	side sv = {loops[v - sc_variants], sc_table_at(&tv, 0), tv.cfg, NULL};
	side sr = {loops[r - sc_variants], sc_table_at(&tr, 0), tr.cfg, NULL};
	double m[3];
	alternate(&sv, &sr, secs, m);
	printf("%s %s %.4f %.4f %.4f\n", v->name, r->name, m[0], m[1], m[2]);
	sc_table_destroy(&tv);
	sc_table_destroy(&tr);
	return 0;
}

/*
 * --floor SECONDS: PerCPU's inlined increment (sc_percpu_inc: the array's
 * index loaded at each add) and the cursor's add, each alternating with the
 * floor loop as --paired does; prints "PerCPU NS NS_FLOOR RATIO" and
 * "PerCPU-cursor NS NS_FLOOR RATIO" (the floor of make bench's target, a
 * base+displacement address), then the indexed floor against that floor
 * ("floor-indexed NS NS_FLOOR RATIO") and the two adds against the indexed
 * floor ("PerCPU@indexed NS NS_FLOOR_INDEXED RATIO", "PerCPU-cursor@indexed
 * ..."), and the path on stderr.
 */
static int floor_pairs(double secs)
{
	sc_err err;
	const sc_variant *v = sc_variant_find("PerCPU");
	sc_table t;
	static sc_padded_u64 own, own_indexed[4];
	if (!v || inline_table(&t, v, &err)) {
		fprintf(stderr, "handle_bench: %s\n", v ? err.msg : "no PerCPU");
		return 1;
	}
	sc_atomic_init(&own.v, 0);
	for (int k = 0; k < 4; k++)
		sc_atomic_init(&own_indexed[k].v, 0);
	/* relaxed: before the loops, on this thread */
	atomic_store_explicit(&floor_index, 1, memory_order_relaxed);
	side fl = {floor_loop, &own.v, NULL, NULL};
	side fl_ix = {floor_indexed_loop, own_indexed, NULL, NULL};
	side sides[2] = {{loops[v - sc_variants], sc_table_at(&t, 0), t.cfg, NULL},
	                 {cursor_loop, sc_table_at(&t, 0), t.cfg, NULL}};
	const char *names[2] = {"PerCPU", "PerCPU-cursor"};
	for (int k = 0; k < 2; k++) {
		double m[3];
		alternate(&sides[k], &fl, secs, m);
		printf("%s %.4f %.4f %.4f\n", names[k], m[0], m[1], m[2]);
	}
	double m[3];
	alternate(&fl_ix, &fl, secs, m);
	printf("floor-indexed %.4f %.4f %.4f\n", m[0], m[1], m[2]);
	for (int k = 0; k < 2; k++) {
		alternate(&sides[k], &fl_ix, secs, m);
		printf("%s@indexed %.4f %.4f %.4f\n", names[k], m[0], m[1], m[2]);
	}
	fprintf(stderr, "handle_bench: per-CPU path %s\n",
	        sc_percpu_index_name(((const sc_percpu_cfg *)t.cfg)->index));
	sc_table_destroy(&t);
	return 0;
}

#ifdef SC_BENCH_LIBRSEQ
static NOINLINE void lr_cpu_id_side(void *obj, const void *cfg, sc_thread *t)
{
	(void)cfg;
	(void)t;
	lr_loop_cpu_id(obj, CHUNK);
}

static NOINLINE void lr_mm_cid_side(void *obj, const void *cfg, sc_thread *t)
{
	(void)cfg;
	(void)t;
	lr_loop_mm_cid(obj, CHUNK);
}
#endif

/*
 * --librseq SECONDS: librseq's per-CPU add (handle_bench_librseq.c), by
 * cpu_id and by mm_cid, alternating with the floor loop, then PerCPU's
 * inlined increment alternating with each; prints "librseq-cpu_id NS
 * NS_FLOOR RATIO", "PerCPU-vs-librseq-cpu_id NS NS_LIBRSEQ RATIO" and the
 * same for mm_cid (left out, saying why on stderr, where the kernel has no
 * mm_cid). Exit 77, saying why on stderr, in a build without librseq or
 * where it cannot register the thread.
 */
static int librseq_pairs(double secs)
{
#ifndef SC_BENCH_LIBRSEQ
	(void)secs;
	fprintf(stderr, "handle_bench: built without librseq (configure --with-librseq=PREFIX, or "
	                "with a librseq.pc that pkg-config finds)\n");
	return 77;
#else
	sc_err err;
	const sc_variant *v = sc_variant_find("PerCPU");
	sc_table t;
	static sc_padded_u64 own;
	const char *why = "";
	int mm_cid = 0;
	void *words = lr_setup(&why, &mm_cid);
	if (!words) {
		fprintf(stderr, "handle_bench: librseq: %s\n", why);
		return 77;
	}
	if (!v || inline_table(&t, v, &err)) {
		fprintf(stderr, "handle_bench: %s\n", v ? err.msg : "no PerCPU");
		free(words);
		return 1;
	}
	sc_atomic_init(&own.v, 0);
	side fl = {floor_loop, &own.v, NULL, NULL};
	side ours = {loops[v - sc_variants], sc_table_at(&t, 0), t.cfg, NULL};
	side lr[2] = {{lr_cpu_id_side, words, NULL, NULL}, {lr_mm_cid_side, words, NULL, NULL}};
	const char *names[2] = {"cpu_id", "mm_cid"};
	for (int k = 0; k < 2; k++) {
		double m[3];
		if (k == 1 && !mm_cid) {
			fprintf(stderr, "handle_bench: librseq: the kernel gives no mm_cid\n");
			break;
		}
		alternate(&lr[k], &fl, secs, m);
		printf("librseq-%s %.4f %.4f %.4f\n", names[k], m[0], m[1], m[2]);
		alternate(&ours, &lr[k], secs, m);
		printf("PerCPU-vs-librseq-%s %.4f %.4f %.4f\n", names[k], m[0], m[1], m[2]);
	}
	fprintf(stderr, "handle_bench: per-CPU path %s\n",
	        sc_percpu_index_name(((const sc_percpu_cfg *)t.cfg)->index));
	sc_table_destroy(&t);
	free(words);
	return 0;
#endif
}

int main(int argc, char **argv)
{
	sc_err err;
	if (argc == 4 && strcmp(argv[1], "--paired") == 0 && atof(argv[3]) > 0)
		return paired(argv[2], atof(argv[3]));
	if (argc == 3 && strcmp(argv[1], "--floor") == 0 && atof(argv[2]) > 0)
		return floor_pairs(atof(argv[2]));
	if (argc == 3 && strcmp(argv[1], "--librseq") == 0 && atof(argv[2]) > 0)
		return librseq_pairs(atof(argv[2]));
	if (argc == 5 && strcmp(argv[1], "--versus") == 0 && atof(argv[4]) > 0)
		return versus(argv[2], argv[3], atof(argv[4]));
	if (argc != 3 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: handle_bench [--paired] VARIANT SECONDS | --versus REF VARIANT "
		                "SECONDS | --floor SECONDS | --librseq SECONDS\n");
		return 2;
	}
	sc_counter *c = sc_counter_new(argv[1], "", &err);
	if (!c) {
		fprintf(stderr, "handle_bench: %s\n", err.msg);
		return 1;
	}
	double secs = atof(argv[2]), t0 = now(), t = t0;
	unsigned long long n = 0;
	/* Batches of 2^16 increments between clock reads. */
	while (t - t0 < secs) {
		for (int i = 0; i < 65536; i++)
			sc_counter_inc(c);
		n += 65536;
		t = now();
	}
	printf("%s %s %.4f\n", sc_counter_variant(c), sc_node_source(), (t - t0) * 1e9 / (double)n);
	sc_counter_free(c);
	return 0;
}
