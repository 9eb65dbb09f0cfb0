/* `pods`: the pods that `check` would probe, with their role. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "util/xalloc.h"
#include "kube/pods.h"
#include "report/report.h"
#include "report/table.h"

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

static struct table *pods_table(const struct pod_list *l, int all_ns, int wide)
{
	static const char *const h[] = { "NAMESPACE", "POD", "ROLE", "NODE", "CONTAINER",
					 "STATUS", "AGE", "IP", "IMAGE" };
	int first = all_ns ? 0 : 1, ncols = (wide ? 9 : 7) - first;
	struct table *t = table_new(ncols, h + first);
	time_t now = time(NULL);
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct pod_info *p = &l->items[i];
		char age[32];
		const char *row[9];
		table_age(p->created, now, age, sizeof(age));
		row[0] = p->namespace, row[1] = p->name, row[2] = p->role;
		row[3] = p->node, row[4] = p->container, row[5] = p->status;
		row[6] = age, row[7] = p->pod_ip, row[8] = p->image;
		table_add_row(t, row + first);
	}
	return t;
}

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
		struct table *t = pods_table(&l, q.all_namespaces, wide);
		table_print(t, stdout, ctx->g.no_headers);
		table_free(t);
	}
	pod_list_release(&l);
	cmd_disconnect(&cfg, c);
	return cmd_flush_stdout() == 0 && rc == 0 ? 0 : EXIT_ERROR;
}
