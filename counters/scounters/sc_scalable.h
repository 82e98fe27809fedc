/* SPDX-License-Identifier: MIT */
/*
 * sc_scalable.h - Ayers's integer approximate counters: Scalable (alias ayers),
 * ScalableCAS and ScalableCapped.
 *
 * The counter is a plain unsigned integer, 32 or 64 bits (parameter width,
 * default 32). Below 2^T (parameter threshold T, default 13) an increment
 * adds one. From 2^T on, with k = floor(log2 count), it adds 2^s with
 * s = k - (T - 1) (2 from 2^T, 4 from 2^(T+1), ...) with probability 2^-s,
 * the low s bits of an xorshift (13,17,5) draw (or its scrambled form,
 * rng=mix below; less one, see sc_scalable_chosen_) being zero, by one atomic fetch-and-add. The
 * expected gain of every increment is exactly one, so the count is unbiased;
 * at most one draw per increment, none below 2^T.
 *
 * Error (Ayers's binomial estimate): the n_s increments made at step 2^s add
 * 2^s times a Binomial(n_s, 2^-s), variance n_s (2^s - 1). Summed over the
 * steps, counting to n = 2^(T+L) (1 + x), 0 <= x < 1, gives a relative
 * variance of at most (2/3 + 2x)/(2^T (1 + x)^2), so the RSTDV is below
 * sqrt(3/2^(T+2)) at every count (0.957% at T = 13; 0.90% at the powers of
 * two; Ayers's "2 sigma about 2%").
 *
 * Range and overflow: the value holds 0 .. 2^width - 1 (ScalableCAS:
 * 2^(width-1) - 1, below); the declared range is a bound below that
 * (sc_scalable_range). The fetch-and-add wraps modulo
 * 2^width: an update of 2^s at a count within 2^s of the top leaves
 * (count + 2^s) mod 2^width, a small value from which counting resumes
 * (exactly, below 2^T). bytes per counter: width/8 (4 or 8), packed.
 *
 * The step never exceeds 2^32, whatever the width (it reaches 2^32 at count
 * 2^(T+31), 2^44 at T = 13, width 64 only): the generator has 32 bits of
 * state, so no single draw, nor two consecutive ones, can make a rarer event.
 *
 * Parameters: threshold in [1, width - 1], default 13; width 32 or 64;
 * ScalableCapped also cap in [1, 32], default 10. Scalable and
 * ScalableCapped also rng=xorshift (default) or rng=mix, the generator
 * whose draws choose the updates: xorshift is the .NET runtime's
 * sc_xorshift_ayers, mix the same step with murmur3's fmix32 scrambling
 * its output (sc_xorshift_mix, sc_random.h), a better quality draw at two
 * multiplications more per draw (Ayers: "a better quality RNG might
 * improve accuracy but would create more overhead"). Same state, same
 * contract: the RSTDV bound above holds for both, each draw being uniform
 * on 1 .. 2^32 - 1 over the generator's period. ScalableCAS keeps xorshift
 * (its increment calls the chooser directly). Scalable's runtime=dotnet
 * takes xorshift only: it models the runtime's helper, generator included.
 *
 * add(n), all three (out of line, scalable.c): n increments' worth of
 * trials at the cost of the updates they make. Below 2^T the trials that
 * fit below 2^T are added by one fetch-and-add; above, it draws the gap to
 * the next successful trial at the step 2^s chosen from the count seen
 * (geometric with p = 2^-s, one draw, sc_geometric_gap) and adds 2^s by
 * fetch-and-add. Error contract: every trial has an expected gain of exactly
 * 2^-s * 2^s = 1, whatever count it was chosen at, so add is unbiased, with
 * the variance of the same n increments; uncontended it has their
 * distribution (up to the 2^-32 resolution of one draw per gap), hence the
 * RSTDV bound sqrt(3/2^(T+2)) at the count reached. ScalableCAS first tries
 * one CAS of count + n while in exact mode (exact; a lone thread is exact
 * over the whole range) and on failure switches mode as its increment does. Cost: one fetch-and-add below
 * 2^T, then one draw and one fetch-and-add per update, about n 2^-s.
 *
 * Every atomic is relaxed: the counter publishes no other data, and get may
 * return any value the word has held.
 */
#ifndef SC_SCALABLE_H
#define SC_SCALABLE_H

#include "sc_common.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * The counter: an SC_ATOMIC(uint32_t) or SC_ATOMIC(uint64_t), as the
 * configuration's width says, so a packed array is dense (sc_scalable_size
 * bytes apart). The type is deliberately incomplete: point it at storage of
 * sc_scalable_size(cfg) bytes aligned to 8, e.g. malloc'd memory, the
 * sc_table helper, or the union below for a single counter.
 */
