/* SPDX-License-Identifier: MIT */
/*
 * clock.h - a cheap tick clock for per-increment latency and read cost:
 * the TSC on x86 (invariant on any machine this suite targets), the generic
 * timer's virtual count cntvct_el0 on aarch64, else CLOCK_MONOTONIC in ns.
 * clk_ns_per_tick() converts, calibrated once against CLOCK_MONOTONIC (on
 * aarch64 the architected frequency cntfrq_el0, checked against that).
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
#elif defined(__aarch64__)
/*
 * Linux's CLOCK_MONOTONIC on arm64 is computed from this same counter (the
 * vDSO reads cntvct_el0), so reading it directly loses no resolution and
 * skips the vDSO call and its sequence lock. The Arm ARM (DDI 0487, "The
 * Generic Timer in AArch64 state") lets the read happen speculatively out of
 * order: an isb on each side keeps it between the instructions before and
 * after it, as the two lfences do for rdtsc. Resolution is 1/cntfrq_el0:
 * 1 ns from Armv8.6 on, tens of ns on older parts (ns_per_tick in the
 * metadata says which).
 */
static inline uint64_t clk_ticks(void)
{
	uint64_t t;
	__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(t)::"memory");
	return t;
}
/* The counter's frequency in Hz as firmware programmed it (0 if it did not). */
static inline uint64_t clk_nominal_hz(void)
{
	uint64_t f;
	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return f & 0xffffffffu; /* the upper 32 bits are RES0 */
}
#define CLK_SOURCE "cntvct_el0"
#else
static inline uint64_t clk_ticks(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#define CLK_SOURCE "clock_gettime"
#endif

/*
 * ns per tick, measured over about 20 ms the first time it is called. On
 * aarch64 1e9/cntfrq_el0 when that agrees with the measurement within 1%
 * (firmware is known to leave it wrong or unset), else the measurement.
 */
double clk_ns_per_tick(void);
/* How clk_ns_per_tick() was found: "measured" or "cntfrq_el0", for the metadata. */
const char *clk_rate_source(void);
/*
 * The clock's step in ticks: the smallest nonzero difference between two
 * consecutive clk_ticks() over many reads, measured the first time it is
 * called (about 20000 reads). No shorter interval shows on this clock: the
 * true granularity where that exceeds a read's cost (a Zen TSC's 10 ns),
 * else one read's cost (an upper bound on the granularity). At least 1.
 */
uint64_t clk_step_ticks(void);
/* Ticks that an empty clk_ticks() pair costs (the median of many), subtracted from samples. */
uint64_t clk_overhead_ticks(void);

#endif /* SC_CLOCK_H */
