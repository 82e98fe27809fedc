/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the run-time table of variants, built from the SC_VARIANTS
 * list: one type-erased wrapper per operation per variant, lookup by name,
 * and the sc_table helper that lays out arrays of counters.
 */
#include <scounters/scounters.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SC_WRAP_(P, ...)                                                                   \
	static int P##_config_(void *cfg, sc_params *p, const sc_env *env, sc_err *err)    \
	{                                                                                  \
		return sc_##P##_config(cfg, p, env, err);                                  \
	}                                                                                  \
	static size_t P##_size_(const void *cfg) { return sc_##P##_size(cfg); }            \
	static int P##_init_(void *c, const void *cfg, sc_err *err)                        \
	{                                                                                  \
		return sc_##P##_init(c, cfg, err);                                         \
	}                                                                                  \
	static void P##_inc_(void *c, const void *cfg, sc_thread *t)                       \
	{                                                                                  \
		sc_##P##_inc(c, cfg, t);                                                   \
	}                                                                                  \
	static void P##_add_(void *c, const void *cfg, sc_thread *t, uint64_t n)           \
	{                                                                                  \
		sc_##P##_add(c, cfg, t, n);                                                \
	}                                                                                  \
	static uint64_t P##_get_(const void *c, const void *cfg)                           \
	{                                                                                  \
		return sc_##P##_get(c, cfg);                                               \
	}                                                                                  \
	static void P##_reset_(void *c, const void *cfg) { sc_##P##_reset(c, cfg); }       \
	static void P##_flush_(void *c, const void *cfg, sc_thread *t)                     \
	{                                                                                  \
		sc_##P##_flush(c, cfg, t);                                                 \
	}                                                                                  \
	static void P##_destroy_(void *c, const void *cfg) { sc_##P##_destroy(c, cfg); }   \
	static size_t P##_heap_bytes_(const void *c, const void *cfg)                      \
	{                                                                                  \
		return sc_##P##_heap_bytes(c, cfg);                                        \
	}                                                                                  \
	static uint64_t P##_range_(const void *cfg) { return sc_##P##_range(cfg); }        \
	static int P##_describe_(const void *c, const void *cfg, char *buf, size_t size)   \
	{                                                                                  \
		return sc_##P##_describe(c, cfg, buf, size);                               \
	}                                                                                  \
	static uint64_t P##_reading_fast_(const void *c, const void *cfg)                  \
	{                                                                                  \
		return sc_##P##_reading_fast(c, cfg);                                      \
	}                                                                                  \
	static uint64_t P##_reading_sum_(const void *c, const void *cfg)                   \
	{                                                                                  \
		return sc_##P##_reading_sum(c, cfg);                                       \
	}                                                                                  \
	static sc_counter_bound P##_bound_(const void *cfg, sc_reading r)                  \
	{                                                                                  \
		return sc_##P##_bound(cfg, r);                                             \
	}
SC_VARIANTS(SC_WRAP_)
#undef SC_WRAP_

