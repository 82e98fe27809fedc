/* SPDX-License-Identifier: MIT */
/*
 * test_distributed_own.c - what each distributed precise counter
 * (sc_distributed.h) does that the others do not: Batched's batching and
 * its batch parameter; Striped's table growth (its cell limit, cells kept
 * across growth, its base's wrap, growth under contention); PerCPU's word
 * per CPU and its exactness while writers migrate, and CPU ids beyond its
 * slots folded into them. What all four promise is tests/test_distributed.c.
 *
 * Deterministic: fixed seeds (sc_thread_init), no timing. Sizes are modest
 * so that the program also runs quickly under ThreadSanitizer.
 */
#include "testdist.h"

/* ---- Batched ---------------------------------------------------------------- */

static void test_batched_lags_by_less_than_B(void)
{
	sc_env env = test_env(1, 0);
	counter k;
	sc_thread t;
	bool ok = counter_new(&k, BATCHED, &env, 0) && k.batch == SC_BATCHED_DEFAULT;
	tap_ok(ok, "batched_default_batch_is_64");
	sc_thread_init(&t, 0, 0, 1, false);
	for (uint64_t i = 1; ok && i <= 1000; i++) {
		sc_batched_inc(k.c, k.cfg, &t);
		ok = sc_batched_get(k.c, k.cfg) == i / 64 * 64;
	}
	tap_ok(ok, "batched_single_thread_get_is_floor_to_multiple_of_B");
	sc_batched_flush(k.c, k.cfg, &t);
	tap_ok(sc_batched_get(k.c, k.cfg) == 1000, "batched_exact_after_flush");
	sc_batched_flush(k.c, k.cfg, &t);
	tap_ok(sc_batched_get(k.c, k.cfg) == 1000, "batched_second_flush_adds_nothing");
	counter_free(&k);
}

static int batched_config_with(const char *kv, sc_batched_cfg *cfg, sc_err *err)
{
	sc_env env = test_env(2, 0);
	sc_params p;
	sc_params_clear(&p);
	err->msg[0] = '\0';
	if (sc_params_add(&p, kv, err))
		return -2;
	return sc_batched_config(cfg, &p, &env, err);
}

static void test_batched_batch_validation(void)
{
	static const char *bad[] = { "batch=0",   "batch=1073741825", "batch=-1",
		                     "batch=abc", "batch=1.5",        "batch=18446744073709551616" };
	sc_batched_cfg cfg;
	sc_err err;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = batched_config_with(bad[i], &cfg, &err);
		tap_ok(rc == -1 && strstr(err.msg, "Batched") && strstr(err.msg, "batch"),
		       "batched_rejects_%s", bad[i]);
	}
	tap_ok(batched_config_with("batch=1", &cfg, &err) == 0 && cfg.batch == 1,
	       "batched_accepts_batch=1");
	tap_ok(batched_config_with("batch=1073741824", &cfg, &err) == 0 &&
	               cfg.batch == SC_BATCHED_MAX,
	       "batched_accepts_batch=2^30");
}

/* ---- Striped ---------------------------------------------------------------- */

static sc_striped_table *striped_table(const counter *k)
{
	return atomic_load(&((sc_striped_t *)k->c)->table);
}

static unsigned striped_cells(const counter *k)
{
	sc_striped_table *tab = striped_table(k);
	return tab ? tab->size : 0;
}

static void test_striped_max_cells(void)
{
	static const uint32_t cpus[] = { 1, 2, 3, 5, 8, 9 };
	static const uint32_t cells[] = { 2, 2, 4, 8, 8, 16 };
	sc_params p;
	sc_err err;
	sc_striped_cfg cfg;
	sc_params_clear(&p);
	for (size_t i = 0; i < sizeof cpus / sizeof cpus[0]; i++) {
		sc_env env = test_env(1, cpus[i]);
		tap_ok(sc_striped_config(&cfg, &p, &env, &err) == 0 && cfg.max_cells == cells[i],
		       "striped_max_cells_is_%u_for_%u_cpus", cells[i], cpus[i]);
	}
}

