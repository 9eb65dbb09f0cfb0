/* A DynamoGraphDeployment as the DGD checks need it (checks.md P): read by
 * kube/dgd.c from the API server (group nvidia.com, v1beta1 or v1alpha1),
 * judged by check/dgd.c.  A leaf: plain data, no I/O.  All strings owned by
 * the set (kube/dgd.h dgd_set_release), never NULL ("" when absent). */
#ifndef MODEL_DGD_H
#define MODEL_DGD_H

#include <stddef.h>

/* Bounds on what one answer may hold (the CR is untrusted input).  Past
 * DGD_MAX_ITEMS the list is refused with a one-line reason: as many as the
 * pods a list may hold (kube/listguard.h LISTGUARD_MAX_ITEMS), since the
 * items are read one by one and the answer's 64 MiB (kube/http.h
 * HTTP_MAX_BODY) bounds what they hold; at 1,000 one tenant's 1,001 DGDs
 * sent every DGD to labels only (issue 37).  The others are
 * per DGD: one past them is skipped with the reason (dgd_info.skipped) and
 * the rest of the list is read (issue 37: one tenant's DGD must not blind
 * the judging of another's).
 * DGD_MAX_ITEM_BYTES: an object the API server accepted is at most its
 * request body limit, 3 MiB (k8s.io/apiserver pkg/server/config.go
 * MaxRequestBodyBytes, twice etcd's default 1.5 MiB request); a bigger
 * item is skipped before its cJSON tree is built (a tree costs about 40
 * times its text).  Components: a graph has a handful (frontend, planner,
 * prefill, decode workers); 128 is far past any real one.  Env entries:
 * 1,000 per list; the API has no count limit, only the object's size, so
 * one past it is named, not cut. */
#define DGD_MAX_ITEMS 50000
#define DGD_MAX_ITEM_BYTES (3u << 20)
#define DGD_MAX_COMPONENTS 128
#define DGD_MAX_ENV 1000
#define DGD_MAX_CONDITIONS 32
#define DGD_MAX_RESOURCES 64
#define DGD_MAX_ARGS (64u << 10)    /* as a pod's (kube/api/pods.c ARGS_CAP) */

struct dgd_component {
	char *name;      /* v1beta1 components[].name, v1alpha1 services key */
	/* v1beta1 type; v1alpha1 subComponentType when set (prefill, decode),
	 * else componentType: frontend, worker, prefill, decode, ... */
	char *type;
	long replicas;   /* -1: not stated */
	long nodes;      /* multinode.nodeCount: nodes of one replica; -1 not stated */
	/* "NAME=QUANTITY\n" of the stated resources (v1beta1: the main
	 * container's resources; v1alpha1: the service's resources), string
	 * values only. */
	char *limits;
	char *requests;
	/* The operator's status for it (v1beta1 status.components[NAME],
	 * v1alpha1 status.services[NAME]); -1: not stated. */
	long st_replicas, st_updated, st_ready, st_available;
	/* "NAME=VALUE\n" per env entry of the main container as the DGD states
	 * it, graph-wide first, the component's own after (a later entry of a
	 * name wins): v1beta1 spec.env then podTemplate's main container env;
	 * v1alpha1 spec.envs, the service's envs, extraPodSpec.mainContainer
	 * .env;
	 * a valueFrom shows as "<valueFrom>" so no Secret value is held. */
	char *env;
	/* Where a JSON patch sets a variable of this component alone (check
	 * --suggest-env, issue 44 point 5): patch_path, the RFC 6901 pointer
	 * of its own env list (v1beta1 /spec/components/I/podTemplate/spec/
	 * containers/J/env, v1alpha1 /spec/services/NAME/envs), "" when it has
	 * no container to hold one; patch_names "NAME\n" per entry of that
	 * list in order; patch_listed 0 when the list is absent; patch_ids
	 * "POINTER=VALUE\n" of what identifies the place (the component's and
	 * container's names at those indexes), tested before any change. */
	char *patch_path;
	char *patch_names;
	char *patch_ids;
	int patch_listed;
	/* The main container's image and its command then args, space-joined
	 * ("" past DGD_MAX_ARGS bytes: never a cut line), for the rules on how
	 * a worker starts (checks.md P5); the args are never printed, only
	 * the values a rule judges. */
	char *image;
	char *args;
};

struct dgd_condition {
	char *type, *status, *reason, *message;
};

struct dgd_info {
	char *namespace;
	char *name;
	char *version;        /* "v1beta1" or "v1alpha1": the one served */
	char *state;          /* status.state */
	char *ready;          /* status.conditions[type=Ready].status */
	/* Why it was not read (one line: a bound passed, a field of the wrong
	 * type), "" when read.  A skipped DGD holds its namespace, name and
	 * version only (name "" when it has none): no component, condition
	 * or hash. */
	char *skipped;
	struct dgd_condition *cond;  /* status.conditions, at most DGD_MAX_CONDITIONS */
	size_t ncond;
	/* metadata.annotations nvidia.com/current-worker-hash and
	 * nvidia.com/current-worker-hash-v2 (operator consts.go
	 * AnnotationCurrentWorkerHash / AnnotationCurrentWorkerHashV2): a
	 * worker pod whose nvidia.com/dynamo-worker-hash matches either is of
	 * the active generation. */
	char *worker_hash;
	char *worker_hash_v2;
	struct dgd_component *comp;
	size_t ncomp;
};

/* How reading the DGDs went; the checks word it. */
enum dgd_access {
	DGD_READ = 0,    /* items hold what the server has */
	DGD_NO_API,      /* 404 for nvidia.com in both versions: no CRD */
	DGD_FORBIDDEN,   /* 403: labels only */
	DGD_UNREAD,      /* another error: note says it */
};

struct dgd_set {
	struct dgd_info *items;
	size_t n;
	enum dgd_access access;
	char note[240];  /* one line for DGD_FORBIDDEN / DGD_UNREAD */
};


#define DGD_POD_SECRET "<secret>"

/* A pod as the DGD checks see it: borrowed strings, never NULL. */
struct dgd_pod {
	const char *namespace, *name;
	const char *graph;       /* nvidia.com/dynamo-graph-deployment-name */
	const char *component;   /* nvidia.com/dynamo-component */
	const char *worker_hash; /* nvidia.com/dynamo-worker-hash */
	/* "NAME=VALUE\n" of its main process (the probe's /proc/1/environ,
	 * transport variables), a value that is or may be from a Secret
	 * written DGD_POD_SECRET ":" and the SHA-256 (hex) of the real value
	 * (DGD_POD_SECRET alone when unknown); its spec env when the probe
	 * has none. */
	const char *env;
	int running;
	/* Why env is unknown (the probe could not read it and the spec env
	 * was past its cap): P3 says it did not compare.  NULL or "": known. */
	const char *env_unread;
};

#endif
