/* The rule book of the transport environment (issue 17 item 4): one table
 * of variables with their dangerous values, severity, remedy and source,
 * evaluated over one neutral view of an environment.  `env` judges a
 * recipe with it (recipe/rules.c), `check` the running worker's
 * /proc/1/environ (check/env.c), so a setting is flagged alike wherever it
 * is seen.
 *
 * A leaf module: no I/O, no kube, no probe or check types.  The callers
 * translate what they know (requested resources, detected fabric) into
 * struct envr_ctx.  Strings in the table are static; a finding's detail
 * is its own fixed buffer.
 */
#ifndef MODEL_ENVRULES_H
#define MODEL_ENVRULES_H

#include <stddef.h>

/* Fabric the KV path uses (bits). */
#define ENVR_FAB_IB    1u   /* InfiniBand or RoCE verbs NICs */
#define ENVR_FAB_EFA   2u   /* AWS EFA */
#define ENVR_FAB_MNNVL 4u   /* a ComputeDomain / IMEX channel (multi-node NVLink) */

enum envr_sev { ENVR_OK, ENVR_WARN, ENVR_FAIL };

/* The checks the book's findings are reported under: each is the row
 * CK_ENV_<X> of src/check/table.def, named there "env-" and X in lower
 * case with - for _ (envr_check_name).  check/env.c maps each to its row
 * (check_env_row), so a row removed there is a compile error, and
 * test_checks fails on one renamed. */
#define ENVR_CHECKS(X) X(UCX_TLS) X(UCX_NET_DEVICES) X(UCX_GPUDIRECT) X(UCX_RNDV) \
	X(UCX_PROTO) X(UCX_ROCE) X(GID_INDEX) X(MNNVL) X(NCCL_NET) X(NCCL_P2P) \
	X(NCCL_SHM) X(NCCL_CUMEM) X(FI)
#define ENVR_CK_ENUM_(x) ENVR_CK_##x,
enum envr_check { ENVR_CHECKS(ENVR_CK_ENUM_) ENVR_CK__COUNT };
#undef ENVR_CK_ENUM_

/* The name of check id, written into b (room for ENVR_CHECK_NAME_MAX). */
#define ENVR_CHECK_NAME_MAX 32
const char *envr_check_name(enum envr_check id, char *b, size_t n);

/* Where a value was seen. */
enum envr_origin { ENVR_FROM_RECIPE, ENVR_FROM_SPEC, ENVR_FROM_PROCESS };

struct envr_var {
	const char *name;
	const char *value;
	enum envr_origin origin;
	int dynamic;            /* computed at run time: set, value unknown */
	/* The Secret the value is or may be from (run/mask.h marks it), NULL
	 * when none: a rule prints such a value only through model/shown.h
	 * shown_value, as "<from secret S>", never in part. */
	const char *secret;
};

/* name -> value; the last of a name wins, as in a process environment. */
struct envr_view {
	const struct envr_var *v;
	size_t n;
};

/* A RoCE port the workload uses, as the pod's GID table shows it (live
 * pods only): bit i stands for GID index i.  The probe reads indices below
 * ENVR_GID_READ (sysfs gids/0-15). */
#define ENVR_GID_READ 16
struct envr_gid_port {
	const char *name;              /* "mlx5_0:1" (the caller's) */
	unsigned long long gids;       /* non-zero GIDs */
	unsigned long long roce_v2;    /* typed "RoCE v2" */
	unsigned long long ipv4;       /* IPv4-mapped (::ffff:a.b.c.d) */
	unsigned long long link_local; /* fe80::/64 */
	/* Mooncake's view (rdma_gid_probe.h): gid_attrs/ndevs names a netdev;
	 * that netdev is a container overlay (isOverlayNetwork); the GID is
	 * IPv4 in 10/8, 172.16/12 or 100.64/10 (isOverlayIPv4).  Set with
	 * envr_gid_ndev. */
	unsigned long long ndev, overlay, private_v4;
	/* The installed mooncake-transfer-engine version ("0.3.11.post1"),
	 * which decides Mooncake's automatic choice; NULL or "": unknown. */
	const char *mc_version;
};

/* Marks GID idx of p as Mooncake classifies it: ndev its netdev ("" or
 * NULL: none), v4 its IPv4 address (host order; 0 when not IPv4). */
void envr_gid_ndev(struct envr_gid_port *p, int idx, const char *ndev, unsigned v4);

