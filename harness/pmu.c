/* SPDX-License-Identifier: MIT */
/*
 * pmu.c - hardware events through PAPI (doc/design.md §5.2, §8).
 *
 * pmu_setup_init decides once, on the main thread, which requested events can
 * be counted: it resolves every name (an unknown one is a usage error), then
 * adds them one by one to a trial event set and starts it. Whatever fails
 * there is left out of `names` and explained in `status`; the columns stay.
 * Workers then repeat only what succeeded, in their own event sets.
 */
#include "config.h"

#include "pmu.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#ifdef HAVE_PAPI
#include <papi.h>
#endif

/* doc/design.md §5.2: cycles and instructions give IPC; the misses explain it. */
static const char *const pmu_default_events[] = {
	"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_L3_TCM",
};

#define PMU_NAME_MAX ((int)sizeof(((pmu_setup *)0)->names[0]) - 1)

/* Append to a fixed buffer, truncating (a status line is advice, not data). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void str_append(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(buf);
	if (len + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
}

/*
 * Split the comma list into s->requested. Spaces around a name are ignored;
 * an empty, over-long or repeated name, or too many, is a usage error.
 */
static int parse_event_list(pmu_setup *s, const char *events, sc_err *err)
{
	unsigned n = 1;
	for (const char *p = events; *p; p++)
		n += *p == ',';
	if (!events[strspn(events, " \t")]) {
		sc_err_set(err, "empty list; give comma-separated PAPI event names, or none");
		return 2;
	}
	if (n > PMU_MAX_EVENTS) {
		sc_err_set(err, "%u events given, at most %d can be counted at once", n,
		           PMU_MAX_EVENTS);
		return 2;
	}
	const char *p = events;
	for (unsigned i = 0; i < n; i++) {
		const char *end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		const char *next = *end ? end + 1 : end;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		int len = (int)(end - p);
		if (len == 0) {
			sc_err_set(err, "empty event name in the list; give comma-separated PAPI "
			                "event names, or none");
			return 2;
		}
		if (len > PMU_NAME_MAX) {
			sc_err_set(err, "event name '%.*s...' is longer than %d characters", 40, p,
			           PMU_NAME_MAX);
			return 2;
		}
		for (unsigned j = 0; j < i; j++) {
			if ((int)strlen(s->requested[j]) == len && !memcmp(s->requested[j], p, (size_t)len)) {
				sc_err_set(err, "event '%.*s' is given twice", len, p);
				return 2;
			}
		}
		memcpy(s->requested[i], p, (size_t)len);
		s->requested[i][len] = '\0';
		p = next;
	}
	s->nrequested = n;
	return 0;
}

/*
 * The requested names (those with show[i], or all when show is NULL) joined
 * by ", ", or "N events" when they do not fit.
 */
static void requested_list(const pmu_setup *s, const bool *show, char *buf, size_t cap)
{
	unsigned shown = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < s->nrequested; i++) {
		if (show && !show[i])
			continue;
		if (strlen(buf) + strlen(s->requested[i]) + 3 >= cap) {
			unsigned n = 0;
			for (unsigned j = 0; j < s->nrequested; j++)
				n += !show || show[j];
			snprintf(buf, cap, "%u events", n);
			return;
		}
		str_append(buf, cap, "%s%s", shown++ ? ", " : "", s->requested[i]);
	}
}

static void use_default_events(pmu_setup *s)
{
	s->nrequested = sizeof pmu_default_events / sizeof pmu_default_events[0];
	for (unsigned i = 0; i < s->nrequested; i++)
		strcpy(s->requested[i], pmu_default_events[i]);
}

int pmu_column_event(const pmu_setup *s, unsigned column)
{
	if (!s || column >= s->nrequested)
		return -1;
	for (unsigned e = 0; e < s->nevents; e++)
		if (!strcmp(s->names[e], s->requested[column]))
			return (int)e;
	return -1;
}

/* The first failure of any worker's event set since pmu_setup_init. */
static pthread_mutex_t pmu_failure_lock = PTHREAD_MUTEX_INITIALIZER;
static char pmu_failure_msg[256];
static bool pmu_failed;

static void pmu_failure_reset(void)
{
	pthread_mutex_lock(&pmu_failure_lock);
	pmu_failed = false;
	pmu_failure_msg[0] = '\0';
	pthread_mutex_unlock(&pmu_failure_lock);
}

