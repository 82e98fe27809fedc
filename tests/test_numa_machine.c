/* SPDX-License-Identifier: MIT */
/*
 * test_numa_machine.c - the NUMA nodes of the real machine, as hwloc, the
 * kernel and the harness see them. On a one-node box it checks that all three
 * agree on node 0; tests/numa-vm-check.sh runs it in an emulated multi-node
 * machine with SC_TEST_EXPECT_NODES set to the number of nodes it built.
 *
 *   - hwloc's NUMA node count is SC_TEST_EXPECT_NODES (when set);
 *   - a thread pinned on each PU gets, from the kernel (getcpu), that PU's
 *     OS index and the OS index of the hwloc node holding it, so every node
 *     with PUs is seen by the kernel under hwloc's number;
 *   - spread slots 0..N-1 of the harness plan land on N different nodes, and
 *     a thread bound there (placement_bind_self) is on the planned node by
 *     the kernel's word;
 *   - each node-aware variant made through the handle API (sc_counter_new),
 *     incremented by one thread pinned on each node, counts exactly, and each
 *     of those threads was on its node while it counted; Multiline's describe
 *     ("nodes=N;nonzero=K") then shows one non-zero line per node: the
 *     handle API took each thread's node from where it ran. Where the handle
 *     API is configured for one node on a multi-node machine (it then gives
 *     every thread node 0), that check is reported skipped with the reason.
 * The real topology only: HWLOC_SYNTHETIC and HWLOC_XMLFILE are unset.
 */
/* getcpu needs _GNU_SOURCE, which the build defines */
#include "config.h"

#include "placement.h"
#include "tap.h"

#ifndef HAVE_HWLOC

int main(void)
{
	tap_skip_all("built without hwloc: the machine's nodes need it");
}

#else

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <scounters/sc_counter.h>

enum { INCS = 20000 };

typedef struct pinned {
	hwloc_topology_t hw;
	hwloc_const_cpuset_t where; /* bind here (one PU) */
	sc_counter *counter;        /* increment INCS times when set */
	int bind_rc;
	unsigned cpu_before, node_before, cpu_after, node_after;
	int getcpu_rc;
} pinned;

static void *pinned_thread(void *p)
{
	pinned *c = p;
	c->bind_rc = hwloc_set_cpubind(c->hw, c->where, HWLOC_CPUBIND_THREAD | HWLOC_CPUBIND_STRICT);
	c->getcpu_rc = getcpu(&c->cpu_before, &c->node_before);
	if (c->counter)
		for (int i = 0; i < INCS; i++)
			sc_counter_inc(c->counter);
	c->getcpu_rc |= getcpu(&c->cpu_after, &c->node_after);
	return NULL;
}

/* Run one pinned thread on SET to completion. */
static void run_pinned(pinned *c)
{
	pthread_t tid;
	if (pthread_create(&tid, NULL, pinned_thread, c) != 0)
		abort();
	pthread_join(tid, NULL);
}

/* The NUMA node holding PU os index CPU (NULL if none does). */
static hwloc_obj_t node_of_pu(hwloc_topology_t hw, unsigned cpu)
{
	hwloc_obj_t n = NULL;
	while ((n = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, n)) != NULL)
		if (hwloc_bitmap_isset(n->cpuset, cpu))
			return n;
	return NULL;
}

