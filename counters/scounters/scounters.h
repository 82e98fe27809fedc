/* SPDX-License-Identifier: MIT */
/*
 * scounters.h - umbrella header of the scalable statistics counters library.
 * Include it as <scounters/scounters.h> (pkg-config's Cflags name the
 * include directory above scounters/); valid C11 and C++17 and later.
 *
 * Three ways to use a counter:
 *
 *  1. By name with managed thread contexts: the handle API of sc_counter.h
 *     (sc_counter_new("Sharded", "", &err), sc_counter_inc, ...), for any
 *     number of threads that never register.
 *
 *  2. Directly, inlined: include this header (or one family header) and call
 *     the family's functions, e.g.
 *
 *         sc_bfp_csup_cfg cfg;  sc_bfp_csup_t c;
 *         sc_bfp_csup_config(&cfg, &params, &env, &err);
 *         sc_bfp_csup_init(&c, &cfg, &err);
 *         sc_bfp_csup_inc(&c, &cfg, &thread);      // static inline fast path
 *         uint64_t v = sc_bfp_csup_get(&c, &cfg);
 *
 *  3. Chosen at run time by name, through the sc_variant ops table and the
 *     sc_table helper (one indirect call per operation).
 *
 * Every variant P provides the same set of functions, so that one list (the
 * SC_VARIANTS X-macro below) drives the registry, --list, the tests and the
 * benchmark loops:
 *
 *   typedef ... sc_P_t;      the counter object (what sits in an array)
 *   typedef ... sc_P_cfg;    per-class configuration shared by many counters
 *                            (Dice's "static, per accuracy class" data)
 *   int    sc_P_config(sc_P_cfg *, sc_params *, const sc_env *, sc_err *);
 *   size_t sc_P_size(const sc_P_cfg *);            bytes of one sc_P_t
 *   int    sc_P_init(sc_P_t *, const sc_P_cfg *, sc_err *);
 *   static inline void     sc_P_inc(sc_P_t *, const sc_P_cfg *, sc_thread *);
 *   void   sc_P_add(sc_P_t *, const sc_P_cfg *, sc_thread *, uint64_t n);
 *                  n increments at once (inline for some variants, out of
 *                  line for others): exact for precise variants; for
 *                  probabilistic ones unbiased, with the contract stated in
 *                  the family header. Thread-safe exactly as inc (same
 *                  context rules), never fails, n = 0 changes nothing.
 *   Thread indices at or above env.threads, and node ids at or above
 *   env.nodes, never make any variant touch memory outside the counter.
 *   static inline uint64_t sc_P_get(const sc_P_t *, const sc_P_cfg *);
 *   void   sc_P_reset(sc_P_t *, const sc_P_cfg *);  only while nothing increments
 *   static inline void sc_P_flush(sc_P_t *, const sc_P_cfg *, sc_thread *);
 *                                                  a thread is done (Batched)
 *   void   sc_P_destroy(sc_P_t *, const sc_P_cfg *);
 *   size_t sc_P_heap_bytes(const sc_P_t *, const sc_P_cfg *);
 *                                                  memory the counter allocated
 *   static inline uint64_t sc_P_range(const sc_P_cfg *);
 *                  the largest true count the counter represents without
 *                  wrapping (probabilistic variants: the largest expected
 *                  value before the representation wraps, conservatively);
 *                  a run whose true count exceeds it measured an overflow,
 *                  not the algorithm (scbench's overflowed column)
 *   static inline uint64_t sc_P_reading_fast(const sc_P_t *, const sc_P_cfg *);
 *   static inline uint64_t sc_P_reading_sum(const sc_P_t *, const sc_P_cfg *);
 *                  the variant's fast and full readings (both sc_P_get where
 *                  it has one reading: SC_OP_ONE_READING)
 *   static inline sc_counter_bound sc_P_bound(const sc_P_cfg *, sc_reading r);
 *                  reading r's error bound (sc_contract.h), and the enum
 *                  constant SC_PROMISES_P, the variant's SC_PROMISE_* bits:
 *                  the contract, declared once in the family header
 *   SC_HOOKS_P     what the handle API and sc_table ask of the variant
 *                  beyond these (sc_variant_hooks, sc_contract.h: each hook
 *                  optional, SC_HOOKS_NONE for none), in the family header
 *   int    sc_P_describe(const sc_P_t *, const sc_P_cfg *, char *buf, size_t size);
 *                  the counter's internal state, for explaining a run, as
 *                  "key=value;key=value" (no commas, quotes or spaces): the
 *                  mode an adaptive variant is in (key `mode`; two counters
 *                  whose `mode` differs ended in different regimes), the
 *                  exponent or threshold a probabilistic one reached, how
 *                  many parts a distributed one uses. "" for the variants
 *                  whose only state is their value (Serial, CAS, FetchAdd,
 *                  RBO). The family header lists each variant's keys. Writes
 *                  at most size bytes including the terminating NUL (none
 *                  when size is 0) and returns the length of the whole
 *                  description, as snprintf does, so a return >= size means
 *                  it was cut; never fails. Thread-safety: a racy snapshot,
 *                  safe while other threads increment (each field is read
 *                  with one atomic load, so fields may come from different
 *                  moments); consistent only while no thread increments, e.g.
 *                  after the threads are joined. Not concurrently with
 *                  init, reset or destroy. It reads, never writes, and adds
 *                  nothing to the increment's path.
 */
