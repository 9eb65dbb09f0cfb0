/* The per-pod digest of what prefill and decode must share on the wire
 * (checks.md A10, D4b): the GID the KV library uses and its netdev's
 * subnet and routes, and the NVLink domain of the pod's GPUs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/internal.h"
#include "model/envrules.h"
#include "model/podspec.h"
#include "probe/facts.h"
#include "util/xalloc.h"

/* How a library's GID index on port pt reads: the worse, the higher. */
static enum check_gid_kind gid_kind(const struct probe_rdma_port *pt, long idx)
{
	uint64_t bit;

	if (idx < 0 || idx >= PROBE_GID_ADDRS)
		return idx < 0 ? CHECK_GID_EMPTY : CHECK_GID_NONE;
	bit = (uint64_t)1 << idx;
	if (!(pt->gid_mask & bit))
		return CHECK_GID_EMPTY;
	if (pt->link_local_mask & bit)
		return CHECK_GID_LINK_LOCAL;
	if (!(pt->roce_v2_mask & bit))
		return CHECK_GID_V1;
	return pt->ipv4_mask & bit ? CHECK_GID_V4 : CHECK_GID_V6;
}

/* The first Active RoCE port the workload uses (env.c's gid_view), or NULL. */
static const struct probe_rdma_port *roce_port(const struct check_input *in,
					       const struct probe_rdma_dev **dev)
{
	const struct probe_rdma_list *l = &in->f->sysfs_ib;

	if (in->fabric != FABRIC_ROCE)
		return NULL;
	for (int i = 0; i < l->ndevs; i++)
		for (int p = 0; p < l->dev[i].nports; p++) {
			const struct probe_rdma_port *pt = &l->dev[i].port[p];
			int named;

			if (pt->link_layer != PROBE_LL_ETH || !pt->gids_listed ||
			    port_view(in->f, &l->dev[i], p)->state != PROBE_PORT_ACTIVE ||
			    !port_in_use(in, &l->dev[i], pt->num, &named))
				continue;
			*dev = &l->dev[i];
			return pt;
		}
	return NULL;
}

/* The netdev's address and its routes, from ip -o -4 addr / ip -4 route. */
void check_netdev_view(const struct probe_ipnet *ip, const char *dev, struct check_gid_net *g)
{
	if (!*dev)
		return;
	for (int i = 0; ip->addr_src.status == PROBE_OK && i < ip->naddrs; i++)
		if (!strcmp(ip->addr[i].dev, dev) && !g->net_known) {
			g->net_known = 1;
			g->net_v4 = ip->addr[i].addr;
			g->net_plen = ip->addr[i].plen;
		}
	g->routes_known = ip->route_src.status == PROBE_OK ||
			  ip->proc_route_src.status == PROBE_OK;
	for (int i = 0; g->routes_known && i < ip->nroutes; i++) {
		const struct probe_ip4 *r = &ip->route[i];

		if (strcmp(r->dev, dev))
			continue;
		/* Without an address listing, the netdev's connected route
		 * (no gateway) is its subnet. */
		if (!g->net_known && !r->via && r->plen > 0) {
			g->net_known = 1;
			g->net_v4 = r->addr;
			g->net_plen = r->plen;
		}
		if (g->nroutes < 8) {
			g->rt_dst[g->nroutes] = r->addr;
			g->rt_plen[g->nroutes++] = r->plen;
		}
	}
	/* A netdev with neither an address nor a route here is not in this
	 * namespace (the shared RDMA device plugin leaves it on the host):
	 * its routes are unknown, not absent. */
	if (!g->net_known && !g->nroutes)
		g->routes_known = 0;
}

static void gid_digest(const struct check_input *in, struct check_gid_net *g)
{
	const struct probe_rdma_dev *d = NULL;
	const struct probe_rdma_port *pt = roce_port(in, &d);
	struct envr_gid_port gp;
	struct envr_view view;
	struct envr_var *vars;
	long idx, mc;
	const char *who = "UCX";
	enum check_gid_kind k;

	if (!pt || !env_readable(in))
		return;
	vars = book_view(&in->f->env, &view);
	gid_port_view(pt, "", &gp);
	gp.mc_version = in->f->mooncake.version;
	idx = envr_gid_index_ucx(&gp, &view);
	k = gid_kind(pt, idx);
	if (envr_runs_mooncake(&view) || (in->ctx && envr_args_mooncake(in->ctx->args))) {
		mc = envr_gid_index_mooncake(&gp, &view);
		/* undecided (version unknown, releases disagree): A9 says so */
		if (mc != ENVR_GID_UNDECIDED && gid_kind(pt, mc) > k) {
			idx = mc;
			k = gid_kind(pt, mc);
			who = "Mooncake";
		}
	}
	free(vars);
	g->kind = k;
	if (k == CHECK_GID_V4)
		g->gid_v4 = pt->gid_ipv4[idx];
	{
		const char *nd = *pt->gid_ndev ? pt->gid_ndev : d->netdev;

		if (idx >= 0)
			snprintf(g->what, sizeof g->what, "%s GID %ld on %s:%d%s%s%s", who, idx,
				 d->name, pt->num, *nd ? " (" : "", nd, *nd ? ")" : "");
		else
			snprintf(g->what, sizeof g->what, "%s: no GID on %s:%d", who, d->name, pt->num);
		check_netdev_view(&in->f->ipnet, nd, g);
	}
}

