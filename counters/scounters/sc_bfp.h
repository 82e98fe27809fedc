/* SPDX-License-Identifier: MIT */
/*
 * sc_bfp.h - the binary floating point counters: BFP-DUP and BFP-CSUP (Dice §4).
 *
 * One 32-bit word holds an exponent e (bits 31-28) and a mantissa m (bits
 * 27-0) and represents m * 2^e. An increment is applied with probability
 * 2^-e (the low e bits of a random draw are zero) and then adds 2^e to the
 * projection, either as (m + 1, e) or, when m + 1 is even, as
 * ((m + 1)/2, e + 1), which halves later update probabilities. Only shifts,
 * masks and integer compares: no floating point (Dice §4.1). The two
 * variants differ in when they take the second form.
 *
 * Range: up to (2^28 - 1) * 2^15 = 8,796,092,989,440 (about 2^43); an
 * update chosen at that saturated word (probability 2^-15) wraps it to 0, as
 * Fig. 2 does. bytes per counter: 4, packed.
 *
 * Parameters (both): accuracy, the RSTDV bound in percent, in [0.01, 50],
 * default 1, giving MantThreshold = 2 floor((30000/accuracy^2 + 3)/8) (7500
 * at 1%; Dice §4.2, from sqrt(3/(8M - 3)) <= accuracy/100 with M =
 * MantThreshold/2); or mantissa-threshold, given directly: even, in
 * [2, 2^28] (not both). backoff-min, backoff-max: the randomized backoff
 * between retries (sc_backoff).
 *
 * add(n), both variants (out of line, bfp.c): n increments' worth of
 * trials at the cost of the updates they make. At e = 0, where every trial
 * updates, runs of plain mantissa bumps are applied as one CAS of m + k;
 * at e > 0 it draws the gap to the next successful trial (geometric with
 * p = 2^-e, one draw, sc_geometric_gap) and applies that update as the
 * increment would, through the increment's own retry path when the CAS
 * fails (which re-tests the draw against the exponent it finds). Error
 * contract: the expected gain of every trial is exactly 2^-e * 2^e = 1, as
 * for n increments, so add is unbiased, and the variance is that of the
 * same n increments: uncontended, the result has the distribution of n
 * consecutive increments by one thread (up to the 2^-32 resolution of one
 * draw per gap), so the RSTDV bound sqrt(3/(8M - 3)) (BFP-DUP) holds at the
 * count reached, and BFP-CSUP stays exact up to 2^28 - 1. Cost: one CAS per
 * run of bumps at e = 0 and one draw and CAS per update at e > 0, about
 * n 2^-e at exponent e, instead of n draws. BFP-CSUP at e > 0, where an
 * uncontended update is a plain bump until the mantissa is full (2^27 of
 * them per exponent), takes the trials in chunks instead: the successes of
 * a chunk are drawn at once (sc_binomial, O(log n) draws) and applied as
 * one CAS of m + k, the chunk sized so that they fill half the room left
 * (they overflow it with probability below e^-42, the one departure from
 * n increments' distribution); the last 256 bumps of a mantissa go update
 * by update. So add(n) costs O(log n) steps for any n (about 3,000 for
 * n = 2^42, where it took 2^27 per exponent before).
 *
 * Every atomic is relaxed: the word publishes no other data, and get may
 * return any value it has held.
 */
#ifndef SC_BFP_H
#define SC_BFP_H

#include "sc_common.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

#define SC_BFP_MANT_BITS 28
#define SC_BFP_MANT_MAX ((1u << SC_BFP_MANT_BITS) - 1)
#define SC_BFP_EXP_MAX 15u

typedef struct sc_bfp_cfg {
	uint32_t mant_threshold; /* MantThreshold: even, 2 .. 2^28 */
	uint32_t grow_after;     /* BFP-CSUP: failed CAS in one increment before it may grow */
	sc_backoff_cfg backoff;
} sc_bfp_cfg;

/* The word shared by both variants. */
typedef struct sc_bfp {
	SC_ATOMIC(uint32_t) w; /* e << 28 | m */
} sc_bfp;

/* Shared configuration reader (the variant name goes into error messages). */
int sc_bfp_config_named(sc_bfp_cfg *cfg, sc_params *p, const char *variant, sc_err *err);

