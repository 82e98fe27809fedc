/* SPDX-License-Identifier: MIT */
/* placement.c - topology loading and the spread/compact thread orders (doc/design.md §5.3). */
#include "config.h"

#include "placement.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_HWLOC
#include <hwloc.h>
#else
#include <sched.h>
#include <unistd.h>
#endif

struct topo {
#ifdef HAVE_HWLOC
	hwloc_topology_t hw;
#endif
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
	int32_t os;    /* OS index */
	uint32_t node; /* logical index of its NUMA node */
	int32_t node_os; /* the kernel's id of that node, -1 if unknown */
	uint32_t core; /* dense core id, numbered in order of each core's first PU */
} pu_desc;

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

/* Fill t->compact and t->spread from the PU descriptions (PU logical order). */
static int topo_build_orders(topo *t, const pu_desc *pu, sc_err *err)
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

static void topo_set_describe(topo *t, uint32_t nodes_without_pus, const char *source)
{
	char empty[48] = "";
	if (nodes_without_pus)
		snprintf(empty, sizeof empty, " (%u without PUs)", nodes_without_pus);
	snprintf(t->desc, sizeof t->desc, "%u node%s%s, %u core%s, %u PU%s (%s)", t->nodes,
	         PLURAL(t->nodes), empty, t->cores, PLURAL(t->cores), t->pus, PLURAL(t->pus),
	         source);
}

#ifdef HAVE_HWLOC

/*
 * Node of a PU: the NUMA node with the smallest cpuset that contains it. In
 * hwloc 2 a node's cpuset is that of the object it is attached to, so a
 * CPU-less node (attached higher up, e.g. to the machine) loses to the local
 * one; nodes with equal cpusets (DRAM and HBM of one cluster) go to the lower
 * logical index.
 */
static uint32_t hw_node_of_pu(hwloc_topology_t hw, hwloc_obj_t pu, uint32_t nnodes)
{
	uint32_t best = 0;
	int best_weight = -1;
	for (uint32_t n = 0; n < nnodes; n++) {
		hwloc_obj_t node = hwloc_get_obj_by_type(hw, HWLOC_OBJ_NUMANODE, n);
		int w;
		if (!node || !node->cpuset || !hwloc_bitmap_isset(node->cpuset, pu->os_index))
			continue;
		w = hwloc_bitmap_weight(node->cpuset);
		if (best_weight < 0 || w < best_weight) {
			best = n;
			best_weight = w;
		}
	}
	return best;
}

/* Root's Backend info ("Linux", "Synthetic", ...); an XML file keeps its machine's. */
static const char *hw_backend(const topo *t)
{
	const char *b = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t->hw), "Backend");
	return b ? b : "";
}

static void hw_source(const topo *t, char *buf, size_t size)
{
	if (hwloc_topology_is_thissystem(t->hw))
		snprintf(buf, size, "hwloc%s", t->can_bind ? "" : ", cannot bind");
	else if (strcmp(hw_backend(t), "Synthetic") == 0)
		snprintf(buf, size, "synthetic");
	else
		snprintf(buf, size, "%s, not this machine", getenv("HWLOC_XMLFILE") ? "XML" : "hwloc");
}

/* Package count and the CPUModel/CPUVendor info attributes of the first package. */
static void hw_cpu_identity(topo *t)
{
	int np = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PACKAGE);
	hwloc_obj_t pkg = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_PACKAGE, 0);
	hwloc_obj_t where[2] = {pkg, hwloc_get_root_obj(t->hw)};
	t->packages = np > 0 ? (uint32_t)np : 0;
	for (int i = 0; i < 2; i++) {
		const char *m = where[i] ? hwloc_obj_get_info_by_name(where[i], "CPUModel") : NULL;
		const char *v = where[i] ? hwloc_obj_get_info_by_name(where[i], "CPUVendor") : NULL;
		if (m && !t->cpu_model[0])
			snprintf(t->cpu_model, sizeof t->cpu_model, "%s", m);
		if (v && !t->cpu_vendor[0])
			snprintf(t->cpu_vendor, sizeof t->cpu_vendor, "%s", v);
	}
}

