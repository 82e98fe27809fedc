/* SPDX-License-Identifier: MIT */
/*
 * pmu.h - hardware events through PAPI (doc/design.md §5.2), one event set per worker
 * thread, created inside the pinned thread.
 *
 * Missing counters never fail a run (doc/design.md §8): a machine without them (most
 * virtual machines), an event this CPU lacks, or a thread whose event set
 * cannot start all leave the event columns empty, and `status` says why. Only
 * a name PAPI does not know at all, or too many names, is a usage error. The
 * columns are the requested names whether or not they are counted, so every
 * CSV of one command line has the same header on every machine.
 *
 * PAPI state is process-wide: one pmu_setup at a time, from pmu_setup_init to
 * pmu_shutdown. Everything PAPI-specific is compiled only with HAVE_PAPI.
 */
#ifndef SC_PMU_H
#define SC_PMU_H

#include <stdbool.h>

#include <scounters/sc_common.h>

#define PMU_MAX_EVENTS 8

typedef struct pmu_setup {
	unsigned nevents;                 /* events that will be counted (0 when none can be) */
	char names[PMU_MAX_EVENTS][64];   /* their names, for the <event>_per_op CSV columns */
	int codes[PMU_MAX_EVENTS];        /* their PAPI codes */
	unsigned nrequested;              /* the columns: every requested event, counted or not */
	char requested[PMU_MAX_EVENTS][64];
	bool active;                      /* nevents > 0 and the library is initialised */
	char status[256];                 /* the pmu_status column: "ok: 4 events" or why not */
} pmu_setup;

/*
 * events: NULL for the default set (PAPI_TOT_CYC, PAPI_TOT_INS, PAPI_L1_DCM,
 * PAPI_L3_TCM, each counted where available), "none", or a comma list of
 * PAPI preset or native names. Each requested event is tried once here, in
 * one event set on the calling thread, so `names` holds only events that can
 * be counted together.
 *
 * Returns 0 with s filled (s->status says what will happen); 2 for a usage
 * error (an unknown name, an empty, duplicate or over-long name, more than
 * PMU_MAX_EVENTS, or any list in a build without PAPI), with err saying which
 * name and how to list the valid ones; 1 only when PAPI_library_init runs out
 * of memory. Where PAPI itself fails to initialise, names cannot be checked:
 * the result is 0, inactive, with the reason in status.
 */
int pmu_setup_init(pmu_setup *s, const char *events, sc_err *err);

/* The index in s->names of requested column `column`, or -1 if it is not counted. */
int pmu_column_event(const pmu_setup *s, unsigned column);

typedef struct pmu_thread {
	int eventset; /* PAPI's handle, PAPI_NULL (-1) when there is none */
	bool running;
} pmu_thread;

/*
 * Inside a worker thread, after it is pinned: register the thread, create its
 * event set, add the events, start counting. s may be NULL or inactive (then
 * nothing happens). On failure the thread counts nothing (t->running false),
 * and the first failure of any thread is kept for pmu_thread_failure().
 */
void pmu_thread_start(const pmu_setup *s, pmu_thread *t);

/*
 * Stop and read: values[i] for s->names[i]. Returns false, with the values
 * zeroed, when this thread counted nothing. Destroys the event set and
 * unregisters the thread either way.
 */
bool pmu_thread_stop(const pmu_setup *s, pmu_thread *t, long long *values);

/*
 * Why some thread's events did not start, stop or read ("PAPI_add_event
 * PAPI_L3_TCM: ..."), for the run's metadata; NULL when none failed since
 * pmu_setup_init. Call when no worker is running.
 */
const char *pmu_thread_failure(void);

/* Release PAPI (PAPI_shutdown); s becomes inactive. Safe on any setup, twice. */
void pmu_shutdown(pmu_setup *s);

#endif /* SC_PMU_H */
