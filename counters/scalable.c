/* scalable.c - configuration of Ayers's integer counters (sc_scalable.h). */
#include <scounters/sc_scalable.h>

#include <math.h>
#include <stdio.h>

#include <string.h>

#define SC_SCALABLE_THRESHOLD_DEFAULT 13 /* Ayers's switch-over at 8192 */
#define SC_SCALABLE_CAP_DEFAULT 10       /* update rate 1/1024 (Ayers's end notes) */

static int read_width(const char *variant, sc_params *p, uint32_t *width, sc_err *err)
{
	uint64_t w = 0;
	if (sc_param_u64(p, variant, "width", 32, 32, 64, &w, err) == 0 && (w == 32 || w == 64)) {
		*width = (uint32_t)w;
		return 0;
	}
	/* one message for every bad value: not a number, out of range, or in between */
	for (unsigned i = 0; i < p->n; i++)
		if (strcmp(p->key[i], "width") == 0)
			sc_err_set(err, "%s: parameter width=%s is invalid: expected 32 or 64",
			           variant, p->value[i]);
	return -1;
}

int sc_scalable_config_named(sc_scalable_cfg *cfg, sc_params *p, const char *variant,
                             bool capped, sc_err *err)
{
	uint64_t threshold, cap = SC_SCALABLE_STEP_MAX;
	if (read_width(variant, p, &cfg->width, err))
		return -1;
	if (sc_param_u64(p, variant, "threshold", SC_SCALABLE_THRESHOLD_DEFAULT, 1,
	                 cfg->width - 1, &threshold, err))
		return -1;
	if (capped && sc_param_u64(p, variant, "cap", SC_SCALABLE_CAP_DEFAULT, 1,
	                           SC_SCALABLE_STEP_MAX, &cap, err))
		return -1;
	cfg->threshold = (uint32_t)threshold;
	cfg->cap = (uint32_t)cap;
	return 0;
}

int sc_scalable_config(sc_scalable_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)env;
	return sc_scalable_config_named(cfg, p, "Scalable", false, err);
}

int sc_scalable_cas_config(sc_scalable_cas_cfg *cfg, sc_params *p, const sc_env *env,
                           sc_err *err)
{
	(void)env;
	return sc_scalable_config_named(cfg, p, "ScalableCAS", false, err);
}

int sc_scalable_capped_config(sc_scalable_capped_cfg *cfg, sc_params *p, const sc_env *env,
                              sc_err *err)
{
	(void)env;
	return sc_scalable_config_named(cfg, p, "ScalableCapped", true, err);
}

/* ---- add(n): see sc_scalable.h ------------------------------------------------- */

/* fetch-and-add of d at the configured width; the count before the add. */
static uint64_t scalable_fetch_add(sc_scalable_t *c, const sc_scalable_cfg *cfg, uint64_t d)
{
	/* relaxed: as the increment's fetch-and-add, nothing else is published. */
	if (cfg->width == 32)
		return atomic_fetch_add_explicit(sc_scalable_w32_(c), (uint32_t)d, memory_order_relaxed);
	return atomic_fetch_add_explicit(sc_scalable_w64_(c), d, memory_order_relaxed);
}

/* The count after adding d to `before`, at the configured width. */
static uint64_t scalable_wrap(const sc_scalable_cfg *cfg, uint64_t before, uint64_t d)
{
	uint64_t after = before + d;
	return cfg->width == 32 ? (uint32_t)after : after;
}

/* Scalable's add from the count `seen` (possibly stale, as in the increment). */
static void scalable_add_from(sc_scalable_t *c, const sc_scalable_cfg *cfg, sc_thread *t,
                              uint64_t n, uint64_t seen)
{
	while (n) {
		unsigned s = sc_scalable_shift_(seen, cfg);
		uint64_t d;
		if (s == 0) {
			/* Exact below 2^T: the trials that fit there, all at once. */
			uint64_t room = ((uint64_t)1 << cfg->threshold) - seen;
			d = n < room ? n : room;
			n -= d;
		} else {
			uint64_t gap = sc_geometric_gap(sc_xorshift_ayers(&t->rng),
			                                log1p(-ldexp(1.0, -(int)s)));
			if (gap > n)
				return;
			n -= gap;
			d = (uint64_t)1 << s;
		}
		seen = scalable_wrap(cfg, scalable_fetch_add(c, cfg, d), d);
	}
}

static uint64_t scalable_load(const sc_scalable_t *c, const sc_scalable_cfg *cfg)
{
	/* relaxed: the value only picks the step, as in the increment. */
	if (cfg->width == 32)
		return atomic_load_explicit(sc_scalable_cw32_(c), memory_order_relaxed);
	return atomic_load_explicit(sc_scalable_cw64_(c), memory_order_relaxed);
}

void sc_scalable_add(sc_scalable_t *c, const sc_scalable_cfg *cfg, sc_thread *t, uint64_t n)
{
	scalable_add_from(c, cfg, t, n, scalable_load(c, cfg));
}

void sc_scalable_capped_add(sc_scalable_capped_t *c, const sc_scalable_capped_cfg *cfg,
                            sc_thread *t, uint64_t n)
{
	sc_scalable_add(c, cfg, t, n);
}

void sc_scalable_cas_add(sc_scalable_cas_t *c, const sc_scalable_cas_cfg *cfg, sc_thread *t,
                         uint64_t n)
{
	uint64_t seen;
	/* strong: a spurious failure would cost exactness; relaxed: nothing to publish. */
	if (cfg->width == 32) {
		SC_ATOMIC(uint32_t) *w = sc_scalable_w32_(c);
		uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
		if (atomic_compare_exchange_strong_explicit(w, &v, (uint32_t)(v + n),
		                                            memory_order_relaxed, memory_order_relaxed))
			return;
		seen = v;
	} else {
		SC_ATOMIC(uint64_t) *w = sc_scalable_w64_(c);
		uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
		if (atomic_compare_exchange_strong_explicit(w, &v, v + n, memory_order_relaxed,
		                                            memory_order_relaxed))
			return;
		seen = v;
	}
	scalable_add_from(c, cfg, t, n, seen);
}

/* ---- describe (sc_scalable.h) ------------------------------------------------------ */

int sc_scalable_describe(const sc_scalable_t *c, const sc_scalable_cfg *cfg, char *buf,
                         size_t size)
{
	/* scalable_load is relaxed: a snapshot, as get reads it. */
	unsigned s = sc_scalable_shift_(scalable_load(c, cfg), cfg);
	return snprintf(buf, size, "delta=%llu", (unsigned long long)1 << s);
}

int sc_scalable_cas_describe(const sc_scalable_cas_t *c, const sc_scalable_cas_cfg *cfg,
                             char *buf, size_t size)
{
	return sc_scalable_describe(c, cfg, buf, size);
}

int sc_scalable_capped_describe(const sc_scalable_capped_t *c,
                                const sc_scalable_capped_cfg *cfg, char *buf, size_t size)
{
	return sc_scalable_describe(c, cfg, buf, size);
}
