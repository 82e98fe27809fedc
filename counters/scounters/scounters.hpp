// SPDX-License-Identifier: MIT
/*
 * scounters.hpp - C++ types over the handle API (sc_counter.h) and the
 * per-CPU groups (sc_group.h): move-only owners that free what they own,
 * errors as exceptions (scounters::error, std::out_of_range) or, where an
 * overload takes one, as a std::error_code; reads into a pointer and a
 * length, a std::span (C++20) or a std::vector. C++17 or later.
 *
 *   scounters::counter hits("PerCPU");        // throws scounters::error
 *   hits.inc();
 *   scounters::group stats(3);                // 3 exact counters
 *   stats.inc(1);                             // std::out_of_range past size()
 *   std::vector<std::uint64_t> v = stats.read_and_reset();
 *
 * Thread safety is the C functions' (sc_counter(3), sc_group(3)): the
 * increments and reads of one object from any number of threads; moving,
 * assigning or destroying an object only while no other thread uses it. A
 * moved-from object may only be destroyed or assigned to: any other call on
 * it stops the program with an assert() where NDEBUG is not defined (and
 * is undefined behaviour where it is).
 *
 * Signal handlers: the overloads that take a std::error_code and are
 * marked async-signal-safe report through it alone and leave errno as
 * they found it (the C function's errno is saved and restored).
 */
#ifndef SCOUNTERS_HPP
#define SCOUNTERS_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "scounters.hpp needs C++17 or later (C programs include scounters.h)"
#endif

#include <scounters/scounters.h>

#include <cassert>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <system_error>
#include <utility>
#include <vector>
#if __cplusplus >= 202002L && defined(__has_include)
#if __has_include(<span>)
#include <span>
#define SCOUNTERS_HPP_SPAN 1
#endif
#endif

namespace scounters {

// What the library refused (a variant, a parameter, memory): sc_err's message.
class error : public std::runtime_error {
public:
	explicit error(const sc_err &e) : std::runtime_error(e.msg) {}
};

// One counter of the handle API (sc_counter_new's variant and parameters).
class counter {
public:
	explicit counter(const char *variant, const char *params = "")
	{
		sc_err e;
		c_ = sc_counter_new(variant, params, &e);
		if (!c_)
			throw error(e);
	}
	~counter() { sc_counter_free(c_); }
	counter(counter &&o) noexcept : c_(std::exchange(o.c_, nullptr)) {}
	counter &operator=(counter &&o) noexcept
	{
		if (this != &o) {
			sc_counter_free(c_);
			c_ = std::exchange(o.c_, nullptr);
		}
		return *this;
	}
	counter(const counter &) = delete;
	counter &operator=(const counter &) = delete;

	// sc_counter_inc, _add (async-signal-safe where sc_counter(3) says).
	void inc() noexcept { sc_counter_inc(h()); }
	void add(std::uint64_t n) noexcept { sc_counter_add(h(), n); }

	// Add n, or subtract -n when it is negative (sc_counter_add_signed: a
	// precise variant's gauge). Throws std::system_error (errc::not_supported)
	// for a probabilistic variant or Serial, the counter unchanged.
	void add_signed(std::int64_t n)
	{
		std::error_code ec;
		add_signed(n, ec);
		if (ec)
			throw std::system_error(ec, "scounters::counter::add_signed: not a precise variant");
	}
	// The same; ec = std::errc::not_supported instead of the throw
	// (async-signal-safe where add is; errno unchanged).
	void add_signed(std::int64_t n, std::error_code &ec) noexcept
	{
		int saved = errno;
		ec = sc_counter_add_signed(h(), n) == 0
		             ? std::error_code()
		             : std::make_error_code(std::errc::not_supported);
		errno = saved;
	}

	// The value (sc_counter_get: Batched's fast reading, PerCPUTree's sum),
	// the cheap and the full reading (sc_counter_get_fast, sc_counter_get_sum:
	// they differ for Batched and PerCPUTree). Never throw; async-signal-safe.
	std::uint64_t get() const noexcept { return sc_counter_get(h()); }
	std::uint64_t get_fast() const noexcept { return sc_counter_get_fast(h()); }
	std::uint64_t get_sum() const noexcept { return sc_counter_get_sum(h()); }
	// The same two by their promise (sc_counter_get_approx: the cheap reading
	// with the interval its contract puts around the count; sc_counter_get_precise,
	// = get_sum). Never throw; async-signal-safe.
	sc_counter_approx get_approx() const noexcept
	{
		return sc_counter_get_approx(h());
	}
	std::uint64_t get_precise() const noexcept
	{
		return sc_counter_get_precise(h());
	}

