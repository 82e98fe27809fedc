/* SPDX-License-Identifier: MIT */
/*
 * sc_counter.h - the handle API: a counter chosen by name, with the calling
 * thread's context managed by the library. For programs that do not want to
 * number their threads or keep a configuration next to every counter; the
 * price is a test or two of the counter's head and at most one indirect
 * call per increment (sc_counter_inc and _add are inlined up to the call of
 * the variant's operation, and Sharded's, PerCPU's and PerCPUGroup's
 * increments are inlined whole, see below; the per-variant API of the
 * family headers has no call at all).
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
 * reused), the node the kernel reports (sc_node.h), and its own RNG streams (seeded from a process-wide
 * sequence number, so no two contexts ever share a stream). Threads never
 * register. When a thread exits (a pthread key destructor), what it holds
 * back in any live Batched counter is flushed, and its index is freed;
 * what it counts after that (a later destructor, a signal handler during
 * its exit) goes to each counter's shared path, held back nowhere.
 * The main thread's destructors do not run at exit(); call
 * sc_counter_flush from it if a Batched counter must see its last
 * increments. Counters of a variant that fixes every thread's start state
 * (Scalable runtime=dotnet) use a second per-thread stream started at that
 * state, as the runtime's per-thread generator.
 *
 * fork(): the library's locks are held across it (pthread_atfork), so a
 * child may use the handle API at once, from any thread it makes. The
 * library registers its fork handlers when it is loaded, so they run
 * outside every handler the program registers later (in its constructors or
 * main): such a handler may call any sc_counter_ function (prepare: a
 * read_and_reset; child: a new counter). In the child only the forking
 * thread keeps its index; it gets a new random stream; what the parent's
 * other threads held back in a Batched counter is handed over to the
 * child's copy by the child's handler, so the copy counts (get and get_sum)
 * every increment completed before the fork: the fork handler waits for
 * the hand-overs of batches in flight, and a hand-over that would start
 * while the process is copied waits until the copy is made (sc_batched.h),
 * so the fast reading keeps its bound across the fork.
 *
 * Any number of threads. Sharded and Batched counters made here have
 * per-thread slots for 2 x (the OS's configured CPU count) threads, at
 * least 8; threads whose index is beyond that share one overflow slot (an
 * atomic add), so the count stays exact and in bounds for any number of
 * threads; only those extra threads contend. NUMA-aware variants are made
 * for the machine's nodes with CPUs (sc_node_count, at most 256) and a
 * thread's node id follows it when the kernel moves it (sc_node.h: read
 * from the rseq area, or from getcpu every SC_NODE_REFRESH_CALLS calls);
 * PerCPU and Striped use the OS's CPUs.
 *
 * Values. For precise variants a counter's value is the number of
 * increments (and added amounts) since it was made or since the last
 * read_and_reset, modulo 2^64 for CAS, FetchAdd, RBO, CASPrefetch,
 * Multiline, Sharded, Striped, Batched and PerCPU, 2^63 for MultilineAdapt, and 2^(31 - nb)
 * for RBONuma and RBONumaAdapt, nb = ceil(log2 nodes) with nodes =
 * sc_node_count() (a 32-bit word whose node field takes nb bits: 2^31 on
 * one node, 2^30 on two, 2^29 on 3 or 4, ..., 2^23 on 129 to 256): those
 * two wrap silently at that range (sc_rbonuma_range of sc_numa.h).
 * Probabilistic variants
 * give their estimate with their stated error, up to their range (the
 * family header; sc_variant range): the Scalable family defaults to
 * width=64 here, range about 1.7e19; Morris wraps to 0 past about 4.29e9,
 * MorrisAdapt past 4.29e9 after its switch, BFP-DUP and BFP-CSUP past
 * about 8.8e12: a Morris or MorrisAdapt counter that may pass 4e9 between
 * resets needs another variant. Serial and CASOnce lose updates by design.
 *
 * Thread safety: sc_counter_inc, _add, _add_signed, _get, _get_fast,
 * _get_sum, _get_approx, _get_precise, _compare, _compare_sure,
 * _error_bound, _read_and_reset and _flush may
 * be called by any number of threads at once on the same counter.
 * sc_counter_free must not run concurrently with any other use of that
 * counter (the caller knows when its threads are done with it).
 *
 * Signal handlers: sc_counter_inc, _add, _add_signed and _flush are
 * async-signal-safe for CAS, FetchAdd, RBO, CASPrefetch, Sharded, Batched,
 * PerCPU and PerCPUGroup (a handler's update is not lost even when it interrupts the
 * same thread's update of the same counter, and a thread's first call in a
 * handler never waits for a lock the code it interrupted holds); _get,
 * _get_fast, _get_sum, _get_approx, _get_precise, _compare, _compare_sure,
 * _error_bound and _variant are for every
 * variant; the rest are not (each function's man page says).
 */
