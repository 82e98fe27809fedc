/* SPDX-License-Identifier: MIT */
/*
 * test_scalable_rng.c - Scalable's generators (sc_scalable.h, parameter
 * rng): the scrambled generator rng=mix (sc_xorshift_mix, sc_random.h) is
 * a bijection-based scrambler of xorshift that never returns 0 from a
 * nonzero state and whose every output bit depends on every state bit (the
 * same check fails for plain xorshift, whose low bit depends on three state
 * bits); Scalable's increments, default, rng=xorshift and rng=mix, match a
 * model written apart from the library step by step, so the default draws
 * are xorshift's, unchanged; rng=mix through the handle; bad values and
 * combinations are refused with their reason. Deterministic: every
 * generator starts from a fixed seed. rng=mix's accuracy (unbiased, RSTDV
 * within Ayers's bound, over seeded runs) is checked in tests/test_scalable.c
 * with the family's other statistical specs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, pthread barriers under -std=c11 */
#endif

#include "testprob_inst.h"

#include <scounters/sc_counter.h>

/* The inverse of an odd a modulo 2^32 (Newton's iteration, 5 rounds from a). */
static uint32_t inverse_odd(uint32_t a)
{
	uint32_t x = a; /* correct to 3 bits; each round doubles them */
	for (int i = 0; i < 5; i++)
		x *= 2u - a * x;
	return x;
}

/* x ^= x >> k undone (k >= 1): applying it until the shift runs out. */
static uint32_t unxorshift_right(uint32_t y, unsigned k)
{
	uint32_t x = y;
	for (unsigned s = k; s < 32; s += k)
		x = y ^ (x >> k);
	return x;
}

/* fmix32 undone step by step: that it exists for every checked word is the bijection. */
static uint32_t unfmix32(uint32_t y)
{
	y = unxorshift_right(y, 16);
	y *= inverse_odd(0xc2b2ae35u);
	y = unxorshift_right(y, 13);
	y *= inverse_odd(0x85ebca6bu);
	return unxorshift_right(y, 16);
}

static void test_fmix32_bijection(void)
{
	bool inverted = true, nonzero = true;
	uint32_t x = 1;
	for (uint32_t i = 0; i < (1u << 22); i++) {
		uint32_t w =
			i < (1u << 21) ? i : sc_xorshift_dice(&x); /* small words, then spread */
		uint32_t y = sc_fmix32(w);
		inverted &= unfmix32(y) == w;
		nonzero &= (y != 0) == (w != 0);
	}
	tap_ok(inverted, "fmix32 is undone by its inverse on 0 .. 2^21 - 1 and 2^21 spread words "
	                 "(no two of them share an output)");
	tap_ok(nonzero, "fmix32 maps 0, and only 0, to 0 on the same words");
	/* the inverse itself must not be the identity, or the check above proves nothing */
	tap_ok(unfmix32(12345u) != 12345u && sc_fmix32(12345u) != 12345u,
	       "fmix32 moves words (its inverse is not the identity)");
}

static void test_mix_never_zero(void)
{
	static const uint32_t seeds[] = { 1, 2, 100, 0x80000000u, 0xffffffffu };
	bool ok = true;
	for (unsigned k = 0; k < sizeof seeds / sizeof *seeds; k++) {
		uint32_t s = seeds[k], plain = seeds[k];
		for (uint32_t i = 0; i < (1u << 22); i++) {
			uint32_t r = sc_xorshift_mix(&s);
			ok &= r != 0 && r == sc_fmix32(sc_xorshift_ayers(&plain)) && s == plain;
		}
	}
	tap_ok(ok, "sc_xorshift_mix: 5 seeds x 2^22 draws, never 0, each fmix32 of the xorshift "
	           "step on the same state");
}

/*
 * For every (state bit i, output bit j), whether flipping bit i of the state
 * flipped bit j of the draw in at least one of 256 states (seeded, xorshift
 * (6,21,7) from 7). A draw whose output bit depends on state bit i flips it
 * for about half the states: a miss by chance has probability 2^-256 per
 * pair, below 2^-246 over the 1024 pairs.
 */
static bool all_bits_depend(uint32_t (*draw)(uint32_t *))
{
	uint32_t seen[32] = { 0 }, pick = 7;
	for (int n = 0; n < 256; n++) {
		uint32_t state = sc_xorshift_dice(&pick);
		uint32_t a = state, base = draw(&a);
		for (unsigned i = 0; i < 32; i++) {
			uint32_t b = state ^ (1u << i);
			seen[i] |= base ^ draw(&b);
		}
	}
	for (unsigned i = 0; i < 32; i++)
		if (seen[i] != UINT32_MAX)
			return false;
	return true;
}

static void test_mix_avalanche(void)
{
	tap_ok(all_bits_depend(sc_xorshift_mix),
	       "sc_xorshift_mix: every output bit depends on every state bit");
	tap_ok(!all_bits_depend(sc_xorshift_ayers),
	       "sc_xorshift_ayers fails the same check (its low bit is x0 ^ x4 ^ x17)");
}

