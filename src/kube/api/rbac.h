/* What the plugin asks the API server for, as RBAC rules: one table, read
 * by `rbac` (a Role or ClusterRole and its binding, issue 44 point 4) and
 * kept equal to deploy/rbac.yaml by e2e test_newcomer.  Every request path
 * the plugin builds is here: pods (pods.c list, completion get), pods/log
 * (logs.c), pods/exec (exec.c: a WebSocket exec is a GET, API servers from
 * v1.35 also check create), resourceclaims (claims.c), dynamographdeployments
 * (dgd.c), and namespaces (completion of -n, cluster-wide only). */
#ifndef KUBE_RBAC_H
#define KUBE_RBAC_H

#include <cjson/cJSON.h>

#include "util/err.h"

struct rbac_rule {
	const char *group;        /* API group, "" for core */
	const char *resource;
	const char *verbs;        /* ","-joined */
	int cluster_only;         /* only in the ClusterRole (-A) */
	const char *why;          /* one line: what needs it, what happens without */
};

/* The rules, ended by a zeroed entry. */
extern const struct rbac_rule rbac_rules[];

enum rbac_subject { RBAC_NONE, RBAC_USER, RBAC_GROUP, RBAC_SERVICEACCOUNT };

struct rbac_request {
	const char *namespace;    /* NULL: the one `kubectl apply` uses */
	int cluster_wide;         /* ClusterRole + ClusterRoleBinding */
	enum rbac_subject kind;
	const char *subject;      /* user, group, or "NAMESPACE:NAME" */
};

/* The documents (a JSON array: the role, then its binding when a subject
 * is given); NULL with one line in e for a bad subject. */
cJSON *rbac_documents(const struct rbac_request *r, struct err *e);

#endif
