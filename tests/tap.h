/* SPDX-License-Identifier: MIT */
/*
 * tap.h - a minimal Test Anything Protocol writer for make check (automake's
 * tap-driver.sh reads it). One test program prints a plan, then one line per
 * check; exit status is 0 only if every check passed.
 *
 *   tap_plan_lazy();                 plan printed at the end
 *   tap_ok(cond, "name %d", i);      one check
 *   tap_skip("reason");              whole program skipped (exit 77 semantics)
 *   return tap_done();
 */
#ifndef SC_TAP_H
#define SC_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int tap_count_, tap_failed_;

static inline void tap_plan_lazy(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static inline bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	tap_count_++;
	if (!cond)
		tap_failed_++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_count_);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	return cond;
}

/* A diagnostic line (shown by the driver, ignored by the protocol). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static inline void tap_skip_all(const char *reason)
{
	printf("1..0 # SKIP %s\n", reason);
	exit(0);
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count_);
	return tap_failed_ ? 1 : 0;
}

#endif /* SC_TAP_H */
