/* SPDX-License-Identifier: MIT */
/* bfp.c - configuration of the binary floating point counters (sc_bfp.h). */
#include <scounters/sc_bfp.h>

#include <math.h>
#include <stdio.h>

/*
 * accuracy: percent RSTDV. Above 50 MantThreshold would fall to 2 or 0; below
 * 0.01 it would pass 2^28, which the mantissa field cannot reach.
 */
#define SC_BFP_ACC_MIN 0.01
#define SC_BFP_ACC_MAX 50.0
#define SC_BFP_ACC_DEFAULT 1.0
#define SC_BFP_MT_MAX (1u << SC_BFP_MANT_BITS)

/* Dice Fig. 2, line 16: MantThreshold = 2 floor((30000/acc^2 + 3)/8). */
static uint32_t mant_threshold_for(double acc)
{
	return 2 * (uint32_t)((30000.0 / (acc * acc) + 3.0) / 8.0);
}

static int read_mant_threshold(sc_bfp_cfg *cfg, sc_params *p, const char *variant, sc_err *err)
{
	uint64_t mt;
	if (sc_param_u64(p, variant, "mantissa-threshold", 0, 2, SC_BFP_MT_MAX, &mt, err))
		return -1;
	if (mt % 2) {
		sc_err_set(err,
		           "%s: parameter mantissa-threshold=%llu is invalid: expected an even "
		           "integer in [2, %u]",
		           variant, (unsigned long long)mt, SC_BFP_MT_MAX);
		return -1;
	}
	cfg->mant_threshold = (uint32_t)mt;
	return 0;
}

int sc_bfp_config_named(sc_bfp_cfg *cfg, sc_params *p, const char *variant, sc_err *err)
{
	if (sc_param_backoff(p, variant, &cfg->backoff, err))
		return -1;
	bool given_mt = sc_param_present(p, "mantissa-threshold");
	if (given_mt && sc_param_present(p, "accuracy")) {
		sc_err_set(err, "%s: give accuracy or mantissa-threshold, not both", variant);
		return -1;
	}
	if (given_mt)
		return read_mant_threshold(cfg, p, variant, err);
	double acc;
	if (sc_param_double(p, variant, "accuracy", SC_BFP_ACC_DEFAULT, SC_BFP_ACC_MIN,
	                    SC_BFP_ACC_MAX, &acc, err))
		return -1;
	cfg->mant_threshold = mant_threshold_for(acc);
	return 0;
}

/* grow-after: failed CAS in one increment before BFP-CSUP may grow (see sc_bfp.h). */
#define SC_BFP_GROW_AFTER_DEFAULT 1
#define SC_BFP_GROW_AFTER_MAX 16

int sc_bfp_dup_config(sc_bfp_dup_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)env;
	cfg->grow_after = 1; /* unused by DUP */
	return sc_bfp_config_named(cfg, p, "BFP-DUP", err);
}

int sc_bfp_csup_config(sc_bfp_csup_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)env;
	uint64_t after;
	if (sc_param_u64(p, "BFP-CSUP", "grow-after", SC_BFP_GROW_AFTER_DEFAULT, 1,
	                 SC_BFP_GROW_AFTER_MAX, &after, err))
		return -1;
	cfg->grow_after = (uint32_t)after;
	return sc_bfp_config_named(cfg, p, "BFP-CSUP", err);
}

/*
 * The retry loops of both variants. Each round re-decides on the value the
 * failed CAS found (Dice §4.2: "performed before backing off, as this will
 * almost never be the case"), backs off, reloads, and decides again; BFP-CSUP
 * retries may grow the exponent (sc_bfp_csup_next_contended_).
 */
