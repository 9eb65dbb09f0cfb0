/* The transport-environment rule book (see envrules.h).  Every row names
 * its source: env-vars.md (the project's digest) and the upstream file or
 * document it was read from. */
#include "model/envrules.h"
#include "model/shown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/xalloc.h"

/* ---- values -------------------------------------------------------- */

static int is(const char *v, const char *a)
{
	return v && !strcasecmp(v, a);
}

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

/* ---- judges: ENVR_OK = not dangerous here -------------------------- */

#define JUDGE(fn) static enum envr_sev fn(const char *v, const struct envr_view *env, \
					  const struct envr_ctx *c, const char **why)
#define UNUSED4 (void)v, (void)env, (void)c, (void)why

/* UCX is not on the KV path when NIXL uses LIBFABRIC or Mooncake carries
 * the KV (SGLang's default backend, server_args.py): then no UCX_ rule
 * applies (envr_eval). */
static int ucx_off(const struct envr_ctx *c)
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
	if (ucx_off(c) || !c->kv_cross)
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
	if (ucx_off(c) || intel_gpu(v) || (envr_tls_allowed(v) & B(CUDA_COPY)))
		return ENVR_OK;
	return c->kv_cross ? ENVR_FAIL : ENVR_WARN;
}

#define IPC_COST "excludes cuda_ipc, UCX's only multi-node NVLink transport: KV between the trays takes the RDMA rails instead of the NVLink this ComputeDomain offers, a NIC's bandwidth (400 Gb/s per ConnectX-7 port) instead of NVLink's (up to 1.8 TB/s per GB200 GPU)"

JUDGE(tls_ipc)
{
	unsigned a = envr_tls_allowed(v);

	(void)env;
	if (ucx_off(c) || !(a & B(CUDA_COPY)) || (a & B(CUDA_IPC)))
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
	if (ucx_off(c) || *v == '^')
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
	return c->kv_cross && !ucx_off(c) && (c->fabric & (ENVR_FAB_IB | ENVR_FAB_EFA));
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
	return (c->fabric & ENVR_FAB_EFA) && !ucx_off(c);
}

JUDGE(rndv_scheme)
{
	(void)env, (void)why;
	return efa_ucx(c) && is(v, "get_zcopy") ? ENVR_FAIL : ENVR_OK;
}

/* Dynamo disagg-communication-guide.md (AWS EFA, Ubuntu 24.04, kernel
 * >= 6.8): "Using get_zcopy or threshold 0 will cause remote invalid RD
 * request errors and worker crashes": the threshold fails like the scheme. */
JUDGE(rndv_thresh)
{
	(void)env, (void)why;
	return efa_ucx(c) && is(v, "0") ? ENVR_FAIL : ENVR_OK;
}

#define WARN_IF(fn, cond) JUDGE(fn) { UNUSED4; return (cond) ? ENVR_WARN : ENVR_OK; }
#define FAIL_IF(fn, cond) JUDGE(fn) { UNUSED4; return (cond) ? ENVR_FAIL : ENVR_OK; }

WARN_IF(warn_no, envr_is_no(v))
WARN_IF(warn_yes, envr_is_yes(v))
WARN_IF(nccl_eq0, envr_nccl_int(v, 1) == 0)
WARN_IF(nccl_eq1, envr_nccl_int(v, 0) == 1)
WARN_IF(warn_loc, envr_nccl_loc(v))
/* NCCL carries the worker's own TP/EP collectives, not KV (NIXL or
 * Mooncake do): with the whole group in one pod on one node NCCL uses
 * NVLink/P2P/SHM and never the network, so turning its IB off is harmless
 * (and recipes do it on purpose). */
