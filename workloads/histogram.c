/* SPDX-License-Identifier: MIT */
/* histogram.c - the cold paths of the latency histogram (histogram.h). */
#include "histogram.h"

#include <math.h>
#include <string.h>

void lat_hist_init(lat_hist *h)
{
	memset(h, 0, sizeof *h);
	h->min = UINT64_MAX;
}

void lat_hist_merge(lat_hist *dst, const lat_hist *src)
{
	for (unsigned i = 0; i < LAT_HIST_BUCKETS; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t lat_hist_count(const lat_hist *h)
{
	return h->total;
}

uint64_t lat_hist_max(const lat_hist *h)
{
	return h->max;
}

uint64_t lat_hist_min(const lat_hist *h)
{
	return h->total ? h->min : 0;
}

/* Inverse of lat_hist_index: see there for the layout. */
static void bucket_bounds_of_index(unsigned i, uint64_t *lo, uint64_t *hi)
{
	if (i < 2 * LAT_HIST_SUB_COUNT) {
		*lo = *hi = i;
		return;
	}
	unsigned s = (i >> LAT_HIST_SUB_BITS) - 1;
	uint64_t m = i - ((uint64_t)s << LAT_HIST_SUB_BITS); /* in [2^k, 2^(k+1)) */
	*lo = m << s;
	*hi = *lo + ((1ull << s) - 1); /* the last bucket ends at UINT64_MAX */
}

void lat_hist_bucket_bounds(uint64_t v, uint64_t *lo, uint64_t *hi)
{
	bucket_bounds_of_index(lat_hist_index(v), lo, hi);
}

/*
 * The integer midpoint lo + (w-1)/2 rounds down, so the farthest value of
 * the bucket is hi, w/2 away: relative error (w/2)/hi, just under 2^-(k+1).
 */
static uint64_t bucket_value_of_index(unsigned i)
{
	uint64_t lo, hi;
	bucket_bounds_of_index(i, &lo, &hi);
	return lo + (hi - lo) / 2;
}

uint64_t lat_hist_bucket_value(uint64_t v)
{
	return bucket_value_of_index(lat_hist_index(v));
}

/* ceil(p/100 * total) for 0 < p < 100, with p in units of 1e-6 percent. */
static uint64_t percentile_rank(double p, uint64_t total)
{
	const uint64_t full = 100000000; /* 100% in units of 1e-6 percent */
	uint64_t pu = (uint64_t)llround(p * 1e6);
	/* total = q*full + r; every product below stays under 2^64 */
	uint64_t q = total / full, r = total % full;
	return q * pu + (r * pu + full - 1) / full;
}

uint64_t lat_hist_percentile(const lat_hist *h, double p)
{
	if (h->total == 0)
		return 0;
	if (!(p > 0)) /* NaN too */
		return h->min;
	if (p >= 100)
		return h->max;
	uint64_t rank = percentile_rank(p, h->total);
	if (rank == 0) /* p below 1e-6 percent */
		return h->min;
	uint64_t seen = 0;
	for (unsigned i = 0; i < LAT_HIST_BUCKETS; i++) {
		seen += h->counts[i];
		if (seen >= rank) {
			uint64_t v = bucket_value_of_index(i);
			return v < h->min ? h->min : v > h->max ? h->max : v;
		}
	}
	return h->max; /* unreachable while counts sum to total */
}

uint64_t lat_hist_bucket_first(unsigned b)
{
	/* Below 2^(k+1) the bucket is the value; above, b = s * 2^k + (v >> s) with v >> s in [2^k, 2^(k+1)). */
	if (b < 2 * LAT_HIST_SUB_COUNT)
		return b;
	unsigned s = (b >> LAT_HIST_SUB_BITS) - 1;
	return (uint64_t)(b - (s << LAT_HIST_SUB_BITS)) << s;
}
