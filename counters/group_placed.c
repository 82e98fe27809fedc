/* SPDX-License-Identifier: MIT */
/*
 * group_placed.c - per-CPU groups in memory the caller provides
 * (sc_group.h, "Groups in memory the caller provides"): the header that
 * init writes at the start of the buffer and attach checks, and each
 * group's own per-CPU path (sc_pcgroup_path).
 */
#include <scounters/scounters.h>

#include <string.h>
#include <unistd.h>

/* "SCGROUP" and a 0 byte, read as a little- or big-endian word alike. */
#define PLACED_MAGIC UINT64_C(0x5343475230555052)

/*
 * The header: one line at the start of the buffer, the rows after it.
 * magic is written last (release) and read first (acquire), so a process
 * that sees it sees the rest. The words are atomics because processes
 * other than the writer read them; after the magic, nothing changes them.
 */
typedef struct placed_header {
	SC_ATOMIC(uint64_t) magic;
	SC_ATOMIC(uint32_t) version;
	SC_ATOMIC(uint32_t) line;  /* SC_LINE_SIZE of the library that made it */
	SC_ATOMIC(uint32_t) n;     /* counters */
	SC_ATOMIC(uint32_t) slots; /* CPU rows */
	SC_ATOMIC(uint64_t) row;   /* bytes per row */
	SC_ATOMIC(uint64_t) bytes; /* header and rows */
	SC_ATOMIC(uint32_t) path;  /* PATH_CPU_ID or PATH_LOCK: the index's kind */
} placed_header;

_Static_assert(sizeof(placed_header) <= SC_LINE_SIZE, "the header fits in one line");

#define PATH_CPU_ID 1u
#define PATH_LOCK 2u

/* The kind of a shared index (cpu_id or the lock; never mm_cid). */
static uint32_t path_kind(uint64_t index)
{
	return strcmp(sc_percpu_index_name(index), "lock") == 0 ? PATH_LOCK : PATH_CPU_ID;
}

/* The rows for cpus 0: every configured CPU (any process may run on any). */
static uint32_t placed_slots(uint32_t cpus)
{
	if (cpus)
		return cpus;
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	if (conf <= 0)
		return 1;
	return conf < (long)SC_GROUP_MAX_SLOTS ? (uint32_t)conf : SC_GROUP_MAX_SLOTS;
}

size_t sc_pcgroup_placed_bytes(uint32_t n, uint32_t cpus)
{
	uint32_t slots = placed_slots(cpus);
	if (n == 0 || n > SC_GROUP_MAX_COUNTERS || slots > SC_GROUP_MAX_SLOTS)
		return 0;
	/* At most 2^29 bytes per row and 2^20 + 2 rows: inside size_t on 64 bits. */
	return SC_LINE_SIZE + ((size_t)slots + 2) * SC_PAD_UP((size_t)n * 8);
}

/* g's fields for a group of n counters and slots rows at buf. */
static void view(sc_pcgroup *g, void *buf, uint32_t n, uint32_t slots, uint64_t index)
{
	g->rows = (unsigned char *)buf + SC_LINE_SIZE;
	g->row = SC_PAD_UP((size_t)n * 8);
	g->slots = slots;
	g->n = n;
	g->index = index;
	g->how = SC_PERCPU_SHARED | SC_PCGROUP_PLACED_;
}