static inline uint32_t sc_bfp_exp_(uint32_t w)
{
	return w >> SC_BFP_MANT_BITS;
}

static inline uint32_t sc_bfp_mant_(uint32_t w)
{
	return w & SC_BFP_MANT_MAX;
}

/* Projection m * 2^e of a word; at most 2^43, so it fits in 64 bits. */
static inline uint64_t sc_bfp_value_(uint32_t w)
{
	return (uint64_t)sc_bfp_mant_(w) << sc_bfp_exp_(w);
}

/*
 * Whether to apply an update at word w: always at e = 0 (no draw); else
 * with probability 2^-e, from the draw *r made once per increment (0 = not
 * drawn yet; xorshift never returns 0). r - 1 is uniform on 0 .. 2^32 - 2, so
 * its low e bits are all zero with probability 2^-e (1 + 2^-32); r itself
 * would be short by 2^(e-32). A retry re-tests the same draw against the
 * exponent it found: e never falls (but at the wrap), so a draw that passed
 * 2^-e_old passes 2^-e_new with probability 2^(e_old - e_new), and the update
 * is applied with the probability of the word it lands on.
 */
SC_ALWAYS_INLINE bool sc_bfp_chosen_(uint32_t w, uint32_t *r, uint32_t *rng)
{
	uint32_t e = sc_bfp_exp_(w);
	if (e == 0)
		return true;
	if (*r == 0)
		*r = sc_xorshift_dice(rng);
	return ((*r - 1) & ((1u << e) - 1)) == 0;
}

/* (m + 1, e) as ((m + 1)/2, e + 1); the caller ensures m + 1 is even and e < 15. */
static inline uint32_t sc_bfp_grow_(uint32_t w)
{
	return (sc_bfp_exp_(w) + 1) << SC_BFP_MANT_BITS | (sc_bfp_mant_(w) + 1) >> 1;
}

/*
 * Add 2^e by bumping the mantissa. A full mantissa (2^28 - 1, so m + 1 =
 * 2^28 is even) moves to the next exponent instead, and at e = 15 the
 * counter wraps to 0.
 */
static inline uint32_t sc_bfp_bump_(uint32_t w)
{
	if (sc_bfp_mant_(w) != SC_BFP_MANT_MAX)
		return w + 1;
	return sc_bfp_exp_(w) < SC_BFP_EXP_MAX ? sc_bfp_grow_(w) : 0;
}

/*
 * BFP-DUP (Dice §4.2, Fig. 2): deterministic update policy. The mantissa is
 * bumped until m + 1 would equal MantThreshold; that update stores
 * (MantThreshold/2, e + 1) instead (while e < 15). So the first MantThreshold
 * increments are exact, and the exponent then grows every M = MantThreshold/2
 * updates. Unbiased; RSTDV at most sqrt(3/(8M - 3)) in the limit (Dice §4.2
 * after Csuros; 1.00005% at M = 3750). The bound is tight: summing the
 * variance 2^e - 1 of each increment level by level, the RSTDV peaks at about
 * sqrt(3/(8M)) a third of the way into each exponent level (count
 * MantThreshold 2^e 4/3, e.g. 640,000: 0.99-1.00% measured) and is lower
 * elsewhere (0.93% at 2,000,000). A failed CAS re-decides on the value it
 * found, and only then backs off.
 */
typedef sc_bfp sc_bfp_dup_t;
typedef sc_bfp_cfg sc_bfp_dup_cfg;

int sc_bfp_dup_config(sc_bfp_dup_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err);

static inline uint32_t sc_bfp_dup_next_(uint32_t w, uint32_t mant_threshold)
{
	if (sc_bfp_mant_(w) + 1 == mant_threshold && sc_bfp_exp_(w) < SC_BFP_EXP_MAX)
		return sc_bfp_grow_(w);
	return sc_bfp_bump_(w);
}

/*
 * The retry loop after a failed first CAS (bfp.c): re-decide on the value the
 * CAS found (w), back off, reload, try again. Out of line, so that the inlined
 * fast path is one load, one decision and one CAS. r is the draw made so far.
 */
