/* SPDX-License-Identifier: MIT */
/*
 * scbench.c - the benchmark driver: parse, calibrate, run every (variant,
 * threads, run) point, write the CSV and its meta.json sidecar.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "clock.h"
#include "cli.h"
#include "listing.h"
#include "output.h"
#include "provenance.h"
#include "run.h"
#include "workload.h"

static void print_list(uint32_t pus)
{
	sc_env env;
	sc_env_default(&env);
	env.threads = pus;
	printf("%-23s %-13s %6s  %s\n", "# name", "kind", "bytes", "summary [parameters]");
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		char name[64];
		snprintf(name, sizeof name, "%s%s%s%s", v->name, v->alias ? " (" : "",
		         v->alias ? v->alias : "", v->alias ? ")" : "");
		printf("%-23s %-13s %6zu  %s%s%s%s\n", name, sc_kind_name(v->kind),
		       sc_variant_default_bytes(v, &env), v->summary, v->params[0] ? " [" : "",
		       v->params, v->params[0] ? "]" : "");
	}
}

/*
 * The two helper threads across all runs: where they were seen, and the
 * reader's CPU time as a share of one worker's (doc/design.md §5.2 read cost; issue 9:
 * at threads == PUs it must stay well below 1%).
 */
typedef struct helpers {
	cpu_set_t main_cpus, reader_cpus;           /* all runs */
	cpu_set_t main_cpus_full, reader_cpus_full; /* runs with threads == PUs */
	uint64_t wakeups;
	double reader_alive_s, reader_cpu_s;
	double pct_max;      /* over all runs */
	double pct_max_full; /* over runs with threads == PUs; NAN if none */
	uint32_t idle_max, idle_threads; /* most workers idle through a timed phase, of how many */
	unsigned idle_runs;
	/* Placement as the kernel saw it (run.h), all runs. */
	cpu_set_t pus_used, nodes_used;
	unsigned runs_moved, runs_mismatch; /* runs with a worker off its PU / off its planned node */
	uint32_t moved_max, mismatch_max;  /* the most such workers in one run */
} helpers;

static void helpers_add(helpers *h, const run_result *r, uint32_t threads, uint32_t pus)
{
	CPU_OR(&h->main_cpus, &h->main_cpus, &r->main_cpus);
	CPU_OR(&h->reader_cpus, &h->reader_cpus, &r->reader_cpus);
	if (threads == pus) {
		CPU_OR(&h->main_cpus_full, &h->main_cpus_full, &r->main_cpus);
		CPU_OR(&h->reader_cpus_full, &h->reader_cpus_full, &r->reader_cpus);
	}
	CPU_OR(&h->pus_used, &h->pus_used, &r->pus_used);
	CPU_OR(&h->nodes_used, &h->nodes_used, &r->nodes_used);
	h->runs_moved += r->migrated > 0;
	h->runs_mismatch += r->node_mismatch > 0;
	h->moved_max = r->migrated > h->moved_max ? r->migrated : h->moved_max;
	h->mismatch_max = r->node_mismatch > h->mismatch_max ? r->node_mismatch : h->mismatch_max;
	h->wakeups += r->reader_wakeups;
	h->reader_alive_s += r->reader_alive_s;
	h->reader_cpu_s += r->reader_cpu_s;
	if (r->idle_workers) {
		h->idle_runs++;
		if (r->idle_workers > h->idle_max) {
			h->idle_max = r->idle_workers;
			h->idle_threads = threads;
		}
	}
	if (!(r->reader_alive_s > 0) || !(r->worker_cpu_s > 0) || !(r->seconds > 0))
		return;
	double pct = 100.0 * (r->reader_cpu_s / r->reader_alive_s) / (r->worker_cpu_s / r->seconds);
	h->pct_max = fmax(h->pct_max, pct);
	if (threads == pus)
		h->pct_max_full = isnan(h->pct_max_full) ? pct : fmax(h->pct_max_full, pct);
}

/* A CPU set as a JSON string of ranges, "0-3,8". */
static void json_cpus(FILE *f, const cpu_set_t *set)
{
	char buf[OUT_SET_TEXT];
	out_json_string(f, out_set_text(set, ',', buf, sizeof buf));
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
	out_json_string(f, key);
	fprintf(f, ": ");
	out_json_string(f, val);
	fprintf(f, "%s\n", comma ? "," : "");
}