#define SC_ENTRY_(P, NAME, ALIAS, KIND, LAYOUT, SUMMARY, PARAMS, ...)                       \
	[SC_ID_##P] = {NAME,          ALIAS,      KIND,        LAYOUT,          SUMMARY,   \
	               PARAMS,        sizeof(sc_##P##_cfg), P##_config_, P##_size_,        \
	               P##_init_,     P##_inc_,   P##_add_,    P##_get_,        P##_reset_, \
	               P##_flush_,                                                         \
	               P##_destroy_,  P##_heap_bytes_, P##_range_, P##_describe_,          \
	               P##_reading_fast_, P##_reading_sum_, P##_bound_, SC_PROMISES_##P,   \
	               SC_HOOKS_##P},
const sc_variant sc_variants[SC_VARIANT_COUNT] = {SC_VARIANTS(SC_ENTRY_)};
#undef SC_ENTRY_

const sc_variant *sc_variant_find(const char *name)
{
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		if (strcasecmp(v->name, name) == 0 || (v->alias && strcasecmp(v->alias, name) == 0))
			return v;
	}
	return NULL;
}

/*
 * The list is one string literal made by the compiler from SC_VARIANTS
 * (", Serial, CAS, ...", returned past its first separator): nothing is
 * written at run time, so any number of threads may ask at once (it was
 * built into a static buffer on first use, a data race between threads
 * that found the buffer empty).
 */
#define SC_NAME_ITEM_(P, NAME, ...) ", " NAME
static const char variant_names[] = SC_VARIANTS(SC_NAME_ITEM_);
#undef SC_NAME_ITEM_

const char *sc_variant_names(void)
{
	return variant_names + 2;
}

int sc_table_create(sc_table *t, const sc_variant *v, sc_params *p, const sc_env *env, size_t n,
                    sc_err *err)
{
	return sc_table_create_shaped(t, v, p, env, NULL, n, err);
}

int sc_table_create_shaped(sc_table *t, const sc_variant *v, sc_params *p, const sc_env *env,
                           const sc_cpu_shape *shape, size_t n, sc_err *err)
{
	memset(t, 0, sizeof *t);
	if (n == 0) {
		sc_err_set(err, "%s: a table needs at least one counter", v->name);
		return -1;
	}
	uint64_t same_seed;
	if (sc_param_u64(p, v->name, "same-seed", 0, 0, 1, &same_seed, err))
		return -1;
	t->v = v;
	t->cfg = sc_alloc_lines(v->cfg_size);
	if (!t->cfg) {
		sc_err_set(err, "%s: out of memory", v->name);
		return -1;
	}
	if (v->config(t->cfg, p, env, err) || sc_params_check_unused(p, v->name, v->params, err) ||
	    (shape && v->hooks.config_shape && v->hooks.config_shape(t->cfg, p, shape, err))) {
		sc_free_lines(t->cfg);
		t->cfg = NULL;
		return -1;
	}
	size_t size = v->size(t->cfg);
	t->stride = v->layout == SC_PADDED ? SC_PAD_UP(size) : size;
	if (n > ((size_t)-1 - SC_LINE_SIZE) / t->stride) {
		sc_err_set(err, "%s: %zu counters do not fit in memory", v->name, n);
		sc_free_lines(t->cfg);
		t->cfg = NULL;
		return -1;
	}
	t->base = sc_alloc_lines(n * t->stride);
	if (!t->base) {
		sc_err_set(err, "%s: out of memory for %zu counters", v->name, n);
		sc_free_lines(t->cfg);
		t->cfg = NULL;
		return -1;
	}
	t->same_seed = same_seed != 0;
	if (v->hooks.thread_seed)
		t->thread_seed = v->hooks.thread_seed(t->cfg);
	/* what the inits take their counters from (PerCPUGroup: one group, sc_group.h) */
	if (v->hooks.table_reserve && v->hooks.table_reserve(t->cfg, n, err)) {
		sc_table_destroy(t);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (v->init(sc_table_at(t, i), t->cfg, err)) {
			t->n = i;
			sc_table_destroy(t);
			return -1;
		}
	}
	t->n = n;
	return 0;
}

void sc_table_destroy(sc_table *t)
{
	if (t->base)
		for (size_t i = 0; i < t->n; i++)
			t->v->destroy(sc_table_at(t, i), t->cfg);
	if (t->cfg && t->v->hooks.table_release)
		t->v->hooks.table_release(t->cfg);
	sc_free_lines(t->base);
	sc_free_lines(t->cfg);
	t->base = NULL;
	t->cfg = NULL;
	t->n = 0;
}

void sc_table_reset(sc_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		t->v->reset(sc_table_at(t, i), t->cfg);
}

double sc_table_bytes_per_counter(const sc_table *t)
{
	double heap = 0;
	for (size_t i = 0; i < t->n; i++)
		heap += (double)t->v->heap_bytes(sc_table_at(t, i), t->cfg);
	return (double)t->stride + (t->n ? heap / (double)t->n : 0);
}

size_t sc_variant_default_bytes(const sc_variant *v, const sc_env *env)
{
	sc_params p;
	sc_table t;
	sc_err err;
	sc_params_clear(&p);
	if (sc_table_create(&t, v, &p, env, 1, &err))
		return 0;
	size_t bytes = (size_t)(sc_table_bytes_per_counter(&t) + 0.5);
	sc_table_destroy(&t);
	return bytes;
}
