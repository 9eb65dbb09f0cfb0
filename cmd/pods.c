/* `pods`: the pods that `check` would probe, with their role. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "kube/api/pods.h"
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

/* The pipeline's body: the list as -o asks, an empty one included. */
static int print_list(struct cmd_ctx *ctx, struct cmd_session *s, void *arg)
{
	const char *format = arg;
	const struct pods_query *q = s->query;
	const struct pod_list *l = s->pods;
	int rc = 0;

	if (!strcmp(format, "json") || !strcmp(format, "yaml")) {
		/* An empty list is a document too, as with kubectl get -o json. */
		cJSON *doc = report_pods_json(l);
		if ((format[0] == 'j' ? report_emit_json(stdout, doc)
				      : report_emit_yaml(stdout, doc)) < 0)
			rc = -1;
		cJSON_Delete(doc);
	} else if (l->n == 0) {
		if (q->all_namespaces)
			fprintf(stderr, "No resources found\n");
		else
			fprintf(stderr, "No resources found in %s namespace.\n", q->namespace);
	} else {
		report_print_pods(stdout, l, q->all_namespaces, !strcmp(format, "wide"),
				  ctx->g.no_headers);
	}
	return cmd_flush_stdout() == 0 && rc == 0 ? 0 : EXIT_ERROR;
}

static int cmd_pods(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct cmd_pipeline p = { .needs = CMD_NEED_LIST, .body = print_list };
	const char *format;
	int rc;

	rc = cmd_start(ctx, &cmd_pods_entry, argc, argv, &format);
	if (rc)
		return rc < 0 ? 0 : rc;
	p.arg = (void *)format;
	return cmd_pipeline_run(ctx, &p);
}

const struct cmd_entry cmd_pods_entry = {
	.name = "pods", .summary = "List the Dynamo worker pods that check would probe",
	.help = help, .outputs = "table,wide,json,yaml", .run = cmd_pods,
};
