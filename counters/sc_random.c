/* SPDX-License-Identifier: MIT */
/* sc_random.c - seed derivation and the samplers of add(n) (sc_random.h). */
#include <scounters/sc_random.h>

#include <math.h>

uint32_t sc_derive_seed32(uint64_t seed, uint32_t index, uint32_t stream)
{
	uint64_t x = sc_mix64(sc_mix64(seed) ^ ((uint64_t)stream << 32 | index));
	uint32_t s = (uint32_t)(x ^ (x >> 32));
	return s ? s : 0x6d2b79f5u; /* xorshift must never hold 0 */
}

uint64_t sc_geometric_gap(uint32_t r, double log1m)
{
	double g = floor(log((double)r * 0x1p-32) / log1m);
	return g < 0x1p64 ? 1 + (uint64_t)g : UINT64_MAX; /* below 2^64 means at most 2^64 - 2048 */
}

/* ---- Binomial(n, p) for add(n) (sc_random.h) ------------------------------------ */

/* Uniform on (0, 1): 64 bits from two draws, never 0 nor 1. */
static double uniform_open(uint32_t *rng)
{
	uint64_t hi = sc_xorshift_dice(rng) - 1, lo = sc_xorshift_dice(rng) - 1;
	return ((double)(hi << 21 ^ lo >> 11) + 0.5) * 0x1p-53;
}

/* Standard normal (Marsaglia's polar method). */
static double normal(uint32_t *rng)
{
	for (;;) {
		double u = 2 * uniform_open(rng) - 1, v = 2 * uniform_open(rng) - 1;
		double q = u * u + v * v;
		if (q > 0 && q < 1)
			return u * sqrt(-2 * log(q) / q);
	}
}

/* Gamma(shape, 1) for shape >= 1 (Marsaglia and Tsang, 2000). */
static double gamma_variate(double shape, uint32_t *rng)
{
	double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x = normal(rng), v = 1 + c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		double u = uniform_open(rng);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

uint64_t sc_binomial(uint64_t n, double p, uint32_t *rng)
{
	uint64_t successes = 0;
	while (n > 64 && p > 0 && p < 1) {
		/*
		 * The a-th smallest of n uniforms is Beta(a, n + 1 - a): if it is at
		 * least p, the successes (uniforms below p) are among the a - 1
		 * below it, each below p with probability p / X; otherwise those
		 * a are all successes and the rest are the n - a above it, each
		 * below p with probability (p - X)/(1 - X).
		 */
		uint64_t a = 1 + n / 2, b = n + 1 - a;
		double ga = gamma_variate((double)a, rng), gb = gamma_variate((double)b, rng);
		double x = ga / (ga + gb);
		if (x >= p) {
			n = a - 1;
			p /= x;
		} else {
			successes += a;
			n = b - 1;
			p = (p - x) / (1 - x);
		}
	}
	if (p >= 1)
		return successes + n;
	for (; n && p > 0; n--)
		successes += uniform_open(rng) < p;
	return successes;
}
