/* SPDX-License-Identifier: MIT */
/*
 * testprob_runs.h - the probabilistic families' statistical checks across
 * seeds (tests/testprob.h): unbiasedness and RSTDV within the variant's
 * bound over many seeded single-thread runs, by increments and by add(n),
 * and exactness from zero where the variant promises it.
 *
 * Statistical checks (tp_check_statistics): K single-thread runs of N
 * increments, run i seeded with base seed + i, each giving x = value/N.
 *  (a) mean: |mean(x) - 1| <= 5 bound/sqrt(K). x is a sum of many small
 *      martingale increments, close to normal, and its sd is at most the
 *      bound, so a false failure has probability at most the two-sided
 *      normal tail at 5, 5.7e-7.
 *  (b) RSTDV: sd(x) <= bound sqrt(q/(K - 1)), q the chi-square(K - 1)
 *      quantile with upper tail 1e-6, so a false failure has probability at
 *      most 1e-6 (normal x, true sd at most the bound).
 *  (c) not degenerate: sd(x) >= half the RSTDV predicted for this N (a
 *      counter that had silently become exact would pass (a) and (b)); the
 *      chi-square lower tail this allows is printed, 1.7e-29 at K = 200.
 *
 * add(n) is held to the same three checks with the same bounds (its contract
 * is that of n increments, see the family headers): the N of a run is
 * given as adds of a cycle of sizes from 1 to 2^17 (ADD_CHUNKS), seeded from
 * base seed + 0x800000.
 *
 * Seeds: statistical spec k of the list the three programs share (Morris 0-2,
 * BFP 3-5, Scalable 6-11, the order of one program before the split) runs
 * with base seed STAT_SEED + 0x10000 k (tp_spec_seed), its run j with base + j;
 * each check prints its base seed.
 *
 *   test_<family>               make check: K = 200, N = 2^19
 *   test_<family> --acceptance  K = 200, N = 2,000,000, with a table
 *
 * SC_TEST_SCALE=s (testutil.h) makes K = ceil(200 s) runs, but never fewer
 * than the smallest K whose check (c) lower tail is at most 1e-6 (K = 38).
 * N, and so each run's distribution, is unchanged; (a) and (b) take their
 * limits from K as above, so every false-failure probability stays 1e-6 or
 * less.
 */
#ifndef SC_TESTPROB_RUNS_H
#define SC_TESTPROB_RUNS_H

#include "testprob_dist.h"
#include "testprob_inst.h"

/* ---- unbiasedness and RSTDV across seeds ---- */

typedef struct stat_spec {
	int id;
	const char *params;
	double (*bound)(const inst *in, uint64_t n); /* pass/fail for (a), (b); NULL: exact */
	double (*predict)(const inst *in, uint64_t n); /* for (c), and shown; NULL: exact */
	uint64_t (*preset)(inst *in, uint64_t n); /* NULL: from 0 */
	const char *why; /* what the bound is */
	unsigned seed_index; /* k of the top comment */
} stat_spec;

#define STAT_SEED 0x5eed0000u
#define CHECK_RUNS 200 /* make check: runs per statistical spec */
#define CHECK_N (1u << 19) /* make check: increments per run */

/* The base seed of spec s (the top comment), of its add(n) form with by_add. */
static inline uint64_t tp_spec_seed(const stat_spec *s, bool by_add)
{
	return STAT_SEED + 0x10000u * s->seed_index + (by_add ? 0x800000u : 0);
}

typedef struct stat_result {
	test_stats x;
	double bound, predicted, seconds;
} stat_result;

static inline void run_statistics(const stat_spec *s, unsigned runs, uint64_t n, uint64_t seed,
                                  bool by_add, stat_result *res)
{
	inst in;
	inst_must_open(&in, s->id, s->params);
	memset(res, 0, sizeof *res);
	double t0 = test_seconds();
	for (unsigned i = 0; i < runs; i++) {
		sc_thread t;
		sc_thread_init(&t, 0, 0, seed + i, false);
		in.v->reset(in.c, in.cfg);
		uint64_t start = s->preset ? s->preset(&in, n) : 0;
		if (by_add)
			inst_add_chunks(&in, &t, n, i);
		else
			inst_inc(&in, &t, n);
		test_stats_add(&res->x, (double)(inst_get(&in) - start) / (double)n);
	}
	res->seconds = test_seconds() - t0;
	res->bound = s->bound ? s->bound(&in, n) : 0; /* 0: no bound, an exact run */
	res->predicted = s->predict ? s->predict(&in, n) : 0;
	inst_close(&in);
}

