/* SPDX-License-Identifier: MIT */
/* cli.c - parsing and validation of scbench's options (doc/design.md §5.1, §8). */
#include "cli.h"
#include "cli_values.h"
#include "listing.h"

#include "output.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Takes one item of the list arg (and may write into it); CLI_OK, or a usage error. */
typedef int (*list_item_fn)(cli_opts *o, char *item, const char *arg);

/*
 * Hand each item of the comma list arg to fn, up to the first one fn
 * rejects. An empty item ("1,,2", "1,", ",1", "") is a usage error of opt:
 * silently skipping it would run something other than what was typed.
 */
static int parse_list(cli_opts *o, const char *opt, const char *arg, list_item_fn fn)
{
	char *copy = must_alloc(strdup(arg));
	int rc = CLI_OK;
	char *item = copy;
	for (unsigned k = 1; rc == CLI_OK; k++) {
		char *comma = strchr(item, ',');
		if (comma)
			*comma = '\0';
		if (!*item)
			rc = usage_error(opt, arg, "item %u of the list is empty", k);
		else
			rc = fn(o, item, arg);
		if (!comma)
			break;
		item = comma + 1;
	}
	free(copy);
	return rc;
}

static void add_thread_count(cli_opts *o, uint64_t t)
{
	o->threads = must_alloc(realloc(o->threads, (o->plan.nthreads + 1) * sizeof *o->threads));
	o->threads[o->plan.nthreads++] = (uint32_t)t;
}

static const char threads_accepted[] =
	"expected a comma list of counts (1,2,4), a range (1-8) or pow2, each in [1, 16384]";

/* One item of --threads: a count, or a range lo-hi. */
static int thread_item(cli_opts *o, char *item, const char *arg)
{
	char *dash = strchr(item, '-');
	uint64_t lo, hi;
	if (dash)
		*dash = '\0';
	if (!parse_u64(item, 1, CLI_MAX_THREADS, &lo) ||
	    !parse_u64(dash ? dash + 1 : item, 1, CLI_MAX_THREADS, &hi) || hi < lo)
		return usage_error("threads", arg, "%s", threads_accepted);
	for (uint64_t t = lo; t <= hi; t++) {
		for (unsigned i = 0; i < o->plan.nthreads; i++)
			if (o->threads[i] == t)
				return usage_error("threads", arg,
				                   "thread count %llu given twice (each point once)",
				                   (unsigned long long)t);
		add_thread_count(o, t);
	}
	return CLI_OK;
}

static int parse_threads(cli_opts *o, const char *arg, uint32_t pus)
{
	o->plan.nthreads = 0;
	if (strcasecmp(arg, "pow2") == 0) {
		for (uint64_t t = 1; t < pus; t *= 2)
			add_thread_count(o, t);
		add_thread_count(o, pus);
		return CLI_OK;
	}
	if (!*arg)
		return usage_error("threads", arg, "%s", threads_accepted);
	return parse_list(o, "threads", arg, thread_item);
}

/* One item of --counter: a variant name or alias, kept once. */
static int counter_item(cli_opts *o, char *item, const char *arg)
{
	const sc_variant *v = sc_variant_find(item);
	if (!v)
		return usage_error("counter", arg, "unknown variant '%s'; valid: %s", item,
		                   sc_variant_names());
	for (unsigned i = 0; i < o->plan.nvariants; i++)
		if (o->plan.variants[i].v == v)
			return CLI_OK;
	o->plan.variants[o->plan.nvariants++].v = v;
	return CLI_OK;
}

static int parse_counters(cli_opts *o, const char *arg)
{
	o->plan.nvariants = 0;
	if (strcasecmp(arg, "all") == 0) {
		for (int i = 0; i < SC_VARIANT_COUNT; i++)
			o->plan.variants[o->plan.nvariants++].v = &sc_variants[i];
		return CLI_OK;
	}
	if (!*arg)
		return usage_error("counter", arg, "expected variant names or all; valid: %s",
		                   sc_variant_names());
	return parse_list(o, "counter", arg, counter_item);
}

/*
 * The output path, and the sidecars written after the runs, must be usable as
 * output.h describes: found out now, not after the runs. Nothing is created.
 */
static int check_output(const char *path, bool latency)
{
	char why[512];
	out_kind kind;
	if (out_check(path, &kind, why, sizeof why) ||
	    out_check_sidecar(path, ".meta.json", why, sizeof why) ||
	    (latency && out_check_sidecar(path, ".latency.csv", why, sizeof why)))
		return usage_error("output", path, "%s", why);
	return CLI_OK;
}

