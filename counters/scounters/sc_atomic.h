/* SPDX-License-Identifier: MIT */
/*
 * sc_atomic.h - the atomics of the public headers, for C11 and for C++17 and
 * later.
 *
 * C: <stdatomic.h>; SC_ATOMIC(T) is _Atomic(T), the very type that
 * _Atomic T names, so the C fast paths compile exactly as before.
 *
 * C++: std::atomic<T> from <atomic>. The library itself is compiled as C,
 * and a C++ program that inlines an increment works on the same objects, so
 * the two representations must agree: for the lock-free 32- and 64-bit
 * integers and the pointers used here, GCC and Clang give std::atomic<T> the
 * size, alignment and instructions of C's _Atomic(T) (checked below, as far
 * as a compile-time check can). The C11 generic functions the inline code
 * calls (atomic_load_explicit, ...) and the memory_order_* constants are
 * brought into the global namespace with using-declarations, as C++23's
 * <stdatomic.h> does, so the inline code reads the same in both languages;
 * a program that also includes C++23 <stdatomic.h> repeats the same
 * declarations, which is allowed. atomic_init is not among them (C++20
 * deprecates it): the headers use sc_atomic_init, a relaxed store in C++.
 */
#ifndef SC_ATOMIC_H
#define SC_ATOMIC_H

/* C++ before C++17 lacks what the inlined fast paths use (std::atomic's
 * is_always_lock_free, inline variables): say so once, not with the first
 * error deep inside. MSVC reports the standard in _MSVC_LANG. */
#if defined(__cplusplus) && (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 201703L
#define SC_CXX_BEFORE_17_ 1
#ifndef SC_ABI_H /* sc_abi.h said it already */
#error "scounters: the public headers need C++17 or later (compile with -std=c++17)"
#endif
#endif

#include <stdint.h>

#ifdef __cplusplus
#include <atomic>

#define SC_ATOMIC(T) std::atomic<T>
#define sc_atomic_init(obj, value) std::atomic_store_explicit((obj), (value), std::memory_order_relaxed)
#define SC_STATIC_ASSERT(cond, msg) static_assert(cond, msg)

using std::memory_order_relaxed;
using std::memory_order_acquire;
using std::memory_order_release;
using std::memory_order_acq_rel;
using std::memory_order_seq_cst;
using std::atomic_load_explicit;
using std::atomic_store_explicit;
using std::atomic_exchange_explicit;
using std::atomic_compare_exchange_weak_explicit;
using std::atomic_compare_exchange_strong_explicit;
using std::atomic_fetch_add_explicit;

#ifndef SC_CXX_BEFORE_17_ /* the #error above is the one message */
static_assert(sizeof(std::atomic<uint32_t>) == 4 && alignof(std::atomic<uint32_t>) == 4 &&
                      std::atomic<uint32_t>::is_always_lock_free,
              "std::atomic<uint32_t> must match C's _Atomic(uint32_t)");
static_assert(sizeof(std::atomic<uint64_t>) == 8 && alignof(std::atomic<uint64_t>) == 8 &&
                      std::atomic<uint64_t>::is_always_lock_free,
              "std::atomic<uint64_t> must match C's _Atomic(uint64_t)");
static_assert(sizeof(std::atomic<void *>) == sizeof(void *) &&
                      std::atomic<void *>::is_always_lock_free,
              "std::atomic<T *> must match C's _Atomic(T *)");
#endif
#else
#include <stdalign.h>
#include <stdatomic.h>

#define SC_ATOMIC(T) _Atomic(T)
#define sc_atomic_init(obj, value) atomic_init((obj), (value))
#define SC_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#endif /* SC_ATOMIC_H */
