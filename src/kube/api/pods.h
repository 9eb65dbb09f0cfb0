/* Pod discovery: which pods `check` probes, with their Dynamo role and the
 * container to exec into (product.md "Pod discovery", dynamo.md §3).
 *
 * Lists pods page by page (limit/continue) so memory stays proportional to
 * the pods kept, not to the size of the server's answers.
 */
#ifndef KUBE_PODS_H
#define KUBE_PODS_H

#include <stddef.h>
#include <time.h>

#include "model/podspec.h"
#include "util/err.h"
#include "kube/http/http.h"

/* The selector used when -l is not given: every worker role. */
#define PODS_DEFAULT_SELECTOR \
	"nvidia.com/dynamo-component-type in (worker,prefill,decode,main)"
#define PODS_PAGE_SIZE 500

struct pods_query {
	const char *namespace;     /* ignored with all_namespaces */
	int all_namespaces;
	const char *selector;      /* NULL: PODS_DEFAULT_SELECTOR */
	const char *container;     /* -c: overrides the container choice */
	const char *name;          /* list just this pod (fieldSelector) */
	int any_component;         /* keep frontend/planner/epp pods too */
	long page_size;            /* 0: PODS_PAGE_SIZE */
};

/* One pod as the rest of the program sees it.  All strings owned; never
 * NULL ("" when absent). */
struct pod_info {
	char *namespace;
	char *name;
	char *role;        /* prefill, decode, worker, or "" when unlabelled */
	char *graph;       /* nvidia.com/dynamo-graph-deployment-name */
	char *component;   /* nvidia.com/dynamo-component: the DGD component */
	char *worker_hash; /* nvidia.com/dynamo-worker-hash: its worker generation */
	char *node;
	char *node_ip;
	char *pod_ip;
	char *container;   /* the one to probe */
	char *image;       /* of that container */
	char *phase;       /* status.phase */
	char *status;      /* what kubectl shows: phase or a container reason */
	time_t created;    /* 0 when unknown */
	int probe;         /* 1: Running with the container running */
	int no_container;  /* the pod has no container of that name (-c) */
	/* Of the probed container: a reference to an interned copy
	 * (util/intern.h), one per distinct spec however many pods share it
	 * (~1.2 KiB a pod otherwise, issue 27).  Read-only: change it with
	 * pod_info_set_spec().  NULL only in a pod_info not made here. */
	const struct pod_spec_facts *spec;
	/* Which variables of the probed container may hold a Secret's value,
	 * one line each: "NAME=SECRET\n" (env[].valueFrom.secretKeyRef),
	 * "*PREFIX=SECRET\n" (envFrom[].secretRef: any variable starting with
	 * PREFIX, "" for none, not set by env itself), "!NAME\n" (set by env
	 * without a Secret: no envFrom rule applies).  Such values are never
	 * shown, only "<from secret SECRET>" (product.md).  "" when none. */
	char *secret_env;
	/* "NAME=VALUE\n" per transport variable (probe_env_allowed()) in the
	 * probed container's env list, for `check --recipe`; a valueFrom shows
	 * as "<from secret S>", "<from configmap C>" or "<field PATH>", so no
	 * Secret value is ever held.  "" when none. */
	char *spec_env;
	/* Why spec_env is "" though the container has such entries (one
	 * line: past its 64 KiB), "" when read: what compares it says so. */
	char *spec_env_unread;
	/* "NAME=VALUE\n" per env entry of the probed container with a plain
	 * value (no valueFrom) whose NAME its command or args mention (a
	 * $(NAME) or ${NAME} there): what an expansion in them may be shown
	 * as (model/shown.h).  "" when none. */
	char *plain_env;
	/* "NAME=VALUE\n" per plain value of the variables that say where the
	 * worker serves its metrics (podenv.c podenv_metrics: NIXL telemetry,
	 * Dynamo's system port), for check --observe; "" when none.  NULL
	 * only in a pod_info not made here. */
	char *metrics_env;
	char *skip_reason; /* why not probed, one line; "" when probe */
	char *claim_refs;  /* claims.h claims_refs(): "NAME\n" per ResourceClaim */
	/* The probed container's command then args, space-joined ("" past
	 * 64 KiB), for the framework rule book; check_context.args points here.  It is
	 * never printed: the book copies out only the values it judges. */
	char *args;
	/* Why args is "" though the container has some (one line: past the
	 * 64 KiB read); "" when read.  The fw-* checks are then skipped with
	 * it (issue 37: never absent). */
	char *args_unread;
	/* Nodes of the multinode worker the pod is part of (a LeaderWorkerSet
	 * group's size), 0 when the pod shows none. */
	int nodes;
	/* The Grove PodCliqueScalingGroup replica it belongs to ("PCSG/INDEX"),
	 * "" none: the listed pods of one group are one worker's nodes. */
	char *group;
};

/* Makes p's spec an interned copy of *s (s must have been zeroed before it
 * was filled, padding included: the copy is found again by its bytes) and
 * gives back the one p held. */
void pod_info_set_spec(struct pod_info *p, const struct pod_spec_facts *s);

struct pod_list {
	struct pod_info *items;
	size_t n;
	size_t cap;
	size_t skipped_components;  /* frontend/planner/epp pods left out */
	unsigned pages;             /* list requests made */
};

/* Lists and classifies; the caller releases out with pod_list_release().
 * Pods come sorted by namespace, then name.  -1 with e set on error. */
int pods_list(struct http_client *c, const struct pods_query *q,
	      struct pod_list *out, struct err *e);
void pod_list_release(struct pod_list *l);

/* For tests and fuzzing: adds one PodList page (a JSON body) to out, which
 * starts zeroed, exactly as pods_list does per page; *next gets the continue
 * token (owned) or NULL.  0, or -1 with the reason in e. */
int pods_parse_page(const char *body, size_t len, const struct pods_query *q,
		    struct pod_list *out, char **next, struct err *e);

/* Role from the two label contracts; NULL for a pod that is not a worker
 * (frontend, planner, epp).  Exposed for tests. */
const char *pods_role(const char *component_type, const char *sub_type);
/* The same with the probed container's command and args (pod_info.args'
 * form): a worker typed `worker` or `main` with no sub-type takes its role
 * from --disaggregation-mode (model/role.h); `main` running no Dynamo
 * engine worker is no worker (NULL). */
const char *pods_role_cmd(const char *component_type, const char *sub_type, const char *args);

#endif
