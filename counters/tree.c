/* SPDX-License-Identifier: MIT */
/*
 * tree.c - PerCPUTree (sc_tree.h): the tree's shape, its carries, the add
 * where the inlined sequence is not taken, and the comparisons.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getcpu */
#endif
#include <scounters/sc_tree.h>

#include "env_priv.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

static sc_padded_u64 *node_at(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg, uint32_t level,
                              uint32_t j)
{
	return &c->words[cfg->cpus + 1 + cfg->first[level] + j];
}

void sc_percpu_tree_carry_(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg, uint32_t leaf,
                           uint64_t carry)
{
	if (leaf >= cfg->cpus) { /* the overflow word carries into the root */
		/* relaxed: the root is a sum of carries; it publishes nothing else. */
		atomic_fetch_add_explicit(&c->words[cfg->root].v, carry,
		                          memory_order_relaxed);
		return;
	}
	uint32_t j = cfg->order ? cfg->order[leaf] : leaf;
	for (uint32_t l = 1;; l++) {
		j /= cfg->fanout[l - 1];
		SC_ATOMIC(uint64_t) *w = &node_at(c, cfg, l, j)->v;
		/* relaxed: as the root's; the old value decides the next carry. */
		uint64_t old = atomic_fetch_add_explicit(w, carry, memory_order_relaxed);
		if (l == cfg->levels)
			return; /* the root */
		carry = sc_tree_carry_of_(old, carry, cfg->batch_shift + l);
		if (!carry)
			return;
	}
}

void sc_percpu_tree_add_slow_(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg, uint64_t v)
{
	/* the process's path (sc_rseq.h), chosen here if no add has chosen it yet */
	uint64_t w = sc_percpu_index(SC_PERCPU_SHARED);
#if SC_RSEQ_INLINE
	if (w & SC_RSEQ_ON_) {
		sc_percpu_tree_add(c, cfg, NULL, v); /* now takes the sequence */
		return;
	}
#endif
	(void)w;
	uint32_t cpu = (uint32_t)sched_getcpu(); /* -1 (failure) goes to the overflow word */
	if (cpu > cfg->cpus)
		cpu = cfg->cpus;
	/* relaxed: the add is atomic whatever the order; the old value decides the carry. */
	uint64_t old = atomic_fetch_add_explicit(&c->words[cpu].v, v, memory_order_relaxed);
	uint64_t carry = sc_tree_carry_of_(old, v, cfg->batch_shift);
	if (carry)
		sc_percpu_tree_carry_(c, cfg, cpu, carry);
}

int sc_percpu_tree_config_shape(sc_percpu_tree_cfg *cfg, uint32_t cpus, uint32_t batch,
                                const uint32_t *order, const uint32_t *fanout, uint32_t nlevels,
                                sc_err *err)
{
	memset(cfg, 0, sizeof *cfg);
	if (cpus == 0) {
		sc_env env;
		sc_env_default(&env);
		cpus = sc_env_cpus_(&env);
	}
	if (cpus > SC_TREE_MAX_CPUS) {
		sc_err_set(err, "PerCPUTree: cpus=%u is above %u", cpus, SC_TREE_MAX_CPUS);
		return -1;
	}
	if (batch == 0 || batch > (1u << 20) || (batch & (batch - 1)) != 0) {
		sc_err_set(err, "PerCPUTree: batch=%u is not a power of two in 1 .. 2^20", batch);
		return -1;
	}
	if (order) {
		/* a permutation: every position taken once (a bitmap of cpus bits) */
		static const char *dup = "PerCPUTree: the CPU order is not a permutation of 0 .. cpus-1";
		uint64_t seen[SC_TREE_MAX_CPUS / 64] = {0};
		for (uint32_t i = 0; i < cpus; i++) {
			if (order[i] >= cpus || (seen[order[i] / 64] >> (order[i] % 64) & 1)) {
				sc_err_set(err, "%s", dup);
				return -1;
			}
			seen[order[i] / 64] |= UINT64_C(1) << (order[i] % 64);
		}
	}
	cfg->cpus = cpus;
	cfg->order = order;
	cfg->batch_shift = sc_bits_for(batch);
	uint32_t n = cpus, l = 0, nodes = 0;
	uint64_t width = (uint64_t)batch - 1; /* the overflow word's residue */
	do {
		uint32_t f = l < nlevels ? fanout[l] : n; /* past the list: the root takes all */
		if (f < 2 || f > SC_TREE_MAX_CPUS) {
			sc_err_set(err, "PerCPUTree: fan-out %u of level %u is outside 2 .. %u", f, l + 1,
			           SC_TREE_MAX_CPUS);
			return -1;
		}
		if (l == SC_TREE_MAX_LEVELS || cfg->batch_shift + l >= 63) {
			sc_err_set(err, "PerCPUTree: more than %u levels", SC_TREE_MAX_LEVELS);
			return -1;
		}
		width += (uint64_t)n * ((UINT64_C(1) << (cfg->batch_shift + l)) - 1);
		cfg->fanout[l] = f;
		n = (n + f - 1) / f;
		cfg->first[++l] = nodes;
		nodes += n;
	} while (n > 1);
	cfg->levels = l;
	cfg->nodes = nodes;
	cfg->root = cpus + nodes;
	cfg->width = width;
	cfg->carry_max = UINT64_C(1) << (cfg->batch_shift + l - 1);
	cfg->carry_mask = ~((UINT64_C(1) << cfg->batch_shift) - 1);
	return 0;
}

