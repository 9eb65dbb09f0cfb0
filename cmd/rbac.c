/* `rbac`: the Role (or ClusterRole) the plugin needs and a binding for one
 * user, group or service account, to pipe into `kubectl apply -f -`.
 * Nothing is sent: it prints kube/api/rbac.h's table. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "kube/api/rbac.h"
#include "report/report.h"

static const char *const help[] = {
	"Print the Role the plugin needs, and a RoleBinding for one subject, as YAML to apply.",
	"",
	"The rules grant exactly what the plugin requests, and nothing that changes a pod:",
	"  pods get,list; pods/log get; pods/exec get,create (the fixed probe: see",
	"  probe-script); resourceclaims get,list (resource.k8s.io); dynamographdeployments",
	"  get,list (nvidia.com); with -A, a ClusterRole and ClusterRoleBinding that also",
	"  list namespaces (completion of -n). Without -n the namespace is the one kubectl",
	"  apply uses. Without a subject, only the role is printed.",
	"",
	"Examples:",
	"  # Let alice run check in namespace team",
	"  kubectl dynamo-interconnect rbac --user alice -n team | kubectl apply -f -",
	"",
	"  # The CronJob's service account, in every namespace (check -A)",
	"  kubectl dynamo-interconnect rbac --serviceaccount dynamo-interconnect:checker -A | kubectl apply -f -",
	NULL,
};

/* This run's flags: rbac_opts points into it; cmd_rbac resets it. */
static struct {
	const char *user, *group, *serviceaccount;
} F;

static const struct opt rbac_opts[] = {
	{ "user", 0, OPT_STRING, &F.user, "NAME", "Bind the role to this user", 0, 0 },
	{ "group", 0, OPT_STRING, &F.group, "NAME", "Bind the role to this group", 0, 0 },
	{ "serviceaccount", 0, OPT_STRING, &F.serviceaccount, "NS:NAME", "Bind the role to this service account", 0, 0 },
	OPT_TABLE_END
};

static const char *const rbac_globals[] = { "namespace", "all-namespaces", "output", "help", NULL };

/* The subject the flags name; -1 after an error when more than one. */
static int subject_of(struct rbac_request *r)
{
	int n = (F.user != NULL) + (F.group != NULL) + (F.serviceaccount != NULL);

	if (n > 1) {
		fprintf(stderr, "error: only one of --user, --group or --serviceaccount may be given\n");
		return -1;
	}
	r->kind = F.user ? RBAC_USER : F.group ? RBAC_GROUP : F.serviceaccount ? RBAC_SERVICEACCOUNT : RBAC_NONE;
	r->subject = F.user ? F.user : F.group ? F.group : F.serviceaccount;
	return 0;
}

/* YAML: the documents apart by "---"; JSON: a v1 List, as kubectl prints. */
static int emit(cJSON *docs, const char *format)
{
	cJSON *d;
	int rc = 0;

	if (!strcmp(format, "json")) {
		cJSON *list = cJSON_CreateObject();

		cJSON_AddStringToObject(list, "apiVersion", "v1");
		cJSON_AddStringToObject(list, "kind", "List");
		cJSON_AddItemReferenceToObject(list, "items", docs);
		rc = report_emit_json(stdout, list);
		cJSON_Delete(list);
		return rc;
	}
	cJSON_ArrayForEach(d, docs) {
		if (d != docs->child)
			fputs("---\n", stdout);
		if (report_emit_yaml(stdout, d) < 0)
			rc = -1;
	}
	return rc;
}

static int cmd_rbac(struct cmd_ctx *ctx, int argc, char **argv)
{
	struct rbac_request r = { 0 };
	const char *format;
	struct err e;
	cJSON *docs;
	int rc;

	memset(&F, 0, sizeof(F));
	rc = cmd_start(ctx, &cmd_rbac_entry, argc, argv, &format);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (ctx->g.all_namespaces && ctx->g.ov.namespace) {
		fprintf(stderr, "error: -n and -A cannot be used together\n");
		return EXIT_ERROR;
	}
	if (subject_of(&r) < 0)
		return EXIT_ERROR;
	r.namespace = ctx->g.ov.namespace;
	r.cluster_wide = ctx->g.all_namespaces;
	err_clear(&e);
	docs = rbac_documents(&r, &e);
	if (!docs)
		return cmd_fail(&e);
	rc = emit(docs, format) < 0 || cmd_flush_stdout() ? EXIT_ERROR : 0;
	cJSON_Delete(docs);
	return rc;
}

const struct cmd_entry cmd_rbac_entry = {
	.name = "rbac", .summary = "Print the Role and binding the plugin needs (for kubectl apply)",
	.help = help, .opts = rbac_opts, .outputs = "yaml,json", .default_output = "yaml",
	.globals = rbac_globals, .run = cmd_rbac,
};
