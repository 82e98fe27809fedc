/* SPDX-License-Identifier: MIT */
/*
 * sc_morris.h - the float-threshold counters after Morris: Morris and
 * MorrisAdapt (Dice §3, Fig. 1).
 *
 * Morris's counter stores v and represents n(v) = a((1 + 1/a)^v - 1); the
 * stored value goes up by one with probability p(v) = (a/(a+1))^v, so the
 * expected projection equals the number of increments and the variance is
 * n(n-1)/(2a), a relative standard deviation below 1/sqrt(2a) at every n.
 * Dice keeps the threshold T = MaxInt * p(v) as a float instead of v: an
 * update multiplies T by a/(a+1), and a random r in 1 .. MaxInt passes when
 * r <= T. n(v) = a(MaxInt/T - 1) needs no power.
 *
 * Parameter (both variants): accuracy, the RSTDV bound in percent, in
 * [0.5, 50], default 1; a = 1/(2 (accuracy/100)^2) (5000 at 1%). The upper
 * limit keeps a >= 2. The lower one is set by float rounding: T is rounded at
 * each of the ~a ln(MaxInt/a) updates, and for large a the rounded chain
 * drifts from T0 (a/(a+1))^v systematically (largest drift over the whole
 * range: 3e-6 at 1%, 7e-6 at 0.5%, but 2e-4 at 0.2% and 3e-3 at 0.1%, more
 * than the error bound itself).
 *
 * add(n), both variants (out of line, morris.c): n increments' worth of
 * trials at the cost of the updates they make. Instead of one draw per
 * trial it draws the gap to the next successful trial at the current
 * threshold (geometric with p = floor(T)/MaxInt, one draw, sc_geometric_gap)
 * and applies that update by CAS; a CAS that finds a lower threshold keeps
 * the update with probability p_new/p_old (one more draw), as the
 * increment re-checks its draw. Error contract: every trial is applied with
 * the probability of the threshold it lands on, as for n increments, so
 * the result is unbiased and meets the RSTDV bound 1/sqrt(2a) at the count
 * it reaches; uncontended, it has the distribution of n consecutive
 * increments up to the 2^-32 resolution of one draw per gap. Cost: one draw
 * and one CAS per update, about a ln(1 + n/a) of them from 0 (a = 5000 at
 * 1%) and n/(a + count) at a large count, instead of n draws.
 * MorrisAdapt first adds what fits to the exact half (one CAS, while the
 * exact mode lasts and the CAS does not fail switch-after times), then the rest as
 * Morris trials on the Morris half.
 *
 * Every load, CAS and store below is relaxed: a statistics counter publishes
 * no other data, and get may return any value the word has held.
 */
#ifndef SC_MORRIS_H
#define SC_MORRIS_H

#include <string.h>

#include "sc_common.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* Bits of the float 2^32, the initial threshold: (float)(2^32 - 1) rounds up to it. */
#define SC_MORRIS_T0_BITS 0x4f800000u

/* Per-accuracy-class data, shared by all counters of the class (Dice Fig. 1's statics). */
typedef struct sc_morris_cfg {
	float factor;     /* a/(a+1) rounded up to a float: an update multiplies T by it */
	float wrap_below; /* a + 1: an update chosen at a threshold below it wraps */
	double a;         /* 1/(2 acc^2), as asked */
	double scale;     /* factor/(1 - factor): the a that the rounded factor implies */
	double accuracy;  /* the accuracy parameter, percent */
	uint32_t switch_after; /* MorrisAdapt: failed CAS in one increment before it switches */
} sc_morris_cfg;

/* Shared configuration reader (the variant name goes into error messages). */
int sc_morris_config_named(sc_morris_cfg *cfg, sc_params *p, const char *variant, sc_err *err);

