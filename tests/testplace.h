/* SPDX-License-Identifier: MIT */
/*
 * testplace.h - what the placement tests share (test_placement.c,
 * test_placement_odd.c), built with hwloc only: a topology loaded from an
 * HWLOC_SYNTHETIC description or an XML file (neither: the real machine),
 * the spread map of its first threads as a diagnostic, and a count of
 * distinct values.
 */
#ifndef SC_TESTS_TESTPLACE_H
#define SC_TESTS_TESTPLACE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "placement.h"
#include "tap.h"

static inline topo *load_with(const char *synthetic, const char *xmlfile)
{
	topo *t = NULL;
	sc_err err = { { 0 } };
	unsetenv("HWLOC_SYNTHETIC");
	unsetenv("HWLOC_XMLFILE");
	if (synthetic)
		setenv("HWLOC_SYNTHETIC", synthetic, 1);
	if (xmlfile)
		setenv("HWLOC_XMLFILE", xmlfile, 1);
	if (topo_load(&t, &err) < 0) {
		tap_diag("topo_load(%s): %s",
		         synthetic ? synthetic :
		         xmlfile   ? xmlfile :
		                     "machine",
		         err.msg);
		return NULL;
	}
	return t;
}

static inline void diag_spread_map(const char *name, const topo *t, uint32_t n)
{
	char line[512];
	size_t len = 0;
	for (uint32_t i = 0; i < n && len < sizeof line - 40; i++) {
		placement_slot s = placement_slot_of(t, PLACE_SPREAD, i);
		len += (size_t)snprintf(line + len, sizeof line - len, " %u->L#%d/node%u", i,
		                        s.pu_logical, s.node);
	}
	tap_diag("%s spread:%s", name, line);
}

/* Count distinct values among n values below limit. */
static inline uint32_t distinct(const uint32_t *v, uint32_t n, uint32_t limit)
{
	bool *seen = calloc(limit, sizeof *seen);
	uint32_t d = 0;
	if (!seen)
		abort();
	for (uint32_t i = 0; i < n; i++)
		if (v[i] < limit && !seen[v[i]]) {
			seen[v[i]] = true;
			d++;
		}
	free(seen);
	return d;
}

#endif
