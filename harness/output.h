/* SPDX-License-Identifier: MIT */
/*
 * output.h - where the CSV and its sidecars (FILE.meta.json, FILE.latency.csv)
 * go (doc/design.md §8, §10):
 *
 *   "-"                      standard output; no sidecar.
 *   a regular file, or a     written under a temporary name in the directory
 *   path that does not       of the final file and renamed into place when
 *   exist yet                complete. A symlink is followed to its target,
 *                            which is what gets replaced (or created).
 *   any other existing file  (a FIFO, a character device) opened and written
 *                            directly, never replaced, truncated or unlinked;
 *                            a FIFO's sidecar goes next to its resolved path
 *                            when that directory is writable, else a warning;
 *                            a device has none (a warning): its directory is
 *                            the system's (/dev/null.meta.json, as root).
 *
 * On any failure or interrupt, temporary files are removed and nothing else
 * is touched; a write error (ENOSPC, EPIPE, EIO, EFBIG) is a runtime failure.
 */
#ifndef SC_OUTPUT_H
#define SC_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <sched.h>

#include <scounters/sc_common.h>

typedef enum out_kind {
	OUT_STDOUT = 0, /* "-" (or no --output): standard output */
	OUT_REPLACE,    /* regular or new file: temporary file, then rename */
	OUT_DIRECT,     /* existing FIFO or device: written in place */
} out_kind;

typedef struct out_file {
	FILE *f;
	out_kind kind;
	char *path;      /* where the data lands (symlinks followed for OUT_REPLACE) */
	char *tmp_path;  /* OUT_REPLACE: where it is written until committed */
	char *shown;     /* the name used in messages: the path as given */
} out_file;

/*
 * Classify the output path given on the command line (NULL or "-": standard
 * output) without creating anything. 0 with *kind set, or -1 with why set to
 * a usage-error explanation (a missing or unwritable directory, a directory,
 * a socket, an unwritable FIFO or device).
 */
int out_check(const char *path, out_kind *kind, char *why, size_t whylen);
/*
 * Can the sidecar PATH followed by ext (".meta.json", ".latency.csv") be
 * written when the runs are done? Checked before any run: 0, or -1 with why
 * set (it is a directory; its temporary file's name is too long).
 */
int out_check_sidecar(const char *path, const char *ext, char *why, size_t whylen);

/*
 * Open path for writing as out_check classifies it. 0, or -1 with err set;
 * when the open of a FIFO is interrupted by a signal, -1 with errno EINTR.
 */
int out_open(out_file *o, const char *path, sc_err *err);

/*
 * Remove the temporaries of path (PATH.tmp.XXXXXX) that a writer killed
 * before it could remove them left (output_stale.c says how a live one is
 * told apart). The number removed; never fails (what cannot be read is
 * left). out_open calls it.
 */
unsigned out_remove_stale(const char *path);
/*
 * After each CSV row: streams (standard output, FIFOs, devices) are flushed
 * so a reader sees whole rows as they complete. 0, or -1 with err set when a
 * write failed (the run must stop: a runtime failure).
 */
int out_row_done(out_file *o, sc_err *err);
/*
 * Flush and close (fsync a regular file); 0, or -1 with err set and the
 * temporary file removed. Then out_publish renames it into place, so that a
 * CSV and its sidecar are both complete before either replaces anything.
 */
int out_finish(out_file *o, sc_err *err);
int out_publish(out_file *o, sc_err *err);
/* out_finish, then out_publish. */
int out_commit(out_file *o, sc_err *err);
/* Remove the temporary file, if any; close what is open. */
void out_abort(out_file *o);

/*
 * Where a sidecar of o goes: PATH followed by ext (".meta.json",
 * ".latency.csv") next to the file the data lands in, malloc'd; or NULL
 * (standard output; a device; a FIFO whose directory is not writable or
 * whose path cannot be resolved: then why says so).
 */
char *out_sidecar_path(const out_file *o, const char *ext, char *why, size_t whylen);

/*
 * A CPU (or node) id set as ranges, "0-3 8" with sep ' ' (",": "0-3,8");
 * when size is too small the list ends in "..." (OUT_SET_TEXT is enough for
 * any set of up to 1024 ids that form at most 180 ranges). Returns buf.
 */
#define OUT_SET_TEXT 2048
const char *out_set_text(const cpu_set_t *set, char sep, char *buf, size_t size);

#endif /* SC_OUTPUT_H */
