/* SPDX-License-Identifier: MIT */
/*
 * test_counter_params.c - sc_counter_new's parameter parsing and its
 * messages (TAP):
 *   - sc_counter_new refuses empty items ("batch=4,,") and items with a
 *     blank anywhere (" batch=4", "batch=4 "), and lists only
 *     accepted keys (never same-seed) for an unknown one;
 *   - an unknown variant's message names every variant, whatever the name
 *     given (a long one is cut, not the list); messages carry no control
 *     byte (a caller's newline or ESC as \xNN).
 * Deterministic: sc_counter_new only, nothing is counted.
 */
#include <scounters/scounters.h>

#include <stdio.h>
#include <string.h>

#include "tap.h"

static void parsing(void)
{
	sc_err err;
	sc_counter *c;
	const char *empty[] = { "batch=4,,", ",batch=4", ",", "batch=4," };
	for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
		err.msg[0] = '\0';
		c = sc_counter_new("Batched", empty[i], &err);
		tap_ok(!c && strstr(err.msg, "empty item"), "params '%s' refused: %s", empty[i],
		       err.msg);
		sc_counter_free(c);
	}
	c = sc_counter_new("Batched", "batch=4", &err);
	tap_ok(c != NULL, "params 'batch=4' accepted");
	sc_counter_free(c);
	/* blanks around an item were trimmed, against sc_counter_new(3) */
	const char *blank[] = { " batch=4", "batch=4 ",  " batch=4 , ", "batch =4",
		                "batch= 4", "batch=4\t", "\tbatch=4",   "batch=4, ,batch=8",
		                " ",        "batch=4\n" };
	for (size_t i = 0; i < sizeof blank / sizeof *blank; i++) {
		err.msg[0] = '\0';
		c = sc_counter_new("Batched", blank[i], &err);
		tap_ok(!c && strstr(err.msg, "blank"), "params with a blank (%zu) refused: %s", i,
		       err.msg);
		sc_counter_free(c);
	}
	c = sc_counter_new("Sharded", NULL, &err);
	tap_ok(c != NULL, "params NULL accepted");
	sc_counter_free(c);
	c = sc_counter_new("BFP-DUP", "foo=1", &err);
	tap_ok(!c && strstr(err.msg, "unknown parameter 'foo'") && strstr(err.msg, "accuracy") &&
	               !strstr(err.msg, "same-seed"),
	       "unknown key: accepted keys listed without same-seed: %s", err.msg);
	c = sc_counter_new("Sharded", "foo=1", &err);
	tap_ok(!c && strstr(err.msg, "accepted: none") && !strstr(err.msg, "same-seed"),
	       "unknown key, variant without parameters: %s", err.msg);
	c = sc_counter_new("Sharded", "same-seed=1", &err);
	tap_ok(!c && strstr(err.msg, "benchmark parameter"), "same-seed refused: %s", err.msg);
}

/* Every name of sc_variant_names() an item of msg's comma-separated list (after "valid: "). */
static int lists_every_variant(const char *msg)
{
	const char *list = strstr(msg, "valid: ");
	if (!list)
		return 0;
	list += strlen("valid: ");
	char names[1024];
	snprintf(names, sizeof names, "%s", sc_variant_names());
	for (char *save = NULL, *n = strtok_r(names, ", ", &save); n;
	     n = strtok_r(NULL, ", ", &save)) {
		size_t len = strlen(n);
		const char *at = list;
		while ((at = strstr(at, n)) &&
		       !((at == list || at[-1] == ',') && (at[len] == ',' || !at[len])))
			at++;
		if (!at)
			return 0;
	}
	return 1;
}

static int no_control_byte(const char *msg)
{
	for (const unsigned char *s = (const unsigned char *)msg; *s; s++)
		if (*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

static void unknown_variant_messages(void)
{
	sc_err err;
	char longname[300];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	const char *given[] = { "Nope", "", "Nope\n\033[31m", longname,
		                "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n" };
	for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
		sc_counter *c = sc_counter_new(given[i], NULL, &err);
		tap_ok(!c && strncmp(err.msg, "unknown variant", 15) == 0 &&
		               lists_every_variant(err.msg) && no_control_byte(err.msg),
		       "unknown variant %zu: every variant listed, no control byte: %s", i,
		       err.msg);
		sc_counter_free(c);
	}
	sc_counter_new("Nope\n\033[31m", NULL, &err);
	tap_ok(strstr(err.msg, "'Nope\\x0a") != NULL, "control bytes as \\xNN: %s", err.msg);
	sc_counter_new(longname, NULL, &err);
	tap_ok(strstr(err.msg, "xxx...'") != NULL, "a long name cut with ...: %s", err.msg);
	sc_err_set(&err, "a%sb%c", "\r\n", 0x7f);
	tap_ok(strcmp(err.msg, "a\\x0d\\x0ab\\x7f") == 0, "sc_err_set escapes: %s", err.msg);
}
int main(void)
{
	tap_plan_lazy();
	parsing();
	unknown_variant_messages();
	return tap_done();
}
