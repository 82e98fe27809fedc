/* SPDX-License-Identifier: MIT */
/*
 * counter_read.c - the handle API's readings beyond sc_counter_get: the
 * unbiased value of a statistical counter, read_and_reset, signed adds,
 * the fast and exact reads, error bounds and comparisons (sc_counter.h).
 */
#include "counter_priv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * x rounded to an integer at random, up with probability frac(x): unbiased
 * (E = x), unlike rounding to nearest, which at a Morris projection of
 * n + 0.087 (30 increments at a = 5000) always takes 0.087 off. The uniform
 * has 2^-32 resolution.
 */
static uint64_t round_randomly(double x, uint32_t *rng)
{
	double whole = floor(x);
	double u = (double)(sc_xorshift_dice(rng) - 1) * 0x1p-32;
	return (uint64_t)whole + (u < x - whole ? 1 : 0);
}

/*
 * The unbiased projection of Morris threshold bits tbits, exactly: the sum
 * of 1/p over the thresholds the chain passed through from T0, p being the
 * probability with which an update is applied at each (sc_morris_chosen_:
 * floor(T)/MaxInt, 1 at T0). sc_morris_projection's closed form,
 * (MaxInt/T - 1) scale, is that sum only for thresholds that are exact
 * powers of the factor; the stored ones are rounded to float at every step,
 * and the closed form's error at them is a bias that does not average out
 * (about -1e-4 per reading of 2 increments at a = 5000: 2 increments read
 * as 1.9999006 on average). The walk costs one float multiplication and one
 * division per update applied since T0, a ln(1 + n/a) of them at count n
 * (26,500 at n = 10^6, a = 5000). A tbits not on the chain (only a word
 * not made by the increments) takes the closed form once the walk passes it.
 */
static double morris_exact_projection(uint32_t tbits, const sc_morris_cfg *cfg)
{
	if (tbits == SC_MORRIS_ADAPT_ZERO_BITS) /* MorrisAdapt's reset word: nothing counted */
		return 0.0;
	double sum = 0.0;
	float target = sc_morris_float_(tbits);
	for (uint32_t at = SC_MORRIS_T0_BITS; at != tbits;) {
		float t = sc_morris_float_(at);
		if (t < target)
			return sc_morris_projection(tbits, cfg);
		int64_t floor_t = (int64_t)t;
		sum += floor_t >= (int64_t)UINT32_MAX ? 1.0 : (double)UINT32_MAX / (double)floor_t;
		at = sc_morris_next_(at, cfg);
		if (at == SC_MORRIS_T0_BITS) /* wrapped: tbits is not on the chain */
			return sc_morris_projection(tbits, cfg);
	}
	return sum;
}

/*
 * The value of a probabilistic or Serial word w as one reading of
 * read_and_reset: the variant's get, but for Morris and MorrisAdapt, whose
 * get rounds the closed-form projection to the nearest integer (biased: the
 * projections of small counts sit just above integers, and the closed form
 * is off at rounded thresholds), the exact projection rounded at random, so
 * that readings summed over many resets are unbiased.
 */
static uint64_t unbiased_value(const sc_counter *c, const void *w)
{
	const sc_morris_cfg *mcfg = c->t.cfg;
	if (c->id == SC_ID_morris) {
		/* relaxed: w is this call's private copy. */
		uint32_t tbits = atomic_load_explicit(&((const sc_morris_t *)w)->t, memory_order_relaxed);
		return round_randomly(morris_exact_projection(tbits, mcfg), &sc_counter_context_(c)->rng);
	}
	if (c->id == SC_ID_morris_adapt) {
		/* relaxed: as above. */
		uint64_t word = atomic_load_explicit(&((const sc_morris_adapt_t *)w)->w,
		                                     memory_order_relaxed);
		return (uint32_t)word +
		       round_randomly(morris_exact_projection((uint32_t)(word >> 32), mcfg),
		                      &sc_counter_context_(c)->rng);
	}
	return c->t.v->get(w, c->t.cfg);
}

/*
 * A single-word counter: replace its word by what the variant's reset leaves
 * of it (the initial word, or for ScalableCAS and MorrisAdapt the initial
 * value in the mode the word is in: their reset keeps the adaptation), in
 * one CAS, and return the old word's value.
 */
static uint64_t exchange_word(sc_counter *c)
{
	union {
		SC_ATOMIC(uint32_t) w32;
		SC_ATOMIC(uint64_t) w64;
	} fresh;
	const sc_variant *v = c->t.v;
	if (v->size(c->t.cfg) == 4) {
		SC_ATOMIC(uint32_t) *w = c->obj;
		/* relaxed: the word publishes nothing else; the CAS alone is the point. */
		uint32_t old = atomic_load_explicit(w, memory_order_relaxed), next;
		do {
			/* relaxed: fresh is private to this call. */
			atomic_store_explicit(&fresh.w32, old, memory_order_relaxed);
			v->reset(&fresh, c->t.cfg);
			next = atomic_load_explicit(&fresh.w32, memory_order_relaxed);
		} while (!atomic_compare_exchange_weak_explicit(w, &old, next, memory_order_relaxed,
		                                                memory_order_relaxed));
		atomic_store_explicit(&fresh.w32, old, memory_order_relaxed);
	} else {
		SC_ATOMIC(uint64_t) *w = c->obj;
		/* relaxed: as above. */
		uint64_t old = atomic_load_explicit(w, memory_order_relaxed), next;
		do {
			atomic_store_explicit(&fresh.w64, old, memory_order_relaxed);
			v->reset(&fresh, c->t.cfg);
			next = atomic_load_explicit(&fresh.w64, memory_order_relaxed);
		} while (!atomic_compare_exchange_weak_explicit(w, &old, next, memory_order_relaxed,
		                                                memory_order_relaxed));
		atomic_store_explicit(&fresh.w64, old, memory_order_relaxed);
	}
	return unbiased_value(c, &fresh);
}