static void json_mhz(FILE *f, const char *key, double mhz)
{
	fprintf(f, ", \"%s\": ", key);
	if (mhz < 0)
		out_json_string(f, "unknown");
	else
		fprintf(f, "%.0f", mhz);
}

/* The "cpu" object of meta.json; "unknown" where the machine does not say. */
static void json_cpu(FILE *f, const prov_cpu *c)
{
	fprintf(f, "{\"model\": ");
	out_json_string(f, c->model);
	fprintf(f, ", \"vendor\": ");
	out_json_string(f, c->vendor);
	fprintf(f, ", \"sockets\": ");
	if (c->sockets)
		fprintf(f, "%u", c->sockets);
	else
		out_json_string(f, "unknown");
	fprintf(f, ", \"cores\": %u, \"pus\": %u, \"smt\": ", c->cores, c->pus);
	out_json_string(f, c->smt);
	fprintf(f, ", \"governor\": ");
	out_json_string(f, c->governor);
	fprintf(f, ", \"boost\": ");
	out_json_string(f, c->boost);
	json_mhz(f, "min_mhz", c->min_mhz);
	json_mhz(f, "max_mhz", c->max_mhz);
	fprintf(f, "}");
}

/* Where the kernel put the workers, against the plan: a warning when they strayed. */
static void warn_placement(const run_setup *s, const helpers *h)
{
	bool bound = s->placement != PLACE_NONE && topo_can_bind(s->topo) && !run_binding_problem();
	if (bound && h->runs_moved)
		fprintf(stderr, "scbench: warning: in %u runs a worker left its planned PU (up to %u "
		                "workers; see the migrated column)\n",
		        h->runs_moved, h->moved_max);
	if (h->runs_mismatch)
		fprintf(stderr, "scbench: warning: in %u runs a bound worker started on a node other "
		                "than its planned one (up to %u workers; see the node_mismatch column): "
		                "hwloc's topology and the kernel's node ids disagree\n",
		        h->runs_mismatch, h->mismatch_max);
}

