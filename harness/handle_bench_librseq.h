/* SPDX-License-Identifier: MIT */
/*
 * handle_bench_librseq.h - librseq's per-CPU add for handle_bench --librseq
 * (harness/handle_bench_librseq.c, built only when configure found librseq).
 */
#ifndef SC_HANDLE_BENCH_LIBRSEQ_H
#define SC_HANDLE_BENCH_LIBRSEQ_H

#include <scounters/scounters.h>

/*
 * Registers the calling thread with librseq and makes the array of per-CPU
 * words the loops add to; NULL with the reason in why when librseq cannot
 * run here. *mm_cid tells whether the kernel gives mm_cid.
 */
void *lr_setup(const char **why, int *mm_cid);

/*
 * CHUNK (the loop count given) adds of 1 by librseq, to the word of the CPU
 * (cpu_id) or of the concurrency id (mm_cid).
 */
void lr_loop_cpu_id(void *words, int chunk);
void lr_loop_mm_cid(void *words, int chunk);

#endif
