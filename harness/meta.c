/* SPDX-License-Identifier: MIT */
/* meta.c - the FILE.meta.json sidecar (meta.h). */
#include "config.h"

#include "meta.h"
#include "sc_revision.h"

#include <math.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "arch.h"
#include "clock.h"
#include "linkage.h"

void meta_seen_init(meta_seen *h)
{
	memset(h, 0, sizeof *h);
	h->pct_max = h->pct_max_full = NAN; /* null in meta.json when no run had a reader */
}

/* The helper threads of run r: where they ran, and the reader's share of a worker's CPU. */
static void seen_helpers(meta_seen *h, const run_result *r, uint32_t threads, uint32_t pus)
{
	CPU_OR(&h->main_cpus, &h->main_cpus, &r->main_cpus);
	CPU_OR(&h->reader_cpus, &h->reader_cpus, &r->reader_cpus);
	if (threads == pus) {
		CPU_OR(&h->main_cpus_full, &h->main_cpus_full, &r->main_cpus);
		CPU_OR(&h->reader_cpus_full, &h->reader_cpus_full, &r->reader_cpus);
	}
	h->wakeups += r->reader_wakeups;
	h->reader_alive_s += r->reader_alive_s;
	h->reader_cpu_s += r->reader_cpu_s;
	if (!(r->reader_alive_s > 0) || !(r->worker_cpu_s > 0) || !(r->seconds > 0))
		return;
	double pct = 100.0 * (r->reader_cpu_s / r->reader_alive_s) / (r->worker_cpu_s / r->seconds);
	h->pct_max = fmax(h->pct_max, pct);
	if (threads == pus)
		h->pct_max_full = isnan(h->pct_max_full) ? pct : fmax(h->pct_max_full, pct);
}

void meta_seen_add(meta_seen *h, const run_result *r, uint32_t threads, uint32_t pus)
{
	CPU_OR(&h->pus_used, &h->pus_used, &r->pus_used);
	CPU_OR(&h->nodes_used, &h->nodes_used, &r->nodes_used);
	h->runs_moved += r->migrated > 0;
	h->runs_mismatch += r->node_mismatch > 0;
	h->moved_max = r->migrated > h->moved_max ? r->migrated : h->moved_max;
	h->mismatch_max = r->node_mismatch > h->mismatch_max ? r->node_mismatch : h->mismatch_max;
	if (r->idle_workers) {
		h->idle_runs++;
		if (r->idle_workers > h->idle_max) {
			h->idle_max = r->idle_workers;
			h->idle_threads = threads;
		}
	}
	seen_helpers(h, r, threads, pus);
}

/*
 * The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * form, no surrogate, nothing above U+10FFFF), or 0 when s does not start one.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
	           : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) || (c == 0xf0 && s[1] < 0x90) ||
	    (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/*
 * A JSON string of s, always valid UTF-8: a byte that does not begin a
 * well-formed UTF-8 sequence (a file name in another encoding, 0xff) is
 * written as the escape \udcXX of its value XX, the lone surrogate that
 * Python's "surrogateescape" gives it, so that os.fsencode(json value)
 * gives the original bytes back (results/README.md).
 */
void meta_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	fputc('"', f);
	while (*p) {
		size_t n = utf8_len(p);
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else if (n == 0)
			fprintf(f, "\\udc%02x", *p);
		else
			fwrite(p, 1, n, f);
		p += n ? n : 1;
	}
	fputc('"', f);
}

/* A CPU set as a JSON string of ranges, "0-3,8". */
static void json_cpus(FILE *f, const cpu_set_t *set)
{
	char buf[OUT_SET_TEXT];
	meta_json_string(f, out_set_text(set, ',', buf, sizeof buf));
}

static void json_pct(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.4f", x);
	else
		fputs("null", f);
}

static void json_kv(FILE *f, const char *key, const char *val, bool comma)
{
	fprintf(f, "  ");
	meta_json_string(f, key);
	fprintf(f, ": ");
	meta_json_string(f, val);
	fprintf(f, "%s\n", comma ? "," : "");
}

static void json_mhz(FILE *f, const char *key, double mhz)
{
	fprintf(f, ", \"%s\": ", key);
	if (mhz < 0)
		meta_json_string(f, "unknown");
	else
		fprintf(f, "%.0f", mhz);
}

