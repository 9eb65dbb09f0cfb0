/* Dynamo recipes: YAML files (or directory trees of them) -> the
 * DynamoGraphDeployment components with their effective transport env, and
 * the findings about it (dynamo.md §1, env-vars.md, checks.md J).
 *
 * Only transport variables (probe_env_allowed()) are ever kept with their
 * values; anything else in a recipe, Secrets above all, is never copied.
 * Everything here is owned by the struct recipe_set it hangs from and freed
 * by recipe_set_release().
 */
#ifndef RECIPE_RECIPE_H
#define RECIPE_RECIPE_H

#include <stddef.h>

#include "util/err.h"

/* Where a value comes from, in the operator's merge order (later wins). */
enum recipe_src {
	RECIPE_SRC_GRAPH,       /* spec.envs / spec.env */
	RECIPE_SRC_SERVICE,     /* v1alpha1 spec.services.<N>.envs */
	RECIPE_SRC_CONTAINER,   /* mainContainer.env / containers[main].env */
	RECIPE_SRC_ARGS,        /* `export X=...` in the container's shell args */
};

/* Fabric requested by the component's resources (bits). */
#define RECIPE_FAB_IB    1u   /* rdma/ib, rdma/shared_ib, rdma/hca_shared_devices_a */
#define RECIPE_FAB_EFA   2u   /* vpc.amazonaws.com/efa */
#define RECIPE_FAB_MNNVL 4u   /* a ComputeDomain (IMEX channel) claim */
#define RECIPE_FAB_ROCE  8u   /* with _IB: the verbs devices are RoCE (GKE RDMA networks) */

/* Transport variables kept per component; more are dropped. */
#define RECIPE_MAX_ENV 4096

struct recipe_env {
	char *name;
	char *value;            /* literal, or "<from secret N>", "<field P>", ... */
	enum recipe_src src;
	int dynamic;            /* computed at run time (shell) or from valueFrom */
};

enum recipe_status { RECIPE_OK, RECIPE_WARN, RECIPE_FAIL };

struct recipe_finding {
	enum recipe_status status;
	char *detail;
	char *remedy;           /* NULL when nothing to do */
	const char *check;      /* static: the framework rule's check name, or NULL */
	int book;               /* a rule-book finding: its enum envr_check + 1; 0 none */
};

struct recipe_component {
	char *file;
	char *graph;            /* metadata.name of the DGD */
	char *name;
	char *role;             /* prefill, decode, worker, frontend, ..., "-" untyped */
	int worker;             /* a KV-transfer worker: prefill, decode, worker, untyped */
	int line;               /* where the component starts in file */
	int nodes;              /* multinode.nodeCount, 1 when absent */
	unsigned fabric;        /* RECIPE_FAB_* */
	long gpus;              /* nvidia.com/gpu of one pod; 0 not stated */
	int clique;             /* nvidia.com/gpu.clique named (affinity, selector) */
	/* The ComputeDomain channel it claims (claim template or device
	 * class), or NULL; cd_kv: another role of its graph claims the same
	 * one, so KV can ride that IMEX domain (recipe.c mark_disagg). */
	char *cd;
	int cd_kv;
	/* The GPUs of each node its nodeSelector names, 0 unknown: a GB200 or
	 * GB300 NVL72 compute tray has 4 (nvidia.com/gpu.product NVIDIA-GB200,
	 * GPU Feature Discovery's label; NVIDIA GB200 NVL72: 18 trays of 2
	 * Grace CPUs and 4 Blackwell GPUs). */
	int node_gpus;
	/* While reading only (freed by then): the container's literal env
	 * values, "NAME=VALUE", any name; never from a Secret or valueFrom.
	 * For $(NAME)/${NAME} in --kv-transfer-config (scan.c). */
	char **plain;
	size_t nplain, plain_alloc;
	int disagg;             /* the graph has both prefill and decode roles */
	char *kv;               /* KV backend choice outside env, or NULL */
	char *framework;        /* spec.backendFramework, or NULL */
	/* The command/args text and engine-config ConfigMap data scanned,
	 * "\n"-joined, for the framework rule book (model/fwrules.h); never
	 * printed (it may hold tokens).  NULL when none. */
	char *args;
	struct recipe_env *env; /* effective, transport variables only, sorted */
	size_t nenv, env_alloc;
	char **secrets;         /* envFrom / envFromSecret names (values unknown) */
	size_t nsecrets, secrets_alloc;
	struct recipe_finding *findings;
	size_t nfindings, findings_alloc;
	char **notes;           /* kustomize parts not applied: warnings */
	size_t nnotes;
};

