/* SPDX-License-Identifier: MIT */
/*
 * sc_node.h - the calling thread's CPU and NUMA node as the kernel reports
 * them, and how a kernel node id becomes a counter's node index.
 *
 * Source. Where glibc registered restartable sequences (glibc 2.35 or
 * later) the kernel keeps the thread's CPU in its rseq area, and since Linux
 * 6.3 the node as well (the area's node_id, valid when the kernel's rseq
 * feature size, auxiliary vector entry AT_RSEQ_FEATURE_SIZE, is 24 bytes or
 * more): reading it is a load. Otherwise getcpu(2) is asked (a vDSO call on
 * x86-64). The environment variable SCOUNTERS_NODE, read once, overrides
 * the choice: "rseq", "getcpu" (either falls back to the next available if
 * not available here), or "fixed" (every thread on node 0, the behaviour of
 * scounters before node ids came from the kernel).
 *
 * Mapping. Node ids of the kernel can be sparse (a machine with nodes 0, 2,
 * 4, 6). A counter's node index is the node's rank among the nodes with
 * CPUs when the library first needed the list
 * (/sys/devices/system/node/has_cpu; the online list where that is
 * missing): ids 0, 2, 4, 6 become 0, 1, 2, 3. Nodes of memory only (CXL
 * memory, a GPU's) hold no thread and are not counted. A node id that was
 * not listed then (hot-plugged later) keeps its own id. A counter configured for fewer nodes
 * (env.nodes) folds the index modulo env.nodes (sc_numa.h), so on a 4-node
 * machine a 2-node counter puts nodes 0 and 2 on index 0, nodes 1 and 3 on
 * index 1: locality is weaker, the count stays exact.
 *
 * All functions are thread-safe and never fail.
 */
#ifndef SC_NODE_H
#define SC_NODE_H

#include "sc_common.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * The kernel's CPU and node of the calling thread now (node id as the kernel
 * numbers it; either pointer may be NULL). Returns false, with 0 and 0,
 * when the kernel tells neither (not Linux, or getcpu fails).
 */
bool sc_node_kernel(uint32_t *cpu, uint32_t *node);

/* The counter node index of kernel node id `kernel_node` (the mapping above). */
uint32_t sc_node_index(uint32_t kernel_node);

/* Nodes with CPUs (at least 1): the node count of counters made by sc_counter_new. */
uint32_t sc_node_count(void);

/*
 * How node ids are obtained in this process: "rseq" (CPU and node read from
 * the rseq area), "rseq+getcpu" (CPU changes seen in the rseq area, the node
 * then asked of getcpu), "getcpu" (asked every SC_NODE_REFRESH_CALLS calls
 * of sc_thread_self), "fixed" (SCOUNTERS_NODE=fixed: node 0) or "none"
 * (the kernel tells nothing: node 0).
 */
const char *sc_node_source(void);

/* Without a CPU in the rseq area, sc_thread_self asks getcpu this often. */
#define SC_NODE_REFRESH_CALLS 256u

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_NODE_H */