void sc_bfp_dup_inc_retry(sc_bfp_dup_t *c, const sc_bfp_dup_cfg *cfg, sc_thread *t,
                          uint32_t w, uint32_t r);

SC_ALWAYS_INLINE void sc_bfp_dup_inc(sc_bfp_dup_t *c, const sc_bfp_dup_cfg *cfg, sc_thread *t)
{
	uint32_t r = 0;
	/* relaxed: the CAS validates what was read; see the top of this file. */
	uint32_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	if (!sc_bfp_chosen_(w, &r, &t->rng))
		return;
	/* relaxed: only this word is involved; a failed CAS hands back the new value. */
	if (atomic_compare_exchange_strong_explicit(&c->w, &w, sc_bfp_dup_next_(w, cfg->mant_threshold),
	                                            memory_order_relaxed, memory_order_relaxed))
		return;
	sc_bfp_dup_inc_retry(c, cfg, t, w, r);
}

/*
 * BFP-CSUP (Dice §4.3): contention-sensitive update policy. The first
 * attempt of an increment always bumps the mantissa (so the exponent grows
 * on its own only when the mantissa is full, at 2^28 - 1). Only a retry after
 * grow-after failed CAS in that increment (parameter grow-after, 1 .. 16,
 * default 1: the paper's literal reading, one failure is contention) may grow
 * the exponent, with DUP's rule: when m + 1 >= MantThreshold, and only when
 * m + 1 is even, since (m + 1)/2 must be exact; otherwise the retry bumps the
 * mantissa too. A lone thread never fails a (strong) CAS, so it counts
 * exactly up to 2^28 - 1, then with granularity 2^e on a mantissa of at
 * least 2^27.
 *
 * Steps are not M updates apart: a mantissa far above MantThreshold (left
 * by exact counting) halves at every contended update where m + 1 is even,
 * so from e = 0, m = 29999 four contended updates make three steps; only
 * once m is below MantThreshold does the next step need MantThreshold - m
 * updates. Error contract, from what does hold: every step leaves m >= M =
 * MantThreshold/2 and bumps only raise m, so whenever e > 0 the value v =
 * m 2^e is at least M 2^e: e <= floor(log2(v/M)), which is DUP's exponent
 * at the same value (DUP keeps M <= m < 2M). An increment at exponent e
 * adds variance 2^e - 1, so at every value an increment of CSUP adds at
 * most what one of DUP adds there; increments are unbiased and their errors
 * uncorrelated (martingale differences), so the variances sum as DUP's do
 * and DUP's bound holds: RSTDV at most sqrt(3/(8M - 3)) (1.00005% at the
 * default M = 3750), whatever the contention and grow-after (the cruder
 * 2^e - 1 < v/M alone gives 1/sqrt(2M), valid but 15% looser). Measured
 * errors are far below it (Dice §5.4): fewer steps (a larger grow-after, a
 * lone thread) only lower the variance.
 */
typedef sc_bfp sc_bfp_csup_t;
typedef sc_bfp_cfg sc_bfp_csup_cfg;

int sc_bfp_csup_config(sc_bfp_csup_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err);

static inline uint32_t sc_bfp_csup_next_contended_(uint32_t w, const sc_bfp_cfg *cfg,
                                                   uint32_t failed)
{
	uint32_t m1 = sc_bfp_mant_(w) + 1;
	if (failed >= cfg->grow_after && m1 >= cfg->mant_threshold && (m1 & 1) == 0 &&
	    sc_bfp_exp_(w) < SC_BFP_EXP_MAX)
		return sc_bfp_grow_(w);
	return sc_bfp_bump_(w);
}

/* The retry loop after a failed first CAS (bfp.c); see sc_bfp_dup_inc_retry. */
void sc_bfp_csup_inc_retry(sc_bfp_csup_t *c, const sc_bfp_csup_cfg *cfg, sc_thread *t,
                           uint32_t w, uint32_t r);

