/* SPDX-License-Identifier: MIT */
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

/*
 * rng=xorshift (default) or rng=mix (sc_scalable.h): sets *mix; one message
 * for every other value.
 */
static int read_rng(const char *variant, sc_params *p, bool *mix, sc_err *err)
{
	*mix = false;
	for (unsigned i = 0; i < p->n; i++) {
		if (strcmp(p->key[i], "rng") != 0)
			continue;
		p->used[i] = true;
		if (strcmp(p->value[i], "mix") == 0) {
			*mix = true;
		} else if (strcmp(p->value[i], "xorshift") != 0) {
			sc_err_set(err, "%s: parameter rng=%s is invalid: expected xorshift or mix",
			           variant, p->value[i]);
			return -1;
		}
	}
	return 0;
}

/* The declared range (see sc_scalable_range): top/(1 + 6 sigma). */
static uint64_t scalable_range_bound(const sc_scalable_cfg *cfg, bool tagged)
{
	unsigned bits = tagged ? cfg->width - 1 : cfg->width; /* value bits */
	double top;
	if (cfg->alt == SC_SCALABLE_DOTNET)
		top = cfg->width == 64 ? ldexp(1.0, (int)cfg->threshold + 31) : 0x1p32;
	else
		top = ldexp(1.0, (int)bits) -
		      ldexp(1.0, (int)sc_scalable_shift_(bits == 64 ? UINT64_MAX
		                                                    : ((uint64_t)1 << bits) - 1,
		                                         cfg));
	double sigma = sqrt(3.0 / ldexp(1.0, (int)cfg->threshold + 2));
	return (uint64_t)(top / (1.0 + 6.0 * sigma));
}

int sc_scalable_config_named(sc_scalable_cfg *cfg, sc_params *p, const char *variant,
                             bool capped, sc_err *err)
{
	uint64_t threshold, cap = SC_SCALABLE_STEP_MAX;
	bool tagged = strcmp(variant, "ScalableCAS") == 0, mix = false;
	if (read_width(variant, p, &cfg->width, err))
		return -1;
	/* not ScalableCAS's: its increment calls the chooser on xorshift (sc_scalable_cas.h) */
	if (!tagged && read_rng(variant, p, &mix, err))
		return -1;
	if (sc_param_u64(p, variant, "threshold", SC_SCALABLE_THRESHOLD_DEFAULT, 1,
	                 cfg->width - 1, &threshold, err))
		return -1;
	if (capped && sc_param_u64(p, variant, "cap", SC_SCALABLE_CAP_DEFAULT, 1,
	                           SC_SCALABLE_STEP_MAX, &cap, err))
		return -1;
	cfg->threshold = (uint32_t)threshold;
	cfg->cap = (uint32_t)cap;
	cfg->alt = mix ? SC_SCALABLE_MIX : SC_SCALABLE_AYERS;
	cfg->range = scalable_range_bound(cfg, tagged);
	return 0;
}

int sc_scalable_config(sc_scalable_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)env;
	if (sc_scalable_config_named(cfg, p, "Scalable", false, err))
		return -1;
	for (unsigned i = 0; i < p->n; i++) {
		if (strcmp(p->key[i], "runtime") != 0)
			continue;
		p->used[i] = true;
		if (strcmp(p->value[i], "dotnet") == 0) {
			if (cfg->alt == SC_SCALABLE_MIX) {
				sc_err_set(err,
				           "Scalable: runtime=dotnet takes rng=xorshift only (the "
				           "runtime's helper draws from xorshift), not rng=mix");
				return -1;
			}
			cfg->alt = SC_SCALABLE_DOTNET;
			cfg->range = scalable_range_bound(cfg, false);
		} else if (strcmp(p->value[i], "ayers") != 0) {
			sc_err_set(err, "Scalable: parameter runtime=%s is invalid: expected ayers or dotnet",
			           p->value[i]);
			return -1;
		}
	}
	return 0;
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

/* ---- runtime=dotnet: the .NET runtime's helpers (see sc_scalable.h) -------------- */

/* Width 32: JIT_CountProfile32 reads the count as a signed 32-bit number. */
static void dotnet_inc32(SC_ATOMIC(uint32_t) *w, const sc_scalable_cfg *cfg, uint32_t *rng)
{
	/* relaxed: the value only picks the step, as in Ayers's form. */
	uint32_t seen = atomic_load_explicit(w, memory_order_relaxed);
	uint32_t delta = 1;
	if (seen - 1 < 0x7fffffffu) { /* 1 .. 2^31 - 1: a positive signed count */
		unsigned k = sc_scalable_log2_(seen);
		if (k >= cfg->threshold) {
			delta = (uint32_t)1 << (k - (cfg->threshold - 1));
			if ((sc_xorshift_ayers(rng) & (delta - 1)) != 0)
				return;
		}
	}
	/* relaxed: the add is atomic whatever the order; nothing else is published. */
	atomic_fetch_add_explicit(w, delta, memory_order_relaxed);
}