struct recipe_set {
	struct recipe_component *comps;
	size_t n, comps_alloc;
	char **errors;          /* "FILE:LINE:COLUMN: message", one per bad file */
	size_t nerrors, errors_alloc;
	size_t files;           /* YAML files read */
};

/* Reads a file, or every *.yaml / *.yml under a directory (sorted, symlinks
 * not followed into directories), appending to set.  A directory holding
 * kustomizations is rendered as `kustomize build` would (kust.c): each
 * kustomization no other one there includes is one FILE, and the files it
 * reads are not graphs of their own.  A file that is not
 * YAML lands in set->errors and the rest are still read; -1 with e set only
 * when path itself cannot be read. */
int recipe_load_path(const char *path, struct recipe_set *set, struct err *e);
/* One file's text, named name.  0, or -1 with the error in set->errors. */
int recipe_load_buffer(const char *name, const char *data, size_t len,
		       struct recipe_set *set);
void recipe_set_release(struct recipe_set *set);

/* The value of name in c's effective env, or NULL. */
const char *recipe_env_get(const struct recipe_component *c, const char *name);
const char *recipe_src_name(enum recipe_src s);
const char *recipe_status_name(enum recipe_status s);
/* "infiniband", "efa", "mnnvl", "infiniband+mnnvl", ..., or "none". */
const char *recipe_fabric_name(unsigned fabric, char *out, size_t n);

/* rules.c: fills every worker component's findings (env-vars.md danger
 * list, the fabric's critical variables, the KV backend). */
void recipe_judge(struct recipe_set *set);
/* The worst status over all worker components. */
enum recipe_status recipe_worst(const struct recipe_set *set);

/* Live drift (issue 4): recipe env vs pod spec env vs running process env.
 * Each list is name=value pairs of transport variables; NULL lists mean
 * "not known".  Appends one finding per disagreement to *out (caller frees
 * with recipe_findings_free()).  Operator-injected NIXL_TELEMETRY_* and
 * run-time values are expected, not drift. */
struct recipe_kv {
	const char *name;
	const char *value;
};
void recipe_drift(const struct recipe_component *c,
		  const struct recipe_kv *spec, size_t nspec, int have_spec,
		  const struct recipe_kv *proc, size_t nproc, int have_proc,
		  struct recipe_finding **out, size_t *nout);
void recipe_findings_free(struct recipe_finding *f, size_t n);

/* The worker component of graph with this role (prefill, decode, worker),
 * for a pod labelled so; NULL when none.  Untyped components match any. */
const struct recipe_component *recipe_match(const struct recipe_set *s,
					    const char *graph, const char *role);
/* "NAME=VALUE\n" lines (pod_info.spec_env) -> pairs pointing into a copy
 * the caller frees as *store along with *out. */
void recipe_kv_lines(const char *lines, struct recipe_kv **out, size_t *n, char **store);

/* The verdict of `env` over a judged set (recipe_judge first): the worst
 * finding of any worker decides; no worker at all is UNVERIFIED.
 * fix_first borrows from s or is a fixed text. */
struct recipe_verdict {
	const char *status;      /* READY, NOT READY, UNVERIFIED */
	int code;                /* its exit code (product.md): 0, 2, 3 */
	const char *fix_first;   /* borrowed from a finding, or a fixed text */
	char fabric[64];
};
void recipe_verdict(const struct recipe_set *s, struct recipe_verdict *v);

#endif
