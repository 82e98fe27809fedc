/* SPDX-License-Identifier: MIT */
/*
 * conformance.h - what the conformance suite's files share
 * (tests/test_conformance.c, tests/test_conformance_env.c): one bracketed
 * run of a variant through the handle API, its sizes per tier, and the
 * check of a reading against the bound the variant's contract gives
 * (sc_counter_error_bound, the variant table's promises).
 *
 * The bracket: a writer does begun++ (relaxed), the update, done++
 * (release); a reader loads done (acquire), takes the reading, then loads
 * begun (acquire, after an acquire fence). Every update counted in done
 * before the reading completed before the reading's call began; every
 * update the reading can see had begun before begun was loaded.
 */
#ifndef SC_CONFORMANCE_H
#define SC_CONFORMANCE_H

#include <scounters/scounters.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * The writer's fence between begun++ and the update, and the reader's
 * between the reading and its load of begun: fence-to-fence
 * synchronisation, so that a reading that saw an update also sees its
 * begun++ (on x86 both are compiler barriers). ThreadSanitizer does not
 * model fences (and GCC warns about them under it), so there they are
 * compiler barriers only; TSan's runs are on x86, where that is the same.
 */
#if defined(__SANITIZE_THREAD__)
#define CF_FENCE(order) atomic_signal_fence(order)
#else
#define CF_FENCE(order) atomic_thread_fence(order)
#endif

/* The readings checked: sc_counter_get, _get_fast (SC_READ_FAST), _get_sum (SC_READ_SUM). */
#define CF_READINGS 3

/* What a run exercises beside its plain writers. */
enum {
	CF_MIGRATE = 1, /* writers move themselves between the allowed CPUs */
	CF_CHURN = 2,   /* writer threads exit and are replaced (contexts reused) */
	CF_SIGNAL = 4,  /* a timer signal whose handler updates the counter */
	CF_FORK = 8     /* the main thread forks; each child checks its copy */
};

typedef struct cf_run {
	sc_counter *c;
	const sc_variant *v;
	sc_counter_bound bound[2]; /* [0] SC_READ_FAST, [1] SC_READ_SUM */
	unsigned writers, readers, mode;
	uint64_t per_writer;  /* updates per writer slot */
	uint64_t churn_every; /* a churning writer thread exits after this many */
	unsigned max_forks;
	pthread_barrier_t *gate; /* the writers start together */
	atomic_uint_least64_t begun, done;
	atomic_uint writers_left;
	atomic_uint_least64_t readings, low[CF_READINGS], high[CF_READINGS];
	atomic_uint_least64_t worst_low; /* the largest shortfall below the bound seen */
	atomic_uint_least64_t cmp_calls, cmp_low, cmp_high;
	atomic_uint_least64_t approx_calls, approx_missed; /* get_approx's interval */
	atomic_uint_least64_t handler_updates, migrations, threads_made;
	unsigned forks, fork_bad;
	/*
	 * Odd while the main thread is inside fork(); readings below their
	 * bound that overlap one are also counted apart (fork_window_low), so
	 * that a failure says whether it came with a fork (Batched's
	 * hand-overs wait at the fork handler's gate while a fork is made).
	 */
	atomic_uint fork_gen;
	atomic_uint_least64_t fork_window_low;
} cf_run;

/* Tier sizes (test_conformance.c sets them from SC_TEST_FULL). */
typedef struct cf_tier {
	int full;
	uint64_t ops_per_run;   /* updates per bracketed run, over all writers */
	uint64_t batched_reads; /* at least this many bracketed Batched readings (full tier) */
	uint64_t rstdv_n;       /* count-to-N of the statistical check */
	unsigned forks;         /* forks per run with CF_FORK */
	uint64_t shared_per_proc;
} cf_tier;

extern cf_tier cf_tier_now;

/* Is variant v precise (its readings bracketed by done and begun)? */
static inline bool cf_bracketed(const sc_counter_bound *b)
{
	return b->kind != SC_BOUND_RSTDV;
}

/*
 * -1 when reading v is below what bound b allows given d updates done
 * before it and `writers` threads updating, +1 above begun b_after, else 0.
 * *short_by: how far below.
 */
static inline int cf_check(const sc_counter_bound *b, unsigned writers, uint64_t d, uint64_t v,
                           uint64_t b_after, uint64_t *short_by)
{
	if (v > b_after)
		return 1;
	uint64_t slack = 0;
	switch (b->kind) {
	case SC_BOUND_EXACT:
		break;
	case SC_BOUND_LAG:
		slack = b->lag + b->lag_per_thread * writers;
		break;
	default: /* SC_BOUND_NONE: only the upper side; RSTDV is not bracketed */
		return 0;
	}
	if (v + slack < d) {
		*short_by = d - (v + slack);
		return -1;
	}
	return 0;
}

uint64_t cf_reading(const sc_counter *c, int k);
const char *cf_reading_name(int k);
void cf_write_one(cf_run *r, uint64_t i);
void cf_run_bracketed(cf_run *r);
void cf_report(const cf_run *r, const char *what);
bool cf_ok(bool cond, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

/* test_conformance_env.c */
void cf_signal_install(void);
void cf_signal_arm(cf_run *r);
void cf_signal_disarm(void);
void cf_signal_unblock(void);
void cf_fork_check(cf_run *r);
void cf_test_rstdv(const sc_variant *v);
void cf_test_shared_group(void);
void cf_test_shared_variant(const sc_variant *v);

#endif /* SC_CONFORMANCE_H */
