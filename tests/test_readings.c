/* SPDX-License-Identifier: MIT */
/*
 * test_readings.c - the readings named by their promise (TAP), for every
 * variant of the variant table through the handle API:
 *   - sc_counter_get_precise is sc_counter_get_sum, and sc_counter_get_approx's
 *     value sc_counter_get_fast, its kind the bound's of SC_READ_FAST;
 *   - the interval per kind, as sc_counter.h states it: EXACT a point; LAG
 *     from the reading to the reading plus the lag where the lag is bounded
 *     (Batched, with threads holding increments back), open above where it
 *     is not (PerCPUTree); RSTDV floor(e / (1 + k r)) and ceil(e / (1 - k r))
 *     to the unit, or open above when k r >= 1 (Scalable at threshold 4);
 *     NONE everything;
 *   - the count inside the interval: 10 increments (every variant counts its
 *     first ones exactly) and 10^5. The probabilistic variants' draws come
 *     from the handle API's fixed context seed (the main thread's context is
 *     the process's first), so the test is deterministic; had the seed been
 *     random, each 10^5 check would fail with probability at most 2/101 by
 *     Cantelli's inequality, the interval's guarantee, and below 1e-20 for
 *     their near-normal estimates (10 standard deviations).
 * The interval under concurrent writers is checked by test_conformance.
 */
#include <scounters/scounters.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "tap.h"

/* Does a hold the count n, with the interval its kind promises for bound b? */
static int interval_as_promised(const sc_variant *v, const sc_counter_bound *b, sc_counter_approx a)
{
	double e = (double)a.value, kr = (double)SC_COMPARE_SIGMAS * b->rstdv;
	switch (a.kind) {
	case SC_BOUND_EXACT:
		return a.lo == a.value && a.hi == a.value;
	case SC_BOUND_LAG:
		if (!(v->promises & SC_PROMISE_LAG_BOUNDED))
			return a.lo == a.value && a.hi == UINT64_MAX;
		return a.lo == a.value && a.hi == a.value + b->lag;
	case SC_BOUND_RSTDV:
		/* lo the floor of e / (1 + k r); hi the ceiling of e / (1 - k r) */
		if ((double)a.lo * (1.0 + kr) > e || ((double)a.lo + 1.0) * (1.0 + kr) <= e)
			return 0;
		if (kr >= 1.0)
			return a.hi == UINT64_MAX;
		return ((double)a.hi - 1.0) * (1.0 - kr) < e && (double)a.hi * (1.0 - kr) >= e;
	default:
		return a.lo == 0 && a.hi == UINT64_MAX;
	}
}

/* n increments of variant v (params), then its readings against their promises. */
static void check(const sc_variant *v, const char *params, uint64_t n)
{
	sc_err err;
	sc_counter *c = sc_counter_new(v->name, params, &err);
	if (!c) {
		tap_ok(0, "%s [%s]: sc_counter_new: %s", v->name, params, err.msg);
		return;
	}
	sc_counter_add(c, n);
	sc_counter_bound b = sc_counter_error_bound(c, SC_READ_FAST);
	sc_counter_approx a = sc_counter_get_approx(c);
	tap_ok(a.value == sc_counter_get_fast(c) && a.kind == b.kind &&
	               sc_counter_get_precise(c) == sc_counter_get_sum(c),
	       "%s [%s]: get_approx's value is get_fast's (%llu), its kind the bound's (%d); "
	       "get_precise is get_sum (%llu)",
	       v->name, params, (unsigned long long)a.value, (int)a.kind,
	       (unsigned long long)sc_counter_get_precise(c));
	int inside = a.lo <= n && n <= a.hi;
	tap_ok(interval_as_promised(v, &b, a) && (inside || a.kind == SC_BOUND_NONE),
	       "%s [%s]: %llu increments in [%llu, %llu] (kind %d, lag %llu, rstdv %g)", v->name,
	       params, (unsigned long long)n, (unsigned long long)a.lo, (unsigned long long)a.hi,
	       (int)a.kind, (unsigned long long)b.lag, b.rstdv);
	sc_counter_free(c);
}

/* Batched with threads holding increments back: the interval's hi covers them. */
static sc_counter *held;

static void *hold_some(void *p)
{
	(void)p;
	for (int i = 0; i < 1000; i++)
		sc_counter_inc(held);
	return NULL;
}

static void held_back(void)
{
	sc_err err;
	held = sc_counter_new("Batched", "batch=64", &err);
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, hold_some, NULL))
			return;
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	/* joined: every increment completed; the exits flushed what they held */
	sc_counter_approx a = sc_counter_get_approx(held);
	tap_ok(a.lo <= 3000 && 3000 <= a.hi && a.value == 3000,
	       "Batched after its threads exit: 3000 in [%llu, %llu]", (unsigned long long)a.lo,
	       (unsigned long long)a.hi);
	for (int i = 0; i < 1000; i++)
		sc_counter_inc(held);
	a = sc_counter_get_approx(held);
	tap_ok(a.value < 4000 && a.lo <= 4000 && 4000 <= a.hi,
	       "Batched, this thread holding %llu back: 4000 in [%llu, %llu]",
	       (unsigned long long)(4000 - a.value), (unsigned long long)a.lo,
	       (unsigned long long)a.hi);
	sc_counter_free(held);
}

int main(void)
{
	tap_plan_lazy();
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		check(&sc_variants[i], "", 10);
		check(&sc_variants[i], "", 100000);
	}
	check(sc_variant_find("Scalable"), "threshold=4", 100000);
	check(sc_variant_find("PerCPUTree"), "batch=8", 100000);
	held_back();
	return tap_done();
}