#ifndef SCOUNTERS_H
#define SCOUNTERS_H

#include "sc_common.h"

#include "sc_batched.h"
#include "sc_bfp.h"
#include "sc_counter.h"
#include "sc_distributed.h"
#include "sc_group.h"
#include "sc_morris.h"
#include "sc_multiline.h"
#include "sc_node.h"
#include "sc_numa.h"
#include "sc_scalable.h"
#include "sc_scalable_cas.h"
#include "sc_simple.h"
#include "sc_tree.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * The one list of variants, in the order of doc/design.md §3:
 *   X(prefix, canonical name, alias or NULL, kind, array layout,
 *     one-line summary, accepted parameters,
 *     family (its header sc_<family>.h), origin, experiment groups)
 * Every variant also accepts same-seed (see sc_thread_init). The origin says
 * whose design it is ("dice", "ayers", both, or "baseline": the other designs
 * of doc/design.md §3); the groups are the run-all experiments that plot it
 * ("dice": Dice Figs. 3-5, and Fig. 6 for the ones that are not precise;
 * "ayers": Ayers's count-to-N; "baselines"; "array": also run in Dice
 * Fig. 5's 7500-counter array beside the "dice" variants, for its bytes per
 * counter; "naive": CAS and the variations of it Dice §1 names, prefetching,
 * ignoring failures and an atomic add): scbench --list=json gives both.
 */
