/* SPDX-License-Identifier: MIT */
/*
 * test_group_embed.c - the group as an embedder uses it (sc_group.h): a
 * NULL env means the default; rows follow the CPUs the process may run on;
 * get_all and read_and_reset take out's length and refuse a short one;
 * read_and_reset allocates nothing (malloc is counted here: this program
 * defines malloc, which the library's calls reach too); the handle's
 * inlined add keeps its EINVAL. Deterministic: exact values, no timing.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, CPU_SET */
#endif
#include <scounters/scounters.h>

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

/*
 * Every malloc of the process, counted (glibc's own allocator underneath).
 * Not under AddressSanitizer, whose allocator owns malloc and free (a block
 * from __libc_malloc freed by its free aborts): there the two allocation
 * checks are reported as skipped.
 */
#if defined(__SANITIZE_ADDRESS__)
#define COUNTS_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNTS_MALLOC 0
#endif
#endif
#ifndef COUNTS_MALLOC
#define COUNTS_MALLOC 1
#endif

#if COUNTS_MALLOC
extern void *__libc_malloc(size_t n);
static SC_ATOMIC(unsigned long) mallocs;
void *malloc(size_t n)
{
	/* relaxed: a tally read by the one thread that checks it */
	atomic_fetch_add_explicit(&mallocs, 1, memory_order_relaxed);
	return __libc_malloc(n);
}

static unsigned long malloc_count(void)
{
	/* relaxed: as above */
	return atomic_load_explicit(&mallocs, memory_order_relaxed);
}
#else
static unsigned long malloc_count(void)
{
	return 0;
}
#endif

/* An allocation check, or its skip where malloc is not counted. */
static void allocates_nothing(unsigned long during, const char *name)
{
	if (COUNTS_MALLOC)
		tap_ok(during == 0, "%s (%lu mallocs)", name, during);
	else
		tap_ok(1, "%s # SKIP AddressSanitizer owns malloc: not counted", name);
}

static void test_null_env(void)
{
	sc_pcgroup g;
	sc_err err;
	int rc = sc_pcgroup_init(&g, 5, NULL, &err);
	tap_ok(rc == 0 && g.slots >= 1, "pcgroup_init_null_env_is_the_default (slots=%u)",
	       rc == 0 ? g.slots : 0);
	if (rc == 0)
		sc_pcgroup_destroy(&g);
}

/* On one allowed CPU (the highest), a default group has the rows its index needs. */
static void test_rows_by_affinity(void)
{
	cpu_set_t old, one;
	if (sched_getaffinity(0, sizeof old, &old) != 0) {
		tap_diag("rows_follow_the_affinity_mask not checked: sched_getaffinity failed");
		return;
	}
	int top = -1;
	for (int k = 0; k < CPU_SETSIZE; k++)
		if (CPU_ISSET(k, &old))
			top = k;
	CPU_ZERO(&one);
	CPU_SET(top, &one);
	if (top < 0 || sched_setaffinity(0, sizeof one, &one) != 0) {
		tap_diag("rows_follow_the_affinity_mask not checked: sched_setaffinity failed");
		return;
	}
	sc_pcgroup g;
	sc_err err;
	int rc = sc_pcgroup_init(&g, 3, NULL, &err);
	sched_setaffinity(0, sizeof old, &old);
	if (!tap_ok(rc == 0, "group_on_one_cpu"))
		return;
	uint32_t want = strcmp(sc_percpu_path(), "rseq-mm_cid") == 0 ? 1u : (uint32_t)top + 1;
	tap_ok(g.slots == want, "rows_follow_the_affinity_mask (%u rows on CPU %d, %s; %u wanted)",
	       g.slots, top, sc_percpu_path(), want);
	sc_pcgroup_destroy(&g);
}

static void test_lengths_and_no_alloc(void)
{
	sc_err err;
	sc_group *h = sc_group_new(4, &err);
	if (!tap_ok(h != NULL, "group_new"))
		return;
	for (uint32_t i = 0; i < 4; i++)
		sc_group_add(h, i, 10 + i);
	uint64_t out[4] = {0}, scratch[4];
	errno = 0;
	tap_ok(sc_group_get_all(h, out, 3) == -1 && errno == ERANGE && out[0] == 0,
	       "get_all_refuses_a_short_array");
	errno = 0;
	tap_ok(sc_group_read_and_reset(h, out, 3) == -1 && errno == ERANGE &&
	               sc_group_get(h, 3) == 13,
	       "read_and_reset_refuses_a_short_array_and_resets_nothing");
	unsigned long before = malloc_count();
	int rc = sc_group_read_and_reset(h, out, 4);
	unsigned long during = malloc_count() - before;
	tap_ok(rc == 0 && out[0] == 10 && out[3] == 13 && sc_group_get(h, 3) == 0,
	       "handle_read_and_reset_readings");
	allocates_nothing(during, "handle_read_and_reset_allocates_nothing");
	sc_group_inc(h, 2);
	sc_pcgroup pg;
	sc_env env = {1, 1, 2};
	if (sc_pcgroup_init(&pg, 4, &env, &err) == 0) {
		sc_pcgroup_add(&pg, 1, 5);
		before = malloc_count();
		sc_pcgroup_read_and_reset(&pg, out, 4, scratch);
		sc_pcgroup_read_and_reset(&pg, out + 0, 4, NULL);
		during = malloc_count() - before;
		allocates_nothing(during, "pcgroup_read_and_reset_allocates_nothing");
		sc_pcgroup_destroy(&pg);
	}
	errno = 0;
	tap_ok(sc_group_inc(h, 4) == -1 && errno == EINVAL && sc_group_get(h, 2) == 1,
	       "handle_group_inc_inlined_keeps_einval");
	sc_group_free(h);
}

int main(void)
{
	test_null_env();
	test_rows_by_affinity();
	test_lengths_and_no_alloc();
	return tap_done();
}
