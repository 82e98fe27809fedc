/* SPDX-License-Identifier: MIT */
/*
 * placement_hwloc.c - the machine as hwloc sees it, and binding through
 * hwloc (placement.h); built when configure found hwloc.
 */
#include "placement_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

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

/* Load hwloc's topology into t->hw, refusing what hwloc would silently replace. */
static int hw_open(topo *t, sc_err *err)
{
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
	const char *syn = getenv("HWLOC_SYNTHETIC");
	if (hwloc_topology_load(t->hw) < 0) {
		const char *xml = getenv("HWLOC_XMLFILE");
		sc_err_set(err, "placement: hwloc cannot load the topology%s%s: %s",
		           syn ? " HWLOC_SYNTHETIC=" : xml ? " HWLOC_XMLFILE=" : "",
		           syn ? syn : xml ? xml : "", strerror(errno));
		return -1;
	}
	/* hwloc falls back to the real machine, silently, on a malformed description. */
	if (syn && *syn && strcmp(hw_backend(t), "Synthetic") != 0) {
		sc_err_set(err, "placement: hwloc rejected HWLOC_SYNTHETIC=\"%s\"", syn);
		return -1;
	}
	return 0;
}

/*
 * Describe every PU (t->pus of them, t->nodes set; nnode: hwloc's NUMA node
 * count, 0 if none) and count the cores into t->cores; node_pus[n] counts the
 * PUs of node n.
 */
static int hw_read_pus(topo *t, pu_desc *pu, int nnode, uint32_t *node_pus, sc_err *err)
{
	int ncoreobj = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_CORE);
	uint32_t *core_id = malloc((ncoreobj > 0 ? (size_t)ncoreobj : 1) * sizeof *core_id);
	if (!core_id) {
		sc_err_set(err, "placement: out of memory for %u PUs", t->pus);
		return -1;
	}
	for (int c = 0; c < ncoreobj; c++)
		core_id[c] = UINT32_MAX;
	t->cores = 0;
	for (uint32_t p = 0; p < t->pus; p++) {
		hwloc_obj_t obj = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_PU, p);
		if (!obj) {
			sc_err_set(err, "placement: hwloc lists %u PUs but has no PU L#%u", t->pus, p);
			free(core_id);
			return -1;
		}
		hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(t->hw, HWLOC_OBJ_CORE, obj);
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
	free(core_id);
	return 0;
}

int topo_load_impl(topo *t, sc_err *err)
{
	if (hw_open(t, err) < 0)
		return -1;
	int npu = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_PU);
	int nnode = hwloc_get_nbobjs_by_type(t->hw, HWLOC_OBJ_NUMANODE);
	if (npu <= 0) {
		sc_err_set(err, "placement: the topology has no usable PU");
		return -1;
	}
	t->pus = (uint32_t)npu;
	t->nodes = nnode > 0 ? (uint32_t)nnode : 1;
	const struct hwloc_topology_support *sup = hwloc_topology_get_support(t->hw);
	t->can_bind = hwloc_topology_is_thissystem(t->hw) && sup && sup->cpubind &&
	              sup->cpubind->set_thisthread_cpubind;

	pu_desc *pu = calloc(t->pus, sizeof *pu);
	uint32_t *node_pus = calloc(t->nodes, sizeof *node_pus), empty_nodes = 0;
	int rc = -1;
	if (!pu || !node_pus)
		sc_err_set(err, "placement: out of memory for %u PUs", t->pus);
	else if (hw_read_pus(t, pu, nnode, node_pus, err) == 0 &&
	         topo_build_orders(t, pu, err) == 0) {
		char source[64];
		for (uint32_t n = 0; n < t->nodes; n++)
			empty_nodes += node_pus[n] == 0;
		hw_source(t, source, sizeof source);
		topo_set_describe(t, empty_nodes, source);
		hw_cpu_identity(t);
		rc = 0;
	}
	free(pu);
	free(node_pus);
	return rc;
}

int topo_bind_impl(const topo *t, const placement_slot *slot, sc_err *err)
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

void topo_release_impl(topo *t)
{
	if (t->hw)
		hwloc_topology_destroy(t->hw);
	t->hw = NULL;
}

int topo_groupings_impl(const topo *t, int32_t *os, uint32_t *gid, sc_err *err)
{
	/* cores, the data and unified caches, hwloc's groups and dies, the packages */
	static const hwloc_obj_type_t types[] = {
		HWLOC_OBJ_CORE,    HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
		HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE, HWLOC_OBJ_GROUP,   HWLOC_OBJ_DIE,
		HWLOC_OBJ_PACKAGE,
	};
	uint32_t ntypes = sizeof types / sizeof types[0], pus = t->pus;
	for (uint32_t p = 0; p < pus; p++) {
		hwloc_obj_t pu = hwloc_get_obj_by_type(t->hw, HWLOC_OBJ_PU, p);
		if (!pu) {
			sc_err_set(err, "placement: hwloc lists %u PUs but has no PU L#%u", pus, p);
			return -1;
		}
		os[p] = (int32_t)pu->os_index;
		for (uint32_t g = 0; g < ntypes; g++) {
			hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(t->hw, types[g], pu);
			gid[(size_t)g * pus + p] = a ? a->logical_index : UINT32_MAX;
		}
		/* the NUMA nodes, which hwloc 2 keeps beside the tree: placement's node of the PU */
		gid[(size_t)ntypes * pus + p] = hw_node_of_pu(t->hw, pu, t->nodes);
	}
	return (int)ntypes + 1;
}
