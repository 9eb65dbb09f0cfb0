/* ENV family: the transport variables of the worker's main process
 * (checks.md I, E4; env-vars.md). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

#define T(x) TLB(PROBE_TL_##x)
#define TL_SHM (T(POSIX) | T(SYSV) | T(CMA))
#define TL_ALL 0xffffffffu

struct tl_alias {
	const char *name;
	unsigned bits;
};

/* ucp_context.c's aliases, reduced to the transports we judge. */
static const struct tl_alias aliases[] = {
	{ "all", TL_ALL },
	{ "rc", T(RC_MLX5) | T(RC_VERBS) | T(UD_MLX5) | T(UD_VERBS) },
	{ "rc_x", T(RC_MLX5) | T(UD_MLX5) },
	{ "rc_v", T(RC_VERBS) | T(UD_VERBS) },
	{ "dc", T(DC_MLX5) }, { "dc_x", T(DC_MLX5) },
	{ "ud", T(UD_MLX5) | T(UD_VERBS) }, { "ud_x", T(UD_MLX5) },
	{ "ud_v", T(UD_VERBS) },
	{ "ib", TL_RDMA_IB },
	{ "cuda", T(CUDA_COPY) | T(CUDA_IPC) | T(GDR_COPY) },
	{ "sm", TL_SHM }, { "shm", TL_SHM }, { "mm", T(POSIX) | T(SYSV) },
};

static unsigned token_bits(const char *tok, size_t len)
{
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strlen(aliases[i].name) == len &&
		    !strncmp(aliases[i].name, tok, len))
			return aliases[i].bits;
	for (int t = 0; t < PROBE_TL_COUNT; t++) {
		const char *n = probe_ucx_tl_name((enum probe_ucx_tl)t);

		if (n && strlen(n) == len && !strncmp(n, tok, len))
			return TLB(t);
	}
	return 0;  /* rocm, ugni, knem...: nothing we judge */
}

unsigned ucx_tls_allowed(const char *tls)
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

static void skipped_env(const struct check_input *in, enum check_id id,
			struct check_results *out)
{
	char why[200];

	emit(out, id, CHECK_SKIPPED, NULL, "%s",
	     src_why(&in->f->env.src, "/proc/1/environ", why, sizeof(why)));
}

/* I/E4: what UCX_TLS leaves KV transfer. */
static void ucx_tls(const struct check_input *in, struct check_results *out)
{
	const char *tls = envv(in, "UCX_TLS");
	unsigned a = ucx_tls_allowed(tls);
	int rdma = in->fabric == FABRIC_EFA ? !!(a & T(SRD)) : !!(a & TL_RDMA_IB);
	int mnnvl = is_yes(envv(in, "UCX_CUDA_IPC_ENABLE_MNNVL"));

	const char *be = in->ctx->nixl_backend;

	if ((be && !strcmp(be, "LIBFABRIC")) ||
	    (in->fabric == FABRIC_EFA && !(be && !strcmp(be, "UCX")))) {
		emit_na(out, CK_ENV_UCX_TLS, "NIXL uses LIBFABRIC, not UCX");
		return;
	}
	if (!tls || !*tls)
		emit(out, CK_ENV_UCX_TLS, CHECK_OK, NULL, "UCX_TLS unset (all transports)");
	else if (needs_rdma(in) && !rdma)
		emit(out, CK_ENV_UCX_TLS, CHECK_FAIL, NULL,
		     "UCX_TLS=%s allows no %s transport: KV between pods goes over %s",
		     tls, in->fabric == FABRIC_EFA ? "srd" : "rc/dc/ud",
		     a & T(TCP) ? "TCP" : "nothing (transfers fail)");
	else if (!(a & T(CUDA_COPY)))
		emit(out, CK_ENV_UCX_TLS, in->cross_pod ? CHECK_FAIL : CHECK_WARN,
		     NULL, "UCX_TLS=%s lacks cuda_copy: GPU memory not recognised",
		     tls);
	else if (in->fabric == FABRIC_NVLINK && in->cross_pod && mnnvl &&
		 !(a & T(CUDA_IPC)))
		emit(out, CK_ENV_UCX_TLS, CHECK_FAIL, NULL,
		     "UCX_TLS=%s excludes cuda_ipc while KV relies on multi-node NVLink", tls);
	else if (!(a & T(CUDA_IPC)))
		emit(out, CK_ENV_UCX_TLS, CHECK_WARN,
		     "add cuda_ipc to UCX_TLS (or drop ^cuda_ipc)",
		     "UCX_TLS=%s excludes cuda_ipc: same-node GPU transfers staged", tls);
	else if ((a & (T(RC_MLX5) | T(RC_VERBS))) &&
		 !(a & (T(UD_MLX5) | T(UD_VERBS) | T(DC_MLX5))))
		emit(out, CK_ENV_UCX_TLS, CHECK_WARN,
		     "use the rc alias (rc or rc_x) so UD is available for wire-up",
		     "UCX_TLS=%s has RC without UD: wire-up needs an auxiliary transport", tls);
	else
		emit(out, CK_ENV_UCX_TLS, CHECK_OK, NULL, "UCX_TLS=%s", tls);
}