/*
 * Each chosen variant takes the keys it accepts and configures itself with
 * them, so that an out-of-range value is caught now, before any thread runs.
 */
static int check_params(cli_opts *o)
{
	int bad = -1;
	sc_err err;
	if (plan_set_params(&o->plan, &o->params, &bad, &err) == 0)
		return CLI_OK;
	if (bad < 0) {
		error_line("--param: %s", err.msg);
		return CLI_USAGE;
	}
	char kv[SC_MAX_KEY + 64];
	snprintf(kv, sizeof kv, "%s=%s", o->params.key[bad], o->params.value[bad]);
	return usage_error("param", kv, "no chosen variant accepts '%s' (see scbench --list)",
	                   o->params.key[bad]);
}

enum {
	OPT_LIST = 256, OPT_COUNTER, OPT_THREADS, OPT_OPS, OPT_DURATION, OPT_WARMUP, OPT_RUNS,
	OPT_WORK, OPT_WORK_ITERS, OPT_COUNTERS, OPT_PLACEMENT, OPT_NODES, OPT_PARAM, OPT_SEED,
	OPT_EVENTS, OPT_LATENCY, OPT_OUTPUT, OPT_FORCE, OPT_HELP, OPT_VERSION, OPT_FIRST_RUN,
	OPT_READ_COST, OPT_FORMAT, OPT_SUMMARY, OPT_BASELINE
};

static const struct option long_opts[] = {
	{"list", optional_argument, NULL, OPT_LIST},
	{"counter", required_argument, NULL, OPT_COUNTER},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"ops", required_argument, NULL, OPT_OPS},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"warmup", required_argument, NULL, OPT_WARMUP},
	{"runs", required_argument, NULL, OPT_RUNS},
	{"work", required_argument, NULL, OPT_WORK},
	{"work-iters", required_argument, NULL, OPT_WORK_ITERS},
	{"counters", required_argument, NULL, OPT_COUNTERS},
	{"placement", required_argument, NULL, OPT_PLACEMENT},
	{"nodes", required_argument, NULL, OPT_NODES},
	{"param", required_argument, NULL, OPT_PARAM},
	{"seed", required_argument, NULL, OPT_SEED},
	{"events", required_argument, NULL, OPT_EVENTS},
	{"latency", no_argument, NULL, OPT_LATENCY},
	{"output", required_argument, NULL, OPT_OUTPUT},
	{"force", no_argument, NULL, OPT_FORCE},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{"first-run", required_argument, NULL, OPT_FIRST_RUN},
	{"read-cost", required_argument, NULL, OPT_READ_COST},
	{"format", required_argument, NULL, OPT_FORMAT},
	{"summary", optional_argument, NULL, OPT_SUMMARY},
	{"baseline", required_argument, NULL, OPT_BASELINE},
	{NULL, 0, NULL, 0},
};

/*
 * What getopt_long refused in the word bad, said as getopt_long decides it: a
 * long option is named by its full name or by a unique prefix of one, so a
 * prefix of several is ambiguous (the possibilities named), not unknown; then
 * a value given to an option that takes none, or missing. A short option
 * (optopt, its letter) other than -h is unknown.
 */
static int option_error(const char *bad, int letter)
{
	if (letter >= OPT_LIST) {
		for (const struct option *l = long_opts; l->name; l++)
			if (l->val == letter) {
				char opt[64];
				snprintf(opt, sizeof opt, "--%s", l->name);
				return usage_error(opt, NULL, "%s; see scbench --help",
				                   l->has_arg == no_argument ? "takes no value"
				                                             : "needs a value");
			}
	}
	if (strncmp(bad, "--", 2) != 0) {
		char opt[3] = {'-', letter > ' ' && letter < 127 ? (char)letter : '?', '\0'};
		return usage_error(opt, NULL, "unknown option; see scbench --help");
	}
	int len = (int)strcspn(bad + 2, "=");
	char names[512] = "", opt[128];
	unsigned hits = 0;
	for (const struct option *l = long_opts; l->name; l++)
		if (strncmp(l->name, bad + 2, (size_t)len) == 0 &&
		    strlen(names) + strlen(l->name) + 4 < sizeof names) {
			hits++;
			strcat(names, " --");
			strcat(names, l->name);
		}
	snprintf(opt, sizeof opt, "--%.*s", len < 100 ? len : 100, bad + 2);
	if (hits > 1)
		return usage_error(opt, NULL, "ambiguous option; possibilities:%s", names);
	return usage_error(opt, NULL, "unknown option; see scbench --help");
}