/* Every PU: the kernel's (cpu, node) once bound there is (PU, its hwloc node). */
static void test_every_pu(hwloc_topology_t hw)
{
	int npus = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_PU);
	hwloc_bitmap_t seen = hwloc_bitmap_alloc();
	bool all = true;
	for (int i = 0; i < npus; i++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(hw, HWLOC_OBJ_PU, (unsigned)i);
		hwloc_obj_t want = node_of_pu(hw, pu->os_index);
		pinned c = {hw, pu->cpuset, NULL, -1, 0, 0, 0, 0, -1};
		run_pinned(&c);
		bool ok = c.bind_rc == 0 && c.getcpu_rc == 0 && want != NULL &&
		          c.cpu_before == pu->os_index && c.node_before == want->os_index;
		if (!ok)
			tap_diag("PU P#%u: bind %d, getcpu %d: cpu %u node %u, hwloc node %d", pu->os_index,
			         c.bind_rc, c.getcpu_rc, c.cpu_before, c.node_before,
			         want ? (int)want->os_index : -1);
		all &= ok;
		if (ok)
			hwloc_bitmap_set(seen, c.node_before);
	}
	tap_ok(all, "each of %d PUs: a thread pinned there runs there, on its hwloc node by getcpu",
	       npus);
	int with_pus = 0;
	hwloc_obj_t n = NULL;
	while ((n = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, n)) != NULL)
		with_pus += !hwloc_bitmap_iszero(n->cpuset);
	tap_ok(hwloc_bitmap_weight(seen) == with_pus,
	       "the kernel reported %d distinct nodes, hwloc has %d nodes with PUs",
	       hwloc_bitmap_weight(seen), with_pus);
	hwloc_bitmap_free(seen);
}

typedef struct slot_check {
	const topo *t;
	placement_slot slot;
	int rc;
	unsigned cpu, node;
} slot_check;

static void *slot_thread(void *p)
{
	slot_check *c = p;
	sc_err err = {{0}};
	c->rc = placement_bind_self(c->t, &c->slot, &err);
	if (c->rc == 0)
		c->rc = getcpu(&c->cpu, &c->node);
	else
		tap_diag("placement_bind_self: %s", err.msg);
	return NULL;
}

/* The harness's spread plan: slots 0..N-1 on N nodes, each the kernel's. */
static void test_spread_plan(hwloc_topology_t hw)
{
	topo *t = NULL;
	sc_err err = {{0}};
	int rc = topo_load(&t, &err);
	if (!tap_ok(rc == 0, "harness topo_load%s%s", rc ? ": " : "", rc ? err.msg : ""))
		return;
	uint32_t n = topo_nodes(t);
	bool distinct = true, on_plan = true;
	hwloc_bitmap_t used = hwloc_bitmap_alloc();
	for (uint32_t i = 0; i < n; i++) {
		slot_check c = {t, placement_slot_of(t, PLACE_SPREAD, i), -1, 0, 0};
		hwloc_obj_t want = hwloc_get_obj_by_type(hw, HWLOC_OBJ_NUMANODE, c.slot.node);
		if (want == NULL || hwloc_bitmap_iszero(want->cpuset))
			continue; /* a node without PUs is never planned */
		distinct &= !hwloc_bitmap_isset(used, c.slot.node);
		hwloc_bitmap_set(used, c.slot.node);
		pthread_t tid;
		if (pthread_create(&tid, NULL, slot_thread, &c) != 0)
			abort();
		pthread_join(tid, NULL);
		bool ok = c.rc == 0 && (int)c.cpu == c.slot.pu_os && c.node == want->os_index;
		if (!ok)
			tap_diag("spread slot %u: planned P#%d node L#%u (P#%u), kernel says cpu %u node %u",
			         i, c.slot.pu_os, c.slot.node, want->os_index, c.cpu, c.node);
		on_plan &= ok;
	}
	tap_ok(distinct, "spread slots 0..%u plan %u different nodes", n - 1, n);
	tap_ok(on_plan, "a thread bound to each of those slots is on the planned node (getcpu)");
	hwloc_bitmap_free(used);
	topo_destroy(t);
}

/* Multiline through the handle API after one pinned thread per node counted:
 * one non-zero line per node, when it has a line per node. */
static void check_lines(const sc_counter *ctr, int nn)
{
	char d[128];
	unsigned cfg_nodes = 0, nonzero = 0;
	sc_counter_describe(ctr, d, sizeof d);
	if (!tap_ok(sscanf(d, "nodes=%u;nonzero=%u", &cfg_nodes, &nonzero) == 2,
	            "Multiline describe through the handle API: \"%s\"", d))
		return;
	if (cfg_nodes == 1 && nn > 1) {
		tap_ok(true, "Multiline: a line per node # SKIP the handle API is configured for 1 node "
		             "of %d (every thread counts on node 0)", nn);
		return;
	}
	tap_ok(nonzero == (unsigned)nn,
	       "Multiline through the handle API (nodes=%u): %u lines counted, one per node of %d",
	       cfg_nodes, nonzero, nn);
}

