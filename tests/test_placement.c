/* SPDX-License-Identifier: MIT */
/*
 * test_placement.c - thread placement (doc/design.md §5.3) on synthetic topologies,
 * where the PU order is checkable without the hardware, and on the real
 * machine, where binding must really happen. Machines that are no regular
 * box (a node without PUs, PUs outside cores, an irregular XML topology) are
 * tests/test_placement_odd.c.
 */
#include "config.h"

#include "placement.h"
#include "tap.h"

#ifndef HAVE_HWLOC

int main(void)
{
	tap_skip_all("built without hwloc: synthetic topologies need it");
}

#else

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testplace.h"

/* A regular synthetic machine: nodes x cores per node x PUs per core, numbered in order. */
typedef struct box {
	const char *name;
	const char *synthetic;
	uint32_t nodes, cores, pus;
	const char *describe;
} box;

static const box t5440 = {"T5440", "pack:4 [numa] core:8 pu:8", 4, 32, 256,
                          "4 nodes, 32 cores, 256 PUs (synthetic)"};
static const box smt2 = {"2x16x2", "pack:2 [numa] core:16 pu:2", 2, 32, 64,
                         "2 nodes, 32 cores, 64 PUs (synthetic)"};

/* In these synthetic boxes PU logical index L sits on core L / smt and node L / (pus / nodes). */
static uint32_t box_smt(const box *b)
{
	return b->pus / b->cores;
}

static uint32_t box_core_of(const box *b, int32_t pu)
{
	return (uint32_t)pu / box_smt(b);
}

static uint32_t box_node_of(const box *b, int32_t pu)
{
	return (uint32_t)pu / (b->pus / b->nodes);
}

static bool slot_eq(placement_slot a, placement_slot b)
{
	return a.pu_logical == b.pu_logical && a.pu_os == b.pu_os && a.node == b.node;
}

static void test_box_counts(const box *b, const topo *t)
{
	tap_ok(topo_pus(t) == b->pus && topo_cores(t) == b->cores && topo_nodes(t) == b->nodes,
	       "%s: topology has %u nodes, %u cores, %u PUs (got %u, %u, %u)", b->name, b->nodes,
	       b->cores, b->pus, topo_nodes(t), topo_cores(t), topo_pus(t));
	tap_ok(strcmp(topo_describe(t), b->describe) == 0, "%s: describe is \"%s\" (got \"%s\")",
	       b->name, b->describe, topo_describe(t));
	tap_ok(!topo_can_bind(t), "%s: a synthetic topology cannot bind", b->name);
}

static void test_box_spread(const box *b, const topo *t)
{
	uint32_t P = b->pus, C = b->cores, N = b->nodes, S = box_smt(b);
	uint32_t *core = calloc(P, sizeof *core), *node = calloc(P, sizeof *node);
	uint32_t *pu = calloc(P, sizeof *pu);
	bool node_rr = true, node_matches_pu = true, os_is_logical = true;
	placement_slot s0 = placement_slot_of(t, PLACE_SPREAD, 0);
	placement_slot sc = placement_slot_of(t, PLACE_SPREAD, C);

	if (!core || !node || !pu)
		abort();
	for (uint32_t i = 0; i < P; i++) {
		placement_slot s = placement_slot_of(t, PLACE_SPREAD, i);
		pu[i] = (uint32_t)s.pu_logical;
		core[i] = box_core_of(b, s.pu_logical);
		node[i] = s.node;
		node_rr &= s.node == i % N;
		node_matches_pu &= s.node == box_node_of(b, s.pu_logical);
		os_is_logical &= s.pu_os == s.pu_logical;
	}
	tap_ok(distinct(node, N, N) == N, "%s: spread threads 0-%u are on %u different nodes",
	       b->name, N - 1, N);
	tap_ok(node_rr, "%s: spread thread i is on node i mod %u, for every i < %u", b->name, N, P);
	tap_ok(node_matches_pu, "%s: spread slot's node is the node holding its PU", b->name);
	tap_ok(os_is_logical, "%s: spread slot's OS index is its PU's (P#L in synthetic)", b->name);
	tap_ok(distinct(core, C, C) == C, "%s: spread threads 0-%u are on %u different cores",
	       b->name, C - 1, C);
	for (uint32_t r = 0; r < S && r < 3; r++) {
		bool rank_r = true;
		for (uint32_t i = r * C; i < (r + 1) * C; i++)
			rank_r &= pu[i] % S == r;
		tap_ok(rank_r && distinct(core + r * C, C, C) == C,
		       "%s: spread threads %u-%u are hardware thread %u of %u distinct cores", b->name,
		       r * C, (r + 1) * C - 1, r, C);
	}
	tap_ok(box_core_of(b, sc.pu_logical) == box_core_of(b, s0.pu_logical) &&
	               sc.pu_logical != s0.pu_logical,
	       "%s: spread thread %u is on a second PU of thread 0's core", b->name, C);
	tap_ok(distinct(pu, P, P) == P, "%s: spread threads 0-%u are on %u distinct PUs", b->name,
	       P - 1, P);
	tap_ok(slot_eq(placement_slot_of(t, PLACE_SPREAD, P), s0) &&
	               slot_eq(placement_slot_of(t, PLACE_SPREAD, P + 1),
	                       placement_slot_of(t, PLACE_SPREAD, 1)) &&
	               slot_eq(placement_slot_of(t, PLACE_SPREAD, 3 * P + 5),
	                       placement_slot_of(t, PLACE_SPREAD, 5)),
	       "%s: spread thread %u wraps to thread 0's PU (i mod PUs)", b->name, P);
	free(core);
	free(node);
	free(pu);
}

