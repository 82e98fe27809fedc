/* SPDX-License-Identifier: MIT */
/*
 * workload.h - what a thread does between increments (Dice §5, doc/design.md §4):
 * external work, and which counter of the array it increments next.
 *
 * The harness drives one phase of a thread through one indirect call to a
 * per-variant loop (workloads/loops.c); inside that loop every increment is
 * the variant's static inline fast path.
 */
#ifndef SC_WORKLOAD_H
#define SC_WORKLOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <scounters/scounters.h>

/*
 * External work: the pause routine run k times, k drawn from the thread's
 * workload stream (never the counter's) with mean m. m need not be whole:
 * one pause can cost ten increments (25 ns against 2.4 ns here), so a whole
 * m could not express 90% work. x is uniform in [0, 2m) in 1/256 units, and
 * k is x rounded up or down at random in proportion to its fraction, so
 * E[k] = m. The span 2m is passed in that fixed point (wl_work_span).
 */
#define WL_WORK_FRAC_BITS 8
#define WL_MAX_WORK_ITERS 1048576.0 /* 2^20 pauses: tens of ms per increment */

static inline uint64_t wl_work_span(double m)
{
	return (uint64_t)(2.0 * m * (1 << WL_WORK_FRAC_BITS) + 0.5);
}

static inline void wl_external_work(uint64_t span, uint32_t *work_rng)
{
	uint32_t r = sc_xorshift_dice(work_rng);
	uint64_t x = ((uint64_t)r * span) >> 32;
	uint32_t frac = (uint32_t)x & ((1u << WL_WORK_FRAC_BITS) - 1);
	uint32_t k = (uint32_t)(x >> WL_WORK_FRAC_BITS) + ((r & 0xffu) < frac);
	while (k--)
		sc_cpu_relax();
}

/*
 * The counter a thread increments next in array mode: counters 1 .. n-1
 * uniformly (Dice §5.3), alternating with the hot counter 0. Drawing from
 * the other counters only keeps the hot counter's true count exact.
 */
static inline uint32_t wl_random_cold(uint32_t n, uint32_t *work_rng)
{
	return 1 + (uint32_t)(((uint64_t)sc_xorshift_dice(work_rng) * (n - 1)) >> 32);
}

/* One thread's part of a phase. */
typedef struct wl_thread {
	sc_thread ctx;     /* counter context: index, node, counter RNG */
	uint32_t work_rng; /* workload RNG stream */
	uint64_t ops;      /* out: increments performed (all counters) */
	uint64_t hot_ops;  /* out: increments of the hot counter 0 */
} wl_thread;

/* What every thread of a phase shares (read-only during the phase). */
typedef struct wl_phase {
	const sc_table *table;    /* the counters; counter 0 is the hot one */
	double work_iters;        /* m, mean pauses between increments */
	uint64_t ops;             /* count mode: increments per thread */
	const atomic_bool *stop;  /* timed mode: set by the main thread to end the phase */
	const atomic_bool *abort; /* count mode, or NULL: set on an interrupt; the loop
	                             leaves early and its figures are discarded */
} wl_phase;

/*
 * Has the run been abandoned (an interrupt)? Read relaxed: the flag carries
 * no data, and the join after the phase orders the rest. Count loops look
 * once per WL_ABORT_CHUNK increments (even, so that the array form's
 * hot/cold alternation carries on across chunks).
 */
#define WL_ABORT_CHUNK 65536u

static inline bool wl_aborted(const wl_phase *ph)
{
	return ph->abort && atomic_load_explicit(ph->abort, memory_order_relaxed);
}

/*
 * Run one phase on the calling thread: count mode performs exactly ph->ops
 * increments (fewer only once wl_aborted); timed mode runs until *ph->stop.
 * Adds to w->ops and w->hot_ops.
 */
typedef void (*wl_loop_fn)(const wl_phase *ph, wl_thread *w);

/*
 * --latency (doc/design.md §5.2): the same phase, each increment bracketed by
 * two tick reads (clock.h) and recorded, in ticks, into the thread's own
 * histogram h. Count mode when ph->stop is NULL (ph->ops increments), timed
 * otherwise.
 */
struct lat_hist;
typedef void (*wl_lat_loop_fn)(const wl_phase *ph, wl_thread *w, struct lat_hist *h);

typedef struct wl_loops {
	wl_loop_fn count;
	wl_loop_fn timed;
	wl_lat_loop_fn latency;
} wl_loops;

/* Indexed by enum sc_variant_id. */
extern const wl_loops wl_variant_loops[SC_VARIANT_COUNT];

/* The loops of variant v (a pointer into sc_variants). */
const wl_loops *wl_loops_for(const sc_variant *v);

/* Seed a thread's two streams from the base seed (doc/design.md §3: independent streams). */
void wl_thread_init(wl_thread *w, uint32_t index, uint32_t node, uint64_t seed, bool same_seed);

/*
 * Calibration of external work (doc/design.md §4): m such that a single-thread CAS
 * run spends pct% of its time in external work. Measures ns per CAS
 * increment (t_inc) and ns per pause (t_pause) with the real loops, then
 * m = pct/(100-pct) * t_inc / t_pause.
 */
typedef struct wl_calibration {
	double pct;        /* requested external work percentage */
	double ns_per_inc; /* single-thread CAS increment, no work */
	double ns_per_pause;
	double work_iters;   /* m; may exceed WL_MAX_WORK_ITERS (never clamped) */
	char why[400];       /* on failure: what was measured and why it is not usable */
} wl_calibration;

/* wl_calibrate's results. */
enum {
	WL_CAL_OK = 0,
	WL_CAL_RETRY = 1,   /* the machine was too disturbed: another try may succeed */
	WL_CAL_UNUSABLE = 2 /* the pause costs nothing measurable, or the timer is too coarse */
};

/*
 * Runs for about 0.2 s on the calling thread. WL_CAL_OK, or a failure with
 * cal->why saying what was measured and why it cannot be used. The
 * environment variable SCBENCH_TEST_FREE_PAUSE (a test hook) replaces the
 * pauses of the measurement by nothing, as on a machine where a pause costs
 * nothing.
 */
int wl_calibrate(double pct, wl_calibration *cal);

/* Seconds of CLOCK_MONOTONIC. */
double wl_now(void);

#endif /* SC_WORKLOAD_H */
