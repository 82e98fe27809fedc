/* SPDX-License-Identifier: MIT */
/*
 * group.c - packed per-CPU counter groups (sc_group.h): a group's rows
 * (sc_pcgroup): their allocation, readings and read_and_reset (sc_group
 * over them, and PerCPUGroup: group_handle.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT_S */
#endif
#include <scounters/scounters.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- the rows (sc_pcgroup) ------------------------------------------------------- */

/* The word of counter i in row r. */
static SC_ATOMIC(uint64_t) *word(const sc_pcgroup *g, uint32_t r, uint32_t i)
{
	return (SC_ATOMIC(uint64_t) *)(void *)(g->rows + (size_t)r * g->row + (size_t)i * 8);
}

/* The row of origins. */
static SC_ATOMIC(uint64_t) *origin(const sc_pcgroup *g, uint32_t i)
{
	return word(g, g->slots + 1, i);
}

/* The rows: line-aligned heap (private), or an anonymous shared mapping (page-aligned). */
static unsigned char *rows_alloc(size_t bytes, unsigned how)
{
	if (how == SC_PERCPU_PRIVATE)
		return sc_alloc_lines(bytes);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * The rows of a group made without a count: one per CPU of the process's
 * affinity mask, the mask's count where the index is mm_cid (dense ids,
 * below the allowed CPUs), else its highest CPU + 1 (cpu_id; the locked
 * path's sched_getcpu). The configured CPUs when the mask cannot be read.
 */
static uint32_t default_rows(uint64_t index)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	size_t ncpu = conf > 0 ? (size_t)conf : 1;
	uint32_t rows = (uint32_t)(ncpu < SC_GROUP_MAX_SLOTS ? ncpu : SC_GROUP_MAX_SLOTS);
	cpu_set_t *set = CPU_ALLOC(ncpu);
	size_t sz = CPU_ALLOC_SIZE(ncpu);
	if (set && sched_getaffinity(0, sz, set) == 0) {
		uint32_t count = (uint32_t)CPU_COUNT_S(sz, set), top = 0;
		for (size_t k = 0; k < ncpu && k < SC_GROUP_MAX_SLOTS; k++)
			if (CPU_ISSET_S(k, sz, set))
				top = (uint32_t)k + 1;
		bool mm_cid = strcmp(sc_percpu_index_name(index), "rseq-mm_cid") == 0;
		if (count > 0 && top > 0)
			rows = mm_cid ? count : top;
	}
	CPU_FREE(set);
	return rows;
}

int sc_pcgroup_init(sc_pcgroup *g, uint32_t n, const sc_env *env, sc_err *err)
{
	return sc_pcgroup_init_as(g, n, env, SC_PERCPU_PRIVATE, err);
}

int sc_pcgroup_init_as(sc_pcgroup *g, uint32_t n, const sc_env *env, unsigned how, sc_err *err)
{
	g->rows = NULL;
	if (how != SC_PERCPU_PRIVATE && how != SC_PERCPU_SHARED) {
		sc_err_set(err, "group: how=%u is invalid: expected SC_PERCPU_PRIVATE (%u) or "
		                "SC_PERCPU_SHARED (%u)", how, SC_PERCPU_PRIVATE, SC_PERCPU_SHARED);
		return -1;
	}
	if (n == 0 || n > SC_GROUP_MAX_COUNTERS) {
		sc_err_set(err, "group: %u counters is invalid: expected an integer in [1, %u]", n,
		           SC_GROUP_MAX_COUNTERS);
		return -1;
	}
	uint64_t index = sc_percpu_index(how);
	uint32_t slots = env && env->cpus ? env->cpus : default_rows(index);
	if (slots > SC_GROUP_MAX_SLOTS) {
		sc_err_set(err, "group: cpus=%u is invalid: expected an integer in [1, %u]", slots,
		           SC_GROUP_MAX_SLOTS);
		return -1;
	}
	g->n = n;
	g->slots = slots;
	g->index = index;
	g->how = how;
	g->row = SC_PAD_UP((size_t)n * 8);
	/* At most 2^26 * 8 bytes per row and 2^20 + 2 rows: well inside size_t on 64 bits. */
	if ((size_t)slots + 2 > SIZE_MAX / g->row ||
	    !(g->rows = rows_alloc(((size_t)slots + 2) * g->row, how))) {
		sc_err_set(err, "group: %s for %u counters x %u CPUs",
		           how == SC_PERCPU_PRIVATE ? "out of memory" : "no shared mapping (mmap)", n,
		           slots);
		return -1;
	}
	for (uint32_t r = 0; r < slots + 2; r++)
		for (uint32_t i = 0; i < n; i++)
			sc_atomic_init(word(g, r, i), 0);
	return 0;
}

