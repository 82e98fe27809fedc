/* SPDX-License-Identifier: MIT */
/*
 * sc_scalable_cas.h - ScalableCAS, the Scalable family's variant that counts
 * exactly until its first failed CAS: the family's contract and shared parts
 * are in sc_scalable.h, which includes this header (include either).
 */
#ifndef SC_SCALABLE_CAS_H
#define SC_SCALABLE_CAS_H

#include "sc_scalable.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * ScalableCAS (Ayers, end notes: "switch over" to probabilistic counting when
 * the exchange fails). The top bit of the word is a mode tag:
 *   clear: exact mode; an increment is one strong CAS of count + 1;
 *   set:   probabilistic mode for good; an increment is Scalable's, on the
 *          value bits.
 * The first failed CAS (contention) sets the tag (one fetch-or) and that
 * increment takes Scalable's path with the step chosen at the count the CAS
 * found; every later increment sees the tag and never CASes again, so under
 * contention it costs what Scalable costs. A lone thread never fails a
 * strong CAS, so it stays exact over the whole range. The switch is sticky:
 * reset zeroes the value and keeps the mode (as RBONumaAdapt and
 * MultilineAdapt keep their adaptation), so a benchmark's measured phase
 * sees the state its warm-up reached.
 *
 * Range: the tag costs one bit, 0 .. 2^(width-1) - 1 (2^31 - 1 at width
 * 32). In exact mode an increment at the top wraps the value to 0 and keeps
 * the mode; in probabilistic mode the fetch-and-add's carry out of the value
 * bits clears the tag, so the counter wraps to a small value and counts
 * exactly again until the next failed CAS. Error under contention at most
 * Scalable's (the exact increments before the switch add no variance).
 */
typedef sc_scalable_t sc_scalable_cas_t;
typedef sc_scalable_cfg sc_scalable_cas_cfg;

int sc_scalable_cas_config(sc_scalable_cas_cfg *cfg, sc_params *p, const sc_env *env,
                           sc_err *err);

#define SC_SCALABLE_CAS_TAG32 0x80000000u
#define SC_SCALABLE_CAS_TAG64 0x8000000000000000u

SC_ALWAYS_INLINE void sc_scalable_cas_inc(sc_scalable_cas_t *c, const sc_scalable_cas_cfg *cfg,
                                       sc_thread *t)
{
	if (cfg->width == 32) {
		SC_ATOMIC(uint32_t) *w = sc_scalable_w32_(c);
		/* relaxed: the tag is a hint about contention, the value only picks the step. */
		uint32_t seen = atomic_load_explicit(w, memory_order_relaxed);
		if (!(seen & SC_SCALABLE_CAS_TAG32)) {
			/* strong: a spurious failure would cost exactness; relaxed: nothing to publish. */
			if (atomic_compare_exchange_strong_explicit(
			        w, &seen, (seen + 1) & ~SC_SCALABLE_CAS_TAG32, memory_order_relaxed,
			        memory_order_relaxed))
				return;
			/* relaxed: the tag only selects the path; the add is atomic either way. */
			atomic_fetch_or_explicit(w, SC_SCALABLE_CAS_TAG32, memory_order_relaxed);
		}
		sc_scalable_add32_(w, seen | SC_SCALABLE_CAS_TAG32, ~SC_SCALABLE_CAS_TAG32, cfg,
		                   &t->rng, false);
	} else {
		SC_ATOMIC(uint64_t) *w = sc_scalable_w64_(c);
		/* relaxed: as above. */
		uint64_t seen = atomic_load_explicit(w, memory_order_relaxed);
		if (!(seen & SC_SCALABLE_CAS_TAG64)) {
			/* strong and relaxed: as above. */
			if (atomic_compare_exchange_strong_explicit(
			        w, &seen, (seen + 1) & ~SC_SCALABLE_CAS_TAG64, memory_order_relaxed,
			        memory_order_relaxed))
				return;
			/* relaxed: as above. */
			atomic_fetch_or_explicit(w, SC_SCALABLE_CAS_TAG64, memory_order_relaxed);
		}
		sc_scalable_add64_(w, seen | SC_SCALABLE_CAS_TAG64, ~SC_SCALABLE_CAS_TAG64, cfg,
		                   &t->rng, false);
	}
}

/* The value bits of ScalableCAS's word. */
static inline uint64_t sc_scalable_cas_value_mask(const sc_scalable_cas_cfg *cfg)
{
	return cfg->width == 32 ? SC_SCALABLE_CAS_TAG32 - 1 : SC_SCALABLE_CAS_TAG64 - 1;
}

void sc_scalable_cas_add(sc_scalable_cas_t *c, const sc_scalable_cas_cfg *cfg, sc_thread *t,
                         uint64_t n);

SC_SCALABLE_OPS_(scalable_cas)

/* Range: see sc_scalable.h's (2.03e9 at width 32, the defaults). */
static inline uint64_t sc_scalable_cas_range(const sc_scalable_cas_cfg *cfg)
{
	return cfg->range;
}

/* ScalableCAS: the value bits; reset zeroes them and keeps the mode tag. */
static inline uint64_t sc_scalable_cas_get(const sc_scalable_cas_t *c,
                                           const sc_scalable_cas_cfg *cfg)
{
	/* relaxed: any value the word has held is an acceptable reading. */
	if (cfg->width == 32)
		return atomic_load_explicit(sc_scalable_cw32_(c), memory_order_relaxed) &
		       ~SC_SCALABLE_CAS_TAG32;
	return atomic_load_explicit(sc_scalable_cw64_(c), memory_order_relaxed) &
	       ~SC_SCALABLE_CAS_TAG64;
}

