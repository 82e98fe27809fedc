/* SPDX-License-Identifier: MIT */
/* sc_common.c - the shared slow paths: seeds, parameters, errors, allocation. */
#include <scounters/sc_common.h>
#include <scounters/scounters.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env_priv.h"

const char *sc_kind_name(sc_kind kind)
{
	switch (kind) {
	case SC_PRECISE: return "precise";
	case SC_PROBABILISTIC: return "probabilistic";
	case SC_RACY: return "racy";
	}
	return "unknown";
}

void sc_env_default(sc_env *env)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	env->threads = 1;
	env->nodes = 1;
	env->cpus = n > 0 ? (uint32_t)n : 1;
}

uint32_t sc_env_cpus_(const sc_env *env)
{
	if (env->cpus)
		return env->cpus;
	sc_env os;
	sc_env_default(&os); /* the OS's configured count, as sc_env_default gives it */
	return os.cpus;
}

uint32_t sc_derive_seed32(uint64_t seed, uint32_t index, uint32_t stream)
{
	uint64_t x = sc_mix64(sc_mix64(seed) ^ ((uint64_t)stream << 32 | index));
	uint32_t s = (uint32_t)(x ^ (x >> 32));
	return s ? s : 0x6d2b79f5u; /* xorshift must never hold 0 */
}

void sc_thread_init(sc_thread *t, uint32_t index, uint32_t node, uint64_t seed, bool same_seed)
{
	uint32_t who = same_seed ? 0 : index;
	t->index = index;
	t->node = node;
	t->rng = sc_derive_seed32(seed, who, 0);
	t->probe = sc_derive_seed32(seed, index, 1);
}

uint64_t sc_geometric_gap(uint32_t r, double log1m)
{
	double g = floor(log((double)r * 0x1p-32) / log1m);
	return g < 0x1p64 ? 1 + (uint64_t)g : UINT64_MAX; /* below 2^64 means at most 2^64 - 2048 */
}

/* ---- Binomial(n, p) for add(n) (sc_common.h) ------------------------------------ */

/* Uniform on (0, 1): 64 bits from two draws, never 0 nor 1. */
static double uniform_open(uint32_t *rng)
{
	uint64_t hi = sc_xorshift_dice(rng) - 1, lo = sc_xorshift_dice(rng) - 1;
	return ((double)(hi << 21 ^ lo >> 11) + 0.5) * 0x1p-53;
}

/* Standard normal (Marsaglia's polar method). */
static double normal(uint32_t *rng)
{
	for (;;) {
		double u = 2 * uniform_open(rng) - 1, v = 2 * uniform_open(rng) - 1;
		double q = u * u + v * v;
		if (q > 0 && q < 1)
			return u * sqrt(-2 * log(q) / q);
	}
}

/* Gamma(shape, 1) for shape >= 1 (Marsaglia and Tsang, 2000). */
static double gamma_variate(double shape, uint32_t *rng)
{
	double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);
	for (;;) {
		double x = normal(rng), v = 1 + c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		double u = uniform_open(rng);
		if (log(u) < 0.5 * x * x + d - d * v + d * log(v))
			return d * v;
	}
}

uint64_t sc_binomial(uint64_t n, double p, uint32_t *rng)
{
	uint64_t successes = 0;
	while (n > 64 && p > 0 && p < 1) {
		/*
		 * The a-th smallest of n uniforms is Beta(a, n + 1 - a): if it is at
		 * least p, the successes (uniforms below p) are among the a - 1
		 * below it, each below p with probability p / X; otherwise those
		 * a are all successes and the rest are the n - a above it, each
		 * below p with probability (p - X)/(1 - X).
		 */
		uint64_t a = 1 + n / 2, b = n + 1 - a;
		double ga = gamma_variate((double)a, rng), gb = gamma_variate((double)b, rng);
		double x = ga / (ga + gb);
		if (x >= p) {
			n = a - 1;
			p /= x;
		} else {
			successes += a;
			n = b - 1;
			p = (p - x) / (1 - x);
		}
	}
	if (p >= 1)
		return successes + n;
	for (; n && p > 0; n--)
		successes += uniform_open(rng) < p;
	return successes;
}