	// Whether the count is below (-1), equal to (0) or above (+1) x, with the
	// guarantee of the variant's error contract (sc_counter_compare; 0 also
	// means "cannot tell" for probabilistic variants). Never throws.
	int compare(std::uint64_t x) const noexcept { return sc_counter_compare(h(), x); }
	// The same with "cannot tell" apart: SC_COMPARE_UNSURE where compare's 0
	// is a probabilistic estimate near x (sc_counter_compare_sure). Never throws.
	int compare_sure(std::uint64_t x) const noexcept
	{
		return sc_counter_compare_sure(h(), x);
	}

	// Reading r's error bound from the variant's contract
	// (sc_counter_error_bound: kind, lag, lag_per_thread, rstdv). Never throws.
	sc_counter_bound error_bound(sc_reading r = SC_READ_FAST) const noexcept
	{
		return sc_counter_error_bound(h(), r);
	}

	// sc_counter_read_and_reset, _flush, _variant (not async-signal-safe:
	// sc_counter(3)).
	std::uint64_t read_and_reset() noexcept { return sc_counter_read_and_reset(h()); }
	void flush() noexcept { sc_counter_flush(h()); }
	const char *variant() const noexcept { return sc_counter_variant(h()); }
	// The C handle (nullptr once moved from): for the C functions.
	sc_counter *native() const noexcept { return c_; }

private:
	// The handle, asserted present (a moved-from counter has none).
	sc_counter *h() const noexcept
	{
		assert(c_ != nullptr && "scounters::counter used after it was moved from");
		return c_;
	}
	sc_counter *c_;
};

// A per-CPU group of n exact counters (sc_group_new_as: rows and sharing as there).
class group {
public:
	explicit group(std::uint32_t n, unsigned how = SC_PERCPU_PRIVATE, std::uint32_t cpus = 0)
	{
		sc_err e;
		sc_env env;
		sc_env_default(&env);
		env.cpus = cpus;
		g_ = sc_group_new_as(n, &env, how, &e);
		if (!g_)
			throw error(e);
	}
	~group() { sc_group_free(g_); }
	group(group &&o) noexcept : g_(std::exchange(o.g_, nullptr)) {}
	group &operator=(group &&o) noexcept
	{
		if (this != &o) {
			sc_group_free(g_);
			g_ = std::exchange(o.g_, nullptr);
		}
		return *this;
	}
	group(const group &) = delete;
	group &operator=(const group &) = delete;

	std::uint32_t size() const noexcept { return sc_group_size(h()); }
	std::size_t bytes() const noexcept { return sc_group_bytes(h()); }

	// Counter i gets 1 or v; std::out_of_range when i >= size() (nothing counted).
	void inc(std::uint32_t i) { add(i, 1); }
	void add(std::uint32_t i, std::uint64_t v)
	{
		if (sc_group_add(h(), i, v) != 0)
			throw std::out_of_range("scounters::group: index past size()");
	}
	// The same; ec = std::errc::invalid_argument instead of the throw
	// (async-signal-safe; errno unchanged).
	void inc(std::uint32_t i, std::error_code &ec) noexcept { add(i, 1, ec); }
	void add(std::uint32_t i, std::uint64_t v, std::error_code &ec) noexcept
	{
		int saved = errno;
		ec = sc_group_add(h(), i, v) == 0 ? std::error_code()
		                                  : std::make_error_code(std::errc::invalid_argument);
		errno = saved;
	}

	// Counter i's reading since the last reset; 0 for i >= size().
	std::uint64_t get(std::uint32_t i) const noexcept { return sc_group_get(h(), i); }

	// Every reading into out[0 .. size()-1]; std::length_error when len < size().
	void get_all(std::uint64_t *out, std::size_t len) const
	{
		if (sc_group_get_all(h(), out, len) != 0)
			throw std::length_error("scounters::group::get_all: output shorter than size()");
	}
	// Every reading, each counter restarting from 0 at it; std::length_error when len < size().
	void read_and_reset(std::uint64_t *out, std::size_t len)
	{
		if (sc_group_read_and_reset(h(), out, len) != 0)
			throw std::length_error("scounters::group::read_and_reset: output shorter than size()");
	}
	std::vector<std::uint64_t> get_all() const
	{
		std::vector<std::uint64_t> v(size());
		get_all(v.data(), v.size());
		return v;
	}
	std::vector<std::uint64_t> read_and_reset()
	{
		std::vector<std::uint64_t> v(size());
		read_and_reset(v.data(), v.size());
		return v;
	}
#if SCOUNTERS_HPP_SPAN
	void get_all(std::span<std::uint64_t> out) const { get_all(out.data(), out.size()); }
	void read_and_reset(std::span<std::uint64_t> out) { read_and_reset(out.data(), out.size()); }
#endif
	// The C handle (nullptr once moved from): for the C functions.
	sc_group *native() const noexcept { return g_; }

private:
	// The handle, asserted present (a moved-from group has none).
	sc_group *h() const noexcept
	{
		assert(g_ != nullptr && "scounters::group used after it was moved from");
		return g_;
	}
	sc_group *g_;
};

} // namespace scounters

#endif // SCOUNTERS_HPP