/* Growth forced through sc_striped_grow: deterministic, one thread. */
static void test_striped_grows_and_keeps_cells(void)
{
	sc_env env = test_env(1, 8);
	counter k;
	sc_thread t;
	if (!counter_new(&k, STRIPED, &env, 0)) {
		tap_ok(false, "striped_grows");
		return;
	}
	sc_striped_t *c = k.c;
	sc_thread_init(&t, 0, 0, 5, false);
	uint64_t n = 0;
	for (; n < 100; n++)
		sc_striped_inc(c, k.cfg, &t);
	tap_ok(striped_table(&k) == NULL && STRIPED->heap_bytes(c, k.cfg) == 0 &&
	               atomic_load(&c->base) == 100,
	       "striped_uncontended_uses_base_only_and_allocates_nothing");

	bool exact = true, cells_kept = true, bytes_grow = true, retired_ok = true;
	size_t bytes = 0;
	sc_padded_u64 *first[8] = { 0 };
	unsigned sizes = 0;
	for (unsigned expect = 2; expect <= 8; expect *= 2) {
		sc_striped_table *old = striped_table(&k);
		if (sc_striped_grow(c, k.cfg) != 0 || striped_cells(&k) != expect) {
			tap_ok(false, "striped_grow_to_%u_cells", expect);
			counter_free(&k);
			return;
		}
		sc_striped_table *tab = striped_table(&k);
		retired_ok = retired_ok && tab->retired == old;
		for (unsigned i = 0; i < expect; i++) {
			if (first[i] == NULL)
				first[i] = tab->cells[i];
			cells_kept = cells_kept && tab->cells[i] == first[i];
		}
		size_t b = STRIPED->heap_bytes(c, k.cfg);
		bytes_grow = bytes_grow && b > bytes;
		bytes = b;
		sizes += expect;
		for (unsigned i = 0; i < 50 * expect; i++, n++)
			sc_striped_inc(c, k.cfg, &t);
		exact = exact && sc_striped_get(c, k.cfg) == n;
		/* spread the next increments over other cells, as a collision would */
		sc_xorshift_ayers(&t.probe);
	}
	tap_ok(exact, "striped_exact_across_growth");
	tap_ok(atomic_load(&c->base) == 100, "striped_with_a_table_increments_cells_not_base");
	tap_ok(cells_kept, "striped_doubling_keeps_every_cell_in_place");
	tap_ok(retired_ok, "striped_old_tables_are_on_the_retired_list");
	tap_ok(sc_striped_grow(c, k.cfg) == -1 && striped_cells(&k) == 8,
	       "striped_does_not_grow_past_max_cells");
	size_t tables = SC_PAD_UP(sizeof(sc_striped_table) + 2 * sizeof(void *)) +
	                SC_PAD_UP(sizeof(sc_striped_table) + 4 * sizeof(void *)) +
	                SC_PAD_UP(sizeof(sc_striped_table) + 8 * sizeof(void *));
	tap_ok(bytes_grow && bytes == tables + 8 * sizeof(sc_padded_u64) && sizes == 14,
	       "striped_heap_bytes_counts_cells_and_every_table_%zu", bytes);
	counter_free(&k); /* LeakSanitizer checks that retired tables and cells are freed */
}

static void test_striped_base_wraps(void)
{
	sc_env env = test_env(1, 8);
	counter k;
	sc_thread t;
	if (!counter_new(&k, STRIPED, &env, 0)) {
		tap_ok(false, "striped_base_wraps");
		return;
	}
	sc_striped_t *c = k.c;
	atomic_store(&c->base, NEAR_WRAP);
	sc_thread_init(&t, 0, 0, 1, false);
	for (int i = 0; i < 5; i++)
		sc_striped_inc(c, k.cfg, &t);
	tap_ok(striped_table(&k) == NULL && sc_striped_get(c, k.cfg) == 2,
	       "striped_base_word_wraps_modulo_2^64");
	counter_free(&k);
}

/*
 * The table appears at the first failed CAS on the base word (contention):
 * sc_striped_inc then calls sc_striped_inc_slow(..., false), called here
 * directly so that the check does not depend on two threads ever racing.
 * Then 8 threads on 2 cores, each until the table exists (it does) and 5000
 * increments more: exact with the table. And 8 threads on a fresh counter,
 * hammering the base word until a CAS of theirs fails and the table
 * appears, or CONTEND_CAP increments each: exact whatever the schedule; the
 * table is reported, not asserted (a loaded machine may run the threads one
 * after another, between CASes, and never fail one).
 */
#define CONTEND_CAP (1u << 22)

typedef struct contend {
	counter *k;
	_Atomic uint64_t total;
} contend;

static void contend_thread(test_thread_arg *a)
{
	contend *x = a->shared;
	sc_thread t;
	uint64_t n = 0;
	sc_thread_init(&t, a->index, 0, 21, false);
	while (striped_table(x->k) == NULL && n < CONTEND_CAP)
		for (int i = 0; i < 256; i++, n++)
			sc_striped_inc(x->k->c, x->k->cfg, &t);
	for (int i = 0; i < 5000; i++, n++)
		sc_striped_inc(x->k->c, x->k->cfg, &t);
	atomic_fetch_add(&x->total, n);
}

static void test_striped_grows_under_contention(void)
{
	sc_env env = test_env(8, 8);
	counter k, fresh;
	contend x = { &k, 0 }, y = { &fresh, 0 };
	if (!counter_new(&k, STRIPED, &env, 0) || !counter_new(&fresh, STRIPED, &env, 0)) {
		tap_ok(false, "striped_grows_under_contention");
		return;
	}
	sc_thread t;
	sc_thread_init(&t, 0, 0, 21, false);
	sc_striped_inc_slow(k.c, k.cfg, &t, false);
	tap_ok(STRIPED->heap_bytes(k.c, k.cfg) > 0 && striped_cells(&k) >= 2 &&
	               counter_get(&k) == 1,
	       "striped_creates_its_table_at_the_first_failed_cas (%u cells, count %llu of 1)",
	       striped_cells(&k), (unsigned long long)counter_get(&k));
	test_run_threads(8, contend_thread, &x);
	tap_diag("Striped with its table after 8 threads: %llu increments, %u cells, %zu heap bytes",
	         (unsigned long long)x.total, striped_cells(&k), STRIPED->heap_bytes(k.c, k.cfg));
	tap_ok(counter_get(&k) == x.total + 1, "striped_exact_with_its_table_under_8_threads");
	test_run_threads(8, contend_thread, &y);
	tap_diag("Striped from its base word under 8 threads: %llu increments, table %s (%u cells)",
	         (unsigned long long)y.total, striped_table(&fresh) ? "made" : "not made",
	         striped_cells(&fresh));
	tap_ok(counter_get(&fresh) == y.total, "striped_exact_from_its_base_word_under_8_threads");
	counter_free(&fresh);
	counter_free(&k);
}

