/* SPDX-License-Identifier: MIT */
/*
 * test_placement_odd.c - thread placement (doc/design.md §5.3) on machines
 * that are no regular box: a CPU-less node attached higher up gets no
 * thread, PUs outside any core count as cores, an irregular XML topology
 * (unequal nodes, a single-thread core, OS numbering unlike the logical
 * one) is spread core by core over the nodes in turn, and a malformed
 * HWLOC_SYNTHETIC is an error, not the real machine.
 */
#include "config.h"

#include "placement.h"
#include "tap.h"

#ifndef HAVE_HWLOC

int main(void)
{
	tap_skip_all("built without hwloc: synthetic topologies need it");
}

#else

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testplace.h"

/* hwloc 2 attaches a CPU-less node higher up, with its parent's cpuset: no thread goes there. */
static void test_spread_skips_node_without_pus(void)
{
	topo *t = load_with("[numa] pack:2 [numa] core:2 pu:2", NULL);
	bool alternates = true, distinct_pus = true;
	uint32_t used = 0;
	if (!tap_ok(t != NULL, "a machine-level memory-only node loads"))
		return;
	for (uint32_t i = 0; i < topo_pus(t); i++) {
		placement_slot s = placement_slot_of(t, PLACE_SPREAD, i);
		alternates &= s.node == i % 2;
		distinct_pus &= !(used & (1u << s.pu_logical));
		used |= 1u << s.pu_logical;
	}
	tap_ok(topo_nodes(t) == 3 && topo_pus(t) == 8, "3 nodes, 8 PUs (got %u, %u)", topo_nodes(t),
	       topo_pus(t));
	tap_ok(alternates, "spread alternates nodes 0 and 1, never the node without PUs");
	tap_ok(distinct_pus, "spread still covers each PU once");
	tap_ok(strstr(topo_describe(t), "(1 without PUs)") != NULL,
	       "describe says one node has no PUs: \"%s\"", topo_describe(t));
	topo_destroy(t);
}

static void test_pus_outside_cores_are_cores(void)
{
	topo *t = load_with("pack:2 [numa] pu:4", NULL);
	bool alternates = true;
	uint32_t pu[8];
	if (!tap_ok(t != NULL, "a machine without Core objects loads"))
		return;
	for (uint32_t i = 0; i < 8; i++) {
		placement_slot s = placement_slot_of(t, PLACE_SPREAD, i);
		pu[i] = (uint32_t)s.pu_logical;
		alternates &= s.node == i % 2;
	}
	tap_ok(topo_cores(t) == 8, "each PU outside a core counts as a core (got %u cores)",
	       topo_cores(t));
	tap_ok(alternates && distinct(pu, 8, 8) == 8,
	       "spread alternates nodes over 8 distinct PUs");
	topo_destroy(t);
}

/*
 * Unequal nodes, a single-thread core, a PU outside any core, a CPU-less node
 * attached to the machine, and OS numbering that differs from the logical one
 * (hyperthread siblings far apart, as on many x86 machines):
 *   node 0: core L#0 = PU P#0,P#5; core L#1 = P#1,P#6; core L#2 = P#2
 *   node 1: core L#3 = PU P#3,P#7; PU P#4 without a core
 *   node 2: no PUs (machine-level, cpuset of the machine)
 */