/* A fabric id nvidia-smi gives when there is one (not "", N/A, zeros). */
static int real_id(const char *s)
{
	if (!*s || !strcmp(s, "N/A") || !strcmp(s, "Not Supported"))
		return 0;
	return strspn(s, "0-") != strlen(s);
}

/* UCX is not NIXL's KV backend here: LIBFABRIC named, or SGLang on
 * Mooncake. */
static int ucx_not_kv(const struct check_input *in)
{
	const char *be = in->ctx ? in->ctx->nixl_backend : NULL;

	return (be && *be && !strstr(be, "UCX")) || check_mooncake_kv(in);
}

/* Whether KV leaving the pod takes multi-node NVLink with the settings in
 * force, defaults included (D4b, issue 39 item 2): cuda_ipc is UCX's only
 * MNNVL transport, so never where UCX_TLS drops it or
 * UCX_CUDA_IPC_ENABLE_MNNVL is off; 1 where it is on; where it is unset
 * (or try/auto), UCX >= 1.18.0 tries it by default (cuda_ipc_md.c; an
 * unreported version taken as such), given an IMEX channel: a
 * ComputeDomain claim, or claims that could not be read.  3: Mooncake's
 * NVLink transport instead of UCX's. */
static int mnnvl_in_force(const struct check_input *in)
{
	const char *v = envv(in, "UCX_CUDA_IPC_ENABLE_MNNVL");
	const struct probe_ucx *u = &in->f->ucx;

	/* Mooncake's own NVLink transport (SGLang's NVLINK memory pool or
	 * MC_FORCE_MNNVL) over an IMEX channel: 3 (issue 38; Dynamo's
	 * deepseek-v4.1-flash sglang disagg-gb200 recipe: across NVLink
	 * cliques it "reports Ready and chat completions return HTTP 200
	 * with content null"). */
	if (check_mooncake_kv(in)) {
		const char *pool = envv(in, "SGLANG_MOONCAKE_CUSTOM_MEM_POOL");

		return ((pool && !strcasecmp(pool, "NVLINK")) || is_yes(envv(in, "MC_FORCE_MNNVL"))) &&
		       claims_of_kind(in->spec, CLAIM_IMEX) != 0 ? 3 : 0;
	}
	if (ucx_not_kv(in) || is_no(v) ||
	    !(envr_tls_allowed(envv(in, "UCX_TLS")) & (1u << ENVR_TL_CUDA_IPC)))
		return 0;
	if (is_yes(v))
		return 1;
	if (u->major >= 0 && (u->major < 1 || (u->major == 1 && u->minor < 18)))
		return 0;
	return claims_of_kind(in->spec, CLAIM_IMEX) != 0 ? 2 : 0;
}

static void nvl_digest(const struct check_input *in, struct check_summary *s)
{
	const struct probe_nvsmi *q = &in->f->nvsmi;

	s->mnnvl = mnnvl_in_force(in);
	for (int i = 0; i < q->ngpus && i < PROBE_MAX_GPUS; i++)
		if (real_id(q->gpu[i].cluster_uuid) && real_id(q->gpu[i].clique_id)) {
			snprintf(s->nvl_domain, sizeof s->nvl_domain, "ClusterUUID %s, CliqueId %s",
				 q->gpu[i].cluster_uuid, q->gpu[i].clique_id);
			return;
		}
}

void check_digest_net(const struct check_input *in, struct check_summary *s)
{
	memset(&s->gid, 0, sizeof s->gid);
	s->nvl_domain[0] = '\0';
	s->mnnvl = 0;
	memset(&s->offfab, 0, sizeof s->offfab);   /* nicsel.c fills these */
	s->reach_all = -1;
	s->net_sugg[0] = '\0';
	gid_digest(in, &s->gid);
	nvl_digest(in, s);
}
