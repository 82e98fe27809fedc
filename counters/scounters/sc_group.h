/* SPDX-License-Identifier: MIT */
/*
 * sc_group.h - packed per-CPU counter groups: N exact counters (a block of
 * statistics, N fixed when the group is made) kept in per-CPU rows, so that
 * each costs 8 bytes per CPU instead of a padded line per CPU.
 *
 * Layout. One line-aligned allocation of slots + 2 rows of `row` bytes
 * (8 x N rounded up to SC_LINE_SIZE): rows 0 .. slots-1 belong to CPUs (or
 * rseq concurrency ids), row `slots` is the overflow row and row slots+1
 * holds each counter's origin (its raw value at the last read_and_reset).
 * Counter i of row r is the 64-bit word at rows + r * row + 8 * i: the
 * counters one CPU increments sit side by side in its own lines, and no two
 * CPUs write one line. Bytes: (slots + 2) * row, about 8 x (CPUs + 2) per
 * counter for large N.
 *
 * Increment. Counter i's words form the per-CPU array of sc_rseq.h (slot0 =
 * rows + 8 * i, stride = row), so an increment is one restartable sequence
 * whose commit is a plain add to the current CPU's word, or a locked add
 * where rseq is unavailable (sc_percpu_path says which). Exact under
 * preemption, migration, signals and oversubscription.
 *
 * Reading. get and get_all sum each counter's words with relaxed loads
 * (as Linux's percpu_counter_sum) and subtract the origin: a reading
 * contains every increment that happened before it began and may contain
 * some that run concurrently; between two resets, successive readings by
 * one thread never decrease (a read_and_reset or reset starts the counter
 * again from 0). read_and_reset returns each counter's reading and moves its
 * origin to the raw value read, with a compare-and-swap, so that every
 * increment lands in exactly one reading, under any load and with any
 * number of concurrent read_and_reset calls (no lock: safe across fork).
 * The counters of one group are read one after another, not at a single
 * instant.
 *
 * Range: each counter 2^64, wrapping (sums and origins are modulo 2^64;
 * a reading is exact while fewer than 2^63 increments separate two
 * read_and_resets).
 *
 * One group, sc_group, held either way:
 *  - in the caller's storage: sc_group_init (or _init_placed, _init_attached)
 *    fills an sc_group the caller owns (a static, a member of its own
 *    structure), sc_group_destroy frees what it holds;
 *  - on the heap: sc_group_new (or _new_as, _new_placed, _attach) returns
 *    one, sc_group_free frees it.
 * Every other function takes either. sc_group_inc and sc_group_add are
 * inlined into the caller unless SC_GROUP_NO_INLINE is defined.
 * sc_pcgroup, a structure holding a group's rows alone with functions of
 * its own, is the earlier name of a group in the caller's storage, kept so
 * that code written for it still builds and links (at the end).
 * And the variant PerCPUGroup (sc_percpu_group_*, named as every variant's
 * functions are, after the variant): the counters of an sc_table (scbench
 * --counters=N) over one group's rows, for the benchmark.
 */
#ifndef SC_GROUP_H
#define SC_GROUP_H

#include "sc_common.h"
#include "sc_rseq.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* Most counters one group may hold, and most CPU rows. */
#define SC_GROUP_MAX_COUNTERS (1u << 26)
#define SC_GROUP_MAX_SLOTS (1u << 20)

/* ---- sc_group ------------------------------------------------------------------ */

/* Not for programs: a group's rows and shape (sc_pcgroup below). */
typedef struct sc_pcgroup {
	unsigned char *rows; /* slots + 2 rows (see above); read-only after init */
	size_t row;          /* bytes per row: 8 * n rounded up to SC_LINE_SIZE */
	uint32_t slots;      /* CPU rows */
	uint32_t n;          /* counters */
	uint64_t index;      /* how the rows are indexed (sc_percpu_index) */
	uint32_t how;        /* SC_PERCPU_PRIVATE or SC_PERCPU_SHARED, as made (| SC_PCGROUP_PLACED_) */
} sc_pcgroup;

/* Not for programs: `how`'s bit for rows in the caller's memory (init_placed, attach). */
#define SC_PCGROUP_PLACED_ (1u << 8)

