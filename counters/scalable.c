/* scalable.c - configuration of Ayers's integer counters (scalable.h). */
#include <scounters/sc_scalable.h>

#include <string.h>

#define SC_SCALABLE_THRESHOLD_DEFAULT 13 /* Ayers's switch-over at 8192 */
#define SC_SCALABLE_CAP_DEFAULT 10       /* update rate 1/1024 (Ayers's end notes) */

static int read_width(const char *variant, sc_params *p, uint32_t *width, sc_err *err)
{
	uint64_t w = 0;
	if (sc_param_u64(p, variant, "width", 32, 32, 64, &w, err) == 0 && (w == 32 || w == 64)) {
		*width = (uint32_t)w;
		return 0;
	}
	/* one message for every bad value: not a number, out of range, or in between */
	for (unsigned i = 0; i < p->n; i++)
		if (strcmp(p->key[i], "width") == 0)
			sc_err_set(err, "%s: parameter width=%s is invalid: expected 32 or 64",
			           variant, p->value[i]);
	return -1;
}

int sc_scalable_config_named(sc_scalable_cfg *cfg, sc_params *p, const char *variant,
                             bool capped, sc_err *err)
{
	uint64_t threshold, cap = SC_SCALABLE_STEP_MAX;
	if (read_width(variant, p, &cfg->width, err))
		return -1;
	if (sc_param_u64(p, variant, "threshold", SC_SCALABLE_THRESHOLD_DEFAULT, 1,
	                 cfg->width - 1, &threshold, err))
		return -1;
	if (capped && sc_param_u64(p, variant, "cap", SC_SCALABLE_CAP_DEFAULT, 1,
	                           SC_SCALABLE_STEP_MAX, &cap, err))
		return -1;
	cfg->threshold = (uint32_t)threshold;
	cfg->cap = (uint32_t)cap;
	return 0;
}

int sc_scalable_config(sc_scalable_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)env;
	return sc_scalable_config_named(cfg, p, "Scalable", false, err);
}

int sc_scalable_cas_config(sc_scalable_cas_cfg *cfg, sc_params *p, const sc_env *env,
                           sc_err *err)
{
	(void)env;
	return sc_scalable_config_named(cfg, p, "ScalableCAS", false, err);
}

int sc_scalable_capped_config(sc_scalable_capped_cfg *cfg, sc_params *p, const sc_env *env,
                              sc_err *err)
{
	(void)env;
	return sc_scalable_config_named(cfg, p, "ScalableCapped", true, err);
}