int sc_percpu_tree_config(sc_percpu_tree_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err)
{
	uint64_t batch, arity;
	if (sc_param_u64(p, "PerCPUTree", "batch", SC_TREE_BATCH_DEFAULT, 1, 1u << 20, &batch, err) ||
	    sc_param_u64(p, "PerCPUTree", "arity", SC_TREE_ARITY_DEFAULT, 2, 64, &arity, err))
		return -1;
	uint32_t fan[SC_TREE_MAX_LEVELS];
	for (uint32_t i = 0; i < SC_TREE_MAX_LEVELS; i++)
		fan[i] = (uint32_t)arity;
	uint32_t cpus = sc_env_cpus_(env);
	/* a root above a single CPU: levels until one word remains, at least one */
	return sc_percpu_tree_config_shape(cfg, cpus ? cpus : 1, (uint32_t)batch, NULL, fan,
	                                   SC_TREE_MAX_LEVELS, err);
}

int sc_percpu_tree_config_machine_(void *cfg, const sc_params *p, const sc_cpu_shape *shape,
                                   sc_err *err)
{
	sc_percpu_tree_cfg *t = cfg;
	if (sc_param_present(p, "arity"))
		return 0;
	return sc_percpu_tree_config_shape(t, shape->cpus, 1u << t->batch_shift, shape->order,
	                                   shape->fanout, shape->levels, err);
}

static size_t words_of(const sc_percpu_tree_cfg *cfg)
{
	return (size_t)cfg->cpus + 1 + cfg->nodes;
}

int sc_percpu_tree_init(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg, sc_err *err)
{
	c->words = sc_alloc_lines(words_of(cfg) * sizeof *c->words);
	if (!c->words) {
		sc_err_set(err, "PerCPUTree: out of memory");
		return -1;
	}
	return 0;
}

void sc_percpu_tree_reset(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg)
{
	for (size_t i = 0; i < words_of(cfg); i++)
		/* relaxed: only while nothing updates (the contract). */
		atomic_store_explicit(&c->words[i].v, 0, memory_order_relaxed);
}

void sc_percpu_tree_destroy(sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg)
{
	(void)cfg;
	sc_free_lines(c->words);
	c->words = NULL;
}

size_t sc_percpu_tree_heap_bytes(const sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg)
{
	return c->words ? words_of(cfg) * sizeof *c->words : 0;
}

int sc_percpu_tree_describe(const sc_percpu_tree_t *c, const sc_percpu_tree_cfg *cfg, char *buf,
                            size_t size)
{
	uint64_t root = sc_percpu_tree_get_fast(c, cfg, NULL);
	/* the fan-outs from the CPUs up, "2x8x2x4" (at most 24 of at most 5 digits) */
	char fan[SC_TREE_MAX_LEVELS * 6 + 1];
	size_t n = 0;
	for (uint32_t l = 0; l < cfg->levels; l++)
		n += (size_t)snprintf(fan + n, sizeof fan - n, "%s%u", l ? "x" : "", cfg->fanout[l]);
	return snprintf(buf, size,
	                "path=%s;cpus=%u;levels=%u;nodes=%u;fanout=%s;order=%s;batch=%llu;width=%llu;"
	                "root=%llu",
	                sc_percpu_index_name(sc_percpu_index(SC_PERCPU_SHARED)), cfg->cpus, cfg->levels,
	                cfg->nodes, fan, cfg->order ? "machine" : "ids",
	                (unsigned long long)(UINT64_C(1) << cfg->batch_shift),
	                (unsigned long long)cfg->width, (unsigned long long)root);
}