/* The start of pmu_setup_init, with or without PAPI: true when events is "none" (s is then set). */
static bool setup_begin(pmu_setup *s, const char *events)
{
	memset(s, 0, sizeof *s);
	pmu_failure_reset();
	if (!events || strcmp(events, "none"))
		return false;
	snprintf(s->status, sizeof s->status, "disabled: --events=none");
	return true;
}

const char *pmu_thread_failure(void)
{
	pthread_mutex_lock(&pmu_failure_lock);
	const char *msg = pmu_failed ? pmu_failure_msg : NULL;
	pthread_mutex_unlock(&pmu_failure_lock);
	return msg;
}

#ifdef HAVE_PAPI

/* PAPI_library_init and PAPI_thread_init have succeeded and PAPI_shutdown has not run. */
static bool pmu_library_ready;

static const char *papi_error(int rc)
{
	const char *m = PAPI_strerror(rc);
	return m ? m : "unknown PAPI error";
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void note_thread_failure(int rc, const char *fmt, ...)
{
	pthread_mutex_lock(&pmu_failure_lock);
	if (!pmu_failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(pmu_failure_msg, sizeof pmu_failure_msg, fmt, ap);
		va_end(ap);
		if (rc != PAPI_OK)
			str_append(pmu_failure_msg, sizeof pmu_failure_msg, ": %s", papi_error(rc));
		pmu_failed = true;
	}
	pthread_mutex_unlock(&pmu_failure_lock);
}

/* PAPI must tell threads apart; pthread_self is unique among live threads. */
static unsigned long pmu_thread_id(void)
{
	return (unsigned long)pthread_self();
}

static void release_library(void)
{
	if (pmu_library_ready) {
		PAPI_shutdown();
		pmu_library_ready = false;
	}
}

/* 0 when PAPI is ready; otherwise s->status says why (1 for out of memory). */
static int init_library(pmu_setup *s, sc_err *err)
{
	if (pmu_library_ready)
		return 0;
	int rc = PAPI_library_init(PAPI_VER_CURRENT);
	if (rc == PAPI_ENOMEM) {
		sc_err_set(err, "PAPI_library_init: %s", papi_error(rc));
		return 1;
	}
	if (rc != PAPI_VER_CURRENT) {
		if (rc > 0)
			snprintf(s->status, sizeof s->status,
			         "PAPI library %d.%d does not match the PAPI %d.%d headers scbench "
			         "was built with; events not counted",
			         PAPI_VERSION_MAJOR(rc), PAPI_VERSION_MINOR(rc),
			         PAPI_VERSION_MAJOR(PAPI_VER_CURRENT), PAPI_VERSION_MINOR(PAPI_VER_CURRENT));
		else
			snprintf(s->status, sizeof s->status,
			         "PAPI_library_init failed: %s; events not counted", papi_error(rc));
		return -1;
	}
	rc = PAPI_thread_init(pmu_thread_id);
	if (rc != PAPI_OK) {
		PAPI_shutdown();
		snprintf(s->status, sizeof s->status,
		         "PAPI_thread_init failed: %s; events not counted", papi_error(rc));
		return -1;
	}
	pmu_library_ready = true;
	return 0;
}

/* "PAPI 7.0.0.0", the library actually loaded. */
static void library_version(char *buf, size_t cap)
{
	int v = PAPI_get_opt(PAPI_LIB_VERSION, NULL);
	if (v <= 0)
		v = PAPI_VERSION;
	snprintf(buf, cap, "PAPI %d.%d.%d.%d", PAPI_VERSION_MAJOR(v), PAPI_VERSION_MINOR(v),
	         PAPI_VERSION_REVISION(v), PAPI_VERSION_INCREMENT(v));
}

/* The likely cause when no event can be counted, most specific first. */
static void explain_no_events(char *buf, size_t cap, int code, int rc)
{
	int cidx = PAPI_get_event_component(code);
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx >= 0 ? cidx : 0);
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();
	if (ci && ci->disabled) {
		str_append(buf, cap, "; PAPI component %s is disabled: %.120s", ci->name,
		           ci->disabled_reason);
		return;
	}
	if (rc == PAPI_EPERM || rc == PAPI_ESYS || rc == PAPI_ECMP) {
		int level;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		if (f && fscanf(f, "%d", &level) == 1)
			str_append(buf, cap, "; perf_event_paranoid is %d", level);
		if (f)
			fclose(f);
	}
	if (hw && hw->virtualized)
		str_append(buf, cap, "; virtual machine%s%s%s without a virtual PMU?",
		           hw->virtual_vendor_string[0] ? " (" : "", hw->virtual_vendor_string,
		           hw->virtual_vendor_string[0] ? ")" : "");
	else if (rc == PAPI_ENOEVNT)
		str_append(buf, cap, "; CPU model unknown to this PAPI?");
}

