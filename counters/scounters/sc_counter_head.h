/* SPDX-License-Identifier: MIT */
/*
 * sc_counter_head.h - the part of the handle API that programs inline: the
 * counter's head, the thread's context in TLS, and the inlined bodies of
 * sc_counter_inc and sc_counter_add (documented in sc_counter.h, which
 * includes this file among its declarations; including this one alone
 * includes sc_counter.h).
 */
#ifndef SC_COUNTER_H
#include "sc_counter.h" /* which includes this file among its declarations */
#elif !defined(SC_COUNTER_HEAD_H)
#define SC_COUNTER_HEAD_H

/*
 * Not for programs: what the inlined sc_counter_inc and sc_counter_add
 * below read (their layout is part of the ABI). Every sc_counter begins
 * with an sc_counter_head_: the variant's type-erased increment and add
 * (the registry's, which inline the family header's sc_P_inc and sc_P_add),
 * the counter and its configuration, and how the increment goes (mode:
 * SC_HEAD_SLOW_ when the thread's context must come from the library, for a
 * variant that reads the thread's node, whose freshness the library checks,
 * or one that draws from a per-variant stream, Scalable runtime=dotnet;
 * SC_HEAD_SHARDED_ for Sharded, whose increment is inlined on the head's
 * copies of its slot pointer and thread count; SC_HEAD_PERCPU_ for PerCPU and
 * PerCPUGroup, whose restartable-sequence add (sc_rseq.h) is inlined on the
 * head's copies of the counter's per-CPU array and needs no context). For
 * FetchAdd, Morris and Scalable (Ayers's runtime, rng=xorshift; rng=mix
 * takes the call), mode is SC_HEAD_CALL_ and
 * op (added last, so code built before it, which never reads it, still
 * takes the call through inc, valid for every counter) says that the
 * increment is inlined: FetchAdd's atomic add on obj (no context), Morris's
 * and Scalable's draw and update on obj and cfg with the thread's context;
 * for Sharded op says so too (SC_HEAD_OP_SHARDED_), though the inlined
 * increment finds Sharded by sharded_cfg.threads, as code built before op
 * does; for PerCPU and PerCPUGroup whose array is one line per CPU and
 * indexed by a restartable sequence, op names the sequence's id
 * (SC_HEAD_OP_PERCPU_CPU_ID_ or _MM_CID_, from percpu_index), so that the
 * add needs no test of the index. sc_counter_tls_ is the
 * calling thread's context, made by the library on the thread's first call
 * (ready = 1 from then on; until then, and again once its exit destructor
 * has begun, ready = 0 and ctx.index = UINT32_MAX), in initial-exec TLS: the
 * inlined code reads it with one load relative to the thread pointer, no call.
 * sc_counter_context_ is the slow path: it makes the context, refreshes the
 * node, or hands out the seeded stream.
 */
enum {
	SC_HEAD_CALL_ = 0,    /* the thread's own context, one indirect call */
	SC_HEAD_SHARDED_ = 1, /* the same, and Sharded's increment inlined whole (no call) */
	SC_HEAD_SLOW_ = 2,    /* the context from sc_counter_context_ (node, seeded stream) */
	SC_HEAD_PERCPU_ = 4   /* no context: the per-CPU add inlined (PerCPU, PerCPUGroup) */
};

enum {
	SC_HEAD_OP_CALL_ = 0, /* inc, through the pointer */
	SC_HEAD_OP_FETCHADD_ = 1, /* sc_fetchadd_inc on obj inlined (FetchAdd) */
	SC_HEAD_OP_MORRIS_ = 2, /* sc_morris_inc on obj, cfg inlined (Morris) */
	SC_HEAD_OP_SCALABLE_ = 3, /* Ayers's sc_scalable_inc on obj, cfg inlined (Scalable) */
	SC_HEAD_OP_SHARDED_ = 4, /* sc_sharded_inc on the head's copies inlined (Sharded) */
	SC_HEAD_OP_PERCPU_CPU_ID_ = 5, /* the restartable sequence on the head's copies of a */
	SC_HEAD_OP_PERCPU_MM_CID_ = 6 /* per-CPU array, one line per CPU: by cpu_id, by mm_cid */
};

