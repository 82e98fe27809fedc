/* SPDX-License-Identifier: MIT */
/*
 * morris_decode.h - the two readings of a Morris counter that Dice §3.2
 * compares ("computing n(v) directly from p(v) is about 5 times faster than
 * computing it from v"), for scbench's timed decode (run_decode.c, the
 * decode_p_ns and decode_v_ns columns) and its test (tests/test_morris.c).
 * Harness only: the library reads from p(v) and has no reading from v.
 *
 * From p(v): the library's own reading, sc_morris_projection (sc_morris.h).
 * The counter stores T = MaxInt p(v) as a float, and n = a (MaxInt/T - 1)
 * is one division.
 *
 * From v: Morris's n(v) = a((1 + 1/a)^v - 1), one pow() in double. This is
 * what a counter that stored the exponent v, as Morris's does, would compute
 * on every read; the library stores no v, so v is counted here by walking
 * the chain of thresholds (morris_decode_states).
 */
#ifndef SC_MORRIS_DECODE_H
#define SC_MORRIS_DECODE_H

#include <math.h>
#include <stdint.h>

#include <scounters/scounters.h>

/* What the reading from v needs of a cfg, computed once (the library precomputes a/(a+1) too). */
typedef struct morris_v_decoder {
	double a; /* the cfg's scale: the a that the rounded factor implies */
	double base; /* 1 + 1/a, which is 1/factor up to double rounding */
} morris_v_decoder;

static inline morris_v_decoder morris_v_decoder_of(const sc_morris_cfg *cfg)
{
	return (morris_v_decoder){ cfg->scale, 1.0 + 1.0 / cfg->scale };
}

/*
 * n(v) = a((1 + 1/a)^v - 1), the value of v updates, with a the cfg's scale
 * rather than its a, as sc_morris_projection uses it: the updates multiply T
 * by the float factor, so (1 + 1/scale)^v = factor^-v is the p(v) the counter
 * actually holds. The two readings of one state then differ only by the
 * float rounding of the chain of thresholds (T is rounded at each update;
 * sc_morris.h gives the drift, 3e-6 relative at 1%), by about (n + a) times
 * that: tests/test_morris.c holds them within 1e-5 (n + a).
 */
static inline double morris_n_of_v(double v, const morris_v_decoder *d)
{
	return d->a * (pow(d->base, v) - 1.0);
}

/*
 * n states spread evenly over the counter's whole range, in tbits[] (the
 * threshold bits, what the counter stores) and v[] (the updates that reached
 * it): the chain of thresholds from T0 is walked to its wrap (the update at a
 * threshold below a + 1, sc_morris_next_), L updates, and sampled at updates
 * i L / n for i = 0 .. n-1. Deterministic: the cfg alone decides it (some
 * 10^5 float multiplications at 1%, 2.5 10^5 at 0.5%). Returns L.
 */
static inline uint64_t morris_decode_states(const sc_morris_cfg *cfg, uint32_t *tbits, double *v,
                                            unsigned n)
{
	uint64_t len = 0;
	for (uint32_t t = SC_MORRIS_T0_BITS; (t = sc_morris_next_(t, cfg)) != SC_MORRIS_T0_BITS;)
		len++;
	uint32_t t = SC_MORRIS_T0_BITS;
	uint64_t at = 0;
	for (unsigned i = 0; i < n; i++) {
		for (uint64_t want = (uint64_t)i * len / n; at < want; at++)
			t = sc_morris_next_(t, cfg);
		tbits[i] = t;
		v[i] = (double)at;
	}
	return len;
}

#endif /* SC_MORRIS_DECODE_H */