/* The "cpu" object of meta.json; "unknown" where the machine does not say. */
static void json_cpu(FILE *f, const prov_cpu *c)
{
	fprintf(f, "{\"model\": ");
	meta_json_string(f, c->model);
	fprintf(f, ", \"vendor\": ");
	meta_json_string(f, c->vendor);
	fprintf(f, ", \"sockets\": ");
	if (c->sockets)
		fprintf(f, "%u", c->sockets);
	else
		meta_json_string(f, "unknown");
	fprintf(f, ", \"cores\": %u, \"pus\": %u, \"smt\": ", c->cores, c->pus);
	meta_json_string(f, c->smt);
	fprintf(f, ", \"governor\": ");
	meta_json_string(f, c->governor);
	fprintf(f, ", \"boost\": ");
	meta_json_string(f, c->boost);
	json_mhz(f, "min_mhz", c->min_mhz);
	json_mhz(f, "max_mhz", c->max_mhz);
	fprintf(f, "}");
}

/* The opening: schema, host, date, the build and the kernel. */
static void meta_build(FILE *f, const run_setup *s, double started)
{
	char binary[4096];
	struct utsname u;
	char host[256] = "unknown", date[64];
	if (uname(&u) == 0)
		snprintf(host, sizeof host, "%s", u.nodename);
	time_t now = (time_t)started;
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	fprintf(f, "{\n  \"schema_version\": %d,\n", SC_SCHEMA_VERSION);
	json_kv(f, "host", host, true);
	json_kv(f, "date", date, true);
	json_kv(f, "scbench_version", PACKAGE_VERSION, true);
	json_kv(f, "source_revision", SC_REVISION, true);
	json_kv(f, "compiler", SC_COMPILER_ID, true);
	json_kv(f, "compiler_command", SC_COMPILER_COMMAND, true);
	json_kv(f, "binary", prov_binary_path(binary, sizeof binary, s->plan->argv[0]), true);
	json_kv(f, "cflags", SC_CONFIGURE_CFLAGS, true);
	json_kv(f, "build_linkage", linkage_note(), true);
	fprintf(f, "  \"bundle\": ");
	if (linkage_bundle())
		meta_json_string(f, linkage_bundle());
	else
		fputs("null", f); /* not a bundle's scbench */
	fprintf(f, ",\n");
	fprintf(f, "  \"kernel\": ");
	meta_json_string(f, uname(&u) == 0 ? u.release : "unknown");
}

/* The machine: topology, CPU, nodes, binding, events, clock, atomics, emulation. */
static void meta_machine(FILE *f, const run_setup *s, const prov_cpu *cpu)
{
	fprintf(f, ",\n  \"topology\": {\"nodes\": %u, \"cores\": %u, \"pus\": %u, "
	           "\"cache_line\": %d, \"description\": ",
	        topo_nodes(s->topo), topo_cores(s->topo), topo_pus(s->topo), SC_LINE_SIZE);
	meta_json_string(f, topo_describe(s->topo));
	fprintf(f, "},\n  \"cpu\": ");
	json_cpu(f, cpu);
	fprintf(f, ",\n  \"nodes_used\": %u,\n  \"nodes_virtual\": %s,\n", s->nodes,
	        s->nodes_virtual ? "true" : "false");
	const char *bind = run_binding_problem();
	json_kv(f, "binding",
	        s->placement == PLACE_NONE ? "none: threads not bound"
	        : !topo_can_bind(s->topo) ? "none: this topology does not allow binding"
	        : bind ? bind : "ok: every worker bound to its PU",
	        true);
	/* how PerCPU and PerCPUGroup add here (sc_rseq.h) */
	json_kv(f, "percpu_path", sc_percpu_path(), true);
	fprintf(f, "  \"pmu_events\": [");
	for (unsigned e = 0; e < s->pmu->nevents; e++) {
		fprintf(f, "%s", e ? ", " : "");
		meta_json_string(f, s->pmu->names[e]);
	}
	fprintf(f, "],\n");
	json_kv(f, "clock", CLK_SOURCE, true);
	json_kv(f, "clock_rate", clk_rate_source(), true);
	json_kv(f, "atomics", arch_atomics(), true);
	arch_hv hv;
	arch_hypervisor(&hv);
	fprintf(f, "  \"cpu_emulation\": {\"hypervisor\": ");
	meta_json_string(f, hv.name);
	fprintf(f, ", \"signature\": ");
	meta_json_string(f, hv.signature);
	fprintf(f, ", \"emulated\": %s},\n",
	        hv.emulated < 0 ? "null" : hv.emulated ? "true" : "false");
	const char *line_src;
	unsigned line = arch_cache_line(&line_src);
	if (line)
		fprintf(f, "  \"cache_line_system\": %u,\n", line);
	else
		fprintf(f, "  \"cache_line_system\": null,\n");
	json_kv(f, "cache_line_source", line_src, true);
	fprintf(f, "  \"ns_per_tick\": %.6f,\n", clk_ns_per_tick());
	json_kv(f, "pmu_status", s->pmu_status, true);
}