/* Write the sidecar into mf (opened by the caller); 0, or -1 with err set. */
static int write_meta(out_file *mf, const run_setup *s, const wl_calibration *cal,
                      const helpers *h, const prov_cpu *cpu, double started, sc_err *err)
{
	FILE *f = mf->f;
	char binary[4096];
	struct utsname u;
	char host[256] = "unknown", date[64];
	if (uname(&u) == 0)
		snprintf(host, sizeof host, "%s", u.nodename);
	time_t now = (time_t)started;
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	const cli_opts *o = s->opts;
	fprintf(f, "{\n  \"schema_version\": %d,\n", SC_SCHEMA_VERSION);
	json_kv(f, "host", host, true);
	json_kv(f, "date", date, true);
	json_kv(f, "scbench_version", PACKAGE_VERSION, true);
	json_kv(f, "source_revision", SC_REVISION, true);
	json_kv(f, "compiler", SC_COMPILER_ID, true);
	json_kv(f, "compiler_command", SC_COMPILER_COMMAND, true);
	json_kv(f, "binary", prov_binary_path(binary, sizeof binary, o->argv[0]), true);
	json_kv(f, "cflags", SC_CONFIGURE_CFLAGS, true);
	fprintf(f, "  \"kernel\": ");
	out_json_string(f, uname(&u) == 0 ? u.release : "unknown");
	fprintf(f, ",\n  \"topology\": {\"nodes\": %u, \"cores\": %u, \"pus\": %u, "
	           "\"cache_line\": %d, \"description\": ",
	        topo_nodes(s->topo), topo_cores(s->topo), topo_pus(s->topo), SC_LINE_SIZE);
	out_json_string(f, topo_describe(s->topo));
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
	fprintf(f, "  \"pmu_events\": [");
	for (unsigned e = 0; e < s->pmu->nevents; e++) {
		fprintf(f, "%s", e ? ", " : "");
		out_json_string(f, s->pmu->names[e]);
	}
	fprintf(f, "],\n");
	json_kv(f, "clock", CLK_SOURCE, true);
	json_kv(f, "clock_rate", clk_rate_source(), true);
	json_kv(f, "atomics", arch_atomics(), true);
	arch_hv hv;
	arch_hypervisor(&hv);
	fprintf(f, "  \"cpu_emulation\": {\"hypervisor\": ");
	out_json_string(f, hv.name);
	fprintf(f, ", \"signature\": ");
	out_json_string(f, hv.signature);
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
	fprintf(f, "  \"calibration\": ");
	if (cal)
		fprintf(f, "{\"work_pct\": %.4f, \"ns_per_cas_inc\": %.3f, \"ns_per_pause\": %.3f, "
		           "\"work_iters\": %.4f},\n",
		        cal->pct, cal->ns_per_inc, cal->ns_per_pause, cal->work_iters);
	else
		fprintf(f, "null,\n");
	fprintf(f, "  \"helper_threads\": {\"main_thread\": {\"bound\": false, \"cpus_seen\": ");
	json_cpus(f, &h->main_cpus);
	fprintf(f, ", \"cpus_seen_at_threads_eq_pus\": ");
	json_cpus(f, &h->main_cpus_full);
	fprintf(f, "}, \"reader\": {\"enabled\": %s, \"bound\": false, \"cpus_seen\": ",
	        o->read_cost ? "true" : "false");
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
	out_json_string(f, run_helper_priority());
	fprintf(f, ", \"note\": ");
	out_json_string(f, "neither is bound: the OS places them, on the workers' PUs when "
	                   "threads == PUs; the main thread sleeps through the phase, the "
	                   "reader wakes once per sample interval (cpus_seen: where they ran)");
	fprintf(f, "},\n");
	load_meta_json(f, s->pus);
	fprintf(f, "  \"idle_workers\": {\"runs\": %u, \"max\": %u, \"of_threads\": %u},\n",
	        h->idle_runs, h->idle_max, h->idle_threads);
	fprintf(f, "  \"placement_seen\": {\"node_ids\": ");
	out_json_string(f, sc_node_source());
	fprintf(f, ", \"pus_used\": ");
	json_cpus(f, &h->pus_used);
	fprintf(f, ", \"kernel_nodes_used\": ");
	json_cpus(f, &h->nodes_used);
	fprintf(f, ", \"runs_off_pu\": %u, \"max_workers_off_pu\": %u, "
	           "\"runs_node_mismatch\": %u, \"max_workers_node_mismatch\": %u},\n",
	        h->runs_moved, h->moved_max, h->runs_mismatch, h->mismatch_max);
	fprintf(f, "  \"work_iters\": %.4f,\n  \"placement_kind\": ", s->work_iters);
	out_json_string(f, placement_name(s->placement));
	fprintf(f, ",\n  \"command_line\": [");
	for (int i = 0; i < o->argc; i++) {
		fprintf(f, "%s", i ? ", " : "");
		out_json_string(f, o->argv[i]);
	}
	uint32_t tmax = 0;
	for (unsigned i = 0; i < o->nthreads; i++)
		if (o->threads[i] > tmax)
			tmax = o->threads[i];
	fprintf(f, "],\n  \"placement\": [");
	for (uint32_t i = 0; i < tmax; i++) {
		placement_slot sl = placement_slot_of(s->topo, s->placement, i);
		fprintf(f, "%s{\"thread\": %u, \"pu\": ", i ? ", " : "", i);
		if (sl.pu_os >= 0)
			fprintf(f, "%d", sl.pu_os);
		else
			fprintf(f, "null");
		fprintf(f, ", \"node\": %u}", run_thread_node(s, i));
	}
	fprintf(f, "]\n}\n");
	return out_finish(mf, err);
}

/* Progress on standard error when it is a terminal: point count and time left. */
static void progress(unsigned done, unsigned total, double started)
{
	if (!isatty(STDERR_FILENO))
		return;
	double el = wl_now() - started;
	double left = done ? el / done * (total - done) : 0;
	fprintf(stderr, "\rscbench: %u/%u runs, %.0f s elapsed, ~%.0f s left   ", done, total,
	        el, left);
	if (done == total)
		fputc('\n', stderr);
}

/*
 * Expected seconds of one run at this thread count. Timed: warm-up, the
 * measured phase, and about 50 ms to create, pin and join the threads.
 * Count mode: 2 ms, plus every increment serialised on one contended line
 * (about 6.65 ns each, the worst case), plus the external work, which runs
 * in parallel on at most min(threads, PUs) PUs. work_ns: ns of external
 * work per increment.
 */
