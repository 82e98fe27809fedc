/* SPDX-License-Identifier: MIT */
/*
 * latency.h - the per-increment latency loops (--latency, doc/design.md §5.2). Like
 * the throughput loops of workloads/loops.c they are stamped out per
 * variant so the increment stays inlined; each increment is bracketed by
 * two tick reads and recorded, in ticks, into the thread's own histogram.
 */
#ifndef SC_LATENCY_H
#define SC_LATENCY_H

#include "histogram.h"
#include "workload.h"

/* Count mode when ph->stop is NULL (ph->ops increments), timed otherwise. */
typedef void (*lat_loop_fn)(const wl_phase *ph, wl_thread *w, lat_hist *h);

/* Indexed by enum sc_variant_id. */
extern const lat_loop_fn lat_variant_loops[SC_VARIANT_COUNT];

#endif /* SC_LATENCY_H */