void sc_pcgroup_destroy(sc_pcgroup *g)
{
	if (g->how & SC_PCGROUP_PLACED_)
		; /* the caller's buffer (group_placed.c): nothing to free */
	else if (g->rows && g->how == SC_PERCPU_SHARED)
		munmap(g->rows, sc_pcgroup_bytes(g));
	else
		sc_free_lines(g->rows);
	g->rows = NULL;
}

/* Counter i's raw value: the sum of its CPU and overflow words. */
static uint64_t raw(const sc_pcgroup *g, uint32_t i)
{
	return sc_group_column_sum_(g->rows + (size_t)i * 8, g->row, g->slots);
}

uint64_t sc_pcgroup_get(const sc_pcgroup *g, uint32_t i)
{
	if (i >= g->n)
		return 0;
	/*
	 * acquire: pairs with the release CAS of read_and_reset, which came
	 * after that call's loads of the words; the loads below then see
	 * words at least as new (coherence), so the raw sum is >= the origin
	 * and the difference is the increments since.
	 */
	uint64_t o = atomic_load_explicit(origin(g, i), memory_order_acquire);
	return raw(g, i) - o;
}

/*
 * Add every counter's raw sum to out[i], row by row (each row read in
 * order, the way it lies in memory). Callers load the origins first, with
 * acquire (see sc_pcgroup_get).
 */
static void add_raw_all(const sc_pcgroup *g, uint64_t *out)
{
	for (uint32_t r = 0; r <= g->slots; r++)
		for (uint32_t i = 0; i < g->n; i++)
			/* relaxed: monotone words (sc_group_column_sum_). */
			out[i] += atomic_load_explicit(word(g, r, i), memory_order_relaxed);
}

int sc_pcgroup_get_all(const sc_pcgroup *g, uint64_t *out, size_t len)
{
	if (len < g->n) {
		errno = ERANGE;
		return -1;
	}
	/* out starts at minus each origin (loaded first, as sc_pcgroup_get does). */
	for (uint32_t i = 0; i < g->n; i++)
		/* acquire: as in sc_pcgroup_get. */
		out[i] = 0 - atomic_load_explicit(origin(g, i), memory_order_acquire);
	add_raw_all(g, out);
	return 0;
}

int sc_pcgroup_read_and_reset(sc_pcgroup *g, uint64_t *out, size_t len, uint64_t *o)
{
	if (len < g->n) {
		errno = ERANGE;
		return -1;
	}
	/*
	 * Pass 1: each origin (acquire), then every raw sum. Pass 2: move each
	 * origin from what pass 1 loaded to the raw sum with a CAS; the
	 * reading is the difference. A failed CAS means another read_and_reset
	 * moved that origin in between: load it again and sum that counter
	 * again (the new raw sum is >= the new origin, by the argument of
	 * sc_pcgroup_get), until a CAS wins. Each increment is then counted
	 * by the one call whose CAS moved the origin past it. Without the
	 * caller's scratch (o) for the origins, each counter is read alone.
	 */
	if (o) {
		for (uint32_t i = 0; i < g->n; i++)
			/* acquire: as in sc_pcgroup_get. */
			o[i] = atomic_load_explicit(origin(g, i), memory_order_acquire);
		for (uint32_t i = 0; i < g->n; i++)
			out[i] = 0;
		add_raw_all(g, out);
	}
	for (uint32_t i = 0; i < g->n; i++) {
		uint64_t old, now;
		if (o) {
			old = o[i];
			now = out[i];
		} else {
			/* acquire: as in sc_pcgroup_get. */
			old = atomic_load_explicit(origin(g, i), memory_order_acquire);
			now = raw(g, i);
		}
		/*
		 * release on success: a reader that acquires the new origin sees
		 * words at least as new as those summed here. acquire on failure:
		 * the value found plays the part of the acquire load above.
		 */
		while (!atomic_compare_exchange_strong_explicit(origin(g, i), &old, now,
		                                                memory_order_release,
		                                                memory_order_acquire))
			now = raw(g, i);
		out[i] = now - old;
	}
	return 0;
}

void sc_pcgroup_reset(sc_pcgroup *g)
{
	for (uint32_t r = 0; r < g->slots + 2; r++)
		for (uint32_t i = 0; i < g->n; i++)
			/* relaxed: nothing else runs (the contract); the caller's join orders it. */
			atomic_store_explicit(word(g, r, i), 0, memory_order_relaxed);
}

size_t sc_pcgroup_bytes(const sc_pcgroup *g)
{
	return g->rows ? ((size_t)g->slots + 2) * g->row : 0;
}

int sc_pcgroup_describe(const sc_pcgroup *g, char *buf, size_t size)
{
	return snprintf(buf, size, "path=%s;slots=%u;counters=%u;row=%zu", sc_pcgroup_path(g),
	                g->slots, g->n, g->row);
}

