/* SPDX-License-Identifier: MIT */
/*
 * placement.h - the machine's topology and where each worker thread runs
 * (doc/design.md §5.3).
 *
 * The topology is loaded once; the spread and compact orders are computed
 * then, so the slot of thread i is a table look-up and a pure function of i:
 * it never depends on how many threads a run uses, so thread i sits on the
 * same PU at 4 threads as at 256, and points of a scaling curve differ only
 * by the threads added. With more threads than PUs the order wraps (i mod PUs).
 *
 * With hwloc, HWLOC_SYNTHETIC and HWLOC_XMLFILE in the environment replace the
 * machine by a described one; the orders are then checkable but binding is a
 * no-op (topo_can_bind() is false). Built without hwloc, the machine is the
 * CPUs this process may run on, one node, each CPU its own core.
 *
 * A topo is read-only after topo_load: worker threads may call every function
 * here concurrently (hwloc allows concurrent read-only use of a topology).
 */
#ifndef SC_PLACEMENT_H
#define SC_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include <scounters/sc_common.h> /* sc_err */

/* --placement (doc/design.md §5.3): where worker i runs. */
typedef enum placement_kind { PLACE_SPREAD = 0, PLACE_COMPACT, PLACE_NONE } placement_kind;

/* "spread", "compact", "none": the CSV's and meta.json's name of p. */
const char *placement_name(placement_kind p);

typedef struct topo topo; /* opaque */

/* Load the machine's (or the environment's) topology. -1 with err on failure. */
int topo_load(topo **out, sc_err *err);
void topo_destroy(topo *t);

uint32_t topo_pus(const topo *t);   /* processing units usable, >= 1 */
uint32_t topo_cores(const topo *t); /* cores; a PU outside any core counts as one */
uint32_t topo_nodes(const topo *t); /* NUMA nodes, >= 1, including nodes without PUs */
/* False for synthetic or XML topologies, or without binding support: binding is a no-op. */
bool topo_can_bind(const topo *t);
/* One line for metadata, e.g. "4 nodes, 32 cores, 256 PUs (synthetic)". */
const char *topo_describe(const topo *t);
/* Processor packages (sockets); 0 when the topology does not say (built without hwloc). */
uint32_t topo_packages(const topo *t);
/* hwloc's CPUModel / CPUVendor attributes of the first package; "" when unknown. */
const char *topo_cpu_model(const topo *t);
const char *topo_cpu_vendor(const topo *t);

typedef struct placement_slot {
	int32_t pu_logical; /* hwloc logical index of the PU, -1 for PLACE_NONE */
	int32_t pu_os;      /* OS index of that PU (what sched_getcpu reports), -1 for PLACE_NONE */
	uint32_t node;      /* logical index of the NUMA node holding the PU (0 for PLACE_NONE) */
	int32_t node_os;    /* the kernel's id of that node (what getcpu reports); -1 unknown */
} placement_slot;

/*
 * Slot of thread i, a fixed function of i (i mod PUs when i >= PUs).
 *
 * spread: Dice's Solaris-like order. Thread i goes to node i mod N (N the
 * nodes that hold PUs, in logical order), then across the cores of that node,
 * and onto a core's second (third, ...) hardware thread only once every core
 * of the machine has one thread. Where nodes hold unequal numbers of cores, a
 * node whose cores are used up is skipped in the rotation.
 * compact: PUs in hwloc logical order.
 * none: no PU (-1), node 0.
 */
placement_slot placement_slot_of(const topo *t, placement_kind kind, uint32_t i);

/*
 * Called from inside the thread: bind the calling thread to its slot's PU
 * (hwloc_set_cpubind(..., HWLOC_CPUBIND_THREAD), or sched_setaffinity without
 * hwloc). 0 without doing anything for PLACE_NONE slots (pu_logical < 0) or
 * when !topo_can_bind(t); -1 with err set if binding fails.
 */
int placement_bind_self(const topo *t, const placement_slot *slot, sc_err *err);

#endif /* SC_PLACEMENT_H */