#define SC_BFP_RETRY_(P, NEXT)                                                             \
	void sc_##P##_inc_retry(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_thread *t,      \
	                        uint32_t w, uint32_t r)                                    \
	{                                                                                  \
		for (uint32_t failures = 0;; failures++) {                                 \
			if (!sc_bfp_chosen_(w, &r, &t->rng))                               \
				return;                                                    \
			sc_backoff(&cfg->backoff, failures, &t->rng);                      \
			/* relaxed: a fresh value after the wait, validated by the CAS. */ \
			w = atomic_load_explicit(&c->w, memory_order_relaxed);             \
			if (!sc_bfp_chosen_(w, &r, &t->rng))                               \
				return;                                                    \
			/* strong and relaxed: as in the fast path (sc_bfp.h). */             \
			if (atomic_compare_exchange_strong_explicit(                       \
				    &c->w, &w, NEXT(w, cfg, failures + 1),                 \
				    memory_order_relaxed, memory_order_relaxed))           \
				return;                                                    \
		}                                                                          \
	}
/* DUP's next word ignores how many CAS failed. */
static inline uint32_t bfp_dup_next_retry(uint32_t w, const sc_bfp_cfg *cfg, uint32_t failed)
{
	(void)failed;
	return sc_bfp_dup_next_(w, cfg->mant_threshold);
}
SC_BFP_RETRY_(bfp_dup, bfp_dup_next_retry)
SC_BFP_RETRY_(bfp_csup, sc_bfp_csup_next_contended_)

/* ---- add(n): runs of bumps at e = 0, geometric gaps above (see sc_bfp.h) ------- */

/*
 * Updates from word w (at e = 0) that are plain mantissa bumps, w + 1 each:
 * BFP-DUP until m + 1 would reach MantThreshold, BFP-CSUP's first attempts
 * until the mantissa is full.
 */
static uint64_t bfp_plain_bumps(uint32_t w, const sc_bfp_cfg *cfg, bool csup)
{
	uint32_t m = sc_bfp_mant_(w), limit = SC_BFP_MANT_MAX;
	if (!csup && cfg->mant_threshold - 1 < limit)
		limit = cfg->mant_threshold - 1;
	return m < limit ? limit - m : 0;
}

/* Test hook: counts add's steps (tests/test_bfp_steps.c); nothing in the library. */
#ifndef SC_BFP_TEST_STEP
#define SC_BFP_TEST_STEP()
#endif

/* Below this many plain bumps left at e > 0, BFP-CSUP's add goes update by update. */
#define SC_BFP_BULK_MIN 256u

/*
 * BFP-CSUP's add at e > 0: x updates, each chosen at exponent e_chosen,
 * applied as plain bumps by CAS of w + k, as many as the mantissa holds at
 * a time. Where the CAS finds a higher exponent (other threads grew it),
 * each chosen update is kept with probability 2^-(e - e_chosen), as the
 * increment re-tests its draw; a full mantissa takes one update as the
 * increment's bump (it grows the exponent). Returns the word last seen.
 */
static uint32_t csup_apply_bulk(sc_bfp *c, uint32_t w, uint32_t e_chosen, uint64_t x,
                                uint32_t *rng)
{
	while (x) {
		SC_BFP_TEST_STEP();
		uint32_t e = sc_bfp_exp_(w);
		if (e > e_chosen) {
			x = sc_binomial(x, ldexp(1.0, -(int)(e - e_chosen)), rng);
			e_chosen = e;
			continue;
		}
		uint64_t room = SC_BFP_MANT_MAX - sc_bfp_mant_(w), k = x < room ? x : room;
		uint32_t next = k ? w + (uint32_t)k : sc_bfp_bump_(w);
		/* weak, relaxed: a failure reloads w and the loop re-decides. */
		if (atomic_compare_exchange_weak_explicit(&c->w, &w, next, memory_order_relaxed,
		                                          memory_order_relaxed)) {
			x -= k ? k : 1;
			w = next;
		}
	}
	return w;
}

