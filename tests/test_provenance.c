/* SPDX-License-Identifier: MIT */
/*
 * test_provenance.c - the "cpu" facts of meta.json read from a made-up Linux
 * CPU directory and cpuinfo file in a temporary directory: governor, boost
 * (each kernel interface), SMT, frequencies, the model fallback, and the
 * frequency warning. Deterministic; touches nothing outside its directory.
 */
#include "config.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arch.h"
#include "placement.h"
#include "provenance.h"
#include "tap.h"

static char root[400];

/* Write text to root/rel, making its directories. */
static void put(const char *rel, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0700);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

/* Remove one entry below root, children first (nftw with FTW_DEPTH); no
 * shell: root comes from TMPDIR, which may hold quotes. */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level == 0)
		return 0; /* root itself stays */
	return remove(path) == 0 ? 0 : -1;
}

/* Empty root. */
static void clear(void)
{
	if (nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
		exit(1);
}

static topo *load(const char *synthetic)
{
	topo *t;
	sc_err err;
	unsetenv("HWLOC_XMLFILE");
	if (synthetic)
		setenv("HWLOC_SYNTHETIC", synthetic, 1);
	else
		unsetenv("HWLOC_SYNTHETIC");
	if (topo_load(&t, &err)) {
		printf("Bail out! topo_load: %s\n", err.msg);
		exit(1);
	}
	return t;
}

/* The files of cpufreq, intel_pstate and smt read on a machine the topology calls flat. */
static void check_cpufreq(void)
{
	prov_cpu c;
	char msg[256];
	topo *flat = load(NULL);

	/* A machine that says nothing: every field unknown, no warning. */
	prov_cpu_read(&c, flat, root, NULL, NULL);
	tap_ok(strcmp(c.governor, "unknown") == 0, "no cpufreq: governor unknown (%s)", c.governor);
	tap_ok(strcmp(c.boost, "unknown") == 0, "no cpufreq: boost unknown (%s)", c.boost);
	tap_ok(c.min_mhz < 0 && c.max_mhz < 0, "no cpufreq: frequencies unknown");
	tap_ok(!prov_cpu_warning(&c, msg, sizeof msg), "no cpufreq: no warning");
	tap_ok(c.pus == topo_pus(flat) && c.cores == topo_cores(flat), "PUs and cores from the topology");

	/* acpi-cpufreq style: global boost switch, governor and limits of cpu0. */
	put("cpu0/cpufreq/scaling_governor", "powersave\n");
	put("cpu0/cpufreq/cpuinfo_min_freq", "1200000\n");
	put("cpu0/cpufreq/cpuinfo_max_freq", "3500000\n");
	put("cpufreq/boost", "1\n");
	put("smt/active", "1\n");
	prov_cpu_read(&c, flat, root, NULL, NULL);
	tap_ok(strcmp(c.governor, "powersave") == 0, "governor read (%s)", c.governor);
	tap_ok(strcmp(c.boost, "on") == 0, "cpufreq/boost 1 is on (%s)", c.boost);
	tap_ok(c.min_mhz == 1200 && c.max_mhz == 3500, "kHz to MHz (%g, %g)", c.min_mhz, c.max_mhz);
	if (topo_pus(flat) == topo_cores(flat))
		tap_ok(strcmp(c.smt, "on") == 0, "smt/active 1 is on (%s)", c.smt);
	tap_ok(prov_cpu_warning(&c, msg, sizeof msg) && strstr(msg, "'powersave'") &&
	           strstr(msg, "boost is on") && !strchr(msg, '\n'),
	       "governor and boost both in one warning line: %s", msg);

	/* performance governor, boost off: nothing to warn about. */
	put("cpu0/cpufreq/scaling_governor", "performance\n");
	put("cpufreq/boost", "0\n");
	prov_cpu_read(&c, flat, root, NULL, NULL);
	tap_ok(strcmp(c.boost, "off") == 0, "cpufreq/boost 0 is off");
	tap_ok(!prov_cpu_warning(&c, msg, sizeof msg), "performance and no boost: no warning");

	/* intel_pstate: no_turbo has the opposite sense; policy0 files as fallback. */
	clear();
	put("intel_pstate/no_turbo", "0\n");
	put("cpufreq/policy0/scaling_governor", "performance\n");
	put("cpufreq/policy0/cpuinfo_max_freq", "4000000\n");
	put("smt/control", "notsupported\n");
	prov_cpu_read(&c, flat, root, NULL, NULL);
	tap_ok(strcmp(c.boost, "on") == 0, "intel_pstate no_turbo 0 is boost on (%s)", c.boost);
	tap_ok(strcmp(c.governor, "performance") == 0, "governor from policy0 (%s)", c.governor);
	tap_ok(c.max_mhz == 4000 && c.min_mhz < 0, "max from policy0, min unknown");
	tap_ok(prov_cpu_warning(&c, msg, sizeof msg) && strstr(msg, "CPU boost is on") &&
	           !strstr(msg, "governor is"),
	       "boost alone: %s", msg);
	if (topo_pus(flat) == topo_cores(flat))
		tap_ok(strcmp(c.smt, "off") == 0, "smt/control notsupported is off (%s)", c.smt);
	put("intel_pstate/no_turbo", "1\n");
	prov_cpu_read(&c, flat, root, NULL, NULL);
	tap_ok(strcmp(c.boost, "off") == 0, "intel_pstate no_turbo 1 is boost off");
	put("cpufreq/policy0/scaling_governor", "\n");
	prov_cpu_read(&c, flat, root, NULL, NULL);
	tap_ok(strcmp(c.governor, "unknown") == 0, "an empty governor file is unknown");
	topo_destroy(flat);
}

#ifdef HAVE_HWLOC
/* A synthetic 2-socket SMT box: sockets and SMT from the topology, the model from cpuinfo. */
static void check_synthetic(const char *info)
{
	prov_cpu c;
	topo *smt = load("pack:2 [numa] core:4 pu:2");
	put("smt/active", "0\n");
	put("cpuinfo", "processor\t: 0\nvendor_id\t: TestVendor\nmodel\t\t: 85\n"
	               "model name\t: Test CPU @ 2.00GHz\n");
	prov_cpu_read(&c, smt, root, NULL, info);
	tap_ok(c.sockets == 2 && c.cores == 8 && c.pus == 16, "sockets 2, cores 8, PUs 16 (%u, %u, %u)",
	       c.sockets, c.cores, c.pus);
	tap_ok(strcmp(c.smt, "on") == 0, "two PUs per core is SMT on, whatever sysfs says (%s)", c.smt);
	if (!strcmp(topo_cpu_model(smt), "")) {
		tap_ok(strcmp(c.model, "Test CPU @ 2.00GHz") == 0,
		       "model from cpuinfo's 'model name', not 'model' (%s)", c.model);
		tap_ok(strcmp(c.vendor, "TestVendor") == 0, "vendor from cpuinfo (%s)", c.vendor);
	}
	/* The CPU's own name goes before cpuinfo's, which a restored guest may keep stale. */
	prov_cpu_read(&c, smt, root, "Brand CPU 9000", info);
	if (!strcmp(topo_cpu_model(smt), "")) {
		tap_ok(strcmp(c.model, "Brand CPU 9000") == 0,
		       "model from the CPU's brand first (%s)", c.model);
		tap_ok(strcmp(c.vendor, "TestVendor") == 0, "vendor still from cpuinfo (%s)",
		       c.vendor);
	}
	prov_cpu_read(&c, smt, root, "", info);
	if (!strcmp(topo_cpu_model(smt), ""))
		tap_ok(strcmp(c.model, "Test CPU @ 2.00GHz") == 0, "an empty brand is none (%s)",
		       c.model);
	prov_cpu_read(&c, smt, root, NULL, NULL);
	if (!strcmp(topo_cpu_model(smt), ""))
		tap_ok(strcmp(c.model, "unknown") == 0 && strcmp(c.vendor, "unknown") == 0,
		       "no source: model and vendor unknown");
	topo_destroy(smt);
}
#endif

int main(void)
{
	char info[512];
	tap_plan_lazy();
	const char *tmpdir = getenv("TMPDIR");
	snprintf(root, sizeof root, "%s/sc-prov.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(info, sizeof info, "%s/cpuinfo", root);
	check_cpufreq();
#ifdef HAVE_HWLOC
	check_synthetic(info);
#else
	(void)info;
#endif

	/* The brand this CPU gives: hwloc's model where hwloc read one. */
	char brand[64];
	topo *real = load(NULL);
	int have = arch_cpu_brand(brand, sizeof brand) == 0;
#if defined(__x86_64__) || defined(__i386__)
	tap_ok(have && brand[0] && brand[0] != ' ',
	       "x86: the CPUID brand read, no leading space ('%s')", brand);
	if (topo_cpu_model(real)[0])
		tap_ok(strcmp(brand, topo_cpu_model(real)) == 0,
		       "the brand is hwloc's CPUModel ('%s', '%s')", brand, topo_cpu_model(real));
#else
	tap_ok(!have && brand[0] == '\0', "no CPUID brand on this architecture");
#endif
	tap_ok(arch_cpu_brand(brand, 0) == -1, "no room: -1");
	topo_destroy(real);

	char binary[4096];
	const char *b = prov_binary_path(binary, sizeof binary, "argv0");
	tap_ok(b[0] == '/' && strstr(b, "test_provenance") != NULL,
	       "binary path is the real executable (%s)", b);

	clear();
	rmdir(root);
	return tap_done();
}