#ifndef SC_COUNTER_H
#define SC_COUNTER_H

#include "sc_common.h"
#include "sc_distributed.h"
#include "sc_morris.h"
#include "sc_rseq.h"
#include "sc_scalable.h"
#include "sc_simple.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

typedef struct sc_counter sc_counter;

/*
 * A new counter of the named variant (canonical name or alias, any case;
 * "Sharded", "bfp-csup", ...), its parameters given as "key=value" items
 * separated by commas ("accuracy=1,batch=64"; "" or NULL for the defaults).
 * Unknown variants and unknown, malformed or out-of-range parameters are
 * errors, never adjusted silently; so are empty items ("batch=4,,"); same-seed
 * is a benchmark parameter and is rejected here. Returns NULL with a message in err (which may be NULL)
 * on error or when out of memory, and on every call when the library could
 * not make its thread-exit key or fork handlers as it was loaded (the
 * process out of pthread keys or memory: loading never aborts). Thread-safe.
 */
sc_counter *sc_counter_new(const char *variant, const char *params, sc_err *err);

/*
 * One increment by the calling thread. Never fails. n increments at once
 * (sc_counter_add: the variant's sc_P_add, exact for precise variants,
 * unbiased for probabilistic ones). Never fails.
 *
 * Inlined (GCC and Clang, on targets with initial-exec TLS): Sharded's
 * increment whole, recognised by the head's copy of its thread count (then
 * a TLS load of the thread's index against it, the slot's load and store);
 * else PerCPU's restartable sequence, recognised by the head's copy of its
 * array pointer (no context); FetchAdd's atomic add, Morris's and
 * Scalable's increments, recognised by the head's op (the latter two with a
 * TLS load and a test of the calling thread's context); else that load and
 * test and one indirect call, to the variant's increment. The out-of-line
 * sc_counter_context_ runs only on a thread's first call and for the
 * variants that read the node or a seeded stream. Define SC_COUNTER_NO_INLINE before including to call the
 * library's out-of-line sc_counter_inc and sc_counter_add instead (the
 * same operations; the library exports both either way).
 */
#include "sc_counter_head.h"

#if !defined(SC_COUNTER_HAVE_TLS_) || defined(SC_COUNTER_NO_INLINE)
void sc_counter_inc(sc_counter *c);
void sc_counter_add(sc_counter *c, uint64_t n);
#endif

/*
 * The value now (see Values above): the variant's one reading, or where it
 * has two (SC_PROMISE_READINGS_DIFFER) Batched's fast one and PerCPUTree's
 * sum (see "The two readings" below). Its bound is
 * sc_counter_error_bound(c, SC_READ_FAST).
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
 * replaced atomically (one CAS) by what the variant's reset leaves of it
 * (the initial state; ScalableCAS and MorrisAdapt keep their mode) and the
 * old word's value is returned, so every applied update lands in exactly
 * one reading; each reading is the variant's estimate, with its error
 * contract, of the increments since the previous one (Morris and
 * MorrisAdapt take the exact projection of the float thresholds the word
 * went through, the sum of 1/p over its updates, and round it at random, so
 * that the readings are unbiased one by one and summed; that walk costs one
 * float step per update applied, about a ln(1 + n/a) for n increments, 26,500
 * at n = 10^6 and a = 5000). Never fails.
 */
uint64_t sc_counter_read_and_reset(sc_counter *c);

/* Hand over what the calling thread holds back in c (Batched); a no-op for
 * the other variants. Thread-safe; exit does it automatically. */
void sc_counter_flush(sc_counter *c);