struct envr_ctx {
	unsigned fabric;        /* ENVR_FAB_*; 0: none requested / none found */
	int kv_cross;           /* KV leaves the pod */
	int rdma_needed;        /* KV leaves the pod and only RDMA keeps it fast
				 * (live: even when no RDMA device was found) */
	int libfabric;          /* NIXL's backend is LIBFABRIC: UCX is off the KV path */
	int nvlink;             /* GPUs joined by NVLink: 1, 0, -1 unknown */
	int peermem;            /* nvidia_peermem loaded: 1, 0, -1 unknown */
	/* The view is a running process's environment: an unset variable is
	 * its default at work, judged by what the pod shows (UCX lanes, logs),
	 * so the missing-variable rules, which remind a recipe author to check
	 * what the image sets, do not apply.  Every value rule does. */
	int process;
	/* 1: no pod this one hands KV to runs on its node (a live pod whose
	 * peers are all elsewhere), so cuda_ipc cannot carry its KV outside
	 * a multi-node NVLink domain; 0: some peer shares it, or unknown. */
	int peer_apart;
	/* The RoCE ports in use and their GID tables (live pods; NULL and 0
	 * for recipes, and when none was read). */
	const struct envr_gid_port *gid_ports;
	size_t n_gid_ports;
	/* Scratch a judge may write a reason naming the pod's own things into
	 * (and point *why at); the caller's, NULL when none. */
	char *note;
	size_t note_n;
	/* Mooncake carries the worker's KV: a running process by its command
	 * line (envr_args_mooncake), a recipe by its backend choice.  UCX is
	 * then off the KV path and no UCX_ rule applies. */
	int mooncake;
	/* The worker's shape (issue 38 point 4), envr_shape: 1 when its
	 * tensor/expert-parallel group stays in this pod on one node, so NCCL
	 * never leaves the pod; 0 when it spans nodes or is unknown. */
	int tp_in_pod;
	/* 1 when the worker drives one GPU (TP 1, or one GPU in the pod):
	 * no GPU pair in the pod for cuda_ipc; 0 more or unknown. */
	int one_gpu;
	/* 1: the pod's ComputeDomain is not one its KV peers share (a recipe
	 * whose prefill and decode claim different ones), so KV never rides
	 * NVLink even though the pod has an IMEX channel for its own NCCL. */
	int kv_nvl_apart;
	/* 1 when a pod this one hands KV to runs on its node and cuda_ipc
	 * reaches it (the pod shares the host's IPC namespace, issue 39 item
	 * 5); 0 none, or unknown. */
	int peer_ipc;
};

/* Sets x's shape fields from the worker's tensor-parallel size (-1
 * unknown), the GPUs of its pod (0 unknown) and its nodes (>= 1). */
void envr_shape(struct envr_ctx *x, long tp, long gpus, int nodes);

struct envr_rule {
	enum envr_check check;  /* the check a live pod reports it under */
	const char *var;        /* the variable judged */
	/* 1: the rule is about var being unset (recipes only: see
	 * envr_ctx.process); 2: running processes only, set or not (v "" when
	 * unset): what the library then does, judged against what the pod
	 * shows (the GID it would pick); recipes never see it. */
	int missing;
	/* Severity for value v (never NULL; "" when missing) in ctx; why may
	 * be pointed at a context-specific reason. */
	enum envr_sev (*judge)(const char *v, const struct envr_view *env,
			       const struct envr_ctx *ctx, const char **why);
	const char *why;        /* what the value does, after "VAR=VALUE " */
	const char *remedy;
	const char *source;     /* where the rule comes from */
	/* For the tests: a dangerous value, and the fabric and KV placement
	 * in which it is flagged. */
	const char *example;
	unsigned example_fabric;
	int example_cross;
};

struct envr_finding {
	const struct envr_rule *rule;
	enum envr_sev sev;
	char detail[320];
};

/* The table, *n rows. */
const struct envr_rule *envr_rules(size_t *n);
/* Every rule that fires on env in ctx, in table order, into *out (caller
 * frees the array).  Dynamic values are judged by no value rule (unknown)
 * but count as set for the missing-variable rules. */
size_t envr_eval(const struct envr_view *env, const struct envr_ctx *ctx,
		 struct envr_finding **out);
/* The last var of name, or NULL. */
const struct envr_var *envr_find(const struct envr_view *env, const char *name);
/* Its literal value: NULL when unset or dynamic. */
const char *envr_get(const struct envr_view *env, const char *name);

/* UCX_TLS semantics (ucp_context.c's aliases and ^ deny-lists): bit
 * ENVR_TL_x set when transport x is allowed.  NULL or "" allows all. */
enum envr_tl {
	ENVR_TL_CUDA_COPY, ENVR_TL_CUDA_IPC, ENVR_TL_GDR_COPY, ENVR_TL_RC_MLX5,
	ENVR_TL_DC_MLX5, ENVR_TL_UD_MLX5, ENVR_TL_RC_VERBS, ENVR_TL_UD_VERBS,
	ENVR_TL_TCP, ENVR_TL_SRD, ENVR_TL_POSIX, ENVR_TL_SYSV, ENVR_TL_CMA,
	ENVR_TL_SELF, ENVR_TL_GGA_MLX5, ENVR_TL_COUNT
};
unsigned envr_tls_allowed(const char *tls);
/* "rc_mlx5", ...; -1 for a name that is no transport here. */
int envr_tl_by_name(const char *name);
int envr_is_yes(const char *v);
int envr_is_no(const char *v);
/* A UCX boolean as ucs_config_sscanf_bool reads it: 1, 0, or -1 when UCX
 * rejects the value (envvals.c). */