/* Checks (a), (b), (c) of the top comment on r, each with its false-failure probability. */
static inline void check_statistics(const stat_spec *s, unsigned runs, uint64_t n, uint64_t seed,
                                    bool by_add, const stat_result *res)
{
	const stat_result r = *res;
	char name[64];
	snprintf(name, sizeof name, "%s%s", sc_variants[s->id].name, by_add ? " add" : "");
	double k = runs - 1, sd = test_stats_sd(&r.x);
	double z = (r.x.mean - 1.0) / (r.bound / sqrt(runs));
	double q = chi2_upper_quantile(k, FALSE_FAIL);
	double sd_max = r.bound * sqrt(q / k);
	double p_low = chi2_lower_tail(k, k * 0.25);
	tap_diag("%s '%s': N = %llu, %u runs, seeds %#llx + 0..%u, %.2f s", name, s->params,
	         (unsigned long long)n, runs, (unsigned long long)seed, runs - 1, r.seconds);
	tap_ok(fabs(z) <= MEAN_Z, "%s '%s': unbiased: mean %.6f, |z| = %.2f <= %.0f", name,
	       s->params, r.x.mean, fabs(z), MEAN_Z);
	tap_diag("  false-failure probability %.1e (two-sided normal tail at z = %.0f, standard "
	         "error %.5f%% from the bound), seed %#llx",
	         normal_two_sided_tail(MEAN_Z), MEAN_Z, 100 * r.bound / sqrt(runs),
	         (unsigned long long)seed);
	tap_ok(sd <= sd_max, "%s '%s': RSTDV %.4f%% <= %.4f%% (bound %.4f%% = %s, x %.4f)", name,
	       s->params, 100 * sd, 100 * sd_max, 100 * r.bound, s->why, sqrt(q / k));
	tap_diag("  false-failure probability %.0e (chi-square(%.0f) upper quantile %.1f), "
	         "seed %#llx; predicted RSTDV at this N %.4f%%",
	         FALSE_FAIL, k, q, (unsigned long long)seed, 100 * r.predicted);
	tap_ok(sd >= r.predicted / 2,
	       "%s '%s': not degenerate: RSTDV %.4f%% >= half the "
	       "predicted %.4f%%",
	       name, s->params, 100 * sd, 100 * r.predicted);
	tap_diag("  false-failure probability %.1e (chi-square(%.0f) lower tail at k/4), "
	         "seed %#llx",
	         p_low, k, (unsigned long long)seed);
}

/*
 * Runs per spec in make check: CHECK_RUNS scaled by SC_TEST_SCALE, never
 * below the K at which check (c) keeps its false-failure probability at
 * FALSE_FAIL or less (the bounds of (a) and (b) follow K by themselves).
 */
static inline unsigned check_runs(void)
{
	unsigned k_min = 2;
	while (chi2_lower_tail(k_min - 1, (k_min - 1) * 0.25) > FALSE_FAIL)
		k_min++;
	return (unsigned)test_scaled(CHECK_RUNS, k_min);
}

/* The acceptance table's row of one spec. */
static inline void print_table_row(const stat_spec *s, unsigned runs, const stat_result *r)
{
	double sd = test_stats_sd(&r->x), se = sd / sqrt(runs);
	tap_diag("TABLE %-15s %-24s mean %.6f se %.6f z %+6.2f RSTDV %.4f%% pred %.4f%% "
	         "bound %.4f%% %.1f s",
	         sc_variants[s->id].name, s->params[0] ? s->params : "(defaults)", r->x.mean, se,
	         se > 0 ? (r->x.mean - 1) / se : 0.0, 100 * sd, 100 * r->predicted, 100 * r->bound,
	         r->seconds);
}

/* Each of the nspecs specs: runs seeded runs of n; acceptance also prints a table row. */
static inline void test_unbiased_rstdv_within_bound(const stat_spec *specs, size_t nspecs,
                                                    unsigned runs, uint64_t n, bool table,
                                                    bool by_add)
{
	for (size_t i = 0; i < nspecs; i++) {
		const stat_spec *s = &specs[i];
		uint64_t seed = tp_spec_seed(s, by_add);
		stat_result r;
		run_statistics(s, runs, n, seed, by_add, &r);
		if (table)
			print_table_row(s, runs, &r);
		check_statistics(s, runs, n, seed, by_add, &r);
	}
}

/*
 * A variant that one thread drives exactly (MorrisAdapt below 2^32, BFP-CSUP
 * below 2^28, ScalableCAS everywhere), run from 0 as the others in the
 * acceptance measurement; seed_index i (1, 2, 3 for those three) gives base
 * seed STAT_SEED + 0x100000 i.
 */
static inline void test_single_thread_exact_from_zero(int id, unsigned seed_index, unsigned runs,
                                                      uint64_t n)
{
	stat_spec s = { id, "", NULL, NULL, NULL, "exact", 0 };
	stat_result r;
	run_statistics(&s, runs, n, STAT_SEED + 0x100000u * seed_index, false, &r);
	print_table_row(&s, runs, &r);
	tap_ok(r.x.min == 1 && r.x.max == 1,
	       "%s: %u single-thread runs of %llu from 0 are "
	       "exact",
	       sc_variants[id].name, runs, (unsigned long long)n);
}

#endif /* SC_TESTPROB_RUNS_H */