static double run_seconds_estimate(const run_setup *s, uint32_t threads, double work_ns)
{
	const cli_opts *o = s->opts;
	if (!o->count_mode)
		return o->warmup + o->duration + 0.05;
	double incs = (double)o->ops * threads;
	double par = threads < s->pus ? threads : s->pus;
	return 0.002 + incs * 6.65e-9 + incs * work_ns * 1e-9 / par;
}

/* The whole invocation: every (variant, threads, run) point, plus calibration. */
static double plan_seconds(const run_setup *s, double work_ns, bool calibrates)
{
	const cli_opts *o = s->opts;
	double t = calibrates ? 0.3 : 0;
	for (unsigned ti = 0; ti < o->nthreads; ti++)
		t += (double)o->nvariants * o->runs * run_seconds_estimate(s, o->threads[ti], work_ns);
	return t;
}

static void format_duration(char *buf, size_t n, double sec)
{
	if (sec < 120)
		snprintf(buf, n, "%.0f s", sec);
	else if (sec < 7200)
		snprintf(buf, n, "%.0f min", sec / 60);
	else
		snprintf(buf, n, "%.0f h %.0f min", floor(sec / 3600), fmod(sec, 3600) / 60);
}

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
	                                                                             : "a signal";
}

/* Where rows go, for messages. */
static const char *out_name(const out_file *out)
{
	return out->kind == OUT_STDOUT ? "standard output" : out->shown;
}

/*
 * Every (variant, threads, run) point into out; 0 (also when interrupted:
 * run_interrupted() says so), or 1 on a runtime failure (the message
 * printed). *done counts the rows written.
 */
static int run_all(const run_setup *s, out_file *out, out_file *lat, helpers *h,
                   unsigned *done)
{
	const cli_opts *o = s->opts;
	double started = wl_now();
	unsigned total = o->nvariants * o->nthreads * o->runs;
	sc_err err;
	out_csv_header(out->f, s);
	if (lat->f)
		fputs(out_latency_header, lat->f);
	if (out_row_done(out, &err)) {
		fprintf(stderr, "scbench: %s\n", err.msg);
		return 1;
	}
	for (unsigned vi = 0; vi < o->nvariants; vi++)
		for (unsigned ti = 0; ti < o->nthreads; ti++)
			for (unsigned run = o->first_run; run < o->first_run + o->runs; run++) {
				run_result r;
				load_snap l0, l1;
				load_take(&l0);
				if (run_point(s, o->variants[vi], o->threads[ti], run, &r, &err)) {
					fprintf(stderr, "scbench: %s\n", err.msg);
					return 1;
				}
				if (run_interrupted()) {
					free(r.hist);
					return 0; /* r is cut short: no row; the caller reports */
				}
				load_take(&l1);
				load_between(&l0, &l1, s->pus, &r.load);
				load_note(&r.load);
				helpers_add(h, &r, o->threads[ti], s->pus);
				if (r.overflowed)
					fprintf(stderr,
					        "scbench: warning: %s, %u threads, run %u: the true count "
					        "%llu exceeds the counter's range %llu: value and "
					        "rel_error show the overflow, not the algorithm "
					        "(overflowed=1)\n",
					        o->variants[vi]->name, o->threads[ti], run,
					        (unsigned long long)r.hot_ops, (unsigned long long)r.range);
				out_csv_row(out->f, s, o->variants[vi], o->threads[ti], run, &r);
				if (lat->f)
					out_latency_rows(lat->f, o->variants[vi], o->threads[ti], run, &r);
				free(r.hist);
				if (out_row_done(out, &err)) {
					if (run_interrupted())
						return 0;
					fprintf(stderr, "scbench: %s\n", err.msg);
					return 1;
				}
				++*done;
				progress(*done, total, started);
			}
	return 0;
}

/* A disturbed machine gets this many calibration attempts. */
#define CAL_ATTEMPTS 3
#define CAL_ATTEMPTS_TEXT "3"

/*
 * External work: measure what an increment will cost, refuse a setting over
 * 1 ms per increment unless --force, and m beyond WL_MAX_WORK_ITERS always.
 * Sets s->work_iters, *cal (calibrated: --work) and *work_ns. 0, 1 (runtime
 * failure), 2 (usage error) or SCBENCH_EXIT_CALIBRATION, the message printed.
 */
