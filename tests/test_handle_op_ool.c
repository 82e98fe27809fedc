/* SPDX-License-Identifier: MIT */
/*
 * test_handle_op_ool.c - for test_handle_op: sc_counter_inc as a program
 * built with SC_COUNTER_NO_INLINE calls it (the library's out-of-line one).
 */
#define SC_COUNTER_NO_INLINE
#include <scounters/scounters.h>

void ool_inc(sc_counter *c);

void ool_inc(sc_counter *c)
{
	sc_counter_inc(c);
}
