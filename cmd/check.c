/* `check`: probe every Dynamo worker pod, judge the fast path, one verdict. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "kube/auth.h"
#include "kube/claims.h"
#include "probe_run.h"
#include "recipe/recipe.h"
#include "report/report.h"
#include "transfer.h"
#include "util/xalloc.h"

static const char *const help[] = {
	"Check that the KV-transfer fast path of a Dynamo deployment can be trusted.",
	"",
	"Finds the Dynamo worker pods (prefill, decode, worker) by label, runs one fixed",
	"read-only probe in each through the API server's exec endpoint (in parallel),",
	"and judges RDMA, GPUDirect RDMA, GDRCopy, NVLink, UCX, NIXL, libfabric/EFA, the",
	"transport environment and the container limits. Prints one row per pod, the",
	"findings worst first, and one verdict:",
	"  READY        every worker has fast-path evidence and no check failed (exit 0)",
	"  NOT READY    a check failed; \"Fix first\" names the most fundamental one (exit 2)",
	"  UNVERIFIED   nothing failed, but the fast path could not be proven (exit 3)",
	"Errors (flags, kubeconfig, API server, no pods) exit 1. Skipped is never a pass.",
	"",
	"It also reads the tail of each probed worker's log (GET pods/log; --logs=false",
	"to skip) and quotes, masked, the line that shows which NIXL backend and UCX/NCCL",
	"transport were chosen or refused (LOGS column). An unreadable or silent log is a",
	"skip that does not lower the verdict.",
	"",
	"--timeout bounds the whole run; Ctrl-C (SIGINT) or SIGTERM stops it early. Either",
	"way no new probe starts, probes in flight end at once, and the report of what",
	"finished is printed: unfinished pods are error rows (\"not finished: interrupted\"),",
	"so the exit code is 2 or 3, never 0. A second Ctrl-C exits at once (no report).",
	"If the pod list itself did not finish, the run is an error (exit 1).",
	"",
	"--transfer (opt-in, NOT read-only) then runs a real ucx_perftest between one",
	"prefill and one decode pod per node pair, with the workers' UCX settings, and",
	"adds a TRANSFER result: fail on TCP or error, ok near the RDMA port rate. It",
	"says what it runs before running it and stops it in both pods afterwards.",
	"",
	"Examples:",
	"  # Check the workers in namespace dynamo",
	"  kubectl dynamo-interconnect check -n dynamo",
	"",
	"  # One graph, JSON for CI",
	"  kubectl dynamo-interconnect check -n dynamo -l nvidia.com/dynamo-graph-deployment-name=qwen -o json",
	NULL,
};

static int parallel;
static const char *probe_timeout;
static const char *run_timeout;
static long run_timeout_ms;   /* --timeout; 0: none */
static const char *recipe_dir;  /* --recipe */
static int read_logs;           /* --logs */
static int log_tail;            /* --log-tail */
static int transfer;            /* --transfer */
static const char *transfer_timeout;
static long transfer_ms;
static int by_node;             /* --by-node */

static const struct opt check_opts[] = {
	{ "parallel", 0, OPT_INT, &parallel, "N", "Pods probed at once (default 32)" },
	{ "probe-timeout", 0, OPT_STRING, &probe_timeout, "DURATION", "Deadline of one pod's probe (default 60s)" },
	{ "timeout", 0, OPT_STRING, &run_timeout, "DURATION", "Deadline of the whole run; report what finished (default: none)" },
	{ "recipe", 0, OPT_STRING, &recipe_dir, "PATH", "Compare each pod's transport env with this recipe (file or directory)" },
	{ "logs", 0, OPT_BOOL, &read_logs, NULL, "Read each worker's log for the transport it chose (LOGS column; default true)" },
	{ "log-tail", 0, OPT_INT, &log_tail, "N", "Lines of each worker's log to read (default 5000)" },
	{ "transfer", 0, OPT_BOOL, &transfer, NULL, "Also run a real ucx_perftest prefill -> decode (not read-only)" },
	{ "by-node", 0, OPT_BOOL, &by_node, NULL, "One row per node: each family's worst status among its pods" },
	{ "transfer-timeout", 0, OPT_STRING, &transfer_timeout, "DURATION", "Time limit of one transfer test (default 60s)" },
	OPT_TABLE_END
};