static int plan_work(const cli_opts *o, run_setup *s, wl_calibration *cal, bool *calibrated,
                     double *work_ns)
{
	char opt[64];
	*calibrated = false;
	*work_ns = 0;
	bool pct = !o->work_iters_given && o->work_pct > 0;
	/* --work-iters: the pause cost matters only for large m or a count-mode estimate. */
	bool iters = o->work_iters_given && o->work_iters > 0 &&
	             (o->work_iters > 1000 || o->count_mode);
	if (!pct && !iters)
		return 0;
	double p = pct ? o->work_pct : 50;
	int cr = WL_CAL_RETRY;
	for (int attempt = 1; attempt <= CAL_ATTEMPTS && cr == WL_CAL_RETRY; attempt++) {
		if (attempt > 1) {
			fprintf(stderr, "scbench: calibration attempt %d of %d: %s; trying again\n",
			        attempt - 1, CAL_ATTEMPTS, cal->why);
			nanosleep(&(struct timespec){0, 200000000}, NULL); /* let a burst pass */
		}
		cr = wl_calibrate(p, cal);
	}
	if (cr != WL_CAL_OK) {
		fprintf(stderr, "scbench: calibration of the external work for %s failed: %s%s\n",
		        pct ? "--work" : "--work-iters", cal->why,
		        cr == WL_CAL_RETRY ? " (after " CAL_ATTEMPTS_TEXT " attempts)" : "");
		return SCBENCH_EXIT_CALIBRATION;
	}
	double m = pct ? cal->work_iters : o->work_iters;
	if (pct) {
		s->work_iters = m;
		*calibrated = true;
		snprintf(opt, sizeof opt, "--work=%.10g", o->work_pct);
	} else {
		snprintf(opt, sizeof opt, "--work-iters=%.10g", o->work_iters);
	}
	*work_ns = m * cal->ns_per_pause;
	char cost[32];
	if (*work_ns >= 1e9)
		snprintf(cost, sizeof cost, "%.3g s", *work_ns * 1e-9);
	else
		snprintf(cost, sizeof cost, "%.3g ms", *work_ns * 1e-6);
	if (*work_ns > 1e6 && !o->force) {
		fprintf(stderr, "scbench: %s: one increment would take %s of external work "
		                "(%.3g pauses of %.1f ns), over 1 ms; give --force to run it anyway\n",
		        opt, cost, m, cal->ns_per_pause);
		return 2;
	}
	if (m > WL_MAX_WORK_ITERS) {
		fprintf(stderr, "scbench: %s: one increment would need %.3g pauses (%s of external "
		                "work), more than the %.0f scbench can run\n",
		        opt, m, cost, WL_MAX_WORK_ITERS);
		return 2;
	}
	return 0;
}

/*
 * Finish the CSV and its sidecar, then rename both into place, so that
 * neither replaces anything unless both are complete. 0, or 1 (printed).
 */
static int write_outputs(out_file *out, out_file *lat, const run_setup *s,
                         const wl_calibration *cal, const helpers *h, const prov_cpu *cpu,
                         double wall)
{
	sc_err err;
	out_file mf = {0};
	char why[600];
	char *mpath = out_sidecar_path(out, ".meta.json", why, sizeof why);
	if (!mpath && why[0])
		fprintf(stderr, "scbench: warning: no meta.json written: %s\n", why);
	if (mpath) {
		int rc = out_open(&mf, mpath, &err);
		free(mpath);
		if (rc && out->kind == OUT_DIRECT) {
			/* The data went to a FIFO or device: its sidecar is a courtesy. */
			fprintf(stderr, "scbench: warning: no meta.json written: %s\n", err.msg);
		} else if (rc || write_meta(&mf, s, cal, h, cpu, wall, &err)) {
			fprintf(stderr, "scbench: %s\n", err.msg);
			out_abort(&mf);
			return 1;
		}
	}
	/* A meta.json new with this run goes again if its CSV cannot follow it. */
	char *new_meta = mf.path && access(mf.path, F_OK) != 0 ? strdup(mf.path) : NULL;
	int rc = 0;
	if ((lat->f && out_finish(lat, &err)) || out_finish(out, &err) ||
	    (mf.path && out_publish(&mf, &err)))
		rc = 1;
	else if ((lat->path && out_publish(lat, &err)) || out_publish(out, &err)) {
		if (new_meta)
			unlink(new_meta);
		rc = 1;
	}
	if (rc) {
		fprintf(stderr, "scbench: %s\n", err.msg);
		out_abort(&mf);
	}
	free(new_meta);
	return rc;
}

