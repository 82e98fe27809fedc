/* SPDX-License-Identifier: MIT */
/* morris.c - configuration of the float-threshold counters (sc_morris.h). */
#include <scounters/sc_morris.h>

#include <math.h>
#include <stdio.h>

/* Accuracy in percent RSTDV; see sc_morris.h for why the range is [0.5, 50]. */
#define SC_MORRIS_ACC_MIN 0.5
#define SC_MORRIS_ACC_MAX 50.0
#define SC_MORRIS_ACC_DEFAULT 1.0

/*
 * The smallest float >= x (0 < x < 1). Rounding the factor up makes the
 * implied a, factor/(1 - factor), at least the requested a, so the RSTDV
 * bound 1/sqrt(2a) holds for the chain actually stored.
 */
static float factor_rounded_up(double x)
{
	float f = (float)x;
	if ((double)f < x)
		f = sc_morris_float_(sc_morris_bits_(f) + 1);
	return f;
}

int sc_morris_config_named(sc_morris_cfg *cfg, sc_params *p, const char *variant, sc_err *err)
{
	double acc;
	if (sc_param_double(p, variant, "accuracy", SC_MORRIS_ACC_DEFAULT, SC_MORRIS_ACC_MIN,
	                    SC_MORRIS_ACC_MAX, &acc, err))
		return -1;
	double frac = acc / 100.0;
	cfg->accuracy = acc;
	cfg->a = 1.0 / (2.0 * frac * frac);
	cfg->factor = factor_rounded_up(cfg->a / (cfg->a + 1.0));
	cfg->wrap_below = (float)(cfg->a + 1.0);
	cfg->scale = (double)cfg->factor / (1.0 - (double)cfg->factor);
	cfg->switch_after = SC_MORRIS_ADAPT_SWITCH_AFTER_DEFAULT;
	return 0;
}

int sc_morris_config(sc_morris_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)env;
	return sc_morris_config_named(cfg, p, "Morris", err);
}

int sc_morris_adapt_config(sc_morris_adapt_cfg *cfg, sc_params *p, const sc_env *env,
                           sc_err *err)
{
	(void)env;
	uint64_t after;
	if (sc_morris_config_named(cfg, p, "MorrisAdapt", err) ||
	    sc_param_u64(p, "MorrisAdapt", "switch-after", SC_MORRIS_ADAPT_SWITCH_AFTER_DEFAULT, 1,
	                 SC_MORRIS_ADAPT_SWITCH_AFTER_MAX, &after, err))
		return -1;
	cfg->switch_after = (uint32_t)after;
	return 0;
}

/* ---- add(n): geometric gaps between updates (see sc_morris.h) ---------------- */

/* Probability that a trial at threshold bits tbits updates, as sc_morris_chosen_ decides. */
static double morris_p(uint32_t tbits)
{
	int64_t floor_t = (int64_t)sc_morris_float_(tbits);
	return floor_t >= (int64_t)UINT32_MAX ? 1.0 : (double)floor_t / (double)UINT32_MAX;
}

/*
 * Trials up to and including the next update at threshold bits tbits (1 when
 * the update is certain); *p receives the probability used.
 */
static uint64_t morris_gap(uint32_t tbits, double *p, uint32_t *rng)
{
	*p = morris_p(tbits);
	return *p >= 1.0 ? 1 : sc_geometric_gap(sc_xorshift_dice(rng), log1p(-*p));
}

/* After a failed CAS: keep an update chosen at probability p_old now that it is p_new? */
static bool morris_still_chosen(double p_old, double p_new, uint32_t *rng)
{
	return p_new >= p_old || (double)sc_xorshift_dice(rng) * 0x1p-32 * p_old < p_new;
}

/*
 * n trials on a word of type T (one Morris word, or MorrisAdapt's whole
 * word) holding threshold bits TBITS(w); NEXT(w, cfg) is the word after one
 * update. Skips to each update by its gap, then applies it by CAS, keeping
 * it after a failed CAS only as morris_still_chosen says.
 */
