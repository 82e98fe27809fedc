/* SPDX-License-Identifier: MIT */
// test_cxx_header.cc - scounters.hpp as a C++ user writes it: the owners
// count, move, refuse (exceptions and error codes) and read as the C
// functions do. Built in make check with -Wall -Wextra -pedantic
// -Wconversion (tests/test_hpp.sh also compiles it with g++ and
// clang++ under C++17 and C++20). TAP; deterministic.
#include <scounters/scounters.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <string>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

static int n_tests, n_failed;
static void ok(bool cond, const char *name)
{
	++n_tests;
	if (!cond)
		++n_failed;
	std::printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, name);
}

// Run f in a child; whether the child died of SIGABRT (an assert).
template <class F> static bool aborts(F f)
{
	std::fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		f();
		_exit(0);
	}
	int st = 0;
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

// The readings, compare, bounds and signed adds of the C handle API.
static void counter_parity()
{
	scounters::counter b("Batched");
	for (int k = 0; k < 1000; k++)
		b.inc();
	ok(b.get_sum() == 1000 && b.get_fast() <= 1000 && b.get() == b.get_fast(),
	   "counter_get_sum_and_get_fast");
	sc_counter_approx a = b.get_approx();
	ok(b.get_precise() == 1000 && a.value == b.get_fast() && a.kind == SC_BOUND_LAG &&
	           a.lo == a.value && a.hi == a.value + b.error_bound().lag,
	   "counter_get_approx_and_get_precise");
	ok(b.compare(1000) == 0 && b.compare(999) == 1 && b.compare(1001) == -1, "counter_compare");
	scounters::counter near("Morris");
	near.add(1000);
	ok(b.compare_sure(1000) == 0 && near.compare_sure(1000) == SC_COMPARE_UNSURE &&
	           near.compare(1000) == 0 && near.compare_sure(0) == 1,
	   "counter_compare_sure");
	sc_counter_bound fast = b.error_bound(), sum = b.error_bound(SC_READ_SUM);
	ok(fast.kind == SC_BOUND_LAG && fast.lag > 0 && sum.kind == SC_BOUND_EXACT,
	   "counter_error_bound_per_reading");
	sc_counter_bound m = scounters::counter("Morris").error_bound(SC_READ_SUM);
	ok(m.kind == SC_BOUND_RSTDV && m.rstdv > 0.0, "counter_error_bound_probabilistic");

	scounters::counter gauge("PerCPU");
	gauge.add(10);
	gauge.add_signed(-3);
	gauge.add_signed(2);
	ok(gauge.get() == 9, "counter_add_signed");
	scounters::counter morris("Morris");
	bool threw = false;
	try {
		morris.add_signed(-1);
	} catch (const std::system_error &e) {
		threw = e.code() == std::errc::not_supported;
	}
	ok(threw, "counter_add_signed_not_supported_throws");
	std::error_code ec;
	errno = 1234;
	morris.add_signed(-1, ec);
	ok(ec == std::errc::not_supported && errno == 1234, "counter_add_signed_error_code_keeps_errno");
	gauge.add_signed(-9, ec);
	ok(!ec && gauge.get() == 0 && errno == 1234, "counter_add_signed_error_code_clear");
}

// A moved-from object stops the program with an assert (debug builds).
static void moved_from()
{
#ifndef NDEBUG
	ok(aborts([] {
		   scounters::counter a("PerCPU");
		   scounters::counter b(std::move(a));
		   a.inc();
	   }),
	   "counter_moved_from_asserts");
	ok(aborts([] {
		   scounters::group a(2);
		   scounters::group b(std::move(a));
		   (void)a.get(0);
	   }),
	   "group_moved_from_asserts");
#else
	ok(true, "counter_moved_from_asserts # SKIP NDEBUG");
	ok(true, "group_moved_from_asserts # SKIP NDEBUG");
#endif
}

int main()
{
	scounters::counter hits("PerCPU");
	for (int k = 0; k < 1000; k++)
		hits.inc();
	hits.add(24);
	ok(hits.get() == 1024, "counter_counts");
	scounters::counter moved(std::move(hits));
	ok(moved.get() == 1024 && moved.read_and_reset() == 1024 && moved.get() == 0,
	   "counter_moves_and_resets");
	bool threw = false;
	try {
		scounters::counter bad("nosuch");
	} catch (const scounters::error &e) {
		threw = std::string(e.what()).find("nosuch") != std::string::npos;
	}
	ok(threw, "counter_unknown_variant_throws");

	scounters::group stats(3);
	stats.inc(0);
	stats.add(2, 5);
	threw = false;
	try {
		stats.inc(3);
	} catch (const std::out_of_range &) {
		threw = true;
	}
	ok(threw && stats.get(0) == 1, "group_index_past_size_throws");
	std::error_code ec;
	errno = 1234;
	stats.inc(7, ec);
	ok(ec == std::errc::invalid_argument, "group_index_past_size_error_code");
	ok(errno == 1234, "group_error_code_keeps_errno");
	stats.inc(1, ec);
	ok(!ec, "group_inc_error_code_clear");
	std::vector<std::uint64_t> v = stats.get_all();
	ok(v.size() == 3 && v[0] == 1 && v[1] == 1 && v[2] == 5, "group_get_all_vector");
	std::uint64_t two[2];
	threw = false;
	try {
		stats.read_and_reset(two, 2);
	} catch (const std::length_error &) {
		threw = true;
	}
	ok(threw && stats.get(2) == 5, "group_short_output_throws_and_resets_nothing");
	scounters::group other = std::move(stats);
	v = other.read_and_reset();
	ok(v[2] == 5 && other.get(2) == 0, "group_moves_and_reads_and_resets");
#if SCOUNTERS_HPP_SPAN
	std::uint64_t three[3];
	other.inc(1);
	other.get_all(std::span<std::uint64_t>(three));
	ok(three[1] == 1, "group_get_all_span");
#endif
	counter_parity();
	moved_from();
	std::printf("1..%d\n", n_tests);
	return n_failed ? 1 : 0;
}