static void meta_calibration(FILE *f, const wl_calibration *cal)
{
	fprintf(f, "  \"calibration\": ");
	if (cal)
		fprintf(f, "{\"work_pct\": %.4f, \"ns_per_cas_inc\": %.3f, \"ns_per_pause\": %.3f, "
		           "\"work_iters\": %.4f},\n",
		        cal->pct, cal->ns_per_inc, cal->ns_per_pause, cal->work_iters);
	else
		fprintf(f, "null,\n");
}

/* The main thread and the reader: never bound; where they ran, what the reader cost. */
static void meta_helpers(FILE *f, const run_setup *s, const meta_seen *h)
{
	fprintf(f, "  \"helper_threads\": {\"main_thread\": {\"bound\": false, \"cpus_seen\": ");
	json_cpus(f, &h->main_cpus);
	fprintf(f, ", \"cpus_seen_at_threads_eq_pus\": ");
	json_cpus(f, &h->main_cpus_full);
	fprintf(f, "}, \"reader\": {\"enabled\": %s, \"bound\": false, \"cpus_seen\": ",
	        s->plan->read_cost ? "true" : "false");
	json_cpus(f, &h->reader_cpus);
	fprintf(f, ", \"cpus_seen_at_threads_eq_pus\": ");
	json_cpus(f, &h->reader_cpus_full);
	double alive = h->reader_alive_s > 0 ? h->reader_alive_s : 1;
	fprintf(f, ", \"wakeups_per_s\": %.1f, \"cpu_pct_of_one_pu\": %.4f, "
	           "\"cpu_pct_of_worker_max\": ",
	        (double)h->wakeups / alive, 100.0 * h->reader_cpu_s / alive);
	json_pct(f, h->pct_max);
	fprintf(f, ", \"cpu_pct_of_worker_at_threads_eq_pus\": ");
	json_pct(f, h->pct_max_full);
	fprintf(f, "}, \"scheduling\": ");
	meta_json_string(f, run_helper_priority());
	fprintf(f, ", \"note\": ");
	meta_json_string(f, "neither is bound: the OS places them, on the workers' PUs when "
	                    "threads == PUs; the main thread sleeps through the phase, the "
	                    "reader wakes once per sample interval (cpus_seen: where they ran)");
	fprintf(f, "},\n");
}

/* Where the workers ran, against the plan. */
static void meta_placement_seen(FILE *f, const meta_seen *h)
{
	fprintf(f, "  \"idle_workers\": {\"runs\": %u, \"max\": %u, \"of_threads\": %u},\n",
	        h->idle_runs, h->idle_max, h->idle_threads);
	fprintf(f, "  \"placement_seen\": {\"node_ids\": ");
	meta_json_string(f, sc_node_source());
	fprintf(f, ", \"pus_used\": ");
	json_cpus(f, &h->pus_used);
	fprintf(f, ", \"kernel_nodes_used\": ");
	json_cpus(f, &h->nodes_used);
	fprintf(f, ", \"runs_off_pu\": %u, \"max_workers_off_pu\": %u, "
	           "\"runs_node_mismatch\": %u, \"max_workers_node_mismatch\": %u},\n",
	        h->runs_moved, h->moved_max, h->runs_mismatch, h->mismatch_max);
}

/* The closing: work, placement kind, the command line and each thread's planned slot. */
static void meta_plan(FILE *f, const run_setup *s)
{
	const run_plan *p = s->plan;
	fprintf(f, "  \"work_iters\": %.4f,\n  \"placement_kind\": ", s->work_iters);
	meta_json_string(f, placement_name(s->placement));
	fprintf(f, ",\n  \"command_line\": [");
	for (int i = 0; i < p->argc; i++) {
		fprintf(f, "%s", i ? ", " : "");
		meta_json_string(f, p->argv[i]);
	}
	fprintf(f, "],\n  \"placement\": [");
	for (uint32_t i = 0; i < p->threads_max; i++) {
		placement_slot sl = placement_slot_of(s->topo, s->placement, i);
		fprintf(f, "%s{\"thread\": %u, \"pu\": ", i ? ", " : "", i);
		if (sl.pu_os >= 0)
			fprintf(f, "%d", sl.pu_os);
		else
			fprintf(f, "null");
		fprintf(f, ", \"node\": %u}", run_thread_node(s, i));
	}
	fprintf(f, "]\n}\n");
}

int meta_write(out_file *mf, const run_setup *s, const wl_calibration *cal, const meta_seen *h,
               const prov_cpu *cpu, double started, sc_err *err)
{
	FILE *f = mf->f;
	meta_build(f, s, started);
	meta_machine(f, s, cpu);
	meta_calibration(f, cal);
	meta_helpers(f, s, h);
	load_meta_json(f, s->pus);
	meta_placement_seen(f, h);
	meta_plan(f, s);
	return out_finish(mf, err);
}
