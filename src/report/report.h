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
#include "kube/api/pods.h"
#include "run/run.h"
#include "verdict/verdict.h"

struct dgd_set;
struct dgd_findings;

/* Borrows the pods of a run (run/run.h) and their verdict: each pod's row
 * is pods[i] (the pod, its results, why it was not probed) with
 * verdict->pod[i]. */
/* Where a report comes from (issue 44 point 8): every field a string,
 * NULL when unknown; cmd/ fills it, the printers only show it. */
struct report_source {
	const char *generated;      /* RFC 3339 UTC, when the run ended */
	const char *version;        /* the plugin's, "0.1.0" */
	const char *probe_sha256;   /* of what probe-script prints */
	const char *context;        /* kubeconfig context, "" none */
	const char *server;         /* API server URL, without credentials */
	const char *namespace;      /* the namespace checked; NULL with -A */
	int all_namespaces;
};

struct report {
	const struct run_pod *pods;
	size_t n;
	const struct verdict *verdict;
	int all_namespaces;
	double duration_s;  /* wall time of the run, for -o prometheus; 0 unknown */
	/* check --dgd: the DGDs read and their findings (checks.md P), in the
	 * JSON/YAML document's dynamoGraphDeployments and as -o prometheus
	 * series (dgd.c); NULL: no DGD part. */
	const struct dgd_set *dgd;
	const struct dgd_findings *dgd_findings;
	/* Why the DGDs were not read, one line (check/dgd.h dgd_access_note),
	 * as the document's dynamoGraphDeploymentsNote; NULL: nothing to say. */
	const char *dgd_note;
	/* check -A with DGDs read: per pod its DGD's "namespace/name" (NULL:
	 * none); the table is then grouped under each DGD, pods of none last. */
	char *const *group;
	const struct report_source *source;   /* NULL: not said */
};

struct report_style {
	int wide;
	int no_headers;
	int color;       /* ANSI colour on status words and cells */
	size_t width;    /* terminal columns the findings wrap at; 0: no wrap */
};

/* The VERDICT cell, one token the way kubectl spells statuses: "Ready",
 * "NotReady", "Unverified" (JSON and YAML keep verdict_name()). */
const char *report_verdict_token(enum verdict_status v);

/* A sink for the run (run/run.h) that prints to out: its notices one per
 * line, and with progress_line (the caller's choice: out is a terminal and
 * the run long enough) the "probing N/M pods" line, redrawn in place and
 * erased at the end.  out is borrowed and must outlive the run. */
void report_sink(struct run_sink *s, FILE *out, int progress_line);

/* The families shown as table columns, in order. */
extern const enum check_family report_columns[];
extern const size_t report_ncolumns;

void report_print_table(FILE *out, const struct report *r,
			const struct report_style *st);
/* check --by-node: one row per node (NODE, PODS, each family's worst
 * status among the node's pods, the worst pod VERDICT), nodes by name. */
void report_print_nodes(FILE *out, const struct report *r,
			const struct report_style *st);
/* Findings worst first, then the consolidated verdict line(s). */
/* check --suggest-env: each pod's suggested variables (check results'
 * suggest) as a container env list to paste; "none" when no finding has
 * one. */
void report_print_suggest_env(FILE *out, const struct report *r);
/* The command that grants the plugin's role to whom a 403 named, into buf:
 * "kubectl dynamo-interconnect rbac --user alice -n team | kubectl apply -f -"
 * (a "system:serviceaccount:NS:NAME" user as --serviceaccount NS:NAME; no
 * user: --user USER; no namespace: -A). */
void report_rbac_command(char *buf, size_t n, const char *user, const char *ns);
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
/* check -o junit: JUnit XML, one testsuite per pod, one testcase per
 * check (junit.c); 0 or -1. */
int report_print_junit(FILE *out, const struct report *r);
/* check -o prometheus: text exposition format, HELP and TYPE per metric
 * (prom.c, docs/report-format.md "Prometheus"); 0 or -1. */
int report_print_prometheus(FILE *out, const struct report *r);
/* check -o html: one self-contained page (html.c); 0 or -1. */
int report_print_html(FILE *out, const struct report *r);

/* One -o format of a report (format.c): document prints the whole report
 * as one document (NULL: a table the command draws); holds_dgd: the
 * document has the DGD part (else it is printed beside it); text: for a
 * terminal, where the text extras (DGD table, drift table) follow; wide:
 * the table's extra columns (report_style.wide). */
struct report_format {
	const char *name;
	int (*document)(FILE *out, const struct report *r);
	int holds_dgd;
	int text;
	int wide;
};
/* The format named name, NULL when there is none. */
const struct report_format *report_format(const char *name);
/* `pods -o json|yaml`: {apiVersion, kind: WorkerPodList, items: [{name,
 * namespace, role, graph, node, nodeIP, podIP, container, image, phase,
 * status, creationTimestamp, probe, skipReason}]} (lists.c); the caller
 * cJSON_Delete()s it.  Pod specs' env and secrets are never in it. */
cJSON *report_pods_json(const struct pod_list *l);
/* `pods`: NAMESPACE (all_ns), POD, ROLE, NODE, CONTAINER, STATUS, AGE,
 * and with wide IP and IMAGE, as kubectl prints a table. */
void report_print_pods(FILE *out, const struct pod_list *l, int all_ns, int wide,
		       int no_headers);
/* report_doc_clean() rewrites, in place, every key and string of a tree
 * for a document (json.c): valid UTF-8 (U+FFFD for each bad byte), control
 * characters spelled visibly (util/safe.h safe_doc()), and a key equal to
 * an earlier one in the same object renamed "KEY#2".  report_emit_json()
 * and report_emit_yaml() clean the tree and print it (JSON indented, with a
 * newline; YAML with every string that YAML 1.1 or 1.2 could read as
 * another type quoted, yaml.c). */
void report_doc_clean(cJSON *doc);
int report_emit_yaml(FILE *out, cJSON *doc);
int report_emit_json(FILE *out, cJSON *doc);

/* One DynamoGraphDeployment and its findings (checks.md P), for `check
 * --dgd`: a header line, then one line per finding of that DGD; cluster
 * text through safe_show(). */
struct dgd_info;
struct dgd_findings;
void report_print_dgd(FILE *out, const struct dgd_info *d, const struct dgd_findings *f);

#endif