typedef struct sc_counter_head_ {
	void (*inc)(void *obj, const void *cfg, sc_thread *t);
	void (*add)(void *obj, const void *cfg, sc_thread *t, uint64_t n);
	void *obj;
	const void *cfg;
	uint32_t mode;             /* SC_HEAD_*_ */
	/* SC_HEAD_SHARDED_: copies of the counter's (read-only after init), one
	 * load each from here; sharded_cfg.threads is 0 for every other mode */
	sc_sharded_cfg sharded_cfg;
	sc_sharded_t sharded;
	/* SC_HEAD_PERCPU_: the counter's per-CPU array, NULL for every other mode */
	unsigned char *percpu_slot0;
	size_t percpu_stride;        /* (sc_percpu_add_ix's slot0, stride, slots, */
	uint32_t percpu_slots;       /* index), read-only after init */
	uint64_t percpu_index;
	/* SC_HEAD_OP_*_, read-only after init; SC_HEAD_OP_CALL_ for every mode
	 * but SC_HEAD_CALL_, SC_HEAD_SHARDED_ and SC_HEAD_PERCPU_ */
	uint32_t op;
} sc_counter_head_;

typedef struct sc_counter_tls_t_ {
	sc_thread ctx;
	uint32_t ready;
} sc_counter_tls_t_;

sc_thread *sc_counter_context_(const sc_counter *c);


#if defined(__GNUC__) && !defined(_WIN32)
#define SC_COUNTER_HAVE_TLS_ 1
extern __thread sc_counter_tls_t_ sc_counter_tls_ __attribute__((tls_model("initial-exec")));
#endif

#if defined(SC_COUNTER_HAVE_TLS_) && !defined(SC_COUNTER_NO_INLINE)

/*
 * The calling thread's context for an increment in mode SC_HEAD_CALL_ or
 * SC_HEAD_SLOW_ (or a Sharded counter whose fast path did not apply): its
 * own once made (ready) in the first, the library's otherwise. One test on
 * the common path: ready is 0 or 1, and mode is 0 only for SC_HEAD_CALL_.
 */
SC_ALWAYS_INLINE sc_thread *sc_counter_ctx_(sc_counter_tls_t_ *self, uint32_t mode,
                                         const sc_counter *c)
{
	if (__builtin_expect(((self->ready ^ 1u) | mode) == 0, 1))
		return &self->ctx;
	return sc_counter_context_(c);
}

/*
 * The tests, in order, reuse what the increment loads anyway. First
 * Sharded's: sharded_cfg.threads is 0 but for Sharded, and the thread's
 * index is UINT32_MAX until its context is made (and again once its exit
 * destructor began), so "index < threads", the bound the inlined
 * sc_sharded_inc needs anyway, also says that the counter is Sharded and
 * that the thread has its context; Sharded's handle increment is then the
 * inlined one, to the instruction. A Sharded thread that fails it (no
 * context yet, or an index beyond the slots) reaches the call at the end,
 * whose mode SC_HEAD_SHARDED_ makes the library give the context, and the
 * variant's own increment takes the shared overflow slot.
 *
 * Then op. The per-CPU add's two ops come first, laid out as the path that
 * falls through: with them behind the other ops, or found by percpu_slot0
 * and then the index's bits, the per-CPU handle increment cost 1.2x to
 * 1.9x its inlined one, varying with the loop's alignment. The ops of
 * FetchAdd, Morris and Scalable are set only in mode SC_HEAD_CALL_, so the
 * context Morris and Scalable get is the thread's own, the one the call
 * would be given: they use only its generator (rng), which is never 0 once
 * the library made the context and 0 before (after the thread's exit
 * destructor, rng stays the thread's own stream). The state is loaded once
 * and handed to the draw. Scalable tests it for 0 first; Morris does not
 * (sc_morris_inc_rng_: a state of 0 draws 0, never passes the threshold and
 * comes back from the update's path, so the common path has one branch
 * fewer). A test of ready, the word after the context, made some cores
 * forward rng's store to its next load slowly.
 *
 * Last, percpu_slot0, non-NULL only for PerCPU and PerCPUGroup: an array
 * whose stride is not one line, a head filled by a library older than the
 * per-CPU ops, and code built where the sequence is not inlined
 * (SC_RSEQ_INLINE 0) add by sc_percpu_add_ix. The rest, and an op value
 * this header does not know (one a later library may set), take the call,
 * valid for every counter. Each test ahead of a path costs that path a
 * compare and a branch; which order is cheapest moves with the loop's
 * layout (make bench reports the handle's cost per loop alignment; NEWS
 * has the measurements behind this order).
 *
 * The empty asm hides where me points, so the compiler computes the thread's
 * context address once, out of a loop of increments, rather than again
 * (a GOT load and the thread pointer) at every Sharded increment: with it,
 * a loop of handle increments makes the loads of the inlined sc_sharded_inc
 * (make bench reports handle over inline per variant).
 */
