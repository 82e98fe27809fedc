/* SPDX-License-Identifier: MIT */
/*
 * sc_rseq.h - the per-CPU add that PerCPU (sc_distributed.h) and the packed
 * per-CPU counter groups (sc_group.h) share: add v to the calling CPU's word
 * of a per-CPU array, exactly, at the cost of a plain add.
 *
 * The array. slots + 1 64-bit words, word k at slot0 + k * stride (stride a
 * multiple of 8): words 0 .. slots-1 belong to CPUs, word `slots` is the
 * overflow word. A reader sums all slots + 1 words (relaxed loads) modulo
 * 2^64; every word only grows (modulo 2^64) between resets.
 *
 * The three paths. The process takes one, chosen once, before its first
 * per-CPU add (sc_percpu_path names it), and never changes it: two paths
 * writing one word at once would lose updates.
 *
 *  - "rseq-mm_cid", "rseq-cpu_id" (x86-64 and little-endian aarch64 with
 *    glibc >= 2.35, which registers a restartable-sequence area for every
 *    thread): the add is a restartable sequence. It stores the address of
 *    its descriptor in the area's rseq_cs field, reads the thread's id from
 *    the area and adds v to that id's word with plain, unlocked
 *    instructions whose last (the store, or x86's add to memory) commits.
 *    If the thread is preempted, migrated or interrupted by a signal
 *    before the add, the kernel sends it to the abort handler, which starts
 *    over, so the add only ever lands on the word of the id the thread held
 *    without interruption: that word has no other writer at that moment,
 *    and no increment is lost or doubled. The id is the area's mm_cid (a
 *    concurrency id dense in 0 .. min(threads, allowed CPUs) - 1, Linux
 *    >= 6.3: few threads use few words, whatever CPUs they run on) where the
 *    kernel provides it, else cpu_id. A thread whose area is not registered,
 *    or whose id is >= slots (a smaller slot count than CPUs, or a CPU
 *    brought online later), adds to the overflow word with an atomic
 *    fetch-and-add instead: also exact.
 *  - "lock": everywhere else (glibc.pthread.rseq=0, glibc < 2.35, another C
 *    library, another architecture, qemu-user, valgrind): an atomic
 *    fetch-and-add on the word of sched_getcpu() modulo slots: exact, but
 *    a locked instruction, and a call.
 *
 * The environment variable SCOUNTERS_PERCPU, read once when the path is
 * chosen, overrides the choice for tests and comparisons: "lock" forces the
 * locked path; "cpu_id" indexes the restartable sequence by cpu_id even
 * where mm_cid exists; anything else (or unset) takes the best available.
 *
 * A program compiled with SC_NO_RSEQ defined, or by a compiler without
 * asm goto and __builtin_thread_pointer, calls the library for every add
 * (sc_percpu_add_slow), which takes the process's path: the inlined and the
 * library's adds never disagree on a word.
 */
#ifndef SC_RSEQ_H
#define SC_RSEQ_H

#include "sc_common.h"

#if !defined(SC_NO_RSEQ) && (defined(__x86_64__) || (defined(__aarch64__) && !defined(__AARCH64EB__))) && \
	defined(__GLIBC__) && defined(__has_include) &&                                          \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#if __has_include(<sys/rseq.h>) && defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer) && (defined(__clang__) || __GNUC__ >= 11)
#include <sys/rseq.h>
#define SC_RSEQ_INLINE 1
#endif
#endif
#endif
#ifndef SC_RSEQ_INLINE
#define SC_RSEQ_INLINE 0
#endif

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * The process's path, for the inlined add (library-internal; read it with
 * sc_percpu_path). 0 until chosen. Bit 63: the restartable sequence; then
 * bits 32-39 hold the byte offset of the id in the rseq area (4: cpu_id,
 * 24: mm_cid) and bits 0-31 the area's offset from the thread pointer
 * (glibc's __rseq_offset, as a 32-bit two's complement). Bit 62 alone:
 * the locked path. Written once, by whichever thread chooses first (every
 * thread chooses the same), with a compare-and-swap.
 */
