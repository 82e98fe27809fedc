/* SPDX-License-Identifier: MIT */
/*
 * run_priv.h - what the units of one run share (run.c, run_signals.c,
 * run_summary.c): the workers, the state of a run, the signal plumbing.
 * Not for other units.
 */
#ifndef SC_RUN_PRIV_H
#define SC_RUN_PRIV_H

#include <pthread.h>
#include <signal.h>
#include <stdalign.h>
#include <stdatomic.h>

#include "histogram.h"
#include "run.h"

enum { READ_SAMPLES = 1024 };

/*
 * The reader's shortest interval between two samples. A wake-up cost the
 * reader 35 us of CPU on the 2-PU KVM guest this was tuned on (timer, futex,
 * scheduling); at 50 a second that is about 0.2% of a worker's time when
 * threads == PUs, "well below 1%" (meta.json reports the figure measured on
 * every run). The first sample is taken as the phase starts, so a short phase
 * still gets one; 0.8 s gets 40, 8 s gets 400.
 */
#define READ_MIN_INTERVAL 20e-3

/* Stack of a worker or the reader: their frames are small (a latency histogram is on the heap). */
#define WORKER_STACK (256u * 1024u)

/* Reader states. */
enum { PHASE_IDLE = 0, PHASE_MEASURE = 1, PHASE_DONE = 2 };

typedef struct worker {
	alignas(SC_LINE_SIZE) wl_thread w;
	pthread_t tid;
	struct shared *sh;
	placement_slot slot;
	double start;    /* count mode: CLOCK_MONOTONIC as the worker leaves the start barrier */
	double finish;   /* count mode: CLOCK_MONOTONIC after the last increment */
	double cpu_s;    /* CPU time of the measured phase */
	double stopped_s; /* measured phase neither on a CPU nor waiting for one (a stop); NAN unknown */
	uint64_t csw;    /* context switches during the measured phase */
	int cpu_first;
	bool moved;
	/* Where the kernel says the worker ran (sc_node_kernel): at its start and at its end. */
	bool seen_start, seen_end;
	uint32_t cpu_start, node_start, cpu_end, node_end;
	bool node_mismatch; /* bound, but the kernel's node at the start is not the planned one */
	pmu_thread pmu;
	long long events[PMU_MAX_EVENTS];
	bool counted;
	lat_hist *hist; /* --latency only */
	char bind_error[256];
} worker;

/* One sample of the reader: k consecutive gets took ticks (less a tick pair's cost). */
typedef struct read_sample {
	uint64_t ticks, k;
} read_sample;

typedef struct shared {
	const run_setup *s;
	const wl_loops *loops;
	wl_phase phase;
	atomic_bool stop;
	pthread_mutex_t reader_mutex; /* guards reader_phase; the reader waits on reader_cond */
	pthread_cond_t reader_cond;   /* on CLOCK_MONOTONIC */
	int reader_phase;
	pthread_barrier_t gate;
	sc_table table;
	/*
	 * The reader's samples (run_read.c): each one's K and the ticks of its K
	 * gets; read_k is the K the next sample starts from, read_step_ticks the
	 * clock's step measured before the first.
	 */
	read_sample read_samples[READ_SAMPLES];
	unsigned nread;
	uint64_t read_k, read_fast_k, read_step_ticks;
	/* PerCPUTree: samples of get_fast (sc_tree.h), taken beside get's */
	read_sample read_fast_samples[READ_SAMPLES];
	uint64_t reader_wakeups;
	double reader_alive_s, reader_cpu_s;
	cpu_set_t reader_cpus;
} shared;

/* The abort flag the count loops look at (wl_phase.abort). */
const atomic_bool *run_abort_flag(void);
/* Block the interrupt signals in the calling thread (threads it creates inherit it); old: the mask before. */
void run_block_signals(sigset_t *old);
/* The main thread's sleep: ends early on an interrupt. */
void run_main_sleep(double sec);
/* A helper thread (main, reader) at the lowest real-time priority where allowed; and back. */
void run_helper_boost(void);
void run_helper_unboost(void);
/* CPU seconds of the calling thread. */
double run_thread_cpu_seconds(void);
/* Seconds the calling thread has waited on a run queue (/proc/thread-self/schedstat); NAN unknown. */
double run_thread_wait_seconds(void);

/* The reader thread (run_read.c): arg is the run's shared. */
void *run_reader_main(void *arg);

/*
 * Morris and MorrisAdapt, whose state holds a Morris threshold
 * (run_has_morris_threshold): *p_ns and *v_ns, the median ns of one decode
 * of a threshold from p(v) (the library's reading) and from v (pow);
 * NAN for every other variant (run_decode.c). Main thread, after the phase.
 */
bool run_has_morris_threshold(const sc_variant *v);
void run_time_decodes(const sc_table *t, double *p_ns, double *v_ns);

/* Fill r from the joined workers ws[0 .. threads-1] and the reader of sh. */
void run_summarise(const run_setup *s, shared *sh, worker *ws, uint32_t threads, run_result *r);

#endif /* SC_RUN_PRIV_H */
