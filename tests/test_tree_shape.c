/* SPDX-License-Identifier: MIT */
/*
 * test_tree_shape.c - PerCPUTree's shape from the machine (harness/
 * tree_shape.c): hwloc's synthetic machines of 2 to 256 PUs give one level
 * per distinct grouping (cores, shared caches, NUMA nodes, packages) with
 * its fan-out, the CPUs in topology order; a table reconfigured for the
 * shape counts exactly and its get_fast makes the same 3 loads at every
 * size; groupings that are not aligned blocks are dropped, and OS indexes
 * that interleave the cores are mapped to their leaves; sc_table_create_shaped
 * gives a shape only to a variant laid out by it, and not where an arity is
 * given.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every load of the readings counted (sc_tree.h's test hook). */
static uint64_t loads;
#define SC_TREE_LOAD(x) (loads++, (x))

#include <scounters/scounters.h>

#include "tap.h"
#include "tree_shape.h"

/* Groupings given directly: aligned blocks kept, others dropped; interleaved OS ids. */
static void from_groups(void)
{
	/* 8 PUs, two per core, the OS numbering a core's PUs c and c + 4 */
	static const int32_t os[8] = {0, 4, 1, 5, 2, 6, 3, 7};
	static const uint32_t gid[4 * 8] = {
		0, 0, 1, 1, 2, 2, 3, 3, /* cores: blocks of 2 */
		0, 0, 0, 1, 1, 1, 1, 1, /* blocks of 3 and 5: dropped */
		0, 0, 0, 0, 1, 1, 1, 1, /* caches: blocks of 4 */
		0, 1, 0, 1, 0, 1, 0, 1, /* interleaved: dropped */
	};
	tree_shape s;
	sc_err err;
	int rc = tree_shape_from_groups(&s, 8, os, gid, 4, &err);
	tap_ok(rc == 0 && s.cpus == 8 && s.nlevels == 2 && s.fanout[0] == 2 && s.fanout[1] == 2 &&
	               s.order[0] == 0 && s.order[4] == 1 && s.order[1] == 2 && s.order[7] == 7,
	       "groupings: cores (2) and caches (4 = 2 x 2) kept, unaligned and interleaved "
	       "groupings dropped, OS id 4 is leaf 1 (%d levels)", rc == 0 ? (int)s.nlevels : -1);
	if (rc == 0)
		tree_shape_free(&s);
	/* a hole in the OS ids: the missing id takes a leaf after the PUs */
	static const int32_t holes[4] = {0, 1, 3, 4};
	rc = tree_shape_from_groups(&s, 4, holes, gid, 1, &err);
	tap_ok(rc == 0 && s.cpus == 5 && s.order[2] == 4 && s.order[3] == 2 && s.nlevels == 1,
	       "OS ids 0, 1, 3, 4: 5 CPU words, id 2 is leaf 4");
	if (rc == 0)
		tree_shape_free(&s);
	static const int32_t twice[2] = {3, 3};
	tap_ok(tree_shape_from_groups(&s, 2, twice, gid, 1, &err) == -1, "an OS id given twice "
	       "is refused: %s", err.msg);
}

#ifdef HAVE_HWLOC
/* The width counted word by word for the shape's fan-outs (the root holds nothing). */
static uint64_t expected_width(const sc_percpu_tree_cfg *cfg, uint64_t batch)
{
	uint64_t width = batch - 1, b = batch, n = cfg->cpus;
	for (uint32_t l = 0; l < cfg->levels; l++, b *= 2) {
		width += n * (b - 1);
		n = (n + cfg->fanout[l] - 1) / cfg->fanout[l];
	}
	return width;
}

static const struct machine {
	const char *synthetic;
	uint32_t pus, nlevels, fanout[5];
} machines[] = {
	/* cores of 2, an L3 per 8 cores, a node per package: the root over the 4 packages */
	{"pack:4 numa:1 l3:2 core:8 pu:2", 128, 3, {2, 8, 2}},
	{"pack:2 numa:2 l3:2 core:16 pu:2", 256, 4, {2, 16, 2, 2}},
	/* an L2 per core is the core's grouping again: one level */
	{"pack:2 l2:4 core:1 pu:2", 16, 2, {2, 4}},
	/* one PU per core, one package: no level below the root */
	{"core:2 pu:1", 2, 0, {0}},
	{"pack:2 numa:2 core:8 pu:1", 32, 2, {8, 2}},
};

