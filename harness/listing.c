/* SPDX-License-Identifier: MIT */
/*
 * listing.c - scbench --list=json (listing.h): every column of the registry
 * (SC_VARIANTS in <scounters/scounters.h>) as JSON, so that no script reads
 * the human-readable --list with patterns or types a list the registry holds.
 */
#include "listing.h"

#include <string.h>

#include <scounters/scounters.h>

#include "meta.h"

/* The registry's last three columns (family, origin, groups), by variant id. */
typedef struct listing_tags {
	const char *family, *origin, *groups;
} listing_tags;

#define LISTING_TAGS_(P, NAME, ALIAS, KIND, LAYOUT, SUMMARY, PARAMS, FAMILY, ORIGIN, GROUPS) \
	[SC_ID_##P] = {FAMILY, ORIGIN, GROUPS},
static const listing_tags listing_tags_of[SC_VARIANT_COUNT] = {SC_VARIANTS(LISTING_TAGS_)};
#undef LISTING_TAGS_

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
		fprintf(stderr, "scbench: %s\n", err.msg);
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
		if (json_params(f, v, &env))
			return -1;
		fputc('}', f);
	}
	fputs("\n]}\n", f);
	return 0; /* a write error is the caller's to find and say (issue 29: it was a silent 1) */
}
