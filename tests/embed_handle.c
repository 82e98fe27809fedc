/* SPDX-License-Identifier: MIT */
/*
 * embed_handle.c - the handle API from a user's point of view: a counter
 * chosen by name, incremented from 8 threads that never register with the
 * library, read while they run, then checked. Valid C11 and C++17/20/23
 * (doc/embedding.md "Using a counter in your code"; CI builds it both ways against
 * the installed scounters.pc):
 *
 *   cc  -std=c11   embed_handle.c $(pkg-config --cflags --libs scounters) -pthread
 *   c++ -std=c++17 -x c++ embed_handle.c $(pkg-config --cflags --libs scounters) -pthread
 */
#include <scounters/scounters.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 8
#define PER_THREAD 100000

static void *worker(void *arg)
{
	sc_counter *hits = (sc_counter *)arg;
	for (int i = 0; i < PER_THREAD; i++)
		sc_counter_inc(hits);      /* no thread index, no registration */
	sc_counter_add(hits, 1000); /* n at once */
	return NULL;
}

int main(void)
{
	sc_err err;
	sc_counter *hits = sc_counter_new("Sharded", "", &err);
	sc_counter *approx = sc_counter_new("BFP-CSUP", "accuracy=1", &err);
	if (!hits || !approx) {
		fprintf(stderr, "sc_counter_new: %s\n", err.msg);
		return 1;
	}
	pthread_t tid[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&tid[i], NULL, worker, hits) != 0)
			return 1;
	uint64_t seen = sc_counter_get(hits); /* any time, from any thread */
	for (int i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);

	uint64_t expect = (uint64_t)THREADS * (PER_THREAD + 1000);
	uint64_t total = sc_counter_get(hits);
	sc_counter_add(approx, total);
	uint64_t estimate = sc_counter_get(approx);
	uint64_t taken = sc_counter_read_and_reset(hits); /* the value, and restart from 0 */
	printf("%s: %" PRIu64 " (%" PRIu64 " while running), read_and_reset %" PRIu64
	       ", now %" PRIu64 "; %s estimate %" PRIu64 "\n",
	       sc_counter_variant(hits), total, seen, taken, sc_counter_get(hits),
	       sc_counter_variant(approx), estimate);
	int reset_ok = sc_counter_get(hits) == 0;
	/* A gauge: signed adds on a precise counter; an approximate one refuses them. */
	int signed_ok = sc_counter_add_signed(hits, 5) == 0 && sc_counter_add_signed(hits, -2) == 0 &&
	                sc_counter_get_sum(hits) == 3 && sc_counter_add_signed(approx, -1) == -1;
	/* How far a reading may be from the truth, by the variant's contract. */
	sc_counter_bound b = sc_counter_error_bound(approx, SC_READ_FAST);
	printf("%s: RSTDV at most %.2f%%; library %s (%ld), built against %s\n",
	       sc_counter_variant(approx), 100 * b.rstdv, sc_version_string(), sc_version(),
	       SC_VERSION);
	int ok = total == expect && taken == expect && seen <= expect && estimate > expect / 2 &&
	         estimate < expect * 2 && reset_ok && signed_ok && b.kind == SC_BOUND_RSTDV &&
	         sc_version() == SC_VERSION_NUMBER;
	sc_counter_free(hits);
	sc_counter_free(approx);
	return ok ? 0 : 1;
}
