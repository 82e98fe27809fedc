/* SPDX-License-Identifier: MIT */
/*
 * testprob_dist.h - the distributions the probabilistic families' statistical
 * checks take their limits from (tests/testprob.h): the chi-square
 * distribution's tails and quantile (regularised incomplete gamma, by series
 * and continued fraction) and the two-sided normal tail; the false-failure
 * probability each check is allowed.
 */
#ifndef SC_TESTPROB_DIST_H
#define SC_TESTPROB_DIST_H

#include <math.h>

/* ---- statistics: the chi-square distribution and the normal tail ---- */

/* Regularized lower incomplete gamma P(s, x) by its series (accurate for x < s + 1). */
static inline double gamma_p_series(double s, double x)
{
	double term = 1.0 / s, sum = term;
	for (int n = 1; n < 100000 && term > sum * 1e-17; n++) {
		term *= x / (s + n);
		sum += term;
	}
	return sum * exp(s * log(x) - x - lgamma(s));
}

/* Regularized upper incomplete gamma Q(s, x) by its continued fraction (x >= s + 1). */
static inline double gamma_q_fraction(double s, double x)
{
	const double tiny = 1e-300;
	double b = x + 1.0 - s, c = 1.0 / tiny, d = 1.0 / b, h = d;
	for (int i = 1; i < 100000; i++) {
		double an = -i * (i - s);
		b += 2.0;
		d = an * d + b;
		d = fabs(d) < tiny ? tiny : d;
		c = b + an / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1.0 / d;
		h *= d * c;
		if (fabs(d * c - 1.0) < 1e-16)
			break;
	}
	return h * exp(s * log(x) - x - lgamma(s));
}

/* P(chi-square(k) <= x) and P(chi-square(k) > x), each computed where it is accurate. */
static inline double chi2_lower_tail(double k, double x)
{
	if (x <= 0)
		return 0;
	return x / 2 < k / 2 + 1 ? gamma_p_series(k / 2, x / 2) :
	                           1.0 - gamma_q_fraction(k / 2, x / 2);
}

static inline double chi2_upper_tail(double k, double x)
{
	if (x <= 0)
		return 1;
	return x / 2 < k / 2 + 1 ? 1.0 - gamma_p_series(k / 2, x / 2) :
	                           gamma_q_fraction(k / 2, x / 2);
}

/* The x with P(chi-square(k) > x) = tail, by bisection. */
static inline double chi2_upper_quantile(double k, double tail)
{
	double lo = k, hi = 20 * k + 200;
	for (int i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;
		if (chi2_upper_tail(k, mid) > tail)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

#define FALSE_FAIL 1e-6 /* per statistical check */
#define MEAN_Z 5.0 /* two-sided normal tail erfc(5/sqrt 2) = 5.7e-7 */
#define MT_Z 5.0 /* the multi-threaded check uses the same z */

static inline double normal_two_sided_tail(double z)
{
	return erfc(z / sqrt(2.0));
}

#endif /* SC_TESTPROB_DIST_H */
