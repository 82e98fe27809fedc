/* SPDX-License-Identifier: MIT */
/*
 * numa_priv.h - what the NUMA-aware counters' files share (library-internal):
 * numa.c (RBONuma, RBONumaAdapt) and multiline.c (Multiline,
 * MultilineAdapt), both of sc_numa.h.
 */
#ifndef SC_NUMA_PRIV_H
#define SC_NUMA_PRIV_H

#include <scounters/sc_numa.h>

#include <stdio.h>

/*
 * SC_NUMA_TEST_INTERFERE(word): a test build defines it to write the word as
 * another thread would, just before a CAS of an adaptive slow path, so that
 * the CAS fails on cue and the switch thresholds can be tested on one thread
 * (tests/test_numa_switch.c includes numa.c and multiline.c). Otherwise it
 * is nothing.
 */
#ifndef SC_NUMA_TEST_INTERFERE
#define SC_NUMA_TEST_INTERFERE(word) ((void)0)
#endif

/* env.nodes in 1 .. max, or -1 with a message saying why. */
static inline int sc_numa_check_nodes_(const sc_env *env, const char *variant, uint32_t max,
                                       const char *why, sc_err *err)
{
	if (env->nodes < 1 || env->nodes > max) {
		sc_err_set(err, "%s: %u nodes is out of range: expected 1 to %u (%s)", variant,
		           env->nodes, max, why);
		return -1;
	}
	return 0;
}

#endif
