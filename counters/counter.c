/* SPDX-License-Identifier: MIT */
/*
 * counter.c - the handle API (sc_counter.h): counters made by name and
 * parameter string, freed, named, described and read. The thread contexts
 * and the update entry points are in context.c, the other reads in
 * counter_read.c.
 */
#include "counter_priv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- counters ------------------------------------------------------------------ */

/* Per-thread slots of the Sharded and Batched counters made here. */
static uint32_t handle_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t n = cpus > 0 ? 2 * (uint64_t)cpus : 8;
	if (n < 8)
		n = 8;
	return n < SC_DIST_MAX_SLOTS ? (uint32_t)n : SC_DIST_MAX_SLOTS;
}

/* Whether key is one of the comma-separated keys of accepted. */
static bool key_accepted(const char *accepted, const char *key)
{
	size_t len = strlen(key);
	for (const char *a = accepted; *a;) {
		const char *end = strchr(a, ',');
		size_t n = end ? (size_t)(end - a) : strlen(a);
		if (n == len && strncmp(a, key, n) == 0)
			return true;
		a += n + (end != NULL);
	}
	return false;
}

/*
 * Split "k=v,k=v" (buf is modified and must outlive p) into p. An empty
 * item ("batch=4,,", ",batch=4") is an error, and so is an item with a
 * blank anywhere (" batch=4", "batch=4 "); "" alone means no parameters.
 * Keys the variant does not accept are refused here, with the list of
 * those it does (same-seed, which sc_table_create would take, is not one).
 */
static int parse_params(sc_params *p, const sc_variant *v, char *buf, sc_err *err)
{
	sc_params_clear(p);
	const char *all = buf[0] ? NULL : "";
	for (char *tok = buf; !all;) {
		char *comma = strchr(tok, ',');
		if (comma)
			*comma = '\0';
		if (tok[0] == '\0') {
			sc_err_set(err, "%s: empty item in the parameters (a stray comma?)", v->name);
			return -1;
		}
		/* strict, as sc_counter_new(3) says: no blank around or inside an item */
		if (strpbrk(tok, " \t\n\r\v\f")) {
			sc_err_set(err, "%s: parameter item '%s' holds a blank (items are key=value, "
			           "nothing around them)", v->name, tok);
			return -1;
		}
		if (sc_params_add(p, tok, err))
			return -1;
		const char *key = p->key[p->n - 1];
		if (strcmp(key, "same-seed") == 0) {
			sc_err_set(err, "same-seed=%s: a benchmark parameter, not accepted by "
			           "sc_counter_new (each thread has its own streams)", tok + 10);
			return -1;
		}
		if (!key_accepted(v->params, key)) {
			sc_err_set(err, "%s: unknown parameter '%s' (accepted: %s)", v->name, key,
			           v->params[0] ? v->params : "none");
			return -1;
		}
		if (!comma)
			break;
		tok = comma + 1;
	}
	return 0;
}

/*
 * "unknown variant 'NAME'; valid: LIST": the whole list always fits the
 * message, its names separated by commas alone (with sc_variant_names()'s
 * ", " it would not fit the 256 bytes of sc_err; the assertion below fails
 * the build when a new variant makes even this list too long); the name
 * given gets the room left, its control bytes as \xNN and cut with "..."
 * (or left out) when it is too long.
 */
#define SC_NAME_ITEM_(P, NAME, ...) "," NAME
static const char variant_list[] = SC_VARIANTS(SC_NAME_ITEM_);
#undef SC_NAME_ITEM_
static const char unknown_lead[] = "unknown variant ''; valid: ";
_Static_assert(sizeof unknown_lead - 1 + sizeof variant_list - 2 < sizeof((sc_err *)0)->msg,
               "the list of variants no longer fits sc_err's message");

static size_t escaped_len(const unsigned char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s < 0x20 || *s == 0x7f ? 4 : 1;
	return n;
}

static void unknown_variant(sc_err *err, const char *variant)
{
	const char *names = variant_list + 1;
	size_t room = sizeof err->msg - 1 - (sizeof unknown_lead - 1), len = strlen(names);
	room = room > len ? room - len : 0;
	const unsigned char *s = (const unsigned char *)(variant ? variant : "(null)");
	int cut = escaped_len(s) > room;
	if (cut && room < 4) {
		sc_err_set(err, "unknown variant; valid: %s", names);
		return;
	}
	size_t limit = cut ? room - 3 : room, o = 0;
	char shown[sizeof err->msg];
	for (; *s; s++) {
		int control = *s < 0x20 || *s == 0x7f;
		if (o + (control ? 4 : 1) > limit)
			break;
		if (control)
			o += (size_t)snprintf(shown + o, 5, "\\x%02x", *s);
		else
			shown[o++] = (char)*s;
	}
	shown[o] = '\0';
	sc_err_set(err, "unknown variant '%s%s'; valid: %s", shown, cut ? "..." : "", names);
}

/*
 * The head the inlined increment reads (sc_counter_head.h), from the path
 * the variant's family declares (sc_handle_path): the mode, the inlined
 * op, and the copies of the counter's fixed parts that the mode reads.
 */
