/* output.c - CSV rows and atomic file replacement (SPEC §5.4, §8). */
#include "output.h"

#include "histogram.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const out_csv_columns[] = {
	"counter", "kind", "threads", "run", "mode", "work_pct", "work_iters", "counters",
	"placement", "nodes", "nodes_virtual", "seconds", "ops", "value", "rel_error",
	"ops_per_ms", "bytes_per_counter", "seed", "params", "oversubscribed", "ctx_switches",
	"migrated", "read_ns", "pmu_status", NULL,
};

/*
 * Temporary files still open, removed at exit or on SIGINT/SIGTERM/SIGHUP so
 * an interrupted run leaves nothing behind. Two at most (CSV and meta).
 */
static char *volatile pending[4];

static void remove_pending(void)
{
	for (int i = 0; i < 4; i++)
		if (pending[i])
			unlink(pending[i]);
}

static void on_signal(int sig)
{
	remove_pending();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void track(char *tmp, bool add)
{
	static bool installed;
	if (!installed) {
		atexit(remove_pending);
		signal(SIGINT, on_signal);
		signal(SIGTERM, on_signal);
		signal(SIGHUP, on_signal);
		installed = true;
	}
	for (int i = 0; i < 4; i++) {
		if (add && !pending[i]) {
			pending[i] = tmp;
			return;
		}
		if (!add && pending[i] == tmp) {
			pending[i] = NULL;
			return;
		}
	}
}

int out_open(out_file *o, const char *path, sc_err *err)
{
	memset(o, 0, sizeof *o);
	if (!path) {
		o->f = stdout;
		return 0;
	}
	size_t n = strlen(path) + 16;
	o->path = strdup(path);
	o->tmp_path = malloc(n);
	if (!o->path || !o->tmp_path) {
		sc_err_set(err, "out of memory");
		out_abort(o);
		return -1;
	}
	snprintf(o->tmp_path, n, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(o->tmp_path);
	if (fd < 0) {
		sc_err_set(err, "cannot create %s: %s", o->tmp_path, strerror(errno));
		free(o->tmp_path);
		o->tmp_path = NULL;
		out_abort(o);
		return -1;
	}
	track(o->tmp_path, true);
	mode_t mask = umask(0); /* mkstemp makes 0600; results are as readable as any file */
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		sc_err_set(err, "cannot open %s: %s", o->tmp_path, strerror(errno));
		close(fd);
		out_abort(o);
		return -1;
	}
	return 0;
}

int out_commit(out_file *o, sc_err *err)
{
	if (!o->path) {
		if (fflush(o->f)) {
			sc_err_set(err, "writing standard output: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	int bad = ferror(o->f);
	bad |= fflush(o->f) != 0;
	bad |= fsync(fileno(o->f)) != 0 && errno != EINVAL;
	bad |= fclose(o->f) != 0;
	o->f = NULL;
	if (bad || rename(o->tmp_path, o->path)) {
		sc_err_set(err, "cannot write %s: %s", o->path, strerror(errno));
		out_abort(o);
		return -1;
	}
	track(o->tmp_path, false);
	free(o->tmp_path);
	free(o->path);
	o->tmp_path = o->path = NULL;
	return 0;
}

void out_abort(out_file *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp_path) {
		unlink(o->tmp_path);
		track(o->tmp_path, false);
	}
	free(o->tmp_path);
	free(o->path);
	memset(o, 0, sizeof *o);
}

/* A CSV field: quoted when it holds a comma, quote or newline. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void out_csv_header(FILE *f, const run_setup *s)
{
	for (int i = 0; out_csv_columns[i]; i++)
		fprintf(f, "%s%s", i ? "," : "", out_csv_columns[i]);
	for (unsigned e = 0; s->pmu && e < s->pmu->nrequested; e++)
		fprintf(f, ",%s_per_op", s->pmu->requested[e]);
	if (s->opts->latency)
		fputs(",lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_max_ns", f);
	fputc('\n', f);
}

/* A number, or an empty field when it was not measured. */
static void num_field(FILE *f, bool have, double x, int decimals)
{
	fputc(',', f);
	if (have && isfinite(x))
		fprintf(f, "%.*f", decimals, x);
}

void out_csv_row(FILE *f, const run_setup *s, const sc_variant *v, uint32_t threads,
                 unsigned run, const run_result *r)
{
	const cli_opts *o = s->opts;
	sc_params p;
	char params[1024] = "";
	size_t at = 0;
	cli_variant_params(o, v, &p);
	for (unsigned i = 0; i < p.n && at < sizeof params; i++)
		at += (size_t)snprintf(params + at, sizeof params - at, "%s%s=%s", i ? ";" : "",
		                       p.key[i], p.value[i]);
	csv_field(f, v->name);
	fprintf(f, ",%s,%u,%u,%s,%.4f,%.4f,%u,%s,%u,%d,%.9g,%llu,%llu,%.9g,%.6g,%.1f,%llu,",
	        sc_kind_name(v->kind), threads, run, o->count_mode ? "count" : "timed",
	        o->work_iters_given ? 0.0 : o->work_pct, s->work_iters, o->counters,
	        placement_name(s->placement), s->nodes, s->nodes_virtual ? 1 : 0, r->seconds,
	        (unsigned long long)r->hot_ops, (unsigned long long)r->value, r->rel_error,
	        r->ops_per_ms, r->bytes_per_counter, (unsigned long long)r->seed);
	csv_field(f, params);
	fprintf(f, ",%d,%llu,%u", r->oversubscribed ? 1 : 0,
	        (unsigned long long)r->ctx_switches, r->migrated);
	num_field(f, true, r->read_ns, 1);
	fputc(',', f);
	/* The setup's status, unless this run's workers failed to count. */
	char failed[300];
	if (r->pmu_failure)
		snprintf(failed, sizeof failed, "failed in this run: %s", r->pmu_failure);
	csv_field(f, r->pmu_failure ? failed : s->pmu_status);
	/* Requested events that are not counted here keep their (empty) columns. */
	for (unsigned e = 0; s->pmu && e < s->pmu->nrequested; e++) {
		int k = pmu_column_event(s->pmu, e);
		num_field(f, r->pmu_counted && k >= 0, k >= 0 ? r->per_op[k] : 0, 4);
	}
	for (int i = 0; o->latency && i < 5; i++)
		num_field(f, r->latency, r->lat_ns[i], 1);
	fputc('\n', f);
}

const char out_latency_header[] = "counter,threads,run,bucket_low_ns,bucket_high_ns,count\n";

void out_latency_rows(FILE *f, const sc_variant *v, uint32_t threads, unsigned run,
                      const run_result *r)
{
	const lat_hist *h = r->hist;
	uint64_t zero = 0;
	if (!h)
		return;
	/* Buckets wholly at or below the tick-read overhead are 0 ns: one row [0, 0]. */
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned b = 0; b < LAT_HIST_BUCKETS; b++) {
			uint64_t lo, hi;
			if (!h->counts[b])
				continue;
			lat_hist_bucket_bounds(lat_hist_bucket_first(b), &lo, &hi);
			double low = fmax(0, (double)lo - r->lat_overhead_ticks) * r->lat_ns_per_tick;
			double high = fmax(0, (double)hi + 1 - r->lat_overhead_ticks) * r->lat_ns_per_tick;
			if (pass == 0) {
				zero += high == 0 ? h->counts[b] : 0;
				continue;
			}
			if (high == 0)
				continue;
			csv_field(f, v->name);
			fprintf(f, ",%u,%u,%.3f,%.3f,%llu\n", threads, run, low, high,
			        (unsigned long long)h->counts[b]);
		}
		if (pass == 0 && zero) {
			csv_field(f, v->name);
			fprintf(f, ",%u,%u,0,0,%llu\n", threads, run, (unsigned long long)zero);
		}
	}
}

void out_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