/*
 * A group. Its members are not for programs: they are here so that a
 * program can hold a group in its own storage (sc_group_init), and so that
 * the inlined add reads the rows where it expects them (rows_ first: that
 * layout is part of the ABI). scratch_: n words for read_and_reset's
 * origins, made with the group and held by one call at a time (busy_); a
 * call that finds them held reads counter by counter. heap_: 1 when
 * sc_group_new and its kin made the group (sc_group_free frees it).
 */
typedef struct sc_group {
	sc_pcgroup rows_;
	SC_ATOMIC(uint32_t) busy_;
	uint64_t *scratch_;
	uint32_t heap_;
} sc_group;

/*
 * Make, in the caller's g, a group of n counters, all 0, with env->cpus CPU
 * rows (env NULL or env->cpus 0: a row per CPU this process may run on, its
 * affinity mask at init: their count where the rows are indexed by mm_cid,
 * the highest CPU's number + 1 where by cpu_id; env's other fields are not
 * used), for how: SC_PERCPU_PRIVATE (rows on the heap, indexed for this
 * process alone, by mm_cid where the kernel has it) or SC_PERCPU_SHARED
 * (rows in an anonymous MAP_SHARED mapping, indexed by cpu_id: processes
 * forked after init count into the same rows, exactly, and any of them
 * reads them; every process must take the same per-CPU path,
 * sc_percpu_path). SCOUNTERS_PERCPU=cpu_id or lock overrides either
 * (sc_rseq.h). A CPU beyond the rows (the affinity widened later) counts in
 * the overflow row, exactly. 0, or -1 with err set (when err is not NULL)
 * and nothing allocated: n outside 1 .. SC_GROUP_MAX_COUNTERS, cpus above
 * SC_GROUP_MAX_SLOTS, another how, out of memory, or the mapping failed.
 * Not thread-safe with any other use of *g.
 */
int sc_group_init(sc_group *g, uint32_t n, const sc_env *env, unsigned how, sc_err *err);

/*
 * Groups in memory the caller provides, typically MAP_SHARED memory (a
 * file or memfd) that other processes, forked or exec'd, map too. The
 * buffer starts with a header of SC_LINE_SIZE bytes (a magic, the format
 * version SC_GROUP_PLACED_VERSION, the line size, the counter count, the
 * row count, the row size, the bytes used and the per-CPU index, written
 * by init and checked by attach), then the slots + 2 rows of "Layout",
 * indexed by cpu_id as SC_PERCPU_SHARED groups are, so that the processes
 * that count in it never share an id. Every process must take the same
 * per-CPU path (all the restartable sequence or all the locked one,
 * sc_percpu_path; attach checks it).
 *
 * sc_group_placed_bytes: the bytes a buffer needs for n counters and cpus
 * CPU rows (cpus 0: the configured CPUs, sysconf(_SC_NPROCESSORS_CONF), as
 * the exec'd processes may run on any of them); 0 when n or cpus is out of
 * range. Thread-safe; never fails otherwise.
 *
 * sc_group_init_placed: make in buf (size bytes, aligned to SC_LINE_SIZE:
 * mmap's pages are) a group of n counters, all 0, with cpus rows (0 as
 * above), and g its view. 0, or -1 with err set (when err is not NULL; n
 * or cpus out of range, buf misaligned or NULL, size below
 * sc_group_placed_bytes, out of memory for g's scratch) and buf untouched.
 * No process may use buf during the call; the header is published last (a
 * release store of the magic), so an attach that runs after it sees a
 * whole group.
 *
 * sc_group_init_attached: g becomes a view of the group another process
 * (or this one) made in buf with sc_group_init_placed. 0, or -1 with err
 * set and nothing allocated: no group's magic (not made, or not yet),
 * another format version or line size, counts out of range, a group larger
 * than size, a per-CPU path other than this process's, or out of memory.
 * Any number of processes may attach to one buffer.
 *
 * Neither is thread-safe with any other use of *g. A placed group is used
 * as any other (add, get, read_and_reset, from every process at once);
 * reset only while no process uses it; destroying a view frees the view's
 * scratch, not the buffer, and sc_group_bytes counts the rows, not the
 * header.
 */
#define SC_GROUP_PLACED_VERSION 1u
size_t sc_group_placed_bytes(uint32_t n, uint32_t cpus);
int sc_group_init_placed(sc_group *g, void *buf, size_t size, uint32_t n, uint32_t cpus,
                         sc_err *err);
int sc_group_init_attached(sc_group *g, void *buf, size_t size, sc_err *err);

