/* UCX family, E7's per-GPU half (issue 25 item 2, issue 42 items 2-3): for
 * each GPU, the ports UCX stripes one NIXL put/get over (its lane
 * bandwidth model from proto_common.c and the rail cap), the lanes that
 * leave the KV fabric, and the digest the pair rules read.  The port list
 * is nicsel.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/nicsel_int.h"
#include "util/buf.h"
#include "util/clist.h"
#include "util/xalloc.h"

/* UCX's bandwidth of a lane for GPU memory, bytes/s: the NIC's (its
 * port rate; unknown: no cap) capped by the GPU-NIC distance, which UCX
 * reads from the sysfs paths of the two PCI devices
 * (ucs/sys/topo/base/topo.c ucs_topo_get_distance_sysfs): one PCIe switch
 * (PIX/PXB) no cap; a common PCI root (PHB) at most 3500 MB/s; only
 * /sys/devices in common, same NUMA node (NODE) 17000 MB/s, other node
 * (SYS) 220 MB/s; proto_common.c takes the minimum.  UCS_MBYTE is 2^20.
 * 0: not in topo -m. */
#define NICSEL_MB 1048576.0
#define NICSEL_NOCAP 1e30

static double lane_bw(const struct check_input *in, const struct nic *p, int link)
{
	const struct probe_rdma_port *pv = port_view(in->f, p->d, p->pi);
	double nic = pv->rate_gbps > 0 ? pv->rate_gbps * 1e9 / 8 : NICSEL_NOCAP;
	double cap;

	switch (link) {
	case PROBE_TOPO_PIX:
	case PROBE_TOPO_PXB:
		cap = NICSEL_NOCAP;
		break;
	case PROBE_TOPO_NODE:
		cap = 17000 * NICSEL_MB;
		break;
	case PROBE_TOPO_PHB:
		cap = 3500 * NICSEL_MB;
		break;
	case PROBE_TOPO_SYS:
		cap = 220 * NICSEL_MB;
		break;
	default:
		return 0;
	}
	return nic < cap ? nic : cap;
}

/* A positive integer variable of the main process, else dflt. */
static long env_count(const struct check_input *in, const char *name, long dflt)
{
	const char *v = envv(in, name);
	char *end;
	long n = v ? strtol(v, &end, 10) : 0;

	return v && end != v && !*end && n > 0 ? n : dflt;
}

/* The rails one NIXL put/get may stripe over: NIXL's KV transfers are
 * ucp_put_nbx/ucp_get_nbx, whose protocols (ucp/rma/put_offload.c,
 * get_offload.c) take up to UCX_MAX_RMA_RAILS lanes; NIXL sets it to 4
 * with UCX >= 1.20 and 2 before (ai-dynamo/nixl src/utils/ucx/
 * ucx_utils.cpp), unless the environment sets it (config.cpp modify()).
 * UCX_MAX_RNDV_RAILS caps tag/AM rendezvous, which NIXL's KV does not
 * use.  Unknown UCX version: 2. */
static int nicsel_max_rails(const struct check_input *in)
{
	const struct probe_ucx *u = &in->f->ucx;
	int nixl = u->major > 1 || (u->major == 1 && u->minor >= 20) ? 4 : 2;
	/* TensorRT-LLM's UCX cache transceiver sends KV as tag/AM
	 * rendezvous: UCX_MAX_RNDV_RAILS, default 2 (ucp_context.c; NVIDIA/
	 * TensorRT-LLM PR #7205 docs it, and 1 against NICs shared by GPUs) */
	long n = nicsel_trtllm_ucx(in) ? env_count(in, "UCX_MAX_RNDV_RAILS", 2)
				       : env_count(in, "UCX_MAX_RMA_RAILS", nixl);

	return n > 64 ? 64 : (int)n;
}

const char *nicsel_port_state(int st)
{
	static const char *const name[] = { "UNKNOWN", "DOWN", "INIT", "ARMED",
					    "ACTIVE", "ACTIVE_DEFER" };

	return st >= 0 && st <= PROBE_PORT_ACTIVE_DEFER ? name[st] : "UNKNOWN";
}

/* One candidate lane of a GPU: its port in s, bandwidth, topo code. */
struct lane {
	int i;
	double bw;
	int link;
};

/* The lanes of s that `use` accepts for GPU g, in topo -m column order
 * (standing in for UCX's PCI bus order), those slower than the fastest
 * over UCX_MULTI_LANE_MAX_RATIO (default 4) dropped as
 * ucp_proto_multi_filter_slow_lanes() does; their number. */