static void test_box_compact(const box *b, const topo *t)
{
	bool in_order = true;
	for (uint32_t i = 0; i < b->pus; i++) {
		placement_slot s = placement_slot_of(t, PLACE_COMPACT, i);
		in_order &= s.pu_logical == (int32_t)i && s.pu_os == (int32_t)i &&
		            s.node == box_node_of(b, s.pu_logical);
	}
	tap_ok(in_order, "%s: compact thread i is PU logical i on its node, for every i < %u",
	       b->name, b->pus);
	tap_ok(slot_eq(placement_slot_of(t, PLACE_COMPACT, b->pus + 7),
	               placement_slot_of(t, PLACE_COMPACT, 7)),
	       "%s: compact thread %u wraps to thread 7's PU", b->name, b->pus + 7);
}

static void test_box(const box *b)
{
	topo *t = load_with(b->synthetic, NULL);
	if (!tap_ok(t != NULL, "%s: topo_load accepts HWLOC_SYNTHETIC=\"%s\"", b->name,
	            b->synthetic))
		return;
	test_box_counts(b, t);
	test_box_spread(b, t);
	test_box_compact(b, t);
	diag_spread_map(b->name, t, 8);
	topo_destroy(t);
}

/* The slot of thread i does not depend on which other threads were asked about, or when. */
static void test_slot_independent_of_thread_count(void)
{
	enum { N = 600 };
	static placement_slot asc[2][N];
	topo *t = load_with(t5440.synthetic, NULL), *again = load_with(t5440.synthetic, NULL);
	bool desc_same = true, strided_same = true, reload_same = true, prefix_same = true;

	if (!tap_ok(t && again, "T5440 loads twice")) {
		topo_destroy(t);
		topo_destroy(again);
		return;
	}
	for (int k = 0; k < 2; k++)
		for (uint32_t i = 0; i < N; i++)
			asc[k][i] = placement_slot_of(t, k ? PLACE_COMPACT : PLACE_SPREAD, i);
	for (int k = 0; k < 2; k++) {
		placement_kind kind = k ? PLACE_COMPACT : PLACE_SPREAD;
		for (uint32_t i = N; i-- > 0;)
			desc_same &= slot_eq(placement_slot_of(t, kind, i), asc[k][i]);
		for (uint32_t j = 0; j < N; j++) {
			uint32_t i = (j * 97u + 13u) % N; /* 97 is coprime with 600: a permutation */
			strided_same &= slot_eq(placement_slot_of(t, kind, i), asc[k][i]);
		}
		for (uint32_t i = 0; i < N; i++)
			reload_same &= slot_eq(placement_slot_of(again, kind, i), asc[k][i]);
	}
	/* A 4-thread run and a 256-thread run put threads 0-3 on the same PUs. */
	for (uint32_t threads = 1; threads <= 256; threads *= 4)
		for (uint32_t i = 0; i < threads && i < 4; i++)
			prefix_same &= slot_eq(placement_slot_of(t, PLACE_SPREAD, i), asc[0][i]);
	tap_ok(desc_same, "slot of thread i is the same asked in descending order");
	tap_ok(strided_same, "slot of thread i is the same asked in a scattered order");
	tap_ok(reload_same, "slot of thread i is the same from a second load of the topology");
	tap_ok(prefix_same, "threads 0-3 have the same slots whatever the thread count");
	topo_destroy(t);
	topo_destroy(again);
}

