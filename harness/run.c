/* SPDX-License-Identifier: MIT */
/*
 * run.c - one run of one point. The protocol (doc/design.md §5.2):
 *
 *   count mode:  create, pin and initialise threads -> start barrier -> each
 *                performs N increments -> time from the barrier to the last
 *                thread's finish.
 *   timed mode:  create, pin, initialise -> start barrier -> warm-up ->
 *                barrier -> the main thread resets the counters while nothing
 *                increments -> barrier -> measured phase -> stop.
 *
 * Each worker counts its increments in its own wl_thread (padded apart);
 * the only shared writes of the loop are the counter's. A reader thread,
 * which never increments, samples the cost of get during the measured
 * phase (read_ns); --read-cost=off leaves it out (read_ns empty).
 */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <time.h>

#include "clock.h"
#include "histogram.h"
#include "latency.h"

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

typedef struct shared {
	const run_setup *s;
	const wl_loops *loops;
	lat_loop_fn lat_loop;
	wl_phase phase;
	atomic_bool stop;
	pthread_mutex_t reader_mutex; /* guards reader_phase; the reader waits on reader_cond */
	pthread_cond_t reader_cond;   /* on CLOCK_MONOTONIC */
	int reader_phase;
	pthread_barrier_t gate;
	sc_table table;
	uint64_t read_ticks[READ_SAMPLES];
	unsigned nread;
	uint64_t reader_wakeups;
	double reader_alive_s, reader_cpu_s;
	cpu_set_t reader_cpus;
} shared;

/* --- interrupts ------------------------------------------------------------ */

/* Lock-free, so that the handler's store is async-signal-safe (C11 7.14.1.1). */
_Static_assert(ATOMIC_BOOL_LOCK_FREE == 2, "the abort flag must be lock-free");
static atomic_bool abort_flag;
static volatile sig_atomic_t caught_signal;
static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Until run_started(): nothing is written yet, so a signal ends scbench at once. */
static volatile sig_atomic_t starting = 1;

static void on_signal(int sig)
{
	if (starting) {
		/* write and _exit are async-signal-safe; hwloc may be busy for minutes. */
		static const char msg[] = "scbench: interrupted during start-up; nothing written\n";
		ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
		(void)w;
		_exit(128 + sig);
	}
	caught_signal = sig;
	/* relaxed: the flag carries no data; the joins after the phase order the rest. */
	atomic_store_explicit(&abort_flag, true, memory_order_relaxed);
}

void run_catch_signals(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0; /* no SA_RESTART: a blocked open of a FIFO returns EINTR */
	/*
	 * SIGINT and SIGTERM are caught even when ignored at start (a shell
	 * ignores SIGINT in its background jobs): an interrupt must leave nothing
	 * half-written. An ignored SIGHUP stays ignored (nohup).
	 */
	for (size_t i = 0; i < sizeof caught_signals / sizeof caught_signals[0]; i++)
		if (caught_signals[i] != SIGHUP ||
		    (sigaction(SIGHUP, NULL, &old) == 0 && old.sa_handler != SIG_IGN))
			sigaction(caught_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

void run_started(void)
{
	starting = 0;
}

int run_interrupted(void)
{
	return caught_signal;
}

static void caught_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof caught_signals / sizeof caught_signals[0]; i++)
		sigaddset(set, caught_signals[i]);
}

/*
 * The main thread's sleep: ends early on an interrupt. The signals are
 * blocked between the look at the flag and the wait, and ppoll unblocks
 * them atomically, so a signal cannot slip in between and be missed.
 */
