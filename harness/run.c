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
 * phase (read_ns, run_read.c); --read-cost=off leaves it out (read_ns empty).
 */
#include "run_priv.h"

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
	double cpu0 = run_thread_cpu_seconds();
	uint32_t node;
	if (sc_node_kernel(NULL, &node)) /* after a warm-up an unbound worker may have moved */
		adopt_kernel_node(k, node);
	note_cpu(k);
	double wait0 = run_thread_wait_seconds();
	k->start = wl_now();
	if (k->hist)
		sh->loops->latency(&sh->phase, &k->w, k->hist);
	else if (sh->s->plan->count_mode)
		sh->loops->count(&sh->phase, &k->w);
	else
		sh->loops->timed(&sh->phase, &k->w);
	k->finish = wl_now();
	k->counted = pmu_thread_stop(sh->s->pmu, &k->pmu, k->events);
	note_cpu(k);
	k->seen_end = sc_node_kernel(&k->cpu_end, &k->node_end);
	k->csw = thread_csw() - c0;
	k->cpu_s = run_thread_cpu_seconds() - cpu0;
	/* Neither running nor runnable: the loops never sleep, so this is a stop. */
	k->stopped_s = fmax(0.0, k->finish - k->start - k->cpu_s -
	                                 (run_thread_wait_seconds() - wait0));
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
	run_main_sleep(o->warmup);
	/* relaxed: the flag carries no data; the barrier below orders the rest. */
	atomic_store_explicit(&sh->stop, true, memory_order_relaxed);
	pthread_barrier_wait(&sh->gate); /* every worker has left its loop */
	sc_table_reset(&sh->table);
	atomic_store_explicit(&sh->stop, false, memory_order_relaxed);
	pthread_barrier_wait(&sh->gate); /* the reset is visible to all: measure */
	set_reader_phase(sh, PHASE_MEASURE);
	run_main_sleep(o->duration);
	atomic_store_explicit(&sh->stop, true, memory_order_relaxed);
	set_reader_phase(sh, PHASE_DONE);
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

/* The run's shared state: the counters, the phase, the barrier, the reader's sync. NULL with err set. */
static shared *shared_create(const run_setup *s, const plan_variant *pv, uint32_t threads,
                             sc_err *err)
{
	const run_plan *o = s->plan;
	shared *sh = calloc(1, sizeof *sh);
	if (!sh) {
		sc_err_set(err, "out of memory for %u threads", threads);
		return NULL;
	}
	sh->s = s;
	sh->loops = wl_loops_for(pv->v);
	sc_env env = {.threads = threads, .nodes = s->nodes, .cpus = 0}; /* 0: every CPU id the OS may report */
	sc_params p = pv->params; /* sc_table_create_shaped marks the keys it used */
	if (sc_table_create_shaped(&sh->table, pv->v, &p, &env, s->shape, o->counters, err)) {
		free(sh);
		return NULL;
	}
	sh->phase = (wl_phase){.table = &sh->table, .work_iters = s->work_iters,
	                       .ops = o->ops, .stop = o->count_mode ? NULL : &sh->stop,
	                       .abort = run_abort_flag()};
	atomic_init(&sh->stop, false);
	sh->reader_phase = PHASE_IDLE;
	pthread_mutex_init(&sh->reader_mutex, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sh->reader_cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_barrier_init(&sh->gate, NULL, threads + 1);
	CPU_ZERO(&sh->reader_cpus);
	return sh;
}

static void shared_destroy(shared *sh)
{
	pthread_barrier_destroy(&sh->gate);
	pthread_cond_destroy(&sh->reader_cond);
	pthread_mutex_destroy(&sh->reader_mutex);
	sc_table_destroy(&sh->table);
	free(sh);
}

/* Each worker's slot, node, seeds and (--latency) histogram. */
static void workers_init(shared *sh, worker *ws, uint32_t threads, uint64_t seed)
{
	const run_setup *s = sh->s;
	memset(ws, 0, threads * sizeof *ws);
	for (uint32_t i = 0; i < threads; i++) {
		worker *k = &ws[i];
		k->sh = sh;
		k->slot = placement_slot_of(s->topo, s->placement, i);
		wl_thread_init(&k->w, i, run_thread_node(s, i), seed, sh->table.same_seed);
		if (sh->table.thread_seed) /* the variant asks for one fixed start state */
			k->w.ctx.rng = sh->table.thread_seed;
		if (s->plan->latency) {
			k->hist = malloc(sizeof *k->hist);
			if (!k->hist) {
				fprintf(stderr, "scbench: out of memory for latency histograms\n");
				exit(1);
			}
			lat_hist_init(k->hist);
		}
	}
}

/*
 * Create the reader (unless --read-cost=off) and the workers. They block the
 * interrupt signals (they inherit the mask), so a signal reaches the main
 * thread, which ends the run. Small stacks: the loops need little, and 1024
 * threads of 8 MiB each would reserve 8 GiB of address space.
 */
static void threads_start(shared *sh, worker *ws, uint32_t threads, pthread_t *reader)
{
	sigset_t old;
	run_block_signals(&old);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, WORKER_STACK);
	/* --read-cost=off: no reader, so nothing but the workers wakes during the phase. */
	int e = sh->s->plan->read_cost ? pthread_create(reader, &attr, run_reader_main, sh) : 0;
	for (uint32_t i = 0; i < threads && !e; i++)
		e = pthread_create(&ws[i].tid, &attr, worker_main, &ws[i]);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	run_helper_boost(); /* after the workers are created: they must not inherit it */
	if (e) {
		/* Threads already created wait at a barrier that cannot fill: give up. */
		fprintf(stderr, "scbench: cannot create %u threads: %s\n", threads, strerror(e));
		exit(1);
	}
}

