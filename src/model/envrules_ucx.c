/* The rule book's UCX judges (envrules_int.h): UCX_TLS as UCX reads its
 * transport list and aliases, UCX_NET_DEVICES, GPUDirect, rendezvous and
 * the UCX booleans. */
#include "model/envrules_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- UCX_TLS ------------------------------------------------------- */

#define B(x) (1u << ENVR_TL_##x)
#define TL_ALL ((1u << ENVR_TL_COUNT) - 1)
#define TL_SHM (B(POSIX) | B(SYSV) | B(CMA))
#define TL_IB (B(RC_MLX5) | B(DC_MLX5) | B(UD_MLX5) | B(RC_VERBS) | B(UD_VERBS))

static const char *const tl_names[ENVR_TL_COUNT] = {
	"cuda_copy", "cuda_ipc", "gdr_copy", "rc_mlx5", "dc_mlx5", "ud_mlx5",
	"rc_verbs", "ud_verbs", "tcp", "srd", "posix", "sysv", "cma", "self",
	"gga_mlx5",
};

/* openucx/ucx src/ucp/core/ucp_context.c ucp_tl_aliases[], reduced to the
 * transports judged here. */
static const struct { const char *name; unsigned bits; } aliases[] = {
	{ "all", TL_ALL },
	{ "rc", B(RC_MLX5) | B(RC_VERBS) | B(UD_MLX5) | B(UD_VERBS) },
	{ "rc_x", B(RC_MLX5) | B(UD_MLX5) },
	{ "rc_v", B(RC_VERBS) | B(UD_VERBS) },
	{ "dc", B(DC_MLX5) }, { "dc_x", B(DC_MLX5) },
	{ "ud", B(UD_MLX5) | B(UD_VERBS) }, { "ud_x", B(UD_MLX5) },
	{ "ud_v", B(UD_VERBS) },
	/* gga_mlx5 joined ib, and gga named it, in UCX 1.19.0 (1.18.x: only
	 * its own name or all); it carries no KV alone (no AM), so it stays
	 * out of TL_IB, which the judges read as "RDMA allowed" */
	{ "ib", TL_IB | B(GGA_MLX5) }, { "gga", B(GGA_MLX5) },
	{ "cuda", B(CUDA_COPY) | B(CUDA_IPC) | B(GDR_COPY) },
	{ "sm", TL_SHM }, { "shm", TL_SHM }, { "mm", B(POSIX) | B(SYSV) },
};

int envr_tl_by_name(const char *name)
{
	for (int t = 0; t < ENVR_TL_COUNT; t++)
		if (!strcmp(tl_names[t], name))
			return t;
	return -1;
}

static unsigned token_bits(const char *tok, size_t len)
{
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
		if (strlen(aliases[i].name) == len && !strncmp(aliases[i].name, tok, len))
			return aliases[i].bits;
	for (int t = 0; t < ENVR_TL_COUNT; t++)
		if (strlen(tl_names[t]) == len && !strncmp(tl_names[t], tok, len))
			return 1u << t;
	return 0;  /* rocm, ugni, knem...: nothing judged */
}

unsigned envr_tls_allowed(const char *tls)
{
	unsigned bits = 0;
	int deny;

	if (!tls || !*tls)
		return TL_ALL;
	deny = *tls == '^';
	for (const char *p = tls + deny; *p;) {
		size_t len = strcspn(p, ",");
		size_t name = strcspn(p, ":,");  /* "rc_mlx5:aux" */

		bits |= token_bits(p, name < len ? name : len);
		p += len;
		if (*p == ',')
			p++;
	}
	return deny ? TL_ALL & ~bits : bits;
}

/* SGLang's default backend is Mooncake (server_args.py). */
int envr_ucx_off(const struct envr_ctx *c)
{
	return c->libfabric || c->mooncake;
}

/* KV may ride multi-node NVLink: an IMEX channel its peers share. */
static int kv_nvl(const struct envr_ctx *c)
{
	return (c->fabric & ENVR_FAB_MNNVL) && !c->kv_nvl_apart;
}

JUDGE(tls_rdma)
{
	unsigned a = envr_tls_allowed(v);

	(void)env;
	if (envr_ucx_off(c) || !c->kv_cross)
		return ENVR_OK;
	if (c->fabric & ENVR_FAB_IB) {
		if (a & TL_IB)
			return ENVR_OK;
		if (kv_nvl(c) && (a & B(CUDA_IPC))) {
			*why = "allows no InfiniBand/RoCE transport: KV outside the NVLink domain uses TCP";
			return ENVR_WARN;
		}
		return ENVR_FAIL;
	}
	if (c->fabric & ENVR_FAB_EFA) {
		*why = "allows no EFA transport (srd): UCX KV transfer uses TCP";
		return a & B(SRD) ? ENVR_OK : ENVR_FAIL;
	}
	/* Multi-node NVLink (a ComputeDomain) carries KV over cuda_ipc. */
	if ((a & (TL_IB | B(SRD))) || (kv_nvl(c) && (a & B(CUDA_IPC))))
		return ENVR_OK;
	if (c->rdma_needed)
		return ENVR_FAIL;
	if (!(a & B(TCP))) {
		/* no RDMA transport, no tcp: UCX finds no lane to the peer */
		*why = "allows no transport that reaches another pod (no RDMA, no tcp): no KV path at all";
		return ENVR_FAIL;
	}
	*why = "is TCP only for KV transfer between pods";
	return ENVR_WARN;
}

