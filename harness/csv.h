/* SPDX-License-Identifier: MIT */
/*
 * csv.h - scbench's CSV (doc/design.md §5.4; the columns' meanings are in
 * results/README.md, whose table tests/test_csv_schema.sh checks against the
 * schema below).
 *
 * The fixed columns are declared once, below, in the project's X-macro form:
 * CSV_COLUMNS(X) calls X(name, format, value, min, max, allowed, meaning) per
 * column, in order, and stamps out the header, the row (CSV and JSON) and the
 * schema (out_csv_schema_json: what plots/ checks every value read back
 * against). value is an expression of the row being written, `x` (a csv_row,
 * csv.c); format names how it is printed, and so the column's type:
 *
 *   TEXT   text: a string, quoted when it holds a comma, quote or newline
 *   UINT   int: unsigned, %u         U64   int: 64-bit unsigned, %llu
 *   FLAG   0/1                       FIX1, FIX4   real: %.1f, %.4f
 *   G6, G9 real: %.6g, %.9g          OPT0   int: %.0f, or empty when not finite
 *   OPT1 .. OPT3  real: %.Nf, or empty when not finite
 *
 * min and max bound a number's column (CSV_UNBOUNDED: no bound that way;
 * 0, 0 for text); allowed is a text column's values joined by '|' ("": any);
 * meaning is one line (results/README.md explains each column at length).
 *
 * After them come the dynamic columns: one <event>_per_op per requested PAPI
 * event, then, with --latency, the CSV_LATENCY_COLUMNS.
 */
#ifndef SC_CSV_H
#define SC_CSV_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "run.h"

/* A bound a column does not have (csv.h min or max); the largest 64-bit count. */
#define CSV_UNBOUNDED HUGE_VAL
#define CSV_U64_MAX 18446744073709551615.0

