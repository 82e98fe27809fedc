/* SPDX-License-Identifier: MIT */
/*
 * sc_random.h - the random numbers the counters draw: seed derivation
 * (splitmix64), the two xorshift32 generators (Dice's and the .NET
 * runtime's), and the geometric and binomial samplers of the probabilistic
 * variants' add(n). sc_common.h includes it.
 */
#ifndef SC_RANDOM_H
#define SC_RANDOM_H

#include <stdint.h>

#include "sc_abi.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

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

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_RANDOM_H */
