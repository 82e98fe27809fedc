/* SPDX-License-Identifier: MIT */
/* arch.c - atomics kind and cache line size of this build and machine (arch.h). */
#include "config.h"

#include "arch.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <scounters/sc_config.h>

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_ATOMICS
#define HWCAP_ATOMICS (1ul << 8) /* Linux arm64 uapi: LSE atomics present */
#endif
#endif

const char *arch_atomics(void)
{
#if defined(__aarch64__) && defined(__linux__)
	/* libgcc's helpers choose by this same hwcap bit, once, at start-up. */
	if (strcmp(SC_ATOMICS, "outline") == 0)
		return getauxval(AT_HWCAP) & HWCAP_ATOMICS ? "outline (runtime-detected): lse"
		                                           : "outline (runtime-detected): llsc";
#endif
	return SC_ATOMICS;
}

/* The largest coherency_line_size of cpu0's caches in sysfs, 0 if none. */
static unsigned sysfs_line(void)
{
	unsigned best = 0;
	for (int i = 0; i < 8; i++) {
		char path[96];
		snprintf(path, sizeof path,
		         "/sys/devices/system/cpu/cpu0/cache/index%d/coherency_line_size", i);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		unsigned v = 0;
		if (fscanf(f, "%u", &v) == 1 && v > best && v <= 4096)
			best = v;
		fclose(f);
	}
	return best;
}

unsigned arch_cache_line(const char **source)
{
	const char *src = "unknown";
	unsigned line = 0;
#if defined(__aarch64__)
	/*
	 * CTR_EL0.CWG (bits 27:24) is log2 of the writeback granule in 4-byte
	 * words: the widest line any cache level may write back, which is what
	 * two counters must not share. Linux lets EL0 read CTR_EL0 (or emulates
	 * the read); 0 means "not provided".
	 */
	uint64_t ctr;
	__asm__ __volatile__("mrs %0, ctr_el0" : "=r"(ctr));
	unsigned cwg = (unsigned)(ctr >> 24) & 0xf;
	if (cwg) {
		line = 4u << cwg;
		src = "ctr_el0";
	}
#endif
	if (!line && (line = sysfs_line()) != 0)
		src = "sysfs";
#ifdef _SC_LEVEL1_DCACHE_LINESIZE
	if (!line) {
		long v = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
		if (v > 0 && v <= 4096) {
			line = (unsigned)v;
			src = "sysconf";
		}
	}
#endif
	if (source)
		*source = src;
	return line;
}

int arch_check(FILE *f)
{
#if defined(__aarch64__) && defined(__linux__)
	if (strcmp(SC_ATOMICS, "lse") == 0 && !(getauxval(AT_HWCAP) & HWCAP_ATOMICS)) {
		fprintf(f, "scbench: built with inline LSE atomics (--with-atomics=lse) but this CPU "
		           "has none (Armv8.0): reconfigure with --with-atomics=auto\n");
		return -1;
	}
#endif
	const char *src;
	unsigned line = arch_cache_line(&src);
	if (line > SC_LINE_SIZE)
		fprintf(f, "scbench: warning: this machine's cache lines are %u bytes (%s) but counters "
		           "are padded to %d: padded counters may share a line; reconfigure with "
		           "--with-line-size=%u\n",
		        line, src, SC_LINE_SIZE, line);
	return 0;
}

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/*
 * Hypervisor vendor signatures (CPUID leaf 0x40000000) and whether they
 * emulate the CPU. x86 only: elsewhere the hypervisor stays "unknown".
 */
static const struct {
	const char sig[13];
	const char *name;
	int emulated;
} hypervisors[] = {
	{"TCGTCGTCGTCG", "qemu-tcg", 1}, /* QEMU's translator: every instruction emulated */
	{"KVMKVMKVM", "kvm", 0},          /* hardware virtualization: native speed */
	{"Microsoft Hv", "hyper-v", 0},
	{"VMwareVMware", "vmware", 0},
	{"XenVMMXenVMM", "xen", 0},
	{"VBoxVBoxVBox", "virtualbox", 0},
	{"ACRNACRNACRN", "acrn", 0},
	{"bhyve bhyve ", "bhyve", 0},
	{" lrpepyh  vr", "parallels", 0},
};
#endif

void arch_hypervisor(arch_hv *hv)
{
	memset(hv, 0, sizeof *hv);
	hv->emulated = -1;
	snprintf(hv->name, sizeof hv->name, "unknown");
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return;
	if (!(c & (1u << 31))) { /* the hypervisor-present bit */
		snprintf(hv->name, sizeof hv->name, "none");
		hv->emulated = 0;
		return;
	}
	__cpuid(0x40000000, a, b, c, d);
	memcpy(hv->signature, &b, 4);
	memcpy(hv->signature + 4, &c, 4);
	memcpy(hv->signature + 8, &d, 4);
	hv->signature[12] = '\0';
	for (char *p = hv->signature; *p; p++) /* keep it printable */
		if (*p < 0x20 || *p > 0x7e)
			*p = '?';
	snprintf(hv->name, sizeof hv->name, "other");
	for (size_t i = 0; i < sizeof hypervisors / sizeof hypervisors[0]; i++)
		if (strcmp(hv->signature, hypervisors[i].sig) == 0) {
			snprintf(hv->name, sizeof hv->name, "%s", hypervisors[i].name);
			hv->emulated = hypervisors[i].emulated;
			return;
		}
	/* A hypervisor we do not know: whether it emulates the CPU is unknown. */
#endif
}

int arch_cpu_brand(char *buf, size_t size)
{
	if (size == 0)
		return -1;
	buf[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	unsigned r[12];
	if (__get_cpuid_max(0x80000000u, NULL) < 0x80000004u)
		return -1;
	for (unsigned i = 0; i < 3; i++)
		__cpuid(0x80000002u + i, r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]);
	char s[49];
	memcpy(s, r, 48);
	s[48] = '\0';
	const char *b = s;
	while (*b == ' ')
		b++;
	size_t n = strlen(b);
	for (size_t i = 0; i < n; i++)
		if (b[i] < 0x20 || b[i] > 0x7e) /* not a name: keep nothing */
			return -1;
	if (n == 0)
		return -1;
	snprintf(buf, size, "%s", b);
	return 0;
#else
	return -1;
#endif
}
