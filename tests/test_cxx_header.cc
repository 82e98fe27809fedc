/* SPDX-License-Identifier: MIT */
// test_cxx_header.cc - scounters.hpp as a C++ user writes it: the owners
// count, move, refuse (exceptions and error codes) and read as the C
// functions do. Built in make check with -Wall -Wextra -pedantic
// -Wconversion (tests/test_hpp.sh also compiles it with g++ and
// clang++ under C++17 and C++20). TAP; deterministic.
#include <scounters/scounters.hpp>

#include <cstdio>
#include <string>
#include <stdexcept>
#include <vector>

static int n_tests, n_failed;
static void ok(bool cond, const char *name)
{
	++n_tests;
	if (!cond)
		++n_failed;
	std::printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, name);
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
	stats.inc(7, ec);
	ok(ec == std::errc::invalid_argument, "group_index_past_size_error_code");
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
	std::printf("1..%d\n", n_tests);
	return n_failed ? 1 : 0;
}