static const char irregular_xml[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
	"<topology version=\"2.0\">\n"
	"<object type=\"Machine\" os_index=\"0\" cpuset=\"0xff\" complete_cpuset=\"0xff\" "
	"allowed_cpuset=\"0xff\" nodeset=\"0x7\" complete_nodeset=\"0x7\" allowed_nodeset=\"0x7\">\n"
	"<object type=\"NUMANode\" os_index=\"2\" cpuset=\"0xff\" complete_cpuset=\"0xff\" "
	"nodeset=\"0x4\" complete_nodeset=\"0x4\"/>\n"
	"<object type=\"Package\" os_index=\"0\" cpuset=\"0x67\" complete_cpuset=\"0x67\" "
	"nodeset=\"0x1\" complete_nodeset=\"0x1\">\n"
	"<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x67\" complete_cpuset=\"0x67\" "
	"nodeset=\"0x1\" complete_nodeset=\"0x1\"/>\n"
	"<object type=\"Core\" os_index=\"0\" cpuset=\"0x21\" complete_cpuset=\"0x21\" "
	"nodeset=\"0x1\" complete_nodeset=\"0x1\">\n"
	"<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\" complete_cpuset=\"0x1\" nodeset=\"0x1\" "
	"complete_nodeset=\"0x1\"/>\n"
	"<object type=\"PU\" os_index=\"5\" cpuset=\"0x20\" complete_cpuset=\"0x20\" nodeset=\"0x1\" "
	"complete_nodeset=\"0x1\"/>\n"
	"</object>\n"
	"<object type=\"Core\" os_index=\"1\" cpuset=\"0x42\" complete_cpuset=\"0x42\" "
	"nodeset=\"0x1\" complete_nodeset=\"0x1\">\n"
	"<object type=\"PU\" os_index=\"1\" cpuset=\"0x2\" complete_cpuset=\"0x2\" nodeset=\"0x1\" "
	"complete_nodeset=\"0x1\"/>\n"
	"<object type=\"PU\" os_index=\"6\" cpuset=\"0x40\" complete_cpuset=\"0x40\" nodeset=\"0x1\" "
	"complete_nodeset=\"0x1\"/>\n"
	"</object>\n"
	"<object type=\"Core\" os_index=\"2\" cpuset=\"0x4\" complete_cpuset=\"0x4\" "
	"nodeset=\"0x1\" complete_nodeset=\"0x1\">\n"
	"<object type=\"PU\" os_index=\"2\" cpuset=\"0x4\" complete_cpuset=\"0x4\" nodeset=\"0x1\" "
	"complete_nodeset=\"0x1\"/>\n"
	"</object>\n"
	"</object>\n"
	"<object type=\"Package\" os_index=\"1\" cpuset=\"0x98\" complete_cpuset=\"0x98\" "
	"nodeset=\"0x2\" complete_nodeset=\"0x2\">\n"
	"<object type=\"NUMANode\" os_index=\"1\" cpuset=\"0x98\" complete_cpuset=\"0x98\" "
	"nodeset=\"0x2\" complete_nodeset=\"0x2\"/>\n"
	"<object type=\"Core\" os_index=\"3\" cpuset=\"0x88\" complete_cpuset=\"0x88\" "
	"nodeset=\"0x2\" complete_nodeset=\"0x2\">\n"
	"<object type=\"PU\" os_index=\"3\" cpuset=\"0x8\" complete_cpuset=\"0x8\" nodeset=\"0x2\" "
	"complete_nodeset=\"0x2\"/>\n"
	"<object type=\"PU\" os_index=\"7\" cpuset=\"0x80\" complete_cpuset=\"0x80\" nodeset=\"0x2\" "
	"complete_nodeset=\"0x2\"/>\n"
	"</object>\n"
	"<object type=\"PU\" os_index=\"4\" cpuset=\"0x10\" complete_cpuset=\"0x10\" nodeset=\"0x2\" "
	"complete_nodeset=\"0x2\"/>\n"
	"</object>\n"
	"</object>\n"
	"</topology>\n";

static void test_spread_irregular_machine(void)
{
	/* Round robin over nodes of first hardware threads, then of second ones. */
	static const int32_t want_logical[8] = { 0, 5, 2, 7, 4, 1, 6, 3 };
	static const int32_t want_os[8] = { 0, 3, 1, 4, 2, 5, 7, 6 };
	static const uint32_t want_node[8] = { 0, 1, 0, 1, 0, 0, 1, 0 };
	char path[] = "/tmp/test_placement_XXXXXX";
	int fd = mkstemp(path);
	bool map_ok = true;
	topo *t;

	if (!tap_ok(fd >= 0 && write(fd, irregular_xml, sizeof irregular_xml - 1) ==
	                               (ssize_t)(sizeof irregular_xml - 1),
	            "irregular XML written to %s", path)) {
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	t = load_with(NULL, path);
	unlink(path);
	unsetenv("HWLOC_XMLFILE");
	if (!tap_ok(t != NULL, "irregular XML topology loads"))
		return;
	tap_ok(topo_pus(t) == 8 && topo_cores(t) == 5 && topo_nodes(t) == 3,
	       "irregular: 3 nodes, 5 cores (one a lone PU), 8 PUs (got %u, %u, %u)", topo_nodes(t),
	       topo_cores(t), topo_pus(t));
	tap_ok(!topo_can_bind(t), "irregular: an XML topology cannot bind");
	for (uint32_t i = 0; i < 8; i++) {
		placement_slot s = placement_slot_of(t, PLACE_SPREAD, i);
		map_ok &= s.pu_logical == want_logical[i] && s.pu_os == want_os[i] &&
		          s.node == want_node[i];
	}
	diag_spread_map("irregular", t, 8);
	tap_ok(map_ok, "irregular: spread fills every core's first thread, nodes in turn, "
	               "then second threads (L# 0 5 2 7 4 1 6 3)");
	tap_ok(placement_slot_of(t, PLACE_COMPACT, 1).pu_os == 5,
	       "irregular: compact thread 1 is PU L#1, OS index 5");
	topo_destroy(t);
}

static void test_rejects_malformed_synthetic(void)
{
	topo *t = NULL;
	sc_err err = { { 0 } };
	unsetenv("HWLOC_XMLFILE");
	setenv("HWLOC_SYNTHETIC", "pack:4 bogus:x", 1);
	tap_ok(topo_load(&t, &err) < 0 && t == NULL && strstr(err.msg, "HWLOC_SYNTHETIC"),
	       "a malformed HWLOC_SYNTHETIC is an error, not a silent real machine (\"%s\")",
	       err.msg);
	topo_destroy(t);
	unsetenv("HWLOC_SYNTHETIC");
}

int main(void)
{
	tap_plan_lazy();
	test_spread_skips_node_without_pus();
	test_pus_outside_cores_are_cores();
	test_spread_irregular_machine();
	test_rejects_malformed_synthetic();
	return tap_done();
}

#endif /* HAVE_HWLOC */
