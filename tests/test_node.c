/* SPDX-License-Identifier: MIT */
/*
 * test_node.c - node ids from the kernel (counters/node.c) with injected
 * ids: the mapping of sparse kernel node ids to counter indices, the choice
 * of the source, and the refresh of a thread's node in each mode, call by
 * call. counters/node.c is compiled into the test with its hooks pointing
 * at the variables below: what getcpu reports, the online node list, and a
 * fake rseq area whose cpu_id and node_id the test writes. Deterministic.
 */
#include <scounters/scounters.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t fake_cpu, fake_node; /* what getcpu reports */
static bool fake_tells = true;       /* false: getcpu fails */
static unsigned fake_getcpu_calls;
static const char *fake_online = "0\n";
static const char *fake_has_cpu; /* NULL: no has_cpu list (the online one is taken) */
static _Alignas(32) unsigned char fake_rseq[32];

static bool fake_kernel(uint32_t *cpu, uint32_t *node)
{
	fake_getcpu_calls++;
	*cpu = fake_tells ? fake_cpu : 0;
	*node = fake_tells ? fake_node : 0;
	return fake_tells;
}

static const char *fake_online_text(char *buf, size_t size)
{
	if (!fake_online)
		return NULL;
	snprintf(buf, size, "%s", fake_online);
	return buf;
}

static const char *fake_has_cpu_text(char *buf, size_t size)
{
	if (!fake_has_cpu)
		return NULL;
	snprintf(buf, size, "%s", fake_has_cpu);
	return buf;
}

static void rseq_set(uint32_t cpu, uint32_t node)
{
	memcpy(fake_rseq + 4, &cpu, 4);
	memcpy(fake_rseq + 20, &node, 4);
}

#define SC_NODE_TEST_KERNEL(cpu, node) fake_kernel(cpu, node)
#define SC_NODE_TEST_ONLINE(buf, size) fake_online_text(buf, size)
#define SC_NODE_TEST_HAS_CPU(buf, size) fake_has_cpu_text(buf, size)
#define SC_NODE_RSEQ_AREA() ((const char *)fake_rseq)
#include "../counters/node.c"

#include "tap.h"

/* What sc_thread_self does on every call (counters/context.c). */
static sc_thread *self(sc_thread *t)
{
	if (!sc_node_fresh())
		sc_node_refresh(t);
	return t;
}

/* A fresh mapping from the online list `text` (NULL: no list). */
static void online(const char *text)
{
	fake_online = text;
	map_setup();
}

static void test_mapping(void)
{
	online("0\n");
	tap_ok(sc_node_count() == 1 && sc_node_index(0) == 0, "one node: id 0 is index 0");
	tap_ok(sc_node_index(3) == 3, "one node: an id not online keeps its own id (3)");

	online("0,2,4,6\n");
	tap_ok(sc_node_count() == 4, "sparse 0,2,4,6: 4 nodes");
	tap_ok(sc_node_index(0) == 0 && sc_node_index(2) == 1 && sc_node_index(4) == 2 &&
	           sc_node_index(6) == 3,
	       "sparse 0,2,4,6: ranks 0 1 2 3");
	tap_ok(sc_node_index(5) == 5 && sc_node_index(7) == 7 && sc_node_index(1u << 30) == 1u << 30,
	       "sparse: ids not online (5, 7, 2^30) keep their own");

	online("1-3,8-9,16");
	tap_ok(sc_node_count() == 6, "ranges 1-3,8-9,16: 6 nodes");
	tap_ok(sc_node_index(1) == 0 && sc_node_index(3) == 2 && sc_node_index(8) == 3 &&
	           sc_node_index(16) == 5 && sc_node_index(0) == 0,
	       "ranges: 1->0 3->2 8->3 16->5; 0 (not online) keeps 0");

	online("0-255\n");
	tap_ok(sc_node_count() == 256 && sc_node_index(255) == 255, "256 nodes: 255 -> 255");

	static const char *const bad[] = {"", "x", "3-1", "0,,1", "1-", "0 1", "-2"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		online(bad[i]);
		tap_ok(sc_node_count() == 1 && sc_node_index(2) == 2 && sc_node_index(0) == 0,
		       "malformed list \"%s\": one node, ids are their own index", bad[i]);
	}
	online(NULL);
	tap_ok(sc_node_count() == 1 && sc_node_index(7) == 7, "no list: one node, ids their own");

	/*
	 * Nodes of memory only (online, without CPUs: CXL, a GPU's) hold no
	 * thread: the count and the ranks are those of the nodes with CPUs.
	 */
	fake_has_cpu = "0,2\n";
	online("0-3\n");
	tap_ok(sc_node_count() == 2 && sc_node_index(0) == 0 && sc_node_index(2) == 1,
	       "online 0-3, CPUs on 0,2: 2 nodes (counted %u), 2 -> 1", sc_node_count());
	fake_has_cpu = "";
	online("0-3\n");
	tap_ok(sc_node_count() == 4, "an empty has_cpu list: the online one (4 nodes)");
	fake_has_cpu = NULL;

	/* A counter for fewer nodes folds the index (sc_numa.h): 4 nodes on a 2-node counter. */
	online("0,2,4,6\n");
	sc_thread t = {.node = sc_node_index(6)};
	tap_ok(sc_numa_node(&t, 2) == 1 && sc_numa_node(&t, 4) == 3 && sc_numa_node(&t, 1) == 0,
	       "index 3 folds to 1 of 2 nodes, stays 3 of 4, 0 of 1");
}