/* The options whose value is a number: --ops, --duration, --warmup, --runs, ... */
static int parse_number(cli_opts *o, int c, const char *arg)
{
	uint64_t u;
	double d;
	switch (c) {
	case OPT_OPS:
		if (!parse_u64(arg, 1, UINT64_MAX / CLI_MAX_THREADS, &u))
			return usage_error("ops", arg, "expected an integer in [1, %llu] (2^50 - 1)",
			                   (unsigned long long)(UINT64_MAX / CLI_MAX_THREADS));
		o->plan.count_mode = true;
		o->plan.ops = u;
		return CLI_OK;
	case OPT_DURATION:
		if (!parse_double(arg, &d) || d <= 0 || d > 86400)
			return usage_error("duration", arg, "expected seconds, > 0 and <= 86400");
		o->plan.duration = d;
		return CLI_OK;
	case OPT_WARMUP:
		if (!parse_double(arg, &d) || d < 0 || d > 86400)
			return usage_error("warmup", arg, "expected seconds, >= 0 and <= 86400");
		o->plan.warmup = d;
		return CLI_OK;
	case OPT_RUNS:
		if (!parse_u64(arg, 1, 100000, &u))
			return usage_error("runs", arg, "expected an integer in [1, 100000]");
		o->plan.runs = (unsigned)u;
		return CLI_OK;
	case OPT_WORK:
		if (!parse_double(arg, &d) || d < 0 || d >= 100)
			return usage_error("work", arg, "expected a percentage, 0 <= PCT < 100");
		o->plan.work_pct = d;
		return CLI_OK;
	case OPT_WORK_ITERS:
		if (!parse_double(arg, &d) || d < 0 || d > WL_MAX_WORK_ITERS)
			return usage_error("work-iters", arg,
			                   "expected a mean pause count in [0, 1048576]");
		o->plan.work_iters = d;
		o->plan.work_iters_given = true;
		return CLI_OK;
	case OPT_COUNTERS:
		if (!parse_u64(arg, 1, CLI_MAX_COUNTERS, &u))
			return usage_error("counters", arg, "expected an integer in [1, %u]",
			                   CLI_MAX_COUNTERS);
		o->plan.counters = (uint32_t)u;
		return CLI_OK;
	case OPT_NODES:
		if (!parse_u64(arg, 1, CLI_MAX_NODES, &u))
			return usage_error("nodes", arg, "expected an integer in [1, %u]",
			                   CLI_MAX_NODES);
		o->plan.nodes = (uint32_t)u;
		return CLI_OK;
	case OPT_SEED:
		if (!parse_u64(arg, 0, UINT64_MAX, &u))
			return usage_error("seed", arg, "expected an unsigned 64-bit integer");
		o->plan.seed = u;
		return CLI_OK;
	case OPT_FIRST_RUN:
		if (!parse_u64(arg, 0, CLI_MAX_FIRST_RUN, &u))
			return usage_error("first-run", arg, "expected an integer in [0, %u]",
			                   CLI_MAX_FIRST_RUN);
		o->plan.first_run = (unsigned)u;
		return CLI_OK;
	}
	return CLI_USAGE;
}

