/* SPDX-License-Identifier: MIT */
/* node.c - node ids from the kernel (sc_node.h) and their refresh for sc_thread_self. */
#include "node_priv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sched.h>
#include <sys/auxv.h>
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)) && \
	SC_NODE_HAVE_TP
#include <sys/rseq.h>
#define SC_NODE_HAVE_RSEQ 1
#endif
#endif
#ifndef SC_NODE_HAVE_RSEQ
#define SC_NODE_HAVE_RSEQ 0
#endif

/*
 * Test hooks (tests/test_node.c includes this file): SC_NODE_TEST_KERNEL(cpu,
 * node) replaces getcpu (returns true when it tells), SC_NODE_TEST_ONLINE
 * the text of the online node list, SC_NODE_TEST_MODE the mode chosen.
 */

int sc_node_mode = SC_NODE_NONE;
ptrdiff_t sc_node_rseq_offset;
_Thread_local uint32_t sc_node_seen SC_TLS_FAST;

/* The kernel's node id at byte 20 of the rseq area (node_id, Linux 6.3). */
#define RSEQ_NODE_ID_OFFSET 20
#define RSEQ_NODE_ID_END 24
#define RSEQ_CPU_ID_MAX 0x7fffffffu /* above: uninitialised or registration failed */
#define AUX_RSEQ_FEATURE_SIZE 27     /* AT_RSEQ_FEATURE_SIZE (Linux 6.3) */

static bool node_getcpu(uint32_t *cpu, uint32_t *node)
{
#if defined(__linux__)
	unsigned c, n;
	if (getcpu(&c, &n) == 0) {
		*cpu = c;
		*node = n;
		return true;
	}
#endif
	*cpu = *node = 0;
	return false;
}

#ifndef SC_NODE_TEST_KERNEL
#define SC_NODE_TEST_KERNEL(cpu, node) node_getcpu(cpu, node)
#else
static bool (*const node_getcpu_unused)(uint32_t *, uint32_t *) = node_getcpu; /* kept compiled */
#endif

static uint32_t rseq_node(void)
{
	/* volatile: as sc_node_rseq_cpu (node_priv.h). */
	return *(const volatile uint32_t *)(SC_NODE_RSEQ_AREA() + RSEQ_NODE_ID_OFFSET);
}

/* ---- the mapping: kernel node id -> rank among the nodes with CPUs ---------- */

#define NODE_ID_LIMIT 65536u /* larger ids in the list are ignored (keep their own id) */

static uint32_t *node_rank; /* node_rank[id]: rank + 1 of a listed node, 0 if not listed */
static uint32_t node_rank_len, node_online = 1;

/*
 * Parse a kernel CPU/node list ("0", "0-3", "0,2,4-6") into node_rank.
 * Returns the number of nodes, 0 if the text is not such a list.
 */
static uint32_t node_list_parse(const char *s)
{
	uint32_t max = 0, count = 0;
	/* Two passes: the largest id, then the ranks in increasing id order. */
	for (int pass = 0; pass < 2; pass++) {
		const char *p = s;
		count = 0;
		while (*p && *p != '\n') {
			char *end;
			unsigned long a = strtoul(p, &end, 10), b = a;
			if (end == p)
				return 0;
			p = end;
			if (*p == '-') {
				b = strtoul(p + 1, &end, 10);
				if (end == p + 1 || b < a)
					return 0;
				p = end;
			}
			if (*p == ',')
				p++;
			else if (*p && *p != '\n')
				return 0;
			for (unsigned long id = a; id <= b && id < NODE_ID_LIMIT; id++) {
				if (pass == 0)
					max = id > max ? (uint32_t)id : max;
				else if (node_rank[id] == 0)
					node_rank[id] = ++count;
			}
		}
		if (pass == 0) {
			free(node_rank);
			node_rank = calloc((size_t)max + 1, sizeof *node_rank);
			if (!node_rank)
				return 0;
			node_rank_len = max + 1;
		}
	}
	return count;
}

#if !defined(SC_NODE_TEST_ONLINE) || !defined(SC_NODE_TEST_HAS_CPU)
/* The text of a node list of sysfs (path: a constant of this file), NULL if absent or empty. */
static const char *node_list_text(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n ? buf : NULL;
}
#endif
#ifndef SC_NODE_TEST_ONLINE
#define SC_NODE_TEST_ONLINE(buf, size) node_list_text("/sys/devices/system/node/online", buf, size)
#endif
#ifndef SC_NODE_TEST_HAS_CPU
#define SC_NODE_TEST_HAS_CPU(buf, size)                                                    \
	node_list_text("/sys/devices/system/node/has_cpu", buf, size)
#endif

static pthread_once_t map_once = PTHREAD_ONCE_INIT;

/*
 * The nodes that have CPUs (has_cpu), where threads run: a node of memory
 * only (CXL memory, a GPU's, a machine's spare) never holds a thread, and a
 * counter's part for it would go unused (and RBONuma's node field would
 * take value bits for it). The online list when has_cpu is missing (kernels
 * before 2.6.37) or unreadable.
 */