/*
 * SCBENCH_STARTUP_PROFILE=1: one line on standard error saying where this
 * invocation's time went (ms from main's entry: hwloc topology, options,
 * PAPI, calibration of the external work, the runs, the output).
 */
enum { SP_TOPO, SP_CLI, SP_PAPI, SP_CALIB, SP_RUNS, SP_OUTPUT, SP_N };
static double sp_mark[SP_N + 1];

static void sp_note(int step)
{
	sp_mark[step + 1] = wl_now();
}

static void sp_report(void)
{
	const char *e = getenv("SCBENCH_STARTUP_PROFILE");
	if (!e || !*e || strcmp(e, "0") == 0)
		return;
	static const char *const names[SP_N] = {"hwloc topology", "options", "PAPI",
	                                        "calibration", "runs", "output"};
	double last = sp_mark[0];
	fprintf(stderr, "scbench: start-up profile (ms):");
	for (int i = 0; i < SP_N; i++) {
		if (sp_mark[i + 1] == 0)
			continue;
		fprintf(stderr, " %s %.1f,", names[i], (sp_mark[i + 1] - last) * 1e3);
		last = sp_mark[i + 1];
	}
	fprintf(stderr, " total %.1f; node ids: %s\n", (last - sp_mark[0]) * 1e3, sc_node_source());
}

