/* SPDX-License-Identifier: MIT */
/*
 * tree_shape.h - PerCPUTree's shape from the machine's topology: the CPUs
 * in topology order and one fan-out per distinct grouping of them (cores,
 * shared caches, NUMA nodes, packages), as sc_percpu_tree_config_shape
 * takes them (doc/design.md §3.1).
 */
#ifndef SC_TREE_SHAPE_H
#define SC_TREE_SHAPE_H

#include <stdint.h>

#include <scounters/scounters.h>

#include "placement.h"
#include "plan.h"

typedef struct tree_shape {
	uint32_t cpus;    /* CPU words: the largest OS index of a PU + 1 */
	uint32_t *order;  /* order[OS index] = leaf position (malloc'd; tree_shape_free) */
	uint32_t nlevels; /* fan-outs, from the CPUs up; the root takes what remains */
	uint32_t fanout[SC_TREE_MAX_LEVELS];
} tree_shape;

/*
 * The shape from up to k groupings of pus PUs (PU logical order): os[p] is
 * PU p's OS index, gid[g * pus + p] its group in grouping g (UINT32_MAX:
 * none, which drops the grouping). A grouping is a level when its groups
 * are aligned blocks of one size s in logical order (what the tree's c /
 * fan-out indexing needs), s is a multiple of the level below's and
 * smaller than pus; equal sizes are one level. 0, or -1 with err set (out
 * of memory, an OS index above SC_TREE_MAX_CPUS or given twice).
 */
int tree_shape_from_groups(tree_shape *s, uint32_t pus, const int32_t *os, const uint32_t *gid,
                           uint32_t k, sc_err *err);

/* The machine's shape: 1 with *s set, 0 when the build reads no topology (no hwloc), -1 with err. */
int tree_shape_of(const topo *t, tree_shape *s, sc_err *err);

/* "2x8x2" (the fan-outs from the CPUs up; "-" for none) into buf. */
void tree_shape_format(const tree_shape *s, char *buf, size_t size);

void tree_shape_free(tree_shape *s);

/*
 * The machine's shape for the variants of plan p laid out by it (a
 * config_shape hook: PerCPUTree given no arity, sc_table_create_shaped):
 * 1 with it read from tp into ts (free it with tree_shape_free) and viewed
 * as cs; 0 when no planned variant takes one or the build reads no
 * topology (no hwloc); -1 with err set when it cannot be read.
 */
int tree_shape_planned(const run_plan *p, const topo *tp, tree_shape *ts, sc_cpu_shape *cs,
                       sc_err *err);

#endif /* SC_TREE_SHAPE_H */
