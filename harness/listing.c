/* SPDX-License-Identifier: MIT */
/*
 * listing.c - what scbench answers without running: --help, --version,
 * --list, and --list=json (listing.h): every column of the registry
 * (SC_VARIANTS in <scounters/scounters.h>) as JSON, so that no script reads
 * the human-readable --list with patterns or types a list the registry holds;
 * and, as its member "csv_schema", the result CSV's columns (csv.h).
 */
#include "config.h"

#include "cli_values.h"
#include "linkage.h"
#include "listing.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include <scounters/scounters.h>

#include "csv.h"
#include "meta.h"
#include "sc_revision.h"

/* The registry's last three columns (family, origin, groups), by variant id. */
typedef struct listing_tags {
	const char *family, *origin, *groups;
} listing_tags;

#define LISTING_TAGS_(P, NAME, ALIAS, KIND, LAYOUT, SUMMARY, PARAMS, FAMILY, ORIGIN, GROUPS) \
	[SC_ID_##P] = {FAMILY, ORIGIN, GROUPS},
static const listing_tags listing_tags_of[SC_VARIANT_COUNT] = {SC_VARIANTS(LISTING_TAGS_)};
#undef LISTING_TAGS_

const char *listing_family(const sc_variant *v)
{
	return listing_tags_of[v - sc_variants].family;
}

bool listing_format_ok(const char *arg, bool *json)
{
	*json = arg && strcmp(arg, "json") == 0;
	return !arg || *json;
}

/* A comma-separated list ("" for none) as a JSON array of strings. */
static void json_list(FILE *f, const char *list)
{
	fputc('[', f);
	for (const char *at = list; *at;) {
		size_t n = strcspn(at, ",");
		char item[64];
		snprintf(item, sizeof item, "%.*s", (int)n, at);
		fputs(at == list ? "" : ", ", f);
		meta_json_string(f, item);
		at += n + (at[n] == ',');
	}
	fputc(']', f);
}

/*
 * The variant's parameter keys, each with the value it takes when not given
 * (sc_variant_param_defaults; null for a key read only under a condition):
 * [{"key": "accuracy", "default": "0.01"}, ...]. -1 when v cannot be configured.
 */
static int json_params(FILE *f, const sc_variant *v, const sc_env *env)
{
	char defaults[512];
	sc_err err;
	if (sc_variant_param_defaults(v, env, defaults, sizeof defaults, &err)) {
		error_line("%s", err.msg);
		return -1;
	}
	fputc('[', f);
	for (const char *at = v->params; *at;) {
		size_t n = strcspn(at, ",");
		char key[64];
		snprintf(key, sizeof key, "%.*s", (int)n, at);
		fputs(at == v->params ? "{\"key\": " : ", {\"key\": ", f);
		meta_json_string(f, key);
		fputs(", \"default\": ", f);
		const char *d = defaults;
		size_t kn = strlen(key);
		while (d && !(strncmp(d, key, kn) == 0 && d[kn] == '='))
			d = strchr(d, ',') ? strchr(d, ',') + 1 : NULL;
		if (d) {
			char value[64];
			snprintf(value, sizeof value, "%.*s", (int)strcspn(d + kn + 1, ","), d + kn + 1);
			meta_json_string(f, value);
		} else {
			fputs("null", f);
		}
		fputc('}', f);
		at += n + (at[n] == ',');
	}
	fputc(']', f);
	return 0;
}

/* The JSON names of the SC_PROMISE_* bits (sc_contract.h), in bit order. */
static const char *const promise_names[] = {"signal-safe", "inline-rseq", "fork-exact",
                                             "shared-memory", "readings-differ", "holds-back",
                                             "lag-bounded", "fork-fast-exact"};

static const char *bound_kind_name(sc_bound_kind k)
{
	switch (k) {
	case SC_BOUND_EXACT:
		return "exact";
	case SC_BOUND_LAG:
		return "lag";
	case SC_BOUND_RSTDV:
		return "rstdv";
	default:
		return "none";
	}
}

/*
 * The variant's contract with its default parameters: each reading's
 * bound kind, and its promises. -1 when the default configuration fails.
 */
static int json_contract(FILE *f, const sc_variant *v, const sc_env *env)
{
	sc_params p;
	sc_table t;
	sc_err err;
	sc_params_clear(&p);
	if (sc_table_create(&t, v, &p, env, 1, &err))
		return -1;
	fprintf(f, ", \"contract\": {\"fast\": \"%s\", \"sum\": \"%s\", \"promises\": [",
	        bound_kind_name(v->bound(t.cfg, SC_READ_FAST).kind),
	        bound_kind_name(v->bound(t.cfg, SC_READ_SUM).kind));
	sc_table_destroy(&t);
	const char *sep = "";
	for (unsigned b = 0; b < sizeof promise_names / sizeof promise_names[0]; b++)
		if (v->promises & (1u << b)) {
			fprintf(f, "%s\"%s\"", sep, promise_names[b]);
			sep = ", ";
		}
	fputs("]}", f);
	return 0;
}

int listing_print_json(FILE *f, uint32_t pus)
{
	sc_env env;
	sc_env_default(&env);
	env.threads = pus;
	fputs("{\"schema\": 1, \"pus\": ", f);
	fprintf(f, "%u, \"common_params\": [\"same-seed\"], \"variants\": [", (unsigned)pus);
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		const sc_variant *v = &sc_variants[i];
		const listing_tags *t = &listing_tags_of[i];
		fputs(i ? ",\n  {\"name\": " : "\n  {\"name\": ", f);
		meta_json_string(f, v->name);
		fputs(", \"alias\": ", f);
		if (v->alias)
			meta_json_string(f, v->alias);
		else
			fputs("null", f);
		fprintf(f, ", \"kind\": \"%s\", \"layout\": \"%s\", \"family\": ", sc_kind_name(v->kind),
		        v->layout == SC_PADDED ? "padded" : "packed");
		meta_json_string(f, t->family);
		fputs(", \"origin\": ", f);
		json_list(f, t->origin);
		fputs(", \"groups\": ", f);
		json_list(f, t->groups);
		fprintf(f, ", \"bytes_per_counter\": %zu, \"summary\": ", sc_variant_default_bytes(v, &env));
		meta_json_string(f, v->summary);
		fputs(", \"params\": ", f);
		if (json_params(f, v, &env) || json_contract(f, v, &env))
			return -1;
		fputc('}', f);
	}
	fputs("\n],\n\"csv_schema\": ", f);
	out_csv_schema_json(f);
	fputs("}\n", f);
	return 0; /* a write error is the caller's to find and say (it was a silent 1) */
}

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

/* --help, --version, --list, or a usage error (rc): the exit status. */
int listing_answer(const cli_opts *o, int rc, uint32_t pus)
{
	if (rc == CLI_USAGE)
		return 2;
	errno = 0;
	if (o->help)
		cli_usage(stdout);
	else if (o->version)
		printf("scbench %s (revision %s%s)\n", PACKAGE_VERSION, SC_REVISION, linkage_version());
	else if (o->list_json) {
		if (listing_print_json(stdout, pus))
			return 1; /* a variant that cannot be configured (said why) */
	} else if (o->list)
		print_list(pus);
	/* A full disk is a failure, not a listing; a closed pipe (| head) a quiet end,
	 * as SIGPIPE's default ends a tool: a write that failed while printing left
	 * its errno (printing sets no other). */
	int printing = errno;
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (errno == EPIPE || printing == EPIPE)
			return 128 + SIGPIPE;
		fprintf(stderr, "scbench: cannot write to standard output: %s\n",
		        errno ? strerror(errno) : "write error");
		return 1;
	}
	return 0;
}