/* ---- PerCPU ----------------------------------------------------------------- */

/*
 * Each increment lands on one word: on the locked path and on the sequence
 * indexed by cpu_id, the word of the CPU the thread was moved to (folded
 * modulo the slots, or the overflow word); indexed by mm_cid, some word.
 */
static void test_percpu_word_per_cpu(void)
{
	sc_env env = test_env(1, 0);
	const char *path = sc_percpu_path();
	counter k;
	cpu_hopper h;
	tap_diag("PerCPU: path %s", path);
	if (!counter_new(&k, PERCPU, &env, 0)) {
		tap_ok(false, "percpu_word_per_cpu");
		return;
	}
	const sc_percpu_t *c = k.c;
	uint32_t slots = ((const sc_percpu_cfg *)k.cfg)->cpus;
	bool by_cpu = strcmp(path, "rseq-mm_cid") != 0, one = true, right = true;
	hopper_init(&h);
	for (int i = 0; i < 2 * (h.n > 1 ? h.n : 1); i++) {
		int cpu = hopper_move(&h, (unsigned)i);
		if (cpu < 0)
			cpu = sched_getcpu();
		uint64_t before[CPU_SETSIZE + 1], moved = 0;
		uint32_t which = 0;
		for (uint32_t s = 0; s <= slots && s <= CPU_SETSIZE; s++)
			before[s] = atomic_load(&c->slots[s].v);
		PERCPU->inc(k.c, k.cfg, &(sc_thread){ 0, 0, 1, 1 });
		for (uint32_t s = 0; s <= slots && s <= CPU_SETSIZE; s++)
			if (atomic_load(&c->slots[s].v) != before[s]) {
				moved += atomic_load(&c->slots[s].v) - before[s];
				which = s;
			}
		one = one && moved == 1;
		uint32_t want = strcmp(path, "lock") == 0 ? (uint32_t)cpu % slots :
		                (uint32_t)cpu < slots     ? (uint32_t)cpu :
		                                            slots;
		right = right && (!by_cpu || which == want);
	}
	hopper_restore(&h);
	tap_ok(one, "percpu_each_increment_adds_1_to_one_word");
	tap_ok(right, "percpu_word_is_the_cpus_on_the_%s_path", path);
	counter_free(&k);
}

/* Writers move between CPUs by changing their affinity every 500 increments. */
static void test_percpu_exact_with_migrations(void)
{
	sc_env env = test_env(8, 0);
	counter k;
	run r;
	cpu_hopper h;
	if (!counter_new(&k, PERCPU, &env, 0)) {
		tap_ok(false, "percpu_exact_with_migrations");
		return;
	}
	run_init(&r, &k, 8, 20000, 31);
	r.hop_every = 500;
	uint64_t total = run_go(&r, 0);
	hopper_init(&h);
	tap_diag("PerCPU: %llu CPU changes seen by the writers", (unsigned long long)r.cpu_changes);
	if (h.ok && h.n >= 2)
		tap_ok(r.cpu_changes > 0, "percpu_writers_did_migrate");
	tap_ok(counter_get(&k) == total, "percpu_exact_with_8_migrating_threads");
	counter_free(&k);
}

/* One slot: every CPU id (0, 1, ...) is out of range and must fold into it. */
static void test_percpu_folds_out_of_range_cpus(void)
{
	sc_env env = test_env(4, 1);
	counter k;
	run r;
	if (!counter_new(&k, PERCPU, &env, 0)) {
		tap_ok(false, "percpu_folds_out_of_range_cpus");
		return;
	}
	run_init(&r, &k, 4, 10000, 41);
	r.hop_every = 1000;
	uint64_t total = run_go(&r, 0);
	tap_ok(counter_get(&k) == total && PERCPU->heap_bytes(k.c, k.cfg) == 2 * SC_LINE_SIZE,
	       "percpu_cpu_ids_beyond_the_slots_fold_in_bounds");
	counter_free(&k);
}

int main(void)
{
	tap_plan_lazy();
	test_batched_lags_by_less_than_B();
	test_batched_batch_validation();
	test_striped_max_cells();
	test_striped_grows_and_keeps_cells();
	test_striped_base_wraps();
	test_striped_grows_under_contention();
	test_percpu_word_per_cpu();
	test_percpu_exact_with_migrations();
	test_percpu_folds_out_of_range_cpus();
	return tap_done();
}