FAIL_IF(nccl_ib_off, (c->fabric & ENVR_FAB_IB) && envr_nccl_int(v, 0) && !c->tp_in_pod)
FAIL_IF(nccl_socket, (c->fabric & (ENVR_FAB_IB | ENVR_FAB_EFA)) && is(v, "Socket"))
WARN_IF(plugin_none, (c->fabric & ENVR_FAB_EFA) && is(v, "none"))
FAIL_IF(fi_no_efa, (c->fabric & ENVR_FAB_EFA) && !envr_fi_admits(v, "efa"))
FAIL_IF(efa_rdma_off, (c->fabric & ENVR_FAB_EFA) && envr_fi_false(v))
/* efa_env.c: enable_shm_transfer is FI_PARAM_INT, strtol (src/var.c). */
FAIL_IF(efa_shm_on, (c->fabric & ENVR_FAB_EFA) && strtol(v, NULL, 0) != 0)

JUDGE(p2p_off)
{
	(void)env, (void)why;
	if (envr_nccl_int(v, 0) != 1)        /* paths.cc: strtol(...) == 1 */
		return ENVR_OK;
	return c->nvlink == 0 ? ENVR_WARN : ENVR_FAIL;
}

/* Multi-node NVLink asked for without a ComputeDomain (IMEX channel). */
JUDGE(mnnvl_no_cd)
{
	(void)env, (void)why;
	return envr_is_yes(v) && !(c->fabric & ENVR_FAB_MNNVL) ? ENVR_WARN : ENVR_OK;
}

/* The fabric's must-haves (v is "" when unset).  Not UCX_IB_ADDR_TYPE:
 * deprecated since UCX 1.10 ("To force use of global routing use
 * IS_GLOBAL", src/uct/ib/base/ib_iface.c), RoCE always global
 * (uct_ib_iface_is_roce), so unset is right.  Not
 * UCX_CUDA_IPC_ENABLE_MNNVL: its default is "try" since UCX 1.18.0
 * (src/uct/cuda/cuda_ipc/cuda_ipc_md.c), so unset uses MNNVL. */
WARN_IF(need_efa_shm, (c->fabric & ENVR_FAB_EFA) && c->kv_cross)

/* ---- GID index (checks.md A9) -------------------------------------- */

/* The GID index v names, or -1 when v is no number (UCX: "auto"). */
static long gid_number(const char *v)
{
	char *end;
	long n;

	if (!v || !*v)
		return -1;
	n = strtol(v, &end, 10);
	return *end || n < 0 ? -1 : n;
}

/* Fail where KV crosses pods and only RDMA keeps it fast, else warn. */
static enum envr_sev gid_sev(const struct envr_ctx *c)
{
	return c->kv_cross && c->rdma_needed ? ENVR_FAIL : ENVR_WARN;
}

/* Judges index idx (pick, when the library chose it) on every port by the
 * one GID rule, the peer's segment unknown; the first worst port is named
 * in the note. */
static enum envr_sev gid_ports(long (*pick)(const struct envr_gid_port *, const struct envr_view *),
			       long idx, const struct envr_view *env,
			       const struct envr_ctx *c, const char *who, const char **why)
{
	size_t bad = 0;
	const char *fault = NULL, *port = NULL;
	long at = idx;
	enum envr_sev worst = ENVR_OK;

	for (size_t i = 0; i < c->n_gid_ports; i++) {
		long k = pick ? pick(&c->gid_ports[i], env) : idx;
		enum envr_gid_class cls;
		const char *f = envr_gid_fault(&c->gid_ports[i], k, &cls);
		enum envr_sev s = f ? envr_gid_l2_rule(cls, ENVR_L2_UNKNOWN) : ENVR_OK;

		bad += !!f;
		if (s > worst) {
			worst = s;
			fault = f;
			port = c->gid_ports[i].name;
			at = k;
		}
	}
	if (worst == ENVR_OK)
		return ENVR_OK;
	if (c->note)
		snprintf(c->note, c->note_n, "%sGID %ld on %s%s: %s", who, at, port,
			 bad > 1 ? " (and more ports)" : "", fault);
	*why = c->note ? c->note : "is not a usable RoCE v2 GID index";
	return worst == ENVR_FAIL ? gid_sev(c) : ENVR_WARN;
}