typedef struct sc_scalable_word sc_scalable_t;

/* Storage for one counter of either width: (sc_scalable_t *)&storage. */
typedef union sc_scalable_storage {
	SC_ATOMIC(uint32_t) w32;
	SC_ATOMIC(uint64_t) w64;
} sc_scalable_storage;

#define SC_SCALABLE_STEP_MAX 32u /* largest step exponent: see above */

typedef struct sc_scalable_cfg {
	uint32_t width;     /* 32 or 64 */
	uint32_t threshold; /* T: exact below 2^T */
	uint32_t cap;       /* largest step exponent: the cap, or SC_SCALABLE_STEP_MAX */
	uint32_t alt; /* SC_SCALABLE_AYERS, SC_SCALABLE_MIX or SC_SCALABLE_DOTNET */
	uint64_t range;     /* the declared range, a bound (sc_scalable_range) */
} sc_scalable_cfg;

/*
 * The increment a configuration takes, cfg->alt: one field, so the default
 * path tests one word as it did before rng=mix (a second field would add a
 * test to every increment).
 */
#define SC_SCALABLE_AYERS 0u /* Ayers's increment, xorshift draws (rng=xorshift) */
#define SC_SCALABLE_DOTNET 1u /* Scalable runtime=dotnet: the shipped helper's behaviour */
#define SC_SCALABLE_MIX 2u /* Ayers's increment, scrambled draws (rng=mix) */

/* Shared configuration reader; cap is read only when capped is true. */
int sc_scalable_config_named(sc_scalable_cfg *cfg, sc_params *p, const char *variant,
                             bool capped, sc_err *err);

static inline SC_ATOMIC(uint32_t) *sc_scalable_w32_(sc_scalable_t *c)
{
	return (SC_ATOMIC(uint32_t) *)(void *)c;
}

static inline SC_ATOMIC(uint64_t) *sc_scalable_w64_(sc_scalable_t *c)
{
	return (SC_ATOMIC(uint64_t) *)(void *)c;
}

static inline const SC_ATOMIC(uint32_t) *sc_scalable_cw32_(const sc_scalable_t *c)
{
	return (const SC_ATOMIC(uint32_t) *)(const void *)c;
}

static inline const SC_ATOMIC(uint64_t) *sc_scalable_cw64_(const sc_scalable_t *c)
{
	return (const SC_ATOMIC(uint64_t) *)(const void *)c;
}

/* floor(log2 x) for x >= 1. */
static inline unsigned sc_scalable_log2_(uint64_t x)
{
#if defined(__GNUC__)
	return 63u - (unsigned)__builtin_clzll(x);
#else
	unsigned k = 0;
	while (x >>= 1)
		k++;
	return k;
#endif
}

/* Step exponent s at a count: 0 below 2^T, else floor(log2 count) - (T - 1), at most cap. */
static inline unsigned sc_scalable_shift_(uint64_t count, const sc_scalable_cfg *cfg)
{
	if ((count >> cfg->threshold) == 0)
		return 0;
	unsigned s = sc_scalable_log2_(count) - (cfg->threshold - 1);
	return s < cfg->cap ? s : cfg->cap;
}

/* One draw of the configured generator; mix is a constant at every call site. */
static inline uint32_t sc_scalable_draw_(uint32_t *rng, bool mix)
{
	return mix ? sc_xorshift_mix(rng) : sc_xorshift_ayers(rng);
}

/*
 * True with probability 2^-s, 1 <= s <= 32: r - 1 is uniform on 0 .. 2^32 - 2
 * (neither generator ever returns 0), so its low s bits are all zero with
 * probability 2^-s (1 + 2^-32); Ayers's test on r itself would be short by
 * 2^(s-32), half the intended odds at s = 31.
 */
static inline bool sc_scalable_chosen_(unsigned s, uint32_t *rng, bool mix)
{
	uint32_t r = sc_scalable_draw_(rng, mix) - 1;
	return (r & (UINT32_MAX >> (32 - s))) == 0;
}

