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
 * moved-from object may only be destroyed or assigned to.
 */
#ifndef SCOUNTERS_HPP
#define SCOUNTERS_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "scounters.hpp needs C++17 or later (C programs include scounters.h)"
#endif

#include <scounters/scounters.h>

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

	void inc() noexcept { sc_counter_inc(c_); }
	void add(std::uint64_t n) noexcept { sc_counter_add(c_, n); }
	std::uint64_t get() const noexcept { return sc_counter_get(c_); }
	std::uint64_t read_and_reset() noexcept { return sc_counter_read_and_reset(c_); }
	void flush() noexcept { sc_counter_flush(c_); }
	const char *variant() const noexcept { return sc_counter_variant(c_); }
	sc_counter *native() const noexcept { return c_; }

private:
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

	std::uint32_t size() const noexcept { return sc_group_size(g_); }
	std::size_t bytes() const noexcept { return sc_group_bytes(g_); }

	// Counter i gets 1 or v; std::out_of_range when i >= size() (nothing counted).
	void inc(std::uint32_t i) { add(i, 1); }
	void add(std::uint32_t i, std::uint64_t v)
	{
		if (sc_group_add(g_, i, v) != 0)
			throw std::out_of_range("scounters::group: index past size()");
	}
	// The same; ec = std::errc::invalid_argument instead of the throw (async-signal-safe).
	void inc(std::uint32_t i, std::error_code &ec) noexcept { add(i, 1, ec); }
	void add(std::uint32_t i, std::uint64_t v, std::error_code &ec) noexcept
	{
		ec = sc_group_add(g_, i, v) == 0 ? std::error_code()
		                                 : std::make_error_code(std::errc::invalid_argument);
	}

	// Counter i's reading since the last reset; 0 for i >= size().
	std::uint64_t get(std::uint32_t i) const noexcept { return sc_group_get(g_, i); }

	// Every reading into out[0 .. size()-1]; std::length_error when len < size().
	void get_all(std::uint64_t *out, std::size_t len) const
	{
		if (sc_group_get_all(g_, out, len) != 0)
			throw std::length_error("scounters::group::get_all: output shorter than size()");
	}
	// Every reading, each counter restarting from 0 at it; std::length_error when len < size().
	void read_and_reset(std::uint64_t *out, std::size_t len)
	{
		if (sc_group_read_and_reset(g_, out, len) != 0)
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
	sc_group *native() const noexcept { return g_; }

private:
	sc_group *g_;
};

} // namespace scounters

#endif // SCOUNTERS_HPP
