/* A DynamoGraphDeployment as the DGD checks need it (checks.md P): read by
 * kube/dgd.c from the API server (group nvidia.com, v1beta1 or v1alpha1),
 * judged by check/dgd.c.  A leaf: plain data, no I/O.  All strings owned by
 * the set (kube/dgd.h dgd_set_release), never NULL ("" when absent). */
#ifndef MODEL_DGD_H
#define MODEL_DGD_H

#include <stddef.h>

/* Bounds on what one answer may hold: past them the answer is refused with
 * a one-line reason rather than held (the CR is untrusted input). */
#define DGD_MAX_ITEMS 1000
#define DGD_MAX_COMPONENTS 128
#define DGD_MAX_ENV 1000

struct dgd_component {
	char *name;      /* v1beta1 components[].name, v1alpha1 services key */
	char *type;      /* componentType: frontend, worker, prefill, decode, ... */
	long replicas;   /* -1: not stated */
	/* "NAME=VALUE\n" per env entry of the main container as the DGD states
	 * it (v1alpha1: graph-wide envs, then the service's envs over them);
	 * a valueFrom shows as "<valueFrom>" so no Secret value is held. */
	char *env;
};

struct dgd_info {
	char *namespace;
	char *name;
	char *version;        /* "v1beta1" or "v1alpha1": the one served */
	char *state;          /* status.state */
	char *ready;          /* status.conditions[type=Ready].status */
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


/* A pod as the DGD checks see it: borrowed strings, never NULL. */
struct dgd_pod {
	const char *namespace, *name;
	const char *graph;       /* nvidia.com/dynamo-graph-deployment-name */
	const char *component;   /* nvidia.com/dynamo-component */
	const char *worker_hash; /* nvidia.com/dynamo-worker-hash */
	const char *env;         /* "NAME=VALUE\n" of its main container */
	int running;
};

/* One DGD finding (checks.md P). */
struct dgd_finding {
	char status[8];          /* "warn" or "fail" */
	char check[32];          /* dgd-generation, dgd-component-pods, dgd-env */
	char dgd[256];           /* namespace/name */
	char detail[512];        /* one line */
};

struct dgd_findings {
	struct dgd_finding *items; /* owned; dgd_findings_release (check/dgd.h) */
	size_t n, cap;
};

#endif