static void test_none_and_synthetic_binding(void)
{
	topo *t = load_with(t5440.synthetic, NULL);
	placement_slot none, s;
	sc_err err = {{0}};
	if (!tap_ok(t != NULL, "T5440 loads for the binding checks"))
		return;
	none = placement_slot_of(t, PLACE_NONE, 5);
	tap_ok(none.pu_logical == -1 && none.pu_os == -1 && none.node == 0,
	       "placement none gives PU -1, OS index -1, node 0");
	tap_ok(placement_bind_self(t, &none, &err) == 0, "binding a none slot is a no-op returning 0");
	s = placement_slot_of(t, PLACE_SPREAD, 200);
	tap_ok(placement_bind_self(t, &s, &err) == 0,
	       "binding on a synthetic topology is a no-op returning 0");
	topo_destroy(t);
}
typedef struct bind_check {
	const topo *t;
	uint32_t index;
	int rc;
	int cpu;
	placement_slot slot;
} bind_check;

static void *bind_check_thread(void *p)
{
	bind_check *c = p;
	sc_err err = {{0}};
	c->slot = placement_slot_of(c->t, PLACE_SPREAD, c->index);
	c->rc = placement_bind_self(c->t, &c->slot, &err);
	c->cpu = sched_getcpu();
	if (c->rc < 0)
		tap_diag("thread %u: %s", c->index, err.msg);
	return NULL;
}

static void test_real_machine_binding(void)
{
	topo *t = load_with(NULL, NULL);
	enum { MAX_THREADS = 8 };
	bind_check chk[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	uint32_t n;
	bool threads_ok = true;
	sc_err err = {{0}};
	placement_slot s0;
	int rc;

	if (!tap_ok(t != NULL, "real machine: topo_load works"))
		return;
	tap_diag("real machine: %s", topo_describe(t));
	tap_ok(topo_pus(t) >= 1 && topo_cores(t) >= 1 && topo_nodes(t) >= 1,
	       "real machine: at least one PU, core and node");
	s0 = placement_slot_of(t, PLACE_SPREAD, 0);
	tap_ok(s0.pu_logical >= 0 && s0.pu_os >= 0 && s0.node < topo_nodes(t),
	       "real machine: spread slot 0 names a PU and a node in range");
	if (!topo_can_bind(t)) {
		tap_ok(true, "real machine: binding # SKIP hwloc cannot bind threads here");
		topo_destroy(t);
		return;
	}
	n = topo_pus(t) < MAX_THREADS ? topo_pus(t) : MAX_THREADS;
	for (uint32_t i = 0; i < n; i++) {
		chk[i] = (bind_check){t, i, -1, -1, {0, 0, 0, -1}};
		if (pthread_create(&tid[i], NULL, bind_check_thread, &chk[i]))
			abort();
	}
	for (uint32_t i = 0; i < n; i++) {
		pthread_join(tid[i], NULL);
		threads_ok &= chk[i].rc == 0 && chk[i].cpu == chk[i].slot.pu_os;
	}
	tap_ok(threads_ok, "real machine: %u threads each bound to its spread PU run there", n);
	rc = placement_bind_self(t, &s0, &err);
	tap_ok(rc == 0, "real machine: binding this thread to spread slot 0 succeeds%s%s",
	       rc ? ": " : "", rc ? err.msg : "");
	tap_ok(sched_getcpu() == s0.pu_os, "real machine: sched_getcpu() is then P#%d (got %d)",
	       s0.pu_os, sched_getcpu());
	topo_destroy(t);
}

int main(void)
{
	tap_plan_lazy();
	test_box(&t5440);
	test_box(&smt2);
	test_slot_independent_of_thread_count();
	test_none_and_synthetic_binding();
	test_real_machine_binding();
	return tap_done();
}

#endif /* HAVE_HWLOC */
