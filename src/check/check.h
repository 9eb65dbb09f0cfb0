/* Checks: facts in, results out (checks.md A-I and M).
 *
 * A check never sees a socket, JSON or the probe's raw text: it judges
 * struct probe_facts (what the probe read inside the pod) and struct
 * pod_spec_facts (what the pod object asks for), plus a small
 * struct check_context for what one pod cannot know about itself.
 *
 * Every check is defined once, in src/check/table.def (name, family, rank,
 * link, variables, judge, remedy, docs anchor), read through check_def(),
 * so output, ranking and docs agree (docs/adding-a-check.md).
 *
 * Ownership: struct check_results owns its array, every detail and
 * remedy string in it and its NIC list, or, once frozen
 * (check_results_freeze()), one reference to a shared immutable whole of
 * them; check_results_release() frees or gives back them all.  The name
 * of a result points into the static table (or, for results the caller
 * adds, to a string that must outlive the results).
 */
#ifndef CHECK_CHECK_H
#define CHECK_CHECK_H

#include <stddef.h>
#include <stdint.h>

struct probe_facts;
struct pod_spec_facts;
struct known_table;

enum check_status {
	CHECK_OK = 0,
	CHECK_WARN,
	CHECK_FAIL,
	CHECK_SKIPPED,  /* could not look, or not applicable: never a pass */
};

/* "ok", "warn", "fail", "skipped" (product.md). */
const char *check_status_name(enum check_status s);

/* product.md's column families, in table order: the one list of them
 * (FAM_x and the name "x" both come from it). */
#define CHECK_FAMILIES(X) X(RDMA) X(GPUDIRECT) X(GDRCOPY) X(NVLINK) X(UCX) \
	X(NIXL) X(EFA) X(ENV) X(LIMITS) X(POD) X(LOGS) X(TRANSFER) \
	X(OBSERVED)
#define CHECK_FAM_ENUM_(f) FAM_##f,
enum check_family {
	CHECK_FAMILIES(CHECK_FAM_ENUM_)
	FAM__COUNT
};
#undef CHECK_FAM_ENUM_

/* "RDMA", "GPUDIRECT", ... exactly as product.md spells them. */
const char *check_family_name(enum check_family f);

/* The fabric KV transfer rides on. */
enum fabric {
	FABRIC_UNKNOWN = 0,
	FABRIC_INFINIBAND,
	FABRIC_ROCE,
	FABRIC_EFA,
	FABRIC_NVLINK,  /* single pod / single process tree, or GB200 MNNVL */
	FABRIC_TCP,     /* no RDMA device: KV moves over sockets */
};

/* "unknown", "infiniband", "roce", "efa", "nvlink", "tcp". */
const char *fabric_name(enum fabric f);

/* Result flags. */
#define CHECK_F_NA 0x1  /* skipped because the check does not apply here
			 * (EFA rules on InfiniBand, NVSwitch on PCIe): it
			 * leaves nothing unproven, unlike "could not look". */
#define CHECK_F_EXTRA 0x2 /* extra evidence (the LOGS family): a skip is
			   * shown with its remedy but leaves the verdict
			   * alone, since the probe proved what it could. */

/* Every check by id, CK_<ID> of its table.def row; order here is table
 * order.  Code names a check by its id, never by its string
 * (tests/tools/check_names.py).  A CHECK macro of the includer (the unit
 * tests' t.h) is kept. */
#pragma push_macro("CHECK")
#undef CHECK
#define CHECK(id, ...) CK_##id,
enum check_id {
#include "check/table.def"
	CK__COUNT
};
#undef CHECK
#pragma pop_macro("CHECK")

struct check_result {
	const char *name;         /* stable id, e.g. "gpudirect-peermem" */
	enum check_family family;
	enum check_status status;
	char *detail;             /* owned; one line, what was seen; never NULL */
	char *remedy;             /* owned; one line; NULL when ok or not applicable */
	int rank;                 /* smaller = more fundamental (fix first) */
	unsigned flags;           /* CHECK_F_* */
	/* owned; the sources that showed what the detail says ("ibv_devinfo",
	 * "/sys/module/nvidia_peermem"), from the evidence; NULL when the
	 * check reads one fixed source (links.c names it then). */
	char *source;
	/* owned; "NAME=value", the variable to paste that fixes it (ucx-nic-
	 * select's UCX_NET_DEVICES); NULL when the check suggests none. */
	char *suggest;
	/* Its table row (check_def_of), set by every way a result is added:
	 * rows are found by index, not by name (~2,000 lookups a pod in
	 * links.c; issue 46).  CK__COUNT for a name the table lacks. */
	enum check_id id;
};

