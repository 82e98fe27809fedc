/* SPDX-License-Identifier: MIT */
/*
 * rseq.c - the per-CPU add's path (sc_rseq.h): chosen once per process,
 * and the add for callers that do not inline the restartable sequence.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include <scounters/sc_rseq.h>

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

SC_ATOMIC(uint64_t) sc_rseq_where_;

#if SC_RSEQ_INLINE
SC_STATIC_ASSERT(RSEQ_SIG == SC_RSEQ_SIG_,
                 "the abort signature of sc_rseq_" SC_RSEQ_ARCH_ ".h is glibc's RSEQ_SIG");
#define AUX_RSEQ_FEATURE_SIZE 27 /* AT_RSEQ_FEATURE_SIZE (Linux 6.3) */
#define RSEQ_CPU_ID_OFFSET 4
#define RSEQ_MM_CID_OFFSET 24
#define RSEQ_MM_CID_END 28 /* the kernel fills mm_cid when its feature size reaches this */
#endif

/* The path this process takes (sc_rseq.h); the same in every thread that asks. */
static uint64_t choose(void)
{
	const char *want = getenv("SCOUNTERS_PERCPU");
	if (want && strcmp(want, "lock") == 0)
		return SC_RSEQ_LOCK_;
#if SC_RSEQ_INLINE
	/*
	 * glibc sets __rseq_size once, before main and before any thread, to
	 * 0 when it registered no area (glibc.pthread.rseq=0, or the kernel
	 * refused: qemu-user, valgrind); every thread it starts then has none.
	 */
	if (__rseq_size == 0 || __rseq_offset < INT32_MIN || __rseq_offset > INT32_MAX)
		return SC_RSEQ_LOCK_;
	uint64_t id = RSEQ_CPU_ID_OFFSET;
	if (!(want && strcmp(want, "cpu_id") == 0) &&
	    getauxval(AUX_RSEQ_FEATURE_SIZE) >= RSEQ_MM_CID_END)
		id = RSEQ_MM_CID_OFFSET;
	return SC_RSEQ_ON_ | id << 32 | (uint32_t)(int32_t)__rseq_offset;
#else
	return SC_RSEQ_LOCK_;
#endif
}

/* The path, chosen by the first caller (the first add, or sc_percpu_path). */
static uint64_t where(void)
{
	/* relaxed: see sc_percpu_add_at; the value carries its own meaning. */
	uint64_t w = atomic_load_explicit(&sc_rseq_where_, memory_order_relaxed);
	if (w)
		return w;
	uint64_t mine = choose(), none = 0;
	/* relaxed: every chooser computes the same value; the first store wins. */
	if (atomic_compare_exchange_strong_explicit(&sc_rseq_where_, &none, mine,
	                                            memory_order_relaxed, memory_order_relaxed))
		return mine;
	return none; /* the winner's value */
}

/*
 * No constructor chooses before main: the first add does (one call through
 * sc_percpu_add_slow). A constructor's atomic would run before a program
 * could check its CPU, as scbench does for an aarch64 build whose inlined
 * LSE atomics the CPU lacks, and die of SIGILL instead.
 */

void sc_percpu_add_slow(unsigned char *slot0, size_t stride, uint32_t slots, uint64_t v)
{
	uint64_t w = where();
#if SC_RSEQ_INLINE
	if (w & SC_RSEQ_ON_) {
		sc_percpu_add_at(slot0, stride, slots, v); /* now takes the sequence */
		return;
	}
#endif
	(void)w;
	uint32_t cpu = (uint32_t)sched_getcpu(); /* -1 (failure) is folded in like any id */
	SC_ATOMIC(uint64_t) *word = (SC_ATOMIC(uint64_t) *)(void *)(slot0 + (size_t)(cpu % slots) * stride);
	/* relaxed: the add is atomic whatever the order, and publishes nothing else. */
	atomic_fetch_add_explicit(word, v, memory_order_relaxed);
}

