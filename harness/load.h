/* SPDX-License-Identifier: MIT */
/*
 * load.h - what else the machine was doing around one run (read-only reads of
 * /proc/loadavg and /proc/stat, and getrusage of this process).
 *
 * A run is "busy" when, between the snapshot before it and the one after it,
 * other processes used at least LOAD_BUSY_SHARE of the machine's PU time (and
 * at least LOAD_BUSY_MIN_PUS of one PU: on a 1-PU box a tenth is kernel
 * noise), or the hypervisor stole at least LOAD_BUSY_STEAL_PCT percent of the
 * machine's time. "Other" is all non-idle, non-iowait CPU time of the machine
 * (/proc/stat, the cpu line) minus this process's own CPU time (getrusage):
 * the run's threads never count against it. The runnable count and the load
 * average are recorded, not judged: run-all's own earlier runs keep the load
 * average high for minutes.
 *
 * /proc/stat counts whole clock ticks (1/CLK_TCK s) per CPU, so over a run of
 * W seconds on a machine of n online CPUs the readings can be off by about
 * n + 1 ticks: (n + 1) / (CLK_TCK W) PUs of "other" use, n ticks of steal.
 * The rule is applied to the readings less that allowance (the columns keep
 * what was measured): on a run of a few milliseconds one tick of a kernel
 * thread is not a busy machine (it read as 2 PUs' worth), and a run shorter
 * than the allowance is never busy.
 *
 * Main thread only; no function fails: a field that cannot be read is NAN
 * (and a run with no usable reading is never busy).
 */
#ifndef SC_LOAD_H
#define SC_LOAD_H

#include <stdbool.h>
#include <stdio.h>

#define LOAD_BUSY_SHARE 0.10     /* of the PUs' time used by other processes */
#define LOAD_BUSY_MIN_PUS 0.20   /* ... and at least this many PUs' worth */
#define LOAD_BUSY_STEAL_PCT 5.0  /* or this much of the machine's time stolen */

typedef struct load_snap {
	double wall;        /* CLOCK_MONOTONIC seconds */
	double busy_ticks;  /* user+nice+system+irq+softirq of all CPUs, in clock ticks */
	double steal_ticks;
	double total_ticks; /* every field of the cpu line */
	double own_cpu_s;   /* this process's user + system time */
	double load1;       /* 1-minute load average */
	double running;     /* runnable tasks (procs_running), this process's reader excluded */
} load_snap;

typedef struct load_stats {
	double load1;          /* 1-minute load average before the run */
	double runnable;       /* other runnable tasks: the larger of before and after */
	double other_pus;      /* PUs' worth of CPU time others used during the run */
	double steal_pct;      /* percent of the machine's time stolen during the run */
	bool busy;
} load_stats;

void load_take(load_snap *s);
/* The stats of the interval a..b on a machine with pus PUs. */
void load_between(const load_snap *a, const load_snap *b, unsigned pus, load_stats *out);
/* Pure: the same with the clock tick rate hz and ncpu online CPUs given. */
void load_between_at(const load_snap *a, const load_snap *b, unsigned pus, long hz,
                     unsigned ncpu, load_stats *out);
/* Pure: is a run with these figures busy on pus PUs (the rule above). */
bool load_is_busy(double other_pus, double steal_pct, unsigned pus);

/* Totals over the runs of this scbench (main thread): add one, print the meta key. */
void load_note(const load_stats *l);
void load_meta_json(FILE *f, unsigned pus);
/* Runs noted so far, and how many of them were busy. */
unsigned load_runs(unsigned *busy);

#endif /* SC_LOAD_H */