/* UCX_IB_GID_INDEX=auto: uct_ib_device_select_gid (openucx/ucx
 * src/uct/ib/base/ib_device.c) takes the first GID of RoCE v2/IPv4, then
 * v2/IPv6 (link-local included), v1/IPv4, v1/IPv6; none: index 0. */
static long ucx_pick(const struct envr_gid_port *p, const struct envr_view *env)
{
	unsigned long long v2 = p->roce_v2, v4 = p->ipv4;
	unsigned long long prio[] = { v2 & v4, v2 & ~v4, ~v2 & v4, ~v2 & ~v4 };

	(void)env;
	for (int k = 0; k < 4; k++)
		for (long i = 0; i < ENVR_GID_READ; i++)
			if (p->gids & prio[k] & (1ull << i))
				return i;
	return 0;
}

/* NCCL_IB_GID_INDEX unset: ncclIbGetGidIndex (NVIDIA/nccl
 * src/transport/net_ib.cc) keeps index 0 unless a valid GID (configured,
 * not link-local) of NCCL_IB_ADDR_FAMILY (AF_INET) and
 * NCCL_IB_ROCE_VERSION_NUM (2) comes later. */
static long nccl_pick(const struct envr_gid_port *p, const struct envr_view *env)
{
	const char *fam = envr_get(env, "NCCL_IB_ADDR_FAMILY");
	const char *ver = envr_get(env, "NCCL_IB_ROCE_VERSION_NUM");
	unsigned long long want = p->gids & ~p->link_local &
		(fam && !strcmp(fam, "AF_INET6") ? ~p->ipv4 : p->ipv4) &
		(ver && !strcmp(ver, "1") ? ~p->roce_v2 : p->roce_v2);

	for (long i = 0; i < ENVR_GID_READ; i++)
		if (want & (1ull << i))
			return i;
	return 0;
}

/* A pinned index: UCX takes "auto" or a number and refuses anything else
 * (its config parser); NCCL reads a negative one as automatic.  Mooncake's
 * index, set or not, is gid_mooncake's. */
JUDGE(gid_ucx)
{
	long n = gid_number(v);

	if (is(v, "auto"))
		return ENVR_OK;
	if (n < 0) {
		*why = "is not a GID index (a number or auto): UCX refuses its configuration";
		return ENVR_FAIL;
	}
	return gid_ports(NULL, n, env, c, "pins ", why);
}

JUDGE(gid_nccl)
{
	long n = gid_number(v);

	if (v[0] == '-' && gid_number(v + 1) >= 0)
		return ENVR_OK;   /* NCCL: negative is automatic */
	if (n < 0 || n > 255) {
		*why = "is not a GID index: NCCL ignores it and picks its own";
		return ENVR_WARN;
	}
	return gid_ports(NULL, n, env, c, "pins ", why);
}

/* In a running process, when the variable leaves the choice to the
 * library (unset, "auto", negative): what it picks itself. */
JUDGE(gid_ucx_auto)
{
	if ((*v && !is(v, "auto")) || ucx_off(c))
		return ENVR_OK;
	return gid_ports(ucx_pick, 0, env, c, "unset: UCX picks ", why);
}

JUDGE(gid_nccl_auto)
{
	enum envr_sev s;

	if (*v && v[0] != '-')
		return ENVR_OK;
	s = gid_ports(nccl_pick, 0, env, c, "unset: NCCL picks ", why);
	return s == ENVR_OK ? ENVR_OK : ENVR_WARN;   /* NCCL is off NIXL's KV path */
}

/* Mooncake's choice (kvcache-ai/Mooncake mooncake-transfer-engine):
 * config.cpp reads MC_GID_INDEX, else NCCL_IB_GID_INDEX, with atoi (so "x"
 * is 0) and keeps 0-255; otherwise GlobalConfig gid_index stays -1 and
 * rdma_context.cpp findBestGidIndex ranks the port's GIDs
 * (envr_mooncake_auto, mooncake.c). */
