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
 * The three paths. The process takes the restartable sequence or the
 * locked path, chosen once, before its first per-CPU add (sc_percpu_path
 * names it), and never changes it; each array is indexed by mm_cid or by
 * cpu_id, chosen when the array is made (sc_percpu_index: mm_cid for an
 * array private to the process, cpu_id for one in shared memory) and kept
 * with it. Two paths or two ids writing one word at once would lose
 * updates.
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
 *    kernel provides it and the array is private, else cpu_id (see
 *    sc_percpu_index). A thread whose area is not registered,
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
 * locked path; "cpu_id" indexes every array by cpu_id even where mm_cid
 * exists; anything else (or unset) takes the best available.
 *
 * The cost. On the restartable sequence an add by an array's index loads
 * the index, tests its kind, then runs: the descriptor's store, the id's
 * load and one unsigned compare with slots (cpu_id; mm_cid adds the test
 * of cpu_id's sign), the id times the stride (a shift when the compiler
 * sees a stride of one line, else a multiply) and the add. A loop that
 * takes the thread's cursor on the array first (sc_percpu_cursor_get)
 * runs only the descriptor's store, one compare of the area's id with the
 * id the cursor keeps, and the add to the word the cursor keeps (its
 * address in a register, which lets a core forward the add's store to the
 * next add's load as it does for a thread-private word).
 *
 * A program compiled with SC_NO_RSEQ defined, or by a compiler without
 * asm goto and __builtin_thread_pointer, calls the library for every add
 * (sc_percpu_add_slow), which takes the process's path: the inlined and the
 * library's adds never disagree on a word.
 */
#ifndef SC_RSEQ_H
#define SC_RSEQ_H

#include "sc_common.h"

/*
 * The architectures. The sequences' assembly is written once per
 * architecture, in its own header, each defining the same macros (the
 * text that sc_rseq_prim.h's primitives wrap; the labels 0 to 5 and the operand
 * names are theirs):
 *   SC_RSEQ_ARCH_           the architecture's name;
 *   SC_RSEQ_SIG_            glibc's RSEQ_SIG (rseq.c checks it), and
 *   SC_RSEQ_SIGNATURE_      the bytes that hold it before an abort address;
 *   SC_RSEQ_ABORT_          the abort handler (label 4), after the signature;
 *   SC_RSEQ_LOAD_OWN_,      the descriptor's own address, or its slot's value
 *   SC_RSEQ_LOAD_SLOTTED_   (label 5), into the register SC_RSEQ_ARM_CLOBBER_;
 *   SC_RSEQ_ARM_(CS)        the descriptor, SC_RSEQ_SLOT_ and SC_RSEQ_LOAD_
 *                           (chosen below), then the store in rseq_cs at CS;
 *   SC_RSEQ_SEQ_(CHECK, SCALE), SC_RSEQ_CHECK_CPU_ID_, SC_RSEQ_CHECK_MM_CID_,
 *   SC_RSEQ_SHIFT_, SC_RSEQ_MUL_, SC_RSEQ_V_, SC_RSEQ_CLOBBER_
 *                           the add by an index (sc_rseq_add_<id>_<scale>_);
 *   SC_RSEQ_AT_SEQ_, SC_RSEQ_AT_CLOBBER_
 *                           the add at an id known in advance (sc_rseq_add_at_);
 *   SC_RSEQ_FETCH_ADD_SEQ_  the fetch-and-add at cpu_id
 *                           (sc_rseq_fetch_add_cpu_id_line_);
 *   SC_RSEQ_TRAMPOLINE_(N)  the library's trampoline (rseq_intern.c).
 * Another architecture is one more such header, and its line below. On
 * every other, and without glibc >= 2.35's area, SC_RSEQ_INLINE is 0.
 */
#define SC_RSEQ_STR2_(x) #x
#define SC_RSEQ_STR_(x) SC_RSEQ_STR2_(x)
/*
 * Every architecture's sequence starts here (label 0) and has its
 * descriptor (label 3) in the kernel's section: version 0, flags 0,
 * start_ip 1, post_commit_offset 2 - 1, abort_ip 4, as 64-bit words on
 * every 64-bit architecture, 32-byte aligned as the ABI asks.
 */
#define SC_RSEQ_DESCRIPTOR_                  \
	"0:\n\t"                             \
	".pushsection __rseq_cs, \"aw\"\n\t" \
	".balign 32\n\t"                     \
	"3:\n\t"                             \
	".long 0x0, 0x0\n\t"                 \
	".quad 1f, 2f - 1f, 4f\n\t"          \
	".popsection\n\t"
#if !defined(SC_NO_RSEQ) && defined(__GLIBC__) && defined(__has_include) && \
	(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#if defined(__x86_64__)
#include "sc_rseq_x86_64.h"
#elif defined(__aarch64__) && !defined(__AARCH64EB__)
#include "sc_rseq_aarch64.h"
#endif
#if defined(SC_RSEQ_ARCH_) && __has_include(<sys/rseq.h>) && defined(__has_builtin)
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
 * thread chooses the same), with a compare-and-swap. An array's index
 * (sc_percpu_index) is a word of the same form.
 */
extern SC_ATOMIC(uint64_t) sc_rseq_where_;
#define SC_RSEQ_ON_ (UINT64_C(1) << 63)
#define SC_RSEQ_LOCK_ (UINT64_C(1) << 62)
#define SC_RSEQ_CPU_ID_ (UINT64_C(4) << 32) /* the id field of a word indexed by cpu_id */

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
 * How an array is indexed, fixed when the array is made (sc_percpu_index's
 * argument): SC_PERCPU_PRIVATE for an array that only this process writes
 * (mm_cid where the kernel provides it, else cpu_id), SC_PERCPU_SHARED for
 * an array in memory that other processes write too (MAP_SHARED): cpu_id,
 * the one id that no two processes hold at once. SCOUNTERS_PERCPU=cpu_id
 * makes every array cpu_id; =lock makes every array take the locked path.
 */
#define SC_PERCPU_PRIVATE 0u
#define SC_PERCPU_SHARED 1u

/*
 * The index of a new array made for `how` (SC_PERCPU_PRIVATE or
 * SC_PERCPU_SHARED; any other value is taken as SC_PERCPU_SHARED): the
 * opaque word that sc_percpu_add_ix and sc_percpu_cursor take. Chooses the
 * process's path if no add has yet. Every add to one array must pass the
 * same index (two ids on one word would lose updates); processes that share
 * an array must all take the restartable sequence or all the locked path.
 * Thread-safe; never fails.
 */
uint64_t sc_percpu_index(unsigned how);

/*
 * The name of an index: "rseq-mm_cid", "rseq-cpu_id" or "lock". Static
 * storage. Thread-safe; never fails.
 */
const char *sc_percpu_index_name(uint64_t index);

/*
 * Which descriptor a sequence arms, decided per translation unit from what
 * the compiler is building. Code that may end up in a shared object (built
 * -fPIC and not -fPIE) arms a copy the library keeps (the slot below): such
 * an object may be closed while its threads live on. Code built for a
 * program (-fPIE, or not position-independent) is never unloaded, and arms
 * its own descriptor: one load fewer per add. Defined before the headers,
 * SC_RSEQ_OWN_DESCRIPTOR takes the object's own descriptors anyway (a
 * shared object that is never closed, as libscounters itself, linked with
 * -z nodelete), and SC_RSEQ_SLOTTED takes the copies anyway (a -fPIE object
 * that is linked into a shared object after all).
 */
#if defined(SC_RSEQ_OWN_DESCRIPTOR) ||                                                    \
	(!defined(SC_RSEQ_SLOTTED) && (defined(__PIE__) || !defined(__PIC__)))
#define SC_RSEQ_OWN_ 1
#else
#define SC_RSEQ_OWN_ 0
#endif

/*
 * The descriptor's slot (label 5, in section __sc_rseq_slots): a pointer
 * (the sequences are inlined on 64-bit architectures only) to the
 * descriptor the sequence arms, which it loads into a register of its own
 * (SC_RSEQ_ARM_CLOBBER_), kept to the commit, and stores in the area's
 * rseq_cs. It starts as the descriptor's own address (label 3); the
 * object's constructor (sc_rseq_prim.h) replaces it, before the object's code can
 * run, by the address of a copy the library keeps for the rest of the
 * process (sc_rseq_intern_), so that a thread's rseq_cs never points into
 * an object that may be unloaded (see "Plugins and unloading"). The copy's
 * abort address is the library's trampoline, after glibc's signature (the
 * kernel reads the signature whenever it reads a descriptor): it jumps to
 * the address the copy keeps beside the descriptor, the sequence's own
 * abort handler, through the register that still holds the copy's address.
 */
#if !SC_RSEQ_OWN_
#define SC_RSEQ_SLOT_                                                                      \
	".pushsection __sc_rseq_slots, \"aw\"\n\t"                                          \
	".balign 8\n\t"                                                                    \
	"5:\n\t"                                                                           \
	".quad 3b\n\t"                                                                     \
	".popsection\n\t"
#define SC_RSEQ_LOAD_ SC_RSEQ_LOAD_SLOTTED_
#else
/* the object's own descriptors (SC_RSEQ_OWN_ above): no slot, no load */
#define SC_RSEQ_SLOT_ ""
#define SC_RSEQ_LOAD_ SC_RSEQ_LOAD_OWN_
#endif

/*
 * Not for programs: replaces each descriptor slot in [first, last) (the
 * section __sc_rseq_slots of one loaded object) by the address of the
 * library's copy of the descriptor it points to, made on the first call
 * for that descriptor's contents and never freed (a plugin loaded again at
 * the same address finds its copies). Called by each object's constructor
 * (sc_rseq_prim.h); a slot that already points at a copy is left as it is.
 * Thread-safe; never fails (without memory for a copy, the slot keeps the
 * object's own descriptor, as before this mechanism).
 */
void sc_rseq_intern_(void **first, void **last);

#if SC_RSEQ_INLINE
#include "sc_rseq_prim.h" /* the primitives over the architecture's sequences */
#endif

/*
 * Add v to the calling CPU's word of the array at slot0 (slots >= 1 CPU
 * words at stride bytes, a multiple of 8, then the overflow word; see
 * above), the array indexed by index (sc_percpu_index, taken when the
 * array was made). Exact under preemption, migration, signals (a signal
 * handler may add too) and any number of threads. Thread-safe with every
 * other add and with relaxed loads of the words; never fails.
 */
SC_ALWAYS_INLINE void sc_percpu_add_ix(unsigned char *slot0, size_t stride, uint32_t slots,
                                       uint64_t index, uint64_t v)
{
#if SC_RSEQ_INLINE
	if (__builtin_expect((index & SC_RSEQ_ON_) != 0, 1)) {
		sc_rseq_add_area_(sc_rseq_area_(index), (index & (UINT64_C(0xff) << 32)) == SC_RSEQ_CPU_ID_,
		                  slot0, stride, slots, v);
		return;
	}
#endif
	(void)index;
	sc_percpu_add_slow(slot0, stride, slots, v); /* the locked path */
}

/*
 * As sc_percpu_add_ix, indexed as the process's arrays made for
 * SC_PERCPU_PRIVATE are (the first call chooses the path).
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
		sc_rseq_add_area_(sc_rseq_area_(where), (where & (UINT64_C(0xff) << 32)) == SC_RSEQ_CPU_ID_,
		                  slot0, stride, slots, v);
		return;
	}
#endif
	sc_percpu_add_slow(slot0, stride, slots, v);
}

/*
 * A thread's cursor on one array: where the thread's area keeps the
 * sequence's descriptor and the id the array is indexed by, and the id the
 * thread held at its last add through the cursor with that id's word,
 * taken once for a loop of adds (sc_percpu_cursor_add). A cursor belongs
 * to the thread that made it (another thread's area is not its own: never
 * pass a cursor to another thread, or keep one across a thread's exit); it
 * may be kept for the thread's life and the array's, and the child of a
 * fork by that thread may go on using it (the child's thread has the same
 * area at the same address). Its fields are not for programs.
 */
typedef struct sc_percpu_cursor {
	unsigned char *cs;    /* the area's rseq_cs, or the thread's stand-in's */
	unsigned char *idp;   /* the area's id field (cpu_id or mm_cid), or the stand-in's */
	unsigned char *word;  /* id's word: slot0 + id * stride, slot0 while id is none */
	unsigned char *slot0; /* the array (sc_percpu_add_ix's slot0, stride, slots) */
	size_t stride;
	uint32_t slots;
	uint32_t id;          /* the id of the last add; SC_PERCPU_NO_ID_ before */
} sc_percpu_cursor;

/* No id: above every slot count, and never an area's cpu_id or mm_cid. */
#define SC_PERCPU_NO_ID_ UINT32_C(0x80000000)

/*
 * The calling thread's stand-in for an area, for a cursor of the locked
 * path: 16 bytes only that thread writes, whose id field (at byte 8) never
 * equals a cursor's id, so every add through the cursor takes the call.
 * Not for programs. Thread-safe; never fails.
 */
unsigned char *sc_percpu_stand_in_(void);

/*
 * The calling thread's cursor on the array at slot0 (slots CPU words at
 * stride bytes, slots < 2^31, then the overflow word) indexed by index
 * (sc_percpu_index). Thread-safe; never fails.
 */
SC_ALWAYS_INLINE sc_percpu_cursor sc_percpu_cursor_get(unsigned char *slot0, size_t stride,
                                                       uint32_t slots, uint64_t index)
{
	sc_percpu_cursor cur;
	cur.word = cur.slot0 = slot0;
	cur.stride = stride;
	cur.slots = slots;
	cur.id = SC_PERCPU_NO_ID_;
#if SC_RSEQ_INLINE
	if (index & SC_RSEQ_ON_) {
		unsigned char *area = sc_rseq_area_(index);
		cur.cs = area + 8;                                /* struct rseq's rseq_cs */
		cur.idp = area + (size_t)((index >> 32) & 0xff); /* its cpu_id or mm_cid */
		return cur;
	}
#endif
	(void)index;
	cur.cs = sc_percpu_stand_in_();
	cur.idp = cur.cs + 8;
	return cur;
}

/*
 * The add through a cursor (its fields cs, idp, slot0, stride, slots) when
 * its id is not the thread's (the first add, a migration, an id out of
 * range, the locked path): finds the id, adds, and returns the id for the
 * cursor to keep (SC_PERCPU_NO_ID_ when the add took the overflow word or
 * the locked path). Not for programs: sc_percpu_cursor_add calls it. It
 * takes the fields one by one, in registers, so that a loop's cursor never
 * goes to memory (where every add's "memory" clobber would reload it).
 */
uint32_t sc_percpu_cursor_miss_(unsigned char *cs, unsigned char *idp, unsigned char *slot0,
                                size_t stride, uint32_t slots, uint64_t v);

/*
 * sc_percpu_add_ix on the cursor's array by the calling thread, whose
 * cursor it is: the same add, exact under the same conditions. In a loop
 * the sequence is one store of its descriptor, one compare of the thread's
 * id with the cursor's and the add, to a word whose address the loop
 * keeps: no load of the index, the thread pointer or the stride, no range
 * test. The first add, and the first after a migration, takes a call that
 * finds the id and updates the cursor. Thread-safe as sc_percpu_add_ix;
 * never fails.
 */
SC_ALWAYS_INLINE void sc_percpu_cursor_add(sc_percpu_cursor *cur, uint64_t v)
{
#if SC_RSEQ_INLINE
	if (__builtin_expect(!sc_rseq_add_at_(cur->cs, cur->idp, cur->word, cur->id, v), 1))
		return;
#endif
	uint32_t id = sc_percpu_cursor_miss_(cur->cs, cur->idp, cur->slot0, cur->stride, cur->slots, v);
	cur->id = id;
	cur->word = cur->slot0 + (id < cur->slots ? (size_t)id * cur->stride : 0);
}

/*
 * Plugins and unloading. A restartable sequence leaves the thread's rseq
 * area pointing at a descriptor (rseq_cs) after it ends; the kernel reads
 * that descriptor, and the signature before its abort address, at the
 * thread's next preemption, migration or signal, and kills the thread
 * (SIGSEGV) if that memory is no longer mapped. These entry points inline
 * a sequence into the object that calls them: sc_counter_inc and
 * sc_counter_add on a PerCPU or PerCPUGroup counter (the variants whose
 * promises include SC_PROMISE_INLINE_RSEQ), sc_group_inc, sc_group_add,
 * sc_pcgroup_inc, sc_pcgroup_add, sc_percpu_add_ix, sc_percpu_add_at,
 * sc_percpu_cursor_add, sc_percpu_inc, sc_percpu_add, sc_percpu_group_inc,
 * sc_percpu_group_add, sc_percpu_tree_inc and sc_percpu_tree_add. In
 * code built for a shared object (-fPIC, not -fPIE), each arms a copy of
 * its descriptor that the library made when the object was loaded
 * (SC_RSEQ_SLOT_), with its abort address in libscounters, which is linked
 * with -z nodelete and stays mapped: a shared object built with these
 * headers may be closed (dlclose) while the threads that ran its sequences
 * live on, and nothing needs to be called first. Code built for a program
 * arms its own descriptors (SC_RSEQ_OWN_ above).
 *
 * sc_rseq_prepare_unload clears the calling thread's rseq_cs, as before
 * copies existed: a shared object built with older headers, with
 * SC_RSEQ_OWN_DESCRIPTOR, or from -fPIE code without SC_RSEQ_SLOTTED (all
 * arm the object's own descriptor) still needs every thread that ran one
 * of its sequences and lives on to call it before the object is closed; so
 * does one whose copies the library could not make (no memory for them at
 * load). Cheap
 * (one store), never fails, async-signal-safe; a no-op where no area is
 * registered or the adds take the locked path.
 */
void sc_rseq_prepare_unload(void);

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_RSEQ_H */
