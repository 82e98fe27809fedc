/* SPDX-License-Identifier: MIT */
/*
 * loops.c - every measured loop (count, timed, and --latency's), stamped out
 * once per variant from the SC_VARIANTS list and one skeleton, so that each
 * increment is the variant's inlined fast path: the harness pays one
 * indirect call per phase, never one per increment (doc/design.md §2).
 *
 * Each loop has a single-counter form and an array form (hot counter 0
 * alternating with a uniformly drawn other counter), each with or without
 * external work: chosen once per phase outside the loop for one counter; in
 * the array form a test of m, constant over the phase (the compiler may
 * unswitch it), skips the work stream's draw and multiply at 0% work.
 */
#include "workload.h"

#include "clock.h"
#include "histogram.h"

/* Timed loops test the stop flag once per this many increments. */
#define WL_STOP_STRIDE 16

void wl_thread_init(wl_thread *w, uint32_t index, uint32_t node, uint64_t seed, bool same_seed)
{
	sc_thread_init(&w->ctx, index, node, seed, same_seed);
	/* Stream 2: never correlated with the counter stream (0) or the probe (1). */
	w->work_rng = sc_derive_seed32(seed, index, 2);
	w->ops = 0;
	w->hot_ops = 0;
}

/*
 * The stop flag is read relaxed: it carries no data, and the barrier after
 * the phase orders everything the threads did before the main thread looks.
 */
static inline bool wl_stopped(const wl_phase *ph)
{
	return atomic_load_explicit(ph->stop, memory_order_relaxed);
}

/*
 * Hot-path hoisting: a configuration that is plain data (Scalable's width,
 * threshold and cap, Sharded's thread count) is copied into a local whose
 * address never escapes, so the compiler keeps it in registers; read through the shared pointer it is
 * reloaded after every increment, since the increment's atomic could, as
 * far as the compiler knows, have written it. Others (say RBONuma's, which
 * holds an atomic) are used in place.
 */
static inline const void *wl_cfg_shared_(const void *cfg, void *local)
{
	(void)local;
	return cfg;
}

static inline const sc_scalable_cfg *wl_cfg_copy_scalable_(const void *cfg, sc_scalable_cfg *local)
{
	*local = *(const sc_scalable_cfg *)cfg;
	return local;
}

static inline const sc_sharded_cfg *wl_cfg_copy_sharded_(const void *cfg, sc_sharded_cfg *local)
{
	*local = *(const sc_sharded_cfg *)cfg;
	return local;
}

#define WL_CFG_HOIST_(cfg, local)                                                          \
	_Generic((local), sc_scalable_cfg *: wl_cfg_copy_scalable_,                        \
	         sc_sharded_cfg *: wl_cfg_copy_sharded_, default: wl_cfg_shared_)(cfg, local)

/*
 * The same for the thread's context and, for Sharded, the counter object
 * (its slot pointer, immutable after init): the loops work on local
 * copies, written back after the loop, so the index, the RNG state and the
 * slot pointer stay in registers and Sharded's per-thread slot (with its
 * overflow check) is resolved once per loop rather than reloaded after
 * every increment's store. The context is this thread's alone during a
 * phase, so the copy is exact.
 */
static inline void *wl_obj_shared_(void *obj, void *local)
{
	(void)local;
	return obj;
}

static inline sc_sharded_t *wl_obj_copy_sharded_(void *obj, sc_sharded_t *local)
{
	*local = *(sc_sharded_t *)obj;
	return local;
}

#define WL_OBJ_HOIST_(obj, local)                                                          \
	_Generic((obj), sc_sharded_t *: wl_obj_copy_sharded_, default: wl_obj_shared_)(obj, local)

/*
 * Manual loop unswitching: a test that the variant's increment makes on
 * every call but whose answer cannot change during a phase (Sharded's "does
 * this thread's index own a slot of the counter", on the hoisted copies of
 * the configuration and the context) is made once, before the loop, and the
 * loop is stamped out on both sides of it. On the common side the compiler,
 * seeing the test passed, drops it from the inlined increment, so the loop
 * is a load, an add and a store; GCC's own unswitching is an -O3 pass. For
 * the other variants the test is the constant true and the second loop is
 * dead code.
 */
static inline bool wl_in_range_any_(const void *cfg, const sc_thread *ctx)
{
	(void)cfg;
	(void)ctx;
	return true;
}