/* Width 64: JIT_CountProfile64, a 64-bit step tested with a 32-bit draw. */
static void dotnet_inc64(SC_ATOMIC(uint64_t) *w, const sc_scalable_cfg *cfg, uint32_t *rng)
{
	/* relaxed: as above. */
	uint64_t seen = atomic_load_explicit(w, memory_order_relaxed);
	uint64_t delta = 1;
	if (seen - 1 < (UINT64_MAX >> 1)) { /* a positive signed count */
		unsigned k = sc_scalable_log2_(seen);
		if (k >= cfg->threshold) {
			delta = (uint64_t)1 << (k - (cfg->threshold - 1));
			if (((uint64_t)sc_xorshift_ayers(rng) & (delta - 1)) != 0)
				return;
		}
	}
	/* relaxed: as above. */
	atomic_fetch_add_explicit(w, delta, memory_order_relaxed);
}

uint32_t sc_scalable_dotnet_inc(sc_scalable_t *c, uint32_t width, uint32_t threshold,
                                uint32_t rng)
{
	sc_scalable_cfg cfg = { width, threshold, SC_SCALABLE_STEP_MAX, SC_SCALABLE_DOTNET, 0 };
	if (width == 32)
		dotnet_inc32(sc_scalable_w32_(c), &cfg, &rng);
	else
		dotnet_inc64(sc_scalable_w64_(c), &cfg, &rng);
	return rng;
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

/*
 * Scalable's add from the count `seen` (possibly stale, as in the increment);
 * mask keeps the value bits of what the word holds (ScalableCAS's tag).
 */
static void scalable_add_from(sc_scalable_t *c, const sc_scalable_cfg *cfg, sc_thread *t,
                              uint64_t n, uint64_t seen, uint64_t mask)
{
	while (n) {
		unsigned s = sc_scalable_shift_(seen & mask, cfg);
		if (s == 0) {
			/* Exact below 2^T: the trials that fit there, all at once. */
			uint64_t room = ((uint64_t)1 << cfg->threshold) - (seen & mask);
			uint64_t d = n < room ? n : room;
			n -= d;
			seen = scalable_wrap(cfg, scalable_fetch_add(c, cfg, d), d);
			continue;
		}
		/* the configured generator's draw (ScalableCAS: xorshift, its alt being 0) */
		uint32_t r = sc_scalable_draw_(&t->rng, cfg->alt == SC_SCALABLE_MIX);
		uint64_t gap = sc_geometric_gap(r, log1p(-ldexp(1.0, -(int)s)));
		if (gap > n)
			return;
		n -= gap;
		/* the update re-validated against the word, as the increment's (sc_scalable.h) */
		if (cfg->width == 32)
			seen = sc_scalable_apply32_(sc_scalable_w32_(c), (uint32_t)seen, s, (uint32_t)mask,
			                            cfg);
		else
			seen = sc_scalable_apply64_(sc_scalable_w64_(c), seen, s, mask, cfg);
	}
}

static uint64_t scalable_load(const sc_scalable_t *c, const sc_scalable_cfg *cfg)
{
	/* relaxed: the value only picks the step, as in the increment. */
	if (cfg->width == 32)
		return atomic_load_explicit(sc_scalable_cw32_(c), memory_order_relaxed);
	return atomic_load_explicit(sc_scalable_cw64_(c), memory_order_relaxed);
}

/*
 * runtime=dotnet's add: the runtime has none, so n of its increments'
 * worth of trials, skipped between updates by geometric gaps as Ayers's
 * add does, each trial with the helper's own odds: below 2^T, and while
 * the count reads as negative (width 32 from 2^31 on, up to its wrap to 0),
 * every trial adds one, so such a run is one fetch-and-add; above 2^T a
 * trial adds 2^s with probability (2^(32-s) - 1)/(2^32 - 1) (the draw's low
 * s bits zero, the draw never 0), and from s = 32 on (width 64 at 2^(T+31))
 * never: the count stops and the rest of n is dropped, as n increments would
 * be. Cost: one fetch-and-add per exact run, one draw and one fetch-and-add
 * per update; sc_scalable_add(c, cfg, t, 2^40) at width 32 makes some
 * 2^(T-1) updates per power of two, times the 2^(40-32) wraps.
 */
static void dotnet_add(sc_scalable_t *c, const sc_scalable_cfg *cfg, uint32_t *rng, uint64_t n)
{
	uint64_t negative = (uint64_t)1 << (cfg->width - 1); /* the signed count's sign bit */
	uint64_t seen = scalable_load(c, cfg);
	while (n) {
		uint64_t d;
		if (seen == 0 || seen >= negative || sc_scalable_log2_(seen) < cfg->threshold) {
			/* every trial adds 1: up to 2^T, or up to the wrap at 2^width */
			uint64_t room = seen >= negative ? (cfg->width == 32 ? ((uint64_t)1 << 32) - seen
			                                                     : (uint64_t)0 - seen)
			                                 : ((uint64_t)1 << cfg->threshold) - seen;
			d = n < room ? n : room;
			n -= d;
		} else {
			unsigned s = sc_scalable_log2_(seen) - (cfg->threshold - 1);
			if (s >= 32)
				return; /* the draw has 32 bits: no trial passes */
			double p = ldexp(1.0, -(int)s) * (1.0 - ldexp(1.0, (int)s - 32)) /
			           (1.0 - 0x1p-32); /* (2^(32-s) - 1)/(2^32 - 1) */
			uint64_t gap = sc_geometric_gap(sc_xorshift_ayers(rng), log1p(-p));
			if (gap > n)
				return;
			n -= gap;
			d = (uint64_t)1 << s;
		}
		seen = scalable_wrap(cfg, scalable_fetch_add(c, cfg, d), d);
	}
}

void sc_scalable_add(sc_scalable_t *c, const sc_scalable_cfg *cfg, sc_thread *t, uint64_t n)
{
	if (cfg->alt == SC_SCALABLE_DOTNET) {
		dotnet_add(c, cfg, &t->rng, n);
		return;
	}
	scalable_add_from(c, cfg, t, n, scalable_load(c, cfg), UINT64_MAX);
}

void sc_scalable_capped_add(sc_scalable_capped_t *c, const sc_scalable_capped_cfg *cfg,
                            sc_thread *t, uint64_t n)
{
	sc_scalable_add(c, cfg, t, n);
}

void sc_scalable_cas_add(sc_scalable_cas_t *c, const sc_scalable_cas_cfg *cfg, sc_thread *t,
                         uint64_t n)
{
	uint64_t mask = sc_scalable_cas_value_mask(cfg), tag = mask + 1, seen;
	/* strong: a spurious failure would cost exactness; relaxed: nothing to publish. */
	if (cfg->width == 32) {
		SC_ATOMIC(uint32_t) *w = sc_scalable_w32_(c);
		uint32_t v = atomic_load_explicit(w, memory_order_relaxed);
		if (!(v & tag)) {
			if (atomic_compare_exchange_strong_explicit(w, &v, (uint32_t)((v + n) & mask),
			                                            memory_order_relaxed,
			                                            memory_order_relaxed))
				return;
			/* relaxed: as the increment's switch. */
			atomic_fetch_or_explicit(w, (uint32_t)tag, memory_order_relaxed);
		}
		seen = v | tag;
	} else {
		SC_ATOMIC(uint64_t) *w = sc_scalable_w64_(c);
		uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
		if (!(v & tag)) {
			if (atomic_compare_exchange_strong_explicit(w, &v, (v + n) & mask,
			                                            memory_order_relaxed,
			                                            memory_order_relaxed))
				return;
			/* relaxed: as the increment's switch. */
			atomic_fetch_or_explicit(w, tag, memory_order_relaxed);
		}
		seen = v | tag;
	}
	scalable_add_from(c, cfg, t, n, seen, mask);
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
	/* The top bit is the sticky switch (sc_scalable.h); below it, the count. */
	uint64_t tag = cfg->width == 32 ? SC_SCALABLE_CAS_TAG32 : SC_SCALABLE_CAS_TAG64;
	uint64_t w = scalable_load(c, cfg);
	if (!(w & tag))
		return snprintf(buf, size, "mode=cas");
	unsigned s = sc_scalable_shift_(w & ~tag, cfg);
	return snprintf(buf, size, "mode=scalable;delta=%llu", (unsigned long long)1 << s);
}

int sc_scalable_capped_describe(const sc_scalable_capped_t *c,
                                const sc_scalable_capped_cfg *cfg, char *buf, size_t size)
{
	return sc_scalable_describe(c, cfg, buf, size);
}
