/* SPDX-License-Identifier: MIT */
/*
 * test_calibration.c - the meaning of --work (doc/design.md §4, Dice §5): after
 * calibration, a single-thread CAS run with W% external work has
 * (100-W)/100 of the throughput of the same run with none. Checked for
 * W = 99 (1/100) and W = 90 (1/10), each within 10%.
 *
 * This is a timing property, so each side is the best of many short
 * repetitions (the least disturbed one); it needs no particular machine
 * speed, only that the pause instruction takes a stable time. Other tests
 * may run on the other core meanwhile (make -j), and a calibration made
 * while a neighbour steals the CPU is simply wrong, so a check calibrates
 * and measures afresh up to five times and passes when one attempt meets
 * the 10% bound; the bound itself never widens. Each attempt is judged busy
 * or quiet by scbench's own rule (harness/load.h: other processes used 10% of
 * the machine, or 5% was stolen); when every attempt that missed the bound was
 * busy, the check is reported as skipped with that reason (a busy machine
 * cannot show the rule), and a quiet attempt that misses still fails.
 *
 * Under an emulator (SC_TEST_EMULATOR, set by tests/cross-check.sh) the time
 * of a guest instruction depends on the emulator's translation cache, not on
 * a CPU: the calibration still runs and must slow the loop down, but the 10%
 * timing check is reported as skipped, with that reason.
 */
#include <math.h>

#include <unistd.h>

#include "load.h"
#include "tap.h"
#include "testutil.h"
#include "workload.h"

/* ns per iteration of one short repetition of the CAS loop with mean m pauses. */
static double loop_ns(const sc_table *t, double m, uint64_t ops)
{
	wl_thread w;
	wl_thread_init(&w, 0, 0, 5, false);
	wl_phase ph = {.table = t, .work_iters = m, .ops = ops, .stop = NULL};
	double t0 = wl_now();
	wl_variant_loops[SC_ID_cas].count(&ph, &w);
	return (wl_now() - t0) * 1e9 / (double)ops;
}

/*
 * One calibrate-and-measure attempt; returns the measured slowdown. The two
 * loops are timed in alternation, 2-3 ms at a time, and each keeps its best
 * repetition, so both see the same machine.
 */
static double attempt(const sc_table *cas, double pct, wl_calibration *cal)
{
	if (wl_calibrate(pct, cal))
		return NAN;
	double want = 100.0 / (100.0 - pct);
	uint64_t base_ops = (uint64_t)(2.5e6 / cal->ns_per_inc) + 1000;
	uint64_t work_ops = base_ops / (uint64_t)want + 1000;
	double base = INFINITY, worked = INFINITY;
	for (int rep = 0; rep < 21; rep++) {
		base = fmin(base, loop_ns(cas, 0, base_ops));
		worked = fmin(worked, loop_ns(cas, cal->work_iters, work_ops));
	}
	return worked / base;
}

static void check_pct(const sc_table *cas, double pct)
{
	double want = 100.0 / (100.0 - pct), ratio = NAN;
	wl_calibration cal = {0};
	int tries = 0;
	const char *emulator = getenv("SC_TEST_EMULATOR");
	if (emulator && *emulator) {
		ratio = attempt(cas, pct, &cal);
		tap_diag("work=%g%% under %s: ns/CAS inc %.2f, ns/pause %.2f, m = %.3f, slowdown "
		         "%.2f (want %g)",
		         pct, emulator, cal.ns_per_inc, cal.ns_per_pause, cal.work_iters, ratio, want);
		tap_ok(ratio > 1, "work_%g_pct_slows_the_loop_down (measured 1/%.2f)", pct, ratio);
		tap_ok(true, "work_%g_pct_gives_1_over_%g_of_throughput # SKIP timing under %s "
		       "measures its translation, not the pause instruction", pct, want, emulator);
		return;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned pus = n > 0 ? (unsigned)n : 1, quiet_misses = 0;
	load_stats ls = {0};
	while (tries++ < 5) {
		load_snap a, b;
		load_take(&a);
		ratio = attempt(cas, pct, &cal);
		load_take(&b);
		load_between(&a, &b, pus, &ls);
		tap_diag("work=%g%% attempt %d: ns/CAS inc %.2f, ns/pause %.2f, m = %.3f, "
		         "slowdown %.2f (want %g), others used %.2f PUs, steal %.1f%%%s",
		         pct, tries, cal.ns_per_inc, cal.ns_per_pause, cal.work_iters, ratio, want,
		         ls.other_pus, ls.steal_pct, ls.busy ? " (busy)" : "");
		if (fabs(ratio / want - 1) <= 0.10)
			break;
		quiet_misses += !ls.busy;
	}
	bool met = fabs(ratio / want - 1) <= 0.10;
	if (!met && quiet_misses == 0) {
		tap_ok(true, "work_%g_pct_gives_1_over_%g_of_throughput # SKIP machine busy in "
		       "every attempt (last: others used %.2f PUs, steal %.1f%%; measured 1/%.2f)",
		       pct, want, ls.other_pus, ls.steal_pct, ratio);
		return;
	}
	tap_ok(met, "work_%g_pct_gives_1_over_%g_of_throughput (measured 1/%.2f)", pct, want,
	       ratio);
}

/*
 * Array mode at 0% work: the work stream is drawn only for the
 * cold counters' indices, one draw per two increments, never for external
 * work. Deterministic: the stream after the loop equals the seed advanced
 * n/2 times.
 */
static void check_array_zero_work_draws(void)
{
	sc_table arr;
	sc_env env;
	sc_err err;
	sc_env_default(&env);
	if (test_table_open(&arr, &sc_variants[SC_ID_cas], &env, 16, NULL, &err)) {
		tap_ok(false, "create a CAS array: %s", err.msg);
		return;
	}
	wl_thread w;
	wl_thread_init(&w, 0, 0, 5, false);
	uint32_t expect = w.work_rng;
	wl_phase ph = {.table = &arr, .work_iters = 0, .ops = 1000, .stop = NULL};
	wl_variant_loops[SC_ID_cas].count(&ph, &w);
	for (int i = 0; i < 500; i++)
		sc_xorshift_dice(&expect);
	tap_ok(w.work_rng == expect && w.hot_ops == 500,
	       "array_mode_at_0_pct_work_draws_only_the_cold_indices");
	sc_table_destroy(&arr);
}

int main(void)
{
	tap_plan_lazy();
	sc_table cas;
	sc_env env;
	sc_err err;
	sc_env_default(&env);
	if (test_table_open(&cas, &sc_variants[SC_ID_cas], &env, 1, NULL, &err)) {
		tap_ok(false, "create CAS: %s", err.msg);
		return tap_done();
	}
	check_pct(&cas, 99);
	check_pct(&cas, 90);
	tap_ok(wl_calibrate(0, &(wl_calibration){0}) == 0, "calibrate_0_gives_no_work");
	check_array_zero_work_draws();
	sc_table_destroy(&cas);
	return tap_done();
}
