/* SPDX-License-Identifier: MIT */
/*
 * sc_common.h - pieces every counter family shares: cache-line padding,
 * the kind and layout of a variant, the environment and the per-thread
 * context, and randomized exponential backoff; and the umbrella of the rest,
 * one header per concept, which it includes: random numbers (sc_random.h),
 * error reporting (sc_error.h), named parameters (sc_params.h), aligned
 * allocation (sc_alloc.h), the operations many variants share (sc_ops.h)
 * and the contract (sc_contract.h).
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
#include "sc_alloc.h"
#include "sc_atomic.h"
#include "sc_error.h"
#include "sc_params.h"
#include "sc_random.h"
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

#include "sc_ops.h"      /* needs the definitions above */
#include "sc_contract.h" /* needs the definitions above */
