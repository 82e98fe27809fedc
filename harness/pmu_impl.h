/* SPDX-License-Identifier: MIT */
/*
 * pmu_impl.h - what pmu.c shares with the implementation the build chose
 * (pmu_papi.c with PAPI, pmu_none.c without). Not for other units.
 */
#ifndef SC_PMU_IMPL_H
#define SC_PMU_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "pmu.h"

#define PMU_NAME_MAX ((int)sizeof(((pmu_setup *)0)->names[0]) - 1)

/* Append to a fixed buffer, truncating (a status line is advice, not data). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void pmu_str_append(char *buf, size_t cap, const char *fmt, ...);

/*
 * Split the comma list into s->requested. Spaces around a name are ignored;
 * an empty, over-long or repeated name, or too many, is a usage error (2).
 */
int pmu_parse_event_list(pmu_setup *s, const char *events, sc_err *err);

/*
 * The requested names (those with show[i], or all when show is NULL) joined
 * by ", ", or "N events" when they do not fit.
 */
void pmu_requested_list(const pmu_setup *s, const bool *show, char *buf, size_t cap);

/* s->requested: the default set (doc/design.md §5.2). */
void pmu_use_default_events(pmu_setup *s);

/*
 * The start of pmu_setup_init: clears s and the failure note; true when
 * events is "none" (s is then set).
 */
bool pmu_setup_begin(pmu_setup *s, const char *events);

/* Keep msg as pmu_thread_failure()'s answer unless a failure is already kept. */
void pmu_failure_note(const char *msg);

#endif /* SC_PMU_IMPL_H */