static int topo_load_impl(topo *t, sc_err *err)
{
	const struct hwloc_topology_support *sup;
	const char *syn;
	int npu, nnode, ncoreobj;
	uint32_t *core_id = NULL, *node_pus = NULL, empty_nodes = 0;
	pu_desc *pu = NULL;
	char source[64];
	int rc = -1;

	/* hwloc's ABI changes with the major version (its documented check). */
	if ((hwloc_get_api_version() >> 16) != (HWLOC_API_VERSION >> 16)) {
		sc_err_set(err, "placement: built for hwloc API %#x but running with %#x",
		           (unsigned)HWLOC_API_VERSION, hwloc_get_api_version());
		return -1;
	}
	if (hwloc_topology_init(&t->hw) < 0) {
		t->hw = NULL;
		sc_err_set(err, "placement: hwloc_topology_init: %s", strerror(errno));
		return -1;
	}
	if (hwloc_topology_load(t->hw) < 0) {
		const char *xml = getenv("HWLOC_XMLFILE");
		syn = getenv("HWLOC_SYNTHETIC");
		sc_err_set(err, "placement: hwloc cannot load the topology%s%s: %s",
		           syn ? " HWLOC_SYNTHETIC=" : xml ? " HWLOC_XMLFILE=" : "",
		           syn ? syn : xml ? xml : "", strerror(errno));
		return -1;
	}
	/* hwloc falls back to the real machine, silently, on a malformed description. */
	syn = getenv("HWLOC_SYNTHETIC");
	if (syn && *syn && strcmp(hw_backend(t), "Synthetic") != 0) {
		sc_err_set(err, "placement: hwloc rejected HWLOC_SYNTHETIC=\"%s\"", syn);
		return -1;
	}
	npu = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PU);
	nnode = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_NUMANODE);
	ncoreobj = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_CORE);
	if (npu <= 0) {
		sc_err_set(err, "placement: the topology has no usable PU");
		return -1;
	}
	t->pus = (uint32_t)npu;
	t->nodes = nnode > 0 ? (uint32_t)nnode : 1;
	sup = hwloc_topology_get_support(t->hw);
	t->can_bind = hwloc_topology_is_thissystem(t->hw) && sup && sup->cpubind &&
	              sup->cpubind->set_thisthread_cpubind;

	pu = calloc(t->pus, sizeof *pu);
	core_id = malloc((ncoreobj > 0 ? (size_t)ncoreobj : 1) * sizeof *core_id);
	node_pus = calloc(t->nodes, sizeof *node_pus);
	if (!pu || !core_id || !node_pus) {
		sc_err_set(err, "placement: out of memory for %u PUs", t->pus);
		goto out;
	}
	for (int c = 0; c < ncoreobj; c++)
		core_id[c] = UINT32_MAX;
	t->cores = 0;
	for (uint32_t p = 0; p < t->pus; p++) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_PU, p);
		hwloc_obj_t core;
		if (!obj) {
			sc_err_set(err, "placement: hwloc lists %u PUs but has no PU L#%u", t->pus, p);
			goto out;
		}
		core = hwloc_get_ancestor_obj_by_type(t->hw, HWLOC_OBJ_CORE, obj);
		pu[p].os = (int32_t)obj->os_index;
		pu[p].node = nnode > 0 ? hw_node_of_pu(t->hw, obj, t->nodes) : 0;
		hwloc_obj_t nobj = nnode > 0 ? hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_NUMANODE,
		                                                     pu[p].node) : NULL;
		pu[p].node_os = nobj ? (int32_t)nobj->os_index : -1;
		node_pus[pu[p].node]++;
		if (!core) {
			pu[p].core = t->cores++; /* a PU outside any core is its own core */
		} else {
			if (core_id[core->logical_index] == UINT32_MAX)
				core_id[core->logical_index] = t->cores++;
			pu[p].core = core_id[core->logical_index];
		}
	}
	for (uint32_t n = 0; n < t->nodes; n++)
		empty_nodes += node_pus[n] == 0;
	if (topo_build_orders(t, pu, err) < 0)
		goto out;
	hw_source(t, source, sizeof source);
	topo_set_describe(t, empty_nodes, source);
	hw_cpu_identity(t);
	rc = 0;
out:
	free(pu);
	free(core_id);
	free(node_pus);
	return rc;
}

static int bind_impl(const topo *t, const placement_slot *slot, sc_err *err)
{
	hwloc_obj_t pu = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_PU, (unsigned)slot->pu_logical);
	if (!pu) {
		sc_err_set(err, "placement: no PU with logical index %d", slot->pu_logical);
		return -1;
	}
	if (hwloc_set_cpubind(t->hw, pu->cpuset, HWLOC_CPUBIND_THREAD) < 0) {
		sc_err_set(err, "placement: cannot bind thread to PU L#%d (P#%d): %s",
		           slot->pu_logical, slot->pu_os, strerror(errno));
		return -1;
	}
	return 0;
}

#else /* !HAVE_HWLOC */

#if defined(__linux__) && defined(CPU_ALLOC)
#define PLACEMENT_AFFINITY 1
#endif

/*
 * Without hwloc: one node, each CPU its own core. The PUs are the CPUs this
 * process may run on at load time (so binding never targets a CPU that a
 * cgroup or taskset forbids); if that mask is unavailable, CPUs
 * 0 .. online-1.
 */
static int topo_load_impl(topo *t, sc_err *err)
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

static int bind_impl(const topo *t, const placement_slot *slot, sc_err *err)
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

#endif /* HAVE_HWLOC */

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
#ifdef HAVE_HWLOC
	if (t->hw)
		hwloc_topology_destroy(t->hw);
#endif
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
	return bind_impl(t, slot, err);
}
