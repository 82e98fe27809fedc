/* SPDX-License-Identifier: MIT */
/*
 * sc_ops.h - the per-variant operations that many variants share word for
 * word, as macros a family header expands. sc_common.h includes it.
 */
#ifndef SC_OPS_H
#define SC_OPS_H

#include "sc_common.h" /* which includes this file at its end */

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * The per-variant operations that many variants share word for word (the
 * contract is at the top of scounters.h). Each macro defines, for prefix P,
 * static inline functions with the contract's names and signatures, so that
 * a family header writes only what is its own.
 */

/* sc_P_config, _init, _reset, _destroy: declared here, defined in the family's .c. */
#define SC_OP_DECLARE_OUT_OF_LINE(P)                                                       \
	int sc_##P##_config(sc_##P##_cfg *cfg, sc_params *p, const sc_env *env, sc_err *err); \
	int sc_##P##_init(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_err *err);            \
	void sc_##P##_reset(sc_##P##_t *c, const sc_##P##_cfg *cfg);                       \
	void sc_##P##_destroy(sc_##P##_t *c, const sc_##P##_cfg *cfg);

/* sc_P_size: one counter is its type, whatever the configuration. */
#define SC_OP_SIZEOF(P)                                                                    \
	static inline size_t sc_##P##_size(const sc_##P##_cfg *cfg)                        \
	{                                                                                  \
		(void)cfg;                                                                 \
		return sizeof(sc_##P##_t);                                                 \
	}

/* sc_P_flush: a no-op, for variants that hold nothing back per thread. */
#define SC_OP_NO_FLUSH(P)                                                                  \
	static inline void sc_##P##_flush(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_thread *t) \
	{                                                                                  \
		(void)c;                                                                   \
		(void)cfg;                                                                 \
		(void)t;                                                                   \
	}

/* sc_P_destroy: a no-op, for variants that allocate nothing. */
#define SC_OP_NO_DESTROY(P)                                                                \
	static inline void sc_##P##_destroy(sc_##P##_t *c, const sc_##P##_cfg *cfg)        \
	{                                                                                  \
		(void)c;                                                                   \
		(void)cfg;                                                                 \
	}

/* sc_P_heap_bytes: 0, for variants that allocate nothing. */
#define SC_OP_NO_HEAP(P)                                                                   \
	static inline size_t sc_##P##_heap_bytes(const sc_##P##_t *c, const sc_##P##_cfg *cfg) \
	{                                                                                  \
		(void)c;                                                                   \
		(void)cfg;                                                                 \
		return 0;                                                                  \
	}

/* sc_P_range: the full 64-bit range (the counter wraps only after 2^64 - 1). */
#define SC_OP_RANGE_FULL(P)                                                                \
	static inline uint64_t sc_##P##_range(const sc_##P##_cfg *cfg)                     \
	{                                                                                  \
		(void)cfg;                                                                 \
		return UINT64_MAX;                                                         \
	}

/* flush, destroy and heap_bytes of a counter that allocates nothing and holds nothing back. */
#define SC_OPS_SELF_CONTAINED(P) SC_OP_NO_FLUSH(P) SC_OP_NO_DESTROY(P) SC_OP_NO_HEAP(P)

/*
 * sc_P_init and sc_P_reset of a counter that is one atomic field FIELD
 * whose state at the start is the constant INITIAL. reset is relaxed: it
 * runs only while nothing increments, and later increments start after the
 * caller's barrier or join.
 */
#define SC_OP_WORD_INIT_RESET(P, FIELD, INITIAL)                                           \
	static inline int sc_##P##_init(sc_##P##_t *c, const sc_##P##_cfg *cfg, sc_err *err) \
	{                                                                                  \
		(void)cfg;                                                                 \
		(void)err;                                                                 \
		sc_atomic_init(&c->FIELD, INITIAL);                                           \
		return 0;                                                                  \
	}                                                                                  \
	static inline void sc_##P##_reset(sc_##P##_t *c, const sc_##P##_cfg *cfg)          \
	{                                                                                  \
		(void)cfg;                                                                 \
		atomic_store_explicit(&c->FIELD, INITIAL, memory_order_relaxed);           \
	}

/*
 * sc_P_describe (contract at the top of scounters.h): declared here, defined
 * in the family's .c; SC_OP_NO_STATE_DESCRIBE for a variant whose only state
 * is its value, which describes it as "".
 */
#define SC_OP_DECLARE_DESCRIBE(P)                                                          \
	int sc_##P##_describe(const sc_##P##_t *c, const sc_##P##_cfg *cfg, char *buf, size_t size);

#define SC_OP_NO_STATE_DESCRIBE(P)                                                         \
	static inline int sc_##P##_describe(const sc_##P##_t *c, const sc_##P##_cfg *cfg,  \
	                                    char *buf, size_t size)                        \
	{                                                                                  \
		(void)c;                                                                   \
		(void)cfg;                                                                 \
		if (size)                                                                  \
			buf[0] = '\0';                                                     \
		return 0;                                                                  \
	}

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_OPS_H */
