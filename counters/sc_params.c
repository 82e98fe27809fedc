/* SPDX-License-Identifier: MIT */
/*
 * sc_params.c - named parameters and their readers (sc_params.h), and the
 * defaults a variant's configuration reads (sc_variant_param_defaults,
 * scounters.h).
 */
#include <scounters/sc_params.h>
#include <scounters/scounters.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
