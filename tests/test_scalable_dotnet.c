/* SPDX-License-Identifier: MIT */
/*
 * test_scalable_dotnet.c - Scalable's model of the .NET runtime
 * (sc_scalable.h, runtime=dotnet): every thread's generator starts at 100;
 * 3,000,000 increments match, step by step, a model of the runtime's
 * JIT_CountProfile32 written apart from the library; past 2^31 the count is
 * negative and grows by 1; at width 64 the count stops at 2^44, below which
 * its range lies; the default runtime seeds per thread; another runtime is
 * refused. Deterministic: the generators start from fixed seeds (100, and
 * the thread's 15, replaced by the table's).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, pthread barriers under -std=c11 */
#endif

#include "testprob_inst.h"

/*
 * A model of the .NET runtime's JIT_CountProfile32, written from its
 * description (dotnet/runtime src/coreclr/vm/jithelpers.cpp): a signed
 * 32-bit count; from 2^13 on, delta = 2^(floor(log2 count) - 12), added
 * when the low bits of the thread's xorshift (13,17,5) draw, seeded with
 * 100, are zero. Plain sequential code, independent of sc_scalable.h.
 */
static uint32_t dotnet_model_rand(uint32_t *s)
{
	uint32_t x = *s;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *s = x;
}

static void dotnet_model_count32(int32_t *count, uint32_t *rng)
{
	int32_t c = *count;
	uint32_t delta = 1;
	if (c > 0) {
		int log = 31;
		while (!((uint32_t)c >> log))
			log--;
		if (log >= 13) {
			delta = 1u << (log - 12);
			if ((dotnet_model_rand(rng) & (delta - 1)) != 0)
				return;
		}
	}
	*count = (int32_t)((uint32_t)c + delta);
}
static void test_scalable_dotnet_model(void)
{
	inst in;
	inst_must_open(&in, SC_ID_scalable, "runtime=dotnet");
	tap_ok(in.t.thread_seed == 100, "Scalable runtime=dotnet: every thread's generator starts "
	                                "at 100");
	sc_thread t;
	sc_thread_init(&t, 0, 0, 15, false);
	t.rng = in.t.thread_seed; /* what scbench does for such a table */
	int32_t model = 0;
	uint32_t mrng = 100;
	bool same = true;
	for (int i = 0; i < 3000000 && same; i++) {
		inst_inc(&in, &t, 1);
		dotnet_model_count32(&model, &mrng);
		same = inst_get(&in) == (uint32_t)model && t.rng == mrng;
	}
	tap_ok(same,
	       "Scalable runtime=dotnet: 3,000,000 increments match the runtime model "
	       "step by step (value %llu)",
	       (unsigned long long)inst_get(&in));
	/* Signed reading: from 2^31 on the runtime adds 1 exactly. */
	atomic_store(word32(&in), 0x80000000u);
	model = INT32_MIN;
	for (int i = 0; i < 100000 && same; i++) {
		inst_inc(&in, &t, 1);
		dotnet_model_count32(&model, &mrng);
		same = inst_get(&in) == (uint32_t)model;
	}
	tap_ok(same && inst_get(&in) == 0x80000000u + 100000,
	       "Scalable runtime=dotnet: past 2^31 the count is negative and grows by 1, as the "
	       "model");
	inst_close(&in);
	inst_must_open(&in, SC_ID_scalable, "runtime=dotnet width=64");
	tap_ok(in.v->range(in.cfg) < (1ull << 44) && in.v->range(in.cfg) > (1ull << 44) / 1.06,
	       "Scalable runtime=dotnet width=64: range a bound below 2^44, where the count stops");
	atomic_store(word64(&in), 1ull << 44);
	for (int i = 0; i < 100000; i++)
		inst_inc(&in, &t, 1);
	tap_ok(inst_get(&in) == 1ull << 44,
	       "Scalable runtime=dotnet width=64: from 2^44 the count stops (32-bit draw)");
	inst_close(&in);
	inst_must_open(&in, SC_ID_scalable, "");
	tap_ok(in.t.thread_seed == 0, "Scalable default (runtime=ayers): per-thread seeds");
	inst_close(&in);
	sc_err err;
	tap_ok(inst_open(&in, SC_ID_scalable, "runtime=java", &err) != 0 &&
	               strstr(err.msg, "runtime=java") != NULL,
	       "Scalable: runtime=java is rejected: %s", err.msg);
}

int main(void)
{
	tap_plan_lazy();
	test_scalable_dotnet_model();
	return tap_done();
}
