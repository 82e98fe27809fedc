/* SPDX-License-Identifier: MIT */
/*
 * unload_plugin.c - a plugin as a program that loads plugins meets one
 * (tests/test_unload.c loads it with dlopen and closes it with dlclose):
 * it links libscounters and counts with every entry point that inlines a
 * restartable sequence into the plugin itself (the handle API's PerCPU
 * increment, sc_group_inc, sc_pcgroup_inc, the cursor's add), and with a
 * Sharded handle counter (whose thread context the library's thread-exit
 * destructor retires). plugin_count's second argument says whether the
 * thread then calls sc_rseq_prepare_unload: objects built with this
 * version's headers need not (sc_rseq.h, "Plugins and unloading"), and
 * the host tries both.
 */
#include <scounters/scounters.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLUGIN_API __attribute__((visibility("default")))

static sc_counter *percpu, *sharded;
static sc_pcgroup pcgroup;
static sc_group *group;
#define GROUP_N 4
/* the plugin's own per-CPU array: cpus words a line apart, then the overflow word */
static unsigned char *words;
static uint32_t cpus;
static uint64_t words_index;

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
	long n = sysconf(_SC_NPROCESSORS_CONF);
	cpus = n > 0 ? (uint32_t)n : 1;
	words_index = sc_percpu_index(SC_PERCPU_PRIVATE);
	if (group && !(words = aligned_alloc(SC_LINE_SIZE, (size_t)(cpus + 1) * SC_LINE_SIZE))) {
		sc_group_free(group);
		group = NULL;
		snprintf(err.msg, sizeof err.msg, "out of memory");
	}
	if (words)
		memset(words, 0, (size_t)(cpus + 1) * SC_LINE_SIZE);
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

/* n increments of each counter by the calling thread, then (prepare) the call. */
PLUGIN_API void plugin_count(unsigned n, int prepare);
PLUGIN_API void plugin_count(unsigned n, int prepare)
{
	/* the last sequence each thread enters is one inlined here, in the plugin */
	sc_percpu_cursor cur = sc_percpu_cursor_get(words, SC_LINE_SIZE, cpus, words_index);
	for (unsigned i = 0; i < n; i++) {
		sc_group_inc(group, i % GROUP_N);
		sc_counter_inc(sharded);
		sc_counter_inc(percpu);
		sc_pcgroup_inc(&pcgroup, i % GROUP_N);
		sc_percpu_cursor_add(&cur, 1);
	}
	if (prepare)
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
	uint64_t w = 0;
	for (uint32_t k = 0; k <= cpus; k++)
		/* relaxed: the adders are joined; any order gives the same sum */
		w += atomic_load_explicit((SC_ATOMIC(uint64_t) *)(void *)(words + (size_t)k * SC_LINE_SIZE),
		                          memory_order_relaxed);
	uint64_t got[5] = {sc_counter_get(percpu), sc_counter_get(sharded), pg, g, w};
	snprintf(msg, size,
	         "PerCPU %llu, Sharded %llu, sc_pcgroup %llu, sc_group %llu, cursor %llu; want %llu",
	         (unsigned long long)got[0], (unsigned long long)got[1], (unsigned long long)got[2],
	         (unsigned long long)got[3], (unsigned long long)got[4], (unsigned long long)want);
	for (int i = 0; i < 5; i++)
		if (got[i] != want)
			return -1;
	return 0;
}

PLUGIN_API void plugin_close(void);
PLUGIN_API void plugin_close(void)
{
	sc_group_free(group);
	free(words);
	words = NULL;
	sc_pcgroup_destroy(&pcgroup);
	sc_counter_free(sharded);
	sc_counter_free(percpu);
	group = NULL;
	percpu = sharded = NULL;
}
