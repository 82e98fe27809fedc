/* SPDX-License-Identifier: MIT */
/*
 * node_priv.h - inside the library only: the per-thread check, inlined into
 * sc_thread_self, of whether the thread's node id may be stale (counters/node.c).
 */
#ifndef SC_NODE_PRIV_H
#define SC_NODE_PRIV_H

#include <stddef.h>

#include <scounters/sc_node.h>

/* How this process learns node ids (sc_node_mode, set once by sc_node_setup). */
enum {
	SC_NODE_NONE = 0,   /* the kernel tells nothing: node 0 */
	SC_NODE_FIXED,      /* SCOUNTERS_NODE=fixed: node 0 */
	SC_NODE_GETCPU,     /* getcpu every SC_NODE_REFRESH_CALLS calls */
	SC_NODE_RSEQ_CPU,   /* CPU from the rseq area; the node from getcpu when it changes */
	SC_NODE_RSEQ        /* CPU and node from the rseq area */
};

#if defined(__GNUC__) && !defined(_WIN32)
#define SC_HIDDEN __attribute__((visibility("hidden")))
#define SC_TLS_FAST __attribute__((tls_model("initial-exec")))
#else
#define SC_HIDDEN
#define SC_TLS_FAST
#endif

extern int sc_node_mode SC_HIDDEN;
extern ptrdiff_t sc_node_rseq_offset SC_HIDDEN; /* __rseq_offset when a mode reads rseq */
/* The CPU seen at the thread's last refresh (rseq modes), or calls left (getcpu). */
extern _Thread_local uint32_t sc_node_seen SC_TLS_FAST SC_HIDDEN;

/* Choose the mode; idempotent and thread-safe (pthread_once). */
void sc_node_setup(void) SC_HIDDEN;

/* Read the node again: t->node, and sc_node_seen. The slow path. */
void sc_node_refresh(sc_thread *t) SC_HIDDEN;

/*
 * The kernel's rseq area of the calling thread (glibc places it at
 * __rseq_offset from the thread pointer). A test build replaces it.
 */
#if defined(__x86_64__) && defined(__GNUC__)
static inline const char *sc_node_tp(void)
{
	const char *tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp)); /* the TCB's self pointer */
	return tp;
}
#define SC_NODE_HAVE_TP 1
#elif defined(__aarch64__) && defined(__GNUC__)
static inline const char *sc_node_tp(void)
{
	return (const char *)__builtin_thread_pointer();
}
#define SC_NODE_HAVE_TP 1
#else
#define SC_NODE_HAVE_TP 0
#endif
#ifndef SC_NODE_RSEQ_AREA
#if SC_NODE_HAVE_TP
#define SC_NODE_RSEQ_AREA() (sc_node_tp() + sc_node_rseq_offset)
#else
#define SC_NODE_RSEQ_AREA() ((const char *)NULL) /* never read: no rseq mode */
#endif
#endif

/* The CPU in the rseq area: cpu_id, a 32-bit field at byte 4 (linux/rseq.h). */
static inline uint32_t sc_node_rseq_cpu(void)
{
	/*
	 * volatile: the kernel rewrites the field when it returns to this
	 * thread after a migration, outside the C memory model; only this
	 * thread reads it, so one volatile load (as glibc's sched_getcpu does)
	 * sees the kernel's latest value without any data race between threads.
	 */
	return *(const volatile uint32_t *)(SC_NODE_RSEQ_AREA() + 4);
}

/* True when the thread's node id cannot be stale yet (the fast path). */
static inline bool sc_node_fresh(void)
{
	int m = sc_node_mode;
	if (m >= SC_NODE_RSEQ_CPU)
		return sc_node_rseq_cpu() == sc_node_seen;
	if (m == SC_NODE_GETCPU)
		return --sc_node_seen != 0;
	return true;
}

#endif /* SC_NODE_PRIV_H */
