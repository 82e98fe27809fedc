/* SPDX-License-Identifier: MIT */
/*
 * linkage.c - how this scbench was linked (linkage.h). Compiled twice: into
 * harness/scbench as it is, and into the bundle's harness/scbench-static with
 * SC_STATIC_BUNDLE defined (Makefile.am), whose left-out list configure
 * wrote (m4/sc_bundle.m4).
 */
#include "config.h"

#include "linkage.h"

#include <stddef.h>

#ifdef SC_STATIC_BUNDLE
const char *linkage_bundle(void)
{
	return SC_BUNDLE_NAME;
}

const char *linkage_note(void)
{
	return "static; left out: " SC_BUNDLE_LEFT_OUT;
}

const char *linkage_version(void)
{
	return "; " SC_BUNDLE_NAME ", static; left out: " SC_BUNDLE_LEFT_OUT;
}
#else
const char *linkage_bundle(void)
{
	return NULL;
}

const char *linkage_note(void)
{
	return "dynamic; the C library, hwloc and PAPI of the machine it runs on";
}

const char *linkage_version(void)
{
	return "";
}
#endif