static inline void sc_scalable_cas_reset(sc_scalable_cas_t *c, const sc_scalable_cas_cfg *cfg)
{
	/* relaxed: only while nothing increments (doc/design.md §3). */
	if (cfg->width == 32) {
		SC_ATOMIC(uint32_t) *w = sc_scalable_w32_(c);
		uint32_t keep = atomic_load_explicit(w, memory_order_relaxed) & SC_SCALABLE_CAS_TAG32;
		atomic_store_explicit(w, keep, memory_order_relaxed);
	} else {
		SC_ATOMIC(uint64_t) *w = sc_scalable_w64_(c);
		uint64_t keep = atomic_load_explicit(w, memory_order_relaxed) & SC_SCALABLE_CAS_TAG64;
		atomic_store_explicit(w, keep, memory_order_relaxed);
	}
}

/*
 * describe (scalable.c; contract in scounters.h): mode=cas (no CAS has
 * failed: every increment was exact) or mode=scalable;delta=<the step, as
 * Scalable's> (the sticky switch is set).
 */
SC_OP_DECLARE_DESCRIBE(scalable_cas)

/*
 * The contract of the Scalable family (sc_contract.h): an unbiased estimate
 * with relative standard deviation sqrt(3/2^(T+2)) (Ayers's binomial
 * estimate, for every cap), none for runtime=dotnet (the runtime's helper
 * is biased); one word, so the same in shared memory; not
 * async-signal-safe (the draw).
 */
SC_OP_ONE_READING(scalable)
SC_OP_ONE_READING(scalable_cas)
SC_OP_ONE_READING(scalable_capped)
static inline sc_counter_bound sc_scalable_bound(const sc_scalable_cfg *cfg, sc_reading r)
{
	(void)r;
	if (cfg->alt == SC_SCALABLE_DOTNET)
		return sc_bound_of_kind_(SC_BOUND_NONE);
	return sc_bound_rstdv_(__builtin_sqrt(3.0 / __builtin_ldexp(1.0, (int)cfg->threshold + 2)));
}
static inline sc_counter_bound sc_scalable_cas_bound(const sc_scalable_cas_cfg *cfg, sc_reading r)
{
	return sc_scalable_bound(cfg, r);
}
static inline sc_counter_bound sc_scalable_capped_bound(const sc_scalable_capped_cfg *cfg,
                                                        sc_reading r)
{
	return sc_scalable_bound(cfg, r);
}
enum {
	SC_PROMISES_scalable = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY,
	SC_PROMISES_scalable_cas = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY,
	SC_PROMISES_scalable_capped = SC_PROMISE_FORK_EXACT | SC_PROMISE_SHARED_MEMORY
};

/*
 * The handle API's defaults: width=64 unless a width is given (not 32, the
 * inlined API's and scbench's default, which the papers measure): a handle
 * counter is meant to count for as long as a program runs, and 32 bits wrap
 * after about 4e9 increments.
 */
static inline int sc_scalable_handle_defaults_(sc_params *p, sc_err *err)
{
	return sc_param_present(p, "width") ? 0 : sc_params_add(p, "width=64", err);
}

/*
 * Scalable without runtime=dotnet or rng=mix, for the handle: the registry's
 * increment also holds the dotnet branch, whose call keeps the context in a
 * saved register (a push and a pop at every increment); without it the
 * handle's Scalable increment took 1.49x the inlined one in make bench's
 * pairs, 1.33x with it (same run). The handle inlines it (SC_PATH_SCALABLE);
 * dotnet's seeded stream takes the library's context (thread_seed), and
 * rng=mix the registry's increment (a call), which keeps the handle's
 * inlined path to the default generator.
 */
static inline void sc_scalable_ayers_handle_inc_(void *c, const void *cfg, sc_thread *t)
{
	sc_scalable_ayers_inc_((sc_scalable_t *)c, (const sc_scalable_cfg *)cfg, t);
}
static inline sc_handle_path sc_scalable_handle_path_(const void *c, const void *cfg)
{
	(void)c;
	if (((const sc_scalable_cfg *)cfg)->alt != SC_SCALABLE_AYERS)
		return sc_path_of_kind_(SC_PATH_CALL);
	sc_handle_path p = sc_path_of_kind_(SC_PATH_SCALABLE);
	p.inc = sc_scalable_ayers_handle_inc_;
	return p;
}
static inline uint32_t sc_scalable_thread_seed_(const void *cfg)
{
	return sc_scalable_thread_seed((const sc_scalable_cfg *)cfg);
}
#define SC_HOOKS_scalable                                                                  \
	{.handle_defaults = sc_scalable_handle_defaults_,                                  \
	 .handle_path = sc_scalable_handle_path_,                                          \
	 .thread_seed = sc_scalable_thread_seed_}
#define SC_HOOKS_scalable_cas {.handle_defaults = sc_scalable_handle_defaults_}
#define SC_HOOKS_scalable_capped {.handle_defaults = sc_scalable_handle_defaults_}

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_SCALABLE_CAS_H */
