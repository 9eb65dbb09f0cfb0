/* The transport-environment rule book (see envrules.h).  Every row names
 * its source: env-vars.md (the project's digest) and the upstream file or
 * document it was read from. */
#include "model/envrules_int.h"
#include "model/shown.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/xalloc.h"

/* ---- NCCL, libfabric, multi-node NVLink judges --------------------- */

WARN_IF(nccl_eq0, envr_nccl_int(v, 1) == 0)
WARN_IF(nccl_eq1, envr_nccl_int(v, 0) == 1)
WARN_IF(warn_loc, envr_nccl_loc(v))
/* NCCL carries the worker's own TP/EP collectives, not KV (NIXL or
 * Mooncake do): with the whole group in one pod on one node NCCL uses
 * NVLink/P2P/SHM and never the network, so turning its IB off is harmless
 * (and recipes do it on purpose). */
FAIL_IF(nccl_ib_off, (c->fabric & ENVR_FAB_IB) && envr_nccl_int(v, 0) && !c->tp_in_pod)
FAIL_IF(nccl_socket, (c->fabric & (ENVR_FAB_IB | ENVR_FAB_EFA)) && envr_is(v, "Socket"))
WARN_IF(plugin_none, (c->fabric & ENVR_FAB_EFA) && envr_is(v, "none"))
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

/* ---- the table ----------------------------------------------------- */

#define IB ENVR_FAB_IB
#define EFA ENVR_FAB_EFA
#define MNNVL ENVR_FAB_MNNVL
#define UCX_FAQ "openucx/ucx docs/source/faq.md"
#define NCCL_ENV "NCCL env docs (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html)"
#define GID_REMEDY "point UCX_IB_GID_INDEX / NCCL_IB_GID_INDEX / MC_GID_INDEX at the port's RoCE v2 GID with an IPv4 address (show_gids: VER v2 with an IPv4 column; 3 on the usual mlx5 layout), or give the NIC's netdev an IPv4 address so one exists"
#define DYN_GUIDE "ai-dynamo/dynamo docs/pages/kubernetes/disagg-communication-guide.md"

#define J(fn) envj_##fn