static int print(const struct cmd_ctx *ctx, const struct report *r, const char *format)
{
	struct report_style st = { 0 };

	if (!strcmp(format, "json"))
		return report_print_json(stdout, r);
	if (!strcmp(format, "yaml"))
		return report_print_yaml(stdout, r);
	if (!strcmp(format, "junit"))
		return report_print_junit(stdout, r);
	if (!strcmp(format, "html"))
		return report_print_html(stdout, r);
	st.wide = !strcmp(format, "wide");
	st.no_headers = ctx->g.no_headers;
	st.color = cmd_use_color(ctx, stdout);
	st.width = cmd_term_width(stdout);
	if (by_node)
		report_print_nodes(stdout, r, &st);
	else
		report_print_table(stdout, r, &st);
	/* --no-headers: the rows and nothing else, for scripts (product.md). */
	if (!st.no_headers)
		report_print_summary(stdout, r, &st);
	return 0;
}

/* Judges, prints, and returns the verdict's exit code. */
static int judge(const struct cmd_ctx *ctx, const struct probe_run *pr,
		 const char *format)
{
	size_t n = pr->pods->n, i;
	struct pod_record *rec = xcalloc(n, sizeof(*rec));
	struct report_pod *rp = xcalloc(n, sizeof(*rp));
	struct verdict v;
	struct report r;
	int rc;

	probe_run_records(pr, rec);
	verdict_compute(rec, n, &v);
	for (i = 0; i < n; i++) {
		rp[i].pod = &pr->pods->items[i];
		rp[i].probed = rec[i].probed;
		rp[i].error = rec[i].error;
		rp[i].results = rec[i].results;
		rp[i].verdict = verdict_pod(&rec[i]);
	}
	r.pods = rp, r.n = n, r.verdict = &v, r.all_namespaces = ctx->g.all_namespaces;
	rc = print(ctx, &r, format) < 0 || cmd_flush_stdout() ? EXIT_ERROR : v.exit_code;
	verdict_release(&v);
	free(rp);
	free(rec);
	return rc;
}

static int probe_options(const struct cmd_ctx *ctx, struct probe_options *o)
{
	struct err e;

	memset(o, 0, sizeof(*o));
	o->parallel = parallel;
	o->progress = 1;
	o->timeout_ms = PROBE_DEFAULT_TIMEOUT_MS;
	err_clear(&e);
	if (probe_timeout && (kubeconfig_parse_timeout(probe_timeout, &o->timeout_ms, &e) < 0 ||
			      o->timeout_ms <= 0)) {
		fprintf(stderr, "error: invalid --probe-timeout \"%s\"\n", probe_timeout);
		return -1;
	}
	if (run_timeout && (kubeconfig_parse_timeout(run_timeout, &run_timeout_ms, &e) < 0 ||
			    run_timeout_ms <= 0)) {
		fprintf(stderr, "error: invalid --timeout \"%s\"\n", run_timeout);
		return -1;
	}
	if (log_tail < 0 || log_tail > 1000000) {
		fprintf(stderr, "error: --log-tail must be between 1 and 1000000\n");
		return -1;
	}
	o->logs = read_logs;
	o->log_tail = log_tail;
	transfer_ms = TRANSFER_DEFAULT_LIMIT_MS;
	if (transfer_timeout && (kubeconfig_parse_timeout(transfer_timeout, &transfer_ms, &e) < 0 ||
				 transfer_ms < 1000 || transfer_ms > 3600000L)) {
		fprintf(stderr, "error: invalid --transfer-timeout \"%s\" (1s to 1h)\n", transfer_timeout);
		return -1;
	}
	if (parallel < 0 || parallel > 512) {
		fprintf(stderr, "error: --parallel must be between 1 and 512\n");
		return -1;
	}
	(void)ctx;
	return 0;
}