static int gpu_lanes(const struct check_input *in, const struct nicsel *s, int g,
		     int (*use)(const struct nic *), struct lane *v)
{
	const struct probe_topo *t = &in->f->topo;
	double top = 0, ratio = (double)env_count(in, "UCX_MULTI_LANE_MAX_RATIO", 4);
	int n = 0, k = 0;

	for (int i = 0; i < s->count; i++) {
		const struct nic *p = &s->n[i];
		struct lane l;
		int j;

		if (!use(p) || p->topo < 0)
			continue;
		l.i = i;
		l.link = t->gpu_nic[g][p->topo].link;
		if ((l.bw = lane_bw(in, p, l.link)) <= 0)
			continue;
		for (j = n++; j > 0 && s->n[v[j - 1].i].topo > p->topo; j--)
			v[j] = v[j - 1];
		v[j] = l;
		top = l.bw > top ? l.bw : top;
	}
	for (int i = 0; i < n; i++)
		if (v[i].bw * ratio >= top)
			v[k++] = v[i];
	return k;
}

/* The ports UCX stripes GPU g's memory over among those `use` accepts
 * (ucp/proto/proto_multi.c ucp_proto_multi_select_bw_lanes): greedily the
 * fastest lane left, up to max_rails; among tied lanes the one at g modulo
 * their number (UCX PR #11547: the GPU's bus ordinal seeds the choice;
 * older UCX takes the first, the same number of ports at the same speed).
 * Into dst (at most CHECK_GPU_NIC_PORTS, *n -1 past that), the best topo
 * code among them into link. */
static void gpu_ports(const struct check_input *in, const struct nicsel *s, int g,
		      int (*use)(const struct nic *), struct check_gpu_nic_port *dst,
		      int *n, char *link, size_t linksz)
{
	struct lane v[NICSEL_MAX];
	int nl = gpu_lanes(in, s, g, use, v), rails = nicsel_max_rails(in), code = 0;
	int guess, rr = nicsel_ucx_11547(&in->f->ucx, &guess);

	*n = 0;
	for (int got = 0; got < rails && nl > 0; got++) {
		double m = 0;
		int tied = 0, pick = 0, seen = 0;
		const struct nic *p;
		const struct probe_rdma_port *pv;

		for (int i = 0; i < nl; i++)
			m = v[i].bw > m ? v[i].bw : m;
		for (int i = 0; i < nl; i++)
			tied += v[i].bw == m;
		for (int i = 0; i < nl; i++)
			if (v[i].bw == m && seen++ == (rr ? g % tied : 0))
				pick = i;
		p = &s->n[v[pick].i];
		if (!code || v[pick].link < code)
			code = v[pick].link;
		for (int i = pick; i + 1 < nl; i++)
			v[i] = v[i + 1];
		nl--;
		if (*n < 0 || *n >= CHECK_GPU_NIC_PORTS) {
			*n = -1;
			continue;
		}
		pv = port_view(in->f, p->d, p->pi);
		dev_port(dst[*n].dev, sizeof(dst[*n].dev), p->d->name, 27, p->port);
		copy_str(dst[*n].state, sizeof(dst[*n].state), nicsel_port_state(pv->state));
		copy_str(dst[*n].link_layer, sizeof(dst[*n].link_layer),
			 pv->link_layer == PROBE_LL_ETH ? "Ethernet" : "InfiniBand");
		(*n)++;
	}
	copy_str(link, linksz, code ? probe_topo_link_name(code) : "");
}

static int use_taken(const struct nic *n) { return n->taken; }
static int use_suggested(const struct nic *n) { return n->suggested; }

/* Per GPU of topo -m, the port(s) its KV uses now and, with a suggestion
 * (sugg), under it; into out->gpu_nics.  Nothing without topo -m. */
void nicsel_map_gpus(const struct check_input *in, const struct nicsel *s, int sugg,
		     struct check_results *out)
{
	const struct probe_topo *t = &in->f->topo;
	const char *v = envv(in, "UCX_NET_DEVICES");
	int rows = t->src.status == PROBE_OK ? t->gpu_rows : 0;
	struct check_gpu_nic *all;

	if (rows > PROBE_MAX_GPUS)
		rows = PROBE_MAX_GPUS;
	if (rows <= 0 || !t->nnics)
		return;
	all = xcalloc((size_t)rows, sizeof(*all));
	out->gpu_nics = all;
	out->n_gpu_nics = (size_t)rows;
	for (int g = 0; g < rows; g++) {
		struct check_gpu_nic *e = &all[g];

		e->gpu = g;
		e->numa = t->numa[g];
		e->max_rails = nicsel_max_rails(in);
		snprintf(e->chosen_by, sizeof(e->chosen_by), "%s",
			 s->listed ? "UCX_NET_DEVICES" : v ? "all" : "unset");
		gpu_ports(in, s, g, use_taken, e->nic, &e->n, e->link, sizeof(e->link));
		if (sugg)
			gpu_ports(in, s, g, use_suggested, e->sugg, &e->nsugg,
				  e->sugg_link, sizeof(e->sugg_link));
	}
}