/* What check_pod() saw of the pod, for -o wide and for the comparison
 * across pods and nodes in graph.c: a small fixed-size digest, so that the
 * full facts can be dropped after each pod (memory flat at 1024 pods).
 * "" and -1 when unknown; values longer than the arrays are truncated.
 * check_pod_unprobed() fills only what the pod spec tells. */
struct check_summary {
	char ucx_version[32];
	char nixl_version[32];
	char nixl_backend[32];      /* "UCX", "LIBFABRIC", "UCX,GDS"... */
	char libfabric_version[32];
	char driver_version[32];
	char ucx_tls[128];          /* effective UCX_TLS, "" when unset: judged, never printed */
	/* What outputs print for UCX_TLS: ucx_tls, or "<from secret S>" when
	 * the value is or may be a Secret's (run/mask.h decides). */
	char ucx_tls_shown[128];
	/* UCX_NET_DEVICES entries that do not exist or are not Active in
	 * this pod ("mlx5_3:1 not an RDMA device here"); "" when none. */
	char net_dev_bad[96];
	int env_known;              /* the main process's env was read */
	/* 1: an RDMA device with verbs access and an Active port (or EFA);
	 * 0: none, KV leaves the pod over TCP; -1 unknown or not needed. */
	int rdma_usable;
	/* RDMA resources the pod spec requests: "rdma/ib=8",
	 * "vpc.amazonaws.com/efa=4", "resourceClaims"; "" none; spec_known 0
	 * when there was no spec to read. */
	char rdma_request[96];
	int spec_known;
	/* Node-level facts, as seen from this pod (checks.md B1, C1, A2, A3). */
	int peermem;                /* nvidia_peermem or equivalent: 1, 0, -1 */
	int gdrdrv;                 /* gdrdrv module: 1, 0, -1 */
	int active_ports;           /* Active RDMA ports; -1 unknown */
	int port_rate_gbps;         /* fastest Active port; 0 unknown */
	/* "BOARD_ID FW_VER" of the node's most numerous HCA board (PSID), "BOARD_ID
	 * mixed" when those differ on the node; "" unknown (checks.md O5). */
	char hca_fw[32];
	/* A10: the GID the KV library uses on the first RoCE port in use
	 * (UCX's, or Mooncake's where it runs and picks worse: A9's choice),
	 * and what the pod's netns shows of that GID's netdev. */
	struct check_gid_net {
		enum check_gid_kind {
			CHECK_GID_NONE = 0,     /* no RoCE port in use: not judged */
			CHECK_GID_V4,           /* RoCE v2, IPv4-mapped */
			CHECK_GID_V6,           /* RoCE v2, global IPv6 */
			CHECK_GID_V1,           /* RoCE v1: L2 only */
			CHECK_GID_LINK_LOCAL,   /* fe80::/64: not routed */
			CHECK_GID_EMPTY,        /* no GID at the index (or none at all) */
		} kind;
		char what[112];         /* "UCX GID 3 on mlx5_0:1 (ens108np0)" */
		uint32_t gid_v4;        /* kind V4: its address, host order */
		int net_known;          /* the netdev's IPv4 address was read: */
		uint32_t net_v4;        /* its address ... */
		int net_plen;           /* ... and prefix length */
		int routes_known;       /* ip -4 route was read */
		int nroutes;            /* unicast routes via the netdev */
		uint32_t rt_dst[8];
		int rt_plen[8];
	} gid;
	/* D4b: KV leaving the pod takes MNNVL with the settings in force
	 * (digest_net.c: 0 no, 1 UCX_CUDA_IPC_ENABLE_MNNVL on, 2 by UCX's
	 * default), and the NVLink domain of the pod's GPUs ("ClusterUUID U,
	 * CliqueId C"; "" not reported). */
	int mnnvl;
	char nvl_domain[96];
	/* E7b: the first RoCE port off the KV fabric that a GPU's KV lanes
	 * use as UCX takes ports (nicsel.c's lane model), read as gid is:
	 * what "mlx5_8:1 (enp41s0f0np0)", its netdev's subnet and routes;
	 * kind CHECK_GID_NONE when there is none.  reach_all: whether UCX
	 * keeps a RoCE lane its routes cannot carry: 0 no (the route check,
	 * openucx/ucx PR #10135, UCX 1.19.0), 1 UCX_IB_ROCE_REACHABILITY_MODE=
	 * all, 2 a UCX before 1.19.0 (no such check), -1 unknown.  net_sugg:
	 * the UCX_NET_DEVICES ucx-nic-select suggests, "" none. */
	struct check_gid_net offfab;
	int reach_all;
	char net_sugg[128];
	/* The served model as the probe read its config.json (section
	 * model_config, issue 41): what the engine pair rules saw, for the
	 * report.  state "" when the section was not looked at; the numbers
	 * -1 unknown. */
	struct check_model {
		char state[12];         /* "ok", "absent", "denied", "too_large", "unresolved", "unknown" */
		char source[8];         /* "path", "hub", "" */
		char type[32];          /* model_type, "" unknown */
		char architecture[64];  /* architectures[0], "" unknown */
		int sliding_window, hybrid_linear, mla;   /* 1, 0, -1 */
		int kv_heads, layers;                     /* -1 unknown */
	} model;
	/* The engines' and KV libraries' wheels the probe listed (section
	 * mooncake_dist, issue 41): package name and version, for the report. */
	struct check_dist {
		char name[40];
		char version[32];
	} engines[8];
	int nengines;
	/* D6 (issue 42): KV over cuda_ipc as the pair's only path (nvlink.c
	 * fills these, verdict/pairnet.c judges them; 0 is always "unknown"
	 * or "not so").  ipc_path: 1 same node, no RDMA; 2 multi-node NVLink,
	 * no RDMA.  nvlink: 1 the GPUs have active NVLink, 2 none (PCIe).
	 * kv_dir: 'R' the engine READs KV (vLLM NixlConnector/NixlPullConnector),
	 * 'W' it WRITEs (NixlPushConnector).  ipc_get:
	 * UCX_CUDA_IPC_ENABLE_GET_ZCOPY 1 y/on, 2 n/off.  fabric_mem: KV
	 * allocated with a CUDA fabric handle, 1 yes (the engine's switch), 2
	 * no (vLLM or SGLang without it). */
	int ipc_path, nvlink, ipc_get, fabric_mem;
	char kv_dir;
	/* E8b (issue 42): the devices Mooncake is given (nicsel_mc.c:
	 * --disaggregation-ib-device or MOONCAKE_DEVICE as listed, "" none),
	 * MC_ENABLE_DEST_DEVICE_AFFINITY set (1; Mooncake tests presence), and
	 * whether those rails are rail-only (1: RoCE, each netdev on a subnet
	 * of its own with no route to another's; 0 not, or unknown). */
	char mc_rails[128];
	int mc_affinity, mc_rail_only;
	/* E8b without affinity (issue 42 item 3): per rank (the judged GPUs
	 * in CUDA_VISIBLE_DEVICES order) the listed NICs Mooncake prefers for
	 * its GPU, ';' between ranks, '+' within one ("mlx5_0;mlx5_1"), "?"
	 * for a GPU with none on its switch; "" not known. */
	char mc_rank_nics[192];
};

