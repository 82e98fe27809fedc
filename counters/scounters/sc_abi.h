/* SPDX-License-Identifier: MIT */
/*
 * sc_abi.h - what binds an application to the library it runs with: the
 * export macros, the version (numeric macros and a run-time query), and
 * the check that both were built with the same padding unit.
 *
 * Line size. SC_LINE_SIZE (sc_config.h, configure --with-line-size) is
 * compiled into every object that includes these headers: it sets the
 * layout of every counter type and the inlined fast paths index by it, so
 * an application built against headers of one line size must not run with
 * a library built for another. Every translation unit that includes this
 * header therefore refers to the symbol sc_abi_line_size_<N> (N = its
 * SC_LINE_SIZE), and the library defines only the one of its own line
 * size: a mismatch fails when the program is linked (static or shared:
 * "undefined reference to `sc_abi_line_size_128'") or, when a shared
 * library of another line size is put in its place, when the program is
 * loaded ("undefined symbol: sc_abi_line_size_128"), never at run time.
 * The reference costs one pointer per object file. Linking with
 * -Wl,--gc-sections may drop it (and with it the check); define
 * SC_NO_ABI_CHECK before including to leave it out deliberately.
 */
#ifndef SC_ABI_H
#define SC_ABI_H

/* C++ before C++17 lacks what the inlined fast paths use (std::atomic's
 * is_always_lock_free, inline variables): say so once, not with the first
 * error deep inside. MSVC reports the standard in _MSVC_LANG. */
#if defined(__cplusplus) && (defined(_MSVC_LANG) ? _MSVC_LANG : __cplusplus) < 201703L
#error "scounters: the public headers need C++17 or later (compile with -std=c++17)"
#endif

#include "scounters/sc_config.h"

/*
 * SC_API marks one exported declaration; SC_API_BEGIN ... SC_API_END mark
 * every declaration between them (each public header wraps its own). The
 * library is compiled with -fvisibility=hidden, so anything declared
 * elsewhere stays internal.
 *
 * The same two macros keep the headers' inline bodies quiet under the
 * warnings a consumer may build with as errors: C++'s -Wold-style-cast,
 * -Wcast-qual and -Wuseless-cast (GCC) and C's -Wcast-qual. The bodies are
 * C, shared by both languages, so they cast as C does (a const counter's
 * atomic word read through a non-const pointer, a cast that is needed on
 * one platform and useless on another): the warnings are ignored between
 * SC_API_BEGIN and SC_API_END only (a diagnostic push and pop), never in
 * the consumer's own code. SC_DIAG_PUSH_ and SC_DIAG_POP_ are that part.
 */
#if defined(__clang__) && defined(__cplusplus)
#define SC_DIAG_PUSH_                                                                      \
	_Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wold-style-cast\"") \
		_Pragma("clang diagnostic ignored \"-Wcast-qual\"")
#define SC_DIAG_POP_ _Pragma("clang diagnostic pop")
#elif defined(__clang__)
#define SC_DIAG_PUSH_                                                                      \
	_Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wcast-qual\"")
#define SC_DIAG_POP_ _Pragma("clang diagnostic pop")
#elif defined(__GNUC__) && defined(__cplusplus)
#define SC_DIAG_PUSH_                                                                      \
	_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wold-style-cast\"") \
		_Pragma("GCC diagnostic ignored \"-Wcast-qual\"")                                 \
			_Pragma("GCC diagnostic ignored \"-Wuseless-cast\"")
#define SC_DIAG_POP_ _Pragma("GCC diagnostic pop")
#elif defined(__GNUC__)
#define SC_DIAG_PUSH_                                                                      \
	_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wcast-qual\"")
#define SC_DIAG_POP_ _Pragma("GCC diagnostic pop")
#else
#define SC_DIAG_PUSH_
#define SC_DIAG_POP_
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SC_API __attribute__((visibility("default")))
#define SC_API_BEGIN _Pragma("GCC visibility push(default)") SC_DIAG_PUSH_
#define SC_API_END SC_DIAG_POP_ _Pragma("GCC visibility pop")
#else
#define SC_API
#define SC_API_BEGIN
#define SC_API_END
#endif

/* One number per version, ordered as the versions: 1002003 is 1.2.3. */
#define SC_VERSION_ENCODE(major, minor, patch) ((major) * 1000000L + (minor) * 1000L + (patch))
#define SC_VERSION_NUMBER SC_VERSION_ENCODE(SC_VERSION_MAJOR, SC_VERSION_MINOR, SC_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif
SC_API_BEGIN

/*
 * The version of the library the program runs with, as SC_VERSION_NUMBER
 * (compare it with the SC_VERSION_NUMBER the program was compiled with) and
 * as the string SC_VERSION ("0.1.0", static storage). Never fail;
 * thread-safe.
 */
long sc_version(void);
const char *sc_version_string(void);

/* The library's padding unit in bytes (its SC_LINE_SIZE). Never fails; thread-safe. */
unsigned sc_line_size(void);

#define SC_ABI_LINE_SYM_(n) sc_abi_line_size_##n
#define SC_ABI_LINE_SYM(n) SC_ABI_LINE_SYM_(n)
/* Defined by the library for its own SC_LINE_SIZE only (see above). */
extern const unsigned char SC_ABI_LINE_SYM(SC_LINE_SIZE);

#if !defined(SC_NO_ABI_CHECK) && (defined(__GNUC__) || defined(__clang__))
/* The reference that makes a line-size mismatch a link or load error. */
static const unsigned char *const sc_abi_line_check_ __attribute__((used)) =
	&SC_ABI_LINE_SYM(SC_LINE_SIZE);
#endif

SC_API_END
#ifdef __cplusplus
}
#endif

#endif /* SC_ABI_H */
