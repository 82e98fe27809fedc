/* SPDX-License-Identifier: MIT */
/*
 * test_hooks.c - the variant table's optional hooks (sc_variant_hooks,
 * sc_contract.h) are the ones each family declares, and the library acts
 * on them (TAP):
 *   - for every variant P, each hook of the table is set exactly where the
 *     family's SC_HOOKS_P sets it (a hook of one variant given to another,
 *     or one the registry drops, fails here);
 *   - a handle counter's head (sc_counter_head.h) is what the variant's
 *     handle_path says: the per-CPU array, Sharded's copies, the inlined
 *     op, the slow context for the node or a seeded stream, the call
 *     otherwise;
 *   - handle_defaults adds only keys the variant accepts and keeps a key
 *     the caller gave; thread_seed is the table's; table_reserve comes
 *     with table_release; value_unbiased reads a fresh counter as 0.
 * Deterministic: one thread, fixed inputs.
 */
#include <scounters/scounters.h>

#include <string.h>

#include "tap.h"

#define NHOOKS 7

/* The hooks, by name, set (1) or not (0). */
static void hooks_set(const sc_variant_hooks *h, int set[NHOOKS])
{
	set[0] = h->handle_defaults != NULL;
	set[1] = h->handle_path != NULL;
	set[2] = h->value_unbiased != NULL;
	set[3] = h->thread_seed != NULL;
	set[4] = h->table_reserve != NULL;
	set[5] = h->table_release != NULL;
	set[6] = h->config_shape != NULL;
}

static const char *const hook_names[NHOOKS] = { "handle_defaults", "handle_path",
	                                        "value_unbiased",  "thread_seed",
	                                        "table_reserve",   "table_release",
	                                        "config_shape" };

static void check_declared(const sc_variant *v, const sc_variant_hooks *declared)
{
	int want[NHOOKS], got[NHOOKS];
	hooks_set(declared, want);
	hooks_set(&v->hooks, got);
	for (int i = 0; i < NHOOKS; i++)
		tap_ok(want[i] == got[i], "%s: %s %s in the table, as its family declares", v->name,
		       hook_names[i], got[i] ? "set" : "unset");
	tap_ok(got[4] == got[5], "%s: table_reserve and table_release come together", v->name);
}

/* What the head of a handle counter of v must be, from v's path. */
static void check_head(const sc_variant *v)
{
	sc_err err;
	sc_counter *c = sc_counter_new(v->name, "", &err);
	if (!tap_ok(c != NULL, "%s: sc_counter_new: %s", v->name, c ? "" : err.msg))
		return;
	const sc_counter_head_ *h = (const sc_counter_head_ *)(const void *)c;
	sc_handle_path path = v->hooks.handle_path ? v->hooks.handle_path(h->obj, h->cfg)
	                                           : sc_path_of_kind_(SC_PATH_CALL);
	uint32_t seed = v->hooks.thread_seed ? v->hooks.thread_seed(h->cfg) : 0;
	bool slow = path.kind == SC_PATH_NODE || seed != 0;
	bool ok = (h->mode == SC_HEAD_SLOW_) == slow;
	ok &= (h->mode == SC_HEAD_PERCPU_) == (path.kind == SC_PATH_PERCPU && !slow);
	ok &= (h->mode == SC_HEAD_SHARDED_) == (path.kind == SC_PATH_SHARDED && !slow);
	ok &= (h->sharded_cfg.threads != 0) == (h->mode == SC_HEAD_SHARDED_);
	ok &= h->percpu_slot0 == (h->mode == SC_HEAD_PERCPU_ ? path.slot0 : NULL);
	if (h->mode == SC_HEAD_PERCPU_)
		ok &= path.slot0 != NULL && h->percpu_stride == path.stride &&
		      h->percpu_slots == path.slots && h->percpu_index == path.index;
	uint32_t op = SC_HEAD_OP_CALL_;
	if (!slow && path.kind == SC_PATH_FETCHADD)
		op = SC_HEAD_OP_FETCHADD_;
	else if (!slow && path.kind == SC_PATH_MORRIS)
		op = SC_HEAD_OP_MORRIS_;
	else if (!slow && path.kind == SC_PATH_SCALABLE)
		op = SC_HEAD_OP_SCALABLE_;
	else if (!slow && path.kind == SC_PATH_SHARDED)
		op = SC_HEAD_OP_SHARDED_;
	else if (!slow && path.kind == SC_PATH_PERCPU && (path.index & SC_RSEQ_ON_) &&
	         path.stride == SC_LINE_SIZE)
		/* the sequence's id, by the index's name (sc_rseq.h) */
		op = strcmp(sc_percpu_index_name(path.index), "rseq-cpu_id") == 0 ?
		             SC_HEAD_OP_PERCPU_CPU_ID_ :
		             SC_HEAD_OP_PERCPU_MM_CID_;
	ok &= h->op == op;
	ok &= path.inc ? h->inc == path.inc : h->inc == v->inc;
	tap_ok(ok, "%s: the head (mode %u, op %u) follows the path (kind %d%s)", v->name, h->mode,
	       h->op, (int)path.kind, seed ? ", seeded stream" : "");
	sc_counter_inc(c);
	tap_ok(sc_counter_get_sum(c) == 1 || v->kind != SC_PRECISE, "%s: one increment reads 1",
	       v->name);
	sc_counter_free(c);
}

/* handle_defaults: accepted keys only, an explicit key kept; the other hooks on a table. */
static void check_table(const sc_variant *v)
{
	sc_err err;
	sc_params p;
	sc_params_clear(&p);
	if (v->hooks.handle_defaults) {
		bool ok = v->hooks.handle_defaults(&p, &err) == 0 && p.n > 0;
		for (unsigned i = 0; ok && i < p.n; i++)
			ok = strstr(v->params, p.key[i]) != NULL;
		tap_ok(ok, "%s: handle_defaults adds %u key(s) the variant accepts", v->name, p.n);
		unsigned n = p.n;
		ok = v->hooks.handle_defaults(&p, &err) == 0 && p.n == n;
		tap_ok(ok, "%s: handle_defaults keeps the keys already given", v->name);
	}
	sc_env env;
	sc_env_default(&env);
	sc_table t;
	if (!tap_ok(sc_table_create(&t, v, &p, &env, 3, &err) == 0, "%s: table of 3: %s", v->name,
	            err.msg))
		return;
	uint32_t seed = v->hooks.thread_seed ? v->hooks.thread_seed(t.cfg) : 0;
	tap_ok(t.thread_seed == seed, "%s: the table's thread_seed %u is the hook's %u", v->name,
	       t.thread_seed, seed);
	if (v->hooks.value_unbiased) {
		uint32_t rng = 12345;
		uint64_t got = v->hooks.value_unbiased(sc_table_at(&t, 1), t.cfg, &rng);
		tap_ok(got == 0, "%s: value_unbiased of a fresh counter: %llu", v->name,
		       (unsigned long long)got);
	}
	sc_table_destroy(&t);
}

int main(void)
{
	tap_plan_lazy();
#define DECLARED_(P, ...)                                                                  \
	{                                                                                  \
		static const sc_variant_hooks declared = SC_HOOKS_##P;                     \
		check_declared(&sc_variants[SC_ID_##P], &declared);                        \
	}
	SC_VARIANTS(DECLARED_)
#undef DECLARED_
	for (int i = 0; i < SC_VARIANT_COUNT; i++) {
		check_head(&sc_variants[i]);
		check_table(&sc_variants[i]);
	}
	return tap_done();
}
