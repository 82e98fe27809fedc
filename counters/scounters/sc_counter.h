/* SPDX-License-Identifier: MIT */
/*
 * sc_counter.h - the handle API: a counter chosen by name, with the calling
 * thread's context managed by the library. For programs that do not want to
 * number their threads or keep a configuration next to every counter; the
 * price is one library call and one indirect call per increment (the
 * inlined per-variant API of the family headers has neither).
 *
 *     sc_err err;
 *     sc_counter *hits = sc_counter_new("Sharded", "", &err);
 *     if (!hits) { fprintf(stderr, "%s\n", err.msg); ... }
 *     sc_counter_inc(hits);                 // from any thread
 *     uint64_t n = sc_counter_get(hits);
 *     sc_counter_free(hits);
 *
 * Thread contexts. The first call of a thread (to any sc_counter_ function
 * or to sc_thread_self) gives it a context: a thread index that no other
 * live thread holds (the lowest free one; indices of exited threads are
 * reused), node 0, and its own RNG streams (seeded from a process-wide
 * sequence number, so no two contexts ever share a stream). Threads never
 * register. When a thread exits (a pthread key destructor), what it holds
 * back in any live Batched counter is flushed, and its index is freed.
 * The main thread's destructors do not run at exit(); call
 * sc_counter_flush from it if a Batched counter must see its last
 * increments.
 *
 * Any number of threads. Sharded and Batched counters made here have
 * per-thread slots for 2 x (the OS's configured CPU count) threads, at
 * least 8; threads whose index is beyond that share one overflow slot (an
 * atomic add), so the count stays exact and in bounds for any number of
 * threads; only those extra threads contend. NUMA-aware variants see one
 * node (every context has node 0); PerCPU and Striped use the OS's CPUs.
 *
 * Values. For precise variants a counter's value is the number of
 * increments (and added amounts) since it was made or since the last
 * read_and_reset, modulo the variant's range (2^64 for most; see the family
 * header). Probabilistic variants give their estimate with their stated
 * error; Serial loses updates by design.
 *
 * Thread safety: sc_counter_inc, _add, _get, _read_and_reset and _flush may
 * be called by any number of threads at once on the same counter.
 * sc_counter_free must not run concurrently with any other use of that
 * counter (the caller knows when its threads are done with it).
 */
#ifndef SC_COUNTER_H
#define SC_COUNTER_H

#include "sc_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_counter sc_counter;

/*
 * A new counter of the named variant (canonical name or alias, any case;
 * "Sharded", "bfp-csup", ...), its parameters given as "key=value" items
 * separated by commas ("accuracy=1,batch=64"; "" or NULL for the defaults).
 * Unknown variants and unknown, malformed or out-of-range parameters are
 * errors, never adjusted silently; same-seed is a benchmark parameter and is
 * rejected here. Returns NULL with a message in err (which may be NULL)
 * on error or when out of memory. Thread-safe.
 */
sc_counter *sc_counter_new(const char *variant, const char *params, sc_err *err);

/* One increment by the calling thread. Never fails. */
void sc_counter_inc(sc_counter *c);

/* n increments at once (the variant's sc_P_add: exact for precise variants,
 * unbiased for probabilistic ones). Never fails. */
void sc_counter_add(sc_counter *c, uint64_t n);

/*
 * The value now (see Values above). While other threads increment it
 * contains every increment completed before the call began and possibly
 * some that run concurrently; Batched is stale by less than its batch size
 * per live thread that has not flushed or exited.
 */
uint64_t sc_counter_get(const sc_counter *c);

/*
 * The value, and the counter restarted from 0, in one step.
 * Precise variants: exact even while other threads increment: every
 * increment is counted in exactly one reading (an increment held back by
 * a Batched thread counts in the first reading after its flush), so the
 * readings sum to the total. Done by a reading taken under a per-counter
 * lock and kept as the new origin; the counter's storage is not cleared.
 * Probabilistic variants and Serial (all of them one word): the word is
 * exchanged atomically for its initial state and the old word's value is
 * returned, so every applied update lands in exactly one reading; each
 * reading is the variant's estimate, with its error contract, of the
 * increments since the previous one. Never fails.
 */
uint64_t sc_counter_read_and_reset(sc_counter *c);

/* Hand over what the calling thread holds back in c (Batched); a no-op for
 * the other variants. Thread-safe; exit does it automatically. */
void sc_counter_flush(sc_counter *c);

/* The variant's canonical name ("Sharded"). */
const char *sc_counter_variant(const sc_counter *c);

/*
 * The counter's internal state as "key=value;key=value" ("mode=cells;cells=4"),
 * the variant's sc_P_describe (contract at the top of scounters.h): at most
 * size bytes with the NUL, returns the whole length as snprintf does; never
 * fails. Thread-safe: a racy snapshot while other threads increment.
 */
int sc_counter_describe(const sc_counter *c, char *buf, size_t size);

/* Free c and what it allocated; NULL is allowed. Not concurrently with any
 * other use of c. */
void sc_counter_free(sc_counter *c);

/*
 * The calling thread's library-managed context (made on first use, as
 * above), for mixing the handle API with the inlined per-variant API:
 * sc_P_inc(&c, &cfg, sc_thread_self()). Its index is unique among live
 * threads, so it suits Sharded and Batched counters configured for any
 * env.threads (indices beyond it take the shared overflow path). The
 * automatic flush at exit covers sc_counter handles only. Never NULL.
 */
sc_thread *sc_thread_self(void);

#ifdef __cplusplus
}
#endif

#endif /* SC_COUNTER_H */