/*
 * Signed add, precise variants only: n increments when n > 0, -n
 * decrements when n < 0 (a gauge: in-flight requests, open connections).
 * Values stay modulo the variant's range, as for sc_counter_add: a value
 * taken below 0 reads as range + 1 + value (cast a reading of a 2^64-range
 * counter to int64_t to see it signed). Same thread-safety as
 * sc_counter_add. Batched: a decrement is held back like an increment (a
 * thread's held-back amount stays in 0 .. B-1), so get's lag bound holds.
 * Returns 0; or -1 with errno = ENOTSUP, c unchanged, when c is
 * probabilistic or Serial (an estimate cannot be decremented unbiasedly).
 */
int sc_counter_add_signed(sc_counter *c, int64_t n);

/*
 * The two readings. Each variant's contract (sc_contract.h, declared in its
 * family header) names both and bounds each (sc_counter_error_bound); they
 * differ for the variants whose promises include SC_PROMISE_READINGS_DIFFER,
 * Batched and PerCPUTree, and are the variant's one reading for the others.
 *
 * sc_counter_get_fast (SC_READ_FAST): Batched: the shared word, one load;
 *   it trails the increments completed before the call by at most what
 *   the threads hold back, (B - 1) per thread that owns a slot (the
 *   bound's lag). PerCPUTree: the root of its carry tree, one load; it
 *   trails them by at most the interval's width plus the largest carry per
 *   thread inside its carry (lag and lag_per_thread, sc_tree.h).
 *
 * sc_counter_get_sum (SC_READ_SUM): exact for both, under any load: at
 *   least every update completed before the call began, at most those
 *   begun before it returned. Batched: the overflow word and every slot's
 *   total, O(threads) loads (2 x CPUs slots, see above), no flush needed.
 *   PerCPUTree: its CPUs' words, O(CPUs) loads (as sc_counter_get).
 *
 * Both: thread-safe with any other call but sc_counter_free; never fail;
 * values since the last read_and_reset as sc_counter_get.
 */
uint64_t sc_counter_get_fast(const sc_counter *c);
uint64_t sc_counter_get_sum(const sc_counter *c);

/*
 * The two readings by the name of their promise. sc_counter_get_precise is
 * sc_counter_get_sum under a name that says what it promises (exact for
 * every precise variant, under any load; a probabilistic variant's estimate
 * has no more precise reading than its one). sc_counter_get_approx takes
 * the cheap reading, sc_counter_get_fast's, with the interval its contract
 * puts around the count (sc_counter_error_bound of SC_READ_FAST):
 *
 *   SC_BOUND_EXACT: lo = hi = value.
 *   SC_BOUND_LAG: lo = value; hi = value + lag where the lag holds whatever
 *     the number of updating threads (SC_PROMISE_LAG_BOUNDED: Batched),
 *     UINT64_MAX otherwise (PerCPUTree: each thread inside its carry adds
 *     lag_per_thread; take sc_counter_get_precise for a bound there).
 *   For these two, lo is at most the updates begun before the call returned
 *     and hi at least those completed before it began.
 *   SC_BOUND_RSTDV: with k = SC_COMPARE_SIGMAS and r the bound's rstdv,
 *     lo = floor(value / (1 + k r)) and hi = ceil(value / (1 - k r)), or
 *     UINT64_MAX when k r >= 1: by Cantelli's inequality the count lies
 *     below lo with probability at most 1/(1 + k^2), and above hi likewise,
 *     so in [lo, hi] with probability at least 1 - 2/(1 + k^2) (98%) under
 *     the conditions of the variant's bound, the same guarantee as
 *     sc_counter_compare's answers.
 *   SC_BOUND_NONE: lo = 0, hi = UINT64_MAX.
 *
 * Values are modulo the variant's range, as sc_counter_get's; hi saturates
 * at UINT64_MAX. Both: never fail; thread-safe with any other call but
 * sc_counter_free; async-signal-safe for every variant (loads only, no
 * lock, no allocation).
 */
typedef struct sc_counter_approx {
	uint64_t value; /* the cheap reading, as sc_counter_get_fast */
	uint64_t lo; /* the interval around the count, as above */
	uint64_t hi;
	sc_bound_kind kind; /* the reading's bound: what lo and hi mean */
} sc_counter_approx;