/* An UCX_NET_DEVICES token names an RDMA port that is up? */
static int token_up(const struct check_input *in, const char *tok, size_t len,
		    int *exists)
{
	const struct probe_rdma_list *l = rdma_list(in->f);

	*exists = 0;
	for (int i = 0; l && i < l->ndevs; i++) {
		const struct probe_rdma_dev *d = &l->dev[i];
		size_t nlen = strcspn(tok, ":");

		if (nlen > len)
			nlen = len;
		if ((strlen(d->name) != nlen || strncmp(d->name, tok, nlen)) &&
		    (strlen(d->netdev) != nlen || strncmp(d->netdev, tok, nlen)))
			continue;
		*exists = 1;
		for (int p = 0; p < d->nports; p++) {
			const struct probe_rdma_port *pt = port_view(in->f, d, p);
			int named;

			if (port_in_use(in, d, pt->num, &named) &&
			    pt->state == PROBE_PORT_ACTIVE)
				return 1;
		}
	}
	return 0;
}

int net_devices_scan(const struct check_input *in, const char *v,
		     struct buf *bad, int *nbad)
{
	int nup = 0;

	*nbad = 0;
	for (const char *p = v; *p;) {
		size_t len = strcspn(p, ",");
		int exists;

		if (token_up(in, p, len, &exists))
			nup++;
		else
			buf_appendf(bad, "%s%.*s %s", (*nbad)++ ? ", " : "",
				    (int)len, p, exists ? "down" : "not an RDMA device here");
		p += len;
		if (*p == ',')
			p++;
	}
	return nup;
}

static void net_devices(const struct check_input *in, struct check_results *out)
{
	const char *v = envv(in, "UCX_NET_DEVICES");
	struct buf bad = BUF_INIT(512);
	int nbad, nup;

	if (!v || !*v || !strcmp(v, "all") || !is_rdma_fabric(in->fabric)) {
		emit(out, CK_ENV_UCX_NET_DEVICES, CHECK_OK, NULL,
		     "UCX_NET_DEVICES=%s", v && *v ? v : "all (unset)");
		return;
	}
	nup = net_devices_scan(in, v, &bad, &nbad);
	if (!nup && needs_rdma(in))
		emit(out, CK_ENV_UCX_NET_DEVICES, CHECK_FAIL, NULL,
		     "UCX_NET_DEVICES=%s leaves no Active RDMA port (%s): UCX uses TCP",
		     v, buf_str(&bad));
	else if (nbad)
		emit(out, CK_ENV_UCX_NET_DEVICES, CHECK_WARN, NULL,
		     "UCX_NET_DEVICES=%s: %s", v, buf_str(&bad));
	else
		emit(out, CK_ENV_UCX_NET_DEVICES, CHECK_OK, NULL,
		     "UCX_NET_DEVICES=%s (all Active)", v);
	buf_release(&bad);
}

