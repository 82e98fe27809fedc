/* SPDX-License-Identifier: MIT */
/*
 * sc_alloc.h - the memory counters and their configurations live in:
 * zeroed blocks aligned to the padding unit (SC_LINE_SIZE). sc_common.h
 * includes it.
 */
#ifndef SC_ALLOC_H
#define SC_ALLOC_H

#include <stddef.h>

#include "sc_abi.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* Cache-line aligned zeroed allocation (size rounded up to the alignment). */
void *sc_alloc_lines(size_t size);
void sc_free_lines(void *p);

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_ALLOC_H */