static void test_modes(void)
{
	online("0,4\n");
	/* getcpu: asked at the refresh, then every SC_NODE_REFRESH_CALLS calls. */
	sc_node_mode = SC_NODE_GETCPU;
	fake_tells = true;
	fake_cpu = 1, fake_node = 4;
	sc_thread t = {0};
	sc_node_refresh(&t);
	tap_ok(t.node == 1, "getcpu: kernel node 4 of 0,4 is index 1");
	fake_node = 0; /* the thread moves to node 0 */
	unsigned calls = 0;
	while (self(&t)->node == 1 && calls < 10 * SC_NODE_REFRESH_CALLS)
		calls++;
	tap_ok(calls + 1 == SC_NODE_REFRESH_CALLS,
	       "getcpu: the move is seen at call %u (expected %u)", calls + 1, SC_NODE_REFRESH_CALLS);
	fake_getcpu_calls = 0;
	for (unsigned i = 0; i < 4 * SC_NODE_REFRESH_CALLS; i++)
		self(&t);
	tap_ok(fake_getcpu_calls == 4 && t.node == 0,
	       "getcpu: %u getcpu calls in %u (expected 4)", fake_getcpu_calls,
	       4 * SC_NODE_REFRESH_CALLS);

	/* rseq: the node follows the area's CPU at once; no getcpu call. */
	sc_node_mode = SC_NODE_RSEQ;
	rseq_set(3, 4);
	fake_getcpu_calls = 0;
	tap_ok(self(&t)->node == 1, "rseq: a changed CPU refreshes at once: node 4 -> index 1");
	for (int i = 0; i < 1000; i++)
		self(&t);
	tap_ok(t.node == 1 && fake_getcpu_calls == 0, "rseq: CPU unchanged, 1000 calls: no refresh");
	t.node = 77; /* would show a refresh that should not happen */
	self(&t);
	tap_ok(t.node == 77, "rseq: same CPU, no refresh (the node is not re-read)");
	rseq_set(5, 0);
	tap_ok(self(&t)->node == 0, "rseq: moved to CPU 5 on node 0: index 0");
	uint32_t kc, kn;
	tap_ok(sc_node_kernel(&kc, &kn) && kc == 5 && kn == 0 && fake_getcpu_calls == 0,
	       "rseq: sc_node_kernel reads the area (cpu 5, node 0)");

	/* rseq CPU only (kernel without node_id): the node from getcpu when the CPU changes. */
	sc_node_mode = SC_NODE_RSEQ_CPU;
	rseq_set(6, 99); /* node_id not provided: garbage that must not be used */
	fake_cpu = 6, fake_node = 4;
	tap_ok(self(&t)->node == 1 && fake_getcpu_calls == 1,
	       "rseq+getcpu: CPU change -> one getcpu, node 4 -> index 1");
	for (int i = 0; i < 1000; i++)
		self(&t);
	tap_ok(fake_getcpu_calls == 1, "rseq+getcpu: CPU unchanged: no more getcpu");

	/* fixed and none: node 0, never refreshed. */
	sc_node_mode = SC_NODE_FIXED;
	t.node = 0;
	fake_getcpu_calls = 0;
	rseq_set(7, 4);
	for (int i = 0; i < 1000; i++)
		self(&t);
	tap_ok(t.node == 0 && fake_getcpu_calls == 0, "fixed: node 0, never asked");
}

/* The source chosen at start-up, from SCOUNTERS_NODE and what the kernel tells. */
static void test_setup(void)
{
	setenv("SCOUNTERS_NODE", "fixed", 1);
	mode_setup();
	tap_ok(sc_node_mode == SC_NODE_FIXED, "SCOUNTERS_NODE=fixed: fixed");
	setenv("SCOUNTERS_NODE", "getcpu", 1);
	fake_tells = true;
	mode_setup();
	tap_ok(sc_node_mode == SC_NODE_GETCPU, "SCOUNTERS_NODE=getcpu: getcpu");
	fake_tells = false;
	mode_setup();
	tap_ok(sc_node_mode == SC_NODE_NONE, "getcpu fails: none (node 0)");
	unsetenv("SCOUNTERS_NODE");
	fake_tells = true;
	fake_cpu = 2, fake_node = 4;
	rseq_set(2, 4);
	mode_setup();
#if SC_NODE_HAVE_RSEQ
	bool reg = __rseq_size > 0, feat = getauxval(AUX_RSEQ_FEATURE_SIZE) >= RSEQ_NODE_ID_END;
	int want = !reg ? SC_NODE_GETCPU : feat ? SC_NODE_RSEQ : SC_NODE_RSEQ_CPU;
	tap_ok(sc_node_mode == want, "default: %s (rseq registered %d, kernel node_id %d)",
	       sc_node_source(), reg, feat);
	rseq_set(2, 0); /* node_id disagrees with getcpu: not trusted */
	mode_setup();
	tap_ok(sc_node_mode == (reg ? SC_NODE_RSEQ_CPU : SC_NODE_GETCPU),
	       "rseq node_id disagreeing with getcpu: %s", sc_node_source());
	rseq_set(0x80000000u + 1, 4); /* cpu_id: registration failed */
	mode_setup();
	tap_ok(sc_node_mode == SC_NODE_GETCPU, "rseq cpu_id invalid: getcpu");
#else
	tap_ok(sc_node_mode == SC_NODE_GETCPU, "default without rseq support: getcpu");
#endif
}

int main(void)
{
	tap_plan_lazy();
	sc_node_setup(); /* its once-only setup done now: the tests below set the mode */
	test_mapping();
	test_modes();
	test_setup();
	return tap_done();
}
