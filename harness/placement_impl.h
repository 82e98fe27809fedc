/* SPDX-License-Identifier: MIT */
/*
 * placement_impl.h - what placement.c shares with the machine reader the
 * build chose (placement_hwloc.c with hwloc, placement_affinity.c without).
 * Not for other units.
 */
#ifndef SC_PLACEMENT_IMPL_H
#define SC_PLACEMENT_IMPL_H

#include "placement.h"

struct hwloc_topology; /* hwloc's, opaque here */

struct topo {
	struct hwloc_topology *hw; /* placement_hwloc.c only; NULL without hwloc */
	uint32_t pus, cores, nodes;
	bool can_bind;
	uint32_t packages;       /* 0: the topology does not say */
	char cpu_model[128];     /* "" when unknown */
	char cpu_vendor[64];
	placement_slot *compact; /* pus entries, PU logical order */
	placement_slot *spread;  /* pus entries, placement_spread_order */
	char desc[160];
};

/* One PU as the order builders see it; an array of them is in PU logical order. */
typedef struct pu_desc {
	int32_t os;      /* OS index */
	uint32_t node;   /* logical index of its NUMA node */
	int32_t node_os; /* the kernel's id of that node, -1 if unknown */
	uint32_t core;   /* dense core id, numbered in order of each core's first PU */
} pu_desc;

/* Fill t->compact and t->spread from the PU descriptions (PU logical order). */
int topo_build_orders(topo *t, const pu_desc *pu, sc_err *err);
/* t->desc: "4 nodes (1 without PUs), 32 cores, 256 PUs (source)". */
void topo_set_describe(topo *t, uint32_t nodes_without_pus, const char *source);

/* The implementation's: read the machine into t (orders and description included). */
int topo_load_impl(topo *t, sc_err *err);
/* Bind the calling thread to slot's PU (placement_bind_self has checked the slot). */
int topo_bind_impl(const topo *t, const placement_slot *slot, sc_err *err);
/* Free what topo_load_impl kept beyond the common fields. */
void topo_release_impl(topo *t);

/* The most groupings topo_groupings_impl reports (cores, 5 cache levels, groups, dies, nodes, packages). */
#define TOPO_GROUPINGS 10
/*
 * The machine's groupings of its PUs, for PerCPUTree's shape (tree_shape.c):
 * os[p] = PU p's OS index and gid[g * pus + p] = PU p's group in grouping g
 * (PU logical order; UINT32_MAX: outside any). The number of groupings
 * (at most TOPO_GROUPINGS), 0 when the build reads no topology, -1 with err.
 */
int topo_groupings_impl(const topo *t, int32_t *os, uint32_t *gid, sc_err *err);

#endif /* SC_PLACEMENT_IMPL_H */