static void map_setup(void)
{
	static char buf[8192];
	const char *text = SC_NODE_TEST_HAS_CPU(buf, sizeof buf);
	uint32_t n = text ? node_list_parse(text) : 0;
	if (n == 0) {
		text = SC_NODE_TEST_ONLINE(buf, sizeof buf);
		n = text ? node_list_parse(text) : 0;
	}
	if (n == 0) { /* no list: ids are their own index */
		free(node_rank);
		node_rank = NULL;
		node_rank_len = 0;
		n = 1;
	}
	node_online = n;
}

uint32_t sc_node_index(uint32_t kernel_node)
{
	pthread_once(&map_once, map_setup);
	if (kernel_node < node_rank_len && node_rank[kernel_node])
		return node_rank[kernel_node] - 1;
	return kernel_node;
}

uint32_t sc_node_count(void)
{
	pthread_once(&map_once, map_setup);
	return node_online;
}

/* ---- the mode, and reading the kernel --------------------------------------- */

static pthread_once_t mode_once = PTHREAD_ONCE_INIT;

/* Which of the rseq modes the area supports here (SC_NODE_GETCPU if neither). */
static int rseq_mode(void)
{
#if SC_NODE_HAVE_RSEQ
	if (__rseq_size == 0) /* glibc did not register (glibc.pthread.rseq=0, or refused) */
		return SC_NODE_GETCPU;
	sc_node_rseq_offset = __rseq_offset;
	uint32_t cpu = sc_node_rseq_cpu(), kcpu, knode;
	if (cpu > RSEQ_CPU_ID_MAX)
		return SC_NODE_GETCPU;
	if (getauxval(AUX_RSEQ_FEATURE_SIZE) < RSEQ_NODE_ID_END)
		return SC_NODE_RSEQ_CPU;
	/* Trust node_id only if it agrees with getcpu (retry once: we may have moved). */
	for (int i = 0; i < 2; i++)
		if (SC_NODE_TEST_KERNEL(&kcpu, &knode) && rseq_node() == knode)
			return SC_NODE_RSEQ;
	return SC_NODE_RSEQ_CPU;
#else
	return SC_NODE_GETCPU;
#endif
}

static void mode_setup(void)
{
	uint32_t cpu, node;
	const char *want = getenv("SCOUNTERS_NODE");
	int m;
#ifdef SC_NODE_TEST_MODE
	(void)cpu;
	(void)node;
	(void)want;
	m = SC_NODE_TEST_MODE;
#else
	if (want && strcmp(want, "fixed") == 0)
		m = SC_NODE_FIXED;
	else if (!SC_NODE_TEST_KERNEL(&cpu, &node))
		m = SC_NODE_NONE;
	else if (want && strcmp(want, "getcpu") == 0)
		m = SC_NODE_GETCPU;
	else
		m = rseq_mode();
#endif
	sc_node_mode = m;
}

void sc_node_setup(void)
{
	pthread_once(&mode_once, mode_setup);
}

const char *sc_node_source(void)
{
	sc_node_setup();
	switch (sc_node_mode) {
	case SC_NODE_RSEQ: return "rseq";
	case SC_NODE_RSEQ_CPU: return "rseq+getcpu";
	case SC_NODE_GETCPU: return "getcpu";
	case SC_NODE_FIXED: return "fixed";
	default: return "none";
	}
}

bool sc_node_kernel(uint32_t *cpu, uint32_t *node)
{
	uint32_t c, n;
	bool ok;
	sc_node_setup();
	if (sc_node_mode == SC_NODE_RSEQ) {
		/* A migration between the two loads shows as a changed CPU: read again. */
		do {
			c = sc_node_rseq_cpu();
			n = rseq_node();
		} while (c != sc_node_rseq_cpu());
		ok = true;
	} else {
		ok = SC_NODE_TEST_KERNEL(&c, &n);
	}
	if (cpu)
		*cpu = c;
	if (node)
		*node = n;
	return ok;
}

void sc_node_refresh(sc_thread *t)
{
	uint32_t cpu, node;
	switch (sc_node_mode) {
	case SC_NODE_RSEQ:
	case SC_NODE_RSEQ_CPU:
		/*
		 * The CPU compared on the fast path is the one read first: if the
		 * thread moves after it, the next call sees another CPU and comes
		 * here again.
		 */
		cpu = sc_node_rseq_cpu();
		if (sc_node_mode == SC_NODE_RSEQ)
			node = rseq_node();
		else if (!SC_NODE_TEST_KERNEL(&(uint32_t){0}, &node))
			node = 0;
		sc_node_seen = cpu;
		t->node = sc_node_index(node);
		break;
	case SC_NODE_GETCPU:
		sc_node_seen = SC_NODE_REFRESH_CALLS;
		t->node = SC_NODE_TEST_KERNEL(&cpu, &node) ? sc_node_index(node) : 0;
		break;
	default:
		sc_node_seen = 0;
		t->node = 0;
		break;
	}
}