/*
 * A model of Ayers's increment written apart from sc_scalable.h: width 32,
 * exact below 2^T; from 2^T, s = floor(log2 count) - (T - 1), add 2^s when
 * the low s bits of (draw - 1) are zero; the draw xorshift (13,17,5), or
 * murmur3's fmix32 of it.
 */
static uint32_t model_draw(uint32_t *s, bool mix)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	if (!mix)
		return x;
	x = (x ^ (x >> 16)) * 0x85ebca6bu;
	x = (x ^ (x >> 13)) * 0xc2b2ae35u;
	return x ^ (x >> 16);
}

static void model_inc(uint32_t *count, uint32_t *rng, unsigned T, bool mix)
{
	uint32_t c = *count;
	if (c < (1u << T)) {
		*count = c + 1;
		return;
	}
	unsigned log = 31;
	while (!(c >> log))
		log--;
	unsigned s = log - (T - 1);
	if (((model_draw(rng, mix) - 1) & ((1u << s) - 1)) == 0)
		*count = c + (1u << s);
}

/* n increments of Scalable params against the model from seed 0x5eed; true if all match. */
static bool matches_model(const char *params, unsigned T, bool mix, unsigned n)
{
	inst in;
	sc_thread t;
	inst_must_open(&in, SC_ID_scalable, params);
	sc_thread_init(&t, 0, 0, 15, false);
	t.rng = 0x5eedu;
	uint32_t model = 0, mrng = 0x5eedu;
	bool same = true;
	for (unsigned i = 0; i < n && same; i++) {
		inst_inc(&in, &t, 1);
		model_inc(&model, &mrng, T, mix);
		same = inst_get(&in) == model && t.rng == mrng;
	}
	inst_close(&in);
	return same;
}

static void test_increments_match_model(void)
{
	tap_ok(matches_model("threshold=4", 4, false, 3000000),
	       "Scalable default, threshold=4: 3,000,000 increments match the xorshift model "
	       "step by step (value and generator state): the default draws are unchanged");
	tap_ok(matches_model("threshold=4 rng=xorshift", 4, false, 3000000),
	       "Scalable rng=xorshift, threshold=4: the same");
	tap_ok(matches_model("threshold=4 rng=mix", 4, true, 3000000),
	       "Scalable rng=mix, threshold=4: 3,000,000 increments match the fmix32 model");
	tap_ok(!matches_model("threshold=4 rng=mix", 4, false, 3000000),
	       "Scalable rng=mix departs from the xorshift model (the check tells them apart)");
}

static void test_handle_and_config(void)
{
	sc_err err;
	sc_counter *c = sc_counter_new("Scalable", "rng=mix,threshold=13", &err);
	for (int i = 0; c && i < 5000; i++)
		sc_counter_inc(c);
	tap_ok(c && sc_counter_get(c) == 5000, "Scalable rng=mix via the handle: 5000 exact");
	sc_counter_free(c);
	inst in;
	inst_must_open(&in, SC_ID_scalable_capped, "rng=mix");
	tap_ok(in.cfg->scalable.alt == SC_SCALABLE_MIX && in.t.thread_seed == 0,
	       "ScalableCapped rng=mix: the scrambled generator, per-thread seeds");
	inst_close(&in);
	inst_must_open(&in, SC_ID_scalable, "");
	tap_ok(in.cfg->scalable.alt == SC_SCALABLE_AYERS, "Scalable default: rng=xorshift");
	inst_close(&in);
	tap_ok(inst_open(&in, SC_ID_scalable, "rng=pcg", &err) != 0 &&
	               strstr(err.msg, "rng=pcg is invalid: expected xorshift or mix") != NULL,
	       "Scalable: rng=pcg is refused: %s", err.msg);
	tap_ok(inst_open(&in, SC_ID_scalable, "runtime=dotnet rng=mix", &err) != 0 &&
	               strstr(err.msg, "runtime=dotnet takes rng=xorshift only") != NULL,
	       "Scalable: runtime=dotnet with rng=mix is refused: %s", err.msg);
	tap_ok(inst_open(&in, SC_ID_scalable, "runtime=dotnet rng=xorshift", &err) == 0,
	       "Scalable: runtime=dotnet with rng=xorshift is taken");
	inst_close(&in);
	tap_ok(inst_open(&in, SC_ID_scalable_cas, "rng=mix", &err) != 0 &&
	               strstr(err.msg, "unknown parameter 'rng'") != NULL,
	       "ScalableCAS: rng is not its key: %s", err.msg);
}

int main(void)
{
	tap_plan_lazy();
	test_fmix32_bijection();
	test_mix_never_zero();
	test_mix_avalanche();
	test_increments_match_model();
	test_handle_and_config();
	return tap_done();
}
