/* SPDX-License-Identifier: MIT */
/* simple.c - configuration of the central-word counters (sc_simple.h). */
#include <scounters/sc_simple.h>

/* Serial, CAS, FetchAdd, CASPrefetch and CASOnce have no parameters of their own. */
int sc_serial_config(sc_serial_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)p;
	(void)env;
	(void)err;
	cfg->backoff.min = cfg->backoff.max = 1;
	return 0;
}

int sc_cas_config(sc_cas_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	return sc_serial_config(cfg, p, env, err);
}

int sc_fetchadd_config(sc_fetchadd_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	return sc_serial_config(cfg, p, env, err);
}

int sc_rbo_config(sc_rbo_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)env;
	return sc_param_backoff(p, "RBO", &cfg->backoff, err);
}

int sc_cas_prefetch_config(sc_cas_prefetch_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	return sc_serial_config(cfg, p, env, err);
}

int sc_cas_once_config(sc_cas_once_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	return sc_serial_config(cfg, p, env, err);
}
