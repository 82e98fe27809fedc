/* SPDX-License-Identifier: MIT */
/*
 * mca_loops.c - the loops whose bodies harness/mca.sh hands to llvm-mca:
 * one increment per iteration, compiled as a user's program is (-O2, no
 * loop alignment flags). Not built into anything; compiled by mca.sh.
 *
 *   mca_floor          a relaxed load and store of the thread's own word
 *   mca_percpu         PerCPU's inlined increment (sc_percpu_inc: the
 *                      array's index loaded at each add)
 *   mca_cursor         the add through the thread's cursor (sc_rseq.h)
 *   mca_inline_<V>, mca_handle_<V>  the inlined sc_<V>_inc and
 *                      sc_counter_inc, for the variants make bench pairs
 *                      (PerCPU's handle is mca_handle_percpu)
 *   mca_handle_call    sc_counter_inc through the indirect call (CAS, ...)
 *
 * MCA_CPU_ID (0 or 1, set by mca.sh) says which kind of index (mm_cid or
 * cpu_id) the compiler lays out as the path that falls through; both are
 * still tested at run time, as in a program.
 */
#ifndef MCA_CPU_ID
#define MCA_CPU_ID 0
#endif
#define SC_RSEQ_KIND_(cpu_id) __builtin_expect((cpu_id), MCA_CPU_ID)
#include <scounters/scounters.h>

void mca_floor(SC_ATOMIC(uint64_t) *w, int n);
void mca_percpu(sc_percpu_t *c, const sc_percpu_cfg *cfg, sc_thread *t, int n);
void mca_cursor(sc_percpu_t *c, const sc_percpu_cfg *cfg, int n);

void mca_floor(SC_ATOMIC(uint64_t) *w, int n)
{
	for (int i = 0; i < n; i++)
		/* relaxed: the thread's own word */
		atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) + 1,
		                      memory_order_relaxed);
}

void mca_percpu(sc_percpu_t *c, const sc_percpu_cfg *cfg, sc_thread *t, int n)
{
	for (int i = 0; i < n; i++)
		sc_percpu_inc(c, cfg, t);
}

void mca_cursor(sc_percpu_t *c, const sc_percpu_cfg *cfg, int n)
{
	unsigned char *slot0 = (unsigned char *)(void *)c->slots;
	sc_percpu_cursor cur = sc_percpu_cursor_get(slot0, SC_LINE_SIZE, cfg->cpus, cfg->index);
	for (int i = 0; i < n; i++)
		sc_percpu_cursor_add(&cur, 1);
}

#define MCA_PAIR_(P)                                                                        \
	void mca_inline_##P(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_thread *t, int n);   \
	void mca_inline_##P(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_thread *t, int n)    \
	{                                                                                   \
		for (int i = 0; i < n; i++)                                                 \
			sc_##P##_inc(c, cfg, t);                                            \
	}
MCA_PAIR_(fetchadd)
MCA_PAIR_(sharded)
MCA_PAIR_(morris)
MCA_PAIR_(scalable)
#undef MCA_PAIR_

/*
 * sc_counter_inc in a loop, for a counter of one kind: the head's fields
 * that pick the path are stated (loaded again by the increment itself, so
 * the compiler shares the loads and drops the paths not taken), so that
 * the loop body is the increment's path for that kind, straight.
 */
#define MCA_HANDLE_(NAME, COND)                                                             \
	void mca_handle_##NAME(sc_counter *c, int n);                                       \
	void mca_handle_##NAME(sc_counter *c, int n)                                        \
	{                                                                                   \
		for (int i = 0; i < n; i++) {                                               \
			const sc_counter_head_ *h = (const sc_counter_head_ *)(void *)c;    \
			if (!(COND))                                                        \
				__builtin_unreachable();                                    \
			sc_counter_inc(c);                                                  \
		}                                                                           \
	}
/* (in the order sc_counter_inc tests them: sharded_cfg.threads, op, percpu_slot0) */
/* threads is 0 but for Sharded: "index < threads" fails (the compiler sees no index) */
#define MCA_NOT_SHARDED_ (h->sharded_cfg.threads == 0)
MCA_HANDLE_(sharded, sc_counter_tls_.ctx.index < h->sharded_cfg.threads)
MCA_HANDLE_(percpu, MCA_NOT_SHARDED_ && h->op == (MCA_CPU_ID ? SC_HEAD_OP_PERCPU_CPU_ID_ :
                                                               SC_HEAD_OP_PERCPU_MM_CID_))
MCA_HANDLE_(fetchadd, MCA_NOT_SHARDED_ && h->op == SC_HEAD_OP_FETCHADD_)
MCA_HANDLE_(morris, MCA_NOT_SHARDED_ && h->op == SC_HEAD_OP_MORRIS_)
MCA_HANDLE_(scalable,
            MCA_NOT_SHARDED_ && h->op == SC_HEAD_OP_SCALABLE_ && sc_counter_tls_.ctx.rng != 0)
MCA_HANDLE_(call, MCA_NOT_SHARDED_ && h->op == SC_HEAD_OP_CALL_ && h->percpu_slot0 == NULL &&
                          h->mode == 0 && sc_counter_tls_.ready == 1)
#undef MCA_NOT_SHARDED_
#undef MCA_HANDLE_