static int parse_one(cli_opts *o, int c, const char *arg, uint32_t pus)
{
	sc_err err;
	switch (c) {
	case OPT_LIST:
		o->list = true;
		return listing_format_ok(arg, &o->list_json) ? CLI_OK
		                                             : usage_error("list", arg, "expected json");
	case 'h':
	case OPT_HELP: o->help = true; return CLI_OK;
	case OPT_FORMAT:
		if (strcasecmp(arg, "csv") == 0 || strcasecmp(arg, "json") == 0)
			o->plan.json = strcasecmp(arg, "json") == 0;
		else
			return usage_error("format", arg, "expected csv or json");
		return CLI_OK;
	case OPT_SUMMARY:
		if (!arg || strcasecmp(arg, "on") == 0)
			o->plan.summary = 1;
		else if (strcasecmp(arg, "off") == 0)
			o->plan.summary = 0;
		else if (strcasecmp(arg, "auto") == 0)
			o->plan.summary = -1;
		else
			return usage_error("summary", arg, "expected on, off or auto");
		return CLI_OK;
	case OPT_BASELINE:
		o->plan.baseline = sc_variant_find(arg);
		if (!o->plan.baseline)
			return usage_error("baseline", arg, "unknown variant; valid: %s",
			                   sc_variant_names());
		return CLI_OK;
	case OPT_VERSION: o->version = true; return CLI_OK;
	case OPT_LATENCY: o->plan.latency = true; return CLI_OK;
	case OPT_FORCE: o->plan.force = true; return CLI_OK;
	case OPT_COUNTER: return parse_counters(o, arg);
	case OPT_THREADS: return parse_threads(o, arg, pus);
	case OPT_PLACEMENT:
		if (strcasecmp(arg, "spread") == 0)
			o->plan.placement = PLACE_SPREAD;
		else if (strcasecmp(arg, "compact") == 0)
			o->plan.placement = PLACE_COMPACT;
		else if (strcasecmp(arg, "none") == 0)
			o->plan.placement = PLACE_NONE;
		else
			return usage_error("placement", arg, "expected spread, compact or none");
		return CLI_OK;
	case OPT_PARAM:
		if (strpbrk(arg, " \t\n\v\f\r"))
			return usage_error("param", arg, "expected KEY=VALUE without spaces");
		if (sc_params_add(&o->params, arg, &err))
			return usage_error("param", arg, "%s", err.msg);
		return CLI_OK;
	case OPT_EVENTS:
		if (!*arg)
			return usage_error("events", arg, "expected PAPI event names or none");
		o->plan.events = arg;
		return CLI_OK;
	case OPT_OUTPUT:
		o->plan.output = strcmp(arg, "-") == 0 ? NULL : arg;
		return CLI_OK;
	case OPT_READ_COST:
		if (strcasecmp(arg, "on") == 0)
			o->plan.read_cost = true;
		else if (strcasecmp(arg, "off") == 0)
			o->plan.read_cost = false;
		else
			return usage_error("read-cost", arg, "expected on or off");
		return CLI_OK;
	}
	return parse_number(o, c, arg);
}

int cli_parse(cli_opts *o, int argc, char **argv, uint32_t pus)
{
	memset(o, 0, sizeof *o);
	o->plan.duration = 8;
	o->plan.warmup = 2;
	o->plan.runs = 5;
	o->plan.counters = 1;
	o->plan.placement = PLACE_SPREAD;
	o->plan.seed = CLI_DEFAULT_SEED;
	o->plan.read_cost = true;
	o->plan.summary = -1;
	o->plan.argc = argc;
	o->plan.argv = argv;
	sc_params_clear(&o->params);
	for (int i = 0; i < SC_VARIANT_COUNT; i++)
		o->plan.variants[o->plan.nvariants++].v = &sc_variants[i];

	bool duration_given = false, warmup_given = false;
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return option_error(argv[optind - 1], optopt);
		duration_given |= c == OPT_DURATION;
		warmup_given |= c == OPT_WARMUP;
		int rc = parse_one(o, c, optarg, pus);
		if (rc != CLI_OK)
			return rc;
	}
	if (optind < argc)
		return usage_error(argv[optind], NULL, "unexpected argument; see scbench --help");
	if (o->help || o->version || o->list)
		return CLI_EXIT_OK;
	if (o->plan.work_iters_given && o->plan.work_pct > 0) {
		o->plan.work_iters_given = false; /* the CSV's work_pct is then --work's */
		o->plan.work_iters_for_pct = true;
	}
	if (o->plan.count_mode && (duration_given || warmup_given))
		return usage_error("--ops", NULL,
		                   "count-to-N mode takes no --duration or --warmup");
	if (o->plan.nthreads == 0 && parse_threads(o, "pow2", pus) != CLI_OK)
		return CLI_USAGE;
	o->plan.threads = o->threads;
	for (unsigned i = 0; i < o->plan.nthreads; i++)
		if (o->threads[i] > o->plan.threads_max)
			o->plan.threads_max = o->threads[i];
	bool base_run = !o->plan.baseline;
	for (unsigned i = 0; i < o->plan.nvariants; i++)
		base_run |= o->plan.variants[i].v == o->plan.baseline;
	if (!base_run)
		return usage_error("baseline", o->plan.baseline->name,
		                   "not among the counters run (--counter)");
	if (o->plan.output && check_output(o->plan.output, o->plan.latency) != CLI_OK)
		return CLI_USAGE;
	return check_params(o);
}

void cli_free(cli_opts *o)
{
	free(o->threads);
	o->threads = NULL;
	o->plan.threads = NULL;
}