static inline bool wl_in_range_sharded_(const sc_sharded_cfg *cfg, const sc_thread *ctx)
{
	return ctx->index < cfg->threads;
}

#define WL_IN_RANGE_(cfg, ctx)                                                             \
	_Generic((cfg), const sc_sharded_cfg *: wl_in_range_sharded_,                      \
	         default: wl_in_range_any_)(cfg, ctx)

/*
 * One increment of counter c in a measured loop: the variant's inlined fast
 * path, or (--latency) that fast path bracketed by two tick reads and
 * recorded, in ticks, into the thread's histogram h.
 */
#define WL_INC_(P, c, cfg, ctx) sc_##P##_inc((c), (cfg), (ctx))
#define WL_INC_TIMED_(P, c, cfg, ctx)                                                      \
	do {                                                                               \
		uint64_t t0_ = clk_ticks();                                                \
		sc_##P##_inc((c), (cfg), (ctx));                                           \
		uint64_t t1_ = clk_ticks();                                                \
		lat_hist_record(h, t1_ - t0_);                                             \
	} while (0)
/* The extra parameter and argument of the latency loops (h), empty for the others. */
#define WL_NO_HIST_PARAM_
#define WL_NO_HIST_ARG_
#define WL_HIST_PARAM_ , lat_hist *h
#define WL_HIST_ARG_ , h

/*
 * The loops take every static inline function they call into their body
 * (the increment, the external work, the draws, the tick reads): stamped out
 * 19 times in three forms, they exceed GCC's growth budget for one unit, and
 * it would otherwise start calling the increment out of line.
 */
#if defined(__GNUC__)
#define WL_FLATTEN_ __attribute__((flatten))
#else
#define WL_FLATTEN_
#endif

/*
 * The one skeleton of every measured loop, stamped out per variant and per
 * increment form INC: N##count_chunk, N##count (count mode, in chunks that
 * look at the abort flag) and N##timed (until the stop flag).
 */