#define SC_MORRIS_TRIALS_(NAME, T, TBITS, NEXT)                                            \
	static void NAME(SC_ATOMIC(T) *word, const sc_morris_cfg *cfg, uint32_t *rng,      \
	                 uint64_t n)                                                       \
	{                                                                                  \
		/* relaxed throughout: see the top of sc_morris.h. */                      \
		T w = atomic_load_explicit(word, memory_order_relaxed);                    \
		while (n) {                                                                \
			double p;                                                          \
			uint64_t gap = morris_gap(TBITS(w), &p, rng);                      \
			if (gap > n)                                                       \
				return;                                                    \
			n -= gap;                                                          \
			for (;;) {                                                         \
				T next = NEXT(w, cfg);                                     \
				if (atomic_compare_exchange_weak_explicit(                 \
					    word, &w, next, memory_order_relaxed,          \
					    memory_order_relaxed)) {                       \
					w = next;                                          \
					break;                                             \
				}                                                          \
				double p_new = morris_p(TBITS(w));                         \
				if (!morris_still_chosen(p, p_new, rng))                   \
					break;                                             \
				p = p_new;                                                 \
			}                                                                  \
		}                                                                          \
	}
#define SC_MORRIS_TBITS32_(w) (w)
#define SC_MORRIS_TBITS64_(w) ((uint32_t)((w) >> 32))
SC_MORRIS_TRIALS_(morris_trials, uint32_t, SC_MORRIS_TBITS32_, sc_morris_next_)
SC_MORRIS_TRIALS_(morris_adapt_trials, uint64_t, SC_MORRIS_TBITS64_, sc_morris_adapt_next_)

void sc_morris_add(sc_morris_t *c, const sc_morris_cfg *cfg, sc_thread *t, uint64_t n)
{
	morris_trials(&c->t, cfg, &t->rng, n);
}

void sc_morris_adapt_add(sc_morris_adapt_t *c, const sc_morris_adapt_cfg *cfg, sc_thread *t,
                         uint64_t n)
{
	/* relaxed: as Morris; the CAS below validates what was read. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	for (uint32_t fails = 0; n && sc_morris_adapt_exact_mode_(w) && fails < cfg->switch_after;
	     fails++) {
		uint64_t room = UINT32_MAX - (uint32_t)w, k = n < room ? n : room;
		/* strong: as the increment, a lone thread never fails; relaxed: as Morris. */
		if (atomic_compare_exchange_strong_explicit(&c->w, &w, w + k, memory_order_relaxed,
		                                            memory_order_relaxed)) {
			n -= k; /* done, or the exact half is full */
			w += k;
		}
	}
	morris_adapt_trials(&c->w, cfg, &t->rng, n);
}

/* ---- describe (sc_morris.h) --------------------------------------------------- */

/*
 * Updates that lead from T0 to threshold bits tbits: the chain sc_morris_next_
 * makes, walked step by step (it ends where the next update would wrap).
 * -1 if tbits is not on the chain (only a word written by hand can be off it).
 */
static long morris_updates(uint32_t tbits, const sc_morris_cfg *cfg)
{
	uint32_t b = SC_MORRIS_T0_BITS;
	for (long v = 0;; v++) {
		if (b == tbits)
			return v;
		uint32_t next = sc_morris_next_(b, cfg);
		if (next == SC_MORRIS_T0_BITS)
			return -1;
		b = next;
	}
}

static int morris_describe_threshold(char *buf, size_t size, const char *prefix, uint32_t tbits,
                                     const sc_morris_cfg *cfg)
{
	return snprintf(buf, size, "%sthreshold=%.9g;updates=%ld", prefix,
	                (double)sc_morris_float_(tbits), morris_updates(tbits, cfg));
}

int sc_morris_describe(const sc_morris_t *c, const sc_morris_cfg *cfg, char *buf, size_t size)
{
	/* relaxed: a snapshot, as get reads it. */
	return morris_describe_threshold(buf, size, "",
	                                 atomic_load_explicit(&c->t, memory_order_relaxed), cfg);
}

