/* SPDX-License-Identifier: MIT */
/*
 * handle_bench.c - ns per sc_counter_inc on one thread, for make bench
 * (harness/bench.sh): what the handle API's increment costs, with the node
 * id refreshed from the kernel (sc_node.h) or, under SCOUNTERS_NODE=fixed,
 * without. Not installed.
 *
 *   handle_bench VARIANT SECONDS    prints: VARIANT NODE_SOURCE NS_PER_INC
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <scounters/scounters.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	sc_err err;
	if (argc != 3 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: handle_bench VARIANT SECONDS\n");
		return 2;
	}
	sc_counter *c = sc_counter_new(argv[1], "", &err);
	if (!c) {
		fprintf(stderr, "handle_bench: %s\n", err.msg);
		return 1;
	}
	double secs = atof(argv[2]), t0 = now(), t = t0;
	unsigned long long n = 0;
	/* Batches of 2^16 increments between clock reads. */
	while (t - t0 < secs) {
		for (int i = 0; i < 65536; i++)
			sc_counter_inc(c);
		n += 65536;
		t = now();
	}
	printf("%s %s %.4f\n", sc_counter_variant(c), sc_node_source(), (t - t0) * 1e9 / (double)n);
	sc_counter_free(c);
	return 0;
}
