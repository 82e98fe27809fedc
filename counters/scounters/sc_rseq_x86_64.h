/* SPDX-License-Identifier: MIT */
/*
 * sc_rseq_x86_64.h - the restartable sequences of sc_rseq.h on x86-64: the
 * only x86-64 text of the library's sequences. Not for programs: sc_rseq.h
 * includes it on x86-64 and states the contract of every macro below (the
 * same set on every architecture, see "The architectures" there). Only
 * macros: included alone, it defines nothing that runs.
 *
 * Registers: the descriptor's address is kept in r11 from the arm to the
 * commit (the library's trampoline jumps through it); the add by an index
 * takes the id in eax/rax; the operands are the callers' (%[area], %[v], ...).
 */
#ifndef SC_RSEQ_X86_64_H
#define SC_RSEQ_X86_64_H

#define SC_RSEQ_ARCH_ "x86_64"

/* glibc's RSEQ_SIG on x86-64 (rseq.c checks it against <sys/rseq.h>) */
#define SC_RSEQ_SIG_ 0x53053053

/* The signature before an abort address: RSEQ_SIG inside a ud1, as Linux's selftests place it. */
#define SC_RSEQ_SIGNATURE_ ".byte 0x0f, 0xb9, 0x3d\n\t.long " SC_RSEQ_STR_(SC_RSEQ_SIG_) "\n\t"

/* the signature, then the abort handler (label 4): back to 0, which re-arms */
#define SC_RSEQ_ABORT_                                                                     \
	".pushsection __rseq_failure, \"ax\"\n\t" SC_RSEQ_SIGNATURE_                       \
	"4:\n\t"                                                                           \
	"jmp 0b\n\t"                                                                       \
	".popsection\n\t"

/* the descriptor's address into r11: its own (label 3), or its slot's value (label 5) */
#define SC_RSEQ_LOAD_OWN_ "leaq 3b(%%rip), %%r11\n\t"
#define SC_RSEQ_LOAD_SLOTTED_ "movq 5b(%%rip), %%r11\n\t"
#define SC_RSEQ_ARM_CLOBBER_ "r11"

/* the descriptor, its slot, and the address chosen (SC_RSEQ_LOAD_) stored in rseq_cs at CS */
#define SC_RSEQ_ARM_(CS)                                                                   \
	SC_RSEQ_DESCRIPTOR_                                                                \
	SC_RSEQ_SLOT_                                                                      \
	SC_RSEQ_LOAD_                                                                      \
	"movq %%r11, " CS "\n\t"

/* The add by an index: the id into eax, checked; scaled in rax; one add to memory commits. */
#define SC_RSEQ_CHECK_CPU_ID_ "movl 4(%[area]), %%eax\n\t"
#define SC_RSEQ_CHECK_MM_CID_                                                              \
	"movl 4(%[area]), %%eax\n\t"                                                       \
	"testl %%eax, %%eax\n\t"                                                           \
	"js %l[overflow]\n\t"                                                              \
	"movl 24(%[area]), %%eax\n\t"
#define SC_RSEQ_SHIFT_ "shlq %[scale], %%rax\n\t"
#define SC_RSEQ_MUL_ "imulq %[scale], %%rax\n\t"
#define SC_RSEQ_SEQ_(CHECK, SCALE)                                                         \
	SC_RSEQ_ARM_("8(%[area])")                                                         \
	"1:\n\t" CHECK "cmpl %[slots], %%eax\n\t"                                          \
	"jae %l[overflow]\n\t" SCALE "addq %[v], (%[slot0], %%rax)\n\t"                    \
	"2:\n\t" SC_RSEQ_ABORT_
#define SC_RSEQ_V_ "er"
#define SC_RSEQ_CLOBBER_ "rax", SC_RSEQ_ARM_CLOBBER_

/* The add at an id known in advance: one compare, one add to memory commits. */
#define SC_RSEQ_AT_SEQ_                                                                    \
	SC_RSEQ_ARM_("(%[cs])")                                                            \
	"1:\n\t"                                                                           \
	"cmpl %[id], (%[idp])\n\t"                                                         \
	"jne %l[miss]\n\t"                                                                 \
	"addq %[v], (%[word])\n\t"                                                         \
	"2:\n\t" SC_RSEQ_ABORT_
#define SC_RSEQ_AT_CLOBBER_ SC_RSEQ_ARM_CLOBBER_

/* The fetch-and-add at cpu_id: a load into old, old + v into now, whose store commits. */
#define SC_RSEQ_FETCH_ADD_SEQ_                                                             \
	SC_RSEQ_ARM_("8(%[area])")                                                         \
	"1:\n\t"                                                                           \
	"movl 4(%[area]), %k[off]\n\t"                                                     \
	"cmpl %[slots], %k[off]\n\t"                                                       \
	"jae %l[overflow]\n\t"                                                             \
	"shlq %[scale], %[off]\n\t"                                                        \
	"movq (%[slot0], %[off]), %[old]\n\t"                                              \
	"leaq (%[old], %[v]), %[now]\n\t"                                                  \
	"movq %[now], (%[slot0], %[off])\n\t"                                              \
	"2:\n\t" SC_RSEQ_ABORT_

/* The library's trampoline (rseq_intern.c): the signature, then a jump through the copy in r11. */
#define SC_RSEQ_TRAMPOLINE_(NAME)                                                          \
	".pushsection .text, \"ax\"\n\t"                                                   \
	".balign 16\n\t" SC_RSEQ_SIGNATURE_ ".globl " NAME "\n\t"                          \
	".hidden " NAME "\n\t" NAME ":\n\t"                                                \
	"jmp *32(%r11)\n\t"                                                                \
	".popsection"

#endif /* SC_RSEQ_X86_64_H */
