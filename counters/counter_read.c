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
 * The value of a probabilistic or Serial word w (this call's private copy)
 * as one reading of read_and_reset: the variant's get, or its unbiased
 * value where the family gives one (Morris and MorrisAdapt: sc_morris.h),
 * drawing from the calling thread's stream.
 */
static uint64_t unbiased_value(const sc_counter *c, const void *w)
{
	const sc_variant *v = c->t.v;
	if (v->hooks.value_unbiased)
		return v->hooks.value_unbiased(w, c->t.cfg, &sc_counter_context_(c)->rng);
	return v->get(w, c->t.cfg);
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

uint64_t sc_counter_get_precise(const sc_counter *c)
{
	return reading_since_origin(c, SC_READ_SUM);
}

/* v + d, or UINT64_MAX where that would wrap. */
static uint64_t add_saturated(uint64_t v, uint64_t d)
{
	return d > UINT64_MAX - v ? UINT64_MAX : v + d;
}

/*
 * The estimate e's interval (sc_counter.h): floor(e / (1 + k r)) and
 * ceil(e / (1 - k r)), UINT64_MAX when k r >= 1 or the quotient is beyond
 * 2^64 (2^64 is exactly representable; a double at or above it does not
 * convert).
 */
static void rstdv_interval(sc_counter_approx *a, double rstdv)
{
	double kr = (double)SC_COMPARE_SIGMAS * rstdv, e = (double)a->value;
	a->lo = (uint64_t)(e / (1.0 + kr));
	a->hi = UINT64_MAX;
	if (kr >= 1.0)
		return;
	double h = e / (1.0 - kr);
	if (h >= 18446744073709551616.0)
		return;
	a->hi = (uint64_t)h;
	if ((double)a->hi < h)
		a->hi++;
}

sc_counter_approx sc_counter_get_approx(const sc_counter *c)
{
	sc_counter_bound b = sc_counter_error_bound(c, SC_READ_FAST);
	sc_counter_approx a;
	a.value = sc_counter_get_fast(c);
	a.kind = b.kind;
	a.lo = a.value;
	a.hi = a.value;
	switch (b.kind) {
	case SC_BOUND_LAG:
		/* completed - lag <= value <= begun (the lag bounded: Batched) */
		a.hi = (c->t.v->promises & SC_PROMISE_LAG_BOUNDED) ? add_saturated(a.value, b.lag) :
		                                                     UINT64_MAX;
		break;
	case SC_BOUND_RSTDV:
		rstdv_interval(&a, b.rstdv);
		break;
	case SC_BOUND_NONE:
		a.lo = 0;
		a.hi = UINT64_MAX;
		break;
	default: /* SC_BOUND_EXACT: completed <= value <= begun */
		break;
	}
	return a;
}

/* -1, 0 or +1: the sign of v - x. */
static int sign_of(uint64_t v, uint64_t x)
{
	return v < x ? -1 : v > x;
}

/* sc_counter_compare; unsure: its answer inside a probabilistic variant's band. */
static int compare(const sc_counter *c, uint64_t x, int unsure)
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
		/* E = 0 at x = 0: no count (every variant's first ones are exact) */
		return x == 0 ? 0 : unsure;
	}
	default: /* SC_BOUND_EXACT, SC_BOUND_NONE */
		return sign_of(sc_counter_get(c), x);
	}
}

int sc_counter_compare(const sc_counter *c, uint64_t x)
{
	return compare(c, x, 0);
}

int sc_counter_compare_sure(const sc_counter *c, uint64_t x)
{
	return compare(c, x, SC_COMPARE_UNSURE);
}