/* UCX_TLS names one of UCX's oneAPI Level Zero transports (openucx/ucx
 * src/uct/ze/: ze_copy, ze_ipc, ze_gdr): the worker drives Intel GPUs, and
 * UCX's CUDA transports are not its GPU path (Dynamo's qwen3-vl
 * hetero_hardware_disagg recipe: an XPU encoder with ze_copy). */
static int intel_gpu(const char *v)
{
	for (const char *p = strstr(v, "ze_"); p; p = strstr(p + 1, "ze_"))
		if (p == v || p[-1] == ',' || p[-1] == '^' || p[-1] == ' ')
			return 1;
	return 0;
}

JUDGE(tls_cuda)
{
	(void)env, (void)why;
	if (envr_ucx_off(c) || intel_gpu(v) || (envr_tls_allowed(v) & B(CUDA_COPY)))
		return ENVR_OK;
	return c->kv_cross ? ENVR_FAIL : ENVR_WARN;
}

#define IPC_COST "excludes cuda_ipc, UCX's only multi-node NVLink transport: KV between the trays takes the RDMA rails instead of the NVLink this ComputeDomain offers, a NIC's bandwidth (400 Gb/s per ConnectX-7 port) instead of NVLink's (up to 1.8 TB/s per GB200 GPU)"

JUDGE(tls_ipc)
{
	unsigned a = envr_tls_allowed(v);

	(void)env;
	if (envr_ucx_off(c) || !(a & B(CUDA_COPY)) || (a & B(CUDA_IPC)))
		return ENVR_OK;
	/* Multi-node NVLink is cuda_ipc's alone (cuda_ipc_md.c): with an RDMA
	 * transport and rails, KV between the trays takes RDMA, a cost, not
	 * a break (issue 39 item 5); without, cuda_ipc was its only GPU path. */
	if (kv_nvl(c)) {
		int rdma = (c->fabric & ENVR_FAB_IB) && (a & TL_IB);

		*why = rdma ? IPC_COST : "excludes cuda_ipc, the only GPU path between these multi-node NVLink pods (no RDMA transport allowed): KV is staged through host memory";
		if (rdma)
			return ENVR_WARN;
	}
	if (kv_nvl(c))
		return c->kv_cross ? ENVR_FAIL : ENVR_WARN;
	/* A peer on this node that cuda_ipc reaches (a shared IPC namespace:
	 * openucx/ucx#10070; masked GPUs too: UCX PR #4137): with no RDMA
	 * transport to loop KV through the NIC, cuda_ipc was its only GPU
	 * path (issue 39 item 5). */
	if (c->peer_ipc && c->kv_cross && !((c->fabric & ENVR_FAB_IB) && (a & TL_IB))) {
		*why = "excludes cuda_ipc, the only GPU path to the KV peer on the same node (no RDMA transport allowed or found): KV is staged through host memory";
		return ENVR_FAIL;
	}
	/* One GPU per worker (TP 1): no GPU pair in the pod for cuda_ipc,
	 * and another pod's GPUs are not visible to it (each pod sees only
	 * the GPUs it was given), so excluding it costs nothing. */
	if (c->one_gpu)
		return ENVR_OK;
	/* cuda_ipc only reaches GPUs of the same node (ucx
	 * src/uct/cuda/cuda_ipc: same-host peers, or an MNNVL domain): with
	 * every peer on another node, excluding it costs the KV nothing. */
	return c->peer_apart ? ENVR_OK : ENVR_WARN;
}

JUDGE(tls_rc_ud)
{
	unsigned a = envr_tls_allowed(v);

	(void)env, (void)why;
	if (envr_ucx_off(c) || *v == '^')
		return ENVR_OK;
	return (a & (B(RC_MLX5) | B(RC_VERBS))) && !(a & (B(UD_MLX5) | B(UD_VERBS) | B(DC_MLX5)))
		? ENVR_WARN : ENVR_OK;
}

/* UCX_NET_DEVICES: all | dev[:port][,...].  What kind of names it has. */
struct nd_shape {
	int hca, netdev, bad, noport;
};