extern SC_ATOMIC(uint64_t) sc_rseq_where_;
#define SC_RSEQ_ON_ (UINT64_C(1) << 63)
#define SC_RSEQ_LOCK_ (UINT64_C(1) << 62)

/*
 * The add when the inlined restartable sequence is not taken: chooses the
 * path on first use, then adds v to the calling CPU's word by it (the
 * contract of sc_percpu_add_at). Thread-safe; never fails.
 */
void sc_percpu_add_slow(unsigned char *slot0, size_t stride, uint32_t slots, uint64_t v);

/*
 * The path per-CPU adds take in this process: "rseq-mm_cid", "rseq-cpu_id"
 * or "lock" (see above). Chooses it if no add has yet; static storage.
 * Thread-safe; never fails.
 */
const char *sc_percpu_path(void);

/*
 * The start (label 0) and the descriptor (label 3, in section __rseq_cs:
 * version 0, flags 0, start_ip 1, post_commit_offset 2 - 1, abort_ip 4) of
 * the sequence below, the same on every architecture.
 */
#define SC_RSEQ_DESCRIPTOR_                                                                \
	"0:\n\t"                                                                           \
	".pushsection __rseq_cs, \"aw\"\n\t"                                               \
	".balign 32\n\t"                                                                   \
	"3:\n\t"                                                                           \
	".long 0x0, 0x0\n\t"                                                               \
	".quad 1f, 2f - 1f, 4f\n\t"                                                        \
	".popsection\n\t"

/*
 * Add v to the calling CPU's word of the array at slot0 (slots >= 1 CPU
 * words at stride bytes, a multiple of 8, then the overflow word; see
 * above). Exact under preemption, migration, signals (a signal handler may
 * add too) and any number of threads. Thread-safe with every other add
 * and with relaxed loads of the words; never fails.
 */
