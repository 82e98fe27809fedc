/* SPDX-License-Identifier: MIT */
/*
 * run.h - one measured run of one point (variant, thread count): threads,
 * barriers, timing, and the figures that make a CSV row (doc/design.md §5.2).
 */
#ifndef SC_RUN_H
#define SC_RUN_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "load.h"
#include "placement.h"
#include "plan.h"
#include "pmu.h"
#include "workload.h"

/* What stays the same across all runs of one invocation: the plan, and the machine it runs on. */
typedef struct run_setup {
	const run_plan *plan;
	uint32_t pus;          /* processing units of the machine */
	uint32_t nodes;        /* nodes used for node ids: --nodes, or the real count */
	bool nodes_virtual;
	double work_iters;     /* m after calibration */
	placement_kind placement; /* what is actually applied */
	const char *pmu_status;   /* why hardware event columns are (not) filled */
	const topo *topo;         /* the machine (or a synthetic one) */
	pmu_setup *pmu;           /* hardware events; pmu->active when they are counted */
	const sc_cpu_shape *shape; /* the machine's, for the variants laid out by it; NULL: none */
} run_setup;

/* Node id of thread i: virtual (i mod --nodes) or the node of its PU. */
uint32_t run_thread_node(const run_setup *s, uint32_t i);

typedef struct run_result {
	uint64_t seed;        /* the seed of this run (base seed + run index) */
	double seconds;       /* measured phase */
	uint64_t total_ops;   /* increments of all counters */
	uint64_t hot_ops;     /* true count of the hot counter */
	uint64_t value;       /* the hot counter's get() after the phase */
	double rel_error;     /* |value - hot_ops| / hot_ops */
	uint64_t range;       /* the hot counter's range (sc_variant.range) */
	bool overflowed;      /* hot_ops exceeds range: value and rel_error measure a wrap */
	char end_state[256];  /* the hot counter's describe after the phase ("" if stateless) */
	double ops_per_ms;    /* total_ops per millisecond */
	double bytes_per_counter;
	bool oversubscribed;
	uint64_t ctx_switches; /* summed over the workers, measured phase */
	uint32_t migrated;     /* workers seen off their PU (bound) or on several CPUs */
	uint32_t node_mismatch; /* bound workers whose kernel node at the start was not the planned one */
	/*
	 * The PUs (OS ids) and nodes (the kernel's ids) the workers were on at
	 * their start and at their end, as the kernel reported them (ids of
	 * CPU_SETSIZE and above are not kept).
	 */
	cpu_set_t pus_used, nodes_used;
	/*
	 * The reader (NAN when none): read_ns, the median over its samples of
	 * ns per get, each sample timing read_k consecutive gets; the clock's
	 * step in ns (clk_step_ticks) and the median sample's length in steps.
	 */
	double read_ns, read_k, timer_step_ns, read_sample_steps;
	/*
	 * A variant with a fast reading apart from get (sc_variant_has_fast_apart:
	 * PerCPUTree; NAN for the others): the median ns of that reading,
	 * sampled beside read_ns; its bound's lag (the width of its interval once
	 * no update is in flight); and at the end of the run, value minus that
	 * reading (its error, which must lie in 0 .. fast_width).
	 */
	double read_fast_ns, fast_width, fast_error;
	double read_fast_k, read_fast_sample_steps; /* as read_k, for the fast reading */
	/*
	 * With a reader, for a variant whose state holds a Morris threshold
	 * (Morris, MorrisAdapt; NAN otherwise): the median ns of one decode of a
	 * threshold from p(v), as the library reads it, and from v, with pow()
	 * (run_decode.c), timed after the phase.
	 */
	double decode_p_ns, decode_v_ns;
	bool pmu_counted;      /* event columns filled */
	const char *pmu_failure; /* events were set up but a worker could not count them */
	double per_op[PMU_MAX_EVENTS]; /* event counts per increment */
	bool latency;          /* latency columns filled */
	double lat_ns[5];      /* p50, p90, p99, p99.9, max */
	/*
	 * --latency: the merged histogram of all workers, in ticks, owned by
	 * the caller (free it); ns = max(0, ticks - lat_overhead_ticks) *
	 * lat_ns_per_tick, the conversion behind lat_ns.
	 */
	struct lat_hist *hist;
	double lat_overhead_ticks;
	double lat_ns_per_tick;
	/*
	 * The two helper threads, never bound (metadata only): the CPUs the main
	 * thread and the read-cost reader were seen on, the reader's wake-ups and
	 * CPU time, and a worker's mean CPU time in the measured phase.
	 */
	cpu_set_t main_cpus, reader_cpus;
	uint32_t idle_workers; /* timed mode: workers that never incremented in the phase */
	uint64_t reader_wakeups;
	double reader_alive_s, reader_cpu_s, worker_cpu_s;
	load_stats load; /* the machine around the run (scbench.c fills it) */
	/* Time every worker of the measured phase spent neither on a CPU nor
	 * waiting for one (SIGSTOP, Ctrl-Z, a suspend: the workers never sleep
	 * there), the least over the workers; NAN unknown. */
	double stopped_s;
} run_result;

/* Seconds of a measured phase (of duration seconds, 0 in count mode) that may
 * pass unaccounted before a run counts as stopped. */
#define RUN_STOP_ALLOWANCE(phase) (0.05 + 0.05 * (phase))
#define RUN_OVERRUN_ALLOWANCE(duration) (0.5 + 0.25 * (duration))
/*
 * Was the run's measured phase stopped (stopped_s beyond the allowance, or a
 * timed phase's wall time beyond its duration and the overrun allowance)?
 * If so: the run is marked busy (r->load.busy, after load_between) and one
 * warning naming the run goes to standard error. Main thread.
 */
void run_judge_stop(const run_plan *o, const char *variant, uint32_t threads, unsigned run,
                    run_result *r);

/*
 * Interrupts. run_catch_signals installs handlers for SIGINT, SIGTERM and
 * SIGHUP (unless SIGHUP was ignored when scbench started) that only record
 * the signal and raise an abort flag; a run in progress stops early (timed
 * mode: the main thread ends the phase; count mode: workers look at the flag
 * every WL_ABORT_CHUNK increments) and its figures must be discarded. It also
 * ignores SIGPIPE and SIGXFSZ, so that writing to a closed pipe or past the
 * file size limit is a write error to report, not a silent death.
 * run_interrupted: the signal caught, or 0. Main thread only.
 */
void run_catch_signals(void);
/*
 * run_started: from now on a signal sets the flag; before (loading the
 * topology, parsing, calibrating: nothing written yet) it ends scbench at
 * once with status 128 + signal. Main thread only.
 */
void run_started(void);

/* How the main thread and the reader were scheduled (for meta.json). */
const char *run_helper_priority(void);
int run_interrupted(void);
/* "SIGINT", "SIGTERM" or "SIGHUP", the signals caught; "a signal" for another. */
const char *run_signal_name(int sig);

/*
 * 0 on success (when run_interrupted() the run was cut short: discard r);
 * -1 with err set on a runtime failure (exit status 1).
 */
int run_point(const run_setup *s, const plan_variant *pv, uint32_t threads, unsigned run,
              run_result *r, sc_err *err);

/*
 * NULL, or why a worker could not be bound to its PU (the run went on
 * unbound; the metadata says so, doc/design.md §8).
 */
const char *run_binding_problem(void);

#endif /* SC_RUN_H */
