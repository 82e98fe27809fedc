/* SPDX-License-Identifier: MIT */
/*
 * sc_common.h - pieces every counter family shares: cache-line padding, the
 * per-thread context, the xorshift generators, randomized exponential backoff,
 * named parameters and error reporting.
 *
 * Nothing here knows about threads, hwloc, PAPI or the command line: a thread
 * context is plain data that the caller fills in (index, node, seeds) and
 * passes explicitly to every increment.
 */
#ifndef SC_COMMON_H
#define SC_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sc_abi.h"
#include "sc_atomic.h"
#include "scounters/sc_config.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * Padding unit. One 64-byte line by default, on aarch64 too (Neoverse cores:
 * Graviton, Ampere, Grace); configure --with-line-size=128 pads to two lines
 * for adjacent-line prefetchers or Apple's 128-byte lines, and
 * --with-line-size=auto takes the build machine's (doc/design.md §3).
 */
#ifndef SC_LINE_SIZE
#define SC_LINE_SIZE 64
#endif

/* Round n up to a whole number of padding units. */
#define SC_PAD_UP(n) ((((size_t)(n)) + SC_LINE_SIZE - 1) / SC_LINE_SIZE * SC_LINE_SIZE)

/* A 64-bit atomic word alone on its padding unit. */
typedef struct sc_padded_u64 {
	alignas(SC_LINE_SIZE) SC_ATOMIC(uint64_t) v;
	char pad_[SC_LINE_SIZE - sizeof(SC_ATOMIC(uint64_t))];
} sc_padded_u64;

/* What kind of answer a variant gives. */
typedef enum sc_kind {
	SC_PRECISE = 0,       /* exact under any number of threads */
	SC_PROBABILISTIC = 1, /* unbiased estimate with a stated error bound */
	SC_RACY = 2           /* loses updates under contention, by design */
} sc_kind;

const char *sc_kind_name(sc_kind kind);

/*
 * Array layout a variant asks for when many counters sit side by side
 * (Dice §5.3): precise counters that are written on every increment are
 * padded one per line; probabilistic ones, and those whose in-array word is
 * read-only after set-up (a pointer to padded parts), are packed.
 */
typedef enum sc_layout { SC_PADDED = 0, SC_PACKED = 1 } sc_layout;

/* The environment a counter is configured for. */
typedef struct sc_env {
	uint32_t threads; /* thread indices are 0 .. threads-1 (Sharded, Batched) */
	uint32_t nodes;   /* node ids are 0 .. nodes-1 (RBONuma, Multiline) */
	uint32_t cpus;    /* CPU ids are 0 .. cpus-1 (PerCPU, Striped); 0: ask the OS */
} sc_env;

/*
 * Fill env with one thread, one node and the OS's CPU count. Set
 * env.threads to the number of threads that will increment: with the
 * default, Sharded and Batched give index 0 its own slot and send every
 * other index to their shared overflow path (exact and in bounds, but
 * contended). Thread-safe; never fails.
 */
void sc_env_default(sc_env *env);

/*
 * The per-thread context, passed to every increment. The caller owns it and
 * must not share it between threads.
 */
typedef struct sc_thread {
	uint32_t index; /* 0 .. env.threads-1 own slots; any larger one is safe (shared path) */
	uint32_t node;  /* 0 .. env.nodes-1, real or virtual; larger ones are folded in */
	uint32_t rng;   /* counter-decision xorshift32 state, never 0 */
	uint32_t probe; /* Striped's cell probe, never 0 */
} sc_thread;

/*
 * Seed a context. Different (index, seed) pairs give different, non-zero
 * generator states; same_seed makes every index share the state of index 0
 * (a variant's same-seed=1 parameter, to show why per-thread seeds matter).
 */
void sc_thread_init(sc_thread *t, uint32_t index, uint32_t node, uint64_t seed,
                    bool same_seed);

/*
 * splitmix64 finalizer: a bijective mix used to derive independent seeds
 * from (base seed, thread index, stream number).
 */
static inline uint64_t sc_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* Derive a non-zero 32-bit xorshift state for stream `stream` of thread `index`. */
uint32_t sc_derive_seed32(uint64_t seed, uint32_t index, uint32_t stream);

/*
 * Marsaglia xorshift32 with shifts (6,21,7), as Dice §3.2 uses. Returns a
 * value in 1 .. 2^32-1 (the state never becomes 0).
 */
static inline uint32_t sc_xorshift_dice(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 6;
	x ^= x >> 21;
	x ^= x << 7;
	return *s = x;
}

