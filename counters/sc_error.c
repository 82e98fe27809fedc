/* SPDX-License-Identifier: MIT */
/* sc_error.c - the error message of an sc_err (sc_error.h). */
#include <scounters/sc_error.h>

#include <stdarg.h>
#include <stdio.h>

/*
 * The message with its control bytes (a caller's newline, an ESC) written as
 * \xNN: a message is one line that never drives a terminal, whoever prints
 * it (scbench, scounters::error::what()). Cut at the buffer's end, never
 * inside an escape.
 */
void sc_err_set(sc_err *err, const char *fmt, ...)
{
	if (!err)
		return;
	char raw[4 * sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	size_t o = 0;
	for (const unsigned char *s = (const unsigned char *)raw; *s; s++) {
		int control = *s < 0x20 || *s == 0x7f;
		if (o + (control ? 4 : 1) > sizeof err->msg - 1)
			break;
		if (control)
			o += (size_t)snprintf(err->msg + o, 5, "\\x%02x", *s);
		else
			err->msg[o++] = (char)*s;
	}
	err->msg[o] = '\0';
}