/* The node-aware variants through the handle API, one pinned thread per node. */
static void test_handle_api(hwloc_topology_t hw)
{
	static const char *const variants[] = {"RBONuma", "RBONumaAdapt", "Multiline",
	                                       "MultilineAdapt"};
	int nn = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);
	pinned *c = calloc((size_t)nn, sizeof *c);
	pthread_t *tid = calloc((size_t)nn, sizeof *tid);
	hwloc_bitmap_t *one = calloc((size_t)nn, sizeof *one);
	if (!c || !tid || !one)
		abort();
	for (int k = 0; k < nn; k++) {
		hwloc_obj_t n = hwloc_get_obj_by_type(hw, HWLOC_OBJ_NUMANODE, (unsigned)k);
		one[k] = hwloc_bitmap_dup(n->cpuset);
		hwloc_bitmap_singlify(one[k]); /* one PU of the node (empty if it has none) */
	}
	for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
		sc_err err = {{0}};
		sc_counter *ctr = sc_counter_new(variants[v], "", &err);
		if (!tap_ok(ctr != NULL, "%s: sc_counter_new%s%s", variants[v], ctr ? "" : ": ",
		            ctr ? "" : err.msg))
			continue;
		uint64_t want = 0;
		bool placed = true;
		for (int k = 0; k < nn; k++) {
			c[k] = (pinned){hw, one[k], ctr, -1, 0, 0, 0, 0, -1};
			if (hwloc_bitmap_iszero(one[k]))
				continue;
			want += INCS;
			if (pthread_create(&tid[k], NULL, pinned_thread, &c[k]) != 0)
				abort();
		}
		for (int k = 0; k < nn; k++) {
			if (hwloc_bitmap_iszero(one[k]))
				continue;
			pthread_join(tid[k], NULL);
			hwloc_obj_t n = hwloc_get_obj_by_type(hw, HWLOC_OBJ_NUMANODE, (unsigned)k);
			placed &= c[k].bind_rc == 0 && c[k].getcpu_rc == 0 &&
			          c[k].node_before == n->os_index && c[k].node_after == n->os_index;
		}
		uint64_t got = sc_counter_get(ctr);
		if (strcmp(variants[v], "Multiline") == 0)
			check_lines(ctr, nn);
		tap_ok(placed, "%s: one thread pinned on each of %d nodes stayed there (getcpu)",
		       variants[v], nn);
		tap_ok(got == want, "%s through the handle API: %llu increments from all nodes, got %llu",
		       variants[v], (unsigned long long)want, (unsigned long long)got);
		sc_counter_free(ctr);
	}
	for (int k = 0; k < nn; k++)
		hwloc_bitmap_free(one[k]);
	free(one);
	free(tid);
	free(c);
}

int main(void)
{
	hwloc_topology_t hw;
	tap_plan_lazy();
	unsetenv("HWLOC_SYNTHETIC");
	unsetenv("HWLOC_XMLFILE");
	if (hwloc_topology_init(&hw) != 0 || hwloc_topology_load(hw) != 0) {
		tap_ok(false, "hwloc loads the machine's topology");
		return tap_done();
	}
	int nn = hwloc_get_nbobjs_by_type(hw, HWLOC_OBJ_NUMANODE);
	const char *expect = getenv("SC_TEST_EXPECT_NODES");
	if (expect && *expect)
		tap_ok(nn == atoi(expect), "hwloc sees %d NUMA nodes, SC_TEST_EXPECT_NODES=%s", nn,
		       expect);
	else
		tap_diag("%d NUMA nodes (set SC_TEST_EXPECT_NODES to check the count)", nn);
	const struct hwloc_topology_support *sup = hwloc_topology_get_support(hw);
	if (!sup->cpubind->set_thread_cpubind) {
		tap_ok(true, "binding # SKIP hwloc cannot bind threads here");
		hwloc_topology_destroy(hw);
		return tap_done();
	}
	test_every_pu(hw);
	test_spread_plan(hw);
	test_handle_api(hw);
	hwloc_topology_destroy(hw);
	return tap_done();
}

#endif /* HAVE_HWLOC */