static long mooncake_index(const struct envr_view *env)
{
	const char *v = envr_get(env, "MC_GID_INDEX");
	long n;

	if (!envr_find(env, "MC_GID_INDEX"))
		v = envr_get(env, "NCCL_IB_GID_INDEX");
	if (!v)
		return -1;
	n = strtol(v, NULL, 10);
	return n >= 0 && n < 256 ? n : -1;
}

/* An MC_ or MOONCAKE_ variable (the command line is envr_args_mooncake's). */
int envr_runs_mooncake(const struct envr_view *env)
{
	for (size_t i = 0; env && i < env->n; i++)
		if (env->v[i].name && (!strncmp(env->v[i].name, "MC_", 3) ||
				       !strncmp(env->v[i].name, "MOONCAKE_", 9)))
			return 1;
	return 0;
}

/* Unset: the installed release decides (envr_mooncake_tiered); unknown,
 * both choices, and only where they agree is the index known. */
long envr_gid_index_mooncake(const struct envr_gid_port *p, const struct envr_view *env)
{
	long n = mooncake_index(env), tiers, scan;
	int tiered;

	if (n >= 0)
		return n;
	tiered = envr_mooncake_tiered(p->mc_version);
	tiers = tiered ? envr_mooncake_auto(p) : -1;
	scan = tiered != 1 ? envr_mooncake_auto_pre312(p) : -1;
	if (tiered >= 0)
		return tiered ? tiers : scan;
	return tiers == scan ? tiers : ENVR_GID_UNDECIDED;
}

/* The index judged: undecided only reaches gid_ports when both releases'
 * picks are bad; the newer one's is named. */
static long mooncake_pick(const struct envr_gid_port *p, const struct envr_view *env)
{
	long n = envr_gid_index_mooncake(p, env);

	return n == ENVR_GID_UNDECIDED ? envr_mooncake_auto(p) : n;
}

/* A port whose GID depends on the unknown Mooncake release: warn, naming
 * both choices (the GID each would use is judged once the version is). */
static int gid_mooncake_undecided(const struct envr_view *env, const struct envr_ctx *c,
				  const char **why)
{
	for (size_t i = 0; i < c->n_gid_ports; i++) {
		const struct envr_gid_port *p = &c->gid_ports[i];
		enum envr_gid_class k;

		if (envr_gid_index_mooncake(p, env) != ENVR_GID_UNDECIDED ||
		    (envr_gid_fault(p, envr_mooncake_auto(p), &k) &&
		     envr_gid_fault(p, envr_mooncake_auto_pre312(p), &k)))
			continue;   /* decided, or bad either way: gid_ports judges it */
		if (c->note)
			snprintf(c->note, c->note_n,
				 "unset and the Mooncake version unknown: on %s mooncake-transfer-engine >= 0.3.12 picks GID %ld, <= 0.3.11 GID %ld; the installed version decides",
				 p->name, envr_mooncake_auto(p), envr_mooncake_auto_pre312(p));
		*why = c->note ? c->note :
			"unset and the Mooncake version unknown: its releases pick different GIDs here";
		return 1;
	}
	return 0;
}

JUDGE(gid_mooncake)
{
	(void)v;
	if (!envr_runs_mooncake(env) && !c->mooncake)
		return ENVR_OK;
	if (gid_mooncake_undecided(env, c, why))
		return ENVR_WARN;
	return gid_ports(mooncake_pick, 0, env, c, "Mooncake uses ", why);
}

long envr_gid_index_ucx(const struct envr_gid_port *p, const struct envr_view *env)
{
	const char *v = envr_get(env, "UCX_IB_GID_INDEX");

	if (!v || !*v || is(v, "auto"))
		return ucx_pick(p, env);
	return gid_number(v);
}

/* ---- the table ----------------------------------------------------- */

#define IB ENVR_FAB_IB
#define EFA ENVR_FAB_EFA
#define MNNVL ENVR_FAB_MNNVL
#define UCX_FAQ "openucx/ucx docs/source/faq.md"
#define NCCL_ENV "NCCL env docs (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html)"
#define GID_REMEDY "point UCX_IB_GID_INDEX / NCCL_IB_GID_INDEX / MC_GID_INDEX at the port's RoCE v2 GID with an IPv4 address (show_gids: VER v2 with an IPv4 column; 3 on the usual mlx5 layout), or give the NIC's netdev an IPv4 address so one exists"
#define DYN_GUIDE "ai-dynamo/dynamo docs/pages/kubernetes/disagg-communication-guide.md"