SC_ALWAYS_INLINE void sc_percpu_add_at(unsigned char *slot0, size_t stride, uint32_t slots,
                                       uint64_t v)
{
#if SC_RSEQ_INLINE
	/*
	 * relaxed: the word is written once, and a thread that reads 0 (not
	 * chosen yet) takes the library's path, which chooses with a CAS; the
	 * value is the same whoever chooses, and it orders nothing else.
	 */
	uint64_t where = atomic_load_explicit(&sc_rseq_where_, memory_order_relaxed);
	if (__builtin_expect((where & SC_RSEQ_ON_) != 0, 1)) {
		unsigned char *area =
			(unsigned char *)__builtin_thread_pointer() + (int32_t)(uint32_t)where;
		const unsigned char *id = area + ((where >> 32) & 0xff);
		/*
		 * The restartable sequence (linux/rseq.h): label 3 is the
		 * descriptor (version 0, flags 0, start 1, length to the commit's
		 * end 2, abort 4), 32-byte aligned as the ABI asks. The abort
		 * handler is preceded by glibc's signature, RSEQ_SIG (x86-64:
		 * inside a ud1 instruction, as Linux's selftests place it;
		 * aarch64: the brk #0x45e0 instruction itself), and jumps back to
		 * 0, which re-arms the descriptor (the kernel clears rseq_cs when
		 * it aborts). Between 1 and 2: cpu_id's sign bit set means this
		 * thread's area is not registered (glibc's "uninitialised" or
		 * "registration failed" marks): overflow; then the id (cpu_id or
		 * mm_cid), overflow when >= slots; then the id's word gets v: one
		 * plain add to memory (x86-64), or a load, an add and the store
		 * that commits (aarch64). The word is read concurrently by sums
		 * with atomic loads: an aligned 8-byte store is single-copy
		 * atomic on both, so they see the old or the new value. No
		 * barrier: the kernel reads rseq_cs on the thread's own CPU.
		 * "memory": the add writes the array and the area.
		 */
#if defined(__x86_64__)
		__asm__ goto(SC_RSEQ_DESCRIPTOR_
		             "leaq 3b(%%rip), %%rax\n\t"
		             "movq %%rax, 8(%[area])\n\t"
		             "1:\n\t"
		             "movl 4(%[area]), %%eax\n\t"
		             "testl %%eax, %%eax\n\t"
		             "js %l[overflow]\n\t"
		             "movl (%[id]), %%eax\n\t"
		             "cmpl %[slots], %%eax\n\t"
		             "jae %l[overflow]\n\t"
		             "imulq %[stride], %%rax\n\t"
		             "addq %[v], (%[slot0], %%rax)\n\t"
		             "2:\n\t"
		             ".pushsection __rseq_failure, \"ax\"\n\t"
		             ".byte 0x0f, 0xb9, 0x3d\n\t"
		             ".long 0x53053053\n\t"
		             "4:\n\t"
		             "jmp 0b\n\t"
		             ".popsection\n\t"
		             :
		             : [area] "r"(area), [id] "r"(id), [slots] "r"(slots),
		               [stride] "r"(stride), [slot0] "r"(slot0), [v] "er"(v)
		             : "rax", "memory", "cc"
		             : overflow);
#else
		__asm__ goto(SC_RSEQ_DESCRIPTOR_
		             "adrp x9, 3b\n\t"
		             "add x9, x9, :lo12:3b\n\t"
		             "str x9, [%[area], #8]\n\t"
		             "1:\n\t"
		             "ldr w9, [%[area], #4]\n\t"
		             "tbnz w9, #31, %l[overflow]\n\t"
		             "ldr w9, [%[id]]\n\t"
		             "cmp w9, %w[slots]\n\t"
		             "b.hs %l[overflow]\n\t"
		             "madd x9, x9, %[stride], %[slot0]\n\t"
		             "ldr x10, [x9]\n\t"
		             "add x10, x10, %[v]\n\t"
		             "str x10, [x9]\n\t"
		             "2:\n\t"
		             ".pushsection __rseq_failure, \"ax\"\n\t"
		             ".inst 0xd428bc00\n\t"
		             "4:\n\t"
		             "b 0b\n\t"
		             ".popsection\n\t"
		             :
		             : [area] "r"(area), [id] "r"(id), [slots] "r"(slots),
		               [stride] "r"(stride), [slot0] "r"(slot0), [v] "r"(v)
		             : "x9", "x10", "memory", "cc"
		             : overflow);
#endif
		return;
	overflow:
		/* relaxed: the overflow word's adds are atomic whatever the order. */
		atomic_fetch_add_explicit((SC_ATOMIC(uint64_t) *)(void *)(slot0 + (size_t)slots * stride),
		                          v, memory_order_relaxed);
		return;
	}
#endif
	sc_percpu_add_slow(slot0, stride, slots, v);
}

/*
 * Plugins and unloading. A restartable sequence leaves the thread's rseq
 * area pointing at its descriptor (rseq_cs) after it ends; the kernel reads
 * that descriptor at the thread's next preemption, migration or signal,
 * and kills the thread (SIGSEGV) if the memory holding it is no longer
 * mapped. Every inlined per-CPU add (sc_percpu_add_at, so sc_counter_inc
 * and sc_counter_add of a PerCPU or PerCPUGroup counter, sc_pcgroup_inc and
 * _add, sc_percpu_inc and _add) puts its descriptor in the object it was
 * compiled into. Rule: before a shared object that inlined such an add is
 * unloaded (dlclose), every thread that ran one of its adds and will live
 * on calls sc_rseq_prepare_unload() after its last add from that object
 * (a thread that exits first need not). The library's own sequences
 * (sc_group_inc, the handle's calls into it) point into libscounters,
 * which is linked with -z nodelete and stays mapped once loaded.
 *
 * sc_rseq_prepare_unload clears the calling thread's rseq_cs. Cheap (one
 * store), never fails, async-signal-safe; a no-op where no area is
 * registered or the adds take the locked path.
 */
void sc_rseq_prepare_unload(void);

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_RSEQ_H */