SC_ALWAYS_INLINE void sc_bfp_csup_inc(sc_bfp_csup_t *c, const sc_bfp_csup_cfg *cfg, sc_thread *t)
{
	uint32_t r = 0;
	/* relaxed: the CAS validates what was read; see the top of this file. */
	uint32_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	/*
	 * The uncontended path of exact counting first: e = 0 and a mantissa
	 * below its maximum are together w < 2^28 - 1, one compare, and the
	 * update is then certain and w + 1 (what sc_bfp_chosen_ and
	 * sc_bfp_bump_ decide there, without their tests of e and m).
	 */
	uint32_t next;
	if (__builtin_expect(w < SC_BFP_MANT_MAX, 1)) {
		next = w + 1;
	} else {
		if (!sc_bfp_chosen_(w, &r, &t->rng))
			return;
		next = sc_bfp_bump_(w);
	}
	/*
	 * strong: a spurious failure would be taken for contention. relaxed:
	 * only this word is involved; a failed CAS hands back the new value.
	 */
	if (atomic_compare_exchange_strong_explicit(&c->w, &w, next, memory_order_relaxed,
	                                            memory_order_relaxed))
		return;
	sc_bfp_csup_inc_retry(c, cfg, t, w, r);
}

void sc_bfp_dup_add(sc_bfp_dup_t *c, const sc_bfp_dup_cfg *cfg, sc_thread *t, uint64_t n);
void sc_bfp_csup_add(sc_bfp_csup_t *c, const sc_bfp_csup_cfg *cfg, sc_thread *t, uint64_t n);

/* The operations both variants share, stamped out for each. */
#define SC_BFP_OPS_(P)                                                                     \
	static inline uint64_t sc_##P##_get(const sc_##P##_t *c, const sc_##P##_cfg *cfg)  \
	{                                                                                  \
		(void)cfg;                                                                 \
		/* relaxed: any value the word has held is an acceptable reading. */      \
		return sc_bfp_value_(atomic_load_explicit(&c->w, memory_order_relaxed));   \
	}                                                                                  \
	SC_OP_SIZEOF(P)                                                                    \
	SC_OP_WORD_INIT_RESET(P, w, 0)                                                     \
	SC_OPS_SELF_CONTAINED(P)

SC_BFP_OPS_(bfp_dup)
SC_BFP_OPS_(bfp_csup)

/* Range: the saturated word (2^28 - 1) 2^15, about 8.8e12 (see the top). */
#define SC_BFP_RANGE (((UINT64_C(1) << 28) - 1) << 15)

static inline uint64_t sc_bfp_dup_range(const sc_bfp_dup_cfg *cfg)
{
	(void)cfg;
	return SC_BFP_RANGE;
}

static inline uint64_t sc_bfp_csup_range(const sc_bfp_csup_cfg *cfg)
{
	(void)cfg;
	return SC_BFP_RANGE;
}

/*
 * describe (bfp.c; contract in scounters.h), both variants:
 * exp=<e>;mant=<m>, the word's fields (value m 2^e; an update is applied
 * with probability 2^-e). BFP-CSUP's exp > 0 below 2^28 says a retry after
 * contention grew it.
 */
SC_OP_DECLARE_DESCRIBE(bfp_dup)
SC_OP_DECLARE_DESCRIBE(bfp_csup)

/*
 * The contract (sc_contract.h): an unbiased estimate with relative
 * standard deviation sqrt(3/(8M - 3)), M = MantThreshold/2 (Dice 4.2; CSUP's
 * exponent never exceeds DUP's at the same value, so its bound is DUP's);
 * one word, so the same in shared memory; not async-signal-safe (the draw).
 */
SC_OP_ONE_READING(bfp_dup)
SC_OP_ONE_READING(bfp_csup)
static inline sc_counter_bound sc_bfp_dup_bound(const sc_bfp_dup_cfg *cfg, sc_reading r)
{
	(void)r;
	return sc_bound_rstdv_(__builtin_sqrt(3.0 / (4.0 * cfg->mant_threshold - 3.0)));
}
static inline sc_counter_bound sc_bfp_csup_bound(const sc_bfp_csup_cfg *cfg, sc_reading r)
{
	return sc_bfp_dup_bound(cfg, r);
}
enum {
	SC_PROMISES_bfp_dup = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY,
	SC_PROMISES_bfp_csup = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY
};
#define SC_HOOKS_bfp_dup SC_HOOKS_NONE
#define SC_HOOKS_bfp_csup SC_HOOKS_NONE

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_BFP_H */
