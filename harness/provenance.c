/* SPDX-License-Identifier: MIT */
/* provenance.c - CPU identity, frequency policy and binary path for meta.json. */
#include "config.h"

#include "provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* First line of dir/rel, trailing whitespace removed; 0 when it is there and not empty. */
static int read_line(const char *dir, const char *rel, char *buf, size_t size)
{
	char path[512];
	FILE *f;
	size_t n;
	snprintf(path, sizeof path, "%s/%s", dir, rel);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t'))
		buf[--n] = '\0';
	return n > 0 ? 0 : -1;
}

/* A sysfs frequency in kHz as MHz; -1 when absent or not a number. */
static double read_mhz(const char *dir, const char *rel)
{
	char buf[64], *end;
	double khz;
	if (read_line(dir, rel, buf, sizeof buf) < 0)
		return -1;
	khz = strtod(buf, &end);
	return end != buf && *end == '\0' && khz > 0 ? khz / 1000.0 : -1;
}

/* "key<spaces>: value" lines of a /proc/cpuinfo-like file; the first match. */
static int cpuinfo_field(const char *path, const char *key, char *buf, size_t size)
{
	char line[512];
	size_t klen = strlen(key);
	FILE *f = fopen(path, "r");
	int rc = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		char *colon, *v;
		size_t n;
		if (strncmp(line, key, klen) != 0 || !(colon = strchr(line, ':')))
			continue;
		if (strspn(line + klen, " \t") != (size_t)(colon - line) - klen)
			continue; /* "model name" is not "model" */
		v = colon + 1 + strspn(colon + 1, " \t");
		n = strcspn(v, "\n");
		if (n == 0)
			continue;
		snprintf(buf, size, "%.*s", (int)n, v);
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

/*
 * SMT: more PUs than cores in the topology means on. Otherwise the kernel's
 * smt/active says whether sibling threads run; smt/control "off", "forceoff",
 * "notsupported" or "notimplemented" also mean off. Unknown otherwise.
 */
static const char *smt_state(const topo *t, const char *cpu_dir)
{
	char buf[32];
	if (topo_pus(t) > topo_cores(t))
		return "on";
	if (read_line(cpu_dir, "smt/active", buf, sizeof buf) == 0 &&
	    (strcmp(buf, "0") == 0 || strcmp(buf, "1") == 0))
		return buf[0] == '1' ? "on" : "off";
	if (read_line(cpu_dir, "smt/control", buf, sizeof buf) == 0) {
		if (strcmp(buf, "on") == 0)
			return "on";
		if (strcmp(buf, "off") == 0 || strcmp(buf, "forceoff") == 0 ||
		    strcmp(buf, "notsupported") == 0 || strcmp(buf, "notimplemented") == 0)
			return "off";
	}
	return "unknown";
}

/*
 * Boost (turbo): the global cpufreq/boost switch (acpi-cpufreq, amd-pstate),
 * the first policy's own boost file (newer kernels), or intel_pstate's
 * no_turbo, whose sense is inverted.
 */
static const char *boost_state(const char *cpu_dir)
{
	static const char *const files[] = {"cpufreq/boost", "cpufreq/policy0/boost",
	                                    "cpu0/cpufreq/boost"};
	char buf[16];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		if (read_line(cpu_dir, files[i], buf, sizeof buf) == 0 &&
		    (strcmp(buf, "0") == 0 || strcmp(buf, "1") == 0))
			return buf[0] == '1' ? "on" : "off";
	if (read_line(cpu_dir, "intel_pstate/no_turbo", buf, sizeof buf) == 0 &&
	    (strcmp(buf, "0") == 0 || strcmp(buf, "1") == 0))
		return buf[0] == '1' ? "off" : "on";
	return "unknown";
}

void prov_cpu_read(prov_cpu *c, const topo *t, const char *cpu_dir, const char *brand,
                   const char *cpuinfo)
{
	memset(c, 0, sizeof *c);
	snprintf(c->model, sizeof c->model, "%s", topo_cpu_model(t));
	snprintf(c->vendor, sizeof c->vendor, "%s", topo_cpu_vendor(t));
	if (brand && !c->model[0])
		snprintf(c->model, sizeof c->model, "%s", brand);
	if (cpuinfo && !c->model[0])
		cpuinfo_field(cpuinfo, "model name", c->model, sizeof c->model);
	if (cpuinfo && !c->vendor[0])
		cpuinfo_field(cpuinfo, "vendor_id", c->vendor, sizeof c->vendor);
	if (!c->model[0])
		snprintf(c->model, sizeof c->model, "unknown");
	if (!c->vendor[0])
		snprintf(c->vendor, sizeof c->vendor, "unknown");
	c->sockets = topo_packages(t);
	c->cores = topo_cores(t);
	c->pus = topo_pus(t);
	c->smt = smt_state(t, cpu_dir);
	if (read_line(cpu_dir, "cpu0/cpufreq/scaling_governor", c->governor, sizeof c->governor) &&
	    read_line(cpu_dir, "cpufreq/policy0/scaling_governor", c->governor, sizeof c->governor))
		snprintf(c->governor, sizeof c->governor, "unknown");
	c->boost = boost_state(cpu_dir);
	c->min_mhz = read_mhz(cpu_dir, "cpu0/cpufreq/cpuinfo_min_freq");
	c->max_mhz = read_mhz(cpu_dir, "cpu0/cpufreq/cpuinfo_max_freq");
	if (c->min_mhz < 0)
		c->min_mhz = read_mhz(cpu_dir, "cpufreq/policy0/cpuinfo_min_freq");
	if (c->max_mhz < 0)
		c->max_mhz = read_mhz(cpu_dir, "cpufreq/policy0/cpuinfo_max_freq");
}

int prov_cpu_warning(const prov_cpu *c, char *buf, size_t size)
{
	bool gov = strcmp(c->governor, "unknown") != 0 && strcmp(c->governor, "performance") != 0;
	bool boost = strcmp(c->boost, "on") == 0;
	if (!gov && !boost)
		return 0;
	snprintf(buf, size,
	         "warning: %s%s%s%s: the clock may change between runs (for stable figures: "
	         "governor 'performance', boost off)",
	         gov ? "CPU frequency governor is '" : "", gov ? c->governor : "",
	         gov ? "'" : "", boost ? (gov ? " and boost is on" : "CPU boost is on") : "");
	return 1;
}

const char *prov_binary_path(char *buf, size_t size, const char *argv0)
{
	ssize_t n = size > 1 ? readlink("/proc/self/exe", buf, size - 1) : -1;
	if (n > 0 && (size_t)n < size - 1) {
		buf[n] = '\0';
		return buf;
	}
	return argv0;
}
