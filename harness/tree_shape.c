/* SPDX-License-Identifier: MIT */
/*
 * tree_shape.c - PerCPUTree's shape from the machine's groupings of PUs
 * (tree_shape.h); the groupings come from placement_hwloc.c.
 */
#include "tree_shape.h"

#include "placement_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block size of grouping g when its groups are aligned equal blocks, else 0. */
static uint32_t block_of(const uint32_t *g, uint32_t pus)
{
	uint32_t s = 1;
	while (s < pus && g[s] == g[0])
		s++;
	if (g[0] == UINT32_MAX || pus % s != 0)
		return 0;
	for (uint32_t p = 1; p < pus; p++) {
		bool same = g[p] == g[p - 1];
		if (g[p] == UINT32_MAX || same != (p % s != 0))
			return 0;
	}
	return s;
}

int tree_shape_from_groups(tree_shape *s, uint32_t pus, const int32_t *os, const uint32_t *gid,
                           uint32_t k, sc_err *err)
{
	memset(s, 0, sizeof *s);
	int32_t top = -1;
	for (uint32_t p = 0; p < pus; p++) {
		if (os[p] < 0 || (uint32_t)os[p] >= SC_TREE_MAX_CPUS) {
			sc_err_set(err, "tree shape: PU L#%u has OS index %d, outside 0 .. %u", p, os[p],
			           SC_TREE_MAX_CPUS - 1);
			return -1;
		}
		if (os[p] > top)
			top = os[p];
	}
	s->cpus = (uint32_t)top + 1;
	s->order = malloc((size_t)s->cpus * sizeof *s->order);
	if (!s->order) {
		sc_err_set(err, "tree shape: out of memory for %u CPUs", s->cpus);
		return -1;
	}
	for (uint32_t c = 0; c < s->cpus; c++)
		s->order[c] = UINT32_MAX;
	for (uint32_t p = 0; p < pus; p++) {
		if (s->order[os[p]] != UINT32_MAX) {
			sc_err_set(err, "tree shape: OS index %d given to two PUs", os[p]);
			tree_shape_free(s);
			return -1;
		}
		s->order[os[p]] = p;
	}
	/* ids the topology does not list (offline, not allowed) take the leaves after its PUs */
	for (uint32_t c = 0, next = pus; c < s->cpus; c++)
		if (s->order[c] == UINT32_MAX)
			s->order[c] = next++;
	/* the levels: block sizes ascending, each a multiple of the one below */
	uint32_t below = 1;
	for (;;) {
		uint32_t best = 0;
		for (uint32_t g = 0; g < k; g++) {
			uint32_t b = block_of(gid + (size_t)g * pus, pus);
			if (b > below && b < pus && b % below == 0 && (best == 0 || b < best))
				best = b;
		}
		if (best == 0 || s->nlevels == SC_TREE_MAX_LEVELS)
			break;
		s->fanout[s->nlevels++] = best / below;
		below = best;
	}
	return 0;
}

int tree_shape_of(const topo *t, tree_shape *s, sc_err *err)
{
	memset(s, 0, sizeof *s);
	uint32_t pus = topo_pus(t);
	int32_t *os = malloc((size_t)pus * sizeof *os);
	uint32_t *gid = malloc((size_t)pus * TOPO_GROUPINGS * sizeof *gid);
	int rc = -1, k;
	if (!os || !gid)
		sc_err_set(err, "tree shape: out of memory for %u PUs", pus);
	else if ((k = topo_groupings_impl(t, os, gid, err)) == 0)
		rc = 0;
	else if (k > 0 && tree_shape_from_groups(s, pus, os, gid, (uint32_t)k, err) == 0)
		rc = 1;
	free(os);
	free(gid);
	return rc;
}

void tree_shape_format(const tree_shape *s, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (uint32_t l = 0; l < s->nlevels && n < size; l++)
		n += (size_t)snprintf(buf + n, size - n, "%s%u", l ? "x" : "", s->fanout[l]);
	if (s->nlevels == 0)
		snprintf(buf, size, "-");
}

void tree_shape_free(tree_shape *s)
{
	free(s->order);
	s->order = NULL;
}

int tree_shape_planned(const run_plan *p, const topo *tp, tree_shape *ts, sc_cpu_shape *cs,
                       sc_err *err)
{
	memset(ts, 0, sizeof *ts);
	bool wanted = false;
	for (unsigned i = 0; i < p->nvariants; i++)
		wanted |= p->variants[i].v->hooks.config_shape != NULL;
	int rc = wanted ? tree_shape_of(tp, ts, err) : 0;
	if (rc == 1)
		*cs = (sc_cpu_shape){ ts->cpus, ts->order, ts->nlevels, ts->fanout };
	return rc;
}
