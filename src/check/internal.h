/* Shared by the check families; not part of the API (see check.h). */
#ifndef CHECK_INTERNAL_H
#define CHECK_INTERNAL_H

#include "check/check.h"
#include "evidence/evidence.h"
#include "probe/facts.h"
#include "util/strcopy.h"


/* Everything a family needs, resolved once by check_pod(). */
struct check_input {
	const struct probe_facts *f;        /* NULL for unprobed pods */
	const struct pod_spec_facts *spec;  /* never NULL (all -1 if unknown) */
	const struct check_context *ctx;    /* never NULL */
	/* Facts shared across families, reconciled over every source
	 * (evidence.h); zero for unprobed pods. */
	struct evidence ev;
	enum fabric fabric;                 /* detected (check_fabric) */
	int cross_pod;                      /* resolved: KV leaves the pod */
	char on_node[96];                   /* " on node X" or "" */
};

/* Appends one result; remedy NULL takes the table's default (ignored for
 * ok).  detail is printf-formatted. */
void emit(struct check_results *out, enum check_id id, enum check_status st,
	  const char *remedy, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Names the sources behind the result just emitted (evidence.h). */
void emit_source(struct check_results *out, const char *source);
/* Gives the result just emitted the variable NAME=value to paste (none
 * when value is NULL or empty). */
void emit_suggest(struct check_results *out, const char *name, const char *value);
/* A not-applicable skip (CHECK_F_NA). */
void emit_na(struct check_results *out, enum check_id id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* CHECK_FAIL where the pod ships KV across pods over RDMA, else
 * CHECK_WARN: the same gap is fatal in one deployment and a note in an
 * aggregated one. */
enum check_status hard(const struct check_input *in);
/* OK or ABSENT: the source answered (ABSENT of a directory is a fact). */
int src_known(const struct probe_src *s);
/* "ucx_info not found in the container" etc., into b. */
const char *src_why(const struct probe_src *s, const char *what, char *b,
		    size_t n);
/* Transport variable of the main process; NULL when unset or unreadable. */
const char *envv(const struct check_input *in, const char *name);
/* The Secret that may have set variable name (run/mask.h marks it), NULL
 * when none: check output then prints model/shown.h shown_value, never the
 * value or a part of it. */
const char *env_secret(const struct check_input *in, const char *name);
int env_readable(const struct check_input *in);
/* Mooncake carries the worker's KV: its command line, else its SGLang
 * --config YAML (probe section sglang_config), else SGLang's default on a
 * disaggregated worker (env.c). */
int check_mooncake_kv(const struct check_input *in);
int is_no(const char *v);
int is_yes(const char *v);
/* "NAME:PORT" with NAME cut at cut bytes, into dst of n bytes: what
 * snprintf(dst, n, "%.*s:%d", cut, name, port) writes. */
void dev_port(char *dst, size_t n, const char *name, size_t cut, int port);
int dev_is_efa(const struct probe_rdma_dev *d);
/* The directory of a library path into b, "/usr/lib..." counted as
 * "/lib..." (merged /usr); E1 and F6 compare UCX directories with it. */
void lib_dir(const char *path, char *b, size_t n);
/* The best device list (sysfs, else a tool with data); NULL when nothing
 * could be read. */
const struct probe_rdma_list *rdma_list(const struct probe_facts *f);
void rdma_count(const struct probe_rdma_list *l, int *nib, int *nefa);
/* "mlx5_0, mlx5_1 and 6 more" (efa selects EFA or non-EFA devices). */
void dev_names(const struct probe_rdma_list *l, int efa, char *b, size_t n);

/* env.c: the process env as the rule book's view; returns the owned
 * array behind view (free it), whose names and values point into e. */
struct envr_var;
struct envr_view;
struct envr_gid_port;
struct envr_var *book_view(const struct probe_env *e, struct envr_view *view);
/* Port pt's GID table as the env rule book sees it (checks.md A9), named
 * name (the caller's, kept by pointer). */
void gid_port_view(const struct probe_rdma_port *pt, const char *name, struct envr_gid_port *gp);

/* rdma.c: does the workload use this port (UCX_NET_DEVICES, else
 * NCCL_IB_HCA, else every port)?  *named: a variable chose it. */
int port_in_use(const struct check_input *in, const struct probe_rdma_dev *d,
		int port, int *named);
/* The port as the best source saw it (sysfs, else a tool). */
const struct probe_rdma_port *port_view(const struct probe_facts *f,
					const struct probe_rdma_dev *d, int p);

/* UCX_TLS semantics (env.c): bit PROBE_TL_x set when transport x is
 * allowed; handles aliases (rc, rc_x, dc, ud, ib, cuda, sm, shm, all) and
 * the leading ^ of a deny-list.  NULL or "" allows all. */
unsigned ucx_tls_allowed(const char *tls);
#define TLB(x) (1u << (x))
#define TL_RDMA_IB (TLB(PROBE_TL_RC_MLX5) | TLB(PROBE_TL_DC_MLX5) | \
		    TLB(PROBE_TL_UD_MLX5) | TLB(PROBE_TL_RC_VERBS) | \
		    TLB(PROBE_TL_UD_VERBS))

/* env.c: appends "mlx5_3:1 down" (or "not an RDMA device here") to bad
 * for each UCX_NET_DEVICES entry of v that is not an Active RDMA port in
 * this pod; *nbad gets their number.  Returns the number that are. */
struct buf;
int net_devices_scan(const struct check_input *in, const char *v,
		     struct buf *bad, int *nbad);

/* 1 when KV transfer needs RDMA on this pod (cross-pod on IB/RoCE/EFA,
 * or unknown fabric with RDMA hardware). */
int needs_rdma(const struct check_input *in);
int is_rdma_fabric(enum fabric f);

/* podspec.c: whether the pod's DRA claims hold devices of kind k (by the
 * drivers and device classes read from the ResourceClaims): 1, 0, or -1
 * when claims exist that could not be read. */
struct pod_spec_facts;
enum claim_kind { CLAIM_NIC, CLAIM_GPU, CLAIM_IMEX };
int claims_of_kind(const struct pod_spec_facts *s, enum claim_kind k);

/* The families: each appends its results. */
void check_rdma(const struct check_input *in, struct check_results *out);
void check_gpudirect(const struct check_input *in, struct check_results *out);
void check_gdrcopy(const struct check_input *in, struct check_results *out);
void check_nvlink(const struct check_input *in, struct check_results *out);
void check_ucx(const struct check_input *in, struct check_results *out);
/* nicsel.c: the NICs UCX takes (E7). */
void check_nicsel(const struct check_input *in, struct check_results *out);
void check_mooncake_nics(const struct check_input *in, struct check_results *out);
/* Whether UCX u carries openucx/ucx PR #11547's lane tie-break (1/0);
 * *assumed: 1 where that is a guess (nicsel.c says which). */
int nicsel_ucx_11547(const struct probe_ucx *u, int *assumed);
/* KV goes through TensorRT-LLM's UCX cache transceiver (nicsel_ucx.c). */
int nicsel_trtllm_ucx(const struct check_input *in);
void check_vm(const struct check_input *in, struct check_results *out);
void check_nixl(const struct check_input *in, struct check_results *out);
void check_efa(const struct check_input *in, struct check_results *out);
void check_env(const struct check_input *in, struct check_results *out);
void check_limits(const struct check_input *in, struct check_results *out);
void check_podspec(const struct check_input *in, struct check_results *out);
/* host.c: A8, E1, H3, H4 (probed pods only). */
void check_host(const struct check_input *in, struct check_results *out);
/* knownbad.c: the known-bad table (F5; probed pods only). */
void check_knownbad(const struct check_input *in, struct check_results *out);
/* framework.c: the framework rule book on the worker (J5-J10). */
void check_framework(const struct check_input *in, struct check_results *out);
/* stack.c: which NIXL/UCX copies load (F6-F8; probed pods only). */
void check_stack(const struct check_input *in, struct check_results *out);
/* observed.c: what the ports moved in check --observe's window (O1-O3). */
void check_observed(const struct check_input *in, struct check_results *out);
/* O4 link health (linkhealth.c): PCIe links trained below their ends. */
void check_linkhealth(const struct check_input *in, struct check_results *out);
/* O5: "BOARD_ID FW_VER" of the most numerous HCA board of the pod's RDMA
 * device list ("BOARD_ID mixed" when they differ), "" when none read: the
 * node value rules.def HCA_FW compares across nodes. */
void hca_firmware(const struct probe_facts *f, char *v, size_t n);

/* digest.c: the cross-pod digest in struct check_summary.  _spec first
 * (it also marks the probe's part unknown), then check_digest() for a
 * probed pod. */
void check_digest_spec(const struct pod_spec_facts *spec, struct check_summary *s);
/* results.c: a digest that claims nothing (what check_digest_spec(NULL)
 * leaves): every probe-only fact unknown, the spec not known. */
void check_summary_unknown(struct check_summary *s);
void check_digest(const struct check_input *in, struct check_summary *s);
/* digest_net.c: the GID/netdev and NVLink-domain part (A10, D4b). */
void check_digest_net(const struct check_input *in, struct check_summary *s);
/* The IPv4 address and routes of netdev dev, into g (digest_net.c). */
void check_netdev_view(const struct probe_ipnet *ip, const char *dev, struct check_gid_net *g);

/* Fabric detection from facts and context (checks.md N1). */
enum fabric check_fabric(const struct probe_facts *f,
			 const struct pod_spec_facts *spec,
			 const struct check_context *ctx);

#endif
