/* `pods`: the pods that `check` would probe, with their role. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "kube/pods.h"
#include "report/report.h"

static const char *const help[] = {
	"List the Dynamo worker pods that `check` would probe, with their role.",
	"",
	"Pods are found by the label nvidia.com/dynamo-component-type in (worker,",
	"prefill, decode); -l replaces that selector. Frontend, planner and epp pods",
	"are left out. Pods that are not Running are listed with their phase.",
	"",
	"Examples:",
	"  # Workers in the current namespace",
	"  kubectl dynamo-interconnect pods",
	"",
	"  # Workers of one graph, in every namespace",
	"  kubectl dynamo-interconnect pods -A -l nvidia.com/dynamo-graph-deployment-name=qwen",
	NULL,
};

int cmd_pods(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct pods_query q;
	struct kube_config cfg;
	struct http_client *c;
	struct pod_list l;
	struct err e;
	const char *format;
	int rc, wide;

	rc = cmd_parse_flags(ctx, "pods", NULL, help, argc, argv);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (cmd_output_format(ctx, PODS_OUTPUTS, &format) < 0 ||
	    cmd_connect(ctx, &cfg, &c) < 0)
		return EXIT_ERROR;
	wide = !strcmp(format, "wide");
	cmd_pods_query(ctx, &cfg, &q);
	err_clear(&e);
	rc = pods_list(c, &q, &l, &e);
	if (rc < 0) {
		cmd_disconnect(&cfg, c);
		return cmd_fail(&e);
	}
	if (!strcmp(format, "json") || !strcmp(format, "yaml")) {
		/* An empty list is a document too, as with kubectl get -o json. */
		cJSON *doc = report_pods_json(&l);
		if ((format[0] == 'j' ? report_emit_json(stdout, doc)
				      : report_emit_yaml(stdout, doc)) < 0)
			rc = -1;
		cJSON_Delete(doc);
	} else if (l.n == 0) {
		if (q.all_namespaces)
			fprintf(stderr, "No resources found\n");
		else
			fprintf(stderr, "No resources found in %s namespace.\n", q.namespace);
	} else {
		report_print_pods(stdout, &l, q.all_namespaces, wide, ctx->g.no_headers);
	}
	pod_list_release(&l);
	cmd_disconnect(&cfg, c);
	return cmd_flush_stdout() == 0 && rc == 0 ? 0 : EXIT_ERROR;
}
