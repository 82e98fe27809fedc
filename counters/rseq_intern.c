/* SPDX-License-Identifier: MIT */
/*
 * rseq_intern.c - the library's copies of the restartable sequences'
 * descriptors (sc_rseq.h, "Plugins and unloading"). A sequence stores in
 * the thread's rseq area the address its slot holds; each object's
 * constructor hands its slots here, and each slot then points at a copy in
 * memory the library never unmaps (libscounters itself is linked with -z
 * nodelete). So when a plugin is closed, a thread whose rseq_cs still
 * names one of its sequences points at a copy, which the kernel can read:
 * it finds the thread outside the sequence and clears rseq_cs, where it
 * used to find unmapped memory and kill the thread.
 *
 * The kernel reads the signature before a descriptor's abort address
 * whenever it reads the descriptor, so a copy's abort address is the
 * library's trampoline (after the signature), which jumps to the
 * sequence's own handler: the copy keeps its address beside the
 * descriptor, and the sequence keeps the copy's address in a register to
 * its commit (sc_rseq.h, SC_RSEQ_ARM_CLOBBER_).
 *
 * A copy is made once per distinct descriptor (its contents: the
 * sequence's addresses), so a plugin loaded again at the same address
 * reuses its copies; loaded elsewhere, it adds 32 bytes per sequence. A
 * copy whose code is gone is harmless: the kernel compares the thread's
 * instruction pointer with its range and, outside it, clears rseq_cs
 * without reading the code.
 */
#include <scounters/sc_rseq.h>

#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

/* struct rseq_cs of linux/rseq.h (32 bytes, 32-byte aligned), and the handler */
typedef struct sc_rseq_copy {
	alignas(32) uint32_t version;
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;
	uint64_t abort_ip; /* the trampoline */
	uint64_t handler;  /* at byte 32: the sequence's own abort handler */
} sc_rseq_copy;

typedef struct sc_rseq_desc {
	uint32_t version;
	uint32_t flags;
	uint64_t start_ip;
	uint64_t post_commit_offset;
	uint64_t abort_ip;
} sc_rseq_desc;

#if SC_RSEQ_INLINE
/*
 * The trampoline (the architecture's, sc_rseq.h): glibc's signature, as
 * before every abort handler, then a jump to the handler of the copy whose
 * address the aborted sequence holds in its register.
 */
__asm__(SC_RSEQ_TRAMPOLINE_("sc_rseq_trampoline_"));
extern const char sc_rseq_trampoline_[] __attribute__((visibility("hidden")));
SC_STATIC_ASSERT(offsetof(sc_rseq_copy, handler) == 32, "the trampoline reads byte 32");
#endif

#define CHUNK_BYTES (64u * 1024u)
#define CHUNK_DESCS ((CHUNK_BYTES - 64u) / sizeof(sc_rseq_copy))

/* A mapping of copies, never unmapped; chunks form a list, newest first. */
typedef struct chunk {
	struct chunk *next;
	size_t used;
	alignas(64) sc_rseq_copy d[CHUNK_DESCS];
} chunk;
SC_STATIC_ASSERT(sizeof(chunk) <= CHUNK_BYTES, "a chunk fits its mapping");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static chunk *chunks; /* under lock */

/* Whether p is one of the library's copies. Under lock. */
static int is_copy(const void *p)
{
	for (const chunk *c = chunks; c; c = c->next)
		if ((const char *)p >= (const char *)c->d && (const char *)p < (const char *)(c->d + c->used))
			return 1;
	return 0;
}

#if SC_RSEQ_INLINE
/* Whether copy c is the copy of d. */
static int copies(const sc_rseq_copy *c, const sc_rseq_desc *d)
{
	return c->version == d->version && c->flags == d->flags && c->start_ip == d->start_ip &&
	       c->post_commit_offset == d->post_commit_offset && c->handler == d->abort_ip;
}

/* The copy of *d: found among the copies, else made; NULL without memory. Under lock. */
static const sc_rseq_copy *copy_of(const sc_rseq_desc *d)
{
	for (const chunk *c = chunks; c; c = c->next)
		for (size_t i = 0; i < c->used; i++)
			if (copies(&c->d[i], d))
				return &c->d[i];
	if (!chunks || chunks->used == CHUNK_DESCS) {
		void *m = mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		               -1, 0);
		if (m == MAP_FAILED)
			return NULL;
		chunk *c = m;
		c->next = chunks;
		c->used = 0;
		chunks = c;
	}
	sc_rseq_copy *copy = &chunks->d[chunks->used++];
	copy->version = d->version;
	copy->flags = d->flags;
	copy->start_ip = d->start_ip;
	copy->post_commit_offset = d->post_commit_offset;
	copy->abort_ip = (uint64_t)(uintptr_t)sc_rseq_trampoline_;
	copy->handler = d->abort_ip;
	return copy;
}
#endif

void sc_rseq_intern_(void **first, void **last)
{
#if SC_RSEQ_INLINE
	pthread_mutex_lock(&lock);
	for (void **slot = first; slot < last; slot++) {
		SC_ATOMIC(void *) *s = (SC_ATOMIC(void *) *)(void *)slot;
		/* relaxed: the constructors of one object run in one thread */
		const sc_rseq_desc *d = atomic_load_explicit(s, memory_order_relaxed);
		if (!d || is_copy(d))
			continue;
		const sc_rseq_copy *copy = copy_of(d);
		if (copy)
			/*
			 * release: a thread that loads the slot (a sequence,
			 * with an address dependency to the descriptor the
			 * kernel then reads) sees the copy's contents.
			 */
			atomic_store_explicit(s, (void *)(uintptr_t)copy, memory_order_release);
	}
	pthread_mutex_unlock(&lock);
#else
	(void)first;
	(void)last;
#endif
}
