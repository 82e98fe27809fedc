/* SPDX-License-Identifier: MIT */
/*
 * sc_rseq_prim.h - the primitives of sc_rseq.h: the inline functions (and
 * one statement, PerCPUTree's) that wrap the architecture's restartable
 * sequences (sc_rseq_<arch>.h, chosen by sc_rseq.h) for the per-CPU adds
 * and PerCPUTree's add, and each object's constructor that hands its
 * descriptor slots to the library.
 * Not for programs: sc_rseq.h includes it where SC_RSEQ_INLINE is 1, after
 * the choice of architecture and descriptor; included alone, it includes
 * sc_rseq.h, which includes it there. Nothing here is part of the API.
 */
#ifndef SC_RSEQ_H
#include "sc_rseq.h"
#elif !defined(SC_RSEQ_PRIM_H) && SC_RSEQ_INLINE
#define SC_RSEQ_PRIM_H
/*
 * Every object (program or shared object) that compiles a sequence has the
 * section; the linker names its bounds. Weak and hidden: each object finds
 * its own, and an object with no sequence finds none (both NULL).
 */
extern void *__start___sc_rseq_slots[] __attribute__((weak, visibility("hidden")));
extern void *__stop___sc_rseq_slots[] __attribute__((weak, visibility("hidden")));

/* Each translation unit's copy of the constructor; the first one of an object does the work. */
__attribute__((constructor, used)) static void sc_rseq_intern_object_(void)
{
	void **first = __start___sc_rseq_slots, **last = __stop___sc_rseq_slots;
	if (first != last)
		sc_rseq_intern_(first, last);
}

/* log2 of SC_LINE_SIZE (a power of two): a stride of one line is a shift */
#define SC_RSEQ_LINE_SHIFT_ __builtin_ctz(SC_LINE_SIZE)

/*
 * The restartable sequence (linux/rseq.h), in the architecture's header:
 * label 3 is the descriptor (version 0, flags 0, start 1, length to the
 * commit's end 2, abort 4). The abort handler is preceded by glibc's
 * signature, RSEQ_SIG, and jumps back to 0, which re-arms the descriptor
 * (the kernel clears rseq_cs when it aborts). Between 1 and 2, the id's
 * check (CHECK), the id times the stride (SCALE), and the id's word gets
 * v: one plain add to memory, or a load, an add and the store that commits.
 * The word is read concurrently by sums with atomic loads: an aligned
 * 8-byte store is single-copy atomic on the architectures supported, so
 * they see the old or the new value. No barrier: the kernel reads rseq_cs
 * on the thread's own CPU. "memory": the add writes the array and the area.
 *
 * The checks. cpu_id: one unsigned compare with slots, which also sends
 * the negative ids of an area that is not registered (glibc's
 * "uninitialised" -1 and "registration failed" -2) to the overflow word.
 * mm_cid: an unregistered area reads mm_cid 0, so cpu_id's sign is tested
 * first, then mm_cid against slots.
 */

/*
 * sc_rseq_add_<id>_<scale>_: the sequence on a registered-or-not area, the
 * id read by CHECK, the stride as a shift of one line (line) or a multiply
 * (mul). 0 when the add landed on the id's word; 1 when the id was out of
 * range (the caller adds to the overflow word).
 */
#define SC_RSEQ_DEFINE_(NAME, CHECK, SCALE, SCALE_C)                                       \
	SC_ALWAYS_INLINE int NAME(unsigned char *area, unsigned char *slot0, size_t stride,     \
	                          uint32_t slots, uint64_t v)                                  \
	{                                                                                      \
		(void)stride;                                                                  \
		__asm__ goto(SC_RSEQ_SEQ_(CHECK, SCALE)                                        \
		             :                                                                 \
		             : [area] "r"(area), [slots] "r"(slots), [scale] SCALE_C,          \
		               [slot0] "r"(slot0), [v] SC_RSEQ_V_(v)                           \
		             : SC_RSEQ_CLOBBER_, "memory", "cc"                                \
		             : overflow);                                                      \
		return 0;                                                                      \
	overflow:                                                                              \
		return 1;                                                                      \
	}
SC_RSEQ_DEFINE_(sc_rseq_add_cpu_id_line_, SC_RSEQ_CHECK_CPU_ID_, SC_RSEQ_SHIFT_,
                "i"(SC_RSEQ_LINE_SHIFT_))
SC_RSEQ_DEFINE_(sc_rseq_add_mm_cid_line_, SC_RSEQ_CHECK_MM_CID_, SC_RSEQ_SHIFT_,
                "i"(SC_RSEQ_LINE_SHIFT_))
SC_RSEQ_DEFINE_(sc_rseq_add_cpu_id_mul_, SC_RSEQ_CHECK_CPU_ID_, SC_RSEQ_MUL_, "r"(stride))
SC_RSEQ_DEFINE_(sc_rseq_add_mm_cid_mul_, SC_RSEQ_CHECK_MM_CID_, SC_RSEQ_MUL_, "r"(stride))
#undef SC_RSEQ_DEFINE_