sc_counter_approx sc_counter_get_approx(const sc_counter *c);
uint64_t sc_counter_get_precise(const sc_counter *c);

/* sc_reading, sc_bound_kind and sc_counter_bound: sc_contract.h. */

/*
 * The error bound of reading r of c, from its variant and parameters (never
 * measured), as the variant's contract declares it (sc_contract.h): precise
 * variants: SC_BOUND_EXACT, except Batched's and PerCPUTree's fast readings
 * (SC_BOUND_LAG). Morris, MorrisAdapt: 1/sqrt(2a); BFP-DUP and
 * BFP-CSUP: sqrt(3/(8M - 3)) (M = MantThreshold/2); Scalable,
 * ScalableCAS, ScalableCapped: sqrt(3/2^(T+2)); all SC_BOUND_RSTDV. Serial
 * and Scalable runtime=dotnet: SC_BOUND_NONE. Never fails (an r that is
 * neither reading is taken as SC_READ_FAST); thread-safe.
 */
sc_counter_bound sc_counter_error_bound(const sc_counter *c, sc_reading r);

/*
 * Whether c's count is below, equal to or above x, decided with the
 * guarantee of the variant's error contract (sc_counter_error_bound), in
 * the spirit of Linux's percpu_counter_compare: the cheap reading when it
 * settles the question, the full one only when it cannot. Returns -1
 * (below), 0 or +1 (above). "The count" is the value as sc_counter_get
 * gives it (since the last read_and_reset, modulo the range).
 *
 * Precise variants (SC_BOUND_EXACT): the sign of reading - x, the reading
 *   counting every update completed before the call and none that has not
 *   begun: exact when no thread updates c during the call.
 * Batched, PerCPUTree (SC_BOUND_LAG): +1 from the fast reading f alone
 *   when f > x (at least f updates had begun); -1 from it when f + L < x, L
 *   the bound's lag, only where the lag holds whatever the number of
 *   updating threads (SC_PROMISE_LAG_BOUNDED: Batched; PerCPUTree's carries
 *   in flight add to its lag per thread); otherwise the sign of
 *   sc_counter_get_sum - x. So a -1 means fewer than x updates had
 *   completed before the call, a +1 that more than x had begun, under any
 *   load.
 * Probabilistic variants (SC_BOUND_RSTDV, bound r): +1 when the estimate E
 *   exceeds x (1 + k r), -1 when it is below x (1 - k r), 0 in between
 *   ("cannot tell": the band where the estimate is within k standard
 *   deviations of x), k = SC_COMPARE_SIGMAS = 10. By Cantelli's inequality
 *   a +1 or -1 is wrong (the count on the other side of x, or equal to x)
 *   with probability at most 1/(1 + k^2) < 1% whatever the estimate's
 *   distribution; for the near-normal estimates of large counts it is far
 *   smaller (2e-23 if normal). With x = 0: +1 exactly when E > 0 (every
 *   probabilistic variant counts its first increments exactly), else 0.
 * SC_BOUND_NONE (Serial, Scalable runtime=dotnet): the sign of the reading
 *   - x, with no guarantee.
 *
 * Never fails; thread-safe as sc_counter_get; no allocation.
 */
#define SC_COMPARE_SIGMAS 10
int sc_counter_compare(const sc_counter *c, uint64_t x);

/*
 * sc_counter_compare with "cannot tell" apart from "equal": where
 * sc_counter_compare answers 0 for a probabilistic variant's estimate
 * inside the band around x (the count below, equal to or above x), this
 * answers SC_COMPARE_UNSURE; its 0 means the reading was x (for a
 * probabilistic variant only x = 0 with no count, which every one of them
 * counts exactly). -1 and +1 as sc_counter_compare, with the same
 * guarantees. Never fails; thread-safe and async-signal-safe as
 * sc_counter_compare; no allocation.
 */
#define SC_COMPARE_UNSURE 2
int sc_counter_compare_sure(const sc_counter *c, uint64_t x);

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
 * env.threads (indices beyond it take the shared overflow path); its node
 * is the kernel's as of this call (sc_node.h's mapping). The
 * automatic flush at exit covers sc_counter handles only. Never NULL.
 */
sc_thread *sc_thread_self(void);

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_COUNTER_H */
