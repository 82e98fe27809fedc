/* SPDX-License-Identifier: MIT */
/*
 * arch.h - what this build and this machine do underneath the counters, for
 * the metadata: how 64-bit atomic read-modify-writes are made, and the cache
 * line size of the machine against the padding unit compiled in.
 */
#ifndef SC_ARCH_H
#define SC_ARCH_H

#include <stddef.h>
#include <stdio.h>

/*
 * How the counters' atomic read-modify-writes execute: "x86 lock",
 * "lse" (Armv8.1 LSE instructions inlined), "llsc" (load/store-exclusive
 * loops), "outline (runtime-detected): lse" or "... : llsc" (GCC's
 * -moutline-atomics helpers, which pick LSE when the kernel reports it),
 * or configure's description for other machines.
 */
const char *arch_atomics(void);

/*
 * The machine's cache line size in bytes, 0 when unknown: on aarch64 the
 * cache writeback granule of CTR_EL0 (the largest line of any cache level),
 * else the largest coherency_line_size in sysfs, else sysconf's L1 line.
 * *source (may be NULL) names where it came from.
 */
unsigned arch_cache_line(const char **source);

/*
 * Before a run: -1 and one error line on f when this build cannot run here
 * (LSE atomics compiled in, --with-atomics=lse, on a CPU without them, which
 * would die of SIGILL); else 0, with one warning line on f when the
 * machine's cache line is wider than the padding unit.
 */
int arch_check(FILE *f);

/*
 * Is this CPU real, virtualized or emulated? On x86 the CPUID
 * hypervisor-present bit and the vendor signature of leaf 0x40000000:
 * name "none" (no hypervisor), "qemu-tcg" ("TCGTCGTCGTCG", QEMU's
 * translator: emulated), "kvm" ("KVMKVMKVM", hardware virtualization at
 * native speed), "hyper-v", "vmware", "xen", ... or "other" (signature
 * kept); elsewhere (aarch64: no such user-visible signature) "unknown".
 * emulated: 1 emulated, 0 not, -1 unknown.
 */
typedef struct arch_hv {
	char name[16];
	char signature[13]; /* "" when there is no hypervisor or no CPUID */
	int emulated;
} arch_hv;

void arch_hypervisor(arch_hv *hv);

/*
 * The processor's own name for itself: on x86 the brand string of CPUID
 * leaves 0x80000002-4 (what the CPU says now, even in a guest restored on
 * another host, where the kernel's /proc/cpuinfo keeps the name it read at
 * boot), leading spaces removed and trailing ones kept, as in hwloc's
 * CPUModel, so that either source names a CPU alike. 0 with buf filled;
 * -1 with buf "" where there is none (other architectures, or an x86 CPU
 * without those leaves).
 */
int arch_cpu_brand(char *buf, size_t size);

#endif /* SC_ARCH_H */
