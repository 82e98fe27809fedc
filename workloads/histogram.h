/* SPDX-License-Identifier: MIT */
/*
 * histogram.h - log-linear latency histogram for --latency (doc/design.md §5.2; the
 * layout follows Gil Tene's HdrHistogram).
 *
 * Layout. Values are uint64 (ns or ticks). The value range is cut into
 * power-of-two blocks, each split into LAT_HIST_SUB_COUNT = 2^k buckets of
 * equal width. Blocks 0 and 1 hold [0, 2^k) and [2^k, 2^(k+1)) with width 1,
 * so every value below 2^(k+1) = 128 is recorded exactly. Block b >= 2 holds
 * [2^(k+b-1), 2^(k+b)) in buckets of width w = 2^(b-1). The last block ends
 * at UINT64_MAX, so nothing is ever out of range and there is no overflow slot.
 *
 * Error contract. A bucket of width w starts at >= 2^k * w, so any value in
 * it is within w/2 of the bucket's midpoint, a relative error of at most
 * (w/2) / (2^k * w) = 2^-(k+1). k = 6 gives 2^-7 (0.78%), what doc/design.md §5.2
 * asks. Reported values (percentiles) are bucket midpoints, clamped into the
 * recorded [min, max], so they carry the same bound.
 *
 * Space. (64 - k + 1) blocks of 2^k buckets: 59 * 64 = 3776 uint64 counts,
 * 30,232 bytes with total, min and max. Allocate it on the heap.
 *
 * Concurrency. One histogram per worker thread, written only by its owner
 * while it records, merged after the threads are joined: plain loads and
 * stores, no atomics.
 */
#ifndef SC_HISTOGRAM_H
#define SC_HISTOGRAM_H

#include <stdint.h>

#define LAT_HIST_SUB_BITS 6 /* k: 2^-(k+1) = 2^-7 relative error */
#define LAT_HIST_SUB_COUNT (1u << LAT_HIST_SUB_BITS)
#define LAT_HIST_BLOCKS (64 - LAT_HIST_SUB_BITS + 1)
#define LAT_HIST_BUCKETS (LAT_HIST_BLOCKS * LAT_HIST_SUB_COUNT)

typedef struct lat_hist {
	uint64_t total; /* observations recorded */
	uint64_t min;   /* exact; UINT64_MAX while empty */
	uint64_t max;   /* exact; 0 while empty */
	uint64_t counts[LAT_HIST_BUCKETS];
} lat_hist;

/*
 * Bucket index of v. With s = max(0, bit_width(v) - (k+1)), the bucket is
 * s * 2^k + (v >> s): for v < 2^(k+1) that is v itself (the two exact
 * blocks); above, v >> s lies in [2^k, 2^(k+1)) and picks one of the 2^k
 * buckets of block s + 1. OR-ing in 2^(k+1) - 1 gives the max() for free
 * and keeps the argument of clz nonzero. No division, no data branch.
 */
static inline unsigned lat_hist_index(uint64_t v)
{
	unsigned s = (unsigned)(64 - (LAT_HIST_SUB_BITS + 1)) -
		     (unsigned)__builtin_clzll(v | ((2ull << LAT_HIST_SUB_BITS) - 1));
	return (s << LAT_HIST_SUB_BITS) + (unsigned)(v >> s);
}

void lat_hist_init(lat_hist *h);

/* The hot path: owner thread only. min/max compile to conditional moves. */
static inline void lat_hist_record(lat_hist *h, uint64_t v)
{
	h->counts[lat_hist_index(v)]++;
	h->total++;
	h->min = v < h->min ? v : h->min;
	h->max = v > h->max ? v : h->max;
}

/* dst += src. Only once neither is being recorded into. */
void lat_hist_merge(lat_hist *dst, const lat_hist *src);

/*
 * Value at percentile p in [0,100]: the representative value (midpoint,
 * clamped into [min,max]) of the bucket holding the ceil(p/100 * total)-th
 * smallest observation; p=100 returns max exactly, p=0 min exactly; 0 when
 * empty. p is read to 1e-6 of a percent and the rank computed in integers,
 * so p=99.9 of 100000 observations is the 99900th exactly (floating point
 * would make it 99900.00000000001, rounded up to the 99901st). p below 0
 * or NaN counts as 0, above 100 as 100.
 */
uint64_t lat_hist_percentile(const lat_hist *h, double p);

uint64_t lat_hist_count(const lat_hist *h);
uint64_t lat_hist_max(const lat_hist *h); /* 0 when empty */
uint64_t lat_hist_min(const lat_hist *h); /* 0 when empty */

/* Bucket bounds, for tests and plots: [lo, hi] inclusive of the bucket holding v. */
void lat_hist_bucket_bounds(uint64_t v, uint64_t *lo, uint64_t *hi);

/* The smallest value recorded in bucket b (b < LAT_HIST_BUCKETS): the inverse of lat_hist_index. */
uint64_t lat_hist_bucket_first(unsigned b);
/* Representative value of the bucket holding v: its (integer) midpoint. */
uint64_t lat_hist_bucket_value(uint64_t v);

#endif /* SC_HISTOGRAM_H */