int envr_ucx_bool(const char *v);
/* NCCL_PARAM integer parse (deflt when empty/out of range), and an NCCL
 * path level that means LOC (envvals.c). */
long long envr_nccl_int(const char *v, long long deflt);
int envr_nccl_loc(const char *v);
/* libfabric: FI_PROVIDER list v admits provider prov; v a FI_PARAM_BOOL
 * false (envvals.c). */
int envr_fi_admits(const char *v, const char *prov);
int envr_fi_false(const char *v);

/* Variables the known-bad table (check/knownbad.c, checks.md F5) reads,
 * with the library's own parsing.  NIXL_TELEMETRY_ENABLE: 1 on, 0 off,
 * -1 unset or no boolean NIXL knows. */
int envr_nixl_telemetry(const struct envr_view *env);
/* UCX_RC_ECE=0 or UCX_RC_VERBS_ECE=0: rc_verbs connects without ECE. */
int envr_ucx_rc_ece_off(const struct envr_view *env);

/* The GID index each library uses on port p (checks.md A9, A10): UCX
 * (UCX_IB_GID_INDEX, else uct_ib_device_select_gid's pick; -1 for a value
 * UCX refuses) and Mooncake (MC_GID_INDEX / NCCL_IB_GID_INDEX, else
 * findBestGidIndex; -1 none found).  envr_runs_mooncake: an MC_ or
 * MOONCAKE_ variable is set. */
long envr_gid_index_ucx(const struct envr_gid_port *p, const struct envr_view *env);
long envr_gid_index_mooncake(const struct envr_gid_port *p, const struct envr_view *env);
int envr_runs_mooncake(const struct envr_view *env);
/* 1 when a command line (space-joined args, NULL: none) runs SGLang's
 * disaggregation on the Mooncake backend: --disaggregation-transfer-backend
 * mooncake, or SGLang's --disaggregation-mode with no backend named
 * (mooncake is server_args.py's default). */
int envr_args_mooncake(const char *args);
/* mooncake.c: Mooncake's own pick on p (findBestGidIndex, no index set);
 * -1 when it finds none: envr_mooncake_auto the tiers of >= 0.3.12,
 * envr_mooncake_auto_pre312 the first-match scan of <= 0.3.11.
 * envr_mooncake_tiered: 1 when version (a mooncake-transfer-engine
 * version) has the tiers, 0 when it has the scan, -1 unknown (NULL, "",
 * unreadable, a 0.3.12 pre-release).  envr_gid_index_mooncake returns
 * ENVR_GID_UNDECIDED when p's version is unknown and the two disagree. */
long envr_mooncake_auto(const struct envr_gid_port *p);
long envr_mooncake_auto_pre312(const struct envr_gid_port *p);
int envr_mooncake_tiered(const char *version);
/* 1 when version is a mooncake-transfer-engine release up to 0.3.12.post1
 * (the last tag read), whose topology.cpp ranks NICs by getPciDistance's
 * sysfs-path prefix (kvcache-ai/Mooncake PR #1974 open, in none of them);
 * 0 a later one; -1 unknown (NULL, "", unreadable). */
int envr_mooncake_pci_prefix(const char *version);
#define ENVR_GID_UNDECIDED (-2)

/* The one GID rule (checks.md A9/A10, issue 39 item 4), read by the
 * per-pod env-gid-index and the pair rule (verdict/pairnet.c): what a GID
 * of class k means for KV between two nodes whose L2 relation is rel.  An
 * empty GID fails anywhere (the library cannot query it); an L2-only one
 * (link-local fe80::, RoCE v1) fails only where the two roles are known
 * to sit on different segments (different subnets), is fine where they
 * are known to share one, and warns where that cannot be told (one pod
 * alone never can). */
enum envr_gid_class { ENVR_GIDC_ROUTABLE, ENVR_GIDC_L2_ONLY, ENVR_GIDC_EMPTY };
enum envr_l2 { ENVR_L2_UNKNOWN, ENVR_L2_SAME, ENVR_L2_APART };
enum envr_sev envr_gid_l2_rule(enum envr_gid_class k, enum envr_l2 rel);
/* What is wrong with GID idx on port p for KV between nodes (NULL: nothing
 * the rule reads), its class in *k. */
const char *envr_gid_fault(const struct envr_gid_port *p, long idx, enum envr_gid_class *k);

#endif
