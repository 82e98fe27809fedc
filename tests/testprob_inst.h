/* SPDX-License-Identifier: MIT */
/*
 * testprob_inst.h - one counter of a probabilistic variant through the
 * registry, for the probabilistic families' tests (tests/testprob.h): open
 * and close it, increment it n times through the variant's inlined fast
 * path, add n as a cycle of chunk sizes, reach its word; and the
 * single-thread helpers (exact counting, increments until the value moves).
 */
#ifndef SC_TESTPROB_INST_H
#define SC_TESTPROB_INST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scounters/scounters.h>
#include "tap.h"
#include "testutil.h"

/* ---- one counter of a variant, through the registry ---- */

/* What config wrote, for the checks that read it. */
typedef union any_cfg {
	sc_morris_cfg morris;
	sc_bfp_cfg bfp;
	sc_scalable_cfg scalable;
} any_cfg;

/* A table of one counter, and views into it. */
typedef struct inst {
	sc_table t;
	const sc_variant *v; /* t.v */
	const any_cfg *cfg; /* t.cfg */
	void *c; /* the counter */
} inst;

/*
 * Configure variant id from params ("k=v k=v") and make one counter with
 * sc_table_create, which also rejects keys the variant did not read.
 */
static inline int inst_open(inst *in, int id, const char *params, sc_err *err)
{
	sc_env env = { 1, 1, 1 };
	memset(in, 0, sizeof *in);
	in->v = &sc_variants[id];
	err->msg[0] = '\0';
	if (test_table_open(&in->t, in->v, &env, 1, params, err))
		return -1;
	in->cfg = in->t.cfg;
	in->c = sc_table_at(&in->t, 0);
	return 0;
}

static inline void inst_must_open(inst *in, int id, const char *params)
{
	sc_err err;
	if (inst_open(in, id, params, &err)) {
		fprintf(stderr, "cannot configure %s with '%s': %s\n", sc_variants[id].name, params,
		        err.msg);
		exit(99);
	}
}

static inline void inst_close(inst *in)
{
	sc_table_destroy(&in->t);
	in->c = NULL;
}

static inline uint64_t inst_get(const inst *in)
{
	return in->v->get(in->c, in->cfg);
}

/*
 * n increments through the variant's inlined fast path, as scbench's loops
 * make them: the statistical runs make some 10^9 increments, which one
 * indirect call each (the registry's inc) makes a third slower.
 */
typedef void (*inc_n_fn)(void *c, const void *cfg, sc_thread *t, uint64_t n);

#define INC_N_(P, ...)                                                            \
	static void P##_inc_n(void *c, const void *cfg, sc_thread *t, uint64_t n) \
	{                                                                         \
		for (uint64_t i = 0; i < n; i++)                                  \
			sc_##P##_inc(c, cfg, t);                                  \
	}
SC_VARIANTS(INC_N_)
#undef INC_N_

/*
 * The variant's loop, by its id (a switch rather than a table indexed by
 * [SC_ID_##P] = ..., which clang-format takes for Objective-C in a header).
 */
static inline void inst_inc(inst *in, sc_thread *t, uint64_t n)
{
	switch (in->v - sc_variants) {
#define INC_N_CASE_(P, ...)                      \
	case SC_ID_##P:                          \
		P##_inc_n(in->c, in->cfg, t, n); \
		break;
		SC_VARIANTS(INC_N_CASE_)
#undef INC_N_CASE_
	default:
		abort(); /* not a variant of the list */
	}
}

/*
 * n increments given as adds whose sizes cycle through ADD_CHUNKS, starting
 * at entry `phase`: singles, small and large adds mixed, so that add's runs
 * of bumps, its gaps and its ordinary single updates all take part.
 */
static const uint64_t ADD_CHUNKS[] = { 1, 3, 1000, 2, 17, 131072, 1, 4096, 250, 65536, 7, 30000 };
#define N_ADD_CHUNKS (sizeof ADD_CHUNKS / sizeof ADD_CHUNKS[0])

static inline void inst_add_chunks(inst *in, sc_thread *t, uint64_t n, unsigned phase)
{
	for (unsigned i = phase; n; i++) {
		uint64_t k = ADD_CHUNKS[i % N_ADD_CHUNKS];
		k = k < n ? k : n;
		in->v->add(in->c, in->cfg, t, k);
		n -= k;
	}
}

/* The raw counter word (every variant here is one 32- or 64-bit atomic word). */
static inline _Atomic uint32_t *word32(inst *in)
{
	return (_Atomic uint32_t *)in->c;
}

static inline _Atomic uint64_t *word64(inst *in)
{
	return (_Atomic uint64_t *)in->c;
}

/* ---- single-thread helpers ---- */

/* Every value after 1 .. n increments equals the count. */
static inline bool counts_exactly(inst *in, sc_thread *t, uint64_t n)
{
	uint64_t start = inst_get(in);
	for (uint64_t k = 1; k <= n; k++) {
		inst_inc(in, t, 1);
		if (inst_get(in) != start + k)
			return false;
	}
	return true;
}

/* Increment until the value changes (at most max times); the new value. */
static inline uint64_t inc_until_change(inst *in, sc_thread *t, uint64_t max)
{
	uint64_t before = inst_get(in);
	for (uint64_t i = 0; i < max; i++) {
		inst_inc(in, t, 1);
		uint64_t after = inst_get(in);
		if (after != before)
			return after;
	}
	return before;
}

#endif /* SC_TESTPROB_INST_H */
