/*
 * clock.h - a cheap tick clock for per-increment latency and read cost:
 * the TSC on x86 (invariant on any machine this suite targets), else
 * CLOCK_MONOTONIC in ns. clk_ns_per_tick() converts, calibrated once
 * against CLOCK_MONOTONIC.
 */
#ifndef SC_CLOCK_H
#define SC_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* lfence keeps the read from being hoisted above earlier loads (Intel SDM: rdtsc is not ordered). */
static inline uint64_t clk_ticks(void)
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}
#define CLK_SOURCE "tsc"
#else
static inline uint64_t clk_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define CLK_SOURCE "clock_gettime"
#endif

/* ns per tick, measured over about 20 ms the first time it is called. */
double clk_ns_per_tick(void);
/* Ticks that an empty clk_ticks() pair costs (the median of many), subtracted from samples. */
uint64_t clk_overhead_ticks(void);

#endif /* SC_CLOCK_H */