static void synthetic(const struct machine *m)
{
	topo *t = NULL;
	sc_err err;
	tree_shape s;
	setenv("HWLOC_SYNTHETIC", m->synthetic, 1);
	int rc = topo_load(&t, &err) == 0 ? tree_shape_of(t, &s, &err) : -1;
	unsetenv("HWLOC_SYNTHETIC");
	bool shape_ok = rc == 1 && s.cpus == m->pus && s.nlevels == m->nlevels;
	for (uint32_t l = 0; shape_ok && l < m->nlevels; l++)
		shape_ok = s.fanout[l] == m->fanout[l];
	for (uint32_t c = 0; shape_ok && c < s.cpus; c++)
		shape_ok = s.order[c] == c; /* a synthetic machine numbers its PUs in order */
	char fan[64] = "";
	if (rc == 1)
		tree_shape_format(&s, fan, sizeof fan);
	tap_ok(shape_ok, "%s: %u CPU words, fan-outs %s (%s)", m->synthetic,
	       rc == 1 ? s.cpus : 0, fan, rc < 0 ? err.msg : "");
	if (rc != 1) {
		topo_destroy(t);
		return;
	}
	/* a table of the variant reconfigured for the shape, its batch kept */
	sc_table tab;
	sc_params p;
	sc_params_clear(&p);
	sc_params_add(&p, "batch=8", &err);
	sc_env env = {.threads = 1, .nodes = 1, .cpus = 4};
	sc_cpu_shape cs = { s.cpus, s.order, s.nlevels, s.fanout };
	bool made = sc_table_create_shaped(&tab, &sc_variants[SC_ID_percpu_tree], &p, &env, &cs, 2,
	                                   &err) == 0;
	if (!tap_ok(made, "%s: a table made for the shape (%s)", m->synthetic, made ? "" : err.msg)) {
		tree_shape_free(&s);
		topo_destroy(t);
		return;
	}
	sc_percpu_tree_cfg *cfg = tab.cfg;
	sc_percpu_tree_t *c = sc_table_at(&tab, 1);
	bool levels_ok = cfg->cpus == m->pus && cfg->levels == m->nlevels + 1 &&
	                 (1u << cfg->batch_shift) == 8 && cfg->width == expected_width(cfg, 8);
	for (uint32_t l = 0; levels_ok && l < m->nlevels; l++)
		levels_ok = cfg->fanout[l] == m->fanout[l];
	for (uint64_t i = 0; i < 100000; i++)
		sc_percpu_tree_inc(c, cfg, NULL);
	sc_tree_interval iv;
	loads = 0;
	uint64_t fast = sc_percpu_tree_get_fast(c, cfg, &iv);
	uint64_t fast_loads = loads;
	uint64_t sum = sc_percpu_tree_get_sum(c, cfg);
	char desc[256];
	sc_percpu_tree_describe(c, cfg, desc, sizeof desc);
	char want[128] = ";fanout=";
	for (uint32_t l = 0; l < cfg->levels; l++)
		snprintf(want + strlen(want), sizeof want - strlen(want), "%s%u", l ? "x" : "",
		         cfg->fanout[l]);
	strcat(want, ";");
	tap_ok(levels_ok && fast_loads == 3 && sum == 100000 && sum - fast <= cfg->width &&
	               strstr(desc, want) != NULL,
	       "%s: %u levels (the root's included), width %llu for batch 8, get_fast %llu loads, "
	       "get_sum %llu, get_fast %llu; describe \"%s\"", m->synthetic, cfg->levels,
	       (unsigned long long)cfg->width, (unsigned long long)fast_loads,
	       (unsigned long long)sum, (unsigned long long)fast, desc);
	sc_table_destroy(&tab);
	tree_shape_free(&s);
	topo_destroy(t);
}
#endif

/* sc_table_create_shaped of one counter with params, space-separated "key=value" items. */
static int make_shaped(sc_table *t, const sc_variant *v, const char *params, const sc_env *env,
                       const sc_cpu_shape *cs, sc_err *err)
{
	char kv[128]; /* the strings p points into, while the table is made */
	sc_params p;
	sc_params_clear(&p);
	snprintf(kv, sizeof kv, "%s", params);
	for (char *save, *tok = strtok_r(kv, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (sc_params_add(&p, tok, err))
			return -1;
	return sc_table_create_shaped(t, v, &p, env, cs, 1, err);
}

/*
 * sc_table_create_shaped: a PerCPUTree table given a shape (8 CPUs, cores
 * of 4) follows it unless an arity is given; a variant without the hook
 * (PerCPU) is configured as sc_table_create configures it.
 */
static void shaped_tables(void)
{
	static const uint32_t order[8] = { 0, 1, 2, 3, 4, 5, 6, 7 }, fanout[1] = { 4 };
	const sc_cpu_shape cs = { 8, order, 1, fanout };
	sc_env env = { .threads = 1, .nodes = 1, .cpus = 8 };
	static const char *const given[2] = { "batch=8", "batch=8 arity=2" };
	for (int g = 0; g < 2; g++) {
		sc_table tab;
		sc_err err;
		int rc = make_shaped(&tab, &sc_variants[SC_ID_percpu_tree], given[g], &env, &cs,
		                     &err);
		const sc_percpu_tree_cfg *cfg = rc == 0 ? tab.cfg : NULL;
		uint32_t want = g == 0 ? 4 : 2;
		tap_ok(cfg && cfg->cpus == 8 && cfg->fanout[0] == want &&
		               (1u << cfg->batch_shift) == 8,
		       "PerCPUTree \"%s\" given cores of 4: first fan-out %u (want %u)", given[g],
		       cfg ? cfg->fanout[0] : 0, want);
		if (rc == 0)
			sc_table_destroy(&tab);
	}
	const sc_variant *v = &sc_variants[SC_ID_percpu];
	sc_table plain, shaped;
	sc_err err;
	bool made = make_shaped(&plain, v, "", &env, NULL, &err) == 0;
	made = made && make_shaped(&shaped, v, "", &env, &cs, &err) == 0;
	tap_ok(made && memcmp(plain.cfg, shaped.cfg, v->cfg_size) == 0,
	       "PerCPU, which has no shape, configured alike with and without one");
	if (made) {
		sc_table_destroy(&plain);
		sc_table_destroy(&shaped);
	}
}

int main(void)
{
	tap_plan_lazy();
	from_groups();
	shaped_tables();
#ifdef HAVE_HWLOC
	for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
		synthetic(&machines[i]);
#else
	tap_diag("built without hwloc: the synthetic machines are not loaded");
#endif
	return tap_done();
}
