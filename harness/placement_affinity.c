/* SPDX-License-Identifier: MIT */
/*
 * placement_affinity.c - placement.h without hwloc: the CPUs this process may
 * run on, one node, each CPU its own core; binding by sched_setaffinity
 * where the system has it.
 */
#include "placement_impl.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__) && defined(CPU_ALLOC)
#define PLACEMENT_AFFINITY 1
#endif

/*
 * Without hwloc: one node, each CPU its own core. The PUs are the CPUs this
 * process may run on at load time (so binding never targets a CPU that a
 * cgroup or taskset forbids); if that mask is unavailable, CPUs
 * 0 .. online-1.
 */
int topo_load_impl(topo *t, sc_err *err)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	pu_desc *pu;
	uint32_t n = 0;
	int rc;
#ifdef PLACEMENT_AFFINITY
	cpu_set_t *set = NULL;
	int ncpu = 1024, got = -1;
	for (; ncpu <= (1 << 22); ncpu *= 2) {
		set = CPU_ALLOC(ncpu);
		if (!set)
			break;
		got = sched_getaffinity(0, CPU_ALLOC_SIZE(ncpu), set);
		if (got == 0 || errno != EINVAL)
			break;
		CPU_FREE(set);
		set = NULL;
	}
	if (got == 0)
		n = (uint32_t)CPU_COUNT_S(CPU_ALLOC_SIZE(ncpu), set);
#endif
	if (n == 0)
		n = online > 0 ? (uint32_t)online : 1;
	pu = calloc(n, sizeof *pu);
	if (!pu) {
#ifdef PLACEMENT_AFFINITY
		CPU_FREE(set);
#endif
		sc_err_set(err, "placement: out of memory for %u PUs", n);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++)
		pu[i] = (pu_desc){(int32_t)i, 0, -1, i}; /* the node is not known here */
#ifdef PLACEMENT_AFFINITY
	if (got == 0) {
		uint32_t i = 0;
		for (int c = 0; c < ncpu && i < n; c++)
			if (CPU_ISSET_S(c, CPU_ALLOC_SIZE(ncpu), set))
				pu[i++].os = c;
	}
	CPU_FREE(set);
	t->can_bind = true;
#else
	t->can_bind = false;
#endif
	t->pus = t->cores = n;
	t->nodes = 1;
	rc = topo_build_orders(t, pu, err);
	free(pu);
	if (rc == 0)
		topo_set_describe(t, 0, t->can_bind ? "no hwloc" : "no hwloc, cannot bind");
	return rc;
}

int topo_bind_impl(const topo *t, const placement_slot *slot, sc_err *err)
{
#ifdef PLACEMENT_AFFINITY
	size_t ncpu = (size_t)slot->pu_os + 1;
	cpu_set_t *set = CPU_ALLOC(ncpu);
	int rc;
	(void)t;
	if (!set) {
		sc_err_set(err, "placement: out of memory for a CPU set");
		return -1;
	}
	CPU_ZERO_S(CPU_ALLOC_SIZE(ncpu), set);
	CPU_SET_S((size_t)slot->pu_os, CPU_ALLOC_SIZE(ncpu), set);
	/* pid 0 is the calling thread, not the whole process. */
	rc = sched_setaffinity(0, CPU_ALLOC_SIZE(ncpu), set);
	CPU_FREE(set);
	if (rc < 0) {
		sc_err_set(err, "placement: cannot bind thread to CPU %d: %s", slot->pu_os,
		           strerror(errno));
		return -1;
	}
	return 0;
#else
	(void)t;
	(void)slot;
	(void)err;
	return 0;
#endif
}

void topo_release_impl(topo *t)
{
	(void)t;
}

int topo_groupings_impl(const topo *t, int32_t *os, uint32_t *gid, sc_err *err)
{
	(void)t, (void)os, (void)gid, (void)err;
	return 0; /* no topology: PerCPUTree keeps its fixed arity */
}