/*
 * Drive the phase, then join. The workers time themselves: with as many
 * workers as PUs the main thread may not run again until they are done, so
 * its clock would miss part of the phase. It runs from the first worker's
 * start to the last one's finish.
 */
static void phase_run(shared *sh, worker *ws, uint32_t threads, pthread_t reader, run_result *r)
{
	const run_plan *o = sh->s->plan;
	note_main_cpu(r);
	if (o->count_mode) {
		pthread_barrier_wait(&sh->gate);
		set_reader_phase(sh, PHASE_MEASURE);
	} else {
		measure_timed(sh, o);
	}
	double first = INFINITY, last = -INFINITY;
	for (uint32_t i = 0; i < threads; i++) {
		pthread_join(ws[i].tid, NULL);
		first = fmin(first, ws[i].start);
		last = fmax(last, ws[i].finish);
	}
	r->seconds = last - first;
	note_main_cpu(r);
	run_helper_unboost();
	set_reader_phase(sh, PHASE_DONE);
	if (o->read_cost)
		pthread_join(reader, NULL);
	for (uint32_t i = 0; i < threads; i++)
		if (ws[i].bind_error[0] && !bind_problem[0])
			snprintf(bind_problem, sizeof bind_problem, "thread %u: %s", i,
			         ws[i].bind_error);
}

int run_point(const run_setup *s, const plan_variant *pv, uint32_t threads, unsigned run,
              run_result *r, sc_err *err)
{
	memset(r, 0, sizeof *r);
	r->seed = s->plan->seed + run;
	CPU_ZERO(&r->main_cpus);
	CPU_ZERO(&r->pus_used);
	CPU_ZERO(&r->nodes_used);
	worker *ws = aligned_alloc(SC_LINE_SIZE, SC_PAD_UP(threads * sizeof *ws));
	if (!ws) {
		sc_err_set(err, "out of memory for %u threads", threads);
		return -1;
	}
	shared *sh = shared_create(s, pv, threads, err);
	if (!sh) {
		free(ws);
		return -1;
	}
	pthread_t reader;
	workers_init(sh, ws, threads, r->seed);
	threads_start(sh, ws, threads, &reader);
	phase_run(sh, ws, threads, reader, r);
	run_summarise(s, sh, ws, threads, r);
	shared_destroy(sh);
	free_workers(ws, threads);
	return 0;
}

const char *run_binding_problem(void)
{
	return bind_problem[0] ? bind_problem : NULL;
}
