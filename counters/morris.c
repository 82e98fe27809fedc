/* morris.c - configuration of the float-threshold counters (morris.h). */
#include <scounters/sc_morris.h>

/* Accuracy in percent RSTDV; see morris.h for why the range is [0.5, 50]. */
#define SC_MORRIS_ACC_MIN 0.5
#define SC_MORRIS_ACC_MAX 50.0
#define SC_MORRIS_ACC_DEFAULT 1.0

/*
 * The smallest float >= x (0 < x < 1). Rounding the factor up makes the
 * implied a, factor/(1 - factor), at least the requested a, so the RSTDV
 * bound 1/sqrt(2a) holds for the chain actually stored.
 */
static float factor_rounded_up(double x)
{
	float f = (float)x;
	if ((double)f < x)
		f = sc_morris_float_(sc_morris_bits_(f) + 1);
	return f;
}

int sc_morris_config_named(sc_morris_cfg *cfg, sc_params *p, const char *variant, sc_err *err)
{
	double acc;
	if (sc_param_double(p, variant, "accuracy", SC_MORRIS_ACC_DEFAULT, SC_MORRIS_ACC_MIN,
	                    SC_MORRIS_ACC_MAX, &acc, err))
		return -1;
	double frac = acc / 100.0;
	cfg->accuracy = acc;
	cfg->a = 1.0 / (2.0 * frac * frac);
	cfg->factor = factor_rounded_up(cfg->a / (cfg->a + 1.0));
	cfg->wrap_below = (float)(cfg->a + 1.0);
	cfg->scale = (double)cfg->factor / (1.0 - (double)cfg->factor);
	return 0;
}

int sc_morris_config(sc_morris_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	(void)env;
	return sc_morris_config_named(cfg, p, "Morris", err);
}

int sc_morris_adapt_config(sc_morris_adapt_cfg *cfg, sc_params *p, const sc_env *env,
                           sc_err *err)
{
	(void)env;
	return sc_morris_config_named(cfg, p, "MorrisAdapt", err);
}
