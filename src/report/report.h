/* The InterconnectReport: what `check` (and `node`) print, as a kubectl
 * table with findings and a verdict, or as JSON/YAML (product.md "Output").
 *
 * Formats only: everything it prints is computed before, by the checks and
 * the verdict.  Nothing here allocates what the caller must free except
 * report_json(), whose tree the caller deletes.
 */
#ifndef REPORT_REPORT_H
#define REPORT_REPORT_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "check/check.h"
#include "check/verdict.h"
#include "kube/pods.h"

struct report_pod {
	const struct pod_info *pod;
	int probed;
	const char *error;                   /* why not probed; NULL when probed */
	const struct check_results *results; /* may be NULL when !probed */
	enum verdict_status verdict;
};

struct report {
	const struct report_pod *pods;
	size_t n;
	const struct verdict *verdict;
	int all_namespaces;
};

struct report_style {
	int wide;
	int no_headers;
	int color;       /* ANSI colour on status words */
};

/* The families shown as table columns, in order. */
extern const enum check_family report_columns[];
extern const size_t report_ncolumns;

void report_print_table(FILE *out, const struct report *r,
			const struct report_style *st);
/* Findings worst first, then the consolidated verdict line(s). */
void report_print_summary(FILE *out, const struct report *r,
			  const struct report_style *st);
/* Only the consolidated verdict line(s). */
void report_print_verdict(FILE *out, const struct report *r,
			  const struct report_style *st);
/* One line per check, for `node`. */
void report_print_checks(FILE *out, const struct check_results *res,
			 const struct report_style *st);

/* The document of product.md; the caller cJSON_Delete()s it. */
cJSON *report_json(const struct report *r);
int report_print_json(FILE *out, const struct report *r);
/* The same document through libyaml's emitter. */
int report_print_yaml(FILE *out, const struct report *r);
/* Emits any cJSON tree as YAML (used by other documents too); a value that
 * is not valid UTF-8 is written with U+FFFD for each bad byte. */
int report_emit_yaml(FILE *out, const cJSON *doc);
/* The same rule for JSON: report_valid_utf8() rewrites, in place, every key
 * and string of the tree that is not valid UTF-8; report_emit_json() does
 * that and prints the tree, indented, with a newline. */
void report_valid_utf8(cJSON *doc);
int report_emit_json(FILE *out, cJSON *doc);

#endif
