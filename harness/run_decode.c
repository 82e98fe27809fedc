/* SPDX-License-Identifier: MIT */
/*
 * run_decode.c - what reading a Morris threshold costs, from p(v) and from v
 * (decode_p_ns, decode_v_ns: Dice §3.2's "about 5 times faster";
 * morris_decode.h has the two readings). For Morris and MorrisAdapt, in a
 * run with a reader (the read-cost experiment), after the phase.
 *
 * Where: on the main thread once the workers and the reader are joined, so
 * nothing of it falls in the measured phase or disturbs its throughput (it
 * lasts some 5 ms). The counter's own state is not what is decoded: that is
 * one value, at wherever the run left it; the states are DECODE_STATES
 * thresholds spread over the counter's whole range (morris_decode_states),
 * from the run's cfg.
 *
 * How: a sample is one pass of DECODE_STATES decodes timed with the tick
 * clock, less one tick pair's overhead, as the reader's samples are
 * (run_read.c). As there, each decode's input index depends on the previous
 * result (its bits masked to zero), so the processor runs the decodes one
 * after another and the compiler can neither vectorise nor hoist them: the
 * figure is what one read waits for. The chain costs a few cycles a decode
 * (the result's bits to an index, a load); a third pass, whose "decode" is
 * the load alone, times it, and each figure is the median over
 * DECODE_SAMPLES samples of (pass - that pass) over DECODE_STATES. The three
 * passes of a sample follow each other, so a preemption or a frequency change
 * meets them alike.
 */
#include "run_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "listing.h"
#include "morris_decode.h"

/* States per pass (a power of two: the index wraps by a mask); 48 KB of them. */
#define DECODE_STATES 4096u
/* Samples per figure (the median is the 16th). */
#define DECODE_SAMPLES 31u

/* Zero, read through a volatile so that the compiler cannot fold the chain (time_pass). */
static volatile uint64_t decode_chain_mask;

enum decode_kind { DECODE_CHAIN, DECODE_FROM_P, DECODE_FROM_V };

typedef struct decode_set {
	uint32_t tbits[DECODE_STATES];
	double v[DECODE_STATES];
	const sc_morris_cfg *cfg;
	morris_v_decoder dv;
} decode_set;

static inline uint64_t bits_of(double x)
{
	uint64_t b;
	memcpy(&b, &x, sizeof b);
	return b;
}

/* Ticks of one pass of DECODE_STATES decodes of kind, less a tick pair's overhead. */
static uint64_t time_pass(const decode_set *ds, enum decode_kind kind, uint64_t overhead,
                          volatile double *sink)
{
	uint64_t mask = decode_chain_mask;
	double x = 0, s = 0;
	uint64_t t0 = clk_ticks();
	for (uint64_t i = 0; i < DECODE_STATES; i++) {
		uint64_t j = (i + (bits_of(x) & mask)) & (DECODE_STATES - 1);
		if (kind == DECODE_FROM_P)
			x = sc_morris_projection(ds->tbits[j], ds->cfg);
		else if (kind == DECODE_FROM_V)
			x = morris_n_of_v(ds->v[j], &ds->dv);
		else
			x = ds->v[j];
		s += x;
	}
	uint64_t d = clk_ticks() - t0;
	*sink += s;
	return d > overhead ? d - overhead : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_of(double *x, unsigned n)
{
	qsort(x, n, sizeof x[0], cmp_double);
	return x[n / 2];
}

bool run_has_morris_threshold(const sc_variant *v)
{
	/* the morris family: Morris and MorrisAdapt, whose cfg is a sc_morris_cfg */
	return strcmp(listing_family(v), "morris") == 0;
}

void run_time_decodes(const sc_table *t, double *p_ns, double *v_ns)
{
	*p_ns = *v_ns = NAN;
	if (!run_has_morris_threshold(t->v))
		return;
	decode_set *ds = malloc(sizeof *ds);
	if (!ds)
		return;
	ds->cfg = t->cfg; /* MorrisAdapt's cfg is a sc_morris_cfg too (sc_morris.h) */
	ds->dv = morris_v_decoder_of(ds->cfg);
	morris_decode_states(ds->cfg, ds->tbits, ds->v, DECODE_STATES);
	uint64_t overhead = clk_overhead_ticks();
	double ns = clk_ns_per_tick() / DECODE_STATES, p[DECODE_SAMPLES], v[DECODE_SAMPLES];
	volatile double sink = 0;
	/* one untimed pass of each first: pow's first call, the states into the cache */
	for (int k = DECODE_CHAIN; k <= DECODE_FROM_V; k++)
		time_pass(ds, (enum decode_kind)k, overhead, &sink);
	for (unsigned i = 0; i < DECODE_SAMPLES; i++) {
		double chain = (double)time_pass(ds, DECODE_CHAIN, overhead, &sink);
		p[i] = fmax(0, (double)time_pass(ds, DECODE_FROM_P, overhead, &sink) - chain) * ns;
		v[i] = fmax(0, (double)time_pass(ds, DECODE_FROM_V, overhead, &sink) - chain) * ns;
	}
	*p_ns = median_of(p, DECODE_SAMPLES);
	*v_ns = median_of(v, DECODE_SAMPLES);
	free(ds);
}