/* One GPU of the pod and the RDMA port(s) its KV uses (ucx-nic-select,
 * checks.md E7): the ports UCX takes that it ranks nearest to the GPU's
 * memory, and where the check suggests a UCX_NET_DEVICES, the ports under
 * that value.  Fixed-size strings: "" when unknown. */
#define CHECK_GPU_NIC_PORTS 8
struct check_gpu_nic_port {
	char dev[40];               /* "mlx5_0:1" (name cut at 27) */
	char state[12];             /* "ACTIVE", "DOWN", ... */
	char link_layer[12];        /* "InfiniBand", "Ethernet" */
};

struct check_gpu_nic {
	int gpu;                    /* index in nvidia-smi topo -m */
	int numa;                   /* the GPU's NUMA node, -1 unknown */
	char link[8];               /* topo -m code of the chosen port(s): "PIX" */
	char chosen_by[32];         /* "UCX_NET_DEVICES", "unset", "all"; Mooncake (E8): "--disaggregation-ib-device", "MOONCAKE_DEVICE"; NIXL LIBFABRIC on EFA (E9): "LIBFABRIC" */
	int n, nsugg;               /* -1: the list was longer, truncated */
	struct check_gpu_nic_port nic[CHECK_GPU_NIC_PORTS];
	struct check_gpu_nic_port sugg[CHECK_GPU_NIC_PORTS];
	char sugg_link[8];
	int max_rails;              /* rails one NIXL put/get stripes over */
};