/*
 * sc_rseq_add_at_: the sequence for an id known in advance (a cursor's,
 * sc_rseq.h): cs is the area's rseq_cs field, idp its id field (cpu_id or
 * mm_cid); v lands on word, that id's word, if the id field still reads id,
 * with no scaling and no range test (the caller checked id < slots when it
 * computed word). 0 when it landed; 1 when the thread's id is another
 * (migrated, or an area the kernel does not know: the caller finds the id
 * anew). word's address is the caller's, so a loop of adds that keeps it
 * in a register adds to one base address as a thread-private counter does:
 * some cores forward such a store to the next load with no latency, but
 * not a store to an address computed from an id loaded in the sequence.
 */
SC_ALWAYS_INLINE int sc_rseq_add_at_(unsigned char *cs, unsigned char *idp, unsigned char *word,
                                     uint32_t id, uint64_t v)
{
	__asm__ goto(SC_RSEQ_AT_SEQ_
	             :
	             : [cs] "r"(cs), [idp] "r"(idp), [word] "r"(word), [id] "r"(id),
	               [v] SC_RSEQ_V_(v)
	             : SC_RSEQ_AT_CLOBBER_, "memory", "cc"
	             : miss);
	return 0;
miss:
	return 1;
}

/*
 * SC_RSEQ_FETCH_ADD_CPU_ID_LINE_(AREA, SLOT0, SLOTS, V, OFF, OLD, NOW, OUT):
 * the sequence that hands back the word's values (PerCPUTree's add,
 * sc_tree.h), on an array of SLOTS words one line apart at SLOT0. It adds
 * V to the word of AREA's cpu_id with one load of the word into OLD and
 * the store of NOW = OLD + V, which commits, and sets OFF to the word's
 * byte offset (cpu_id * SC_LINE_SIZE). The word has no other writer while
 * the thread holds the id without interruption, so OLD is its previous
 * value. A cpu_id that is negative (an unregistered area) or >= SLOTS
 * writes nothing and jumps to the caller's label OUT, with OFF, OLD and
 * NOW unset. OFF, OLD and NOW are uint64_t lvalues. A statement, not a
 * function: a function's "out of range" result, tested by its caller,
 * costs the tree's add register moves that the label does not (gcc 12).
 */
#define SC_RSEQ_FETCH_ADD_CPU_ID_LINE_(AREA, SLOT0, SLOTS, V, OFF, OLD, NOW, OUT)            \
	__asm__ goto(SC_RSEQ_FETCH_ADD_SEQ_                                                \
	             : [off] "=&r"(OFF), [old] "=&r"(OLD), [now] "=&r"(NOW)                \
	             : [area] "r"(AREA), [slots] "r"(SLOTS), [slot0] "r"(SLOT0), [v] "r"(V), \
	               [scale] "i"(SC_RSEQ_LINE_SHIFT_)                                    \
	             : SC_RSEQ_ARM_CLOBBER_, "memory", "cc"                                \
	             : OUT)

/*
 * The add on the area of the calling thread, by the index's id: the
 * stride a shift when the compiler sees it is one line, else a multiply;
 * an id out of range adds to the overflow word (relaxed: the overflow
 * word's adds are atomic whatever the order).
 */
#ifndef SC_RSEQ_KIND_
#define SC_RSEQ_KIND_(cpu_id) (cpu_id) /* harness/mca_loops.c states the likely kind */
#endif
SC_ALWAYS_INLINE void sc_rseq_add_area_(unsigned char *area, int cpu_id, unsigned char *slot0,
                                        size_t stride, uint32_t slots, uint64_t v)
{
	int out;
	if (__builtin_constant_p(stride) && stride == SC_LINE_SIZE)
		out = SC_RSEQ_KIND_(cpu_id) ? sc_rseq_add_cpu_id_line_(area, slot0, stride, slots, v)
		             : sc_rseq_add_mm_cid_line_(area, slot0, stride, slots, v);
	else
		out = SC_RSEQ_KIND_(cpu_id) ? sc_rseq_add_cpu_id_mul_(area, slot0, stride, slots, v)
		             : sc_rseq_add_mm_cid_mul_(area, slot0, stride, slots, v);
	if (__builtin_expect(out, 0))
		atomic_fetch_add_explicit((SC_ATOMIC(uint64_t) *)(void *)(slot0 + (size_t)slots * stride),
		                          v, memory_order_relaxed);
}

/* The calling thread's rseq area, by an index or path word with bit 63 set. */
SC_ALWAYS_INLINE unsigned char *sc_rseq_area_(uint64_t index)
{
	return (unsigned char *)__builtin_thread_pointer() + (int32_t)(uint32_t)index;
}

#endif /* SC_RSEQ_PRIM_H */
