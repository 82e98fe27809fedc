/* SPDX-License-Identifier: MIT */
/*
 * unload_plugin.c - a plugin as a program that loads plugins meets one
 * (tests/test_unload.c loads it with dlopen and closes it with dlclose):
 * it links libscounters and counts with the additions that inline a
 * restartable sequence into the plugin itself (the handle API's PerCPU
 * increment, sc_pcgroup_inc), with a Sharded handle counter (whose thread
 * context the library's thread-exit destructor retires) and with the
 * library's own group (sc_group_inc: a sequence inside libscounters).
 * Each thread that counted calls sc_rseq_prepare_unload after its last
 * add, as sc_rseq.h's rule asks of an object that will be unloaded.
 */
#include <scounters/scounters.h>

#include <stdio.h>
#include <string.h>

#define PLUGIN_API __attribute__((visibility("default")))

static sc_counter *percpu, *sharded;
static sc_pcgroup pcgroup;
static sc_group *group;
#define GROUP_N 4

/* Make the counters: 0, or -1 with the library's message in msg. */
PLUGIN_API int plugin_open(char *msg, size_t size);
PLUGIN_API int plugin_open(char *msg, size_t size)
{
	sc_err err;
	sc_env env;
	sc_env_default(&env);
	percpu = sc_counter_new("PerCPU", "", &err);
	if (percpu)
		sharded = sc_counter_new("Sharded", "", &err);
	if (sharded && sc_pcgroup_init(&pcgroup, GROUP_N, &env, &err) == 0)
		group = sc_group_new(GROUP_N, &err);
	if (!group) {
		snprintf(msg, size, "%s", err.msg);
		if (sharded)
			sc_pcgroup_destroy(&pcgroup);
		sc_counter_free(sharded);
		sc_counter_free(percpu);
		percpu = sharded = NULL;
		return -1;
	}
	return 0;
}

/* n increments of each counter by the calling thread, then the unload rule. */
PLUGIN_API void plugin_count(unsigned n);
PLUGIN_API void plugin_count(unsigned n)
{
	/* the last sequence each thread enters is one inlined here, in the plugin */
	for (unsigned i = 0; i < n; i++) {
		sc_group_inc(group, i % GROUP_N);
		sc_counter_inc(sharded);
		sc_counter_inc(percpu);
		sc_pcgroup_inc(&pcgroup, i % GROUP_N);
	}
	sc_rseq_prepare_unload();
}

/* Whether every counter holds want increments (the groups: summed over their counters). */
PLUGIN_API int plugin_check(uint64_t want, char *msg, size_t size);
PLUGIN_API int plugin_check(uint64_t want, char *msg, size_t size)
{
	uint64_t pg = 0, g = 0;
	for (uint32_t i = 0; i < GROUP_N; i++) {
		pg += sc_pcgroup_get(&pcgroup, i);
		g += sc_group_get(group, i);
	}
	uint64_t got[4] = {sc_counter_get(percpu), sc_counter_get(sharded), pg, g};
	snprintf(msg, size, "PerCPU %llu, Sharded %llu, sc_pcgroup %llu, sc_group %llu; want %llu",
	         (unsigned long long)got[0], (unsigned long long)got[1], (unsigned long long)got[2],
	         (unsigned long long)got[3], (unsigned long long)want);
	for (int i = 0; i < 4; i++)
		if (got[i] != want)
			return -1;
	return 0;
}

PLUGIN_API void plugin_close(void);
PLUGIN_API void plugin_close(void)
{
	sc_group_free(group);
	sc_pcgroup_destroy(&pcgroup);
	sc_counter_free(sharded);
	sc_counter_free(percpu);
	group = NULL;
	percpu = sharded = NULL;
}
