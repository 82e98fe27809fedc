/* SPDX-License-Identifier: MIT */
/*
 * pmu_papi.c - hardware events through PAPI (pmu.h), built when configure
 * found PAPI; pmu_none.c stands in otherwise.
 */
#include "pmu_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <papi.h>

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
	char msg[256] = "";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (rc != PAPI_OK)
		pmu_str_append(msg, sizeof msg, ": %s", papi_error(rc));
	pmu_failure_note(msg);
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
		pmu_str_append(buf, cap, "; PAPI component %s is disabled: %.120s", ci->name,
		           ci->disabled_reason);
		return;
	}
	if (rc == PAPI_EPERM || rc == PAPI_ESYS || rc == PAPI_ECMP) {
		int level;
		FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		if (f && fscanf(f, "%d", &level) == 1)
			pmu_str_append(buf, cap, "; perf_event_paranoid is %d", level);
		if (f)
			fclose(f);
	}
	if (hw && hw->virtualized)
		pmu_str_append(buf, cap, "; virtual machine%s%s%s without a virtual PMU?",
		           hw->virtual_vendor_string[0] ? " (" : "", hw->virtual_vendor_string,
		           hw->virtual_vendor_string[0] ? ")" : "");
	else if (rc == PAPI_ENOEVNT)
		pmu_str_append(buf, cap, "; CPU model unknown to this PAPI?");
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
	if (pmu_setup_begin(s, events))
		return 0;
	if (!events)
		pmu_use_default_events(s);
	else if (pmu_parse_event_list(s, events, err))
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
	pmu_requested_list(s, unusable, list, sizeof list);
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
		pmu_str_append(why, sizeof why, ")");
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
