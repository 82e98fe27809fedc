/* SPDX-License-Identifier: MIT */
/*
 * test_declared.c - every public counter type declared as a user would
 * (scounters.h's "Directly, inlined" example: `sc_P_cfg cfg; sc_P_t c;`
 * on the stack), configured for 4 threads on 4 nodes, then initialised,
 * incremented and added to from 4 contexts (indices and nodes 0 .. 3), read
 * and destroyed. Every type that can be declared must hold the bytes its
 * variant uses (sizeof(sc_P_t) >= sc_P_size(&cfg)), which a variable-size
 * counter cannot: those (Multiline, the Scalable family) are incomplete
 * types, declared through their storage helpers or not at all, and this
 * file could not name them on the stack. Run under AddressSanitizer by CI,
 * where an out-of-bounds write on the stack fails at once.
 *
 * Deterministic: fixed seeds; the precise variants' values are exact.
 */
#include <scounters/scounters.h>

#include "tap.h"

#define THREADS 4u
#define PER_CTX 100u

/* Configure, init, count from 4 contexts, read, destroy a counter c of variant P. */
#define EXERCISE(P, ...)                                                                   \
	static void exercise_##P(void)                                                     \
	{                                                                                  \
		const sc_variant *v = &sc_variants[SC_ID_##P];                             \
		sc_env env = {THREADS, THREADS, THREADS};                                  \
		sc_params p;                                                               \
		sc_err err;                                                                \
		sc_P_cfg_(P) cfg;                                                          \
		sc_params_clear(&p);                                                       \
		if (sc_##P##_config(&cfg, &p, &env, &err)) {                               \
			tap_ok(false, "%s: config: %s", v->name, err.msg);                 \
			return;                                                            \
		}                                                                          \
		__VA_ARGS__                                                                \
		tap_ok(sizeof storage >= sc_##P##_size(&cfg),                              \
		       "%s: the declared object (%zu bytes) holds sc_%s_size (%zu)", v->name, \
		       sizeof storage, #P, sc_##P##_size(&cfg));                          \
		if (sizeof storage < sc_##P##_size(&cfg))                                  \
			return; /* counting would write past it */                        \
		if (sc_##P##_init(c, &cfg, &err)) {                                        \
			tap_ok(false, "%s: init: %s", v->name, err.msg);                   \
			return;                                                            \
		}                                                                          \
		for (uint32_t i = 0; i < THREADS; i++) {                                   \
			sc_thread t;                                                       \
			sc_thread_init(&t, i, i, 0xdec1a5edu, false);                      \
			for (unsigned k = 0; k < PER_CTX; k++)                             \
				sc_##P##_inc(c, &cfg, &t);                                 \
			sc_##P##_add(c, &cfg, &t, PER_CTX);                                \
			sc_##P##_flush(c, &cfg, &t);                                       \
		}                                                                          \
		uint64_t got = sc_##P##_get(c, &cfg), want = 2ull * THREADS * PER_CTX;    \
		if (v->kind == SC_PRECISE)                                                 \
			tap_ok(got == want, "%s: declared, 4 threads on 4 nodes: %llu of %llu", \
			       v->name, (unsigned long long)got, (unsigned long long)want); \
		else                                                                       \
			tap_ok(got > 0, "%s: declared, 4 threads on 4 nodes: %llu (estimate of %llu)", \
			       v->name, (unsigned long long)got, (unsigned long long)want); \
		sc_##P##_destroy(c, &cfg);                                                 \
	}
#define sc_P_cfg_(P) sc_##P##_cfg
/* A complete type: declared as the umbrella header's example does. */
#define DECLARED(P) sc_##P##_t storage; sc_##P##_t *c = &storage;
/* The Scalable family: its storage union (sc_scalable.h). */
#define SCALABLE_STORAGE(P) sc_scalable_storage storage; sc_##P##_t *c = (sc_##P##_t *)&storage;

EXERCISE(serial, DECLARED(serial))
EXERCISE(cas, DECLARED(cas))
EXERCISE(fetchadd, DECLARED(fetchadd))
EXERCISE(rbo, DECLARED(rbo))
EXERCISE(cas_prefetch, DECLARED(cas_prefetch))
EXERCISE(cas_once, DECLARED(cas_once))
EXERCISE(rbonuma, DECLARED(rbonuma))
EXERCISE(rbonuma_adapt, DECLARED(rbonuma_adapt))
EXERCISE(multiline_adapt, DECLARED(multiline_adapt))
EXERCISE(morris, DECLARED(morris))
EXERCISE(morris_adapt, DECLARED(morris_adapt))
EXERCISE(bfp_dup, DECLARED(bfp_dup))
EXERCISE(bfp_csup, DECLARED(bfp_csup))
EXERCISE(scalable, SCALABLE_STORAGE(scalable))
EXERCISE(scalable_cas, SCALABLE_STORAGE(scalable_cas))
EXERCISE(scalable_capped, SCALABLE_STORAGE(scalable_capped))
EXERCISE(sharded, DECLARED(sharded))
EXERCISE(striped, DECLARED(striped))
EXERCISE(batched, DECLARED(batched))
EXERCISE(percpu, DECLARED(percpu))

/* Multiline is sized by its node count: allocated, never declared. */
static void exercise_multiline_allocated(void)
{
	sc_env env = {THREADS, THREADS, THREADS};
	sc_params p;
	sc_err err;
	sc_multiline_cfg cfg;
	sc_params_clear(&p);
	if (sc_multiline_config(&cfg, &p, &env, &err)) {
		tap_ok(false, "Multiline: config: %s", err.msg);
		return;
	}
	sc_multiline_t *c = sc_alloc_lines(sc_multiline_size(&cfg));
	if (!c || sc_multiline_init(c, &cfg, &err)) {
		tap_ok(false, "Multiline: alloc or init");
		sc_free_lines(c);
		return;
	}
	for (uint32_t i = 0; i < THREADS; i++) {
		sc_thread t;
		sc_thread_init(&t, i, i, 0xdec1a5edu, false);
		for (unsigned k = 0; k < PER_CTX; k++)
			sc_multiline_inc(c, &cfg, &t);
		sc_multiline_add(c, &cfg, &t, PER_CTX);
	}
	uint64_t got = sc_multiline_get(c, &cfg);
	tap_ok(got == 2ull * THREADS * PER_CTX && sc_multiline_size(&cfg) == THREADS * SC_LINE_SIZE,
	       "Multiline: allocated with sc_multiline_size (%zu bytes for 4 nodes): %llu",
	       sc_multiline_size(&cfg), (unsigned long long)got);
	sc_multiline_destroy(c, &cfg);
	sc_free_lines(c);
}

int main(void)
{
	tap_plan_lazy();
	exercise_serial();
	exercise_cas();
	exercise_fetchadd();
	exercise_rbo();
	exercise_cas_prefetch();
	exercise_cas_once();
	exercise_rbonuma();
	exercise_rbonuma_adapt();
	exercise_multiline_allocated();
	exercise_multiline_adapt();
	exercise_morris();
	exercise_morris_adapt();
	exercise_bfp_dup();
	exercise_bfp_csup();
	exercise_scalable();
	exercise_scalable_cas();
	exercise_scalable_capped();
	exercise_sharded();
	exercise_striped();
	exercise_batched();
	exercise_percpu();
	return tap_done();
}
