/* SPDX-License-Identifier: MIT */
/*
 * pmu_none.c - pmu.h in a build without PAPI: the default set keeps its
 * (empty) columns, --events=none is accepted, any other list is a usage
 * error that says how to get PAPI.
 */
#include "pmu_impl.h"

#include <stdio.h>

int pmu_setup_init(pmu_setup *s, const char *events, sc_err *err)
{
	if (pmu_setup_begin(s, events))
		return 0;
	if (!events) {
		/* The default asks for events only where they exist: here they never do.
		 * Its columns stay, so CSVs from builds with and without PAPI line up. */
		pmu_use_default_events(s);
		snprintf(s->status, sizeof s->status, "scbench built without PAPI");
		return 0;
	}
	if (pmu_parse_event_list(s, events, err))
		return 2;
	char list[160];
	pmu_requested_list(s, NULL, list, sizeof list);
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
