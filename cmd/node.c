/* `node`: the checks of one pod (--pod), or of the machine we run on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "kube/claims.h"
#include "run/run.h"
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
static int print_one(const struct cmd_ctx *ctx, const struct run *pr,
		     const char *format)
{
	struct verdict v;
	struct report r = { 0 };
	struct report_style st = { 0 };
	int rc = 0;

	verdict_compute(pr->pod, pr->pods->n, &v);
	r.pods = pr->pod, r.n = pr->pods->n, r.verdict = &v;
	st.no_headers = ctx->g.no_headers;
	st.color = cmd_use_color(ctx, stdout);
	if (!strcmp(format, "json"))
		rc = report_print_json(stdout, &r);
	else if (!strcmp(format, "yaml"))
		rc = report_print_yaml(stdout, &r);
	else {
		report_print_checks(stdout, &pr->pod[0].results, &st);
		report_print_verdict(stdout, &r, &st);
	}
	rc = rc < 0 || cmd_flush_stdout() ? EXIT_ERROR : v.exit_code;
	verdict_release(&v);
	return rc;
}

static int run_here(struct cmd_ctx *ctx, const char *format)
{
	struct pod_list l;
	struct run pr;
	struct err e;
	int rc;

	err_clear(&e);
	rc = run_local(&pr, &l, &e) < 0 ? cmd_fail(&e) : print_one(ctx, &pr, format);
	run_release(&pr);
	pod_list_release(&l);
	return rc;
}

static int run_pod(struct cmd_ctx *ctx, const char *pod_name, const char *format)
{
	struct kube_config cfg;
	struct http_client *c;
	struct pods_query q = { 0 };
	/* A named pod's log is evidence too (LOGS), as in check. */
	struct run_options o = { .parallel = 1, .timeout_ms = RUN_PROBE_TIMEOUT_MS,
				   .logs = 1 };
	struct pod_list l;
	struct run pr;
	struct err e;
	int rc;

	if (cmd_connect(ctx, &cfg, &c) < 0)
		return EXIT_ERROR;
	q.namespace = cfg.namespace;
	q.name = pod_name;
	q.any_component = 1;
	q.container = ctx->g.container;
	err_clear(&e);
	if (pods_list(c, &q, &l, &e) < 0) {
		cmd_disconnect(&cfg, c);
		return cmd_fail(&e);
	}
	if (l.n == 0) {
		fprintf(stderr, "Error from server (NotFound): pods \"%s\" not found\n", pod_name);
		rc = EXIT_ERROR;
	} else {
		claims_resolve(c, &l);   /* DRA claims: NICs? (pod-rdma-resource) */
		run_init(&pr, &l);
		cmd_cancel_arm(0);   /* Ctrl-C: the pod's row says "interrupted" */
		run_pods(&pr, c, &o);
		cmd_cancel_disarm();
		rc = print_one(ctx, &pr, format);
		run_release(&pr);
	}
	pod_list_release(&l);
	cmd_disconnect(&cfg, c);
	return rc;
}

int cmd_node(struct cmd_ctx *ctx, int argc, char **argv)
{
	const char *pod_name = NULL, *format;
	const struct opt node_opts[] = {
		{ "pod", 0, OPT_STRING, &pod_name, "POD", "Probe this pod instead of the local machine", 0, 0 },
		OPT_TABLE_END
	};
	int rc;

	rc = cmd_parse_flags(ctx, "node", node_opts, help, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (cmd_output_format(ctx, NODE_OUTPUTS, &format) < 0)
		return EXIT_ERROR;
	return pod_name ? run_pod(ctx, pod_name, format) : run_here(ctx, format);
}
