/* SPDX-License-Identifier: MIT */
/*
 * run_read.c - the reader thread of a run (--read-cost): what one get costs
 * while the workers increment (read_ns; a fast reading apart from get too,
 * read_fast_ns: PerCPUTree's get_fast). doc/design.md §5.2 says why it is timed this way.
 *
 * Batching. The tick clock's step can be coarse: the TSC of an AMD Zen part
 * advances in 10 ns steps, so a single get of a few ns times as 0, 10 or
 * 20 ns. Each sample therefore times K consecutive gets and records the
 * ticks of all K (less one tick-pair overhead); read_ns is the median
 * sample's ticks over its K. K is chosen as the measured phase starts, by
 * doubling from 1 until the fastest of three samples of K gets takes at
 * least READ_MIN_STEPS steps of the clock (clk_step_ticks: the smallest
 * interval it showed), so that one step is at most 1% of a sample. The
 * gets can run faster later than they did then (while a writer is
 * preempted, the reader's line transfers become cache hits), so a sample
 * that comes out shorter is timed again with K doubled, and later samples
 * start from that K: every sample kept spans READ_MIN_STEPS steps unless
 * the cap below stopped its K.
 *
 * Not disturbing the incrementers: a sample stays spaced by the interval
 * (20 ms or longer), and K stops doubling before a sample would last more
 * than READ_MAX_SAMPLE_NS (20 us, 0.1% of the shortest interval) or K
 * would pass READ_MAX_K. The reader thus holds the workers' lines for about
 * 0.1% of the phase at most, beside its wake-ups' 0.2% (run_priv.h). The cap
 * bounds the samples as K is chosen or doubled; a get that slows later
 * lengthens them by as much (Morris's get, a few ns while its count is
 * small, about 15 ns once its floating-point reading runs: samples of 2048
 * gets, about 31 us, 0.15% of 20 ms, on the 2-PU Xeon guest this was
 * written on). Where the cap
 * stops K short of READ_MIN_STEPS, the CSV says so (read_sample_steps under
 * 100) and the plots keep the one-step note.
 *
 * What K back-to-back gets measure. Dice §5.5's cost is a first touch: the
 * writers took the counter's lines since the reader last looked. One get per
 * 20 ms measured that, and on a virtual machine also the reader's own cold
 * start after its sleep (about 1 us per get on the Xeon guest, against 2-20
 * ns batched). K gets in a row, each waiting for the previous one
 * (time_gets), measure a reader that polls. At 0% work (the read-cost
 * experiment) a running writer rewrites its line every few to few tens of
 * ns, less than one get's transfer of that line, so the next get of the
 * batch finds the line taken again: the mean stays a transfer per written
 * line read, as long as a writer runs on another PU during the batch (on the
 * shared 2-PU guest this was written on, load average 10, FetchAdd read 3.5
 * ns per get at 2 threads: a hit, its writers mostly off a PU). Lines nobody
 * writes (an idle slot of a sharded design, a tree's interior not carried
 * into) stay in the reader's cache in both ways of timing. What a batch can
 * understate is a design whose lines are written rarely (a Morris-like
 * counter at a large value): one spaced get would often pay the transfer, K
 * gets pay it once per write. That is the read-heavy case Dice §5.5 speaks
 * of (GetVal runs often), so the polling figure is the one its advice needs.
 * Two ways to keep the first touch were weighed and not taken: rotating the
 * gets over several counters that the writers also increment (read-cost has
 * one hot counter, and spreading the writers over more would change what
 * they contend on), and evicting the lines before each get (clflush is x86
 * only, and it sends the next read to memory instead of to the writer's
 * cache, another cost).
 */
#include "run_priv.h"

#include <math.h>
#include <sched.h>
#include <time.h>

#include "clock.h"

/* A sample of K gets spans at least this many clock steps (one step <= 1%). */
#define READ_MIN_STEPS 100u
/* K stops doubling before a sample would last longer than this (ns) ... */
#define READ_MAX_SAMPLE_NS 20e3
/* ... or K would pass this. */
#define READ_MAX_K 65536u

/* Zero, read through a volatile so that the compiler cannot fold it (time_gets). */
static volatile uint64_t chain_mask;

/*
 * Ticks of k consecutive reads of hot (get_fast when fast), less one tick
 * pair's overhead. Each get's address is hot plus its predecessor's value
 * masked to zero: the same counter, but the processor cannot start a get
 * before the previous one has returned, so the k are timed one after the
 * other, as k spaced gets would be, not overlapped out of order (independent
 * loads of one line would share its transfer and read as a fraction of one).
 * The mask and add cost about a cycle per get, counted in the figure.
 */