static void bfp_add(sc_bfp *c, const sc_bfp_cfg *cfg, sc_thread *t, uint64_t n, bool csup)
{
	/* relaxed throughout: see the top of sc_bfp.h. */
	uint32_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	bool bulk_failed = false;
	while (n) {
		SC_BFP_TEST_STEP();
		uint32_t e = sc_bfp_exp_(w), r = 0;
		uint64_t room = SC_BFP_MANT_MAX - sc_bfp_mant_(w);
		if (csup && e > 0 && room >= SC_BFP_BULK_MIN) {
			/*
			 * Many trials at once: a chunk whose successes, Binomial(chunk,
			 * 2^-e), average half the room left, so they all fit as plain
			 * bumps but with probability below exp(-room/6) <= e^-42 (Chernoff),
			 * when they are applied anyway and the excess bumps go on as the
			 * increment's do (growing the exponent at a full mantissa) -
			 * the one departure from n increments' distribution, far below
			 * the 2^-32 resolution of a draw. Each chunk halves the room,
			 * so an exponent takes about log2(2^27/256) chunks.
			 */
			double p = ldexp(1.0, -(int)e);
			double fit = (double)room / 2 / p;
			uint64_t chunk = (double)n < fit ? n : (uint64_t)fit;
			n -= chunk;
			w = csup_apply_bulk(c, w, e, sc_binomial(chunk, p, &t->rng), &t->rng);
			continue;
		}
		if (e == 0 && !bulk_failed && n >= 2) {
			uint64_t k = bfp_plain_bumps(w, cfg, csup);
			k = k < n ? k : n;
			if (k >= 2) {
				/* strong: a failure is contention, answered by one ordinary step. */
				if (atomic_compare_exchange_strong_explicit(&c->w, &w, w + (uint32_t)k,
				                                            memory_order_relaxed,
				                                            memory_order_relaxed)) {
					n -= k;
					w += (uint32_t)k;
				} else {
					bulk_failed = true;
				}
				continue;
			}
		}
		bulk_failed = false;
		if (e > 0) {
			uint64_t gap = sc_geometric_gap(sc_xorshift_dice(&t->rng),
			                                log1p(-ldexp(1.0, -(int)e)));
			if (gap > n)
				return;
			n -= gap - 1;
			/* A draw that passes at e, as sc_bfp_chosen_ tests it: r - 1 has e low zero bits. */
			r = ((sc_xorshift_dice(&t->rng) - 1) & ~((1u << e) - 1)) + 1;
		}
		/* One update, exactly as the increment makes it (r = 0: not drawn yet). */
		n--;
		uint32_t next = csup ? sc_bfp_bump_(w) : sc_bfp_dup_next_(w, cfg->mant_threshold);
		if (atomic_compare_exchange_strong_explicit(&c->w, &w, next, memory_order_relaxed,
		                                            memory_order_relaxed)) {
			w = next;
			continue;
		}
		if (csup)
			sc_bfp_csup_inc_retry(c, cfg, t, w, r);
		else
			sc_bfp_dup_inc_retry(c, cfg, t, w, r);
		w = atomic_load_explicit(&c->w, memory_order_relaxed);
	}
}

void sc_bfp_dup_add(sc_bfp_dup_t *c, const sc_bfp_dup_cfg *cfg, sc_thread *t, uint64_t n)
{
	bfp_add(c, cfg, t, n, false);
}

void sc_bfp_csup_add(sc_bfp_csup_t *c, const sc_bfp_csup_cfg *cfg, sc_thread *t, uint64_t n)
{
	bfp_add(c, cfg, t, n, true);
}

/* ---- describe (sc_bfp.h) -------------------------------------------------------- */

static int bfp_describe(const sc_bfp *c, char *buf, size_t size)
{
	/* relaxed: a snapshot, as get reads it. */
	uint32_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	return snprintf(buf, size, "exp=%u;mant=%u", sc_bfp_exp_(w), sc_bfp_mant_(w));
}

int sc_bfp_dup_describe(const sc_bfp_dup_t *c, const sc_bfp_dup_cfg *cfg, char *buf, size_t size)
{
	(void)cfg;
	return bfp_describe(c, buf, size);
}

int sc_bfp_csup_describe(const sc_bfp_csup_t *c, const sc_bfp_csup_cfg *cfg, char *buf,
                         size_t size)
{
	(void)cfg;
	return bfp_describe(c, buf, size);
}
