#include "rbac.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#define ROLE_NAME "dynamo-interconnect"
#define RBAC_GROUP_NAME "rbac.authorization.k8s.io"
#define NAME_MAX_LEN 253     /* a DNS subdomain (apimachinery IsDNS1123Subdomain) */

const struct rbac_rule rbac_rules[] = {
	{ "", "pods", "get,list", 0,
	  "find the worker pods by label (list), one pod for node --pod and completion (get)" },
	{ "", "pods/log", "get", 0,
	  "read the tail of each worker's log for the transport it chose (LOGS; --logs=false skips it)" },
	{ "", "pods/exec", "get,create", 0,
	  "run the fixed read-only probe (probe-script) with `sh -s`; a WebSocket exec is a GET, "
	  "API servers from v1.35 also check create" },
	{ "resource.k8s.io", "resourceclaims", "get,list", 0,
	  "see whether a worker's DRA claims hold NICs (pod-rdma-resource); without it that check is skipped" },
	{ "nvidia.com", "dynamographdeployments", "get,list", 0,
	  "compare the pods with their DynamoGraphDeployment (check --dgd, DGD findings); "
	  "without it pods are matched by label, with a note" },
	{ "", "namespaces", "list", 1,
	  "shell completion of -n only" },
	{ NULL, NULL, NULL, 0, NULL },
};

static cJSON *strings(const char *csv)
{
	cJSON *a = cJSON_CreateArray();
	char one[64];

	while (*csv) {
		size_t n = strcspn(csv, ",");

		snprintf(one, sizeof(one), "%.*s", (int)n, csv);
		cJSON_AddItemToArray(a, cJSON_CreateString(one));
		csv += n + (csv[n] == ',');
	}
	return a;
}

static cJSON *meta(const char *name, const struct rbac_request *r)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "name", name);
	if (!r->cluster_wide && r->namespace)
		cJSON_AddStringToObject(m, "namespace", r->namespace);
	return m;
}

static cJSON *role(const struct rbac_request *r)
{
	cJSON *doc = cJSON_CreateObject(), *rules = cJSON_CreateArray();

	cJSON_AddStringToObject(doc, "apiVersion", RBAC_GROUP_NAME "/v1");
	cJSON_AddStringToObject(doc, "kind", r->cluster_wide ? "ClusterRole" : "Role");
	cJSON_AddItemToObject(doc, "metadata", meta(ROLE_NAME, r));
	for (const struct rbac_rule *x = rbac_rules; x->resource; x++) {
		cJSON *rule;

		if (x->cluster_only && !r->cluster_wide)
			continue;
		rule = cJSON_CreateObject();
		cJSON_AddItemToObject(rule, "apiGroups", cJSON_CreateStringArray(&x->group, 1));
		cJSON_AddItemToObject(rule, "resources", strings(x->resource));
		cJSON_AddItemToObject(rule, "verbs", strings(x->verbs));
		cJSON_AddItemToArray(rules, rule);
	}
	cJSON_AddItemToObject(doc, "rules", rules);
	return doc;
}

/* The subject as RBAC spells it (rbac/v1 Subject: User and Group carry
 * apiGroup, a ServiceAccount its namespace); NULL with e set. */
static cJSON *subject(const struct rbac_request *r, struct err *e)
{
	static const char *const kinds[] = { "", "User", "Group", "ServiceAccount" };
	cJSON *s;
	const char *colon = strchr(r->subject, ':');

	if (!*r->subject)
		return err_set(e, ERR_USAGE, "the subject's name is empty"), NULL;
	if (r->kind == RBAC_SERVICEACCOUNT && (!colon || colon == r->subject || !colon[1]))
		return err_set(e, ERR_USAGE, "--serviceaccount must be NAMESPACE:NAME, got \"%s\"",
			       r->subject), NULL;
	s = cJSON_CreateObject();
	if (r->kind != RBAC_SERVICEACCOUNT)
		cJSON_AddStringToObject(s, "apiGroup", RBAC_GROUP_NAME);
	cJSON_AddStringToObject(s, "kind", kinds[r->kind]);
	if (r->kind == RBAC_SERVICEACCOUNT) {
		char ns[NAME_MAX_LEN + 1];

		snprintf(ns, sizeof(ns), "%.*s", (int)(colon - r->subject), r->subject);
		cJSON_AddStringToObject(s, "name", colon + 1);
		cJSON_AddStringToObject(s, "namespace", ns);
	} else {
		cJSON_AddStringToObject(s, "name", r->subject);
	}
	return s;
}

/* "dynamo-interconnect-user-alice": one binding per subject, so binding a
 * second one adds to the first instead of replacing it; characters a name
 * cannot hold ("alice@example.com", "ops:runner") become '-'. */
static void binding_name(const struct rbac_request *r, char *out, size_t n)
{
	static const char *const tag[] = { "", "user", "group", "sa" };
	size_t k = (size_t)snprintf(out, n, ROLE_NAME "-%s-", tag[r->kind]);

	for (const char *c = r->subject; *c && k + 1 < n && k < NAME_MAX_LEN; c++) {
		int ok = isalnum((unsigned char)*c) || *c == '-' || *c == '.';

		out[k++] = ok ? (char)tolower((unsigned char)*c) : '-';
	}
	while (k && (out[k - 1] == '-' || out[k - 1] == '.'))
		k--;
	out[k] = '\0';
}

cJSON *rbac_documents(const struct rbac_request *r, struct err *e)
{
	cJSON *docs = cJSON_CreateArray(), *b, *ref, *subs, *s;
	char name[NAME_MAX_LEN + 1];

	cJSON_AddItemToArray(docs, role(r));
	if (r->kind == RBAC_NONE)
		return docs;
	s = subject(r, e);
	if (!s) {
		cJSON_Delete(docs);
		return NULL;
	}
	binding_name(r, name, sizeof(name));
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "apiVersion", RBAC_GROUP_NAME "/v1");
	cJSON_AddStringToObject(b, "kind", r->cluster_wide ? "ClusterRoleBinding" : "RoleBinding");
	cJSON_AddItemToObject(b, "metadata", meta(name, r));
	ref = cJSON_CreateObject();
	cJSON_AddStringToObject(ref, "apiGroup", RBAC_GROUP_NAME);
	cJSON_AddStringToObject(ref, "kind", r->cluster_wide ? "ClusterRole" : "Role");
	cJSON_AddStringToObject(ref, "name", ROLE_NAME);
	cJSON_AddItemToObject(b, "roleRef", ref);
	subs = cJSON_CreateArray();
	cJSON_AddItemToArray(subs, s);
	cJSON_AddItemToObject(b, "subjects", subs);
	cJSON_AddItemToArray(docs, b);
	return docs;
}