#if SC_RSEQ_INLINE
/* The area's 32-bit field at p (cpu_id, mm_cid), as the kernel last wrote it. */
static uint32_t area_field(const unsigned char *p)
{
	/*
	 * relaxed: the kernel writes the field for this thread only, between
	 * two of its instructions (at preemption, migration or signal); the
	 * thread sees its own kernel's writes in program order. The value read
	 * is only a guess: the sequence compares it again inside itself.
	 */
	return atomic_load_explicit((const SC_ATOMIC(uint32_t) *)(const void *)p,
	                            memory_order_relaxed);
}
#endif

/* The stand-in's id field stays 0; a cursor's id on the locked path stays SC_PERCPU_NO_ID_. */
static __thread _Alignas(16) unsigned char stand_in[16];

unsigned char *sc_percpu_stand_in_(void)
{
	return stand_in;
}

uint32_t sc_percpu_cursor_miss_(unsigned char *cs, unsigned char *idp, unsigned char *slot0,
                                size_t stride, uint32_t slots, uint64_t v)
{
#if SC_RSEQ_INLINE
	if (cs != stand_in) {
		unsigned char *area = cs - 8;
		/*
		 * Until the add lands on the id the thread holds when it reads it
		 * (a migration between the read and the sequence reads again). A
		 * negative cpu_id is an area the kernel does not know (glibc's -1
		 * and -2): its mm_cid reads 0 and must never be taken as an id.
		 */
		for (;;) {
			if ((int32_t)area_field(area + RSEQ_CPU_ID_OFFSET) < 0)
				break;
			uint32_t id = area_field(idp);
			if (id >= slots)
				break;
			if (!sc_rseq_add_at_(cs, idp, slot0 + (size_t)id * stride, id, v))
				return id;
		}
		/* relaxed: the overflow word's adds are atomic whatever the order */
		atomic_fetch_add_explicit((SC_ATOMIC(uint64_t) *)(void *)(slot0 + (size_t)slots * stride),
		                          v, memory_order_relaxed);
		return SC_PERCPU_NO_ID_;
	}
#else
	(void)cs;
	(void)idp;
#endif
	sc_percpu_add_slow(slot0, stride, slots, v);
	return SC_PERCPU_NO_ID_;
}

const char *sc_percpu_path(void)
{
	return sc_percpu_index_name(where());
}

uint64_t sc_percpu_index(unsigned how)
{
	uint64_t w = where();
	if (!(w & SC_RSEQ_ON_) || how == SC_PERCPU_PRIVATE)
		return w;
	/* shared: cpu_id, whatever the process's private arrays take */
	return (w & ~(UINT64_C(0xff) << 32)) | SC_RSEQ_CPU_ID_;
}

const char *sc_percpu_index_name(uint64_t index)
{
	if (!(index & SC_RSEQ_ON_))
		return "lock";
	return (index & (UINT64_C(0xff) << 32)) == SC_RSEQ_CPU_ID_ ? "rseq-cpu_id" : "rseq-mm_cid";
}

void sc_rseq_prepare_unload(void)
{
#if SC_RSEQ_INLINE
	/*
	 * glibc's area of the calling thread: struct rseq, whose rseq_cs (the
	 * descriptor of the sequence the thread last entered) is the 64-bit
	 * field at byte 8. Nothing registered (__rseq_size 0): the kernel reads
	 * no descriptor, and there is nothing to clear.
	 */
	if (__rseq_size == 0)
		return;
	unsigned char *area = (unsigned char *)__builtin_thread_pointer() + __rseq_offset;
	/*
	 * relaxed: the field has two users, this thread and the kernel acting
	 * for it (at its preemption or signal delivery, never concurrently with
	 * the thread's own code); the kernel sees the thread's own stores in
	 * program order, and the sequences store to the same field the same way.
	 */
	atomic_store_explicit((SC_ATOMIC(uint64_t) *)(void *)(area + 8), 0, memory_order_relaxed);
#endif
}
