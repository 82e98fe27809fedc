/* SPDX-License-Identifier: MIT */
/*
 * sc_rseq_aarch64.h - the restartable sequences of sc_rseq.h on
 * little-endian aarch64: the only aarch64 text of the library's sequences.
 * Not for programs: sc_rseq.h includes it on aarch64 and states the
 * contract of every macro below (the same set on every architecture, see
 * "The architectures" there). Only macros: included alone, it defines
 * nothing that runs.
 *
 * Registers: the descriptor's address is kept in x11 from the arm to the
 * commit (the library's trampoline jumps through it); the add by an index
 * takes the id and the word's address in x9, the word's value in x10; the
 * operands are the callers' (%[area], %[v], ...).
 */
#ifndef SC_RSEQ_AARCH64_H
#define SC_RSEQ_AARCH64_H

#define SC_RSEQ_ARCH_ "aarch64"

/* glibc's RSEQ_SIG on aarch64 (rseq.c checks it against <sys/rseq.h>) */
#define SC_RSEQ_SIG_ 0xd428bc00

/* The signature before an abort address: RSEQ_SIG is the instruction brk #0x45e0 itself. */
#define SC_RSEQ_SIGNATURE_ ".inst " SC_RSEQ_STR_(SC_RSEQ_SIG_) "\n\t"

/* the signature, then the abort handler (label 4): back to 0, which re-arms */
#define SC_RSEQ_ABORT_                                                                     \
	".pushsection __rseq_failure, \"ax\"\n\t" SC_RSEQ_SIGNATURE_                       \
	"4:\n\t"                                                                           \
	"b 0b\n\t"                                                                         \
	".popsection\n\t"

/* the descriptor's address into x11: its own (label 3), or its slot's value (label 5) */
#define SC_RSEQ_LOAD_OWN_ "adrp x11, 3b\n\tadd x11, x11, :lo12:3b\n\t"
#define SC_RSEQ_LOAD_SLOTTED_ "adrp x11, 5b\n\tldr x11, [x11, :lo12:5b]\n\t"
#define SC_RSEQ_ARM_CLOBBER_ "x11"

/* the descriptor, its slot, and the address chosen (SC_RSEQ_LOAD_) stored in rseq_cs at CS */
#define SC_RSEQ_ARM_(CS)                                                                   \
	SC_RSEQ_DESCRIPTOR_                                                                \
	SC_RSEQ_SLOT_                                                                      \
	SC_RSEQ_LOAD_                                                                      \
	"str x11, " CS "\n\t"

/* The add by an index: the id into w9, checked; x9 the word; load, add, the store commits. */
#define SC_RSEQ_CHECK_CPU_ID_ "ldr w9, [%[area], #4]\n\t"
#define SC_RSEQ_CHECK_MM_CID_                                                              \
	"ldr w9, [%[area], #4]\n\t"                                                        \
	"tbnz w9, #31, %l[overflow]\n\t"                                                   \
	"ldr w9, [%[area], #24]\n\t"
#define SC_RSEQ_SHIFT_ "add x9, %[slot0], x9, lsl %[scale]\n\t"
#define SC_RSEQ_MUL_ "madd x9, x9, %[scale], %[slot0]\n\t"
#define SC_RSEQ_SEQ_(CHECK, SCALE)                                                         \
	SC_RSEQ_ARM_("[%[area], #8]")                                                      \
	"1:\n\t" CHECK "cmp w9, %w[slots]\n\t"                                             \
	"b.hs %l[overflow]\n\t" SCALE "ldr x10, [x9]\n\t"                                  \
	"add x10, x10, %[v]\n\t"                                                           \
	"str x10, [x9]\n\t"                                                                \
	"2:\n\t" SC_RSEQ_ABORT_
#define SC_RSEQ_V_ "r"
#define SC_RSEQ_CLOBBER_ "x9", "x10", SC_RSEQ_ARM_CLOBBER_

/* The add at an id known in advance: one compare; load, add, the store commits. */
#define SC_RSEQ_AT_SEQ_                                                                    \
	SC_RSEQ_ARM_("[%[cs]]")                                                            \
	"1:\n\t"                                                                           \
	"ldr w9, [%[idp]]\n\t"                                                             \
	"cmp w9, %w[id]\n\t"                                                               \
	"b.ne %l[miss]\n\t"                                                                \
	"ldr x10, [%[word]]\n\t"                                                           \
	"add x10, x10, %[v]\n\t"                                                           \
	"str x10, [%[word]]\n\t"                                                           \
	"2:\n\t" SC_RSEQ_ABORT_
#define SC_RSEQ_AT_CLOBBER_ SC_RSEQ_CLOBBER_

/* The fetch-and-add at cpu_id: a load into old, old + v into now, whose store commits. */
#define SC_RSEQ_FETCH_ADD_SEQ_                                                             \
	SC_RSEQ_ARM_("[%[area], #8]")                                                      \
	"1:\n\t"                                                                           \
	"ldr %w[off], [%[area], #4]\n\t"                                                   \
	"cmp %w[off], %w[slots]\n\t"                                                       \
	"b.hs %l[overflow]\n\t"                                                            \
	"lsl %[off], %[off], %[scale]\n\t"                                                 \
	"ldr %[old], [%[slot0], %[off]]\n\t"                                               \
	"add %[now], %[old], %[v]\n\t"                                                     \
	"str %[now], [%[slot0], %[off]]\n\t"                                               \
	"2:\n\t" SC_RSEQ_ABORT_

/* The library's trampoline (rseq_intern.c): the signature, then a jump through the copy in x11. */
#define SC_RSEQ_TRAMPOLINE_(NAME)                                                          \
	".pushsection .text, \"ax\"\n\t"                                                   \
	".balign 16\n\t" SC_RSEQ_SIGNATURE_ ".globl " NAME "\n\t"                          \
	".hidden " NAME "\n\t" NAME ":\n\t"                                                \
	"ldr x11, [x11, #32]\n\t"                                                          \
	"br x11\n\t"                                                                       \
	".popsection"

#endif /* SC_RSEQ_AARCH64_H */
