/* SPDX-License-Identifier: MIT */
/*
 * scbench.c - the benchmark driver: parse the command line into a plan,
 * calibrate, run every (variant, threads, run) point, write the CSV and its
 * meta.json sidecar.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "cli.h"
#include "cli_values.h"
#include "csv.h"
#include "listing.h"
#include "meta.h"
#include "output.h"
#include "provenance.h"
#include "run.h"
#include "sc_revision.h"
#include "summary.h"
#include "tree_shape.h"
#include "workload.h"

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

/* One invocation in progress: its outputs and what the runs saw so far. */
typedef struct invocation {
	run_setup s;
	wl_calibration cal;
	bool calibrated;   /* cal holds the --work calibration */
	double work_ns;    /* ns of external work per increment, where measured */
	prov_cpu cpu;
	out_file out, lat; /* the CSV, and the --latency histogram sidecar */
	meta_seen seen;
	summary table;     /* the per-point table on standard error (summary.h) */
	unsigned done;     /* rows written */
	bool written;      /* every output complete: a signal from now on changes nothing */
} invocation;

/* Where the kernel put the workers, against the plan: a warning when they strayed. */
static void warn_placement(const run_setup *s, const meta_seen *h)
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

/* After the runs: what makes their figures doubtful (placement, load, idle workers). */
static void warn_after_runs(const invocation *iv)
{
	warn_placement(&iv->s, &iv->seen);
	unsigned busy_runs, all_runs = load_runs(&busy_runs);
	if (busy_runs)
		fprintf(stderr, "scbench: warning: the machine was busy during %u of %u runs "
		                "(other processes, steal or a stop; the busy column): their figures "
		                "measure the load as much as the counters\n",
		        busy_runs, all_runs);
	if (iv->seen.idle_runs)
		fprintf(stderr, "scbench: warning: in %u timed runs some workers never ran in the "
		                "measured phase (up to %u of %u): too short a --duration for that "
		                "many threads per PU\n",
		        iv->seen.idle_runs, iv->seen.idle_max, iv->seen.idle_threads);
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

/* Where rows go, for messages. */
static const char *out_name(const out_file *out)
{
	return out->kind == OUT_STDOUT ? "standard output" : out->shown;
}

/*
 * One point: run it, account for it and write its row. 0 (also when
 * interrupted: run_interrupted() says so), or 1 on a runtime failure (the
 * message printed).
 */
static int run_one(invocation *iv, const plan_variant *pv, uint32_t threads, unsigned run)
{
	const run_setup *s = &iv->s;
	run_result r;
	load_snap l0, l1;
	sc_err err;
	load_take(&l0);
	if (run_point(s, pv, threads, run, &r, &err)) {
		error_line("%s", err.msg);
		return 1;
	}
	if (run_interrupted()) {
		free(r.hist);
		return 0; /* r is cut short: no row; the caller reports */
	}
	load_take(&l1);
	load_between(&l0, &l1, s->pus, &r.load);
	run_judge_stop(s->plan, pv->v->name, threads, run, &r);
	load_note(&r.load);
	meta_seen_add(&iv->seen, &r, threads, s->pus);
	if (r.overflowed)
		fprintf(stderr, "scbench: warning: %s, %u threads, run %u: the true count %llu "
		                "exceeds the counter's range %llu: value and rel_error show the "
		                "overflow, not the algorithm (overflowed=1)\n",
		        pv->v->name, threads, run, (unsigned long long)r.hot_ops,
		        (unsigned long long)r.range);
	if (s->plan->json)
		out_json_row(iv->out.f, s, pv, threads, run, &r);
	else
		out_csv_row(iv->out.f, s, pv, threads, run, &r);
	summary_add(&iv->table, r.ops_per_ms, r.rel_error, r.seconds, r.load.busy);
	if (iv->lat.f)
		out_latency_rows(iv->lat.f, pv->v, threads, run, &r);
	free(r.hist);
	if (out_row_done(&iv->out, &err)) {
		if (run_interrupted())
			return 0;
		error_line("%s", err.msg);
		return 1;
	}
	iv->done++;
	return 0;
}

/* The table and the JSON aggregates after the runs (summary.h); 0, or 1 on a write error. */
static int finish_table(invocation *iv)
{
	sc_err err;
	summary_finish(&iv->table, iv->out.f);
	if (out_row_done(&iv->out, &err) && !run_interrupted()) {
		fprintf(stderr, "scbench: %s\n", err.msg);
		return 1;
	}
	return 0;
}

/*
 * Every (variant, threads, run) point, after the headers; 0 (also when
 * interrupted), or 1 on a runtime failure (the message printed).
 */
static int run_all(invocation *iv)
{
	const run_plan *p = iv->s.plan;
	double started = wl_now();
	sc_err err;
	if (!p->json)
		out_csv_header(iv->out.f, &iv->s);
	if (iv->lat.f)
		fputs(out_latency_header, iv->lat.f);
	if (out_row_done(&iv->out, &err)) {
		error_line("%s", err.msg);
		return 1;
	}
	for (unsigned vi = 0; vi < p->nvariants; vi++)
		for (unsigned ti = 0; ti < p->nthreads; ti++)
			for (unsigned run = p->first_run; run < p->first_run + p->runs; run++) {
				if (run_one(iv, &p->variants[vi], p->threads[ti], run))
					return 1;
				if (run_interrupted())
					return finish_table(iv);
				if (run + 1 == p->first_run + p->runs)
					summary_point(&iv->table, p->variants[vi].v, p->threads[ti]);
				progress(iv->done, plan_points(p), started);
			}
	return finish_table(iv);
}

/*
 * Before any run: the external work, warnings about the machine, and the
 * plan's length when it is long. 0, or an exit status (the message printed).
 */
static int prepare(invocation *iv, const topo *tp)
{
	const run_plan *p = iv->s.plan;
	int rc = plan_work(p, &iv->s.work_iters, &iv->cal, &iv->calibrated, &iv->work_ns);
	sp_note(SP_CALIB);
	if (rc)
		return rc;
	if (p->threads_max > iv->s.pus)
		fprintf(stderr, "scbench: warning: %u threads on %u processing units "
		                "(oversubscribed; see the oversubscribed column)\n",
		        p->threads_max, iv->s.pus);
	char warning[256], brand[64];
	arch_cpu_brand(brand, sizeof brand);
	prov_cpu_read(&iv->cpu, tp, "/sys/devices/system/cpu", brand, "/proc/cpuinfo");
	if (prov_cpu_warning(&iv->cpu, warning, sizeof warning))
		error_line("%s", warning);
	double est = plan_seconds(p, iv->s.pus, iv->work_ns, false);
	if (est > 60) {
		char t[64];
		plan_format_duration(t, sizeof t, est);
		fprintf(stderr, "scbench: %u runs planned (%u variants x %u thread counts x %u), "
		                "about %s; Ctrl-C stops cleanly\n",
		        plan_points(p), p->nvariants, p->nthreads, p->runs, t);
	}
	return 0;
}

/* The CSV, and beside it the --latency sidecar. 0, or 1 (printed). */
static int open_outputs(invocation *iv)
{
	const run_plan *p = iv->s.plan;
	sc_err err;
	if (out_open(&iv->out, p->output, &err)) {
		if (!run_interrupted())
			error_line("%s", err.msg);
		return 1;
	}
	if (run_interrupted() || !p->latency || iv->out.kind == OUT_STDOUT)
		return 0;
	/* The histogram sidecar goes where the meta.json goes (none for standard output). */
	char why[600];
	int rc = 0;
	char *lp = out_sidecar_path(&iv->out, ".latency.csv", why, sizeof why);
	if (!lp && why[0])
		error_line("warning: no latency histograms written: %s", why);
	if (lp && out_open(&iv->lat, lp, &err)) {
		/* Beside a FIFO or device, like the meta.json, a courtesy. */
		bool direct = iv->out.kind == OUT_DIRECT;
		error_line("%s%s",
		        direct ? "warning: no latency histograms written: " : "", err.msg);
		rc = direct ? 0 : 1;
	}
	free(lp);
	return rc;
}

/* Open the sidecar and write it; 0, or 1 (printed). mf stays closed when there is none. */
static int write_meta_sidecar(invocation *iv, out_file *mf, double wall)
{
	sc_err err;
	char why[600];
	char *mpath = out_sidecar_path(&iv->out, ".meta.json", why, sizeof why);
	if (!mpath && why[0])
		error_line("warning: no meta.json written: %s", why);
	if (!mpath)
		return 0;
	int rc = out_open(mf, mpath, &err);
	free(mpath);
	if (rc && iv->out.kind == OUT_DIRECT) {
		/* The data went to a FIFO or device: its sidecar is a courtesy. */
		error_line("warning: no meta.json written: %s", err.msg);
	} else if (rc || meta_write(mf, &iv->s, iv->calibrated ? &iv->cal : NULL, &iv->seen,
	                            &iv->cpu, wall, &err)) {
		error_line("%s", err.msg);
		out_abort(mf);
		return 1;
	}
	return 0;
}

/*
 * Finish the CSV and its sidecars, then rename them into place, so that
 * neither replaces anything unless both are complete. 0, or 1 (printed).
 */
static int write_outputs(invocation *iv, double wall)
{
	sc_err err;
	out_file mf = {0};
	if (write_meta_sidecar(iv, &mf, wall))
		return 1;
	/* A meta.json new with this run goes again if its CSV cannot follow it. */
	char *new_meta = mf.path && access(mf.path, F_OK) != 0 ? strdup(mf.path) : NULL;
	int rc = 0;
	if ((iv->lat.f && out_finish(&iv->lat, &err)) || out_finish(&iv->out, &err) ||
	    (mf.path && out_publish(&mf, &err)))
		rc = 1;
	else if ((iv->lat.path && out_publish(&iv->lat, &err)) || out_publish(&iv->out, &err)) {
		if (new_meta)
			unlink(new_meta);
		rc = 1;
	}
	if (rc) {
		error_line("%s", err.msg);
		out_abort(&mf);
	}
	free(new_meta);
	return rc;
}

/* An interrupt before everything was written: say what stands. Returns 128 + signal. */
static int report_interrupt(const invocation *iv)
{
	int sig = run_interrupted();
	unsigned total = plan_points(iv->s.plan);
	if (isatty(STDERR_FILENO))
		fputc('\n', stderr);
	if (iv->out.kind == OUT_REPLACE || !iv->out.f)
		fprintf(stderr,
		        "scbench: interrupted by %s after %u of %u runs; nothing "
		        "written\n",
		        run_signal_name(sig), iv->done, total);
	else
		fprintf(stderr,
		        "scbench: interrupted by %s after %u of %u runs; the header "
		        "and %u complete rows already sent to %s stand, no partial "
		        "row, no meta.json\n",
		        run_signal_name(sig), iv->done, total, iv->done, out_name(&iv->out));
	return 128 + sig;
}

/* Calibrate, open, run, write: the exit status. */
static int invoke(invocation *iv, const topo *tp)
{
	int rc = prepare(iv, tp);
	if (rc)
		return rc;
	run_started();
	if (!run_interrupted())
		rc = open_outputs(iv);
	double wall = (double)time(NULL);
	if (!rc && !run_interrupted())
		rc = run_all(iv);
	sp_note(SP_RUNS);
	if (!rc && !run_interrupted())
		warn_after_runs(iv);
	if (!rc && !run_interrupted()) {
		rc = write_outputs(iv, wall);
		iv->written = rc == 0;
		sp_note(SP_OUTPUT);
	}
	return rc;
}

/* The plan on this machine: PMU, nodes, placement; then invoke. The exit status. */
static int bench(const run_plan *p, const topo *tp)
{
	sc_err err;
	if (arch_check(stderr))
		return 1;
	pmu_setup pmu;
	int rc = pmu_setup_init(&pmu, p->events, &err);
	sp_note(SP_PAPI);
	if (rc) {
		if (rc == 2)
			error_line("--events=%s: %s", p->events ? p->events : "", err.msg);
		else
			error_line("%s", err.msg);
		return rc;
	}
	tree_shape ts;
	sc_cpu_shape cs;
	invocation iv = {
		.s = { .plan = p,
		       .pus = topo_pus(tp),
		       .nodes = p->nodes ? p->nodes : topo_nodes(tp),
		       .nodes_virtual = p->nodes != 0,
		       .work_iters = p->work_iters,
		       .placement = p->placement,
		       .pmu_status = pmu.status,
		       .topo = tp,
		       .pmu = &pmu },
	};
	rc = tree_shape_planned(p, tp, &ts, &cs, &err);
	if (rc < 0)
		error_line("warning: %s: the counters laid out by the machine's shape keep their "
		           "default one",
		           err.msg);
	iv.s.shape = rc == 1 ? &cs : NULL;
	meta_seen_init(&iv.seen);
	bool tty = isatty(STDERR_FILENO);
	/* auto: the table whenever the rows go elsewhere (a terminal, or --output names a file) */
	summary_init(&iv.table, p->summary > 0 || (p->summary < 0 && (tty || p->output)) ? stderr : NULL,
	             p->json, tty, p->runs, p->count_mode ? 0 : p->duration, p->baseline);
	rc = invoke(&iv, tp);
	summary_free(&iv.table);
	if (run_interrupted() && !iv.written && rc != 2) /* a usage error stays one */
		rc = report_interrupt(&iv);
	if (rc) {
		out_abort(&iv.lat);
		out_abort(&iv.out);
	}
	pmu_shutdown(&pmu);
	tree_shape_free(&ts);
	return rc;
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
		error_line("%s", err.msg);
		return 1;
	}
	sp_note(SP_TOPO);
	int rc = cli_parse(&o, argc, argv, topo_pus(tp));
	sp_note(SP_CLI);
	if (rc == CLI_OK)
		warn_node_env();
	rc = rc == CLI_OK ? bench(&o.plan, tp) : listing_answer(&o, rc, topo_pus(tp));
	topo_destroy(tp);
	cli_free(&o);
	return rc;
}
