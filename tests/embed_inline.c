/* SPDX-License-Identifier: MIT */
/*
 * embed_inline.c - the inlined per-variant API from a user's point of view:
 * one BFP-CSUP counter configured and incremented through its static inline
 * fast path, with a thread context the caller owns (or the library's, from
 * sc_thread_self). Valid C11 and C++17/20/23; CI builds it both ways
 * against the installed scounters.pc.
 */
#include <scounters/scounters.h>

#include <inttypes.h>
#include <stdio.h>

int main(void)
{
	sc_err err;
	sc_env env;
	sc_env_default(&env); /* 1 thread, 1 node, the OS's CPUs */
	sc_params params;
	sc_params_clear(&params);
	if (sc_params_add(&params, "accuracy=1", &err))
		return 1;

	sc_bfp_csup_cfg cfg; /* per-class configuration, shared by many counters */
	sc_bfp_csup_t c;     /* the counter: 4 bytes */
	if (sc_bfp_csup_config(&cfg, &params, &env, &err) || sc_bfp_csup_init(&c, &cfg, &err)) {
		fprintf(stderr, "BFP-CSUP: %s\n", err.msg);
		return 1;
	}
	sc_thread me; /* this thread's context: index, node, RNG streams */
	sc_thread_init(&me, /* index */ 0, /* node */ 0, /* seed */ 42, false);
	for (int i = 0; i < 1000000; i++)
		sc_bfp_csup_inc(&c, &cfg, &me); /* inlined: no call per increment */
	sc_bfp_csup_add(&c, &cfg, &me, 500000);
	uint64_t v = sc_bfp_csup_get(&c, &cfg);
	sc_bfp_csup_destroy(&c, &cfg);

	/* A precise counter with the library's context for this thread. */
	sc_fetchadd_cfg fcfg;
	sc_fetchadd_t f;
	sc_params_clear(&params); /* FetchAdd has no parameters */
	if (sc_fetchadd_config(&fcfg, &params, &env, &err) || sc_fetchadd_init(&f, &fcfg, &err))
		return 1;
	for (int i = 0; i < 1000; i++)
		sc_fetchadd_inc(&f, &fcfg, sc_thread_self());
	uint64_t exact = sc_fetchadd_get(&f, &fcfg);

	printf("BFP-CSUP %" PRIu64 " (true 1500000), FetchAdd %" PRIu64 "\n", v, exact);
	/* BFP-CSUP is exact on one thread below 2^28 */
	return v == 1500000 && exact == 1000 ? 0 : 1;
}