static struct nd_shape nd_shape(const char *v)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
	struct nd_shape s = { 0, 0, 0, 0 };

	for (const char *p = v;; p++) {
		size_t len = strcspn(p, ","), colon = strcspn(p, ":,");

		if (len == 0)
			s.bad = 1;
		for (size_t i = 0; i < colon; i++)
			if (!strchr(ok, p[i]))
				s.bad = 1;
		if (colon < len) {
			s.hca = 1;
			if (colon + 1 == len || strspn(p + colon + 1, "0123456789") != len - colon - 1)
				s.bad = 1;
		} else if (len == 3 && !strncmp(p, "all", 3)) {
			s.hca = 1;
		} else if (!strncmp(p, "mlx5_", 5) || !strncmp(p, "rdmap", 5) || !strncmp(p, "ibp", 3)) {
			s.noport = 1;
		} else {
			s.netdev = 1;
		}
		p += len;
		if (!*p)
			break;
	}
	return s;
}

JUDGE(nd_syntax)
{
	(void)env, (void)c, (void)why;
	return nd_shape(v).bad ? ENVR_FAIL : ENVR_OK;
}

/* KV leaves the pod over UCX on an RDMA fabric. */
static int ucx_rdma_kv(const struct envr_ctx *c)
{
	return c->kv_cross && !envr_ucx_off(c) && (c->fabric & (ENVR_FAB_IB | ENVR_FAB_EFA));
}

/* ucp_context.c ucp_is_resource_in_device_list compares each entry with
 * the resource's "mlx5_0:1" by strcmp (UCX 1.9 to 1.20): a port-less HCA
 * matches nothing, so with no entry naming a port no RDMA lane is left. */
JUDGE(nd_port)
{
	struct nd_shape s = nd_shape(v);

	(void)env, (void)why;
	if (s.bad || !s.noport)
		return ENVR_OK;
	return !s.hca && ucx_rdma_kv(c) ? ENVR_FAIL : ENVR_WARN;
}

JUDGE(nd_netdev)
{
	struct nd_shape s = nd_shape(v);

	(void)env, (void)why;
	return !s.bad && !s.noport && s.netdev && !s.hca && ucx_rdma_kv(c) ? ENVR_FAIL : ENVR_OK;
}

JUDGE(gdr_off)
{
	(void)env, (void)why;
	if (!envr_is_no(v))
		return ENVR_OK;
	return (c->fabric & ENVR_FAB_IB) && c->kv_cross ? ENVR_FAIL : ENVR_WARN;
}

JUDGE(dmabuf_off)
{
	(void)env, (void)why;
	return envr_is_no(v) && c->peermem != 1 ? ENVR_WARN : ENVR_OK;
}

static int efa_ucx(const struct envr_ctx *c)
{
	return (c->fabric & ENVR_FAB_EFA) && !envr_ucx_off(c);
}

JUDGE(rndv_scheme)
{
	(void)env, (void)why;
	return efa_ucx(c) && envr_is(v, "get_zcopy") ? ENVR_FAIL : ENVR_OK;
}

/* Dynamo disagg-communication-guide.md (AWS EFA, Ubuntu 24.04, kernel
 * >= 6.8): "Using get_zcopy or threshold 0 will cause remote invalid RD
 * request errors and worker crashes": the threshold fails like the scheme. */
JUDGE(rndv_thresh)
{
	(void)env, (void)why;
	return efa_ucx(c) && envr_is(v, "0") ? ENVR_FAIL : ENVR_OK;
}

/* A UCX boolean off warns; one ucs_config_sscanf_bool rejects
 * (envr_ucx_bool) is bad_sev, for the reason bad. */
static enum envr_sev ucx_no(const char *v, const char **why, const char *bad, enum envr_sev bad_sev)
{
	int b = envr_ucx_bool(v);

	if (b < 0)
		*why = bad;
	return b < 0 ? bad_sev : b ? ENVR_OK : ENVR_WARN;
}

/* In a ucp_context option a rejected value makes ucp_config_read fail
 * (parser.c, ignore_errors 0): NIXL's UCX backend is never created
 * (ai-dynamo/nixl src/plugins/ucx/config.cpp "Failed to create UCX
 * config"). */
JUDGE(ucp_no)
{
	(void)env, (void)c;
	return ucx_no(v, why, "is not a value UCX reads (y/yes/n/no/1/0, on/off): ucp_config_read fails and NIXL's UCX backend is not created",
		      ENVR_FAIL);
}

/* In a global option (ucs_global_opts_init, ignore_errors 1) UCX logs
 * the error and keeps the default. */
JUDGE(ucs_no)
{
	(void)env, (void)c;
	return ucx_no(v, why, "is not a value UCX reads (y/yes/n/no/1/0, on/off): UCX logs an error and keeps the default (yes)",
		      ENVR_WARN);
}
WARN_IF(warn_yes, envr_is_yes(v))