static void fill_head(sc_counter *c, const sc_variant *v)
{
	sc_handle_path path = v->hooks.handle_path ? v->hooks.handle_path(c->obj, c->t.cfg)
	                                           : sc_path_of_kind_(SC_PATH_CALL);
	c->head.inc = path.inc ? path.inc : v->inc;
	c->head.add = v->add;
	c->head.obj = c->obj;
	c->head.cfg = c->t.cfg;
	c->head.mode = SC_HEAD_CALL_;
	/* the node (refreshed by context_for) or the seeded stream: the slow context */
	if (path.kind == SC_PATH_NODE || c->t.thread_seed != 0) {
		c->head.mode = SC_HEAD_SLOW_;
	} else if (path.kind == SC_PATH_SHARDED) {
		c->head.mode = SC_HEAD_SHARDED_;
		c->head.op = SC_HEAD_OP_SHARDED_;
		c->head.sharded = *(const sc_sharded_t *)c->obj; /* the slot pointer, fixed by init */
		c->head.sharded_cfg = *(const sc_sharded_cfg *)c->t.cfg;
	} else if (path.kind == SC_PATH_PERCPU) {
		/* the array and its shape, fixed by init (sc_percpu_add_ix's arguments) */
		c->head.mode = SC_HEAD_PERCPU_;
		c->head.percpu_slot0 = path.slot0;
		c->head.percpu_stride = path.stride;
		c->head.percpu_slots = path.slots;
		c->head.percpu_index = path.index;
		/* a sequence's id, one line per CPU: the inlined add needs no test of the index */
		if ((path.index & SC_RSEQ_ON_) && path.stride == SC_LINE_SIZE)
			c->head.op = (path.index & (UINT64_C(0xff) << 32)) == SC_RSEQ_CPU_ID_ ?
			                     SC_HEAD_OP_PERCPU_CPU_ID_ :
			                     SC_HEAD_OP_PERCPU_MM_CID_;
	} else if (path.kind == SC_PATH_FETCHADD) {
		/* the increments sc_counter_inc inlines in mode SC_HEAD_CALL_ (sc_counter.h) */
		c->head.op = SC_HEAD_OP_FETCHADD_;
	} else if (path.kind == SC_PATH_MORRIS) {
		c->head.op = SC_HEAD_OP_MORRIS_;
	} else if (path.kind == SC_PATH_SCALABLE) {
		c->head.op = SC_HEAD_OP_SCALABLE_;
	}
}

sc_counter *sc_counter_new(const char *variant, const char *params, sc_err *err)
{
	sc_err local;
	if (!err)
		err = &local;
	const sc_variant *v = variant ? sc_variant_find(variant) : NULL;
	if (!v) {
		unknown_variant(err, variant);
		return NULL;
	}
	if (sc_handle_init_(err))
		return NULL;
	char *buf = strdup(params ? params : "");
	sc_counter *c = calloc(1, sizeof *c);
	if (!buf || !c) {
		sc_err_set(err, "%s: out of memory", v->name);
		free(buf);
		free(c);
		return NULL;
	}
	sc_params p;
	/* Every online node its own index (sc_node.h); RBONuma takes at most 256. */
	uint32_t nodes = sc_node_count();
	sc_env env = {handle_threads(), nodes < SC_RBONUMA_MAX_NODES ? nodes : SC_RBONUMA_MAX_NODES, 0};
	if (parse_params(&p, v, buf, err) ||
	    (v->hooks.handle_defaults && v->hooks.handle_defaults(&p, err)) ||
	    sc_table_create(&c->t, v, &p, &env, 1, err)) {
		free(buf);
		free(c);
		return NULL;
	}
	free(buf);
	size_t size = v->size(c->t.cfg);
	if (v->kind != SC_PRECISE &&
	    ((size != 4 && size != 8) || v->heap_bytes(sc_table_at(&c->t, 0), c->t.cfg) != 0)) {
		/* read_and_reset below exchanges the one word of such a counter */
		sc_err_set(err, "%s: not a single-word counter; the handle API cannot reset it",
		           v->name);
		sc_table_destroy(&c->t);
		free(c);
		return NULL;
	}
	c->obj = sc_table_at(&c->t, 0);
	c->id = (int)(v - sc_variants);
	fill_head(c, v);
	/* A precise value wraps after its range, 2^bits - 1 for every precise variant. */
	c->mask = v->range(c->t.cfg);
	atomic_init(&c->origin, 0);
	pthread_mutex_init(&c->reset_lock, NULL);
	sc_handle_register_(c);
	return c;
}

void sc_counter_free(sc_counter *c)
{
	if (!c)
		return;
	sc_handle_unregister_(c);
	sc_table_destroy(&c->t);
	free(c);
}

const char *sc_counter_variant(const sc_counter *c)
{
	return c->t.v->name;
}

int sc_counter_describe(const sc_counter *c, char *buf, size_t size)
{
	return c->t.v->describe(c->obj, c->t.cfg, buf, size);
}

uint64_t sc_counter_get(const sc_counter *c)
{
	if (c->t.v->kind != SC_PRECISE)
		return c->t.v->get(c->obj, c->t.cfg);
	/*
	 * acquire: pairs with the release store in read_and_reset, so the parts
	 * read below are at least as new as the reading the origin came from,
	 * and (every part being monotone) the difference is never negative.
	 */
	uint64_t origin = atomic_load_explicit(&c->origin, memory_order_acquire);
	return (c->t.v->get(c->obj, c->t.cfg) - origin) & c->mask;
}