SC_ALWAYS_INLINE void sc_counter_inc(sc_counter *c)
{
	const sc_counter_head_ *h = (const sc_counter_head_ *)(const void *)c;
	sc_thread *me = &sc_counter_tls_.ctx;
	__asm__("" : "+r"(me));
	if (__builtin_expect(me->index < h->sharded_cfg.threads, 1)) {
		sc_sharded_inc((sc_sharded_t *)&h->sharded, &h->sharded_cfg, me);
		return;
	}
	uint32_t op = h->op;
#if SC_RSEQ_INLINE
	if (__builtin_expect(op == SC_HEAD_OP_PERCPU_CPU_ID_ || op == SC_HEAD_OP_PERCPU_MM_CID_,
	                     1)) {
		sc_rseq_add_area_(sc_rseq_area_(h->percpu_index), op == SC_HEAD_OP_PERCPU_CPU_ID_,
		                  h->percpu_slot0, SC_LINE_SIZE, h->percpu_slots, 1);
		return;
	}
#endif
	if (op == SC_HEAD_OP_FETCHADD_) {
		sc_fetchadd_inc((sc_fetchadd_t *)h->obj, (const sc_fetchadd_cfg *)h->cfg, me);
		return;
	}
	if (op == SC_HEAD_OP_MORRIS_) {
		/* a thread without a context (rng 0) comes back true, nothing counted */
		if (__builtin_expect(sc_morris_inc_rng_((sc_morris_t *)h->obj,
		                                        (const sc_morris_cfg *)h->cfg, me, me->rng),
		                     0))
			h->inc(h->obj, h->cfg, sc_counter_context_(c));
		return;
	}
	if (op == SC_HEAD_OP_SCALABLE_) {
		uint32_t rng = me->rng;
		if (__builtin_expect(rng == 0, 0)) {
			h->inc(h->obj, h->cfg, sc_counter_context_(c));
			return;
		}
		sc_scalable_ayers_inc_rng_((sc_scalable_t *)h->obj, (const sc_scalable_cfg *)h->cfg, me,
		                           rng);
		return;
	}
	if (h->percpu_slot0) {
		sc_percpu_add_ix(h->percpu_slot0, h->percpu_stride, h->percpu_slots, h->percpu_index, 1);
		return;
	}
	h->inc(h->obj, h->cfg, sc_counter_ctx_(&sc_counter_tls_, h->mode, c));
}

SC_ALWAYS_INLINE void sc_counter_add(sc_counter *c, uint64_t n)
{
	const sc_counter_head_ *h = (const sc_counter_head_ *)(const void *)c;
	if (h->percpu_slot0) {
		sc_percpu_add_ix(h->percpu_slot0, h->percpu_stride, h->percpu_slots, h->percpu_index, n);
		return;
	}
	/* Sharded's add goes through the call with the thread's own context */
	uint32_t mode = h->mode & ~(uint32_t)SC_HEAD_SHARDED_;
	h->add(h->obj, h->cfg, sc_counter_ctx_(&sc_counter_tls_, mode, c), n);
}
#endif

#endif /* SC_COUNTER_H, SC_COUNTER_HEAD_H */