/*
 * The message with its control bytes (a caller's newline, an ESC) written as
 * \xNN: a message is one line that never drives a terminal, whoever prints
 * it (scbench, scounters::error::what()). Cut at the buffer's end, never
 * inside an escape.
 */
void sc_err_set(sc_err *err, const char *fmt, ...)
{
	if (!err)
		return;
	char raw[4 * sizeof err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	size_t o = 0;
	for (const unsigned char *s = (const unsigned char *)raw; *s; s++) {
		int control = *s < 0x20 || *s == 0x7f;
		if (o + (control ? 4 : 1) > sizeof err->msg - 1)
			break;
		if (control)
			o += (size_t)snprintf(err->msg + o, 5, "\\x%02x", *s);
		else
			err->msg[o++] = (char)*s;
	}
	err->msg[o] = '\0';
}

void sc_params_clear(sc_params *p)
{
	memset(p, 0, sizeof *p);
}

int sc_params_add(sc_params *p, const char *kv, sc_err *err)
{
	const char *eq = strchr(kv, '=');
	if (!eq || eq == kv || eq[1] == '\0') {
		sc_err_set(err, "parameter '%s' is not of the form KEY=VALUE", kv);
		return -1;
	}
	if (p->n == SC_MAX_PARAMS) {
		sc_err_set(err, "too many parameters (at most %d)", SC_MAX_PARAMS);
		return -1;
	}
	size_t klen = (size_t)(eq - kv);
	for (unsigned i = 0; i < p->n; i++) {
		if (strlen(p->key[i]) == klen && strncmp(p->key[i], kv, klen) == 0) {
			sc_err_set(err, "parameter '%.*s' given twice", (int)klen, kv);
			return -1;
		}
	}
	if (klen >= SC_MAX_KEY) {
		sc_err_set(err, "parameter name '%.*s' is too long", (int)klen, kv);
		return -1;
	}
	memcpy(p->key[p->n], kv, klen);
	p->key[p->n][klen] = '\0';
	p->value[p->n] = eq + 1;
	p->used[p->n] = false;
	p->n++;
	return 0;
}

static int find_key(const sc_params *p, const char *key)
{
	for (unsigned i = 0; i < p->n; i++)
		if (strcmp(p->key[i], key) == 0)
			return (int)i;
	return -1;
}

bool sc_param_present(const sc_params *p, const char *key)
{
	return find_key(p, key) >= 0;
}

/* The value given for key, now marked used; NULL when absent (the reader returns its default). */
static const char *take_value(sc_params *p, const char *key)
{
	int i = find_key(p, key);
	if (i < 0)
		return NULL;
	p->used[i] = true;
	return p->value[i];
}

/*
 * While a buffer is set (param_note_defaults, by sc_variant_param_defaults on
 * this thread), the readers append "key=default," for each key they read that
 * was not given. Thread-local: no other thread's readers see it.
 */
static _Thread_local struct {
	char *buf;
	size_t size, at;
	bool full;
} note;

static void param_note_defaults(char *buf, size_t size)
{
	note.buf = buf;
	note.size = size;
	note.at = 0;
	note.full = false;
	if (buf && size)
		buf[0] = '\0';
}

static bool param_note_full(void)
{
	return note.full;
}

static void note_default(const char *key, const char *fmt, ...)
{
	if (!note.buf)
		return;
	char value[64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(value, sizeof value, fmt, ap);
	va_end(ap);
	int n = snprintf(note.buf + note.at, note.size - note.at, "%s%s=%s", note.at ? "," : "", key, value);
	if (n < 0 || (size_t)n >= note.size - note.at) {
		note.full = true;
		note.buf[note.at] = '\0';
		return;
	}
	note.at += (size_t)n;
}

/*
 * Is s a plain decimal number: an optional '-', digits with an optional
 * fraction, an optional exponent? Not a space or tab, '+', hex (0x1p0), inf or
 * nan, which strtod would also take (scbench --help: "Numbers are decimal").
 */
static bool plain_decimal(const char *s)
{
	size_t digits = 0;
	if (*s == '-')
		s++;
	for (; isdigit((unsigned char)*s); s++)
		digits++;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			digits++;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		if (!isdigit((unsigned char)*s))
			return false;
		while (isdigit((unsigned char)*s))
			s++;
	}
	return *s == '\0';
}

int sc_param_u64(sc_params *p, const char *variant, const char *key, uint64_t def, uint64_t min,
                 uint64_t max, uint64_t *out, sc_err *err)
{
	const char *s = take_value(p, key);
	if (!s)
		note_default(key, "%llu", (unsigned long long)def);
	char *end;
	errno = 0;
	unsigned long long v = s ? strtoull(s, &end, 10) : def;
	if (s && (!isdigit((unsigned char)s[0]) || errno || *end != '\0' || v < min || v > max)) {
		sc_err_set(err, "%s: parameter %s=%s is invalid: expected a decimal integer in [%llu, %llu]",
		           variant, key, s, (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

int sc_param_double(sc_params *p, const char *variant, const char *key, double def, double min,
                    double max, double *out, sc_err *err)
{
	const char *s = take_value(p, key);
	if (!s)
		note_default(key, "%.17g", def);
	char *end;
	errno = 0;
	double v = s ? strtod(s, &end) : def;
	if (s && (!plain_decimal(s) || errno || *end != '\0' || !isfinite(v) || v < min || v > max)) {
		sc_err_set(err, "%s: parameter %s=%s is invalid: expected a decimal number in [%g, %g]",
		           variant, key, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int sc_variant_param_defaults(const sc_variant *v, const sc_env *env, char *buf, size_t size,
                              sc_err *err)
{
	sc_params p;
	sc_params_clear(&p);
	void *cfg = sc_alloc_lines(v->cfg_size);
	if (!cfg || !size) {
		sc_free_lines(cfg);
		sc_err_set(err, "%s: out of memory", v->name);
		return -1;
	}
	param_note_defaults(buf, size);
	int rc = v->config(cfg, &p, env, err);
	bool full = param_note_full();
	param_note_defaults(NULL, 0);
	sc_free_lines(cfg);
	if (rc == 0 && full) {
		sc_err_set(err, "%s: the defaults do not fit in %zu bytes", v->name, size);
		rc = -1;
	}
	return rc ? -1 : 0;
}

int sc_param_backoff(sc_params *p, const char *variant, sc_backoff_cfg *b, sc_err *err)
{
	uint64_t lo, hi;
	if (sc_param_u64(p, variant, "backoff-min", SC_BACKOFF_MIN_DEFAULT, 1, 1u << 20, &lo, err) ||
	    sc_param_u64(p, variant, "backoff-max", SC_BACKOFF_MAX_DEFAULT, 1, 1u << 24, &hi, err))
		return -1;
	if (hi < lo) {
		sc_err_set(err, "%s: backoff-max=%llu is below backoff-min=%llu", variant,
		           (unsigned long long)hi, (unsigned long long)lo);
		return -1;
	}
	b->min = (uint32_t)lo;
	b->max = (uint32_t)hi;
	return 0;
}

int sc_params_check_unused(const sc_params *p, const char *variant, const char *accepted,
                           sc_err *err)
{
	for (unsigned i = 0; i < p->n; i++) {
		if (!p->used[i]) {
			sc_err_set(err, "%s: unknown parameter '%s' (accepted: %s%ssame-seed)", variant,
			           p->key[i], accepted, accepted[0] ? "," : "");
			return -1;
		}
	}
	return 0;
}

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