/*
 * Try the resolved events in one event set on this thread: each is added in
 * turn (so conflicts between them show), then the set must start and stop.
 * The usable ones go to s->names. Returns the first PAPI error, or PAPI_OK.
 * (Out of memory here shows as an error too: the run goes on without events.)
 */
static int trial_events(pmu_setup *s, const int *codes, bool *unusable, int *failed_code)
{
	int first_rc = PAPI_OK;
	int es = PAPI_NULL;
	int rc = PAPI_create_eventset(&es);
	for (unsigned i = 0; i < s->nrequested; i++) {
		if (rc == PAPI_OK)
			rc = PAPI_add_event(es, codes[i]);
		if (rc != PAPI_OK) {
			unusable[i] = true;
			if (first_rc == PAPI_OK) {
				first_rc = rc;
				*failed_code = codes[i];
			}
			if (es != PAPI_NULL)
				rc = PAPI_OK; /* the next event may still fit */
			continue;
		}
		strcpy(s->names[s->nevents], s->requested[i]);
		s->codes[s->nevents++] = codes[i];
	}
	if (s->nevents > 0) {
		long long values[PMU_MAX_EVENTS];
		rc = PAPI_start(es);
		if (rc == PAPI_OK)
			rc = PAPI_stop(es, values);
		if (rc != PAPI_OK) {
			/* Nothing counts if the set cannot start: report the cause. */
			for (unsigned i = 0; i < s->nrequested; i++)
				unusable[i] = true;
			s->nevents = 0;
			first_rc = rc;
			*failed_code = s->codes[0];
		}
	}
	if (es != PAPI_NULL) {
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
	}
	return first_rc;
}

int pmu_setup_init(pmu_setup *s, const char *events, sc_err *err)
{
	if (setup_begin(s, events))
		return 0;
	if (!events)
		use_default_events(s);
	else if (parse_event_list(s, events, err))
		return 2;

	int rc = init_library(s, err);
	if (rc)
		return rc > 0 ? 1 : 0; /* inactive, status set; names cannot be checked */

	/* Every name must be known to PAPI, available here or not. */
	int codes[PMU_MAX_EVENTS];
	bool presets_only = true;
	for (unsigned i = 0; i < s->nrequested; i++) {
		rc = PAPI_event_name_to_code(s->requested[i], &codes[i]);
		if (rc != PAPI_OK) {
			int cidx = PAPI_get_component_index("perf_event");
			const PAPI_component_info_t *ci =
				cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
			sc_err_set(err, "unknown event '%s' (not a PAPI preset or native event "
			                "here%s); list them with papi_avail and papi_native_avail",
			           s->requested[i],
			           ci && ci->disabled ? ": PAPI's perf_event component is disabled" : "");
			release_library();
			return 2;
		}
		presets_only &= IS_PRESET(codes[i]);
	}

	bool unusable[PMU_MAX_EVENTS] = {false};
	int failed_code = codes[0];
	rc = trial_events(s, codes, unusable, &failed_code);

	char list[160];
	requested_list(s, unusable, list, sizeof list);
	if (s->nevents == s->nrequested) {
		snprintf(s->status, sizeof s->status, "ok: %u event%s", s->nevents,
		         s->nevents == 1 ? "" : "s");
	} else if (s->nevents > 0) {
		snprintf(s->status, sizeof s->status, "ok: %u of %u events; not counted: %s (%s)",
		         s->nevents, s->nrequested, list, papi_error(rc));
	} else {
		char version[32], why[512];
		library_version(version, sizeof version);
		snprintf(why, sizeof why, "%s: %s not available on this machine (0 of %u %s usable: %s",
		         version, list, s->nrequested, presets_only ? "presets" : "events",
		         papi_error(rc));
		explain_no_events(why, sizeof why, failed_code, rc);
		str_append(why, sizeof why, ")");
		if (strlen(why) >= sizeof s->status) /* keep the closing parenthesis */
			strcpy(why + sizeof s->status - 5, "...)");
		strcpy(s->status, why);
		release_library(); /* nothing to count: workers will not touch PAPI */
	}
	s->active = s->nevents > 0 && pmu_library_ready;
	return 0;
}

