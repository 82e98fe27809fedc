/* SPDX-License-Identifier: MIT */
/*
 * sc_error.h - how the library reports a failure: a message in an sc_err
 * the caller provides. sc_common.h includes it.
 */
#ifndef SC_ERROR_H
#define SC_ERROR_H

#include "sc_abi.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/* Error message sink for configuration and allocation failures. */
typedef struct sc_err {
	char msg[256];
} sc_err;

void sc_err_set(sc_err *err, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_ERROR_H */
