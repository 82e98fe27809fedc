/* SPDX-License-Identifier: MIT */
/*
 * test_node_real.c - node ids from the kernel on this machine's real
 * topology (as hwloc sees it; HWLOC_SYNTHETIC and HWLOC_XMLFILE are ignored):
 * a thread bound to the first and to the last PU of each NUMA node gets that
 * node's kernel id from sc_node_kernel (which agrees with getcpu), that
 * node's counter index from sc_thread_self (the context of the handle API),
 * and an RBONuma handle counter it increments records that index; a thread
 * moved from a PU of one node to a PU of another gets the new node within
 * SC_NODE_REFRESH_CALLS calls. On a one-node machine every id is 0; on a
 * multi-node machine (tests/numa-vm-check.sh runs it on 4 emulated nodes)
 * each node is checked. Skipped without hwloc or where binding is refused.
 */
#include "config.h"

#include <scounters/scounters.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

#ifdef HAVE_HWLOC
#include <hwloc.h>

static hwloc_topology_t topo;

typedef struct probe {
	unsigned pu;          /* OS index of the PU to run on */
	unsigned to_pu;       /* then move there (== pu: stay) */
	bool bound, moved_bound;
	unsigned cpu, node;   /* sc_node_kernel on the PU */
	unsigned g_cpu, g_node; /* getcpu on the PU */
	uint32_t self_node;   /* sc_thread_self()->node on the PU */
	char describe[128];   /* an RBONuma handle counter after one increment */
	unsigned calls_to_see; /* after the move: calls until sc_thread_self had the new node */
	uint32_t moved_node;  /* sc_thread_self()->node after the move */
	unsigned moved_kernel_node;
} probe;

static bool bind_to(unsigned pu)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	hwloc_bitmap_only(set, pu);
	bool ok = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0;
	hwloc_bitmap_free(set);
	/* The binding is effective once the kernel has moved us: yield until it has. */
	for (int i = 0; ok && i < 1000 && sched_getcpu() != (int)pu; i++)
		sched_yield();
	return ok && sched_getcpu() == (int)pu;
}

static void *probe_main(void *arg)
{
	probe *p = arg;
	if (!(p->bound = bind_to(p->pu)))
		return NULL;
	sc_node_kernel(&p->cpu, &p->node);
	getcpu(&p->g_cpu, &p->g_node);
	p->self_node = sc_thread_self()->node;
	sc_err err;
	sc_counter *c = sc_counter_new("RBONuma", "", &err);
	if (c) {
		sc_counter_inc(c);
		sc_counter_describe(c, p->describe, sizeof p->describe);
		sc_counter_free(c);
	}
	if (p->to_pu == p->pu || !(p->moved_bound = bind_to(p->to_pu)))
		return NULL;
	sc_node_kernel(NULL, &p->moved_kernel_node);
	uint32_t want = sc_node_index(p->moved_kernel_node);
	p->calls_to_see = 0;
	while (sc_thread_self()->node != want && p->calls_to_see < 4 * SC_NODE_REFRESH_CALLS)
		p->calls_to_see++;
	p->moved_node = sc_thread_self()->node;
	return NULL;
}

static void run_probe(probe *p)
{
	pthread_t t;
	if (pthread_create(&t, NULL, probe_main, p) == 0)
		pthread_join(t, NULL);
}

int main(void)
{
	tap_plan_lazy();
	unsetenv("HWLOC_SYNTHETIC");
	unsetenv("HWLOC_XMLFILE");
	if (hwloc_topology_init(&topo) < 0 || hwloc_topology_load(topo) < 0)
		tap_skip_all("hwloc cannot load this machine's topology");
	const struct hwloc_topology_support *sup = hwloc_topology_get_support(topo);
	if (!sup->cpubind->set_thisthread_cpubind)
		tap_skip_all("this machine does not let a thread be bound");
	int nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE), with_pus = 0;
	for (int n = 0; n < nnodes; n++)
		with_pus += !hwloc_bitmap_iszero(
			hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)n)->cpuset);
	tap_diag("%d NUMA nodes, %d with PUs; node ids from %s; %u counted", nnodes, with_pus,
	         sc_node_source(), sc_node_count());
	tap_ok(strcmp(sc_node_source(), "none") != 0, "the kernel tells the node (%s)",
	       sc_node_source());
	tap_ok(sc_node_count() == (unsigned)(with_pus > 0 ? with_pus : 1),
	       "nodes with CPUs %u = hwloc's NUMA nodes with PUs %d", sc_node_count(), with_pus);
	unsigned prev_pu = UINT32_MAX;
	for (int n = 0; n < nnodes; n++) {
		hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)n);
		if (hwloc_bitmap_iszero(node->cpuset))
			continue; /* a node without PUs (memory only) */
		unsigned pus[2] = {(unsigned)hwloc_bitmap_first(node->cpuset),
		                   (unsigned)hwloc_bitmap_last(node->cpuset)};
		for (int k = 0; k < 2; k++) {
			/* Start on this PU, move to the previous node's (or the first PU). */
			probe p = {.pu = pus[k], .to_pu = prev_pu == UINT32_MAX ? pus[0] : prev_pu};
			run_probe(&p);
			if (!tap_ok(p.bound, "node %u: bound to PU %u", node->os_index, p.pu))
				continue;
			uint32_t want = sc_node_index(node->os_index);
			tap_ok(p.cpu == p.pu && p.node == node->os_index,
			       "PU %u: sc_node_kernel says cpu %u node %u (expected node %u)", p.pu,
			       p.cpu, p.node, node->os_index);
			tap_ok(p.g_cpu == p.cpu && p.g_node == p.node,
			       "PU %u: getcpu agrees (cpu %u node %u)", p.pu, p.g_cpu, p.g_node);
			tap_ok(p.self_node == want, "PU %u: sc_thread_self()->node %u = index %u of node %u",
			       p.pu, p.self_node, want, node->os_index);
			char expect[32];
			snprintf(expect, sizeof expect, "node=%u;", want);
			tap_ok(strncmp(p.describe, expect, strlen(expect)) == 0,
			       "PU %u: RBONuma handle counter records node %u (%s)", p.pu, want,
			       p.describe);
			if (p.to_pu != p.pu) {
				tap_ok(p.moved_bound && p.moved_node == sc_node_index(p.moved_kernel_node) &&
				           p.calls_to_see <= SC_NODE_REFRESH_CALLS,
				       "moved PU %u -> %u: node index %u after %u calls (at most %u)", p.pu,
				       p.to_pu, p.moved_node, p.calls_to_see, SC_NODE_REFRESH_CALLS);
			}
			prev_pu = pus[k];
		}
	}
	hwloc_topology_destroy(topo);
	return tap_done();
}
#else
int main(void)
{
	tap_plan_lazy();
	tap_skip_all("built without hwloc: the machine's nodes are unknown here");
	return 0;
}
#endif