void pmu_thread_start(const pmu_setup *s, pmu_thread *t)
{
	t->eventset = PAPI_NULL;
	t->running = false;
	if (!s || !s->active)
		return;
	int rc = PAPI_register_thread();
	if (rc != PAPI_OK) {
		note_thread_failure(rc, "PAPI_register_thread");
		return;
	}
	int es = PAPI_NULL;
	rc = PAPI_create_eventset(&es);
	if (rc != PAPI_OK) {
		note_thread_failure(rc, "PAPI_create_eventset");
		PAPI_unregister_thread();
		return;
	}
	for (unsigned i = 0; i < s->nevents && rc == PAPI_OK; i++) {
		rc = PAPI_add_event(es, s->codes[i]);
		if (rc != PAPI_OK)
			note_thread_failure(rc, "PAPI_add_event %s", s->names[i]);
	}
	if (rc == PAPI_OK) {
		rc = PAPI_start(es);
		if (rc != PAPI_OK)
			note_thread_failure(rc, "PAPI_start");
	}
	if (rc != PAPI_OK) {
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
		PAPI_unregister_thread();
		return;
	}
	t->eventset = es;
	t->running = true;
}

bool pmu_thread_stop(const pmu_setup *s, pmu_thread *t, long long *values)
{
	unsigned n = s ? s->nevents : 0;
	for (unsigned i = 0; values && i < n; i++)
		values[i] = 0;
	if (!t->running)
		return false;
	long long v[PMU_MAX_EVENTS] = {0};
	int rc = PAPI_stop(t->eventset, v);
	bool ok = rc == PAPI_OK;
	if (!ok)
		note_thread_failure(rc, "PAPI_stop");
	for (unsigned i = 0; ok && i < n; i++) {
		if (v[i] < 0) {
			note_thread_failure(PAPI_OK, "PAPI_stop gave a negative count for %s",
			                    s->names[i]);
			ok = false;
		}
	}
	for (unsigned i = 0; ok && values && i < n; i++)
		values[i] = v[i];
	PAPI_cleanup_eventset(t->eventset);
	PAPI_destroy_eventset(&t->eventset);
	PAPI_unregister_thread();
	t->eventset = PAPI_NULL;
	t->running = false;
	return ok;
}

void pmu_shutdown(pmu_setup *s)
{
	release_library();
	if (s)
		s->active = false;
}

#else /* !HAVE_PAPI */

int pmu_setup_init(pmu_setup *s, const char *events, sc_err *err)
{
	if (setup_begin(s, events))
		return 0;
	if (!events) {
		/* The default asks for events only where they exist: here they never do.
		 * Its columns stay, so CSVs from builds with and without PAPI line up. */
		use_default_events(s);
		snprintf(s->status, sizeof s->status, "scbench built without PAPI");
		return 0;
	}
	if (parse_event_list(s, events, err))
		return 2;
	char list[160];
	requested_list(s, NULL, list, sizeof list);
	sc_err_set(err, "cannot count %s: this scbench was built without PAPI (install "
	                "libpapi-dev and reconfigure); only --events=none is accepted",
	           list);
	return 2;
}

void pmu_thread_start(const pmu_setup *s, pmu_thread *t)
{
	(void)s;
	t->eventset = -1;
	t->running = false;
}

bool pmu_thread_stop(const pmu_setup *s, pmu_thread *t, long long *values)
{
	for (unsigned i = 0; s && values && i < s->nevents; i++)
		values[i] = 0;
	t->running = false;
	return false;
}

void pmu_shutdown(pmu_setup *s)
{
	if (s)
		s->active = false;
}

#endif /* HAVE_PAPI */
