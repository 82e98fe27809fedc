/* SPDX-License-Identifier: MIT */
/*
 * sc_random.h - the random numbers the counters draw: seed derivation
 * (splitmix64), the two xorshift32 generators (Dice's and the .NET
 * runtime's), the runtime's with an output scrambler (Scalable rng=mix),
 * and the geometric and binomial samplers of the probabilistic
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
 * murmur3's 32-bit finalizer (fmix32): two xor-shift-multiply rounds and a
 * last xor-shift. Each step is invertible on 32-bit words (x ^ (x >> k) is
 * undone by repeating it, a multiplication by an odd constant by the
 * inverse constant), so the whole is a bijection that maps 0, and only 0,
 * to 0; and every output bit depends on every input bit (each flipped
 * input bit flips about half of the output bits).
 */
static inline uint32_t sc_fmix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bu;
	x ^= x >> 13;
	x *= 0xc2b2ae35u;
	return x ^ (x >> 16);
}

/*
 * The .NET runtime's xorshift32 (13,17,5) step with fmix32 applied to its
 * output (Scalable rng=mix): the same 32-bit state, the same period
 * 2^32 - 1, but a better quality draw. xorshift's output is a linear
 * (GF(2)) function of its state, and its low bits, those Scalable's test
 * reads, depend on few state bits and repeat linear patterns from draw to
 * draw; the scrambler makes each output bit depend on every state bit,
 * which removes the linear structure the low bits show. The output is
 * never 0, since the state is never 0 and the scrambler sends only 0 to
 * 0: Scalable's chooser (sc_scalable_chosen_) relies on a draw in
 * 1 .. 2^32 - 1. Cost: two multiplications and three shift-xors more per
 * draw than sc_xorshift_ayers, a chain of some 8 to 10 more cycles of
 * latency on current cores.
 */
static inline uint32_t sc_xorshift_mix(uint32_t *s)
{
	return sc_fmix32(sc_xorshift_ayers(s));
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