/*
 * Apply an update chosen at step 2^s (s >= 1) to the word, whose value bits
 * are mask, and return the word after it. The step is re-validated against
 * the word the CAS finds: a count that only grew keeps the (smaller, stale)
 * step 2^s, as before; a count that fell meanwhile (a read_and_reset or a
 * wrap crossed it, between the load that chose s and this update) has a
 * smaller step s' < s, and the update adds 2^s' instead: the draw that
 * passed 2^-s (low s bits zero) passes 2^-s' too. So below 2^T every update
 * adds exactly one whatever count it was chosen at, and "exact below 2^T"
 * holds for every reading; the increment is counted after the reset (the
 * unchosen ones, which never write, count before it, where their load was).
 * A CAS rather than a fetch-and-add only on this path, taken with
 * probability 2^-s.
 */
#define SC_SCALABLE_APPLY_(W, T)                                                                \
	static inline T sc_scalable_apply##W##_(SC_ATOMIC(T) *w, T cur, unsigned s, T mask,     \
	                                        const sc_scalable_cfg *cfg)                     \
	{                                                                                       \
		for (;;) {                                                                      \
			unsigned now = sc_scalable_shift_(cur & mask, cfg);                     \
			T next = cur + ((T)1 << (now < s ? now : s));                           \
			/* weak, relaxed: a failure reloads cur and re-validates; */            \
			/* nothing else is published. */                                        \
			if (atomic_compare_exchange_weak_explicit(w, &cur, next,                \
			                                          memory_order_relaxed,         \
			                                          memory_order_relaxed))        \
				return next;                                                    \
		}                                                                               \
	}
SC_SCALABLE_APPLY_(32, uint32_t)
SC_SCALABLE_APPLY_(64, uint64_t)

/*
 * One trial at the word seen (possibly stale; mask keeps its value bits):
 * below 2^T add one, else with probability 2^-s add 2^s (re-validated, see
 * above). An expected gain of one. mix picks the generator (a constant at
 * every call site, so each inlined copy draws from one).
 */
SC_ALWAYS_INLINE void sc_scalable_add32_(SC_ATOMIC(uint32_t) *w, uint32_t seen, uint32_t mask,
                                         const sc_scalable_cfg *cfg, uint32_t *rng, bool mix)
{
	unsigned s = sc_scalable_shift_(seen & mask, cfg);
	if (s == 0) {
		/* relaxed: the add is atomic whatever the order; nothing else is published. */
		atomic_fetch_add_explicit(w, 1, memory_order_relaxed);
		return;
	}
	if (sc_scalable_chosen_(s, rng, mix))
		sc_scalable_apply32_(w, seen, s, mask, cfg);
}

SC_ALWAYS_INLINE void sc_scalable_add64_(SC_ATOMIC(uint64_t) *w, uint64_t seen, uint64_t mask,
                                         const sc_scalable_cfg *cfg, uint32_t *rng, bool mix)
{
	unsigned s = sc_scalable_shift_(seen & mask, cfg);
	if (s == 0) {
		/* relaxed: as above. */
		atomic_fetch_add_explicit(w, 1, memory_order_relaxed);
		return;
	}
	if (sc_scalable_chosen_(s, rng, mix))
		sc_scalable_apply64_(w, seen, s, mask, cfg);
}

/*
 * Scalable (alias ayers; Ayers, "The Scalable Counter"): read the count,
 * choose the step from it, maybe add it. A stale read only makes the step
 * smaller (the count only grows, but at a wrap or reset, where the chosen
 * update is re-validated: sc_scalable_apply32_), which keeps the increment
 * unbiased and its variance no larger. Exact below 2^T, in every reading.
 *
 * Parameter runtime=ayers (default) or runtime=dotnet. dotnet reproduces
 * what the .NET runtime's profile-count helpers (JIT_CountProfile32/64 in
 * dotnet/runtime, src/coreclr/vm/jithelpers.cpp) do, so a user can see the
 * shipped behaviour next to Ayers's:
 *  - every thread's generator starts at 100 (sc_scalable_thread_seed; the
 *    runtime shares that per-thread generator with other profiling, which
 *    no benchmark here reproduces), so all threads draw the same sequence;
 *  - the test is on the draw itself, (r & (2^s - 1)) == 0, probability
 *    (2^(32-s) - 1)/(2^32 - 1) rather than 2^-s: a slight downward bias;
 *  - width 32 reads the count as signed: from 2^31 on it is negative and
 *    every increment adds 1 exactly (fetch-and-add wraps modulo 2^32 as the
 *    runtime's interlocked add does);
 *  - width 64 takes the step from the 64-bit count but the draw stays 32
 *    bits, so from 2^(T+31) (2^44 at T = 13) the test needs r == 0, which
 *    xorshift never returns: the count stops. Its range is 2^(T+31) - 1.
 * The step is 2^(k - (T - 1)) from count 2^T on, as in Ayers's form.
 * runtime=dotnet with rng=mix is refused: the helper's generator is xorshift.
 */