#define CSV_COLUMNS(X)                                                                          \
	X(counter, TEXT, x->v->name, 0, 0, "", "canonical variant name (scbench --list)")       \
	X(kind, TEXT, sc_kind_name(x->v->kind), 0, 0, "precise|probabilistic|racy",             \
	  "the variant's kind")                                                                 \
	X(threads, UINT, x->threads, 1, CLI_MAX_THREADS, "", "worker threads that increment")   \
	X(run, UINT, x->run, 0, UINT_MAX, "", "repetition index, from --first-run")             \
	X(mode, TEXT, x->p->count_mode ? "count" : "timed", 0, 0, "timed|count",                \
	  "timed (fixed duration) or count (--ops per thread)")                                 \
	X(work_pct, FIX4, x->p->work_iters_given ? 0.0 : x->p->work_pct, 0, 100, "",            \
	  "external work percentage given with --work")                                         \
	X(work_iters, FIX4, x->s->work_iters, 0, CSV_UNBOUNDED, "",                             \
	  "mean pause routines between two increments")                                         \
	X(counters, UINT, x->p->counters, 1, UINT_MAX, "",                                      \
	  "counters in the array; counter 0 is the hot one")                                    \
	X(placement, TEXT, placement_name(x->s->placement), 0, 0, "spread|compact|none",        \
	  "thread placement, as applied")                                                       \
	X(nodes, UINT, x->s->nodes, 1, UINT_MAX, "",                                            \
	  "node ids in use (real NUMA nodes or --nodes)")                                       \
	X(nodes_virtual, FLAG, x->s->nodes_virtual, 0, 1, "", "1 when node ids are virtual")    \
	X(seconds, G9, x->r->seconds, 0, CSV_UNBOUNDED, "", "length of the measured phase")     \
	X(ops, U64, x->r->hot_ops, 0, CSV_U64_MAX, "",                                          \
	  "true number of increments of the hot counter")                                       \
	X(value, U64, x->r->value, 0, CSV_U64_MAX, "", "the hot counter's get after the phase") \
	X(rel_error, G9, x->r->rel_error, 0, CSV_UNBOUNDED, "", "|value - ops| / ops")          \
	X(ops_per_ms, G6, x->r->ops_per_ms, 0, CSV_UNBOUNDED, "",                               \
	  "increments of all counters per ms of the phase")                                     \
	X(bytes_per_counter, FIX1, x->r->bytes_per_counter, 0, CSV_UNBOUNDED, "",               \
	  "array stride plus the memory each counter allocated")                                \
	X(seed, U64, x->r->seed, 0, CSV_U64_MAX, "",                                            \
	  "the run's base seed: --seed plus the run index")                                     \
	X(params, TEXT, x->params, 0, 0, "", "variant parameters given, key=value joined by ;") \
	X(oversubscribed, FLAG, x->r->oversubscribed, 0, 1, "",                                 \
	  "1 with more threads than processing units")                                          \
	X(ctx_switches, U64, x->r->ctx_switches, 0, CSV_U64_MAX, "",                            \
	  "context switches of all workers in the phase")                                       \
	X(migrated, UINT, x->r->migrated, 0, UINT_MAX, "", "workers found off their bound PU")  \
	X(read_ns, OPT1, x->r->read_ns, 0, CSV_UNBOUNDED, "",                                   \
	  "median ns per get by a reader thread")                                               \
	X(pmu_status, TEXT, x->pmu_status, 0, 0, "",                                            \
	  "whether hardware events were counted, and if not why")                               \
	X(overflowed, FLAG, x->r->overflowed, 0, 1, "",                                         \
	  "1 when ops exceeded the variant's declared range")                                   \
	X(end_state, TEXT, x->r->end_state, 0, 0, "",                                           \
	  "the hot counter's state after the phase, key=value;...")                             \
	X(pus_used, TEXT, x->pus_used, 0, 0, "",                                                \
	  "the PUs the workers were on, as the kernel said")                                    \
	X(nodes_used, TEXT, x->nodes_used, 0, 0, "", "the NUMA nodes of those PUs")             \
	X(node_mismatch, UINT, x->r->node_mismatch, 0, UINT_MAX, "",                            \
	  "bound workers on another node than planned")                                         \
	X(load1, OPT2, x->r->load.load1, 0, CSV_UNBOUNDED, "",                                  \
	  "1-minute load average before the run")                                               \
	X(runnable, OPT0, x->r->load.runnable, 0, CSV_UNBOUNDED, "",                            \
	  "other runnable tasks around the run")                                                \
	X(other_pus, OPT3, x->r->load.other_pus, -CSV_UNBOUNDED, CSV_UNBOUNDED, "",             \
	  "CPU time of other processes during the run, in PUs")                                 \
	X(steal_pct, OPT2, x->r->load.steal_pct, -CSV_UNBOUNDED, CSV_UNBOUNDED, "",             \
	  "percent of time the hypervisor stole")                                               \
	X(busy, FLAG, x->r->load.busy, 0, 1, "", "1 when the machine was busy during the run")  \
	X(read_fast_ns, OPT1, x->r->read_fast_ns, 0, CSV_UNBOUNDED, "",                         \
	  "PerCPUTree: median ns of its O(1) get_fast")                                         \
	X(fast_width, OPT0, x->r->fast_width, 0, CSV_UNBOUNDED, "",                             \
	  "PerCPUTree: width of get_fast's interval")                                           \
	X(fast_error, OPT0, x->r->fast_error, -CSV_UNBOUNDED, CSV_UNBOUNDED, "",                \
	  "PerCPUTree: value minus get_fast at the end")                                        \
	X(read_k, OPT0, x->r->read_k, 1, CSV_UNBOUNDED, "",                                     \
	  "gets timed by the median read_ns sample")                                            \
	X(read_sample_steps, OPT1, x->r->read_sample_steps, 0, CSV_UNBOUNDED, "",               \
	  "that sample's length in clock steps")                                                \
	X(read_fast_k, OPT0, x->r->read_fast_k, 1, CSV_UNBOUNDED, "",                           \
	  "PerCPUTree: read_k of the get_fast samples")                                         \
	X(read_fast_sample_steps, OPT1, x->r->read_fast_sample_steps, 0, CSV_UNBOUNDED, "",     \
	  "PerCPUTree: read_sample_steps of get_fast")                                          \
	X(timer_step_ns, OPT2, x->r->timer_step_ns, 0, CSV_UNBOUNDED, "",                       \
	  "the tick clock's step as the reader measured it")                                    \
	X(decode_p_ns, OPT2, x->r->decode_p_ns, 0, CSV_UNBOUNDED, "",                           \
	  "Morris, MorrisAdapt: median ns of a decode from p(v), the library's")                \
	X(decode_v_ns, OPT2, x->r->decode_v_ns, 0, CSV_UNBOUNDED, "",                           \
	  "Morris, MorrisAdapt: median ns of a decode from v, with pow()")

/* --latency: X(name, i, meaning), lat_ns[i] of the run in ns, empty when not measured. */
#define CSV_LATENCY_COLUMNS(X)                                          \
	X(lat_p50_ns, 0, "median latency of one increment")             \
	X(lat_p90_ns, 1, "90th percentile latency of one increment")    \
	X(lat_p99_ns, 2, "99th percentile latency of one increment")    \
	X(lat_p999_ns, 3, "99.9th percentile latency of one increment") \
	X(lat_max_ns, 4, "largest latency of one increment")

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

/*
 * The schema as one JSON object (no newline after it): {"columns": [{"name",
 * "type" ("text", "int", "real" or "0/1"), "min", "max" (null: unbounded or
 * text), "allowed" (a text column's values, [] for any), "meaning"}, ...] in
 * the header's order, "event_suffix" (the PAPI event columns' ending, each
 * real) and "latency_columns" (the --latency columns, the same form).
 * Thread-safe (writes only to f); a write error is left in f's error flag.
 */
void out_csv_schema_json(FILE *f);

#endif /* SC_CSV_H */