static const struct envr_rule rules[] = {
	/* UCX (env-vars.md 1) */
	{ "env-ucx-tls", "UCX_TLS", 0, tls_rdma,
	  "allows no InfiniBand/RoCE transport: KV transfer between pods falls back to TCP",
	  "add rc (or rc_x,dc_x) to UCX_TLS, or leave it unset",
	  UCX_FAQ " (rc/dc/ud are the RDMA transports); ucp_context.c aliases; ai-dynamo/nixl #1614",
	  "tcp,cuda_copy,cuda_ipc", IB, 1 },
	{ "env-ucx-tls", "UCX_TLS", 0, tls_cuda,
	  "lacks cuda_copy: UCX will not recognise GPU memory",
	  "add cuda_copy (and cuda_ipc) to UCX_TLS",
	  UCX_FAQ " (\"Applications using GPU memory must also specify GPU transports\")",
	  "rc_x,dc_x", IB, 1 },
	{ "env-ucx-tls", "UCX_TLS", 0, tls_ipc,
	  "excludes cuda_ipc: same-node GPU transfers are staged through host",
	  "add cuda_ipc to UCX_TLS (or drop it from the ^ list)",
	  "env-vars.md 1; ai-dynamo/nixl PR #1169 (^cuda_ipc default removed)",
	  "rc_x,dc_x,cuda_copy", IB, 1 },
	{ "env-ucx-tls", "UCX_TLS", 0, tls_rc_ud,
	  "has RC without UD, which RC needs for wire-up",
	  "use the alias rc (or rc_x), or add ud_x",
	  UCX_FAQ " (\"rc_verbs or rc_mlx5 also requires ud_verbs or ud_mlx5 transport for bootstrap\")",
	  "rc_mlx5,cuda_copy,cuda_ipc", IB, 1 },
	{ "env-ucx-net-devices", "UCX_NET_DEVICES", 0, nd_syntax,
	  "is not a device list (dev:port,...)",
	  "write UCX_NET_DEVICES as all or mlx5_0:1,mlx5_1:1",
	  UCX_FAQ " (UCX_NET_DEVICES=mlx5_0:1)", "mlx5_0:x", IB, 1 },
	{ "env-ucx-net-devices", "UCX_NET_DEVICES", 0, nd_port,
	  "names an HCA without its port: UCX matches no device by it",
	  "give each HCA its port, e.g. mlx5_0:1",
	  UCX_FAQ "; src/ucp/core/ucp_context.c (ucp_is_resource_in_device_list: strcmp with DEVICE:PORT)",
	  "mlx5_0", IB, 1 },
	{ "env-ucx-net-devices", "UCX_NET_DEVICES", 0, nd_netdev,
	  "names only network interfaces: UCX uses TCP on an RDMA fabric",
	  "name the RDMA devices (mlx5_N:1) or leave UCX_NET_DEVICES unset",
	  UCX_FAQ "; openucx/ucx #5238 (a netdev name selects the tcp transport only)",
	  "eth0", IB, 1 },
	{ "env-ucx-gpudirect", "UCX_IB_GPU_DIRECT_RDMA", 0, gdr_off,
	  "turns GPUDirect RDMA off: GPU buffers are staged through host",
	  "remove it, or set it to yes to fail fast",
	  "openucx/ucx src/uct/ib/base/ib_md.c (GPU_DIRECT_RDMA, default try)", "no", IB, 1 },
	{ "env-ucx-gpudirect", "UCX_CUDA_COPY_DMABUF", 0, dmabuf_off,
	  "disables the DMA-BUF GPUDirect path (the only one without nvidia_peermem)",
	  "remove UCX_CUDA_COPY_DMABUF",
	  "openucx/ucx src/uct/cuda/cuda_copy/cuda_copy_md.c (DMABUF, default try)", "n", IB, 1 },
	{ "env-ucx-rndv", "UCX_RNDV_SCHEME", 0, rndv_scheme,
	  "crashes UCX on EFA with kernel >= 6.8 (remote invalid RD request)",
	  "set UCX_RNDV_SCHEME=auto on EFA", DYN_GUIDE " (EFA + UCX)", "get_zcopy", EFA, 1 },
	{ "env-ucx-rndv", "UCX_RNDV_THRESH", 0, rndv_thresh,
	  "crashes UCX on EFA with kernel >= 6.8 (remote invalid RD request)",
	  "set UCX_RNDV_THRESH=8192 on EFA", DYN_GUIDE " (EFA + UCX: 8192; threshold 0 crashes)", "0", EFA, 1 },
	{ "env-ucx-proto", "UCX_PROTO_ENABLE", 0, warn_no,
	  "selects UCX's legacy protocols (other GPU paths)",
	  "remove UCX_PROTO_ENABLE", "openucx/ucx src/ucp/core/ucp_context.c (PROTO_ENABLE, default y)",
	  "n", IB, 1 },
	{ "env-ucx-proto", "UCX_WARN_UNUSED_ENV_VARS", 0, warn_no,
	  "hides misspelt UCX variables", "remove UCX_WARN_UNUSED_ENV_VARS",
	  "openucx/ucx 1.23 src/ucs/config/global_opts.c (WARN_UNUSED_ENV_VARS, default yes)", "n", IB, 1 },
	{ "env-ucx-roce", "UCX_IB_ROCE_LOCAL_SUBNET", 0, warn_yes,
	  "breaks RoCE across routed subnets", "remove UCX_IB_ROCE_LOCAL_SUBNET",
	  "openucx/ucx src/uct/ib/base/ib_iface.c (ROCE_LOCAL_SUBNET, default n)", "y", IB, 1 },
	/* GID index (checks.md A9): pinned, or each library's own pick. */
	{ "env-gid-index", "UCX_IB_GID_INDEX", 0, gid_ucx,
	  "is not a usable RoCE v2 GID index",
	  GID_REMEDY, "openucx/ucx src/uct/ib/base/ib_iface.c (GID_INDEX, default auto), ib_device.c",
	  "x", IB, 1 },
	{ "env-gid-index", "NCCL_IB_GID_INDEX", 0, gid_nccl,
	  "is not a usable RoCE v2 GID index",
	  GID_REMEDY, "NVIDIA/nccl src/transport/net_ib.cc (ncclIbGetGidIndex)", "x", IB, 1 },
	{ "env-gid-index", "UCX_IB_GID_INDEX", 2, gid_ucx_auto,
	  "unset: UCX's own GID is not usable", GID_REMEDY,
	  "openucx/ucx src/uct/ib/base/ib_device.c (uct_ib_device_select_gid)", "", IB, 1 },
	{ "env-gid-index", "NCCL_IB_GID_INDEX", 2, gid_nccl_auto,
	  "unset: NCCL's own GID is not usable", GID_REMEDY,
	  "NVIDIA/nccl src/transport/net_ib.cc (ncclIbGetGidIndex, NCCL_IB_ADDR_FAMILY, NCCL_IB_ROCE_VERSION_NUM)",
	  "", IB, 1 },
	{ "env-gid-index", "MC_GID_INDEX", 2, gid_mooncake,
	  "Mooncake's GID is not usable", GID_REMEDY,
	  "kvcache-ai/Mooncake mooncake-transfer-engine/src/config.cpp (MC_GID_INDEX, NCCL_IB_GID_INDEX), rdma_context.cpp (findBestGidIndex)",
	  "", IB, 1 },
	{ "env-mnnvl", "UCX_CUDA_IPC_ENABLE_MNNVL", 0, mnnvl_no_cd,
	  "relies on multi-node NVLink but no ComputeDomain (IMEX channel) is claimed",
	  "claim a ComputeDomain (IMEX channel) for the workers",
	  "openucx/ucx src/uct/cuda/cuda_ipc/cuda_ipc_md.c (ENABLE_MNNVL); NVIDIA dra-driver-nvidia-gpu ComputeDomain",
	  "y", IB, 1 },
	{ "env-mnnvl", "NCCL_MNNVL_ENABLE", 0, mnnvl_no_cd,
	  "relies on multi-node NVLink but no ComputeDomain (IMEX channel) is claimed",
	  "claim a ComputeDomain (IMEX channel) for the workers",
	  NCCL_ENV " (NCCL_MNNVL_ENABLE); NVIDIA/nccl src/init.cc (MNNVL_ENABLE, default 2: auto)",
	  "1", IB, 1 },
	/* NCCL (env-vars.md 3) */
	{ "env-nccl-net", "NCCL_IB_DISABLE", 0, nccl_ib_off,
	  "disables NCCL's verbs transport: collectives use sockets",
	  "remove NCCL_IB_DISABLE", "NVIDIA/nccl 2.30 src/transport/net_ib/init.cc (IB_DISABLE, default 0; any nonzero disables)", "1", IB, 1 },
	{ "env-nccl-net", "NCCL_NET", 0, nccl_socket,
	  "forces NCCL onto sockets, ignoring the RDMA NICs",
	  "remove NCCL_NET", "NVIDIA/nccl 2.30 src/init.cc (NCCL_NET), src/plugin/net.cc (strcasecmp with the net's name)", "Socket", IB, 1 },
	{ "env-nccl-net", "NCCL_NET_GDR_LEVEL", 0, warn_loc,
	  "disables GPUDirect RDMA for NCCL", "remove NCCL_NET_GDR_LEVEL",
	  "NVIDIA/nccl 2.30 src/graph/paths.cc (ncclTopoCheckGdr: default P2C with NET_GDR_C2C=1, else PXB)", "LOC", IB, 1 },
	{ "env-nccl-net", "NCCL_NET_PLUGIN", 0, plugin_none,
	  "drops aws-ofi-nccl: NCCL falls back to sockets", "remove NCCL_NET_PLUGIN",
	  "NVIDIA/nccl 2.30 src/plugin/net.cc (none: only the internal ib and socket nets); aws/aws-ofi-nccl", "none", EFA, 1 },
	{ "env-nccl-net", "NCCL_DMABUF_ENABLE", 0, nccl_eq0,
	  "disables NCCL's DMA-BUF GPUDirect path", "remove NCCL_DMABUF_ENABLE",
	  "NVIDIA/nccl 2.30 src/init.cc (DMABUF_ENABLE, default 1; off at 0)", "0", IB, 1 },
	{ "env-nccl-p2p", "NCCL_P2P_DISABLE", 0, p2p_off,
	  "disables CUDA P2P (NVLink) between local GPUs: TP traffic goes through host memory",
	  "remove NCCL_P2P_DISABLE", "NVIDIA/nccl 2.30 src/graph/paths.cc (ncclGetLevel: 1 is LOC)", "1", IB, 1 },
	{ "env-nccl-p2p", "NCCL_P2P_LEVEL", 0, warn_loc,
	  "disables P2P between GPUs", "remove NCCL_P2P_LEVEL", "NVIDIA/nccl 2.30 src/graph/paths.cc (ncclTopoCheckP2p: default PXB)",
	  "LOC", IB, 1 },
	{ "env-nccl-shm", "NCCL_SHM_DISABLE", 0, nccl_eq1,
	  "forces the network between local GPUs without P2P", "remove NCCL_SHM_DISABLE",
	  "NVIDIA/nccl 2.30 src/transport/shm.cc (SHM_DISABLE, default 0; off at 1)", "1", IB, 1 },
	{ "env-nccl-cumem", "NCCL_CUMEM_ENABLE", 0, nccl_eq0,
	  "disables cuMem allocations, which NVLS and multi-node NVLink need", "remove NCCL_CUMEM_ENABLE",
	  NCCL_ENV " (NCCL_CUMEM_ENABLE); NVIDIA/nccl src/misc/cudawrap.cc (CUMEM_ENABLE, default -2: on where supported)",
	  "0", IB, 1 },
	/* libfabric / EFA (env-vars.md 4) */
	{ "env-fi", "FI_PROVIDER", 0, fi_no_efa,
	  "does not enable the efa provider", "set FI_PROVIDER=efa or leave it unset",
	  "ofiwg/libfabric 2.7 src/fabric.c (ofi_create_filter, ofi_find_name: whole names, ^ negates)", "tcp", EFA, 1 },
	{ "env-fi", "FI_EFA_USE_DEVICE_RDMA", 0, efa_rdma_off,
	  "emulates RMA in software", "set FI_EFA_USE_DEVICE_RDMA=1",
	  "ofiwg/libfabric 2.7 prov/efa/src/rdm/efa_rdm_util.c (default: the device's RDMA read support), src/var.c fi_parse_bool", "0", EFA, 1 },
	{ "env-fi", "FI_EFA_ENABLE_SHM_TRANSFER", 0, efa_shm_on,
	  "must be 0 for NIXL on EFA", "set FI_EFA_ENABLE_SHM_TRANSFER=0",
	  "ai-dynamo/dynamo docs/fern/pages/kubernetes/installation/rdma-setup/dranet-on-aws.mdx (Step 6, required EFA env: FI_EFA_ENABLE_SHM_TRANSFER=0), recipes/addons/kustomize/aws-efa/README.md; ofiwg/libfabric 2.7 prov/efa/src/efa_env.c (enable_shm_transfer, default 1)",
	  "1", EFA, 1 },
	{ "env-fi", "FI_EFA_ENABLE_SHM_TRANSFER", 1, need_efa_shm,
	  "not set: NIXL on EFA needs it 0", "set FI_EFA_ENABLE_SHM_TRANSFER=0, unless the image does",
	  "ai-dynamo/dynamo docs/fern/pages/kubernetes/installation/rdma-setup/dranet-on-aws.mdx (Step 6, required EFA env: FI_EFA_ENABLE_SHM_TRANSFER=0), recipes/addons/kustomize/aws-efa/README.md", "", EFA, 1 },
};
#undef IB
#undef EFA
#undef MNNVL