static inline float sc_morris_float_(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

static inline uint32_t sc_morris_bits_(float f)
{
	uint32_t bits;
	memcpy(&bits, &f, sizeof bits);
	return bits;
}

/*
 * Projected value of threshold bits: (MaxInt/T - 1) * scale, a real number. scale
 * rather than a: with p(v) = factor^v the unbiased projection is the sum of
 * 1/p(i) for i < v, i.e. (1/p(v) - 1) * factor/(1 - factor), and that must use
 * the factor the updates actually apply (at a = 5000 the float rounding of
 * a/(a+1) moves the implied a by up to 1.5e-4 relative). T0 = 2^32 projects
 * to 0.
 */
static inline double sc_morris_projection(uint32_t tbits, const sc_morris_cfg *cfg)
{
	double v = ((double)UINT32_MAX / (double)sc_morris_float_(tbits) - 1.0) * cfg->scale;
	return v > 0 ? v : 0;
}

/*
 * The projection rounded to the nearest integer (get). Not unbiased for one
 * reading: the projections of small counts lie just above integers, so
 * rounding takes their fraction off; sc_counter_read_and_reset rounds at
 * random instead.
 */
static inline uint64_t sc_morris_project_(uint32_t tbits, const sc_morris_cfg *cfg)
{
	return (uint64_t)(sc_morris_projection(tbits, cfg) + 0.5);
}

/*
 * Decide an update at threshold bits tbits with the draw *r (0 = not drawn
 * yet; xorshift never returns 0). A draw is made only when the outcome is not
 * certain, i.e. below T0. Comparing r <= floor(T) as 64-bit integers avoids
 * Fig. 1's cast of T (2^32 at the start) to unsigned int, which is undefined.
 */
static inline bool sc_morris_chosen_(uint32_t tbits, uint32_t *r, uint32_t *rng)
{
	int64_t floor_t = (int64_t)sc_morris_float_(tbits);
	if (floor_t >= (int64_t)UINT32_MAX)
		return true;
	if (*r == 0)
		*r = sc_xorshift_dice(rng);
	return (int64_t)*r <= floor_t;
}

/*
 * Threshold bits after one update: T * a/(a+1), or back to T0 (the counter
 * wraps to 0, as Fig. 1 does) when T is already below a + 1, where one more
 * multiplication would no longer lower floor(T) by at least one.
 */
static inline uint32_t sc_morris_next_(uint32_t tbits, const sc_morris_cfg *cfg)
{
	float t = sc_morris_float_(tbits);
	if (t < cfg->wrap_below)
		return SC_MORRIS_T0_BITS;
	return sc_morris_bits_(t * cfg->factor);
}

/*
 * Morris (Dice §3.2, Fig. 1): the float threshold T in one 32-bit word.
 * Unbiased; RSTDV sqrt((n-1)/(2a'n)) < 1/sqrt(2a) (1% at the default), a' >= a
 * being the a the rounded factor implies (cfg scale). Exact only as far as
 * the math goes: the first increment always updates (projection 1); the
 * second updates with probability a/(a+1). Range: the projection climbs to
 * about MaxInt (4,295,820,083 at a = 5000, after 68,340 updates; where
 * exactly depends on where the chain of rounded thresholds first falls below
 * a + 1); the next update chosen there (probability about (a+1)/2^32) wraps
 * the counter to 0, as Fig. 1 does. bytes per counter: 4, packed.
 */
typedef struct sc_morris {
	SC_ATOMIC(uint32_t) t; /* bits of the float threshold */
} sc_morris_t;

int sc_morris_config(sc_morris_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err);

SC_OP_SIZEOF(morris)
SC_OP_WORD_INIT_RESET(morris, t, SC_MORRIS_T0_BITS)
SC_OPS_SELF_CONTAINED(morris)

/*
 * Range: the projection of the last threshold above the wrap, which is below
 * (a + 1)/factor, so at least (MaxInt factor/(a + 1) - 1) scale: 4.29e9 at
 * a = 5000 (a conservative bound; the counter wraps a little later).
 */
static inline uint64_t sc_morris_range(const sc_morris_cfg *cfg)
{
	double top = ((double)UINT32_MAX * (double)cfg->factor / (double)cfg->wrap_below - 1.0) *
	             cfg->scale;
	return (uint64_t)top;
}

/*
 * Not for programs: sc_morris_inc with the thread's generator state already
 * loaded (rng, t->rng's value). One draw per increment (none for the very
 * first, whose update is certain). The common case, a draw that does not
 * update, is straight-line code (on the 2-PU KVM guest of an Emerald Rapids
 * host: 2.20 ns per increment against 2.28 for the loop of
 * sc_morris_chosen_ it replaced); the update and its retries follow. A
 * failed CAS re-checks the same draw against the threshold it found, as
 * Fig. 1 does: a draw that passed T_old passes a lower T_new with
 * probability T_new/T_old, so the update happens with the probability of
 * the value it is applied to.
 *
 * A state of 0 (the handle's thread whose context the library has not made:
 * sc_counter_inc passes it on untested) draws 0, which never passes the
 * threshold, so it reaches the update's path, where it changes nothing and
 * returns true: the caller makes the context and increments through the
 * library. The test costs the common path no branch (one branch is a cycle
 * per increment on a core with one branch unit, such as Neoverse N1).
 * Returns false once the increment is done.
 */
SC_ALWAYS_INLINE bool sc_morris_inc_rng_(sc_morris_t *c, const sc_morris_cfg *cfg, sc_thread *t,
                                         uint32_t rng)
{
	uint32_t r = 0;
	/* relaxed: see the top of this file; a stale T only changes the odds as above. */
	uint32_t seen = atomic_load_explicit(&c->t, memory_order_relaxed);
	int64_t floor_t = (int64_t)sc_morris_float_(seen);
	if (__builtin_expect(floor_t < (int64_t)UINT32_MAX, 1)) {
		r = sc_xorshift_dice(&rng); /* 0 stays 0 */
		t->rng = rng;
		if ((int64_t)r > floor_t)
			return false;
	}
	if (rng == 0)
		return true;
	do {
		uint32_t next = sc_morris_next_(seen, cfg);
		/* relaxed: the CAS orders nothing else; on failure it reloads seen. */
		if (atomic_compare_exchange_weak_explicit(&c->t, &seen, next, memory_order_relaxed,
		                                          memory_order_relaxed))
			return false;
	} while (sc_morris_chosen_(seen, &r, &t->rng));
	return false;
}

/* One increment (sc_morris_inc_rng_ says how). */
static inline void sc_morris_inc(sc_morris_t *c, const sc_morris_cfg *cfg, sc_thread *t)
{
	(void)sc_morris_inc_rng_(c, cfg, t, t->rng); /* t->rng is never 0 */
}

void sc_morris_add(sc_morris_t *c, const sc_morris_cfg *cfg, sc_thread *t, uint64_t n);

static inline uint64_t sc_morris_get(const sc_morris_t *c, const sc_morris_cfg *cfg)
{
	/* relaxed: any value the threshold has held is an acceptable reading. */
	return sc_morris_project_(atomic_load_explicit(&c->t, memory_order_relaxed), cfg);
}

/*
 * MorrisAdapt (Dice §3.2): one 64-bit word, the low half an exact count, the
 * high half a Morris threshold (T0 while unused); value = exact + projection
 * of the Morris half.
 *
 * Switching rule: while the Morris half is still T0, an increment adds one to
 * the exact half by CAS. After switch-after consecutive failed CAS in one
 * increment (contention; parameter switch-after, 1 .. 4, default
 * SC_MORRIS_ADAPT_SWITCH_AFTER_DEFAULT), or when the exact half is full (2^32 - 1),
 * the increment goes to the Morris half instead; its first update is certain
 * and moves the half off T0, so from then on every increment uses the Morris
 * half and the exact half stays frozen. One thread alone never fails a
 * (strong) CAS, so it counts exactly up to 2^32 - 1.
 *
 * Error: exact part plus a Morris part of n_m increments with RSTDV below
 * 1/sqrt(2a), so the error is below n_m/sqrt(2a) <= n/sqrt(2a). Range: the
 * exact half's value at the switch (up to 2^32 - 1) plus the Morris range
 * (about 4.3e9 at a = 5000), so up to about 2^33; when the Morris half
 * wraps (an update chosen at T < a + 1), the whole word goes back to its
 * initial state: value 0, exact counting again. bytes per counter: 8, packed.
 *
 * Reset policy: reset keeps the adaptation, as RBONumaAdapt's and
 * MultilineAdapt's do: a counter in exact mode goes back to its initial
 * word; a switched one to SC_MORRIS_ADAPT_ZERO, Morris mode with nothing
 * counted: exact half 0 and, in the Morris half, the float just above
 * 2^32 (T0), which projects to 0, is never on the chain of thresholds, and
 * whose first update is certain and lands on T0's successor, as from T0.
 * Only the Morris half's wrap (out of range) returns it to exact mode.
 *
 * switch-after (1 .. 4, default SC_MORRIS_ADAPT_SWITCH_AFTER_DEFAULT):
 * Dice §3.2 switches "if the CAS fails multiple times", so the default is
 * above 1; the value was measured (see doc/embedding.md, "MorrisAdapt's
 * switch-after"), 1 to 4 in one run.
 */
#define SC_MORRIS_ADAPT_SWITCH_AFTER_DEFAULT 2u
#define SC_MORRIS_ADAPT_SWITCH_AFTER_MAX 4u
#define SC_MORRIS_ADAPT_INIT ((uint64_t)SC_MORRIS_T0_BITS << 32)
/* Threshold bits of the float just above T0: Morris mode, nothing counted (reset). */
#define SC_MORRIS_ADAPT_ZERO_BITS (SC_MORRIS_T0_BITS + 1u)
#define SC_MORRIS_ADAPT_ZERO ((uint64_t)SC_MORRIS_ADAPT_ZERO_BITS << 32)

typedef struct sc_morris_adapt {
	SC_ATOMIC(uint64_t) w; /* high 32 bits: threshold bits; low 32 bits: exact count */
} sc_morris_adapt_t;

typedef sc_morris_cfg sc_morris_adapt_cfg;

int sc_morris_adapt_config(sc_morris_adapt_cfg *cfg, sc_params *p, const sc_env *env,
                           sc_err *err);

SC_OP_SIZEOF(morris_adapt)
SC_OPS_SELF_CONTAINED(morris_adapt)

static inline int sc_morris_adapt_init(sc_morris_adapt_t *c, const sc_morris_adapt_cfg *cfg,
                                       sc_err *err)
{
	(void)cfg;
	(void)err;
	sc_atomic_init(&c->w, SC_MORRIS_ADAPT_INIT);
	return 0;
}

/* The word a reset of w leaves: the adaptation kept (see the reset policy above). */
static inline uint64_t sc_morris_adapt_reset_word(uint64_t w)
{
	return (uint32_t)(w >> 32) == SC_MORRIS_T0_BITS ? SC_MORRIS_ADAPT_INIT : SC_MORRIS_ADAPT_ZERO;
}

/* Only while nothing increments, as every variant's reset. */
static inline void sc_morris_adapt_reset(sc_morris_adapt_t *c, const sc_morris_adapt_cfg *cfg)
{
	(void)cfg;
	/* relaxed: only while nothing increments; the word publishes nothing else. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	atomic_store_explicit(&c->w, sc_morris_adapt_reset_word(w), memory_order_relaxed);
}

/*
 * Range: the Morris half's range. The Morris half counts the increments
 * after the switch, never more than the true count, so no count up to
 * Morris's range wraps it (the exact half alone holds up to 2^32 - 1, less).
 */
static inline uint64_t sc_morris_adapt_range(const sc_morris_adapt_cfg *cfg)
{
	return sc_morris_range(cfg);
}

/* Exact mode: the Morris half unused and room left in the exact half. */
static inline bool sc_morris_adapt_exact_mode_(uint64_t w)
{
	return (uint32_t)(w >> 32) == SC_MORRIS_T0_BITS && (uint32_t)w != UINT32_MAX;
}

/* The word after one Morris-half update: new threshold, same exact half, or all reset. */
static inline uint64_t sc_morris_adapt_next_(uint64_t w, const sc_morris_cfg *cfg)
{
	uint32_t from = (uint32_t)(w >> 32);
	/* after a reset in Morris mode: the first update, as from T0 */
	uint32_t tbits = sc_morris_next_(from == SC_MORRIS_ADAPT_ZERO_BITS ? SC_MORRIS_T0_BITS : from,
	                                 cfg);
	if (tbits == SC_MORRIS_T0_BITS)
		return SC_MORRIS_ADAPT_INIT;
	return (uint64_t)tbits << 32 | (uint32_t)w;
}

static inline void sc_morris_adapt_inc(sc_morris_adapt_t *c, const sc_morris_adapt_cfg *cfg,
                                       sc_thread *t)
{
	/* relaxed: as Morris; the CAS below validates whatever was read. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	/*
	 * The first try of exact mode before anything else: the mode test is one
	 * subtraction and compare (sc_morris_adapt_exact_mode_: the Morris half
	 * at T0 and the exact half below 2^32 - 1 is w - INIT < 2^32 - 1), and
	 * switch-after >= 1 allows it without reading the configuration.
	 */
	uint32_t fails = 0;
	if (__builtin_expect(w - SC_MORRIS_ADAPT_INIT < UINT32_MAX, 1)) {
		/* strong so that a lone thread never fails; relaxed: nothing else is published. */
		if (atomic_compare_exchange_strong_explicit(&c->w, &w, w + 1, memory_order_relaxed,
		                                            memory_order_relaxed))
			return;
		fails = 1;
	}
	for (; sc_morris_adapt_exact_mode_(w) && fails < cfg->switch_after; fails++) {
		/* strong and relaxed: as above. */
		if (atomic_compare_exchange_strong_explicit(&c->w, &w, w + 1, memory_order_relaxed,
		                                            memory_order_relaxed))
			return;
	}
	uint32_t r = 0;
	while (sc_morris_chosen_((uint32_t)(w >> 32), &r, &t->rng)) {
		uint64_t next = sc_morris_adapt_next_(w, cfg);
		/* relaxed: as Morris; a failed CAS reloads w and the same draw is re-checked. */
		if (atomic_compare_exchange_weak_explicit(&c->w, &w, next, memory_order_relaxed,
		                                          memory_order_relaxed))
			return;
	}
}

void sc_morris_adapt_add(sc_morris_adapt_t *c, const sc_morris_adapt_cfg *cfg, sc_thread *t,
                         uint64_t n);

static inline uint64_t sc_morris_adapt_get(const sc_morris_adapt_t *c,
                                           const sc_morris_adapt_cfg *cfg)
{
	/* relaxed: one load gives both halves consistently; any past value will do. */
	uint64_t w = atomic_load_explicit(&c->w, memory_order_relaxed);
	return (uint32_t)w + sc_morris_project_((uint32_t)(w >> 32), cfg);
}

/*
 * describe (morris.c; contract in scounters.h), keys:
 *   Morris       threshold=<T>;updates=<v, the updates applied since the last
 *                reset or wrap: the chain of rounded thresholds from T0 is
 *                walked to T, at most some 10^5 float multiplications>
 *   MorrisAdapt  mode=exact;exact=<the exact half>, or after the switch
 *                mode=morris;switched_at=<the exact half, frozen at the
 *                switch: the increments counted exactly before it>;
 *                threshold=<T>;updates=<v>. The switch is read off the word
 *                the increment writes anyway; nothing is added to its path.
 */
SC_OP_DECLARE_DESCRIBE(morris)
SC_OP_DECLARE_DESCRIBE(morris_adapt)

/*
 * The contract (sc_contract.h): an unbiased estimate with relative
 * standard deviation 1/sqrt(2a) (Dice 3.1; MorrisAdapt's exact half adds
 * no error); one word, so the same in shared memory; not async-signal-safe
 * (a handler would draw from the stream of the code it interrupts).
 */
SC_OP_ONE_READING(morris)
SC_OP_ONE_READING(morris_adapt)
static inline sc_counter_bound sc_morris_bound(const sc_morris_cfg *cfg, sc_reading r)
{
	(void)r;
	return sc_bound_rstdv_(1.0 / __builtin_sqrt(2.0 * cfg->a));
}
static inline sc_counter_bound sc_morris_adapt_bound(const sc_morris_adapt_cfg *cfg, sc_reading r)
{
	return sc_morris_bound(cfg, r);
}
enum {
	SC_PROMISES_morris = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY,
	SC_PROMISES_morris_adapt = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY
};

/*
 * The value for readings that are summed (the handle's read_and_reset): get
 * rounds the closed-form projection to nearest, biased (small counts project
 * just above integers; the closed form is off at rounded thresholds); this
 * is the exact projection (the sum of 1/p over the thresholds passed)
 * rounded at random from the caller's stream *rng, so sums are unbiased.
 * One relaxed load: safe while other threads increment. Never fails.
 */
uint64_t sc_morris_get_unbiased(const sc_morris_t *c, const sc_morris_cfg *cfg, uint32_t *rng);
uint64_t sc_morris_adapt_get_unbiased(const sc_morris_adapt_t *c, const sc_morris_adapt_cfg *cfg,
                                      uint32_t *rng);
static inline sc_handle_path sc_morris_handle_path_(const void *c, const void *cfg)
{
	(void)c;
	(void)cfg;
	return sc_path_of_kind_(SC_PATH_MORRIS); /* the handle inlines sc_morris_inc */
}
#define SC_MORRIS_UNBIASED_(P)                                                             \
	static inline uint64_t sc_##P##_unbiased_(const void *w, const void *cfg, uint32_t *rng) \
	{                                                                                  \
		return sc_##P##_get_unbiased((const sc_##P##_t *)w, (const sc_##P##_cfg *)cfg, rng); \
	}
SC_MORRIS_UNBIASED_(morris)
SC_MORRIS_UNBIASED_(morris_adapt)
#undef SC_MORRIS_UNBIASED_
#define SC_HOOKS_morris {.handle_path = sc_morris_handle_path_, .value_unbiased = sc_morris_unbiased_}
#define SC_HOOKS_morris_adapt {.value_unbiased = sc_morris_adapt_unbiased_}

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_MORRIS_H */
