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

uint64_t sc_counter_get_fast(const sc_counter *c)
{
	if (c->id != SC_ID_percpu_tree)
		return sc_counter_get(c);
	/* acquire: as in sc_counter_get; the root is one load (sc_tree.h). */
	uint64_t origin = atomic_load_explicit(&c->origin, memory_order_acquire);
	uint64_t d = sc_percpu_tree_get_fast(c->obj, c->t.cfg, NULL) - origin;
	/*
	 * origin is an exact sum and the root trails the exact sum by up to
	 * the width: a root below the origin by no more than the width reads
	 * 0, which keeps the lag contract (the value is still within the
	 * width above it) where the difference would read as about 2^64.
	 */
	if (0 - d <= ((const sc_percpu_tree_cfg *)c->t.cfg)->width)
		d = 0;
	return d & c->mask;
}

uint64_t sc_counter_get_sum(const sc_counter *c)
{
	if (c->id != SC_ID_batched)
		return sc_counter_get(c);
	const sc_batched_t *b = c->obj;
	const sc_batched_cfg *cfg = c->t.cfg;
	/* acquire: as in sc_counter_get. */
	uint64_t origin = atomic_load_explicit(&c->origin, memory_order_acquire);
	/*
	 * The shared word first, with acquire: it pairs with the release of the
	 * hand-over (sc_batched_hand_over_, which empties the local count before
	 * adding the batch), so a batch seen here is seen emptied in the local
	 * counts below and never counted twice; a batch handed over after this
	 * load is missed or still read locally, never both.
	 */
	uint64_t shared = atomic_load_explicit(&b->shared, memory_order_acquire);
	uint64_t held = 0;
	/*
	 * relaxed: each slot is an atomic its owner writes (no data race); the
	 * exactness the header promises needs the caller's synchronisation with
	 * the updating threads, which makes their last stores visible here.
	 */
	for (uint32_t i = 0; i < cfg->threads; i++) {
		uint64_t v = atomic_load_explicit(&b->local[i].v, memory_order_relaxed);
		held += v & SC_BATCHED_HANDING_ ? 0 : v; /* marked: being handed over */
	}
	return (shared + held - origin) & c->mask;
}

sc_counter_bound sc_counter_error_bound(const sc_counter *c, sc_reading r)
{
	sc_counter_bound b = {SC_BOUND_EXACT, 0, 0, 0.0};
	const void *cfg = c->t.cfg;
	switch (c->id) {
	case SC_ID_serial:
		b.kind = SC_BOUND_NONE;
		break;
	case SC_ID_batched:
		if (r != SC_READ_SUM) {
			const sc_batched_cfg *bc = cfg;
			b.kind = SC_BOUND_LAG;
			b.lag_per_thread = bc->batch - 1;
			b.lag = (uint64_t)(bc->batch - 1) * bc->threads;
		}
		break;
	case SC_ID_percpu_tree:
		if (r != SC_READ_SUM) { /* the root: [fast, fast + width] (sc_tree.h) */
			const sc_percpu_tree_cfg *tc = cfg;
			b.kind = SC_BOUND_LAG;
			b.lag = tc->width;
			b.lag_per_thread = tc->carry_max;
		}
		break;
	case SC_ID_morris:
	case SC_ID_morris_adapt:
		b.kind = SC_BOUND_RSTDV;
		b.rstdv = 1.0 / sqrt(2.0 * ((const sc_morris_cfg *)cfg)->a);
		break;
	case SC_ID_bfp_dup:
	case SC_ID_bfp_csup: /* sc_bfp.h: CSUP's exponent never exceeds DUP's at the same value */
		b.kind = SC_BOUND_RSTDV;
		b.rstdv = sqrt(3.0 / (4.0 * ((const sc_bfp_cfg *)cfg)->mant_threshold - 3.0));
		break;
	case SC_ID_scalable:
	case SC_ID_scalable_cas:
	case SC_ID_scalable_capped: {
		const sc_scalable_cfg *sc = cfg;
		if (sc->dotnet) {
			b.kind = SC_BOUND_NONE;
			break;
		}
		b.kind = SC_BOUND_RSTDV;
		b.rstdv = sqrt(3.0 / ldexp(1.0, (int)sc->threshold + 2));
		break;
	}
	default:
		if (c->t.v->kind != SC_PRECISE)
			b.kind = SC_BOUND_NONE; /* a variant added later without a stated bound */
		break;
	}
	return b;
}

/* -1, 0 or +1: the sign of v - x. */
static int sign_of(uint64_t v, uint64_t x)
{
	return v < x ? -1 : v > x;
}

int sc_counter_compare(const sc_counter *c, uint64_t x)
{
	sc_counter_bound b = sc_counter_error_bound(c, SC_READ_FAST);
	uint64_t fast = sc_counter_get(c);
	switch (b.kind) {
	case SC_BOUND_LAG:
		/*
		 * fast <= begun, and completed before the call <= fast + lag
		 * (Batched's get is its fast reading; PerCPUTree's is exact, its
		 * fast reading the root).
		 */
		fast = sc_counter_get_fast(c);
		if (fast > x)
			return 1;
		if (fast < x && x - fast > b.lag)
			return -1;
		return sign_of(sc_counter_get_sum(c), x);
	case SC_BOUND_RSTDV: {
		/*
		 * Cantelli: for a count n <= x, E - n > x (1 + k r) - n >= k r x >= k sd
		 * (sd <= r n <= r x), so a +1 is wrong with probability at most
		 * 1/(1 + k^2); for n >= x, n - E > n - x (1 - k r) >= k r n >= k sd
		 * (as k r < 1 below; when k r >= 1 there is no -1), likewise.
		 */
		double band = (double)SC_COMPARE_SIGMAS * b.rstdv * (double)x;
		double e = (double)fast, xd = (double)x;
		if (e > xd + band)
			return 1;
		if (e < xd - band)
			return -1;
		return 0;
	}
	default: /* SC_BOUND_EXACT, SC_BOUND_NONE */
		return sign_of(fast, x);
	}
}
