/* SPDX-License-Identifier: MIT */
/*
 * pmu.c - hardware events through PAPI (doc/design.md §5.2, §8).
 *
 * pmu_setup_init decides once, on the main thread, which requested events can
 * be counted: it resolves every name (an unknown one is a usage error), then
 * adds them one by one to a trial event set and starts it. Whatever fails
 * there is left out of `names` and explained in `status`; the columns stay.
 * Workers then repeat only what succeeded, in their own event sets.
 *
 * This file holds what both builds share (the event list, the columns, the
 * failure note); pmu_papi.c or pmu_none.c, chosen by the build, the rest.
 */
#include "pmu_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* doc/design.md §5.2: cycles and instructions give IPC; the misses explain it. */
static const char *const pmu_default_events[] = {
	"PAPI_TOT_CYC", "PAPI_TOT_INS", "PAPI_L1_DCM", "PAPI_L3_TCM",
};

void pmu_str_append(char *buf, size_t cap, const char *fmt, ...)
{
	size_t len = strlen(buf);
	if (len + 1 >= cap)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + len, cap - len, fmt, ap);
	va_end(ap);
}

int pmu_parse_event_list(pmu_setup *s, const char *events, sc_err *err)
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

void pmu_requested_list(const pmu_setup *s, const bool *show, char *buf, size_t cap)
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
		pmu_str_append(buf, cap, "%s%s", shown++ ? ", " : "", s->requested[i]);
	}
}

void pmu_use_default_events(pmu_setup *s)
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

bool pmu_setup_begin(pmu_setup *s, const char *events)
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

void pmu_failure_note(const char *msg)
{
	pthread_mutex_lock(&pmu_failure_lock);
	if (!pmu_failed) {
		snprintf(pmu_failure_msg, sizeof pmu_failure_msg, "%s", msg);
		pmu_failed = true;
	}
	pthread_mutex_unlock(&pmu_failure_lock);
}