#define SC_VARIANTS(X)                                                                             \
	X(serial, "Serial", "racing", SC_RACY, SC_PADDED,                                          \
	  "relaxed load + relaxed store of value+1; loses updates (Dice §5, Ayers)", "", "simple", \
	  "dice,ayers", "dice,ayers")                                                              \
	X(cas, "CAS", NULL, SC_PRECISE, SC_PADDED,                                                 \
	  "compare-and-swap retry loop, no backoff (Dice §1)", "", "simple", "dice", "dice,naive") \
	X(fetchadd, "FetchAdd", "interlocked", SC_PRECISE, SC_PADDED,                              \
	  "one atomic fetch-and-add (Ayers's interlocked)", "", "simple", "ayers",                 \
	  "dice,ayers,baselines,naive")                                                            \
	X(rbo, "RBO", NULL, SC_PRECISE, SC_PADDED,                                                 \
	  "CAS with randomized exponential backoff (Dice §2.1)", "backoff-min,backoff-max",        \
	  "simple", "dice", "dice")                                                                \
	X(cas_prefetch, "CASPrefetch", NULL, SC_PRECISE, SC_PADDED,                                \
	  "CAS retry loop after a prefetch of the line for writing (Dice §1)", "", "simple",       \
	  "dice", "naive")                                                                         \
	X(cas_once, "CASOnce", NULL, SC_RACY, SC_PADDED,                                           \
	  "one CAS of value+1, a failure ignored: loses updates (Dice §1)", "", "simple", "dice",  \
	  "naive")                                                                                 \
	X(rbonuma, "RBONuma", NULL, SC_PRECISE, SC_PADDED,                                         \
	  "32-bit CAS counter that favours the node of the last increment (Dice §2.1)",            \
	  "backoff-min,backoff-max,patience", "numa", "dice", "dice")                              \
	X(rbonuma_adapt, "RBONumaAdapt", NULL, SC_PRECISE, SC_PADDED,                              \
	  "plain CAS counter that turns into RBONuma under contention (Dice §2.1)",                \
	  "backoff-min,backoff-max,patience", "numa", "dice", "dice")                              \
	X(multiline, "Multiline", NULL, SC_PRECISE, SC_PACKED,                                     \
	  "one padded CAS component per node, get sums them (Dice §2.2)",                          \
	  "backoff-min,backoff-max", "numa", "dice", "dice,baselines")                             \
	X(multiline_adapt, "MultilineAdapt", NULL, SC_PRECISE, SC_PACKED,                          \
	  "one word that inflates to per-node components after 4 failed CAS (Dice §2.2)",          \
	  "backoff-min,backoff-max,inflate-after", "numa", "dice", "dice,baselines")               \
	X(morris, "Morris", NULL, SC_PROBABILISTIC, SC_PACKED,                                     \
	  "float threshold, update with probability T/MaxInt (Dice §3, Fig. 1)", "accuracy",       \
	  "morris", "dice", "dice,baselines")                                                      \
	X(morris_adapt, "MorrisAdapt", NULL, SC_PROBABILISTIC, SC_PACKED,                          \
	  "exact 32-bit half by CAS, Morris half after CAS failures (Dice §3.2)",                  \
	  "accuracy,switch-after", "morris", "dice", "dice")                                       \
	X(bfp_dup, "BFP-DUP", NULL, SC_PROBABILISTIC, SC_PACKED,                                   \
	  "binary floating point, exponent grows every M updates (Dice §4.2, Fig. 2)",             \
	  "accuracy,mantissa-threshold,backoff-min,backoff-max", "bfp", "dice", "dice")            \
	X(bfp_csup, "BFP-CSUP", NULL, SC_PROBABILISTIC, SC_PACKED,                                 \
	  "binary floating point, exponent grows only on contention (Dice §4.3)",                  \
	  "accuracy,mantissa-threshold,backoff-min,backoff-max,grow-after", "bfp", "dice",         \
	  "dice,baselines")                                                                        \
	X(scalable, "Scalable", "ayers", SC_PROBABILISTIC, SC_PACKED,                              \
	  "exact below 2^T, then adds 2^k with probability 2^-k (Ayers)",                          \
	  "threshold,width,runtime,rng", "scalable", "ayers", "ayers,baselines")                   \
	X(scalable_cas, "ScalableCAS", NULL, SC_PROBABILISTIC, SC_PACKED,                          \
	  "Scalable that tries a CAS by one first (Ayers, end notes)", "threshold,width",          \
	  "scalable", "ayers", "")                                                                 \
	X(scalable_capped, "ScalableCapped", NULL, SC_PROBABILISTIC, SC_PACKED,                    \
	  "Scalable with the increment step capped at 2^cap (Dice §4, Ayers end notes)",           \
	  "threshold,width,cap,rng", "scalable", "ayers", "")                                      \
	X(sharded, "Sharded", NULL, SC_PRECISE, SC_PACKED,                                         \
	  "one padded single-writer slot per thread, get sums (Dice §2)", "", "distributed",       \
	  "baseline", "baselines")                                                                 \
	X(striped, "Striped", NULL, SC_PRECISE, SC_PADDED,                                         \
	  "base word, then a growing table of padded cells on collision (LongAdder)", "",          \
	  "distributed", "baseline", "baselines")                                                  \
	X(batched, "Batched", NULL, SC_PRECISE, SC_PADDED,                                         \
	  "per-thread count flushed by one fetch-and-add every B (percpu_counter)", "batch",       \
	  "distributed", "baseline", "baselines")                                                  \
	X(percpu, "PerCPU", NULL, SC_PRECISE, SC_PACKED,                                           \
	  "one padded slot per CPU, restartable-sequence add on the current CPU's slot", "",       \
	  "distributed", "baseline", "baselines,array")                                            \
	X(percpu_group, "PerCPUGroup", NULL, SC_PRECISE, SC_PACKED,                                \
	  "a table's counters as one packed per-CPU group: 8 bytes per CPU each", "", "group",     \
	  "baseline", "baselines,array")                                                           \
	X(percpu_tree, "PerCPUTree", NULL, SC_PRECISE, SC_PACKED,                                  \
	  "per-CPU words carrying every batch up a tree: O(1) approximate read with bounds",       \
	  "batch,arity", "tree", "baseline", "baselines")