/*
 * Free what a group made by sc_group_init* holds (the rows, unless they are
 * a placed buffer's, and the scratch); g may be made again by an init.
 * Only once nothing else uses g. Not for a group from sc_group_new and its
 * kin: sc_group_free.
 */
void sc_group_destroy(sc_group *g);

/* Not for programs: sets errno to EINVAL and returns -1 (the inlined add's error). */
int sc_group_einval_(void);

/*
 * A group of n counters, all 0, on the heap, with a row per CPU the process
 * may run on (as sc_group_init with env NULL and SC_PERCPU_PRIVATE). NULL
 * with err set (when err is not NULL) on sc_group_init's errors.
 * Thread-safe.
 */
sc_group *sc_group_new(uint32_t n, sc_err *err);

/* As sc_group_init, on the heap: NULL with err set on its errors. Thread-safe. */
sc_group *sc_group_new_as(uint32_t n, const sc_env *env, unsigned how, sc_err *err);

/*
 * As sc_group_init_placed and sc_group_init_attached, the view on the heap:
 * NULL with err set on their errors. sc_group_free frees the view, not the
 * buffer. Thread-safe.
 */
sc_group *sc_group_new_placed(void *buf, size_t size, uint32_t n, uint32_t cpus, sc_err *err);
sc_group *sc_group_attach(void *buf, size_t size, sc_err *err);

/*
 * Free g (NULL: nothing), made by sc_group_new and its kin (one made by
 * sc_group_init* is destroyed, as sc_group_destroy). Only once nothing else
 * uses g.
 */
void sc_group_free(sc_group *g);

/*
 * The per-CPU path of g's rows: sc_percpu_index_name of the index they were
 * made with ("rseq-mm_cid", "rseq-cpu_id" or "lock"). sc_percpu_path names
 * the process's path; a group made for shared memory (SC_PERCPU_SHARED, or
 * placed) is indexed by cpu_id where the process's path is mm_cid. Static
 * storage. Thread-safe; never fails.
 */
const char *sc_group_path(const sc_group *g);

/* The number of counters. Thread-safe; never fails. */
uint32_t sc_group_size(const sc_group *g);

/*
 * Add 1 (inc) or v (add) to counter i: 0, or -1 with errno EINVAL when
 * i >= sc_group_size(g) (nothing counted: no index reaches memory outside
 * the group). Thread-safe with every function but init, reset, destroy and
 * free; async-signal-safe. Inlined unless SC_GROUP_NO_INLINE is defined
 * before the header; the library exports both either way.
 */
#if !defined(SC_GROUP_NO_INLINE)
static inline int sc_group_add(sc_group *g, uint32_t i, uint64_t v)
{
	const sc_pcgroup *pg = &g->rows_;
	if (__builtin_expect(i >= pg->n, 0))
		return sc_group_einval_();
	sc_percpu_add_ix(pg->rows + (size_t)i * 8, pg->row, pg->slots, pg->index, v);
	return 0;
}

static inline int sc_group_inc(sc_group *g, uint32_t i)
{
	return sc_group_add(g, i, 1);
}
#else
int sc_group_inc(sc_group *g, uint32_t i);
int sc_group_add(sc_group *g, uint32_t i, uint64_t v);
#endif

/*
 * Counter i's reading (see "Reading"): its increments since the last
 * read_and_reset or reset; 0 for i >= size. Thread-safe as add; never fails.
 */
uint64_t sc_group_get(const sc_group *g, uint32_t i);

/*
 * Every reading into out[0 .. size-1] (len: out's length in counters). 0,
 * or -1 with errno ERANGE and nothing written when len < size. Thread-safe
 * as add.
 */
int sc_group_get_all(const sc_group *g, uint64_t *out, size_t len);

/*
 * Every reading into out[0 .. size-1] (len: out's length), each counter
 * restarting from 0 at its reading: each increment is in exactly one
 * reading of one read_and_reset (see "Reading"). Allocates nothing: the
 * origins go to the group's scratch, the rows then read in memory order,
 * when no other read_and_reset holds it, else the counters are read one by
 * one. 0, or -1 with errno ERANGE and nothing read or reset when
 * len < size. Thread-safe as add, and with other read_and_reset calls.
 */
int sc_group_read_and_reset(sc_group *g, uint64_t *out, size_t len);

/* Every counter back to 0, origins too. Only while nothing else uses g. */
void sc_group_reset(sc_group *g);

