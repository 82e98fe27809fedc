/* SPDX-License-Identifier: MIT */
/*
 * csv.h - scbench's CSV (doc/design.md §5.4; the columns' meanings are in
 * results/README.md, whose table tests/test_cli.sh checks against the header).
 *
 * The fixed columns are declared once, below, in the project's X-macro form:
 * CSV_COLUMNS(X) calls X(name, format, value) per column, in order, and
 * stamps out both the header and the row. value is an expression of the row
 * being written, `x` (a csv_row, csv.c); format names how it is printed:
 *
 *   TEXT   a string, quoted when it holds a comma, quote or newline
 *   UINT   unsigned, %u          U64   64-bit unsigned, %llu
 *   FLAG   0 or 1                FIX1, FIX4   %.1f, %.4f
 *   G6, G9 %.6g, %.9g            OPT0 .. OPT3  %.Nf, or empty when not finite
 *
 * After them come the dynamic columns: one <event>_per_op per requested PAPI
 * event, then, with --latency, the CSV_LATENCY_COLUMNS.
 */
#ifndef SC_CSV_H
#define SC_CSV_H

#include <stdint.h>
#include <stdio.h>

#include "run.h"

#define CSV_COLUMNS(X)                                                                     \
	X(counter, TEXT, x->v->name)                                                       \
	X(kind, TEXT, sc_kind_name(x->v->kind))                                            \
	X(threads, UINT, x->threads)                                                       \
	X(run, UINT, x->run)                                                               \
	X(mode, TEXT, x->p->count_mode ? "count" : "timed")                                \
	X(work_pct, FIX4, x->p->work_iters_given ? 0.0 : x->p->work_pct)                   \
	X(work_iters, FIX4, x->s->work_iters)                                              \
	X(counters, UINT, x->p->counters)                                                  \
	X(placement, TEXT, placement_name(x->s->placement))                                \
	X(nodes, UINT, x->s->nodes)                                                        \
	X(nodes_virtual, FLAG, x->s->nodes_virtual)                                        \
	X(seconds, G9, x->r->seconds)                                                      \
	X(ops, U64, x->r->hot_ops)                                                         \
	X(value, U64, x->r->value)                                                         \
	X(rel_error, G9, x->r->rel_error)                                                  \
	X(ops_per_ms, G6, x->r->ops_per_ms)                                                \
	X(bytes_per_counter, FIX1, x->r->bytes_per_counter)                                \
	X(seed, U64, x->r->seed)                                                           \
	X(params, TEXT, x->params)                                                         \
	X(oversubscribed, FLAG, x->r->oversubscribed)                                      \
	X(ctx_switches, U64, x->r->ctx_switches)                                           \
	X(migrated, UINT, x->r->migrated)                                                  \
	X(read_ns, OPT1, x->r->read_ns)                                                    \
	X(pmu_status, TEXT, x->pmu_status)                                                 \
	X(overflowed, FLAG, x->r->overflowed)                                              \
	X(end_state, TEXT, x->r->end_state)                                                \
	X(pus_used, TEXT, x->pus_used)                                                     \
	X(nodes_used, TEXT, x->nodes_used)                                                 \
	X(node_mismatch, UINT, x->r->node_mismatch)                                        \
	X(load1, OPT2, x->r->load.load1)                                                   \
	X(runnable, OPT0, x->r->load.runnable)                                             \
	X(other_pus, OPT3, x->r->load.other_pus)                                           \
	X(steal_pct, OPT2, x->r->load.steal_pct)                                           \
	X(busy, FLAG, x->r->load.busy)                                                     \
	X(read_fast_ns, OPT1, x->r->read_fast_ns)                                          \
	X(fast_width, OPT0, x->r->fast_width)                                              \
	X(fast_error, OPT0, x->r->fast_error)                                              \
	X(read_k, OPT0, x->r->read_k)                                                      \
	X(read_sample_steps, OPT1, x->r->read_sample_steps)                                \
	X(read_fast_k, OPT0, x->r->read_fast_k)                                            \
	X(read_fast_sample_steps, OPT1, x->r->read_fast_sample_steps)                      \
	X(timer_step_ns, OPT2, x->r->timer_step_ns)

/* --latency: X(name, i), lat_ns[i] of the run, empty when not measured. */
#define CSV_LATENCY_COLUMNS(X)                                                             \
	X(lat_p50_ns, 0) X(lat_p90_ns, 1) X(lat_p99_ns, 2) X(lat_p999_ns, 3) X(lat_max_ns, 4)

/* The header: the fixed columns, the requested events', the latency ones with --latency. */
void out_csv_header(FILE *f, const run_setup *s);
/* One run's row, in the header's order. */
void out_csv_row(FILE *f, const run_setup *s, const plan_variant *pv, uint32_t threads,
                 unsigned run, const run_result *r);

/*
 * --format=json: the row as one line of JSON (JSON Lines), the header's
 * columns as keys in its order; numbers as numbers, an empty field as null.
 */
void out_json_row(FILE *f, const run_setup *s, const plan_variant *pv, uint32_t threads,
                  unsigned run, const run_result *r);

/*
 * The --latency sidecar FILE.latency.csv: a header, then one row per
 * non-empty bucket of a run's merged histogram, bounds in ns (after the
 * tick-read overhead is subtracted, as for the lat_* columns), half-open
 * [bucket_low_ns, bucket_high_ns); increments that took no more than the
 * overhead form one row with both bounds 0.
 */
extern const char out_latency_header[];
void out_latency_rows(FILE *f, const sc_variant *v, uint32_t threads, unsigned run,
                      const run_result *r);

#endif /* SC_CSV_H */
