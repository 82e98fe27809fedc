/* SPDX-License-Identifier: MIT */
/*
 * linkage.h - how this scbench was linked: the dynamic build of the source
 * tree, or the fully static one that `make bundle` puts into a bundle
 * (harness/bundle.sh), with what that one could not link. scbench --version
 * and meta.json (build_linkage, bundle) say it. Constant strings: thread-safe,
 * nothing fails.
 */
#ifndef SC_LINKAGE_H
#define SC_LINKAGE_H

/* The bundle's name (scounters-bundle-VERSION-ARCH), or NULL when this
 * scbench is no bundle's. */
const char *linkage_bundle(void);

/* One line: "static; left out: ..." or "dynamic; ...". */
const char *linkage_note(void);

/* What --version adds after the revision: "; NAME, static; left out: ..."
 * for a bundle's scbench, "" otherwise. */
const char *linkage_version(void);

#endif