struct check_results {
	struct check_result *v;
	size_t n, cap;
	/* One per GPU row of topo -m, set by ucx-nic-select; NULL when it
	 * did not judge the pod's NICs (~8 KiB on an 8-GPU node). */
	const struct check_gpu_nic *gpu_nics;
	size_t n_gpu_nics;
	enum fabric fabric;       /* what check_pod() concluded for this pod */
	struct check_summary summary;
	/* check_results_freeze(): 1 when v, every string in it and gpu_nics
	 * are one frozen whole, kept once per distinct content across all
	 * pods (util/intern.h) and read-only; the next change thaws the whole
	 * into owned copies first.  0: all of it owned. */
	int frozen;
};

#define CHECK_RESULTS_INIT { 0 }

void check_results_init(struct check_results *r);
/* Appends a copy of *res (detail and remedy are duplicated; name is not);
 * its id comes from its name (res->id is not read). */
void check_results_add(struct check_results *r, const struct check_result *res);
/* Frees all strings and the array; r may be reused after check_results_init. */
void check_results_release(struct check_results *r);
/* Freezes r, a pod's results once judged: its array, strings and NIC
 * list become one immutable whole kept once per distinct content across
 * all pods (util/intern.h; issue 27: ~3 KiB a pod instead of ~7).  The
 * results read the same; a later append (drift, transfer) thaws the whole
 * into owned copies first.  Freezing frozen results does nothing. */
void check_results_freeze(struct check_results *r);
/* Adds a result of the defined check `name` (its family and rank from the
 * table) judged outside check_pod(), e.g. recipe drift; remedy NULL takes
 * the table's.  Strings are copied.  -1 for an unknown name. */
int check_results_add_def(struct check_results *r, const char *name,
			  enum check_status st, const char *detail,
			  const char *remedy);
/* The first result with this name, or NULL. */
const struct check_result *check_results_find(const struct check_results *r,
					      const char *name);
/* The first result of the table's row id (< CK__COUNT), or NULL. */
const struct check_result *check_results_find_id(const struct check_results *r,
						 enum check_id id);
/* Worst status among results of one family; CHECK_SKIPPED when the family
 * has only skipped results, and -1 when it has none or none of them applies
 * here (the table prints "-"). */
int check_results_family_status(const struct check_results *r,
				enum check_family f);

/* One root cause per pod (fold.c, checks.md N): the name of the failed
 * check that result i of r follows from (no RDMA device explains "no UCX
 * RDMA transport" and TCP lanes in the log), or NULL when it follows
 * from none (it is a root itself, ok, or not applicable).  Static. */
const char *check_cause(const struct check_results *r, size_t i);
/* The root of the first non-ok, applicable result called name: its
 * cause, or name itself when it is a root; NULL when there is none. */
const char *check_cause_of(const struct check_results *r, const char *name);

/* One check of the table (src/check/table.def, where each field is
 * explained). */
enum check_path { CHECK_PATH_IB, CHECK_PATH_EFA, CHECK_PATH_NVLINK, CHECK_PATH__COUNT };
struct check_def {
	const char *name;
	enum check_family family;
	int rank;
	const char *rule;         /* one line: what it judges (checks.md id) */
	const char *remedy;       /* default remedy when not ok */
	/* The KV-path links it proves or breaks, per path: bit i for link i
	 * (enum check_link_id, links.h); 0 off the path. */
	unsigned char links[CHECK_PATH__COUNT];
	const char *env;          /* variables it depends on, space-separated; "" none */
	const char *anchor;       /* docs/checks.md section: "A1", "I" */
};


