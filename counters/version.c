/* SPDX-License-Identifier: MIT */
/*
 * version.c - the run-time version query and the line-size symbol of
 * sc_abi.h.
 */
#include <scounters/scounters.h>

/* The one line-size symbol this build defines (sc_abi.h). */
const unsigned char SC_ABI_LINE_SYM(SC_LINE_SIZE) = 1; /* its address is what counts */

long sc_version(void)
{
	return SC_VERSION_NUMBER;
}

const char *sc_version_string(void)
{
	return SC_VERSION;
}

unsigned sc_line_size(void)
{
	return SC_LINE_SIZE;
}
