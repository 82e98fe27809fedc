/* SPDX-License-Identifier: MIT */
/*
 * sc_common.c - what sc_common.h declares itself: the kinds' names, the
 * default environment and the seeding of a thread context. Random numbers,
 * errors, parameters and allocation are in sc_random.c, sc_error.c,
 * sc_params.c and sc_alloc.c.
 */
#include <scounters/sc_common.h>

#include <unistd.h>

#include "env_priv.h"

const char *sc_kind_name(sc_kind kind)
{
	switch (kind) {
	case SC_PRECISE: return "precise";
	case SC_PROBABILISTIC: return "probabilistic";
	case SC_RACY: return "racy";
	}
	return "unknown";
}

void sc_env_default(sc_env *env)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	env->threads = 1;
	env->nodes = 1;
	env->cpus = n > 0 ? (uint32_t)n : 1;
}

uint32_t sc_env_cpus_(const sc_env *env)
{
	if (env->cpus)
		return env->cpus;
	sc_env os;
	sc_env_default(&os); /* the OS's configured count, as sc_env_default gives it */
	return os.cpus;
}

void sc_thread_init(sc_thread *t, uint32_t index, uint32_t node, uint64_t seed, bool same_seed)
{
	uint32_t who = same_seed ? 0 : index;
	t->index = index;
	t->node = node;
	t->rng = sc_derive_seed32(seed, who, 0);
	t->probe = sc_derive_seed32(seed, index, 1);
}
