/* SPDX-License-Identifier: MIT */
/* run_summary.c - the figures of a run, from its workers and its reader (run_priv.h). */
#include "run_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"

/* Samples in order of ns per get (ticks over K, cross-multiplied: exact while ticks x K < 2^53). */
static int cmp_per_get(const void *a, const void *b)
{
	const read_sample *x = a, *y = b;
	double l = (double)x->ticks * (double)y->k, r = (double)y->ticks * (double)x->k;
	return (l > r) - (l < r);
}

/*
 * The reader's figures from its n samples (sorted here by ns per get): *ns
 * the median sample's ns per get, *k its K, *steps its length in clock
 * steps of step ticks.
 */
static void read_median(read_sample *smp, unsigned n, uint64_t step, double *ns, double *k,
                        double *steps)
{
	qsort(smp, n, sizeof smp[0], cmp_per_get);
	const read_sample *m = &smp[n / 2];
	*k = (double)(m->k ? m->k : 1);
	*ns = (double)m->ticks * clk_ns_per_tick() / *k;
	*steps = (double)m->ticks / (double)(step ? step : 1);
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

void run_summarise(const run_setup *s, shared *sh, worker *ws, uint32_t threads,
                      run_result *r)
{
	const sc_variant *v = sh->table.v;
	bool all_counted = s->pmu && s->pmu->active;
	long long ev[PMU_MAX_EVENTS] = {0};
	r->stopped_s = NAN;
	for (uint32_t i = 0; i < threads; i++) {
		r->stopped_s = fmin(r->stopped_s, ws[i].stopped_s); /* fmin ignores a NAN */
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
	r->read_ns = r->read_k = r->timer_step_ns = r->read_sample_steps = NAN;
	if (sh->nread) {
		read_median(sh->read_samples, sh->nread, sh->read_step_ticks, &r->read_ns,
		            &r->read_k, &r->read_sample_steps);
		r->timer_step_ns = (double)sh->read_step_ticks * clk_ns_per_tick();
	}
	r->read_fast_ns = r->fast_width = r->fast_error = NAN;
	r->read_fast_k = r->read_fast_sample_steps = NAN;
	if (sc_variant_has_fast_apart(v)) {
		if (sh->nread) {
			read_median(sh->read_fast_samples, sh->nread, sh->read_step_ticks,
			            &r->read_fast_ns, &r->read_fast_k, &r->read_fast_sample_steps);
		}
		/* no update in flight now: the lag the fast reading may show alone */
		r->fast_width = (double)v->bound(sh->table.cfg, SC_READ_FAST).lag;
		r->fast_error = (double)(r->value - v->reading_fast(sc_table_at(&sh->table, 0),
		                                                    sh->table.cfg));
	}
	r->decode_p_ns = r->decode_v_ns = NAN;
	if (s->plan->read_cost) /* the read-cost runs; the workers and the reader are joined */
		run_time_decodes(&sh->table, &r->decode_p_ns, &r->decode_v_ns);
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

void run_judge_stop(const run_plan *o, const char *variant, uint32_t threads, unsigned run,
                    run_result *r)
{
	double over = o->count_mode ? 0 : r->seconds - o->duration;
	bool stopped = (isfinite(r->stopped_s) && r->stopped_s > RUN_STOP_ALLOWANCE(r->seconds)) ||
	               over > RUN_OVERRUN_ALLOWANCE(o->duration);
	if (!stopped)
		return;
	r->load.busy = true;
	fprintf(stderr, "scbench: warning: %s, %u threads, run %u: stopped for %.2f s of its "
	                "%.2f s measured phase (SIGSTOP, Ctrl-Z or a suspend): marked busy\n",
	        variant, threads, run, fmax(r->stopped_s, over), r->seconds);
}