int sc_morris_adapt_describe(const sc_morris_adapt_t *c, const sc_morris_adapt_cfg *cfg,
                             char *buf, size_t size)
{
	/* relaxed: one load gives both halves consistently, as in get. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	uint32_t tbits = (uint32_t)(w >> 32), exact = (uint32_t)w;
	if (tbits == SC_MORRIS_T0_BITS)
		return snprintf(buf, size, "mode=exact;exact=%u", exact);
	if (tbits == SC_MORRIS_ADAPT_ZERO_BITS) /* reset in Morris mode: T0, no update yet */
		tbits = SC_MORRIS_T0_BITS;
	char prefix[48];
	snprintf(prefix, sizeof prefix, "mode=morris;switched_at=%u;", exact);
	return morris_describe_threshold(buf, size, prefix, tbits, cfg);
}

/* ---- unbiased readings (sc_morris_get_unbiased) ---------------------------------- */

/*
 * x rounded to an integer at random, up with probability frac(x): unbiased
 * (E = x), unlike rounding to nearest, which at a Morris projection of
 * n + 0.087 (30 increments at a = 5000) always takes 0.087 off. The uniform
 * has 2^-32 resolution.
 */
static uint64_t round_randomly(double x, uint32_t *rng)
{
	double whole = floor(x);
	double u = (double)(sc_xorshift_dice(rng) - 1) * 0x1p-32;
	return (uint64_t)whole + (u < x - whole ? 1 : 0);
}

/*
 * The unbiased projection of Morris threshold bits tbits, exactly: the sum
 * of 1/p over the thresholds the chain passed through from T0, p being the
 * probability with which an update is applied at each (sc_morris_chosen_:
 * floor(T)/MaxInt, 1 at T0). sc_morris_projection's closed form,
 * (MaxInt/T - 1) scale, is that sum only for thresholds that are exact
 * powers of the factor; the stored ones are rounded to float at every step,
 * and the closed form's error at them is a bias that does not average out
 * (about -1e-4 per reading of 2 increments at a = 5000: 2 increments read
 * as 1.9999006 on average). The walk costs one float multiplication and one
 * division per update applied since T0, a ln(1 + n/a) of them at count n
 * (26,500 at n = 10^6, a = 5000). A tbits not on the chain (only a word
 * not made by the increments) takes the closed form once the walk passes it.
 */
static double morris_exact_projection(uint32_t tbits, const sc_morris_cfg *cfg)
{
	if (tbits == SC_MORRIS_ADAPT_ZERO_BITS) /* MorrisAdapt's reset word: nothing counted */
		return 0.0;
	double sum = 0.0;
	float target = sc_morris_float_(tbits);
	for (uint32_t at = SC_MORRIS_T0_BITS; at != tbits;) {
		float t = sc_morris_float_(at);
		if (t < target)
			return sc_morris_projection(tbits, cfg);
		int64_t floor_t = (int64_t)t;
		sum += floor_t >= (int64_t)UINT32_MAX ? 1.0 : (double)UINT32_MAX / (double)floor_t;
		at = sc_morris_next_(at, cfg);
		if (at == SC_MORRIS_T0_BITS) /* wrapped: tbits is not on the chain */
			return sc_morris_projection(tbits, cfg);
	}
	return sum;
}

uint64_t sc_morris_get_unbiased(const sc_morris_t *c, const sc_morris_cfg *cfg, uint32_t *rng)
{
	/* relaxed: as sc_morris_get. */
	uint32_t tbits = atomic_load_explicit(&c->t, memory_order_relaxed);
	return round_randomly(morris_exact_projection(tbits, cfg), rng);
}

uint64_t sc_morris_adapt_get_unbiased(const sc_morris_adapt_t *c, const sc_morris_adapt_cfg *cfg,
                                      uint32_t *rng)
{
	/* relaxed: as sc_morris_adapt_get. */
	uint64_t word = atomic_load_explicit(&c->w, memory_order_relaxed);
	return (uint32_t)word + round_randomly(morris_exact_projection((uint32_t)(word >> 32), cfg), rng);
}