/* The run-time view of a variant: its descriptor and type-erased operations. */
typedef struct sc_variant {
	const char *name;
	const char *alias;   /* NULL when there is none */
	sc_kind kind;
	sc_layout layout;
	const char *summary;
	const char *params;  /* comma-separated accepted keys, "" for none */
	size_t cfg_size;
	int (*config)(void *cfg, sc_params *p, const sc_env *env, sc_err *err);
	size_t (*size)(const void *cfg);
	int (*init)(void *c, const void *cfg, sc_err *err);
	void (*inc)(void *c, const void *cfg, sc_thread *t);
	void (*add)(void *c, const void *cfg, sc_thread *t, uint64_t n);
	uint64_t (*get)(const void *c, const void *cfg);
	void (*reset)(void *c, const void *cfg);
	void (*flush)(void *c, const void *cfg, sc_thread *t);
	void (*destroy)(void *c, const void *cfg);
	size_t (*heap_bytes)(const void *c, const void *cfg);
	uint64_t (*range)(const void *cfg); /* sc_P_range: largest true count in range */
	int (*describe)(const void *c, const void *cfg, char *buf, size_t size);
	/*
	 * The contract (sc_contract.h), declared in the family header: the
	 * fast and the full reading (sc_P_reading_fast, sc_P_reading_sum; both
	 * get for a variant with one reading), each reading's bound for a
	 * configuration (sc_P_bound), and the SC_PROMISE_* word (SC_PROMISES_P).
	 */
	uint64_t (*reading_fast)(const void *c, const void *cfg);
	uint64_t (*reading_sum)(const void *c, const void *cfg);
	sc_counter_bound (*bound)(const void *cfg, sc_reading r);
	unsigned promises;
	sc_variant_hooks hooks; /* SC_HOOKS_P (sc_contract.h): NULL where the default holds */
} sc_variant;

/* Stable ids, in list order. */
enum sc_variant_id {
#define SC_ID_(P, ...) SC_ID_##P,
	SC_VARIANTS(SC_ID_)
#undef SC_ID_
	SC_VARIANT_COUNT
};

extern const sc_variant sc_variants[SC_VARIANT_COUNT];

/*
 * Whether v has a fast reading apart from its get (the table's reading, and
 * the handle's sc_counter_get). A variant has one reading unless its
 * promises include SC_PROMISE_READINGS_DIFFER; then get is the fast reading
 * where that reading's lag holds whatever the number of threads
 * (SC_PROMISE_LAG_BOUNDED: Batched), and the sum where it does not
 * (PerCPUTree), so that get always keeps a bound. True for the second kind:
 * its reading_fast is another reading, cheaper than get. Thread-safe.
 */
static inline bool sc_variant_has_fast_apart(const sc_variant *v)
{
	return (v->promises & SC_PROMISE_READINGS_DIFFER) &&
	       !(v->promises & SC_PROMISE_LAG_BOUNDED);
}

/* Look a variant up by canonical name or alias, case-insensitively; NULL if unknown. */
const sc_variant *sc_variant_find(const char *name);
/* "Serial, CAS, ..." for error messages; static storage, never written: thread-safe. */
const char *sc_variant_names(void);

/*
 * A table of n counters of one variant sharing one configuration, laid out
 * as the variant asks (SC_PADDED: one per padding unit; SC_PACKED: adjacent).
 */
typedef struct sc_table {
	const sc_variant *v;
	void *cfg;            /* line-aligned, owned */
	unsigned char *base;  /* line-aligned array of n counters, owned */
	size_t n;
	size_t stride;
	bool same_seed;       /* the same-seed=1 parameter */
	uint32_t thread_seed; /* nonzero: every thread's counter stream starts at this
	                         state (Scalable runtime=dotnet: the runtime's 100) */
} sc_table;

/*
 * Configure from p (every key must be known to the variant; same-seed is
 * accepted by all) and initialise n counters. 0, or -1 with err set and
 * nothing left allocated.
 */
int sc_table_create(sc_table *t, const sc_variant *v, sc_params *p, const sc_env *env,
                    size_t n, sc_err *err);
/*
 * sc_table_create, the counters of a variant whose words follow the
 * machine laid out by shape (its config_shape hook, sc_contract.h:
 * PerCPUTree given no arity); shape NULL, or another variant: as
 * sc_table_create. shape's arrays must outlive the table. 0, or -1 with err
 * set and nothing left allocated.
 */
int sc_table_create_shaped(sc_table *t, const sc_variant *v, sc_params *p, const sc_env *env,
                           const sc_cpu_shape *shape, size_t n, sc_err *err);
void sc_table_destroy(sc_table *t);
void sc_table_reset(sc_table *t);
static inline void *sc_table_at(const sc_table *t, size_t i)
{
	return t->base + i * t->stride;
}
/* Array stride plus the mean heap bytes per counter: the layout actually used. */
double sc_table_bytes_per_counter(const sc_table *t);
/* Bytes per counter of a single default-configured counter (for --list). */
size_t sc_variant_default_bytes(const sc_variant *v, const sc_env *env);
/*
 * The value each parameter of v takes when it is not given, as v's config
 * reads it with env: "key=value,..." into buf (a key v reads only under a
 * condition that does not hold by default is left out). 0, or -1 and err
 * when the configuration fails or buf is too small.
 */
int sc_variant_param_defaults(const sc_variant *v, const sc_env *env, char *buf, size_t size,
                              sc_err *err);

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SCOUNTERS_H */
