/* SPDX-License-Identifier: MIT */
/* load.c - what else the machine was doing around a run (load.h). */
#include "load.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Read-only: /proc/loadavg "l1 l5 l15 running/total lastpid". */
static void read_loadavg(load_snap *s)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double l1;
	unsigned running, total;
	if (!f)
		return;
	if (fscanf(f, "%lf %*f %*f %u/%u", &l1, &running, &total) == 3) {
		s->load1 = l1;
		/* This thread is running while it reads: not "else". */
		s->running = running > 0 ? running - 1.0 : 0.0;
	}
	fclose(f);
}

/* Read-only: the aggregate "cpu" line of /proc/stat. */
static void read_stat(load_snap *s)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[512];
	if (!f)
		return;
	if (fgets(line, sizeof line, f) && !strncmp(line, "cpu ", 4)) {
		double v[10] = {0};
		int n = sscanf(line + 4, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &v[0], &v[1],
		               &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
		if (n >= 4) {
			/* user nice system idle iowait irq softirq steal (guest is in user) */
			s->busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6];
			s->steal_ticks = v[7];
			s->total_ticks = 0;
			for (int i = 0; i < 8 && i < n; i++)
				s->total_ticks += v[i];
		}
	}
	fclose(f);
}

void load_take(load_snap *s)
{
	struct rusage ru;
	s->load1 = s->running = NAN;
	s->busy_ticks = s->steal_ticks = s->total_ticks = NAN;
	s->own_cpu_s = NAN;
	read_loadavg(s);
	read_stat(s);
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		s->own_cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
		               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
	s->wall = now_s();
}

bool load_is_busy(double other_pus, double steal_pct, unsigned pus)
{
	double limit = fmax(LOAD_BUSY_SHARE * pus, LOAD_BUSY_MIN_PUS);
	return (isfinite(other_pus) && other_pus >= limit) ||
	       (isfinite(steal_pct) && steal_pct >= LOAD_BUSY_STEAL_PCT);
}

void load_between(const load_snap *a, const load_snap *b, unsigned pus, load_stats *out)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	load_between_at(a, b, pus, sysconf(_SC_CLK_TCK), ncpu > 0 ? (unsigned)ncpu : pus, out);
}

void load_between_at(const load_snap *a, const load_snap *b, unsigned pus, long hz,
                     unsigned ncpu, load_stats *out)
{
	double wall = b->wall - a->wall;
	double other_judged = NAN, steal_judged = NAN;
	out->load1 = a->load1;
	out->runnable = fmax(a->running, b->running); /* fmax ignores one NAN */
	out->other_pus = out->steal_pct = NAN;
	if (hz > 0 && wall > 0 && isfinite(b->busy_ticks - a->busy_ticks) &&
	    isfinite(b->own_cpu_s - a->own_cpu_s)) {
		double other = (b->busy_ticks - a->busy_ticks) / (double)hz -
		               (b->own_cpu_s - a->own_cpu_s);
		/* /proc/stat counts in whole ticks, getrusage in microseconds: clamp at 0. */
		out->other_pus = fmax(0.0, other / wall);
		/* Judged less the ticks' allowance (load.h). */
		other_judged = out->other_pus - (ncpu + 1.0) / ((double)hz * wall);
	}
	double total = b->total_ticks - a->total_ticks;
	double steal = b->steal_ticks - a->steal_ticks;
	if (isfinite(total) && total > 0 && isfinite(steal)) {
		out->steal_pct = 100.0 * steal / total;
		steal_judged = 100.0 * fmax(0.0, steal - ncpu) / total;
	}
	out->busy = load_is_busy(other_judged, steal_judged, pus);
}

static struct {
	unsigned runs, busy;
	double other_max, steal_max, runnable_max, load1_first, load1_max;
} totals = {0, 0, 0, 0, 0, NAN, 0};

void load_note(const load_stats *l)
{
	if (!totals.runs)
		totals.load1_first = l->load1;
	totals.runs++;
	totals.busy += l->busy;
	if (isfinite(l->other_pus))
		totals.other_max = fmax(totals.other_max, l->other_pus);
	if (isfinite(l->steal_pct))
		totals.steal_max = fmax(totals.steal_max, l->steal_pct);
	if (isfinite(l->runnable))
		totals.runnable_max = fmax(totals.runnable_max, l->runnable);
	if (isfinite(l->load1))
		totals.load1_max = fmax(totals.load1_max, l->load1);
}

void load_meta_json(FILE *f, unsigned pus)
{
	fprintf(f, "  \"load\": {\"runs\": %u, \"busy_runs\": %u, \"busy\": %s, "
	           "\"load1_first\": ",
	        totals.runs, totals.busy, totals.busy ? "true" : "false");
	if (isfinite(totals.load1_first))
		fprintf(f, "%.2f", totals.load1_first);
	else
		fprintf(f, "null");
	fprintf(f, ", \"load1_max\": %.2f, \"runnable_max\": %.0f, \"other_pus_max\": %.3f, "
	           "\"steal_pct_max\": %.2f, \"busy_rule\": \"other processes used >= %.2f "
	           "PUs (%.0f%% of %u PUs, at least %.2f) or >= %.0f%% of the time was "
	           "stolen, beyond the clock ticks' resolution, or the run was stopped\"},\n",
	        totals.load1_max, totals.runnable_max, totals.other_max, totals.steal_max,
	        fmax(LOAD_BUSY_SHARE * pus, LOAD_BUSY_MIN_PUS), 100 * LOAD_BUSY_SHARE, pus,
	        LOAD_BUSY_MIN_PUS, LOAD_BUSY_STEAL_PCT);
}

unsigned load_runs(unsigned *busy)
{
	*busy = totals.busy;
	return totals.runs;
}
