/* SPDX-License-Identifier: MIT */
/*
 * handle_bench_librseq.c - librseq's per-CPU add (its public API only:
 * rseq_register_current_thread, rseq_cpu_start, rseq_current_mm_cid and
 * rseq_load_add_store__ptr), for handle_bench --librseq to measure beside
 * the project's add and the floor. Built only when configure found librseq
 * (--with-librseq=PREFIX or pkg-config); never installed.
 */
#include "handle_bench_librseq.h"

#include <rseq/rseq.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

/* One word per CPU (or concurrency id), a line each, as PerCPU's slots. */
typedef struct lr_word {
	intptr_t v;
	char pad[SC_LINE_SIZE - sizeof(intptr_t)];
} lr_word;

void *lr_setup(const char **why, int *mm_cid)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (rseq_register_current_thread() != 0) {
		*why = "rseq_register_current_thread failed (no rseq in this kernel or process)";
		return NULL;
	}
	if (cpus < 1) {
		*why = "sysconf(_SC_NPROCESSORS_CONF) failed";
		return NULL;
	}
	/* cpu_id and mm_cid are both below the configured CPU count */
	lr_word *w = aligned_alloc(SC_LINE_SIZE, (size_t)cpus * sizeof *w);
	if (!w) {
		*why = "out of memory";
		return NULL;
	}
	for (long i = 0; i < cpus; i++)
		w[i].v = 0;
	*mm_cid = rseq_mm_cid_available();
	return w;
}

/*
 * The add as librseq's documentation gives it: take a CPU number (or
 * concurrency id), try the sequence at its word, and retry when the
 * sequence was aborted (preempted, migrated, signalled) or the number was
 * stale. Inlined with mode a constant, so each loop has one kind of index.
 */
static inline __attribute__((always_inline)) void lr_loop(lr_word *w, int chunk,
                                                          enum rseq_percpu_mode mode)
{
	for (int i = 0; i < chunk; i++) {
		for (;;) {
			uint32_t id = mode == RSEQ_PERCPU_CPU_ID ? rseq_cpu_start() : rseq_current_mm_cid();
			if (rseq_load_add_store__ptr(RSEQ_MO_RELAXED, mode, &w[id].v, 1, (int)id) == 0)
				break;
		}
	}
}

void lr_loop_cpu_id(void *words, int chunk)
{
	lr_loop(words, chunk, RSEQ_PERCPU_CPU_ID);
}

void lr_loop_mm_cid(void *words, int chunk)
{
	lr_loop(words, chunk, RSEQ_PERCPU_MM_CID);
}
