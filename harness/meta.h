/* SPDX-License-Identifier: MIT */
/*
 * meta.h - the FILE.meta.json sidecar (doc/design.md §5.4): the machine, the
 * build, the calibration, and what the runs saw of their helper threads and
 * placement.
 */
#ifndef SC_META_H
#define SC_META_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"
#include "provenance.h"
#include "run.h"

/*
 * What the runs saw, over all of them: the two helper threads (where they
 * ran, the reader's CPU time as a share of one worker's, doc/design.md §5.2
 * read cost: at threads == PUs it must stay well below 1%), idle workers,
 * and placement as the kernel saw it.
 */
typedef struct meta_seen {
	cpu_set_t main_cpus, reader_cpus;           /* all runs */
	cpu_set_t main_cpus_full, reader_cpus_full; /* runs with threads == PUs */
	uint64_t wakeups;
	double reader_alive_s, reader_cpu_s;
	double pct_max;      /* over all runs; NAN if no run had a reader */
	double pct_max_full; /* over runs with threads == PUs; NAN if none */
	uint32_t idle_max, idle_threads; /* most workers idle through a timed phase, of how many */
	unsigned idle_runs;
	cpu_set_t pus_used, nodes_used;
	unsigned runs_moved, runs_mismatch; /* runs with a worker off its PU / off its planned node */
	uint32_t moved_max, mismatch_max;  /* the most such workers in one run */
} meta_seen;

void meta_seen_init(meta_seen *h);
/* Add run r of threads workers on a machine of pus PUs. */
void meta_seen_add(meta_seen *h, const run_result *r, uint32_t threads, uint32_t pus);

/*
 * Write the sidecar into mf (opened by the caller) and finish it (out_finish);
 * cal: the --work calibration, or NULL; started: when the runs began (s since
 * the epoch). 0, or -1 with err set.
 */
int meta_write(out_file *mf, const run_setup *s, const wl_calibration *cal, const meta_seen *h,
               const prov_cpu *cpu, double started, sc_err *err);

/* Append a JSON string literal (quoted, escaped). */
void meta_json_string(FILE *f, const char *s);

#endif /* SC_META_H */