static int no_pods(const struct pods_query *q, const struct pod_list *l)
{
	const char *sel = q->selector ? q->selector : PODS_DEFAULT_SELECTOR;

	if (q->all_namespaces)
		fprintf(stderr, "error: no Dynamo worker pods found (selector %s)\n", sel);
	else
		fprintf(stderr, "error: no Dynamo worker pods found in namespace \"%s\" "
			"(selector %s)\n", q->namespace, sel);
	if (l->skipped_components)
		fprintf(stderr, "(%zu frontend/planner/epp pods were left out)\n",
			l->skipped_components);
	return EXIT_ERROR;
}

/* Probes the listed pods, judges (with drift when a recipe is given) and
 * prints; returns the exit code. */
static int probe_and_report(struct cmd_ctx *ctx, struct http_client *c,
			    const struct pod_list *l, const struct probe_options *o,
			    const char *format, const struct recipe_set *recipe)
{
	struct probe_run pr;
	int rc;

	probe_run_init(&pr, l);
	pr.keep_facts = recipe != NULL || transfer;   /* env for drift, tools and IPs for transfer */
	probe_run_pods(&pr, c, o);
	if (transfer && !http_cancelled())
		cmd_transfer_run(c, &pr, transfer_ms);
	if (http_cancelled())
		fprintf(stderr, "warning: %s: the report covers what finished\n",
			http_cancelled());
	if (recipe)
		cmd_env_drift_judge(recipe, recipe_dir, &pr);
	rc = judge(ctx, &pr, format);
	if (recipe && rc != EXIT_ERROR && !ctx->g.no_headers &&
	    (!strcmp(format, "table") || !strcmp(format, "wide")))
		cmd_env_drift_table(recipe, recipe_dir, &pr);
	probe_run_release(&pr);
	return rc;
}

static int run(struct cmd_ctx *ctx, const char *format, const struct probe_options *o,
	       const struct recipe_set *recipe)
{
	struct kube_config cfg;
	struct http_client *c;
	struct pods_query q = { 0 };
	struct pod_list l;
	struct err e;
	int rc;

	cmd_cancel_arm(run_timeout_ms);
	if (cmd_connect(ctx, &cfg, &c) < 0) {
		cmd_cancel_disarm();
		return EXIT_ERROR;
	}
	cmd_pods_query(ctx, &cfg, &q);
	err_clear(&e);
	if (pods_list(c, &q, &l, &e) < 0) {
		cmd_disconnect(&cfg, c);
		cmd_cancel_disarm();
		return cmd_fail(&e);
	}
	if (l.n == 0) {
		rc = no_pods(&q, &l);
	} else {
		/* DRA claims: are they NICs? (pod-rdma-resource) */
		claims_resolve(c, &l);
		rc = probe_and_report(ctx, c, &l, o, format, recipe);
	}
	pod_list_release(&l);
	cmd_disconnect(&cfg, c);
	cmd_cancel_disarm();
	return rc;
}

int cmd_check(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct recipe_set recipe;
	struct probe_options o;
	const char *format;
	int rc;

	parallel = 0;
	probe_timeout = NULL;
	run_timeout = NULL;
	run_timeout_ms = 0;
	recipe_dir = NULL;
	read_logs = 1;
	log_tail = 0;
	transfer = 0;
	transfer_timeout = NULL;
	by_node = 0;
	rc = cmd_parse_flags(ctx, "check", check_opts, help, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (cmd_output_format(ctx, CHECK_OUTPUTS, &format) < 0 ||
	    probe_options(ctx, &o) < 0)
		return EXIT_ERROR;
	if (!recipe_dir)
		return run(ctx, format, &o, NULL);
	/* Read the recipe once, and before any pod is probed. */
	if (cmd_env_drift_load(recipe_dir, &recipe))
		return EXIT_ERROR;
	rc = run(ctx, format, &o, &recipe);
	recipe_set_release(&recipe);
	return rc;
}