int sc_scalable_config(sc_scalable_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err);

/* The runtime's generator seed, the same for every thread (runtime=dotnet). */
#define SC_SCALABLE_DOTNET_SEED 100u

/* The seed every thread's counter stream must start from, or 0 for per-thread seeds. */
static inline uint32_t sc_scalable_thread_seed(const sc_scalable_cfg *cfg)
{
	return cfg->alt == SC_SCALABLE_DOTNET ? SC_SCALABLE_DOTNET_SEED : 0;
}

/*
 * runtime=dotnet's increment, out of line (scalable.c) as the runtime's
 * helper is a call from JIT-compiled code; it keeps Ayers's inlined path small.
 */
/*
 * Takes the width, threshold and generator state by value and returns the
 * new state, so that a caller's configuration and context never have their
 * address taken: a loop over sc_scalable_inc then keeps them in registers
 * (an escaped context spills the generator state to memory at every
 * increment, a store-to-load chain that made Ayers's path cost more than
 * Morris's).
 */
uint32_t sc_scalable_dotnet_inc(sc_scalable_t *c, uint32_t width, uint32_t threshold,
                                uint32_t rng);

/*
 * Ayers's increment, drawing from xorshift (mix false) or its scrambled form
 * (mix true), with the thread's generator state already loaded (rng,
 * t->rng's value). It draws on a local copy and stores it back. Not for
 * programs.
 */
SC_ALWAYS_INLINE void sc_scalable_inc_draw_(sc_scalable_t *c, const sc_scalable_cfg *cfg,
                                            sc_thread *t, uint32_t rng, bool mix)
{
	if (cfg->width == 32) {
		SC_ATOMIC(uint32_t) *w = sc_scalable_w32_(c);
		/* relaxed: the value only picks the step; see above. */
		sc_scalable_add32_(w, atomic_load_explicit(w, memory_order_relaxed), UINT32_MAX,
		                   cfg, &rng, mix);
	} else {
		SC_ATOMIC(uint64_t) *w = sc_scalable_w64_(c);
		/* relaxed: the value only picks the step; see above. */
		sc_scalable_add64_(w, atomic_load_explicit(w, memory_order_relaxed), UINT64_MAX,
		                   cfg, &rng, mix);
	}
	t->rng = rng;
}

/*
 * Ayers's increment on xorshift (cfg->alt is SC_SCALABLE_AYERS), with the
 * thread's generator state already loaded (the handle's increment tests it
 * for 0 and passes the same load on). Not for programs.
 */
SC_ALWAYS_INLINE void sc_scalable_ayers_inc_rng_(sc_scalable_t *c, const sc_scalable_cfg *cfg,
                                                 sc_thread *t, uint32_t rng)
{
	sc_scalable_inc_draw_(c, cfg, t, rng, false);
}

/* Ayers's increment (cfg->alt is SC_SCALABLE_AYERS): what sc_scalable_inc does then. */
SC_ALWAYS_INLINE void sc_scalable_ayers_inc_(sc_scalable_t *c, const sc_scalable_cfg *cfg,
                                             sc_thread *t)
{
	sc_scalable_ayers_inc_rng_(c, cfg, t, t->rng);
}

SC_ALWAYS_INLINE void sc_scalable_inc(sc_scalable_t *c, const sc_scalable_cfg *cfg, sc_thread *t)
{
	/*
	 * The default tests one field, as before rng=mix; rng=mix is inlined
	 * too (a call would add its own cost to the generator's), dotnet a call.
	 */
	if (cfg->alt == SC_SCALABLE_AYERS)
		sc_scalable_ayers_inc_(c, cfg, t);
	else if (cfg->alt == SC_SCALABLE_MIX)
		sc_scalable_inc_draw_(c, cfg, t, t->rng, true);
	else
		t->rng = sc_scalable_dotnet_inc(c, cfg->width, cfg->threshold, t->rng);
}

/*
 * ScalableCapped (Dice §4's point, Ayers's end notes): Scalable with the step
 * never above 2^cap (default 2^10, reached at count 2^(T+9)): past that, the
 * update rate stays 2^-cap, already too low to contend, and the error grows
 * no further in absolute terms, so the RSTDV falls like 1/sqrt(count). Its
 * RSTDV is at most Scalable's at every count. Range and overflow as Scalable.
 */
typedef sc_scalable_t sc_scalable_capped_t;
typedef sc_scalable_cfg sc_scalable_capped_cfg;

