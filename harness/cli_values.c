/* SPDX-License-Identifier: MIT */
/* cli_values.c - strict parsing of option values, usage errors, and the warning for an
 * environment value the library would ignore (cli_values.h). */
#include "cli_values.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* text with its control bytes but a tab (an ESC, a line break given in an option) as \xNN. */
static void put_escaped(const char *text)
{
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			fprintf(stderr, "\\x%02x", *p);
		else
			fputc(*p, stderr);
}

void error_line(const char *fmt, ...)
{
	char msg[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fputs("scbench: ", stderr);
	put_escaped(msg);
	fputc('\n', stderr);
}

int usage_error(const char *opt, const char *value, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	fputs("scbench: ", stderr);
	if (value) {
		fprintf(stderr, "--%s=", opt);
		put_escaped(value);
	} else {
		put_escaped(opt);
	}
	fputs(": ", stderr);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	put_escaped(msg);
	fputc('\n', stderr);
	return CLI_USAGE;
}

bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool parse_double(const char *s, double *out)
{
	if (!s || !(isdigit((unsigned char)s[0]) || s[0] == '-' || s[0] == '.') ||
	    strpbrk(s, "xXnNiI"))
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return false;
	*out = v == 0 ? 0.0 : v;
	return true;
}

void *must_alloc(void *p)
{
	if (!p) {
		fprintf(stderr, "scbench: out of memory\n");
		exit(1);
	}
	return p;
}

/*
 * The library reads SCOUNTERS_NODE silently (sc_node.h) and takes an unknown
 * value as unset: say so, once, before the runs.
 */
void warn_node_env(void)
{
	const char *v = getenv("SCOUNTERS_NODE");
	if (v && *v && strcmp(v, "rseq") != 0 && strcmp(v, "getcpu") != 0 &&
	    strcmp(v, "fixed") != 0)
		error_line("warning: SCOUNTERS_NODE=%.40s%s is not rseq, getcpu or fixed: "
		           "ignored (the default, rseq where the kernel has it)",
		           v, strlen(v) > 40 ? "..." : "");
}
