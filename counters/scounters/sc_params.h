/* SPDX-License-Identifier: MIT */
/*
 * sc_params.h - the named parameters ("key=value") a variant is configured
 * with, and their readers. sc_common.h includes it.
 */
#ifndef SC_PARAMS_H
#define SC_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "sc_abi.h"
#include "sc_error.h"

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

struct sc_backoff_cfg; /* sc_common.h */

/*
 * Named parameters ("key=value"), as given by --param. Each variant's config
 * function reads the keys it knows with the sc_param_* readers, which mark
 * them used; sc_params_check_unused() then rejects whatever is left.
 */
#define SC_MAX_PARAMS 16

#define SC_MAX_KEY 32

typedef struct sc_params {
	unsigned n;
	char key[SC_MAX_PARAMS][SC_MAX_KEY];
	const char *value[SC_MAX_PARAMS];
	bool used[SC_MAX_PARAMS];
} sc_params;

void sc_params_clear(sc_params *p);
/* Add "key=value" (the string must outlive p). -1 and err on bad form or too many. */
int sc_params_add(sc_params *p, const char *kv, sc_err *err);

/*
 * Readers. Each returns 0 and stores the default when the key is absent,
 * 0 and the parsed value when it is present and in [min, max], -1 with a
 * message naming the variant, key, value and accepted range otherwise.
 */
int sc_param_u64(sc_params *p, const char *variant, const char *key, uint64_t def,
                 uint64_t min, uint64_t max, uint64_t *out, sc_err *err);
int sc_param_double(sc_params *p, const char *variant, const char *key, double def,
                    double min, double max, double *out, sc_err *err);
bool sc_param_present(const sc_params *p, const char *key);
/* Reads backoff-min and backoff-max into b. */
int sc_param_backoff(sc_params *p, const char *variant, struct sc_backoff_cfg *b,
                     sc_err *err);
/* -1 with a message listing the unknown key and the accepted ones. */
int sc_params_check_unused(const sc_params *p, const char *variant, const char *accepted,
                           sc_err *err);

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_PARAMS_H */