static uint64_t time_gets(const shared *sh, const void *hot, bool fast, uint64_t k,
                          uint64_t overhead, volatile uint64_t *sink)
{
	uint64_t s = 0, mask = chain_mask, v = 0;
	const char *base = hot;
	uint64_t t0 = clk_ticks();
	/* the same indirect call as every variant's get, whichever reading it is */
	uint64_t (*read)(const void *, const void *) =
		fast ? sh->table.v->reading_fast : sh->table.v->get;
	for (uint64_t i = 0; i < k; i++) {
		v = read(base + (v & mask), sh->table.cfg);
		s += v;
	}
	uint64_t d = clk_ticks() - t0;
	*sink += s;
	return d > overhead ? d - overhead : 0;
}

/*
 * Whether a sample of k gets that took ticks follows the batching rule: it
 * spans at least READ_MIN_STEPS steps, or K may not double (the doubled
 * sample would pass the time cap of cap ticks, or K READ_MAX_K).
 */
static bool sample_long_enough(uint64_t ticks, uint64_t k, uint64_t step, double cap)
{
	return ticks >= READ_MIN_STEPS * step || k >= READ_MAX_K || 2.0 * (double)ticks > cap;
}

/*
 * K for one reading, chosen as the phase starts: doubled from 1 until the
 * fastest of three samples of K (the least disturbed by a preemption, which
 * could only lengthen one) follows the rule.
 */
static uint64_t calibrate_k(const shared *sh, const void *hot, bool fast, uint64_t step,
                            uint64_t overhead, volatile uint64_t *sink)
{
	double cap = READ_MAX_SAMPLE_NS / clk_ns_per_tick();
	for (uint64_t k = 1;; k *= 2) {
		uint64_t best = UINT64_MAX;
		for (int i = 0; i < 3; i++) {
			uint64_t d = time_gets(sh, hot, fast, k, overhead, sink);
			best = d < best ? d : best;
		}
		if (sample_long_enough(best, k, step, cap))
			return k;
	}
}

/*
 * One sample of *k gets (get_fast when fast). The gets can run faster than
 * they did when K was chosen (a writer preempted leaves the reader hits
 * instead of transfers), so a sample that falls short of the rule is timed
 * again with K doubled, until it follows it; *k keeps the larger K for the
 * samples after. Every stored sample, the median too, thus follows the
 * rule that results/README.md states for read_sample_steps.
 */
static read_sample take_sample(const shared *sh, const void *hot, bool fast, uint64_t *k,
                               uint64_t overhead, volatile uint64_t *sink)
{
	double cap = READ_MAX_SAMPLE_NS / clk_ns_per_tick();
	for (;; *k *= 2) {
		uint64_t d = time_gets(sh, hot, fast, *k, overhead, sink);
		if (sample_long_enough(d, *k, sh->read_step_ticks, cap))
			return (read_sample){d, *k};
	}
}

/*
 * One sample of get (and where the variant has a fast reading apart from
 * get, PerCPUTree's, one of that: sc_variant_has_fast_apart); the first
 * call of a run chooses the K they start from.
 */
static void read_one_sample(shared *sh, const void *hot, uint64_t overhead,
                            volatile uint64_t *sink)
{
	bool fast = sc_variant_has_fast_apart(sh->table.v);
	if (!sh->read_k) {
		sh->read_step_ticks = clk_step_ticks();
		sh->read_k = calibrate_k(sh, hot, false, sh->read_step_ticks, overhead, sink);
		if (fast)
			sh->read_fast_k = calibrate_k(sh, hot, true, sh->read_step_ticks, overhead,
			                              sink);
	}
	sh->read_samples[sh->nread] = take_sample(sh, hot, false, &sh->read_k, overhead, sink);
	/* the fast reading too, right after (read_fast_ns) */
	if (fast)
		sh->read_fast_samples[sh->nread] =
			take_sample(sh, hot, true, &sh->read_fast_k, overhead, sink);
	sh->nread++;
}

/*
 * The reader: while the phase is measured, one sample per interval
 * (READ_MIN_INTERVAL, or longer so that at most READ_SAMPLES spread over a
 * timed phase). It sleeps on a condition variable, woken by the main thread
 * as the phase starts (first sample at once) and ends (no wait for the
 * interval to run out), and by its timer in between. It is not bound: it
 * notes the CPUs it woke on, its wake-ups and its CPU time.
 */
void *run_reader_main(void *arg)
{
	shared *sh = arg;
	const void *hot = sc_table_at(&sh->table, 0);
	uint64_t overhead = clk_overhead_ticks();
	clk_step_ticks(); /* measured now, before the phase, so that it costs the phase nothing */
	const run_plan *o = sh->s->plan;
	double interval = o->count_mode ? READ_MIN_INTERVAL
	                                : fmax(READ_MIN_INTERVAL, o->duration / READ_SAMPLES);
	volatile uint64_t sink = 0;
	run_helper_boost();
	double alive0 = wl_now(), cpu0 = run_thread_cpu_seconds();
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
			read_one_sample(sh, hot, overhead, &sink);
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
	sh->reader_cpu_s = run_thread_cpu_seconds() - cpu0;
	sh->reader_alive_s = wl_now() - alive0;
	(void)sink;
	return NULL;
}
