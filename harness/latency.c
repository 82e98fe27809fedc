/* SPDX-License-Identifier: MIT */
/* latency.c - per-variant latency loops (latency.h). */
#include "latency.h"

#include "clock.h"

/* relaxed: the stop flag carries no data (see workloads/loops.c). */
static inline bool lat_go_on(const wl_phase *ph, uint64_t done)
{
	if (ph->stop)
		return !atomic_load_explicit(ph->stop, memory_order_relaxed);
	return done < ph->ops && (done % WL_ABORT_CHUNK || !wl_aborted(ph));
}

#define LAT_LOOP_(P, ...)                                                                  \
	static void P##_latency(const wl_phase *ph, wl_thread *w, lat_hist *h)             \
	{                                                                                  \
		const sc_table *tb = ph->table;                                            \
		const sc_##P##_cfg *cfg = tb->cfg;                                         \
		uint64_t m = wl_work_span(ph->work_iters);                                 \
		uint32_t cn = (uint32_t)tb->n;                                             \
		uint64_t done = 0, hot_done = 0;                                           \
		while (lat_go_on(ph, done)) {                                              \
			uint32_t k = cn > 1 && (done & 1) ? wl_random_cold(cn, &w->work_rng) : 0; \
			sc_##P##_t *c = (sc_##P##_t *)sc_table_at(tb, k);                  \
			uint64_t t0 = clk_ticks();                                         \
			sc_##P##_inc(c, cfg, &w->ctx);                                     \
			uint64_t t1 = clk_ticks();                                         \
			lat_hist_record(h, t1 - t0);                                       \
			hot_done += k == 0;                                                \
			done++;                                                            \
			wl_external_work(m, &w->work_rng);                                 \
		}                                                                          \
		w->ops += done;                                                            \
		w->hot_ops += hot_done;                                                    \
	}
SC_VARIANTS(LAT_LOOP_)
#undef LAT_LOOP_

#define LAT_ENTRY_(P, ...) [SC_ID_##P] = P##_latency,
const lat_loop_fn lat_variant_loops[SC_VARIANT_COUNT] = {SC_VARIANTS(LAT_ENTRY_)};
#undef LAT_ENTRY_