int sc_pcgroup_init_placed(sc_pcgroup *g, void *buf, size_t size, uint32_t n, uint32_t cpus,
                           sc_err *err)
{
	g->rows = NULL;
	uint32_t slots = placed_slots(cpus);
	size_t need = sc_pcgroup_placed_bytes(n, cpus);
	if (need == 0) {
		sc_err_set(err, "group: %u counters x cpus=%u is invalid: expected counters in [1, %u] "
		                "and cpus in [1, %u]", n, slots, SC_GROUP_MAX_COUNTERS,
		           SC_GROUP_MAX_SLOTS);
		return -1;
	}
	if (!buf || (uintptr_t)buf % SC_LINE_SIZE != 0) {
		sc_err_set(err, "group: buffer %p is invalid: expected one aligned to %u bytes", buf,
		           (unsigned)SC_LINE_SIZE);
		return -1;
	}
	if (size < need) {
		sc_err_set(err, "group: buffer of %zu bytes is too small: %u counters x %u CPUs need %zu",
		           size, n, slots, need);
		return -1;
	}
	placed_header *h = buf;
	/* relaxed: no process uses buf during init (the contract); the release below publishes. */
	atomic_store_explicit(&h->magic, 0, memory_order_relaxed);
	uint64_t index = sc_percpu_index(SC_PERCPU_SHARED);
	view(g, buf, n, slots, index);
	for (uint32_t r = 0; r < slots + 2; r++)
		for (uint32_t i = 0; i < n; i++)
			sc_atomic_init((SC_ATOMIC(uint64_t) *)(void *)(g->rows + (size_t)r * g->row + 8 * (size_t)i), 0);
	sc_atomic_init(&h->version, SC_GROUP_PLACED_VERSION);
	sc_atomic_init(&h->line, SC_LINE_SIZE);
	sc_atomic_init(&h->n, n);
	sc_atomic_init(&h->slots, slots);
	sc_atomic_init(&h->row, g->row);
	sc_atomic_init(&h->bytes, need);
	sc_atomic_init(&h->path, path_kind(index));
	/* release: an attach that acquires the magic sees the header and the zeroed rows. */
	atomic_store_explicit(&h->magic, PLACED_MAGIC, memory_order_release);
	return 0;
}

int sc_pcgroup_attach(sc_pcgroup *g, void *buf, size_t size, sc_err *err)
{
	g->rows = NULL;
	if (!buf || (uintptr_t)buf % SC_LINE_SIZE != 0 || size < SC_LINE_SIZE) {
		sc_err_set(err, "group: buffer %p of %zu bytes is invalid: expected one aligned to %u "
		                "bytes holding a group", buf, size, (unsigned)SC_LINE_SIZE);
		return -1;
	}
	placed_header *h = buf;
	/* acquire: pairs with init's release store; the fields below are then init's. */
	if (atomic_load_explicit(&h->magic, memory_order_acquire) != PLACED_MAGIC) {
		sc_err_set(err, "group: no group in the buffer (its magic is missing)");
		return -1;
	}
	/* relaxed: ordered after the acquire of the magic, and never written after it. */
	uint32_t version = atomic_load_explicit(&h->version, memory_order_relaxed);
	uint32_t line = atomic_load_explicit(&h->line, memory_order_relaxed);
	uint32_t n = atomic_load_explicit(&h->n, memory_order_relaxed);
	uint32_t slots = atomic_load_explicit(&h->slots, memory_order_relaxed);
	uint64_t row = atomic_load_explicit(&h->row, memory_order_relaxed);
	uint64_t bytes = atomic_load_explicit(&h->bytes, memory_order_relaxed);
	uint32_t path = atomic_load_explicit(&h->path, memory_order_relaxed);
	if (version != SC_GROUP_PLACED_VERSION || line != SC_LINE_SIZE) {
		sc_err_set(err,
		           "group: the buffer's group has version %u and line size %u: expected "
		           "%u and %u",
		           version, line, SC_GROUP_PLACED_VERSION, (unsigned)SC_LINE_SIZE);
		return -1;
	}
	size_t need = sc_pcgroup_placed_bytes(n, slots ? slots : UINT32_MAX);
	if (need == 0 || row != SC_PAD_UP((size_t)n * 8) || bytes != need || size < need) {
		sc_err_set(err, "group: the buffer's group (%u counters x %u CPUs, %llu bytes) does not "
		                "fit a buffer of %zu bytes", n, slots, (unsigned long long)bytes, size);
		return -1;
	}
	uint64_t index = sc_percpu_index(SC_PERCPU_SHARED);
	if (path_kind(index) != path) {
		sc_err_set(err, "group: the buffer's group takes the per-CPU path %s and this process "
		                "%s: every process must take the same one",
		           path == PATH_LOCK ? "lock" : "rseq-cpu_id", sc_percpu_index_name(index));
		return -1;
	}
	view(g, buf, n, slots, index);
	return 0;
}

const char *sc_pcgroup_path(const sc_pcgroup *g)
{
	return sc_percpu_index_name(g->index);
}