int main(int argc, char **argv)
{
	cli_opts o;
	topo *tp;
	sc_err err;
	sp_mark[0] = wl_now();
	atexit(sp_report);
	run_catch_signals();
	if (topo_load(&tp, &err)) {
		fprintf(stderr, "scbench: %s\n", err.msg);
		return 1;
	}
	sp_note(SP_TOPO);
	int rc = cli_parse(&o, argc, argv, topo_pus(tp));
	sp_note(SP_CLI);
	if (rc != CLI_OK) {
		int listed = 0;
		if (rc == CLI_USAGE)
			;
		else if (o.help)
			cli_usage(stdout);
		else if (o.version)
			printf("scbench %s (revision %s)\n", PACKAGE_VERSION, SC_REVISION);
		else if (o.list_json)
			listed = listing_print_json(stdout, topo_pus(tp));
		else if (o.list)
			print_list(topo_pus(tp));
		cli_free(&o);
		topo_destroy(tp);
		if (rc == CLI_USAGE)
			return 2;
		if (listed)
			return 1; /* a variant that cannot be configured (said why) */
		/* A full disk or a closed pipe is a failure, not a listing. */
		errno = 0;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "scbench: cannot write to standard output: %s\n",
			        errno ? strerror(errno) : "write error");
			return 1;
		}
		return 0;
	}

	if (arch_check(stderr)) {
		cli_free(&o);
		topo_destroy(tp);
		return 1;
	}
	pmu_setup pmu;
	rc = pmu_setup_init(&pmu, o.events, &err);
	sp_note(SP_PAPI);
	if (rc) {
		if (rc == 2)
			fprintf(stderr, "scbench: --events=%s: %s\n", o.events ? o.events : "", err.msg);
		else
			fprintf(stderr, "scbench: %s\n", err.msg);
		cli_free(&o);
		topo_destroy(tp);
		return rc;
	}
	run_setup s = {
		.opts = &o,
		.pus = topo_pus(tp),
		.nodes = o.nodes ? o.nodes : topo_nodes(tp),
		.nodes_virtual = o.nodes != 0,
		.work_iters = o.work_iters,
		.placement = o.placement,
		.pmu_status = pmu.status,
		.topo = tp,
		.pmu = &pmu,
	};
	uint32_t tmax = 0;
	for (unsigned i = 0; i < o.nthreads; i++)
		tmax = o.threads[i] > tmax ? o.threads[i] : tmax;

	wl_calibration cal;
	bool calibrated = false;
	double work_ns;
	out_file out = {0}, lat = {0};
	helpers h;
	memset(&h, 0, sizeof h);
	h.pct_max = h.pct_max_full = NAN; /* null in meta.json when no run had a reader */
	unsigned done = 0;
	bool written = false;
	rc = plan_work(&o, &s, &cal, &calibrated, &work_ns);
	sp_note(SP_CALIB);
	if (rc)
		goto done;
	if (tmax > s.pus)
		fprintf(stderr, "scbench: warning: %u threads on %u processing units "
		                "(oversubscribed; see the oversubscribed column)\n", tmax, s.pus);
	prov_cpu cpu;
	char warning[256];
	prov_cpu_read(&cpu, tp, "/sys/devices/system/cpu", "/proc/cpuinfo");
	if (prov_cpu_warning(&cpu, warning, sizeof warning))
		fprintf(stderr, "scbench: %s\n", warning);
	double est = plan_seconds(&s, work_ns, false);
	if (est > 60) {
		char t[64];
		format_duration(t, sizeof t, est);
		fprintf(stderr, "scbench: %u runs planned (%u variants x %u thread counts x %u), "
		                "about %s; Ctrl-C stops cleanly\n",
		        o.nvariants * o.nthreads * o.runs, o.nvariants, o.nthreads, o.runs, t);
	}
	run_started();
	if (!run_interrupted() && out_open(&out, o.output, &err)) {
		if (!run_interrupted())
			fprintf(stderr, "scbench: %s\n", err.msg);
		rc = 1;
	}
	if (!rc && !run_interrupted() && o.latency && out.kind != OUT_STDOUT) {
		/* The histogram sidecar goes where the meta.json goes (none for standard output). */
		char why[600];
		char *lp = out_sidecar_path(&out, ".latency.csv", why, sizeof why);
		if (!lp && why[0])
			fprintf(stderr, "scbench: warning: no latency histograms written: %s\n", why);
		if (lp && out_open(&lat, lp, &err)) {
			/* Beside a FIFO or device, like the meta.json, a courtesy. */
			bool direct = out.kind == OUT_DIRECT;
			fprintf(stderr, "scbench: %s%s\n",
			        direct ? "warning: no latency histograms written: " : "", err.msg);
			rc = direct ? 0 : 1;
		}
		free(lp);
	}
	double wall = (double)time(NULL);
	if (!rc && !run_interrupted())
		rc = run_all(&s, &out, &lat, &h, &done);
	sp_note(SP_RUNS);
	if (!rc && !run_interrupted())
		warn_placement(&s, &h);
	unsigned busy_runs, all_runs = load_runs(&busy_runs);
	if (!rc && !run_interrupted() && busy_runs)
		fprintf(stderr, "scbench: warning: the machine was busy during %u of %u runs "
		                "(other processes or steal; the busy column): their figures "
		                "measure the load as much as the counters\n",
		        busy_runs, all_runs);
	if (!rc && !run_interrupted() && h.idle_runs)
		fprintf(stderr, "scbench: warning: in %u timed runs some workers never ran in the "
		                "measured phase (up to %u of %u): too short a --duration for that "
		                "many threads per PU\n",
		        h.idle_runs, h.idle_max, h.idle_threads);
	if (!rc && !run_interrupted()) {
		rc = write_outputs(&out, &lat, &s, calibrated ? &cal : NULL, &h, &cpu, wall);
		written = rc == 0; /* complete: a signal from now on changes nothing */
		sp_note(SP_OUTPUT);
	}
done:
	if (run_interrupted() && !written && rc != 2) { /* a usage error stays one */
		int sig = run_interrupted();
		unsigned total = o.nvariants * o.nthreads * o.runs;
		if (isatty(STDERR_FILENO))
			fputc('\n', stderr);
		if (out.kind == OUT_REPLACE || !out.f)
			fprintf(stderr, "scbench: interrupted by %s after %u of %u runs; nothing "
			                "written\n", signal_name(sig), done, total);
		else
			fprintf(stderr, "scbench: interrupted by %s after %u of %u runs; the header "
			                "and %u complete rows already sent to %s stand, no partial "
			                "row, no meta.json\n",
			        signal_name(sig), done, total, done, out_name(&out));
		rc = 128 + sig;
	}
	if (rc) {
		out_abort(&lat);
		out_abort(&out);
	}
	pmu_shutdown(&pmu);
	topo_destroy(tp);
	cli_free(&o);
	return rc;
}