const struct envr_rule *envr_rules(size_t *n)
{
	*n = sizeof rules / sizeof rules[0];
	return rules;
}

/* ---- evaluation ---------------------------------------------------- */

size_t envr_eval(const struct envr_view *env, const struct envr_ctx *ctx,
		 struct envr_finding **out)
{
	size_t n = 0, alloc = 0;

	*out = NULL;
	for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++) {
		const struct envr_rule *r = &rules[i];
		const struct envr_var *e = envr_find(env, r->var);
		const char *why = r->why, *v;
		char shown[160];
		enum envr_sev sev;
		struct envr_finding *f;

		if (!strncmp(r->var, "UCX_", 4) && ucx_off(ctx))
			continue;   /* UCX carries no KV here (issue 38 point 2) */
		if (r->missing == 2 ? !ctx->process || (e && (e->dynamic || !e->value)) :
		    r->missing ? e != NULL || ctx->process : !e || e->dynamic || !e->value)
			continue;
		v = r->missing == 2 && e ? e->value : r->missing ? "" : e->value;
		sev = r->judge(v, env, ctx, &why);
		if (sev == ENVR_OK)
			continue;
		ALLOC_GROW(*out, n + 1, alloc);
		f = &(*out)[n++];
		f->rule = r;
		f->sev = sev;
		if (r->missing && !(r->missing == 2 && e))
			snprintf(f->detail, sizeof f->detail, "%s %s", r->var, why);
		else    /* a Secret's value never, whole or cut (model/shown.h) */
			snprintf(f->detail, sizeof f->detail, "%s=%s %s", r->var,
				 shown_value(v, e ? e->secret : NULL, shown, sizeof shown), why);
	}
	return n;
}