static void main_sleep(double sec)
{
	sigset_t set, old;
	caught_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	double end = wl_now() + sec;
	for (double left = sec; left > 0 && !run_interrupted(); left = end - wl_now()) {
		struct timespec ts = {(time_t)left, (long)((left - floor(left)) * 1e9)};
		ppoll(NULL, 0, &ts, &old);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * The helpers (the main thread, which ends a timed phase, and the reader)
 * sleep nearly all the time, but with more workers than PUs a waking helper
 * queues behind hundreds of spinning workers: at 256 threads on 2 PUs the
 * main thread's timer fired seconds late, stretching a 50 ms phase to 3 s,
 * and the reader got no sample. Run them at the lowest real-time priority
 * where allowed (root, CAP_SYS_NICE), so that a wake-up preempts a worker at
 * once; it costs the workers no more CPU than before. Without permission
 * they stay as they are (meta.json says which).
 */
static _Atomic int helper_priority = -1; /* -1 unknown, 0 normal, 1 SCHED_FIFO */

static void helper_boost(void)
{
	struct sched_param sp = {.sched_priority = sched_get_priority_min(SCHED_FIFO)};
	int ok = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
	/* relaxed: a report for meta.json, read after the joins. */
	atomic_store_explicit(&helper_priority, ok, memory_order_relaxed);
}

static void helper_unboost(void)
{
	struct sched_param sp = {.sched_priority = 0};
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
}

const char *run_helper_priority(void)
{
	switch (atomic_load_explicit(&helper_priority, memory_order_relaxed)) {
	case 1: return "SCHED_FIFO (lowest real-time priority): a wake-up preempts a worker at once";
	case 0: return "normal: no permission for SCHED_FIFO; with more workers than PUs a wake-up may wait behind them";
	default: return "unknown: no run";
	}
}

static double thread_cpu_seconds(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The first binding failure of this process (main thread only, after joins). */
static char bind_problem[320];

uint32_t run_thread_node(const run_setup *s, uint32_t i)
{
	if (s->nodes_virtual)
		return i % s->nodes;
	return placement_slot_of(s->topo, s->placement, i).node;
}

static uint64_t thread_csw(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
}

/* A bound worker must stay on its PU; an unbound one is "moved" if its CPU changes. */
static void note_cpu(worker *k)
{
	int cpu = sched_getcpu();
	if (k->slot.pu_os >= 0 && topo_can_bind(k->sh->s->topo) && !k->bind_error[0]) {
		k->moved |= cpu != k->slot.pu_os;
		return;
	}
	if (k->cpu_first < 0)
		k->cpu_first = cpu;
	else
		k->moved |= cpu != k->cpu_first;
}

/* An unbound worker with real node ids takes the kernel's node (sc_node.h's mapping). */
static void adopt_kernel_node(worker *k, uint32_t kernel_node)
{
	if (k->slot.pu_os < 0 && !k->sh->s->nodes_virtual)
		k->w.ctx.node = sc_node_index(kernel_node);
}

/*
 * At the worker's start: where the kernel put it. An unbound worker
 * (--placement=none, real nodes) takes the kernel's node as its node id; a
 * bound one checks that the kernel's node is the planned one.
 */
static void note_start(worker *k)
{
	const run_setup *s = k->sh->s;
	k->seen_start = sc_node_kernel(&k->cpu_start, &k->node_start);
	if (!k->seen_start)
		return;
	adopt_kernel_node(k, k->node_start);
	if (k->slot.pu_os >= 0 && k->slot.node_os >= 0 && topo_can_bind(s->topo) &&
	    !k->bind_error[0])
		k->node_mismatch = k->node_start != (uint32_t)k->slot.node_os;
}

static void flush_all(shared *sh, worker *k)
{
	for (size_t i = 0; i < sh->table.n; i++)
		sh->table.v->flush(sc_table_at(&sh->table, i), sh->table.cfg, &k->w.ctx);
}

/* The measured phase of one worker, with its events, switches and CPU checks. */
static void measured_phase(shared *sh, worker *k)
{
	uint64_t c0 = thread_csw();
	double cpu0 = thread_cpu_seconds();
	uint32_t node;
	if (sc_node_kernel(NULL, &node)) /* after a warm-up an unbound worker may have moved */
		adopt_kernel_node(k, node);
	note_cpu(k);
	k->start = wl_now();
	if (k->hist)
		sh->lat_loop(&sh->phase, &k->w, k->hist);
	else if (sh->s->plan->count_mode)
		sh->loops->count(&sh->phase, &k->w);
	else
		sh->loops->timed(&sh->phase, &k->w);
	k->finish = wl_now();
	k->counted = pmu_thread_stop(sh->s->pmu, &k->pmu, k->events);
	note_cpu(k);
	k->seen_end = sc_node_kernel(&k->cpu_end, &k->node_end);
	k->csw = thread_csw() - c0;
	k->cpu_s = thread_cpu_seconds() - cpu0;
	flush_all(sh, k);
}

static void *worker_main(void *arg)
{
	worker *k = arg;
	shared *sh = k->sh;
	sc_err err;
	k->cpu_first = -1;
	if (placement_bind_self(sh->s->topo, &k->slot, &err))
		snprintf(k->bind_error, sizeof k->bind_error, "%s", err.msg);
	note_start(k);
	/*
	 * Event sets are set up before the barrier that opens the measured phase,
	 * so their system calls fall outside it (the barrier wait is counted).
	 */
	if (sh->s->plan->count_mode)
		pmu_thread_start(sh->s->pmu, &k->pmu);
	pthread_barrier_wait(&sh->gate); /* start */
	if (!sh->s->plan->count_mode) {
		sh->loops->timed(&sh->phase, &k->w); /* warm-up */
		flush_all(sh, k);
		pthread_barrier_wait(&sh->gate); /* warm-up over; the main thread resets */
		k->w.ops = k->w.hot_ops = 0;
		pmu_thread_start(sh->s->pmu, &k->pmu);
		pthread_barrier_wait(&sh->gate); /* measured phase starts */
	}
	measured_phase(sh, k);
	return NULL;
}

/*
 * The reader: while the phase is measured, one timed get per interval
 * (READ_MIN_INTERVAL, or longer so that at most READ_SAMPLES spread over a
 * timed phase). Each sample is a first touch after the writers had time to
 * take the line away, which is the cost Dice §5.5 discusses; spacing the
 * samples keeps the reader from disturbing the incrementers. It sleeps on a
 * condition variable, woken by the main thread as the phase starts (first
 * sample at once) and ends (no wait for the interval to run out), and by its
 * timer in between. It is not bound: it notes the CPUs it woke on, its
 * wake-ups and its CPU time.
 */
static void *reader_main(void *arg)
{
	shared *sh = arg;
	const void *hot = sc_table_at(&sh->table, 0);
	uint64_t overhead = clk_overhead_ticks();
	const run_plan *o = sh->s->plan;
	double interval = o->count_mode ? READ_MIN_INTERVAL
	                                : fmax(READ_MIN_INTERVAL, o->duration / READ_SAMPLES);
	volatile uint64_t sink = 0;
	helper_boost();
	double alive0 = wl_now(), cpu0 = thread_cpu_seconds();
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	pthread_mutex_lock(&sh->reader_mutex);
	while (sh->reader_phase != PHASE_DONE) {
		int cpu = sched_getcpu();
		if (cpu >= 0 && cpu < CPU_SETSIZE)
			CPU_SET(cpu, &sh->reader_cpus);
		sh->reader_wakeups++;
		if (sh->reader_phase == PHASE_IDLE) {
			/* Asleep until the phase starts: no wake-ups during the warm-up. */
			pthread_cond_wait(&sh->reader_cond, &sh->reader_mutex);
			clock_gettime(CLOCK_MONOTONIC, &next);
			continue;
		}
		if (sh->nread < READ_SAMPLES) {
			pthread_mutex_unlock(&sh->reader_mutex);
			uint64_t t0 = clk_ticks();
			sink += sh->table.v->get(hot, sh->table.cfg);
			uint64_t t1 = clk_ticks();
			uint64_t d = t1 - t0;
			sh->read_ticks[sh->nread++] = d > overhead ? d - overhead : 0;
			pthread_mutex_lock(&sh->reader_mutex);
		}
		double t = (double)next.tv_nsec * 1e-9 + interval;
		next.tv_sec += (time_t)t;
		next.tv_nsec = (long)((t - floor(t)) * 1e9);
		while (sh->reader_phase == PHASE_MEASURE &&
		       pthread_cond_timedwait(&sh->reader_cond, &sh->reader_mutex, &next) == 0)
			;
	}
	pthread_mutex_unlock(&sh->reader_mutex);
	sh->reader_cpu_s = thread_cpu_seconds() - cpu0;
	sh->reader_alive_s = wl_now() - alive0;
	(void)sink;
	return NULL;
}

/* Wake the reader at once: the first sample is taken as the phase starts. */
static void set_reader_phase(shared *sh, int ph)
{
	pthread_mutex_lock(&sh->reader_mutex);
	sh->reader_phase = ph;
	pthread_cond_broadcast(&sh->reader_cond);
	pthread_mutex_unlock(&sh->reader_mutex);
}

static void measure_timed(shared *sh, const run_plan *o)
{
	pthread_barrier_wait(&sh->gate); /* start */
	main_sleep(o->warmup);
	/* relaxed: the flag carries no data; the barrier below orders the rest. */
	atomic_store_explicit(&sh->stop, true, memory_order_relaxed);
	pthread_barrier_wait(&sh->gate); /* every worker has left its loop */
	sc_table_reset(&sh->table);
	atomic_store_explicit(&sh->stop, false, memory_order_relaxed);
	pthread_barrier_wait(&sh->gate); /* the reset is visible to all: measure */
	set_reader_phase(sh, PHASE_MEASURE);
	main_sleep(o->duration);
	atomic_store_explicit(&sh->stop, true, memory_order_relaxed);
	set_reader_phase(sh, PHASE_DONE);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Add a (CPU, node) where a worker was seen to the run's sets (ids past the sets' size are not kept). */
static void run_note_used(run_result *r, bool seen, uint32_t cpu, uint32_t node)
{
	if (!seen)
		return;
	if (cpu < CPU_SETSIZE)
		CPU_SET(cpu, &r->pus_used);
	if (node < CPU_SETSIZE)
		CPU_SET(node, &r->nodes_used);
}

static void summarise(const run_setup *s, shared *sh, worker *ws, uint32_t threads,
                      run_result *r)
{
	const sc_variant *v = sh->table.v;
	bool all_counted = s->pmu && s->pmu->active;
	long long ev[PMU_MAX_EVENTS] = {0};
	for (uint32_t i = 0; i < threads; i++) {
		r->worker_cpu_s += ws[i].cpu_s / threads;
		r->idle_workers += !s->plan->count_mode && ws[i].w.ops == 0;
		r->total_ops += ws[i].w.ops;
		r->hot_ops += ws[i].w.hot_ops;
		r->ctx_switches += ws[i].csw;
		r->migrated += ws[i].moved;
		r->node_mismatch += ws[i].node_mismatch;
		run_note_used(r, ws[i].seen_start, ws[i].cpu_start, ws[i].node_start);
		run_note_used(r, ws[i].seen_end, ws[i].cpu_end, ws[i].node_end);
		all_counted &= ws[i].counted;
		for (unsigned e = 0; s->pmu && e < s->pmu->nevents; e++)
			ev[e] += ws[i].events[e];
	}
	r->value = v->get(sc_table_at(&sh->table, 0), sh->table.cfg);
	v->describe(sc_table_at(&sh->table, 0), sh->table.cfg, r->end_state, sizeof r->end_state);
	r->rel_error = r->hot_ops
		? fabs((double)r->value - (double)r->hot_ops) / (double)r->hot_ops : 0;
	r->range = v->range(sh->table.cfg);
	r->overflowed = r->hot_ops > r->range;
	r->ops_per_ms = r->seconds > 0 ? (double)r->total_ops / (r->seconds * 1e3) : 0;
	r->bytes_per_counter = sc_table_bytes_per_counter(&sh->table);
	r->oversubscribed = threads > s->pus;
	r->pmu_counted = all_counted && r->total_ops > 0;
	if (s->pmu && s->pmu->active && !all_counted)
		r->pmu_failure = pmu_thread_failure();
	for (unsigned e = 0; r->pmu_counted && e < s->pmu->nevents; e++)
		r->per_op[e] = (double)ev[e] / (double)r->total_ops;
	r->reader_cpus = sh->reader_cpus;
	r->reader_wakeups = sh->reader_wakeups;
	r->reader_alive_s = sh->reader_alive_s;
	r->reader_cpu_s = sh->reader_cpu_s;
	r->read_ns = NAN;
	if (sh->nread) {
		qsort(sh->read_ticks, sh->nread, sizeof sh->read_ticks[0], cmp_u64);
		r->read_ns = (double)sh->read_ticks[sh->nread / 2] * clk_ns_per_tick();
	}
	if (ws[0].hist) {
		for (uint32_t i = 1; i < threads; i++)
			lat_hist_merge(ws[0].hist, ws[i].hist);
		static const double pct[4] = {50, 90, 99, 99.9};
		/* Less the cost of the two tick reads around each increment. */
		double ns = clk_ns_per_tick(), oh = (double)clk_overhead_ticks();
		for (int p = 0; p < 5; p++) {
			double t = p < 4 ? (double)lat_hist_percentile(ws[0].hist, pct[p])
			                 : (double)lat_hist_max(ws[0].hist);
			r->lat_ns[p] = fmax(0, t - oh) * ns;
		}
		r->latency = true;
		r->lat_overhead_ticks = oh;
		r->lat_ns_per_tick = ns;
		r->hist = ws[0].hist; /* the caller's now: writes the histogram sidecar */
		ws[0].hist = NULL;
	}
}

static void note_main_cpu(run_result *r)
{
	int cpu = sched_getcpu();
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_SET(cpu, &r->main_cpus);
}

static void free_workers(worker *ws, uint32_t threads)
{
	for (uint32_t i = 0; i < threads; i++)
		free(ws[i].hist);
	free(ws);
}

int run_point(const run_setup *s, const plan_variant *pv, uint32_t threads, unsigned run,
              run_result *r, sc_err *err)
{
	const run_plan *o = s->plan;
	const sc_variant *v = pv->v;
	memset(r, 0, sizeof *r);
	r->seed = o->seed + run;
	shared *sh = calloc(1, sizeof *sh);
	worker *ws = aligned_alloc(SC_LINE_SIZE, SC_PAD_UP(threads * sizeof *ws));
	if (!sh || !ws) {
		free(sh);
		free(ws);
		sc_err_set(err, "out of memory for %u threads", threads);
		return -1;
	}
	memset(ws, 0, threads * sizeof *ws);
	sh->s = s;
	sh->loops = wl_loops_for(v);
	sh->lat_loop = lat_variant_loops[v - sc_variants];
	sc_env env = {.threads = threads, .nodes = s->nodes, .cpus = 0}; /* 0: every CPU id the OS may report */
	sc_params p = pv->params; /* sc_table_create marks the keys it used */
	if (sc_table_create(&sh->table, v, &p, &env, o->counters, err)) {
		free(sh);
		free(ws);
		return -1;
	}
	sh->phase = (wl_phase){.table = &sh->table, .work_iters = s->work_iters,
	                       .ops = o->ops, .stop = o->count_mode ? NULL : &sh->stop,
	                       .abort = &abort_flag};
	atomic_init(&sh->stop, false);
	sh->reader_phase = PHASE_IDLE;
	pthread_mutex_init(&sh->reader_mutex, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sh->reader_cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_barrier_init(&sh->gate, NULL, threads + 1);

	for (uint32_t i = 0; i < threads; i++) {
		worker *k = &ws[i];
		k->sh = sh;
		k->slot = placement_slot_of(s->topo, s->placement, i);
		wl_thread_init(&k->w, i, run_thread_node(s, i), r->seed, sh->table.same_seed);
		if (sh->table.thread_seed) /* the variant asks for one fixed start state */
			k->w.ctx.rng = sh->table.thread_seed;
		if (o->latency) {
			k->hist = malloc(sizeof *k->hist);
			if (!k->hist) {
				fprintf(stderr, "scbench: out of memory for latency histograms\n");
				exit(1);
			}
			lat_hist_init(k->hist);
		}
	}
	/*
	 * Workers and the reader block the interrupt signals (they inherit the
	 * mask), so a signal reaches the main thread, which ends the run. Small
	 * stacks: the loops need little, and 1024 threads of 8 MiB each would
	 * reserve 8 GiB of address space.
	 */
	sigset_t set, old;
	caught_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	pthread_t reader;
	CPU_ZERO(&r->main_cpus);
	CPU_ZERO(&r->pus_used);
	CPU_ZERO(&r->nodes_used);
	CPU_ZERO(&sh->reader_cpus);
	/* --read-cost=off: no reader, so nothing but the workers wakes during the phase. */
	int e = o->read_cost ? pthread_create(&reader, &attr, reader_main, sh) : 0;
	for (uint32_t i = 0; i < threads && !e; i++)
		e = pthread_create(&ws[i].tid, &attr, worker_main, &ws[i]);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	helper_boost(); /* after the workers are created: they must not inherit it */
	if (e) {
		/* Threads already created wait at a barrier that cannot fill: give up. */
		fprintf(stderr, "scbench: cannot create %u threads: %s\n", threads, strerror(e));
		exit(1);
	}

	note_main_cpu(r);
	if (o->count_mode) {
		pthread_barrier_wait(&sh->gate);
		set_reader_phase(sh, PHASE_MEASURE);
	} else {
		measure_timed(sh, o);
	}
	/*
	 * The workers time themselves: with as many workers as PUs the main
	 * thread may not run again until they are done, so its clock would miss
	 * part of the phase. It runs from the first worker's start to the last
	 * one's finish.
	 */
	double first = INFINITY, last = -INFINITY;
	for (uint32_t i = 0; i < threads; i++) {
		pthread_join(ws[i].tid, NULL);
		first = fmin(first, ws[i].start);
		last = fmax(last, ws[i].finish);
	}
	r->seconds = last - first;
	note_main_cpu(r);
	helper_unboost();
	set_reader_phase(sh, PHASE_DONE);
	if (o->read_cost)
		pthread_join(reader, NULL);

	for (uint32_t i = 0; i < threads; i++)
		if (ws[i].bind_error[0] && !bind_problem[0])
			snprintf(bind_problem, sizeof bind_problem, "thread %u: %s", i,
			         ws[i].bind_error);
	summarise(s, sh, ws, threads, r);
	pthread_barrier_destroy(&sh->gate);
	pthread_cond_destroy(&sh->reader_cond);
	pthread_mutex_destroy(&sh->reader_mutex);
	sc_table_destroy(&sh->table);
	free_workers(ws, threads);
	free(sh);
	return 0;
}

const char *run_binding_problem(void)
{
	return bind_problem[0] ? bind_problem : NULL;
}