/* NULL when name is unknown. */
const struct check_def *check_def(const char *name);
/* The table's row of a check (results.c); id < CK__COUNT. */
const struct check_def *check_def_of(enum check_id id);
/* check_results_add_def() by the check's id: cannot fail. */
void check_results_add_id(struct check_results *r, enum check_id id,
			  enum check_status st, const char *detail,
			  const char *remedy);
/* The whole table, in emission order; *n receives its length. */
const struct check_def *check_defs(size_t *n);

/* What a pod alone does not know.  Zero-initialise, then set what is
 * known; all fields are optional. */
struct check_context {
	const char *node;         /* for remedies ("on node gpu-a2"); NULL unknown */
	const char *role;         /* "prefill", "decode", "worker"; NULL unknown */
	/* 1: KV moves between pods (disaggregated P/D in separate pods), so
	 * NVLink cannot carry it and RDMA is required (checks.md D1, N2);
	 * 0: one pod / aggregated; -1 or 0-initialised with kv_known == 0:
	 * unknown, assumed 1 for prefill/decode roles. */
	int kv_cross_pod;
	/* 1: prefill and decode run on different nodes. */
	int kv_cross_node;
	/* 1: no pod this one hands KV to (the other of prefill/decode; any
	 * of them for another role) runs on this pod's node, so cuda_ipc
	 * cannot carry its KV; 0: some does, or unknown. */
	int kv_peers_apart;
	int kv_known;             /* 1 when the two fields above were set */
	size_t npods;             /* worker pods in the deployment, 0 unknown */
	enum fabric expected;     /* from the recipe; FABRIC_UNKNOWN if not known */
	/* NIXL backend the workers are configured with ("UCX", "LIBFABRIC"),
	 * from the recipe (vLLM kv_connector_extra_config.backends); NULL
	 * unknown: the pod's own facts do not say which one is used. */
	const char *nixl_backend;
	long expected_rate_gbps;  /* fleet's RDMA port rate; 0: per-pod mode */
	/* For a decode pod: the command and args of a prefill pod of its
	 * graph (its check_context.args), for the framework book's pair rules
	 * (model/fwrules.h fwr_pair); NULL for other roles or unknown. */
	const char *peer_args;
	/* This pod's container command and args, space-joined, for the
	 * framework rule book; NULL when the spec has none.  Borrowed from
	 * pod_info.args (kube/pods.h), outside the interned pod_spec_facts so
	 * that identical specs stay shared (one copy per distinct spec). */
	const char *args;
	/* Why args is NULL though the container has some (pod_info.args_unread:
	 * past the 64 KiB read); NULL or "" when not so.  The fw-* checks are
	 * then skipped with it, never absent (issue 37). */
	const char *args_unread;
	/* For a decode pod whose prefill peer's command and args were not
	 * read (that pod's args_unread): the reason; the pair rule is then
	 * skipped with it.  NULL otherwise. */
	const char *peer_args_unread;
	/* Where the variables of that container come from, for what a rule
	 * prints (model/shown.h): pod_info.secret_env and plain_env
	 * (kube/pods.h), borrowed; NULL: unknown, so no word an expansion
	 * made is printed. */
	const char *secret_env, *plain_env;
	/* Nodes of this pod's worker (a multinode worker's group size, from
	 * what the pod carries: kube/pods.h pod_info.nodes); 0 or 1: one. */
	int nodes;
	/* The known-issues table the known-bad checks read (check/known.h):
	 * the built-in one merged with --known-issues; NULL: the built-in. */
	const struct known_table *known;
};

/* Runs every check on one probed pod and appends results to out (which
 * the caller initialised); sets out->fabric.  spec and ctx may be NULL. */
void check_pod(const struct probe_facts *f, const struct pod_spec_facts *spec,
	       const struct check_context *ctx, struct check_results *out);

/* For a pod that could not be probed (not Running, exec refused, report
 * unparseable): one skipped "pod-probe" result carrying reason, plus the
 * pod-spec checks (checks.md M) that need no exec when spec is given. */
void check_pod_unprobed(const char *reason, const struct pod_spec_facts *spec,
			const struct check_context *ctx,
			struct check_results *out);

#endif