uint64_t sc_counter_read_and_reset(sc_counter *c)
{
	if (c->t.v->kind != SC_PRECISE)
		return exchange_word(c);
	pthread_mutex_lock(&c->reset_lock);
	/* relaxed: only read_and_reset writes origin, under this lock. */
	uint64_t origin = atomic_load_explicit(&c->origin, memory_order_relaxed);
	uint64_t now = c->t.v->get(c->obj, c->t.cfg);
	/* release: see sc_counter_get. */
	atomic_store_explicit(&c->origin, now, memory_order_release);
	pthread_mutex_unlock(&c->reset_lock);
	return (now - origin) & c->mask;
}

int sc_counter_add_signed(sc_counter *c, int64_t n)
{
	if (c->t.v->kind != SC_PRECISE) {
		errno = ENOTSUP;
		return -1;
	}
	/*
	 * Two's complement: adding (uint64_t)n is adding n modulo 2^64, and every
	 * precise variant adds modulo its range (a power of two), so a negative n
	 * subtracts -n from the value modulo the range.
	 */
	c->t.v->add(c->obj, c->t.cfg, sc_thread_self(), (uint64_t)n);
	return 0;
}

/*
 * A reading of the variant's (op: reading_fast or reading_sum) since the
 * last read_and_reset. Precise variants subtract the origin (acquire: as in
 * sc_counter_get). The origin is a value of get, and a reading with a lag
 * bound may trail it by up to the lag: a reading below the origin by no
 * more than the lag reads 0, which keeps the lag contract (the value is
 * still within the lag above it), where the difference would read as
 * about 2^64.
 */
static uint64_t reading_since_origin(const sc_counter *c, sc_reading r)
{
	const sc_variant *v = c->t.v;
	uint64_t raw = (r == SC_READ_SUM ? v->reading_sum : v->reading_fast)(c->obj, c->t.cfg);
	if (v->kind != SC_PRECISE)
		return raw;
	uint64_t origin = atomic_load_explicit(&c->origin, memory_order_acquire);
	uint64_t d = raw - origin;
	sc_counter_bound b = v->bound(c->t.cfg, r);
	if (b.kind == SC_BOUND_LAG && 0 - d <= b.lag)
		d = 0;
	return d & c->mask;
}

uint64_t sc_counter_get_fast(const sc_counter *c)
{
	return reading_since_origin(c, SC_READ_FAST);
}

uint64_t sc_counter_get_sum(const sc_counter *c)
{
	return reading_since_origin(c, SC_READ_SUM);
}

sc_counter_bound sc_counter_error_bound(const sc_counter *c, sc_reading r)
{
	return c->t.v->bound(c->t.cfg, r == SC_READ_SUM ? SC_READ_SUM : SC_READ_FAST);
}

/* -1, 0 or +1: the sign of v - x. */
static int sign_of(uint64_t v, uint64_t x)
{
	return v < x ? -1 : v > x;
}

int sc_counter_compare(const sc_counter *c, uint64_t x)
{
	sc_counter_bound b = sc_counter_error_bound(c, SC_READ_FAST);
	switch (b.kind) {
	case SC_BOUND_LAG: {
		/*
		 * fast <= begun, so fast > x: +1. completed - lag <= fast, so
		 * fast + lag < x: -1, only where the lag covers every thread
		 * (SC_PROMISE_LAG_BOUNDED: Batched); PerCPUTree's carries in
		 * flight add to it per thread, without bound. Else the sum.
		 */
		uint64_t fast = sc_counter_get_fast(c);
		if (fast > x)
			return 1;
		if ((c->t.v->promises & SC_PROMISE_LAG_BOUNDED) && fast < x && x - fast > b.lag)
			return -1;
		return sign_of(sc_counter_get_sum(c), x);
	}
	case SC_BOUND_RSTDV: {
		/*
		 * Cantelli: for a count n <= x, E - n > x (1 + k r) - n >= k r x >= k sd
		 * (sd <= r n <= r x), so a +1 is wrong with probability at most
		 * 1/(1 + k^2); for n >= x, n - E > n - x (1 - k r) >= k r n >= k sd
		 * (as k r < 1 below; when k r >= 1 there is no -1), likewise.
		 */
		double band = (double)SC_COMPARE_SIGMAS * b.rstdv * (double)x;
		double e = (double)sc_counter_get(c), xd = (double)x;
		if (e > xd + band)
			return 1;
		if (e < xd - band)
			return -1;
		return 0;
	}
	default: /* SC_BOUND_EXACT, SC_BOUND_NONE */
		return sign_of(sc_counter_get(c), x);
	}
}
