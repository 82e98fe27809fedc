/* SPDX-License-Identifier: MIT */
/* sc_alloc.c - line-aligned zeroed blocks (sc_alloc.h). */
#include <scounters/sc_alloc.h>
#include <scounters/sc_common.h>

#include <stdlib.h>
#include <string.h>

void *sc_alloc_lines(size_t size)
{
	size_t n = SC_PAD_UP(size ? size : 1);
	void *q = aligned_alloc(SC_LINE_SIZE, n);
	if (q)
		memset(q, 0, n);
	return q;
}

void sc_free_lines(void *q)
{
	free(q);
}
