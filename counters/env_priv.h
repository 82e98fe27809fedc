/* SPDX-License-Identifier: MIT */
/*
 * env_priv.h - inside the library only: what an sc_env leaves to the OS.
 */
#ifndef SC_ENV_PRIV_H
#define SC_ENV_PRIV_H

#include <stdint.h>

#include <scounters/sc_common.h>

/* env->cpus, or the OS's configured CPU count (as sc_env_default) when it is 0. */
uint32_t sc_env_cpus_(const sc_env *env);

#endif /* SC_ENV_PRIV_H */