#define WL_SKELETON_(P, N, INC, HPARAM, HARG)                                              \
	WL_FLATTEN_ static void N##count_chunk(const wl_phase *ph, wl_thread *w,           \
	                                       uint64_t n HPARAM)                          \
	{                                                                                  \
		const sc_table *tb = ph->table;                                            \
		sc_##P##_cfg local_cfg_;                                                   \
		const sc_##P##_cfg *cfg = WL_CFG_HOIST_(tb->cfg, &local_cfg_);             \
		sc_##P##_t *hot = (sc_##P##_t *)tb->base;                                  \
		uint64_t m = wl_work_span(ph->work_iters);                                 \
		if (tb->n == 1 && m == 0) {                                                \
			sc_sharded_t local_obj_;                                           \
			sc_##P##_t *one = WL_OBJ_HOIST_(hot, &local_obj_);                 \
			sc_thread ctx = w->ctx;                                            \
			if (WL_IN_RANGE_(cfg, &ctx))                                       \
				for (uint64_t i = 0; i < n; i++)                           \
					INC(P, one, cfg, &ctx);                            \
			else                                                               \
				for (uint64_t i = 0; i < n; i++)                           \
					INC(P, one, cfg, &ctx);                            \
			w->ctx = ctx;                                                      \
			w->hot_ops += n;                                                   \
		} else if (tb->n == 1) {                                                   \
			for (uint64_t i = 0; i < n; i++) {                                 \
				INC(P, hot, cfg, &w->ctx);                                 \
				wl_external_work(m, &w->work_rng);                         \
			}                                                                  \
			w->hot_ops += n;                                                   \
		} else {                                                                   \
			uint32_t cn = (uint32_t)tb->n;                                     \
			for (uint64_t i = 0; i < n; i++) {                                 \
				if (i & 1) {                                               \
					uint32_t k = wl_random_cold(cn, &w->work_rng);     \
					INC(P, (sc_##P##_t *)sc_table_at(tb, k), cfg,      \
					    &w->ctx);                                      \
				} else {                                                   \
					INC(P, hot, cfg, &w->ctx);                         \
				}                                                          \
				if (m) /* at 0% work: no draw, no multiply */              \
					wl_external_work(m, &w->work_rng);                 \
			}                                                                  \
			w->hot_ops += (n + 1) / 2;                                         \
		}                                                                          \
		w->ops += n;                                                               \
	}                                                                                  \
	static void N##count(const wl_phase *ph, wl_thread *w HPARAM)                      \
	{                                                                                  \
		for (uint64_t left = ph->ops; left && !wl_aborted(ph);) {                  \
			uint64_t n = left < WL_ABORT_CHUNK ? left : WL_ABORT_CHUNK;        \
			N##count_chunk(ph, w, n HARG);                                     \
			left -= n;                                                         \
		}                                                                          \
	}                                                                                  \
	WL_FLATTEN_ static void N##timed(const wl_phase *ph, wl_thread *w HPARAM)          \
	{                                                                                  \
		const sc_table *tb = ph->table;                                            \
		sc_##P##_cfg local_cfg_;                                                   \
		const sc_##P##_cfg *cfg = WL_CFG_HOIST_(tb->cfg, &local_cfg_);             \
		sc_##P##_t *hot = (sc_##P##_t *)tb->base;                                  \
		uint64_t m = wl_work_span(ph->work_iters);                                 \
		uint64_t done = 0, hot_done = 0;                                           \
		if (tb->n == 1 && m == 0) {                                                \
			sc_sharded_t local_obj_;                                           \
			sc_##P##_t *one = WL_OBJ_HOIST_(hot, &local_obj_);                 \
			sc_thread ctx = w->ctx;                                            \
			bool in_range = WL_IN_RANGE_(cfg, &ctx);                           \
			while (in_range && !wl_stopped(ph)) {                              \
				for (int j = 0; j < WL_STOP_STRIDE; j++)                   \
					INC(P, one, cfg, &ctx);                            \
				done += WL_STOP_STRIDE;                                    \
			}                                                                  \
			while (!in_range && !wl_stopped(ph)) {                             \
				for (int j = 0; j < WL_STOP_STRIDE; j++)                   \
					INC(P, one, cfg, &ctx);                            \
				done += WL_STOP_STRIDE;                                    \
			}                                                                  \
			w->ctx = ctx;                                                      \
			hot_done = done;                                                   \
		} else if (tb->n == 1) {                                                   \
			while (!wl_stopped(ph)) {                                          \
				INC(P, hot, cfg, &w->ctx);                                 \
				wl_external_work(m, &w->work_rng);                         \
				done++;                                                    \
			}                                                                  \
			hot_done = done;                                                   \
		} else {                                                                   \
			uint32_t cn = (uint32_t)tb->n;                                     \
			while (!wl_stopped(ph)) {                                          \
				INC(P, hot, cfg, &w->ctx);                                 \
				if (m) /* at 0% work: no draw, no multiply */              \
					wl_external_work(m, &w->work_rng);                 \
				uint32_t k = wl_random_cold(cn, &w->work_rng);             \
				INC(P, (sc_##P##_t *)sc_table_at(tb, k), cfg, &w->ctx);    \
				if (m)                                                     \
					wl_external_work(m, &w->work_rng);                 \
				done += 2;                                                 \
				hot_done++;                                                \
			}                                                                  \
		}                                                                          \
		w->ops += done;                                                            \
		w->hot_ops += hot_done;                                                    \
	}

/*
 * Per variant: P_count and P_timed, and P_latency, which runs the same
 * skeleton with every increment timed (count mode when ph->stop is NULL).
 */
#define WL_LOOPS_(P, ...)                                                                  \
	WL_SKELETON_(P, P##_, WL_INC_, WL_NO_HIST_PARAM_, WL_NO_HIST_ARG_)                 \
	WL_SKELETON_(P, P##_lat_, WL_INC_TIMED_, WL_HIST_PARAM_, WL_HIST_ARG_)             \
	static void P##_latency(const wl_phase *ph, wl_thread *w, lat_hist *h)             \
	{                                                                                  \
		if (ph->stop)                                                              \
			P##_lat_timed(ph, w, h);                                           \
		else                                                                       \
			P##_lat_count(ph, w, h);                                           \
	}
SC_VARIANTS(WL_LOOPS_)
#undef WL_LOOPS_

#define WL_ENTRY_(P, ...) [SC_ID_##P] = {P##_count, P##_timed, P##_latency},
const wl_loops wl_variant_loops[SC_VARIANT_COUNT] = {SC_VARIANTS(WL_ENTRY_)};
#undef WL_ENTRY_

const wl_loops *wl_loops_for(const sc_variant *v)
{
	return &wl_variant_loops[v - sc_variants];
}