int sc_scalable_capped_config(sc_scalable_capped_cfg *cfg, sc_params *p, const sc_env *env,
                              sc_err *err);

static inline void sc_scalable_capped_inc(sc_scalable_capped_t *c,
                                          const sc_scalable_capped_cfg *cfg, sc_thread *t)
{
	sc_scalable_inc(c, cfg, t);
}

void sc_scalable_add(sc_scalable_t *c, const sc_scalable_cfg *cfg, sc_thread *t, uint64_t n);
void sc_scalable_capped_add(sc_scalable_capped_t *c, const sc_scalable_capped_cfg *cfg,
                            sc_thread *t, uint64_t n);

/* The operations the three share, stamped out for each. */
#define SC_SCALABLE_OPS_(P)                                                                \
	static inline size_t sc_##P##_size(const sc_##P##_cfg *cfg)                        \
	{                                                                                  \
		return cfg->width / 8;                                                     \
	}                                                                                  \
	static inline int sc_##P##_init(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_err *err) \
	{                                                                                  \
		(void)err;                                                                 \
		if (cfg->width == 32)                                                      \
			sc_atomic_init(sc_scalable_w32_(c), 0);                               \
		else                                                                       \
			sc_atomic_init(sc_scalable_w64_(c), 0);                               \
		return 0;                                                                  \
	}                                                                                  \
	SC_OPS_SELF_CONTAINED(P)

/* Scalable and ScalableCapped: the word is the value. */
#define SC_SCALABLE_GET_RESET_(P)                                                          \
	static inline uint64_t sc_##P##_get(const sc_##P##_t *c, const sc_##P##_cfg *cfg)  \
	{                                                                                  \
		/* relaxed: any value the word has held is an acceptable reading. */      \
		if (cfg->width == 32)                                                      \
			return atomic_load_explicit(sc_scalable_cw32_(c), memory_order_relaxed); \
		return atomic_load_explicit(sc_scalable_cw64_(c), memory_order_relaxed);   \
	}                                                                                  \
	static inline void sc_##P##_reset(sc_##P##_t *c, const sc_##P##_cfg *cfg)          \
	{                                                                                  \
		/* relaxed: only while nothing increments; later ones start after a barrier. */ \
		if (cfg->width == 32)                                                      \
			atomic_store_explicit(sc_scalable_w32_(c), 0, memory_order_relaxed); \
		else                                                                       \
			atomic_store_explicit(sc_scalable_w64_(c), 0, memory_order_relaxed); \
	}

SC_SCALABLE_OPS_(scalable)
SC_SCALABLE_OPS_(scalable_capped)
SC_SCALABLE_GET_RESET_(scalable)
SC_SCALABLE_GET_RESET_(scalable_capped)

/*
 * Range, all three: a bound, not where the value is expected to wrap. The
 * word wraps once the value passes top = 2^width - 2^s (ScalableCAS:
 * 2^(width-1) - 2^s), s being the step there, since one update there can
 * carry out; runtime=dotnet's width 32 at 2^32, its width 64 stops at
 * 2^(T+31). The value at a true count n has mean n and standard deviation
 * below sigma n, sigma = sqrt(3/2^(T+2)) (see the top of this file), so the
 * declared range is top/(1 + 6 sigma): a run that counts up to it wraps
 * with probability below 1e-7 (Bernstein's inequality, the updates being
 * at most 2^s, far below sigma n); beyond it scbench sets overflowed. At
 * the defaults (T = 13): 4.06e9 at width 32 (top 2^32 - 2^19), 2.03e9 for
 * ScalableCAS (2^31 - 2^18), 1.74e19 at width 64. Computed by the
 * configuration (scalable.c).
 */
static inline uint64_t sc_scalable_range(const sc_scalable_cfg *cfg)
{
	return cfg->range;
}

static inline uint64_t sc_scalable_capped_range(const sc_scalable_capped_cfg *cfg)
{
	return sc_scalable_range(cfg);
}

/*
 * describe (scalable.c; contract in scounters.h):
 * Scalable, ScalableCapped: delta=<2^s, the step an update adds at the
 * current count (1 below 2^T), applied with probability 1/delta;
 * ScalableCapped's stops at 2^cap>.
 */
SC_OP_DECLARE_DESCRIBE(scalable)
SC_OP_DECLARE_DESCRIBE(scalable_capped)

SC_API_END
#ifdef __cplusplus
}
#endif

/* ScalableCAS, the family's third variant. */
#include "sc_scalable_cas.h"

#endif /* SC_SCALABLE_H */