static void ucx_gpudirect(const struct check_input *in, struct check_results *out)
{
	const char *gdr = envv(in, "UCX_IB_GPU_DIRECT_RDMA");
	const char *dmabuf = envv(in, "UCX_CUDA_COPY_DMABUF");

	if (in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE)
		emit_na(out, CK_ENV_UCX_GPUDIRECT, "no InfiniBand/RoCE path");
	else if (is_no(gdr))
		emit(out, CK_ENV_UCX_GPUDIRECT, hard(in), NULL,
		     "UCX_IB_GPU_DIRECT_RDMA=%s: GPU buffers staged through host", gdr);
	else if (is_no(dmabuf) && peermem_loaded(in->f) != 1)
		emit(out, CK_ENV_UCX_GPUDIRECT, CHECK_WARN, NULL,
		     "UCX_CUDA_COPY_DMABUF=%s without nvidia_peermem disables the only GPUDirect path",
		     dmabuf);
	else
		emit(out, CK_ENV_UCX_GPUDIRECT, CHECK_OK, NULL,
		     "UCX_IB_GPU_DIRECT_RDMA=%s", gdr ? gdr : "try (unset)");
}

/* G4: get_zcopy / RNDV_THRESH=0 crash UCX on EFA (kernel >= 6.8). */
static void rndv(const struct check_input *in, struct check_results *out)
{
	const char *scheme = envv(in, "UCX_RNDV_SCHEME");
	const char *thresh = envv(in, "UCX_RNDV_THRESH");
	const char *be = in->ctx->nixl_backend;

	if (in->fabric != FABRIC_EFA || (be && !strcmp(be, "LIBFABRIC")))
		emit_na(out, CK_ENV_UCX_RNDV, "UCX not used on EFA");
	else if (scheme && !strcmp(scheme, "get_zcopy"))
		emit(out, CK_ENV_UCX_RNDV, CHECK_FAIL, NULL,
		     "UCX_RNDV_SCHEME=get_zcopy on EFA: NIXL_ERR_BACKEND / remote invalid RD request");
	else if (thresh && !strcmp(thresh, "0"))
		emit(out, CK_ENV_UCX_RNDV, CHECK_WARN, NULL,
		     "UCX_RNDV_THRESH=0 on EFA forces zero-copy on CUDA buffers");
	else
		emit(out, CK_ENV_UCX_RNDV, CHECK_OK, NULL, "UCX_RNDV_SCHEME=%s",
		     scheme ? scheme : "auto (unset)");
}

static void nccl_net(const struct check_input *in, struct check_results *out)
{
	const char *ibd = envv(in, "NCCL_IB_DISABLE");
	const char *net = envv(in, "NCCL_NET");
	const char *gdr = envv(in, "NCCL_NET_GDR_LEVEL");
	int ib = in->fabric == FABRIC_INFINIBAND || in->fabric == FABRIC_ROCE;

	if (net && !strcasecmp(net, "Socket") && is_rdma_fabric(in->fabric))
		emit(out, CK_ENV_NCCL_NET, CHECK_FAIL, NULL,
		     "NCCL_NET=Socket on %s: NCCL ignores the RDMA NICs",
		     fabric_name(in->fabric));
	else if (ib && is_yes(ibd))
		emit(out, CK_ENV_NCCL_NET, CHECK_FAIL, NULL,
		     "NCCL_IB_DISABLE=%s on %s: NCCL uses sockets", ibd,
		     fabric_name(in->fabric));
	else if (ib && gdr && (!strcasecmp(gdr, "LOC") || !strcmp(gdr, "0")))
		emit(out, CK_ENV_NCCL_NET, CHECK_WARN, NULL,
		     "NCCL_NET_GDR_LEVEL=%s disables GPUDirect RDMA for NCCL", gdr);
	else
		emit(out, CK_ENV_NCCL_NET, CHECK_OK, NULL,
		     "NCCL_IB_DISABLE=%s, NCCL_NET=%s", ibd ? ibd : "unset",
		     net ? net : "unset");
}

