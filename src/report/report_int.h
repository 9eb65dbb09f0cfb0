/* Shared between the report's own files (report.c, summary.c, ...); not a
 * public interface. */
#ifndef REPORT_REPORT_INT_H
#define REPORT_REPORT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"

/* SGR colour of a check status (fail red, warn yellow, ok green, skipped
 * dim); NULL for anything else. */
const char *report_status_sgr(int status);
/* word wrapped in the colour of status when color is on, into buf. */
const char *report_paint(const char *word, int status, int color, char *buf, size_t n);
/* Pod i's own verdict (struct verdict.pod; UNVERIFIED when the verdict
 * holds none). */
enum verdict_status report_pod_verdict(const struct report *r, size_t i);
/* The check status whose colour a verdict takes. */
int report_verdict_color(enum verdict_status v);
/* A family's column header ("SPEC" for POD, which heads the name column). */
const char *report_column_name(enum check_family f);
/* The status a family's cell shows for pod p, -1 ("-") when it has no
 * result or the pod was not probed. */
int report_family_status(const struct run_pod *p, enum check_family f);
/* A pod's "model" object: its config.json facts (json_model.c). */
cJSON *report_model_json(const struct check_model *m);
/* A pod's "probe" object: its bytes, wall and CPU ms (json_probe.c). */
cJSON *report_probe_json(const struct run_pod *p);
/* The "nodes" array of the JSON document (nodes.c). */
cJSON *report_nodes_json(const struct report *r);
/* One node of the per-node view: each family's worst status among the
 * node's pods (ok < skipped < warn < fail), the worst pod verdict. */
#define REPORT_MAX_FAMS 16
struct report_node {
	const char *name;               /* borrowed from a pod; "" unknown */
	size_t npods;
	int fam[REPORT_MAX_FAMS];       /* per report_columns[]; -1: none */
	enum verdict_status verdict;
};
/* One per distinct node, by name; *n of them in an array the caller frees. */
struct report_node *report_nodes_collect(const struct report *r, size_t *n);
/* 0 for the TRANSFER column when no node has a transfer result (the
 * table without check --transfer stays as it was). */
int report_node_family_shown(const struct report_node *v, size_t n, size_t f);
/* The compact table's NOT OK cell (brief.c) of the statuses fam[f] (per
 * report_columns[], -1: no result): the families not ok by their -o wide
 * headers, worst first and grouped ("RDMA,UCX fail; GPUDIRECT skipped"),
 * "" when none is, "-" when there is no result at all.  Only the first
 * keep are named, the rest counted ("; +2 more"); keep 0 names none, it
 * counts each status ("1 fail, 2 warn").  Returns how many are not ok. */
#define REPORT_BRIEF_MAX 512
size_t report_brief_cell(const int *fam, size_t nfam, size_t keep, char *out, size_t n);
/* Fits every row's last cell of t (a NOT OK cell; row i's statuses
 * fam[i]) to width columns by naming fewer families, then none; 1 when
 * every row fits, 0 when one is wider even so. */
struct table;
int report_brief_fit(struct table *t, const int (*fam)[REPORT_MAX_FAMS], size_t width,
		     int no_headers);
/* The worst status among fam (fail, warn, skipped), CHECK_OK when none. */
int report_brief_worst(const int *fam, size_t nfam);
/* check --suggest-env's `kubectl patch` line per DGD component whose pods
 * have a suggested value (patch.c); nothing without r->dgd. */
void report_print_suggest_patch(FILE *out, const struct report *r);
/* Is a check's suggestion "--flag=value", an argument of the engine's
 * command line (JSON suggestedArgs), rather than "NAME=value" (env)? */
int report_suggest_is_arg(const char *suggest);
/* A remedy is advice for a problem seen, not for "could not look". */
int report_has_fix(enum check_status s, const char *remedy);
/* Prints lead (lead_w visible columns; it may carry colour), then text,
 * then a newline.  With width > 0, text wraps at spaces so that no line
 * passes width columns, continuation lines indented by indent; a word
 * longer than a line stands alone on its line, never cut. */
void report_wrap(FILE *out, const char *lead, size_t lead_w, const char *text,
		 size_t indent, size_t width);

/* Any cJSON tree as kubectl prints JSON: two-space indent, "key": value,
 * a final newline (json_indent.c); 0 or -1.  Callers outside the report
 * use report_emit_json(), which cleans the tree first (report_doc_clean). */
int report_print_json_doc(FILE *out, const cJSON *doc);
/* The indenting alone, over cJSON's compact text; owned, NULL on overflow. */
char *report_json_indent(const char *compact);
/* The same for a value nested depth levels deep (its lines indented as
 * they would be inside the whole document; no leading indent). */
char *report_json_indent_at(const char *compact, int depth);

/* The document's parts, for the printers that write it pod by pod
 * (stream.c): its head {apiVersion, kind, verdict}, one pod, the nodes;
 * each owned by the caller (cJSON_Delete). */
cJSON *report_json_head(const struct report *r);
cJSON *report_json_pod(const struct report *r, size_t i);

/* libyaml emitting in steps (yaml.c), so a document is written part by
 * part: begin opens the stream, the document and its top mapping; key,
 * value and the sequence calls add to it; end closes all.  0 or -1. */
struct yaml_emitter_s;
struct yaml_emitter_s *report_yaml_begin(FILE *out);
int report_yaml_key(struct yaml_emitter_s *em, const char *key);
/* report_yaml_value() cleans j (report_doc_clean) before writing it. */
int report_yaml_value(struct yaml_emitter_s *em, cJSON *j);
int report_yaml_seq(struct yaml_emitter_s *em, int start);
/* Closes and frees em; rc is what the steps returned, kept when -1. */
int report_yaml_end(struct yaml_emitter_s *em, int rc);

/* -o prometheus (promfmt.c): a label value escaped as the format says, and
 * the "# HELP" / "# TYPE" lines of the metric P "name". */
void report_prom_value(FILE *out, const char *s);
void report_prom_head(FILE *out, const char *name, const char *type, const char *help);
/* Writes the exposition text (len bytes) to out with every series once: a
 * series seen before gets the label duplicate="N" (promfmt.c).  0 or -1. */
int report_prom_unique(FILE *out, const char *text, size_t len);
/* The DGD part (dgd.c; nothing when r->dgd is NULL): the document's
 * dynamoGraphDeployments array (owned by the caller), and its metrics. */
cJSON *report_dgd_json(const struct report *r);
void report_prom_dgd(FILE *out, const struct report *r);

#endif
