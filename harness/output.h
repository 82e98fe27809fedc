/*
 * output.h - the CSV of SPEC §5.4 and its FILE.meta.json sidecar. Files are
 * written under a temporary name in the same directory and renamed into
 * place only when complete; on any failure, or an interrupt, the temporary
 * files are removed and nothing else is touched.
 */
#ifndef SC_OUTPUT_H
#define SC_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "run.h"

typedef struct out_file {
	FILE *f;
	char *path;     /* final name, NULL for standard output */
	char *tmp_path; /* where it is written until committed */
} out_file;

/* Open path (NULL: standard output) for writing under a temporary name. */
int out_open(out_file *o, const char *path, sc_err *err);
/* Flush, close and rename into place. */
int out_commit(out_file *o, sc_err *err);
/* Remove the temporary file, if any. */
void out_abort(out_file *o);

/* The required columns of SPEC §5.4, in order. */
extern const char *const out_csv_columns[];

void out_csv_header(FILE *f, const run_setup *s);
void out_csv_row(FILE *f, const run_setup *s, const sc_variant *v, uint32_t threads,
                 unsigned run, const run_result *r);

/*
 * The --latency sidecar FILE.latency.csv: a header, then one row per
 * non-empty bucket of a run's merged histogram, bounds in ns (after the
 * tick-read overhead is subtracted, as for the lat_* columns), half-open
 * [bucket_low_ns, bucket_high_ns); increments that took no more than the
 * overhead form one row with both bounds 0.
 */
extern const char out_latency_header[];
void out_latency_rows(FILE *f, const sc_variant *v, uint32_t threads, unsigned run,
                      const run_result *r);

/* Append a JSON string literal (quoted, escaped). */
void out_json_string(FILE *f, const char *s);

#endif /* SC_OUTPUT_H */
