/*
 * scbench.c - the benchmark driver: parse, calibrate, run every (variant,
 * threads, run) point, write the CSV and its meta.json sidecar.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "clock.h"
#include "cli.h"
#include "output.h"
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

static char *meta_path(const char *csv)
{
	size_t n = strlen(csv) + sizeof ".meta.json";
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s.meta.json", csv);
	return p;
}

static void json_kv(FILE *f, const char *key, const char *val, bool comma)
{
	fprintf(f, "  ");
	out_json_string(f, key);
	fprintf(f, ": ");
	out_json_string(f, val);
	fprintf(f, "%s\n", comma ? "," : "");
}

static int write_meta(const char *csv, const run_setup *s, const wl_calibration *cal,
                      double started, sc_err *err)
{
	char *path = meta_path(csv);
	out_file mf;
	if (!path) {
		sc_err_set(err, "out of memory");
		return -1;
	}
	int rc = out_open(&mf, path, err);
	free(path);
	if (rc)
		return -1;
	FILE *f = mf.f;
	struct utsname u;
	char host[256] = "unknown", date[64];
	if (uname(&u) == 0)
		snprintf(host, sizeof host, "%s", u.nodename);
	time_t now = (time_t)started;
	strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	const cli_opts *o = s->opts;
	fprintf(f, "{\n");
	json_kv(f, "host", host, true);
	json_kv(f, "date", date, true);
	json_kv(f, "scbench_version", PACKAGE_VERSION, true);
	json_kv(f, "source_revision", SC_REVISION, true);
#ifdef __VERSION__
	json_kv(f, "compiler", __VERSION__, true);
#endif
	json_kv(f, "cflags", SC_CONFIGURE_CFLAGS, true);
	fprintf(f, "  \"kernel\": ");
	out_json_string(f, uname(&u) == 0 ? u.release : "unknown");
	fprintf(f, ",\n  \"topology\": {\"nodes\": %u, \"cores\": %u, \"pus\": %u, "
	           "\"cache_line\": %d, \"description\": ",
	        topo_nodes(s->topo), topo_cores(s->topo), topo_pus(s->topo), SC_LINE_SIZE);
	out_json_string(f, topo_describe(s->topo));
	fprintf(f, "},\n  \"nodes_used\": %u,\n  \"nodes_virtual\": %s,\n", s->nodes,
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
	return out_commit(&mf, err);
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

/* Every (variant, threads, run) point into out; 0, or 1 on a runtime failure. */
static int run_all(const run_setup *s, out_file *out)
{
	const cli_opts *o = s->opts;
	double started = wl_now();
	unsigned total = o->nvariants * o->nthreads * o->runs, done = 0;
	sc_err err;
	out_csv_header(out->f, s);
	for (unsigned vi = 0; vi < o->nvariants; vi++)
		for (unsigned ti = 0; ti < o->nthreads; ti++)
			for (unsigned run = 0; run < o->runs; run++) {
				run_result r;
				if (run_point(s, o->variants[vi], o->threads[ti], run, &r, &err)) {
					fprintf(stderr, "scbench: %s\n", err.msg);
					return 1;
				}
				out_csv_row(out->f, s, o->variants[vi], o->threads[ti], run, &r);
				progress(++done, total, started);
			}
	return 0;
}

int main(int argc, char **argv)
{
	cli_opts o;
	topo *tp;
	sc_err err;
	if (topo_load(&tp, &err)) {
		fprintf(stderr, "scbench: %s\n", err.msg);
		return 1;
	}
	int rc = cli_parse(&o, argc, argv, topo_pus(tp));
	if (rc != CLI_OK) {
		if (rc == CLI_USAGE)
			;
		else if (o.help)
			cli_usage(stdout);
		else if (o.version)
			printf("scbench %s (revision %s)\n", PACKAGE_VERSION, SC_REVISION);
		else if (o.list)
			print_list(topo_pus(tp));
		cli_free(&o);
		topo_destroy(tp);
		return rc == CLI_USAGE ? 2 : 0;
	}

	if (arch_check(stderr)) {
		cli_free(&o);
		topo_destroy(tp);
		return 1;
	}
	pmu_setup pmu;
	rc = pmu_setup_init(&pmu, o.events, &err);
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
	if (tmax > s.pus)
		fprintf(stderr, "scbench: warning: %u threads on %u processing units "
		                "(oversubscribed; see the oversubscribed column)\n", tmax, s.pus);

	wl_calibration cal;
	bool calibrated = false;
	out_file out = {0};
	rc = 0;
	if (!o.work_iters_given && o.work_pct > 0) {
		if (wl_calibrate(o.work_pct, &cal)) {
			fprintf(stderr, "scbench: calibration of --work=%g failed\n", o.work_pct);
			rc = 1;
			goto done;
		}
		s.work_iters = cal.work_iters;
		calibrated = true;
	}
	if (out_open(&out, o.output, &err)) {
		fprintf(stderr, "scbench: %s\n", err.msg);
		rc = 1;
		goto done;
	}
	double wall = (double)time(NULL);
	rc = run_all(&s, &out);
	if (!rc && o.output && write_meta(o.output, &s, calibrated ? &cal : NULL, wall, &err)) {
		fprintf(stderr, "scbench: %s\n", err.msg);
		rc = 1;
	}
	if (!rc && out_commit(&out, &err)) {
		fprintf(stderr, "scbench: %s\n", err.msg);
		rc = 1;
	}
done:
	if (rc)
		out_abort(&out);
	pmu_shutdown(&pmu);
	topo_destroy(tp);
	cli_free(&o);
	return rc;
}
