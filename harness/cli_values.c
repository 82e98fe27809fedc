/* SPDX-License-Identifier: MIT */
/* cli_values.c - strict parsing of option values, and usage errors (cli_values.h). */
#include "cli_values.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int usage_error(const char *opt, const char *value, const char *fmt, ...)
{
	va_list ap;
	if (value)
		fprintf(stderr, "scbench: --%s=%s: ", opt, value);
	else
		fprintf(stderr, "scbench: %s: ", opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
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