static const struct envr_rule rules[] = {
	/* UCX (env-vars.md 1) */
	{ ENVR_CK_UCX_TLS, "UCX_TLS", 0, J(tls_rdma),
	  "allows no InfiniBand/RoCE transport: KV transfer between pods falls back to TCP",
	  "add rc (or rc_x,dc_x) to UCX_TLS, or leave it unset",
	  UCX_FAQ " (rc/dc/ud are the RDMA transports); ucp_context.c aliases; ai-dynamo/nixl #1614",
	  "tcp,cuda_copy,cuda_ipc", IB, 1 },
	{ ENVR_CK_UCX_TLS, "UCX_TLS", 0, J(tls_cuda),
	  "lacks cuda_copy: UCX will not recognise GPU memory",
	  "add cuda_copy (and cuda_ipc) to UCX_TLS",
	  UCX_FAQ " (\"Applications using GPU memory must also specify GPU transports\")",
	  "rc_x,dc_x", IB, 1 },
	{ ENVR_CK_UCX_TLS, "UCX_TLS", 0, J(tls_ipc),
	  "excludes cuda_ipc: same-node GPU transfers are staged through host",
	  "add cuda_ipc to UCX_TLS (or drop it from the ^ list)",
	  "env-vars.md 1; ai-dynamo/nixl PR #1169 (^cuda_ipc default removed)",
	  "rc_x,dc_x,cuda_copy", IB, 1 },
	{ ENVR_CK_UCX_TLS, "UCX_TLS", 0, J(tls_rc_ud),
	  "has RC without UD, which RC needs for wire-up",
	  "use the alias rc (or rc_x), or add ud_x",
	  UCX_FAQ " (\"rc_verbs or rc_mlx5 also requires ud_verbs or ud_mlx5 transport for bootstrap\")",
	  "rc_mlx5,cuda_copy,cuda_ipc", IB, 1 },
	{ ENVR_CK_UCX_NET_DEVICES, "UCX_NET_DEVICES", 0, J(nd_syntax),
	  "is not a device list (dev:port,...)",
	  "write UCX_NET_DEVICES as all or mlx5_0:1,mlx5_1:1",
	  UCX_FAQ " (UCX_NET_DEVICES=mlx5_0:1)", "mlx5_0:x", IB, 1 },
	{ ENVR_CK_UCX_NET_DEVICES, "UCX_NET_DEVICES", 0, J(nd_port),
	  "names an HCA without its port: UCX matches no device by it",
	  "give each HCA its port, e.g. mlx5_0:1",
	  UCX_FAQ "; src/ucp/core/ucp_context.c (ucp_is_resource_in_device_list: strcmp with DEVICE:PORT)",
	  "mlx5_0", IB, 1 },
	{ ENVR_CK_UCX_NET_DEVICES, "UCX_NET_DEVICES", 0, J(nd_netdev),
	  "names only network interfaces: UCX uses TCP on an RDMA fabric",
	  "name the RDMA devices (mlx5_N:1) or leave UCX_NET_DEVICES unset",
	  UCX_FAQ "; openucx/ucx #5238 (a netdev name selects the tcp transport only)",
	  "eth0", IB, 1 },
	{ ENVR_CK_UCX_GPUDIRECT, "UCX_IB_GPU_DIRECT_RDMA", 0, J(gdr_off),
	  "turns GPUDirect RDMA off: GPU buffers are staged through host",
	  "remove it, or set it to yes to fail fast",
	  "openucx/ucx src/uct/ib/base/ib_md.c (GPU_DIRECT_RDMA, default try)", "no", IB, 1 },
	{ ENVR_CK_UCX_GPUDIRECT, "UCX_CUDA_COPY_DMABUF", 0, J(dmabuf_off),
	  "disables the DMA-BUF GPUDirect path (the only one without nvidia_peermem)",
	  "remove UCX_CUDA_COPY_DMABUF",
	  "openucx/ucx src/uct/cuda/cuda_copy/cuda_copy_md.c (DMABUF, default try)", "n", IB, 1 },
	{ ENVR_CK_UCX_RNDV, "UCX_RNDV_SCHEME", 0, J(rndv_scheme),
	  "crashes UCX on EFA with kernel >= 6.8 (remote invalid RD request)",
	  "set UCX_RNDV_SCHEME=auto on EFA", DYN_GUIDE " (EFA + UCX)", "get_zcopy", EFA, 1 },
	{ ENVR_CK_UCX_RNDV, "UCX_RNDV_THRESH", 0, J(rndv_thresh),
	  "crashes UCX on EFA with kernel >= 6.8 (remote invalid RD request)",
	  "set UCX_RNDV_THRESH=8192 on EFA", DYN_GUIDE " (EFA + UCX: 8192; threshold 0 crashes)", "0", EFA, 1 },
	{ ENVR_CK_UCX_PROTO, "UCX_PROTO_ENABLE", 0, J(ucp_no),
	  "selects UCX's legacy protocols (other GPU paths)",
	  "remove UCX_PROTO_ENABLE", "openucx/ucx src/ucp/core/ucp_context.c (PROTO_ENABLE, default y), src/ucs/config/parser.c (ucs_config_sscanf_bool; ucp_config_read fails on a value it rejects)",
	  "n", IB, 1 },
	{ ENVR_CK_UCX_PROTO, "UCX_WARN_UNUSED_ENV_VARS", 0, J(ucs_no),
	  "hides misspelt UCX variables", "remove UCX_WARN_UNUSED_ENV_VARS",
	  "openucx/ucx 1.23 src/ucs/config/global_opts.c (WARN_UNUSED_ENV_VARS, default yes; ucs_global_opts_init keeps it on a value parser.c ucs_config_sscanf_bool rejects)", "n", IB, 1 },
	{ ENVR_CK_UCX_ROCE, "UCX_IB_ROCE_LOCAL_SUBNET", 0, J(warn_yes),
	  "breaks RoCE across routed subnets", "remove UCX_IB_ROCE_LOCAL_SUBNET",
	  "openucx/ucx src/uct/ib/base/ib_iface.c (ROCE_LOCAL_SUBNET, default n)", "y", IB, 1 },
	/* GID index (checks.md A9): pinned, or each library's own pick. */
	{ ENVR_CK_GID_INDEX, "UCX_IB_GID_INDEX", 0, J(gid_ucx),
	  "is not a usable RoCE v2 GID index",
	  GID_REMEDY, "openucx/ucx src/uct/ib/base/ib_iface.c (GID_INDEX, default auto), ib_device.c",
	  "x", IB, 1 },
	{ ENVR_CK_GID_INDEX, "NCCL_IB_GID_INDEX", 0, J(gid_nccl),
	  "is not a usable RoCE v2 GID index",
	  GID_REMEDY, "NVIDIA/nccl src/transport/net_ib.cc (ncclIbGetGidIndex)", "x", IB, 1 },
	{ ENVR_CK_GID_INDEX, "UCX_IB_GID_INDEX", 2, J(gid_ucx_auto),
	  "unset: UCX's own GID is not usable", GID_REMEDY,
	  "openucx/ucx src/uct/ib/base/ib_device.c (uct_ib_device_select_gid)", "", IB, 1 },
	{ ENVR_CK_GID_INDEX, "NCCL_IB_GID_INDEX", 2, J(gid_nccl_auto),
	  "unset: NCCL's own GID is not usable", GID_REMEDY,
	  "NVIDIA/nccl src/transport/net_ib.cc (ncclIbGetGidIndex, NCCL_IB_ADDR_FAMILY, NCCL_IB_ROCE_VERSION_NUM)",
	  "", IB, 1 },
	{ ENVR_CK_GID_INDEX, "MC_GID_INDEX", 2, J(gid_mooncake),
	  "Mooncake's GID is not usable", GID_REMEDY,
	  "kvcache-ai/Mooncake mooncake-transfer-engine/src/config.cpp (MC_GID_INDEX, NCCL_IB_GID_INDEX), rdma_context.cpp (findBestGidIndex)",
	  "", IB, 1 },
	{ ENVR_CK_MNNVL, "UCX_CUDA_IPC_ENABLE_MNNVL", 0, J(mnnvl_no_cd),
	  "relies on multi-node NVLink but no ComputeDomain (IMEX channel) is claimed",
	  "claim a ComputeDomain (IMEX channel) for the workers",
	  "openucx/ucx src/uct/cuda/cuda_ipc/cuda_ipc_md.c (ENABLE_MNNVL); NVIDIA dra-driver-nvidia-gpu ComputeDomain",
	  "y", IB, 1 },
	{ ENVR_CK_MNNVL, "NCCL_MNNVL_ENABLE", 0, J(mnnvl_no_cd),
	  "relies on multi-node NVLink but no ComputeDomain (IMEX channel) is claimed",
	  "claim a ComputeDomain (IMEX channel) for the workers",
	  NCCL_ENV " (NCCL_MNNVL_ENABLE); NVIDIA/nccl 2.30 src/init.cc (MNNVL_ENABLE since 2.21.5, default 2: auto)",
	  "1", IB, 1 },
	/* NCCL (env-vars.md 3) */
	{ ENVR_CK_NCCL_NET, "NCCL_IB_DISABLE", 0, J(nccl_ib_off),
	  "disables NCCL's verbs transport: collectives use sockets",
	  "remove NCCL_IB_DISABLE", "NVIDIA/nccl 2.30 src/transport/net_ib/init.cc (IB_DISABLE, default 0; any nonzero disables)", "1", IB, 1 },
	{ ENVR_CK_NCCL_NET, "NCCL_NET", 0, J(nccl_socket),
	  "forces NCCL onto sockets, ignoring the RDMA NICs",
	  "remove NCCL_NET", "NVIDIA/nccl 2.30 src/init.cc (NCCL_NET, since 2.10.3), src/plugin/net.cc (strcasecmp with the net's name)", "Socket", IB, 1 },
	{ ENVR_CK_NCCL_NET, "NCCL_NET_GDR_LEVEL", 0, J(warn_loc),
	  "disables GPUDirect RDMA for NCCL", "remove NCCL_NET_GDR_LEVEL",
	  "NVIDIA/nccl 2.30 src/graph/paths.cc (ncclTopoCheckGdr: default P2C with NET_GDR_C2C=1, its default since 2.26.2, else PXB; LOC disables GDR in every release)", "LOC", IB, 1 },
	{ ENVR_CK_NCCL_NET, "NCCL_NET_PLUGIN", 0, J(plugin_none),
	  "drops aws-ofi-nccl: NCCL falls back to sockets", "remove NCCL_NET_PLUGIN",
	  "NVIDIA/nccl 2.30 src/plugin/net.cc (NCCL_NET_PLUGIN since 2.11.4; none, named so since 2.28.3: only the internal ib and socket nets); aws/aws-ofi-nccl", "none", EFA, 1 },
	{ ENVR_CK_NCCL_NET, "NCCL_DMABUF_ENABLE", 0, J(nccl_eq0),
	  "disables NCCL's DMA-BUF GPUDirect path", "remove NCCL_DMABUF_ENABLE",
	  "NVIDIA/nccl 2.30 src/init.cc (DMABUF_ENABLE since 2.13.4, default 1; off at 0)", "0", IB, 1 },
	{ ENVR_CK_NCCL_P2P, "NCCL_P2P_DISABLE", 0, J(p2p_off),
	  "disables CUDA P2P (NVLink) between local GPUs: TP traffic goes through host memory",
	  "remove NCCL_P2P_DISABLE", "NVIDIA/nccl 2.30 src/graph/paths.cc (ncclGetLevel: 1 is LOC)", "1", IB, 1 },
	{ ENVR_CK_NCCL_P2P, "NCCL_P2P_LEVEL", 0, J(warn_loc),
	  "disables P2P between GPUs", "remove NCCL_P2P_LEVEL", "NVIDIA/nccl 2.30 src/graph/paths.cc (ncclTopoCheckP2p: default PXB)",
	  "LOC", IB, 1 },
	{ ENVR_CK_NCCL_SHM, "NCCL_SHM_DISABLE", 0, J(nccl_eq1),
	  "forces the network between local GPUs without P2P", "remove NCCL_SHM_DISABLE",
	  "NVIDIA/nccl 2.30 src/transport/shm.cc (SHM_DISABLE, default 0; off at 1)", "1", IB, 1 },
	{ ENVR_CK_NCCL_CUMEM, "NCCL_CUMEM_ENABLE", 0, J(nccl_eq0),
	  "disables cuMem allocations, which NVLS and multi-node NVLink need", "remove NCCL_CUMEM_ENABLE",
	  NCCL_ENV " (NCCL_CUMEM_ENABLE); NVIDIA/nccl 2.30 src/misc/cudawrap.cc (CUMEM_ENABLE since 2.18.1, default 0 there; -2, on where supported, since 2.19.1)",
	  "0", IB, 1 },
	/* libfabric / EFA (env-vars.md 4) */
	{ ENVR_CK_FI, "FI_PROVIDER", 0, J(fi_no_efa),
	  "does not enable the efa provider", "set FI_PROVIDER=efa or leave it unset",
	  "ofiwg/libfabric 2.7 src/fabric.c (ofi_create_filter, ofi_find_name: whole names, ^ negates)", "tcp", EFA, 1 },
	{ ENVR_CK_FI, "FI_EFA_USE_DEVICE_RDMA", 0, J(efa_rdma_off),
	  "emulates RMA in software", "set FI_EFA_USE_DEVICE_RDMA=1",
	  "ofiwg/libfabric 2.7 prov/efa/src/rdm/efa_rdm_util.c (default: the device's RDMA read support), src/var.c fi_parse_bool", "0", EFA, 1 },
	{ ENVR_CK_FI, "FI_EFA_ENABLE_SHM_TRANSFER", 0, J(efa_shm_on),
	  "must be 0 for NIXL on EFA", "set FI_EFA_ENABLE_SHM_TRANSFER=0",
	  "ai-dynamo/dynamo docs/fern/pages/kubernetes/installation/rdma-setup/dranet-on-aws.mdx (Step 6, required EFA env: FI_EFA_ENABLE_SHM_TRANSFER=0), recipes/addons/kustomize/aws-efa/README.md; ofiwg/libfabric 2.7 prov/efa/src/efa_env.c (enable_shm_transfer, default 1)",
	  "1", EFA, 1 },
	{ ENVR_CK_FI, "FI_EFA_ENABLE_SHM_TRANSFER", 1, J(need_efa_shm),
	  "not set: NIXL on EFA needs it 0", "set FI_EFA_ENABLE_SHM_TRANSFER=0, unless the image does",
	  "ai-dynamo/dynamo docs/fern/pages/kubernetes/installation/rdma-setup/dranet-on-aws.mdx (Step 6, required EFA env: FI_EFA_ENABLE_SHM_TRANSFER=0), recipes/addons/kustomize/aws-efa/README.md", "", EFA, 1 },
};
#undef IB
#undef EFA
#undef MNNVL
#undef J

#define ENVR_CK_STR_(x) #x,
static const char *const check_ids[ENVR_CK__COUNT] = { ENVR_CHECKS(ENVR_CK_STR_) };
#undef ENVR_CK_STR_

const char *envr_check_name(enum envr_check id, char *b, size_t n)
{
	snprintf(b, n, "env-%s", check_ids[id]);
	for (char *p = b; *p; p++)
		*p = *p == '_' ? '-' : (char)tolower((unsigned char)*p);
	return b;
}

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

		if (!strncmp(r->var, "UCX_", 4) && envr_ucx_off(ctx))
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