/*
 * Bytes the group allocated: its rows (not a placed buffer's header) and
 * scratch, and the sc_group itself when sc_group_new and its kin made it.
 * Thread-safe; never fails.
 */
size_t sc_group_bytes(const sc_group *g);

/*
 * "path=<sc_group_path>;slots=<CPU rows>;counters=<n>;row=<bytes per row>"
 * into buf, as snprintf (the describe contract of scounters.h): path is the
 * group's own index, not the process's. Thread-safe; never fails.
 */
int sc_group_describe(const sc_group *g, char *buf, size_t size);

/* ---- the variant PerCPUGroup ------------------------------------------------------ */

/*
 * The counters of one sc_table as one group: sc_table_create makes a group
 * of the table's n counters (sc_percpu_group_reserve) before it inits them,
 * each init takes the next counter of the group, and sc_table_destroy frees
 * the group (sc_percpu_group_release). A counter in the table is a pointer
 * to its first word (8 bytes, packed). Increments are sc_group_add's;
 * get is the raw sum (the handle API keeps its own origin); reset zeroes
 * the counter's words (only while nothing increments).
 *
 * Range: 2^64 total, wraps. Errors: config fails when env->cpus is above
 * SC_GROUP_MAX_SLOTS; reserve fails when n is above SC_GROUP_MAX_COUNTERS or
 * out of memory; init fails when no group was reserved or it is full.
 * Bytes per counter: 8 in the array plus the group's bytes over n, about
 * 8 x (CPUs + 2) (heap_bytes reports the share, rounded up).
 */
typedef struct sc_percpu_group_pool sc_percpu_group_pool; /* private (group.c) */

typedef struct sc_percpu_group {
	unsigned char *col; /* the counter's word in row 0; read-only after init */
} sc_percpu_group_t;

typedef struct sc_percpu_group_cfg {
	uint32_t cpus;              /* CPU rows */
	size_t row;                 /* the group's row bytes, set by reserve */
	sc_percpu_group_pool *pool; /* the group, set by reserve; NULL before */
	uint64_t index;             /* the group's index, set by reserve */
} sc_percpu_group_cfg;

SC_OP_DECLARE_OUT_OF_LINE(percpu_group)
SC_OP_SIZEOF(percpu_group)
SC_OP_RANGE_FULL(percpu_group)
SC_OP_NO_FLUSH(percpu_group)
SC_OP_DECLARE_DESCRIBE(percpu_group)
size_t sc_percpu_group_heap_bytes(const sc_percpu_group_t *c, const sc_percpu_group_cfg *cfg);

/*
 * Make the group that the next n inits take their counters from (at most
 * once per configuration). 0, or -1 with err set. Set-up only.
 */
int sc_percpu_group_reserve(sc_percpu_group_cfg *cfg, size_t n, sc_err *err);
/* Free the group (after every counter's destroy); NULL pool: nothing. */
void sc_percpu_group_release(sc_percpu_group_cfg *cfg);

static inline void sc_percpu_group_add(sc_percpu_group_t *c, const sc_percpu_group_cfg *cfg,
                                       sc_thread *t, uint64_t n)
{
	(void)t;
	sc_percpu_add_ix(c->col, cfg->row, cfg->cpus, cfg->index, n);
}

static inline void sc_percpu_group_inc(sc_percpu_group_t *c, const sc_percpu_group_cfg *cfg,
                                       sc_thread *t)
{
	sc_percpu_group_add(c, cfg, t, 1);
}

/*
 * Not for programs: the raw sum of one counter's CPU words and overflow word
 * (slots + 1 words from col, row bytes apart), relaxed loads: the words are
 * monotone, so a sum needs no ordering (as every distributed counter's).
 */
static inline uint64_t sc_group_column_sum_(const unsigned char *col, size_t row, uint32_t slots)
{
	uint64_t sum = 0;
	for (uint32_t r = 0; r <= slots; r++)
		/* relaxed: see above. */
		sum += atomic_load_explicit((const SC_ATOMIC(uint64_t) *)(const void *)(col + r * row),
		                            memory_order_relaxed);
	return sum;
}

/* The raw sum of the counter's CPU and overflow words. */
static inline uint64_t sc_percpu_group_get(const sc_percpu_group_t *c,
                                           const sc_percpu_group_cfg *cfg)
{
	return sc_group_column_sum_(c->col, cfg->row, cfg->cpus);
}

