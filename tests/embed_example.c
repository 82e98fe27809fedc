/*
 * embed_example.c - the smallest program that uses the installed library:
 * one BFP-CSUP counter inlined, one counter chosen by name at run time.
 * CI compiles it against the installed scounters.pc and runs it.
 */
#include <scounters/scounters.h>
#include <stdio.h>

int main(void)
{
	sc_env env;
	sc_params p;
	sc_err err;
	sc_thread me;
	sc_env_default(&env);
	sc_params_clear(&p);
	sc_thread_init(&me, 0, 0, 1, false);

	sc_bfp_csup_cfg cfg;
	sc_bfp_csup_t c;
	if (sc_bfp_csup_config(&cfg, &p, &env, &err) || sc_bfp_csup_init(&c, &cfg, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < 1000; i++)
		sc_bfp_csup_inc(&c, &cfg, &me);

	sc_table t;
	if (sc_table_create(&t, sc_variant_find("FetchAdd"), &p, &env, 1, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < 1000; i++)
		t.v->inc(sc_table_at(&t, 0), t.cfg, &me);
	unsigned long long a = sc_bfp_csup_get(&c, &cfg), b = t.v->get(sc_table_at(&t, 0), t.cfg);
	sc_table_destroy(&t);
	sc_bfp_csup_destroy(&c, &cfg);
	printf("BFP-CSUP %llu, FetchAdd %llu\n", a, b);
	return a == 1000 && b == 1000 ? 0 : 1;
}