/* xorshift32 with shifts (13,17,5), as the .NET runtime uses for Ayers's counter. */
static inline uint32_t sc_xorshift_ayers(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

/*
 * For the few fast-path helpers a compiler might decline to inline in a large
 * loop: "static inline" is only a hint, and one call per increment is what
 * the measured loops must never pay (doc/design.md §2).
 */
#if defined(__GNUC__)
#define SC_ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define SC_ALWAYS_INLINE static inline
#endif

/*
 * One short pause: the spin-wait hint of the architecture. On aarch64 this is
 * isb, not yield: yield is a hint that cores without SMT (Neoverse, Graviton,
 * Ampere, Apple) retire as a nop in under a nanosecond, while isb stalls the
 * front end until the pipeline drains, tens of cycles, like x86 pause. Rust's
 * spin_loop hint (rust-lang/rust#84725), MySQL and Go's procyield
 * (golang/go#69232) made the same change, and backoff windows counted in
 * pauses then mean about the same wait on both architectures.
 */
static inline void sc_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("isb" ::: "memory");
#elif defined(__powerpc__) || defined(__powerpc64__)
	__asm__ __volatile__("or 27,27,27" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * Randomized exponential backoff (Agarwal and Cherian, cited by Dice §2.1).
 * After the f-th consecutive failure a thread waits a uniformly random number
 * of pauses in [0, min(max, min << f)). Bounds are in pauses.
 */
typedef struct sc_backoff_cfg {
	uint32_t min; /* window after the first failure, >= 1 */
	uint32_t max; /* cap on the window, >= min */
} sc_backoff_cfg;

#define SC_BACKOFF_MIN_DEFAULT 4u
#define SC_BACKOFF_MAX_DEFAULT 1024u

static inline void sc_backoff(const sc_backoff_cfg *b, uint32_t failures, uint32_t *rng)
{
	uint64_t w = failures >= 32 ? b->max : (uint64_t)b->min << failures;
	uint32_t window = w < b->max ? (uint32_t)w : b->max;
	uint32_t spins = sc_xorshift_dice(rng) % window;
	while (spins--)
		sc_cpu_relax();
}

/*
 * For the probabilistic variants' add(n): the number of independent trials,
 * each a success with probability p (0 < p < 1), up to and including the
 * first success, drawn from one uniform 32-bit value r in 1 .. 2^32-1 (an
 * xorshift output). With u = r/2^32 it is 1 + floor(log(u) / log(1-p)), so
 * P(gap > k) = P(u < (1-p)^k): the geometric distribution, up to the 2^-32
 * resolution of u. log1m is log(1-p), computed by the caller once per p.
 * Saturates at UINT64_MAX.
 */
uint64_t sc_geometric_gap(uint32_t r, double log1m);

/*
 * For add(n) of BFP-CSUP: the number of successes among n independent
 * trials of probability p (0 <= p <= 1), Binomial(n, p), in O(log n) draws
 * from the xorshift state *rng (sc_xorshift_dice; Knuth's recursion: a
 * Beta-distributed order statistic splits the trials in halves, each Beta
 * a ratio of two Marsaglia-Tsang gamma variates, and the last 64 or fewer
 * trials are drawn one by one). Exact up to double rounding and the 2^-64
 * resolution of the uniforms (two draws each). Thread-safe (the caller
 * owns *rng); never fails.
 */
uint64_t sc_binomial(uint64_t n, double p, uint32_t *rng);

/* Error message sink for configuration and allocation failures. */
typedef struct sc_err {
	char msg[256];
} sc_err;

void sc_err_set(sc_err *err, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/*
 * Named parameters ("key=value"), as given by --param. Each variant's config
 * function reads the keys it knows with the sc_param_* readers, which mark
 * them used; sc_params_check_unused() then rejects whatever is left.
 */
#define SC_MAX_PARAMS 16

#define SC_MAX_KEY 32

typedef struct sc_params {
	unsigned n;
	char key[SC_MAX_PARAMS][SC_MAX_KEY];
	const char *value[SC_MAX_PARAMS];
	bool used[SC_MAX_PARAMS];
} sc_params;

void sc_params_clear(sc_params *p);
/* Add "key=value" (the string must outlive p). -1 and err on bad form or too many. */
int sc_params_add(sc_params *p, const char *kv, sc_err *err);

/*
 * Readers. Each returns 0 and stores the default when the key is absent,
 * 0 and the parsed value when it is present and in [min, max], -1 with a
 * message naming the variant, key, value and accepted range otherwise.
 */
int sc_param_u64(sc_params *p, const char *variant, const char *key, uint64_t def,
                 uint64_t min, uint64_t max, uint64_t *out, sc_err *err);
int sc_param_double(sc_params *p, const char *variant, const char *key, double def,
                    double min, double max, double *out, sc_err *err);
bool sc_param_present(const sc_params *p, const char *key);
/* Reads backoff-min and backoff-max into b. */
int sc_param_backoff(sc_params *p, const char *variant, sc_backoff_cfg *b, sc_err *err);
/* -1 with a message listing the unknown key and the accepted ones. */
int sc_params_check_unused(const sc_params *p, const char *variant, const char *accepted,
                           sc_err *err);

/* Cache-line aligned zeroed allocation (size rounded up to the alignment). */
void *sc_alloc_lines(size_t size);
void sc_free_lines(void *p);

/*
 * The per-variant operations that many variants share word for word (the
 * contract is at the top of scounters.h). Each macro defines, for prefix P,
 * static inline functions with the contract's names and signatures, so that
 * a family header writes only what is its own.
 */

/* sc_P_config, _init, _reset, _destroy: declared here, defined in the family's .c. */
#define SC_OP_DECLARE_OUT_OF_LINE(P)                                                       \
	int sc_##P##_config(sc_##P##_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err); \
	int sc_##P##_init(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_err *err);            \
	void sc_##P##_reset(sc_##P##_t *c, const sc_##P##_cfg *cfg);                       \
	void sc_##P##_destroy(sc_##P##_t *c, const sc_##P##_cfg *cfg);

/* sc_P_size: one counter is its type, whatever the configuration. */
#define SC_OP_SIZEOF(P)                                                                    \
	static inline size_t sc_##P##_size(const sc_##P##_cfg *cfg)                        \
	{                                                                                  \
		(void)cfg;                                                                 \
		return sizeof(sc_##P##_t);                                                 \
	}

/* sc_P_flush: a no-op, for variants that hold nothing back per thread. */
#define SC_OP_NO_FLUSH(P)                                                                  \
	static inline void sc_##P##_flush(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_thread *t) \
	{                                                                                  \
		(void)c;                                                                   \
		(void)cfg;                                                                 \
		(void)t;                                                                   \
	}

/* sc_P_destroy: a no-op, for variants that allocate nothing. */
#define SC_OP_NO_DESTROY(P)                                                                \
	static inline void sc_##P##_destroy(sc_##P##_t *c, const sc_##P##_cfg *cfg)        \
	{                                                                                  \
		(void)c;                                                                   \
		(void)cfg;                                                                 \
	}

/* sc_P_heap_bytes: 0, for variants that allocate nothing. */
#define SC_OP_NO_HEAP(P)                                                                   \
	static inline size_t sc_##P##_heap_bytes(const sc_##P##_t *c, const sc_##P##_cfg *cfg) \
	{                                                                                  \
		(void)c;                                                                   \
		(void)cfg;                                                                 \
		return 0;                                                                  \
	}

/* sc_P_range: the full 64-bit range (the counter wraps only after 2^64 - 1). */
#define SC_OP_RANGE_FULL(P)                                                                \
	static inline uint64_t sc_##P##_range(const sc_##P##_cfg *cfg)                     \
	{                                                                                  \
		(void)cfg;                                                                 \
		return UINT64_MAX;                                                         \
	}

/* flush, destroy and heap_bytes of a counter that allocates nothing and holds nothing back. */
#define SC_OPS_SELF_CONTAINED(P) SC_OP_NO_FLUSH(P) SC_OP_NO_DESTROY(P) SC_OP_NO_HEAP(P)

/*
 * sc_P_init and sc_P_reset of a counter that is one atomic field FIELD
 * whose state at the start is the constant INITIAL. reset is relaxed: it
 * runs only while nothing increments, and later increments start after the
 * caller's barrier or join.
 */
#define SC_OP_WORD_INIT_RESET(P, FIELD, INITIAL)                                           \
	static inline int sc_##P##_init(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_err *err) \
	{                                                                                  \
		(void)cfg;                                                                 \
		(void)err;                                                                 \
		sc_atomic_init(&c->FIELD, INITIAL);                                           \
		return 0;                                                                  \
	}                                                                                  \
	static inline void sc_##P##_reset(sc_##P##_t *c, const sc_##P##_cfg *cfg)          \
	{                                                                                  \
		(void)cfg;                                                                 \
		atomic_store_explicit(&c->FIELD, INITIAL, memory_order_relaxed);           \
	}

/*
 * sc_P_describe (contract at the top of scounters.h): declared here, defined
 * in the family's .c; SC_OP_NO_STATE_DESCRIBE for a variant whose only state
 * is its value, which describes it as "".
 */
#define SC_OP_DECLARE_DESCRIBE(P)                                                          \
	int sc_##P##_describe(const sc_##P##_t *c, const sc_##P##_cfg *cfg, char *buf, size_t size);

#define SC_OP_NO_STATE_DESCRIBE(P)                                                         \
	static inline int sc_##P##_describe(const sc_##P##_t *c, const sc_##P##_cfg *cfg,  \
	                                    char *buf, size_t size)                        \
	{                                                                                  \
		(void)c;                                                                   \
		(void)cfg;                                                                 \
		if (size)                                                                  \
			buf[0] = '\0';                                                     \
		return 0;                                                                  \
	}

/* ceil(log2(n)) for n >= 1: bits needed to store ids 0 .. n-1. */
static inline unsigned sc_bits_for(uint32_t n)
{
	unsigned b = 0;
	while (b < 32 && ((uint64_t)1 << b) < n)
		b++;
	return b;
}

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_COMMON_H */

#include "sc_contract.h" /* needs the definitions above */