/*
 * PerCPUGroup's contract (sc_contract.h): exact, async-signal-safe (the
 * restartable sequence), its handle increment inlined into the caller.
 */
SC_OP_ONE_READING(percpu_group)
SC_OP_BOUND_EXACT(percpu_group)
enum {
	SC_PROMISES_percpu_group =
		SC_PROMISE_SIGNAL_SAFE | SC_PROMISE_FORK_EXACT | SC_PROMISE_INLINE_RSEQ
};

/* The table's group, reserved and released around its counters; the handle inlines the add. */
static inline int sc_percpu_group_reserve_(void *cfg, size_t n, sc_err *err)
{
	return sc_percpu_group_reserve((sc_percpu_group_cfg *)cfg, n, err);
}
static inline void sc_percpu_group_release_(void *cfg)
{
	sc_percpu_group_release((sc_percpu_group_cfg *)cfg);
}
static inline sc_handle_path sc_percpu_group_handle_path_(const void *c, const void *cfg)
{
	sc_handle_path p = sc_path_of_kind_(SC_PATH_PERCPU);
	p.slot0 = ((const sc_percpu_group_t *)c)->col;
	p.stride = ((const sc_percpu_group_cfg *)cfg)->row;
	p.slots = ((const sc_percpu_group_cfg *)cfg)->cpus;
	p.index = ((const sc_percpu_group_cfg *)cfg)->index;
	return p;
}
#define SC_HOOKS_percpu_group                                                              \
	{.handle_path = sc_percpu_group_handle_path_, .table_reserve = sc_percpu_group_reserve_, \
	 .table_release = sc_percpu_group_release_}

/* ---- the earlier name: sc_pcgroup ------------------------------------------------- */

/*
 * sc_pcgroup, a group's rows without the scratch, was the name of a group
 * in the caller's storage before sc_group could be held there too. Its
 * functions stay, for code written for them; new code uses sc_group's. Each
 * is its sc_group namesake on the rows, with these differences:
 * sc_pcgroup_init is sc_group_init with SC_PERCPU_PRIVATE and
 * sc_pcgroup_init_as is sc_group_init; sc_pcgroup_attach is
 * sc_group_init_attached; sc_pcgroup_add and _inc return nothing (an index
 * i >= n counts nothing); sc_pcgroup_read_and_reset takes the origins'
 * buffer from the caller (scratch: n words, one per concurrent call; NULL:
 * counter by counter); sc_pcgroup_bytes counts the rows alone.
 */
#define SC_PCGROUP_PLACED_VERSION SC_GROUP_PLACED_VERSION
int sc_pcgroup_init(sc_pcgroup *g, uint32_t n, const sc_env *env, sc_err *err);
int sc_pcgroup_init_as(sc_pcgroup *g, uint32_t n, const sc_env *env, unsigned how, sc_err *err);
void sc_pcgroup_destroy(sc_pcgroup *g);
size_t sc_pcgroup_placed_bytes(uint32_t n, uint32_t cpus);
int sc_pcgroup_init_placed(sc_pcgroup *g, void *buf, size_t size, uint32_t n, uint32_t cpus,
                           sc_err *err);
int sc_pcgroup_attach(sc_pcgroup *g, void *buf, size_t size, sc_err *err);
const char *sc_pcgroup_path(const sc_pcgroup *g);

static inline void sc_pcgroup_add(sc_pcgroup *g, uint32_t i, uint64_t v)
{
	if (__builtin_expect(i < g->n, 1))
		sc_percpu_add_ix(g->rows + (size_t)i * 8, g->row, g->slots, g->index, v);
}

static inline void sc_pcgroup_inc(sc_pcgroup *g, uint32_t i)
{
	sc_pcgroup_add(g, i, 1);
}

uint64_t sc_pcgroup_get(const sc_pcgroup *g, uint32_t i);
int sc_pcgroup_get_all(const sc_pcgroup *g, uint64_t *out, size_t len);
int sc_pcgroup_read_and_reset(sc_pcgroup *g, uint64_t *out, size_t len, uint64_t *scratch);
void sc_pcgroup_reset(sc_pcgroup *g);
size_t sc_pcgroup_bytes(const sc_pcgroup *g);
int sc_pcgroup_describe(const sc_pcgroup *g, char *buf, size_t size);

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_GROUP_H */