static int has_nvlink(const struct probe_facts *f)
{
	for (int a = 0; a < f->topo.gpu_rows && a < PROBE_MAX_GPUS; a++)
		for (int b = 0; b < f->topo.ngpus && b < PROBE_MAX_GPUS; b++)
			if (f->topo.gpu_gpu[a][b].link == PROBE_TOPO_NV)
				return 1;
	return 0;
}

static void nccl_p2p(const struct check_input *in, struct check_results *out)
{
	const char *dis = envv(in, "NCCL_P2P_DISABLE");
	const char *lvl = envv(in, "NCCL_P2P_LEVEL");
	int nv = has_nvlink(in->f);

	if (is_yes(dis))
		emit(out, CK_ENV_NCCL_P2P, nv ? CHECK_FAIL : CHECK_WARN, NULL,
		     "NCCL_P2P_DISABLE=%s%s: TP traffic goes through host memory",
		     dis, nv ? " on NVLink GPUs" : "");
	else if (lvl && (!strcasecmp(lvl, "LOC") || !strcmp(lvl, "0")))
		emit(out, CK_ENV_NCCL_P2P, CHECK_WARN, NULL,
		     "NCCL_P2P_LEVEL=%s forces P2P off", lvl);
	else if (lvl && !strcasecmp(lvl, "NVL") && !nv &&
		 in->f->topo.src.status == PROBE_OK && in->f->topo.ngpus > 1)
		emit(out, CK_ENV_NCCL_P2P, CHECK_WARN, NULL,
		     "NCCL_P2P_LEVEL=NVL on GPUs without NVLink disables P2P");
	else
		emit(out, CK_ENV_NCCL_P2P, CHECK_OK, NULL,
		     "NCCL_P2P_DISABLE=%s, NCCL_P2P_LEVEL=%s", dis ? dis : "unset",
		     lvl ? lvl : "unset");
}

static void fi(const struct check_input *in, struct check_results *out)
{
	const char *prov = envv(in, "FI_PROVIDER");
	const char *rdma = envv(in, "FI_EFA_USE_DEVICE_RDMA");

	if (in->fabric != FABRIC_EFA)
		emit_na(out, CK_ENV_FI, "not an EFA fabric");
	else if (prov && (*prov == '^' ? strstr(prov, "efa") != NULL
					: strstr(prov, "efa") == NULL))
		emit(out, CK_ENV_FI, CHECK_FAIL, NULL,
		     "FI_PROVIDER=%s excludes efa on an EFA node", prov);
	else if (is_no(rdma))
		emit(out, CK_ENV_FI, CHECK_FAIL, NULL,
		     "FI_EFA_USE_DEVICE_RDMA=%s: RMA emulated in software", rdma);
	else
		emit(out, CK_ENV_FI, CHECK_OK, NULL, "FI_PROVIDER=%s, FI_EFA_USE_DEVICE_RDMA=%s",
		     prov ? prov : "unset", rdma ? rdma : "unset");
}

void check_env(const struct check_input *in, struct check_results *out)
{
	static const enum check_id ids[] = {
		CK_ENV_UCX_TLS, CK_ENV_UCX_NET_DEVICES, CK_ENV_UCX_GPUDIRECT,
		CK_ENV_UCX_RNDV, CK_ENV_NCCL_NET, CK_ENV_NCCL_P2P, CK_ENV_FI,
	};

	if (!env_readable(in)) {
		for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
			skipped_env(in, ids[i], out);
		return;
	}
	ucx_tls(in, out);
	net_devices(in, out);
	ucx_gpudirect(in, out);
	rndv(in, out);
	nccl_net(in, out);
	nccl_p2p(in, out);
	fi(in, out);
}
