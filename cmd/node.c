/* `node`: the checks of one pod (--pod), or of the machine we run on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/known.h"
#include "cmd.h"
#include "kube/api/pods.h"
#include "run/run.h"
#include "run/session.h"
#include "report/report.h"
#include "verdict/verdict.h"

static const char *const help[] = {
	"Run the interconnect checks for one pod, or for this machine.",
	"",
	"With --pod, the probe runs in that pod through the API server (any pod, Dynamo",
	"labels or not). Without it, the same probe runs here, e.g. on a GPU node or",
	"inside a worker container. One line per check; exit codes as for check.",
	"",
	"Examples:",
	"  # One worker pod",
	"  kubectl dynamo-interconnect node --pod qwen-decode-0 -n dynamo",
	"",
	"  # This machine",
	"  kubectl-dynamo_interconnect node",
	NULL,
};

/* Prints one pod's report in the chosen format; returns its exit code. */
static int print_one(const struct cmd_ctx *ctx, const struct report *r, const char *format)
{
	struct report_style st = { 0 };
	int rc = 0;

	st.no_headers = ctx->g.no_headers;
	st.color = cmd_use_color(ctx, stdout);
	st.width = cmd_term_width(stdout);
	if (!cmd_print_document(format, r, &rc)) {
		report_print_checks(stdout, &r->pods[0].results, &st);
		report_print_verdict(stdout, r, &st);
	}
	return rc < 0 || cmd_flush_stdout() ? EXIT_ERROR : r->verdict->exit_code;
}

static int run_here(struct cmd_ctx *ctx, const char *format, const struct known_table *known)
{
	struct pod_list l;
	struct run pr;
	struct verdict v;
	struct report r = { 0 };
	struct err e;
	int rc;

	err_clear(&e);
	if (run_local(&pr, &l, known, &e) < 0) {
		rc = cmd_fail(&e);
	} else {
		verdict_compute(pr.pod, pr.pods->n, &v);
		r.pods = pr.pod, r.n = pr.pods->n, r.verdict = &v;
		rc = print_one(ctx, &r, format);
		verdict_release(&v);
	}
	run_release(&pr);
	pod_list_release(&l);
	return rc;
}

/* What `node --pod` hands its pipeline: the pod and the session's plan
 * (--known-issues rides it, as check's does). */
struct node_run {
	const char *pod;
	struct run_plan plan;
};

/* The named pod alone, any component, in the context's namespace. */
static void one_pod(const struct cmd_ctx *ctx, struct pods_query *q, void *arg)
{
	const struct node_run *nr = arg;

	(void)ctx;
	q->name = nr->pod;
	q->any_component = 1;
	q->all_namespaces = 0;
	q->selector = NULL;
	q->page_size = 0;
}

static const char *pod_name;   /* --pod */
static const char *known_file;   /* --known-issues */
static const char *node_format;   /* -o */

static int not_found(const struct cmd_ctx *ctx, const struct cmd_session *s, void *arg)
{
	(void)ctx, (void)s;
	fprintf(stderr, "Error from server (NotFound): pods \"%s\" not found\n",
		((const struct node_run *)arg)->pod);
	return EXIT_ERROR;
}

/* The session on the one pod it lists: probe, verdict. */
static int probe_pod(struct cmd_ctx *ctx, struct cmd_session *cs, void *arg)
{
	struct node_run *nr = arg;
	struct pods_query q;
	struct run_session s;
	int rc;

	cmd_cancel_arm(0);   /* Ctrl-C: the pod's row says "interrupted" */
	rc = cmd_run_session(ctx, cs, &q, &nr->plan, &s);
	cmd_cancel_disarm();
	if (!rc)
		rc = print_one(ctx, &s.report, node_format);
	run_session_release(&s);
	return rc;
}

static const struct opt node_opts[] = {
	{ "pod", 0, OPT_STRING, &pod_name, "POD", "Probe this pod instead of the local machine", 0, 0 },
	{ "known-issues", 0, OPT_STRING, &known_file, "FILE", "Add or override known-issues rows by id from this file (docs/known-issues.md)", 0, 0 },
	OPT_TABLE_END
};

static int cmd_node(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_pipeline p = {
		.needs = CMD_NEED_CLAIMS,
		.shape = one_pod,
		.empty = not_found,
		.body = probe_pod,
	};
	/* A named pod's log is evidence too (LOGS), as in check. */
	struct node_run nr = {
		.plan.probe = { .parallel = 1, .timeout_ms = RUN_PROBE_TIMEOUT_MS, .logs = 1 },
	};
	struct known_table known;
	int rc;

	pod_name = NULL;
	known_file = NULL;
	rc = cmd_start(ctx, &cmd_node_entry, argc, argv, &node_format);
	if (rc)
		return rc < 0 ? 0 : rc;
	/* read before the probe or any cluster request */
	if (known_file && cmd_known_load(known_file, &known))
		return EXIT_ERROR;
	nr.pod = pod_name;
	nr.plan.known = known_file ? &known : NULL;
	p.arg = &nr;
	rc = pod_name ? cmd_pipeline_run(ctx, &p) : run_here(ctx, node_format, nr.plan.known);
	if (known_file)
		known_table_release(&known);
	return rc;
}

const struct cmd_entry cmd_node_entry = {
	.name = "node", .summary = "Run the checks for one pod, or for this machine",
	.help = help, .opts = node_opts, .outputs = "table,json,yaml", .run = cmd_node, .globals = cmd_globals_one_pod,
};
