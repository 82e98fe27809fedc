/* SPDX-License-Identifier: MIT */
/*
 * test_load.c - the busy rule of harness/load.h on made-up /proc readings
 * (load_between_at is pure): a run is busy when other processes used at
 * least 10% of the PUs (at least 0.2 PU) or 5% of the time was stolen,
 * judged on the readings less the clock ticks' allowance, so one tick of a
 * kernel thread during a run of milliseconds is not a busy machine.
 * Deterministic.
 */
#include "load.h"
#include "tap.h"

#include <math.h>

/* Snapshots of a run of wall seconds: the machine's non-idle ticks grew by
 * busy, steal ticks by steal, all ticks by total; this process used own s. */
static load_stats between(double wall, double busy, double steal, double total, double own,
                          unsigned pus, long hz, unsigned ncpu)
{
	load_snap a = {.wall = 100.0, .busy_ticks = 5000, .steal_ticks = 70, .total_ticks = 90000,
	               .own_cpu_s = 1.0, .load1 = 0.5, .running = 0};
	load_snap b = a;
	b.wall += wall;
	b.busy_ticks += busy;
	b.steal_ticks += steal;
	b.total_ticks += total;
	b.own_cpu_s += own;
	load_stats out;
	load_between_at(&a, &b, pus, hz, ncpu, &out);
	return out;
}

int main(void)
{
	tap_plan_lazy();
	/* 2 PUs, 100 Hz: the limit is 0.2 PU, the allowance 3 ticks over the run. */
	load_stats l = between(1.0, 100, 0, 200, 1.0, 2, 100, 2);
	tap_ok(!l.busy && fabs(l.other_pus) < 1e-9, "a 1 s run on one PU, nothing else: quiet");
	l = between(1.0, 150, 0, 200, 1.0, 2, 100, 2);
	tap_ok(l.busy && fabs(l.other_pus - 0.5) < 1e-9,
	       "others used 0.5 PU for 1 s (50 ticks, beyond the 3-tick allowance): busy");
	l = between(1.0, 122, 0, 200, 1.0, 2, 100, 2);
	tap_ok(!l.busy && fabs(l.other_pus - 0.22) < 1e-9,
	       "0.22 PU read, 0.19 PU beyond the allowance: not busy");
	l = between(1.0, 124, 0, 200, 1.0, 2, 100, 2);
	tap_ok(l.busy, "0.24 PU read, 0.21 PU beyond the allowance: busy");
	/* The defect this fixes: a 5 ms run, one tick of another CPU. */
	l = between(0.005, 1, 0, 1, 0.0, 2, 100, 2);
	tap_ok(!l.busy && fabs(l.other_pus - 2.0) < 1e-9,
	       "a 5 ms run with one tick of a kernel thread reads 2 PUs: not busy (within the "
	       "allowance)");
	l = between(0.005, 1, 1, 1, 0.0, 2, 100, 2);
	tap_ok(!l.busy && fabs(l.steal_pct - 100.0) < 1e-9,
	       "one stolen tick in a 5 ms run reads 100%% stolen: not busy");
	/* Steal: 2 CPUs, so 2 ticks of allowance. */
	l = between(1.0, 100, 20, 200, 1.0, 2, 100, 2);
	tap_ok(l.busy && fabs(l.steal_pct - 10.0) < 1e-9, "20 of 200 ticks stolen: busy");
	l = between(1.0, 100, 11, 200, 1.0, 2, 100, 2);
	tap_ok(!l.busy, "11 of 200 ticks stolen, 9 beyond the allowance (4.5%%): not busy");
	/* A larger machine: 256 CPUs, 1000 Hz, 80 threads of this process; the limit is 25.6 PUs. */
	l = between(0.01, 800 + 270, 0, 2560, 0.8, 256, 1000, 256);
	tap_ok(!l.busy && fabs(l.other_pus - 27.0) < 1e-9,
	       "256 PUs, a 10 ms run: 27 PUs read, within the 25.7-PU allowance: not busy");
	l = between(0.1, 8000 + 3000, 0, 25600, 8.0, 256, 1000, 256);
	tap_ok(l.busy && fabs(l.other_pus - 30.0) < 1e-9,
	       "256 PUs, a 0.1 s run: 30 PUs read, 27.4 beyond the allowance: busy");
	/* Unreadable /proc: never busy. */
	load_snap a = {.wall = 1, .busy_ticks = NAN, .steal_ticks = NAN, .total_ticks = NAN,
	               .own_cpu_s = NAN, .load1 = NAN, .running = NAN};
	load_snap b = a;
	b.wall = 2;
	load_between_at(&a, &b, 2, 100, 2, &l);
	tap_ok(!l.busy && isnan(l.other_pus) && isnan(l.steal_pct), "no readings: not busy, NAN");
	return tap_done();
}