/* Whether UCX keeps a RoCE lane its routes cannot carry (check.h
 * reach_all): the route check came with openucx/ucx PR #10135 in UCX
 * 1.19.0 (NEWS, "Added routing table cache to the reachability check"
 * follows it there; v1.18.1 lacks it), and UCX_IB_ROCE_REACHABILITY_MODE
 * =all turns it off. */
static int reach_all(const char *mode, const char *ucx_version)
{
	int maj, min, known = sscanf(ucx_version, "%d.%d", &maj, &min) == 2;

	if (known && (maj < 1 || (maj == 1 && min < 19)))
		return 2;
	if (mode && !strcmp(mode, "all"))
		return 1;
	return known ? 0 : -1;
}

/* The port off the KV fabric a GPU's lanes use (map_gpus' choice) into
 * the pod's digest, for the pair rule (verdict/pairnet.c): the first. */
void nicsel_digest_lane_off(const struct check_input *in, const struct nicsel *s,
			    const char *sugg, struct check_results *out)
{
	struct check_summary *sum = &out->summary;

	copy_str(sum->net_sugg, sizeof sum->net_sugg, sugg);
	sum->reach_all = reach_all(envv(in, "UCX_IB_ROCE_REACHABILITY_MODE"), sum->ucx_version);
	for (size_t g = 0; g < out->n_gpu_nics; g++)
		for (int k = 0; k < out->gpu_nics[g].n; k++)
			for (int i = 0; i < s->count; i++) {
				const struct nic *p = &s->n[i];
				const struct probe_rdma_port *pt = &p->d->port[p->pi];
				const char *nd = *pt->gid_ndev ? pt->gid_ndev : p->d->netdev;
				char dev[40];

				/* The cheap tests first: the name is only
				 * written for an Ethernet port taken off KV. */
				if (!p->taken || p->kv || pt->link_layer != PROBE_LL_ETH)
					continue;
				dev_port(dev, sizeof dev, p->d->name, 27, p->port);
				if (strcmp(dev, out->gpu_nics[g].nic[k].dev))
					continue;
				sum->offfab.kind = CHECK_GID_V4;
				snprintf(sum->offfab.what, sizeof sum->offfab.what, "%s%s%s%s", dev,
					 *nd ? " (" : "", nd, *nd ? ")" : "");
				check_netdev_view(&in->f->ipnet, nd, &sum->offfab);
				return;
			}
}

/* Does GPU e stripe over the port named dev? */
static int gpu_uses(const struct check_gpu_nic *e, const char *dev)
{
	for (int j = 0; j < e->n; j++)
		if (!strcmp(e->nic[j].dev, dev))
			return 1;
	return 0;
}

/* KV through TensorRT-LLM's UCX cache transceiver with UCX_MAX_RNDV_RAILS
 * unset: its tag/AM rendezvous stripes over UCX's default 2 rails
 * (ucp_context.c), so a GPU's second rail is another GPU's, and TP ranks
 * sending at once contend for it (NVIDIA/TensorRT-LLM PR #7205, whose
 * docs recommend 1).  The ports two or more GPUs of topo -m stripe over,
 * "mlx5_1:1 (GPU0, GPU1)" into b; their number.  A value set on purpose
 * is the operator's choice and not judged. */
int nicsel_shared_rails(const struct check_input *in, const struct nicsel *s, struct buf *b)
{
	const struct probe_topo *t = &in->f->topo;
	int rows = t->src.status == PROBE_OK ? t->gpu_rows : 0, k = 0;
	struct check_gpu_nic *all;

	if (!nicsel_trtllm_ucx(in) || envv(in, "UCX_MAX_RNDV_RAILS") || rows <= 1 || !t->nnics)
		return 0;
	if (rows > PROBE_MAX_GPUS)
		rows = PROBE_MAX_GPUS;
	all = xcalloc((size_t)rows, sizeof(*all));
	for (int g = 0; g < rows; g++)
		gpu_ports(in, s, g, use_taken, all[g].nic, &all[g].n, all[g].link,
			  sizeof(all[g].link));
	for (int g = 0; g < rows; g++)
		for (int j = 0; j < all[g].n; j++) {
			const char *dev = all[g].nic[j].dev;
			int users = 0, seen = 0;

			for (int h = 0; h < g; h++)
				seen |= gpu_uses(&all[h], dev);
			for (int h = g + 1; h < rows; h++)
				users += gpu_uses(&all[h], dev);
			if (seen || !users)
				continue;
			buf_appendf(b, "%s%s (GPU%d", k++ ? ", " : "", dev, g);
			for (int h = g + 1; h < rows; h++)
				if (gpu_uses(&all[h], dev))
					buf_appendf(b, ", GPU%d", h);
			buf_appendf(b, ")");
		}
	free(all);
	return k;
}
