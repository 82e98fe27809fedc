/* SPDX-License-Identifier: MIT */
/*
 * provenance.h - what a result says about the machine and the build behind
 * it: the CPU (model, sockets, SMT, frequency governor, boost), the binary
 * that ran, and the version of the output schema. A reader needs these before
 * comparing one result set with another or with the papers' machines.
 *
 * Everything here is read once, single-threaded, before any run; nothing
 * fails: what the machine does not say is reported as "unknown".
 */
#ifndef SC_PROVENANCE_H
#define SC_PROVENANCE_H

#include <stdint.h>
#include <stddef.h>

#include "placement.h"

/*
 * Version of the CSV columns and meta.json keys (results/README.md lists
 * every version's change). Bump it on any change a reader of old files
 * would notice.
 */
#define SC_SCHEMA_VERSION 7

typedef struct prov_cpu {
	char model[128];  /* "unknown" when neither hwloc nor /proc/cpuinfo says */
	char vendor[64];
	uint32_t sockets; /* 0: unknown */
	uint32_t cores, pus;
	const char *smt;   /* "on", "off" or "unknown" */
	char governor[32]; /* cpufreq scaling governor of the first CPU, or "unknown" */
	const char *boost; /* "on", "off" or "unknown" */
	double min_mhz;    /* cpuinfo_min_freq / cpuinfo_max_freq; < 0: unknown */
	double max_mhz;
} prov_cpu;

/*
 * Fill c from the topology t and the Linux CPU directory cpu_dir (normally
 * "/sys/devices/system/cpu"; tests pass a directory of their own). The
 * model comes from the topology (hwloc reads CPUID), else from brand (the
 * CPU's own name, arch_cpu_brand; NULL or "": none), else from cpuinfo, a
 * /proc/cpuinfo-like file (NULL: do not look), whose name may be stale in a
 * guest restored on another host, so it comes last; the vendor from the
 * topology, else from cpuinfo.
 */
void prov_cpu_read(prov_cpu *c, const topo *t, const char *cpu_dir, const char *brand,
                   const char *cpuinfo);

/*
 * One warning line (no newline) when the frequency may vary between runs: a
 * known governor other than "performance", or boost on. 1 with buf filled,
 * 0 when there is nothing to say.
 */
int prov_cpu_warning(const prov_cpu *c, char *buf, size_t size);

/* The binary that is running (the real file, not a libtool wrapper), or argv0. */
const char *prov_binary_path(char *buf, size_t size, const char *argv0);

#endif /* SC_PROVENANCE_H */
