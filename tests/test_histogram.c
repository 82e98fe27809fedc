/* SPDX-License-Identifier: MIT */
/*
 * test_histogram.c - the latency histogram's layout, error bound, merge and
 * percentiles (workloads/histogram.h). Fixed seeds: deterministic.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "histogram.h"
#include "tap.h"

/* Marsaglia xorshift64 (13,7,17); any nonzero seed. */
static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Uniform in (0, 1]. */
static double uniform01(uint64_t *s)
{
	return ((double)(xorshift64(s) >> 11) + 1.0) * 0x1p-53;
}

/* Relative error bound of the contract: |rep - v| <= v * 2^-7, in integers. */
static bool within_bound(uint64_t rep, uint64_t v)
{
	uint64_t err = rep > v ? rep - v : v - rep;
	return err <= v >> 7; /* err is an integer, so err <= v/128 iff err <= floor(v/128) */
}

static double rel_err(uint64_t rep, uint64_t v)
{
	return v ? fabs((double)rep - (double)v) / (double)v : (rep ? INFINITY : 0);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/*
 * Walk every bucket from 0 up: each starts one past the previous one's end,
 * holds exactly the values of its bounds, and the last ends at UINT64_MAX.
 * Per block: 2^k buckets of equal power-of-two width, starting at a power
 * of two and at least 2^k widths above 0.
 */
static void test_buckets_contiguous_cover_u64(void)
{
	bool ok = true;
	unsigned buckets = 0;
	uint64_t v = 0, lo, hi;
	for (;;) {
		lat_hist_bucket_bounds(v, &lo, &hi);
		unsigned i = lat_hist_index(v);
		uint64_t lo2, hi2;
		lat_hist_bucket_bounds(hi, &lo2, &hi2);
		if (lo != v || hi < lo || i != buckets || lat_hist_index(hi) != i ||
		    lo2 != lo || hi2 != hi || i >= LAT_HIST_BUCKETS) {
			tap_diag("bucket %u: value %llu -> [%llu, %llu], index %u", buckets,
				 (unsigned long long)v, (unsigned long long)lo,
				 (unsigned long long)hi, i);
			ok = false;
			break;
		}
		buckets++;
		if (hi == UINT64_MAX)
			break;
		v = hi + 1;
	}
	tap_ok(ok && buckets == LAT_HIST_BUCKETS,
	       "buckets_contiguous_cover_0_to_u64max (%u buckets walked, %u expected)",
	       buckets, (unsigned)LAT_HIST_BUCKETS);

	bool blocks_ok = true;
	for (unsigned b = 0; b < LAT_HIST_BLOCKS && blocks_ok; b++) {
		uint64_t start = b == 0 ? 0 : (uint64_t)LAT_HIST_SUB_COUNT << (b - 1);
		uint64_t width = b < 2 ? 1 : 1ull << (b - 1);
		for (unsigned j = 0; j < LAT_HIST_SUB_COUNT; j++) {
			uint64_t want_lo = start + j * width;
			lat_hist_bucket_bounds(want_lo, &lo, &hi);
			if (lo != want_lo || hi - lo + 1 != width ||
			    lat_hist_index(want_lo) != b * LAT_HIST_SUB_COUNT + j ||
			    (width > 1 && lo / width < LAT_HIST_SUB_COUNT)) {
				tap_diag("block %u bucket %u: [%llu, %llu], width %llu expected", b, j,
					 (unsigned long long)lo, (unsigned long long)hi,
					 (unsigned long long)width);
				blocks_ok = false;
				break;
			}
		}
		/* the block boundary itself: last value of the block, first of the next */
		if (b + 1 < LAT_HIST_BLOCKS) {
			uint64_t next = (uint64_t)LAT_HIST_SUB_COUNT << b;
			blocks_ok &= lat_hist_index(next - 1) == (b + 1) * LAT_HIST_SUB_COUNT - 1;
			blocks_ok &= lat_hist_index(next) == (b + 1) * LAT_HIST_SUB_COUNT;
		}
	}
	tap_ok(blocks_ok, "blocks_hold_2^k_equal_buckets_of_width_2^(b-1) (k = %d, %d blocks)",
	       LAT_HIST_SUB_BITS, LAT_HIST_BLOCKS);
	tap_ok(lat_hist_index(UINT64_MAX) == LAT_HIST_BUCKETS - 1,
	       "u64max_in_last_bucket");
}

static void test_small_values_exact(void)
{
	bool ok = true;
	uint64_t lo, hi;
	for (uint64_t v = 0; v < 2 * LAT_HIST_SUB_COUNT; v++) {
		lat_hist_bucket_bounds(v, &lo, &hi);
		ok &= lo == v && hi == v && lat_hist_bucket_value(v) == v;
	}
	lat_hist_bucket_bounds(2 * LAT_HIST_SUB_COUNT, &lo, &hi);
	ok &= hi == lo + 1; /* the first inexact bucket */
	tap_ok(ok, "values_below_2*2^k_exact (< %u)", 2 * LAT_HIST_SUB_COUNT);

	lat_hist h;
	lat_hist_init(&h);
	for (uint64_t v = 0; v < 2 * LAT_HIST_SUB_COUNT; v++)
		lat_hist_record(&h, v);
	bool pct_ok = true;
	for (uint64_t r = 1; r <= 2 * LAT_HIST_SUB_COUNT; r++) /* r-th smallest is r-1 */
		pct_ok &= lat_hist_percentile(&h, 100.0 * (double)r / (2 * LAT_HIST_SUB_COUNT)) == r - 1;
	tap_ok(pct_ok, "percentiles_of_small_values_exact");
}

/* Checks v and accumulates the worst relative error seen. */
static bool check_value(uint64_t v, double *worst)
{
	uint64_t lo, hi, rep = lat_hist_bucket_value(v);
	lat_hist_bucket_bounds(v, &lo, &hi);
	double e = rel_err(rep, v);
	if (e > *worst)
		*worst = e;
	bool ok = lo <= v && v <= hi && lo <= rep && rep <= hi && within_bound(rep, v);
	if (!ok)
		tap_diag("value %llu: bucket [%llu, %llu], representative %llu, error %g",
			 (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi,
			 (unsigned long long)rep, e);
	return ok;
}

static void test_relative_error_bound(void)
{
	const double bound = 0x1p-7;
	double worst = 0;
	bool ok = true;
	for (uint64_t v = 0; v < (1u << 20) && ok; v++)
		ok = check_value(v, &worst);
	tap_ok(ok, "relative_error_le_2^-7_all_values_below_2^20 (worst %.6f, bound %.6f)",
	       worst, bound);

	worst = 0;
	ok = check_value(UINT64_MAX, &worst);
	for (unsigned e = 0; e < 64; e++) {
		uint64_t p2 = 1ull << e;
		ok &= check_value(p2, &worst);
		ok &= check_value(p2 - 1, &worst);
		ok &= check_value(p2 + 1, &worst);
	}
	tap_ok(ok, "relative_error_le_2^-7_powers_of_two_pm1_and_u64max (worst %.6f)", worst);

	/* random bits shifted by a random amount: spread over all 64 magnitudes */
	uint64_t s = 0x9e3779b97f4a7c15ull;
	worst = 0;
	ok = true;
	for (unsigned i = 0; i < 2000000 && ok; i++) {
		uint64_t x = xorshift64(&s);
		ok = check_value(x >> (xorshift64(&s) & 63), &worst);
	}
	tap_ok(ok, "relative_error_le_2^-7_random_u64 (2e6 values, worst %.6f)", worst);
	/* the bound is tight: first values of inexact blocks come close to it */
	tap_ok(worst > bound * 0.9 && worst <= bound, "relative_error_bound_is_tight (%.6f of %.6f)",
	       worst, bound);
}

static bool hist_equal(const lat_hist *a, const lat_hist *b)
{
	return a->total == b->total && lat_hist_min(a) == lat_hist_min(b) &&
	       lat_hist_max(a) == lat_hist_max(b) &&
	       memcmp(a->counts, b->counts, sizeof a->counts) == 0;
}

static void test_merge_equals_single(void)
{
	static lat_hist parts[3], merged, single;
	uint64_t s = 12345;
	lat_hist_init(&single);
	for (int p = 0; p < 3; p++)
		lat_hist_init(&parts[p]);
	for (unsigned i = 0; i < 300000; i++) {
		uint64_t v = xorshift64(&s) >> (xorshift64(&s) & 63);
		/* part 2 stays empty; part 1 only gets large values */
		int p = v < 1000000 ? 0 : (int)(i & 1);
		lat_hist_record(&parts[p], v);
		lat_hist_record(&single, v);
	}
	lat_hist_init(&merged);
	for (int p = 0; p < 3; p++)
		lat_hist_merge(&merged, &parts[p]);
	tap_ok(hist_equal(&merged, &single), "merge_equals_recording_all_in_one");

	lat_hist again = parts[1];
	lat_hist_merge(&again, &parts[2]); /* empty into nonempty */
	tap_ok(hist_equal(&again, &parts[1]), "merge_of_empty_changes_nothing");
	lat_hist empty;
	lat_hist_init(&empty);
	lat_hist_merge(&empty, &parts[1]); /* nonempty into empty */
	tap_ok(hist_equal(&empty, &parts[1]), "merge_into_empty_copies");
}

static void test_empty(void)
{
	lat_hist h;
	lat_hist_init(&h);
	bool ok = lat_hist_count(&h) == 0 && lat_hist_max(&h) == 0 && lat_hist_min(&h) == 0;
	const double ps[] = {0, 50, 99.9, 100};
	for (unsigned i = 0; i < 4; i++)
		ok &= lat_hist_percentile(&h, ps[i]) == 0;
	tap_ok(ok, "empty_histogram_returns_0");
}

enum { NVALUES = 100000 };

/*
 * Percentiles against the exact order statistic: the rank-th smallest of
 * the sorted values with rank = ceil(p/100 * n), computed in integers from
 * p in tenths of a percent. The histogram must give exactly the defined
 * value (that bucket's midpoint clamped into [min, max]; min at p=0, max at
 * p=100) and so be within 2^-7 of the order statistic.
 */
static void check_percentiles(const char *dist, uint64_t *vals)
{
	static lat_hist h;
	lat_hist_init(&h);
	for (unsigned i = 0; i < NVALUES; i++)
		lat_hist_record(&h, vals[i]);
	qsort(vals, NVALUES, sizeof vals[0], cmp_u64);
	uint64_t min = vals[0], max = vals[NVALUES - 1];

	static const unsigned permille[] = {0, 500, 900, 990, 999, 1000};
	bool ok = lat_hist_count(&h) == NVALUES;
	for (unsigned j = 0; j < sizeof permille / sizeof permille[0]; j++) {
		uint64_t rank = ((uint64_t)permille[j] * NVALUES + 999) / 1000;
		uint64_t exact = vals[rank ? rank - 1 : 0];
		uint64_t want = lat_hist_bucket_value(exact);
		want = want < min ? min : want > max ? max : want;
		if (permille[j] == 0)
			want = min;
		if (permille[j] == 1000)
			want = max;
		uint64_t got = lat_hist_percentile(&h, permille[j] / 10.0);
		bool good = got == want && within_bound(got, exact);
		if (!good)
			tap_diag("%s p%.1f: got %llu, defined %llu, exact order statistic %llu", dist,
				 permille[j] / 10.0, (unsigned long long)got,
				 (unsigned long long)want, (unsigned long long)exact);
		ok &= good;
	}
	tap_ok(ok, "percentiles_within_2^-7_of_order_statistic_%s (p50 %llu, p99.9 %llu, max %llu)",
	       dist, (unsigned long long)lat_hist_percentile(&h, 50),
	       (unsigned long long)lat_hist_percentile(&h, 99.9),
	       (unsigned long long)lat_hist_percentile(&h, 100));
	tap_ok(lat_hist_percentile(&h, 100) == max && lat_hist_max(&h) == max &&
		       lat_hist_min(&h) == min,
	       "p100_is_exact_max_%s", dist);

	bool mono = true;
	uint64_t prev = 0;
	for (int t = 0; t <= 1000; t++) {
		uint64_t v = lat_hist_percentile(&h, t / 10.0);
		mono &= v >= prev && v >= min && v <= max;
		prev = v;
	}
	tap_ok(mono, "percentiles_nondecreasing_within_min_max_%s", dist);
}

static void test_percentiles(void)
{
	static uint64_t vals[NVALUES];
	uint64_t s = 0x2545f4914f6cdd1dull;

	for (unsigned i = 0; i < NVALUES; i++) /* a floor plus uniform noise */
		vals[i] = 20 + xorshift64(&s) % 5000;
	check_percentiles("uniform", vals);

	for (unsigned i = 0; i < NVALUES; i++) /* exponential, mean 300 */
		vals[i] = 40 + (uint64_t)(-300.0 * log(uniform01(&s)));
	check_percentiles("exponential", vals);

	for (unsigned i = 0; i < NVALUES; i++) /* Pareto, alpha 1.1: heavy tail, p99.9 ~300x p50 */
		vals[i] = (uint64_t)(100.0 * pow(uniform01(&s), -1.0 / 1.1));
	check_percentiles("pareto", vals);

	for (unsigned i = 0; i < NVALUES; i++)
		vals[i] = 12345;
	check_percentiles("constant", vals);

	for (unsigned i = 0; i < NVALUES; i++) /* all 64 magnitudes, u64max included */
		vals[i] = i == 0 ? UINT64_MAX : xorshift64(&s) >> (xorshift64(&s) & 63);
	check_percentiles("log_uniform_u64", vals);
}

/* lat_hist_bucket_first inverts lat_hist_index: every bucket starts where the previous ends. */
static void test_bucket_first(void)
{
	unsigned bad = 0;
	for (unsigned b = 0; b < LAT_HIST_BUCKETS; b++) {
		uint64_t v = lat_hist_bucket_first(b), lo, hi;
		lat_hist_bucket_bounds(v, &lo, &hi);
		if (lat_hist_index(v) != b || lo != v || (b > 0 && lat_hist_index(v - 1) != b - 1))
			bad++;
	}
	tap_ok(bad == 0, "bucket_first: the first value of each of %d buckets (%u wrong)",
	       LAT_HIST_BUCKETS, bad);
	tap_ok(lat_hist_index(UINT64_MAX) == LAT_HIST_BUCKETS - 1 &&
	           lat_hist_bucket_first(LAT_HIST_BUCKETS - 1) > UINT64_MAX / 2,
	       "bucket_first: the last bucket holds UINT64_MAX");
}

int main(void)
{
	tap_plan_lazy();
	tap_diag("k = %d: %d blocks x %u buckets = %d buckets, %zu bytes per histogram",
		 LAT_HIST_SUB_BITS, LAT_HIST_BLOCKS, LAT_HIST_SUB_COUNT, LAT_HIST_BUCKETS,
		 sizeof(lat_hist));
	test_buckets_contiguous_cover_u64();
	test_small_values_exact();
	test_relative_error_bound();
	test_merge_equals_single();
	test_empty();
	test_percentiles();
	test_bucket_first();
	return tap_done();
}
