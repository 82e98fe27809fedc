/* SPDX-License-Identifier: MIT */
/*
 * placement.c - the spread/compact thread orders and the topology's accessors
 * (doc/design.md §5.3). How the machine is read and a thread bound is the
 * build's choice: placement_hwloc.c with hwloc, placement_affinity.c without.
 */
#include "placement_impl.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct spread_key {
	uint32_t level; /* rank of the PU within its core: 0 first hardware thread, ... */
	uint32_t k;     /* rank of its core among the node's cores that have this level */
	uint32_t node;
	uint32_t pu;
} spread_key;

static int spread_key_cmp(const void *a, const void *b)
{
	const spread_key *x = a, *y = b;
	if (x->level != y->level)
		return x->level < y->level ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return 0;
}

/*
 * The spread order as PU logical indices. Sorting by (level, k, node) is a
 * round robin over the nodes (a node with no core left at this level drops
 * out) of the node's cores in order, first hardware threads of every core
 * before any second one. With equal nodes thread i is on node i mod nodes.
 * A core belongs to the node of its first PU. -1 on allocation failure.
 */
static int placement_spread_order(const pu_desc *pu, uint32_t n, uint32_t ncores,
                                  uint32_t nnodes, uint32_t *order)
{
	uint32_t *per_core = calloc(ncores, sizeof *per_core);
	uint32_t *core_node = calloc(ncores, sizeof *core_node);
	uint32_t *cursor = calloc((size_t)ncores + 1, sizeof *cursor);
	uint32_t *by_core = calloc(n, sizeof *by_core);
	spread_key *key = calloc(n, sizeof *key);
	uint32_t *seen = NULL;
	uint32_t width = 0;
	int rc = -1;

	if (!per_core || !core_node || !cursor || !by_core || !key)
		goto out;
	for (uint32_t p = 0; p < n; p++) {
		uint32_t c = pu[p].core;
		if (per_core[c] == 0)
			core_node[c] = pu[p].node;
		key[p] = (spread_key){per_core[c]++, 0, core_node[c], p};
		if (per_core[c] > width)
			width = per_core[c];
	}
	/* PUs grouped by core, cores in order (a counting sort), so that k follows core order. */
	for (uint32_t c = 0; c < ncores; c++)
		cursor[c + 1] = cursor[c] + per_core[c];
	for (uint32_t p = 0; p < n; p++)
		by_core[cursor[pu[p].core]++] = p;
	seen = calloc((size_t)nnodes * width, sizeof *seen);
	if (!seen)
		goto out;
	for (uint32_t j = 0; j < n; j++) {
		spread_key *kp = &key[by_core[j]];
		kp->k = seen[(size_t)kp->node * width + kp->level]++;
	}
	qsort(key, n, sizeof *key, spread_key_cmp);
	for (uint32_t i = 0; i < n; i++)
		order[i] = key[i].pu;
	rc = 0;
out:
	free(per_core);
	free(core_node);
	free(cursor);
	free(by_core);
	free(key);
	free(seen);
	return rc;
}

int topo_build_orders(topo *t, const pu_desc *pu, sc_err *err)
{
	uint32_t *order = calloc(t->pus, sizeof *order);
	t->compact = calloc(t->pus, sizeof *t->compact);
	t->spread = calloc(t->pus, sizeof *t->spread);
	if (!order || !t->compact || !t->spread ||
	    placement_spread_order(pu, t->pus, t->cores, t->nodes, order) < 0) {
		free(order);
		sc_err_set(err, "placement: out of memory for %u PUs", t->pus);
		return -1;
	}
	for (uint32_t i = 0; i < t->pus; i++)
		t->compact[i] = (placement_slot){(int32_t)i, pu[i].os, pu[i].node, pu[i].node_os};
	for (uint32_t i = 0; i < t->pus; i++)
		t->spread[i] = t->compact[order[i]];
	free(order);
	return 0;
}

#define PLURAL(n) ((n) == 1 ? "" : "s")

void topo_set_describe(topo *t, uint32_t nodes_without_pus, const char *source)
{
	char empty[48] = "";
	if (nodes_without_pus)
		snprintf(empty, sizeof empty, " (%u without PUs)", nodes_without_pus);
	snprintf(t->desc, sizeof t->desc, "%u node%s%s, %u core%s, %u PU%s (%s)", t->nodes,
	         PLURAL(t->nodes), empty, t->cores, PLURAL(t->cores), t->pus, PLURAL(t->pus),
	         source);
}


int topo_load(topo **out, sc_err *err)
{
	topo *t = calloc(1, sizeof *t);
	*out = NULL;
	if (!t) {
		sc_err_set(err, "placement: out of memory");
		return -1;
	}
	if (topo_load_impl(t, err) < 0) {
		topo_destroy(t);
		return -1;
	}
	*out = t;
	return 0;
}

void topo_destroy(topo *t)
{
	if (!t)
		return;
	topo_release_impl(t);
	free(t->compact);
	free(t->spread);
	free(t);
}

uint32_t topo_pus(const topo *t)
{
	return t->pus;
}

uint32_t topo_cores(const topo *t)
{
	return t->cores;
}

uint32_t topo_nodes(const topo *t)
{
	return t->nodes;
}

bool topo_can_bind(const topo *t)
{
	return t->can_bind;
}

const char *topo_describe(const topo *t)
{
	return t->desc;
}

uint32_t topo_packages(const topo *t)
{
	return t->packages;
}

const char *topo_cpu_model(const topo *t)
{
	return t->cpu_model;
}

const char *topo_cpu_vendor(const topo *t)
{
	return t->cpu_vendor;
}

const char *placement_name(placement_kind p)
{
	static const char *const names[] = {"spread", "compact", "none"};
	return names[p];
}

placement_slot placement_slot_of(const topo *t, placement_kind kind, uint32_t i)
{
	switch (kind) {
	case PLACE_SPREAD:
		return t->spread[i % t->pus];
	case PLACE_COMPACT:
		return t->compact[i % t->pus];
	case PLACE_NONE:
	default:
		return (placement_slot){-1, -1, 0, -1};
	}
}

int placement_bind_self(const topo *t, const placement_slot *slot, sc_err *err)
{
	if (slot->pu_logical < 0 || !t->can_bind)
		return 0;
	if ((uint32_t)slot->pu_logical >= t->pus || slot->pu_os < 0) {
		sc_err_set(err, "placement: PU L#%d (P#%d) is not in this topology of %u PUs",
		           slot->pu_logical, slot->pu_os, t->pus);
		return -1;
	}
	return topo_bind_impl(t, slot, err);
}
