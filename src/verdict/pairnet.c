/* A10, D4b, D6, E7b and E8b pair rules (see pairnet.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "verdict/pairnet.h"

#include "model/envrules.h"
#include "util/clist.h"

enum rel { REL_UNKNOWN, REL_SAME, REL_DIFF };

static uint32_t mask(int plen)
{
	return plen <= 0 ? 0 : plen >= 32 ? 0xffffffffu : ~((1u << (32 - plen)) - 1);
}

static int covers(uint32_t net, int plen, uint32_t addr)
{
	return ((net ^ addr) & mask(plen)) == 0;
}

static void v4(uint32_t a, char *out, size_t n)
{
	struct in_addr x = { htonl(a) };

	if (!inet_ntop(AF_INET, &x, out, (socklen_t)n))
		snprintf(out, n, "?");
}

/* "10.14.1.64/26" of a netdev's address. */
static void subnet(const struct check_gid_net *g, char *out, size_t n)
{
	char a[INET_ADDRSTRLEN];

	v4(g->net_v4 & mask(g->net_plen), a, sizeof a);
	snprintf(out, n, "%s/%d", a, g->net_plen);
}

/* Same IPv4 subnet?  From both netdevs' prefixes, else from one prefix
 * and the other side's IPv4 GID. */
static enum rel relation(const struct check_gid_net *a, const struct check_gid_net *b)
{
	if (a->net_known && b->net_known)
		return a->net_plen == b->net_plen &&
		       covers(a->net_v4, a->net_plen, b->net_v4) ? REL_SAME : REL_DIFF;
	if (a->net_known && b->kind == CHECK_GID_V4)
		return covers(a->net_v4, a->net_plen, b->gid_v4) ? REL_SAME : REL_DIFF;
	if (b->net_known && a->kind == CHECK_GID_V4)
		return covers(b->net_v4, b->net_plen, a->gid_v4) ? REL_SAME : REL_DIFF;
	return REL_UNKNOWN;
}

/* A unicast route via the GID's netdev that covers addr (default too). */
static int routes_to(const struct check_gid_net *g, uint32_t addr)
{
	for (int i = 0; i < g->nroutes; i++)
		if (covers(g->rt_dst[i], g->rt_plen[i], addr))
			return 1;
	return 0;
}

static const char *kind_words(enum check_gid_kind k)
{
	switch (k) {
	case CHECK_GID_LINK_LOCAL: return "the link-local fe80:: GID (not routed)";
	case CHECK_GID_EMPTY: return "an empty GID";
	case CHECK_GID_V1: return "a RoCE v1 GID (L2 only)";
	default: return "a routable GID";
	}
}

static void rel_words(const struct check_gid_net *a, const struct check_gid_net *b,
		      char *out, size_t n)
{
	char x[24] = "?", y[24] = "?";

	if (a->net_known)
		subnet(a, x, sizeof x);
	else if (a->kind == CHECK_GID_V4)
		v4(a->gid_v4, x, sizeof x);
	if (b->net_known)
		subnet(b, y, sizeof y);
	else if (b->kind == CHECK_GID_V4)
		v4(b->gid_v4, y, sizeof y);
	snprintf(out, n, "%s vs %s", x, y);
}

/* One side's GID cannot leave its L2 segment (link-local, v1) or does
 * not exist: the one GID rule (model/mooncake.c envr_gid_l2_rule, which
 * the per-pod env-gid-index reads too) with what the pair shows of the
 * two subnets. */
static enum check_status l2_only(const struct check_gid_net *bad, const char *bn,
				 const struct check_gid_net *a, const struct check_gid_net *b,
				 char *why, size_t n)
{
	enum rel r = relation(a, b);
	enum envr_sev s = envr_gid_l2_rule(bad->kind == CHECK_GID_EMPTY ? ENVR_GIDC_EMPTY :
					   ENVR_GIDC_L2_ONLY,
					   r == REL_SAME ? ENVR_L2_SAME :
					   r == REL_DIFF ? ENVR_L2_APART : ENVR_L2_UNKNOWN);
	char w[64];

	rel_words(a, b, w, sizeof w);
	if (s == ENVR_OK)
		return CHECK_OK;
	if (s == ENVR_FAIL) {
		snprintf(why, n, "%s uses %s, %s, and the pair is %s (%s): every "
			 "transfer between them fails", bn, kind_words(bad->kind), bad->what,
			 r == REL_DIFF ? "in different subnets" : "not known to share a subnet", w);
		return CHECK_FAIL;
	}
	snprintf(why, n, "%s uses %s, %s: it reaches the peer only on one L2 segment, "
		 "which the pod's network namespace does not show", bn,
		 kind_words(bad->kind), bad->what);
	return CHECK_WARN;
}

/* Two routable IPv4 GIDs in different subnets: each netdev needs a route
 * to the other's address in the main table, as UCX's reachability check
 * asks (openucx/ucx PR #10135, UCX_IB_ROCE_REACHABILITY_MODE=route:
 * ucs_netlink_route_exists on the GID's netdev). */
static enum check_status routed(const struct check_gid_net *a, const char *an,
				const struct check_gid_net *b, const char *bn,
				char *why, size_t n)
{
	const struct check_gid_net *s[2] = { a, b };
	const char *nm[2] = { an, bn };
	char w[64], peer[INET_ADDRSTRLEN];

	rel_words(a, b, w, sizeof w);
	for (int i = 0; i < 2; i++) {
		if (!s[i]->routes_known)
			continue;
		if (!routes_to(s[i], s[1 - i]->gid_v4)) {
			v4(s[1 - i]->gid_v4, peer, sizeof peer);
			snprintf(why, n, "different subnets (%s) and %s's %s has no route to "
				 "%s's GID %s: RoCE v2 cannot reach it", w, nm[i], s[i]->what,
				 nm[1 - i], peer);
			return CHECK_FAIL;
		}
	}
	if (a->routes_known && b->routes_known)
		return CHECK_OK;
	snprintf(why, n, "different subnets (%s) and the routes of %s are not readable "
		 "in the pod: cannot tell whether the GIDs reach each other", w,
		 a->routes_known ? bn : an);
	return CHECK_WARN;
}

enum check_status verdict_pair_gid(const struct check_summary *a, const char *an,
				   const struct check_summary *b, const char *bn,
				   char *why, size_t n)
{
	const struct check_gid_net *x = &a->gid, *y = &b->gid;

	if (x->kind == CHECK_GID_NONE || y->kind == CHECK_GID_NONE)
		return CHECK_OK;
	/* UCX takes a peer of another RoCE version as unreachable (openucx/ucx
	 * PR #4688, uct_ib_iface_is_same_roce_version). */
	if ((x->kind == CHECK_GID_V1) != (y->kind == CHECK_GID_V1) &&
	    x->kind <= CHECK_GID_V1 && y->kind <= CHECK_GID_V1) {
		snprintf(why, n, "RoCE versions differ: %s uses %s, %s uses %s: UCX takes "
			 "the peer as unreachable", an, x->what, bn, y->what);
		return CHECK_FAIL;
	}
	if (x->kind >= CHECK_GID_V1 || y->kind >= CHECK_GID_V1)
		return x->kind >= y->kind ? l2_only(x, an, x, y, why, n)
					  : l2_only(y, bn, x, y, why, n);
	if (x->kind != CHECK_GID_V4 || y->kind != CHECK_GID_V4)
		return CHECK_OK;   /* global IPv6: routes not read */
	/* Neither subnet readable: the two routable GIDs (A9 judged each)
	 * are left to the fabric; nothing the pods show says otherwise. */
	return relation(x, y) == REL_DIFF ? routed(x, an, y, bn, why, n) : CHECK_OK;
}

enum check_status verdict_pair_nvl_domain(const struct check_summary *a, const char *an,
					  const struct check_summary *b, const char *bn,
					  char *why, size_t n)
{
	if ((!a->mnnvl && !b->mnnvl) || !*a->nvl_domain || !*b->nvl_domain ||
	    !strcmp(a->nvl_domain, b->nvl_domain))
		return CHECK_OK;
	if (a->mnnvl == 3 || b->mnnvl == 3) {   /* digest_net.c: Mooncake's NVLink pool */
		snprintf(why, n, "Mooncake KV over multi-node NVLink but different NVLink domains: %s in %s, "
			 "%s in %s; across domains the transfer fails while the pods report Ready "
			 "(keep both in one nvidia.com/gpu.clique, or drop the NVLINK memory pool)",
			 an, a->nvl_domain, bn, b->nvl_domain);
		return CHECK_FAIL;
	}
	snprintf(why, n, "multi-node NVLink in use%s but different NVLink domains: %s in %s, "
		 "%s in %s; MNNVL (cuda_ipc) between them hangs (UCX_CUDA_IPC_ENABLE_MNNVL=n "
		 "sends it over RDMA)",
		 a->mnnvl == 1 || b->mnnvl == 1 ? "" : " (on by UCX's default, try from 1.18)",
		 an, a->nvl_domain, bn, b->nvl_domain);
	return CHECK_FAIL;
}

/* s's off-fabric lane against peer's KV GID (E7b).  UCX_IB_ROCE_
 * REACHABILITY_MODE=route (UCX 1.19.0's default, openucx/ucx PR #10135:
 * uct_ib_iface_roce_is_routable) drops a lane with no route; "all", or a
 * UCX before the check, keeps it and the transfer over it fails. */
static enum check_status lane_off(const struct check_summary *s, const char *sn,
				  const struct check_summary *peer, const char *pn,
				  char *why, size_t n)
{
	const struct check_gid_net *o = &s->offfab, *g = &peer->gid;
	char addr[INET_ADDRSTRLEN], how[80];

	if (o->kind == CHECK_GID_NONE || s->reach_all < 1 || !o->routes_known ||
	    g->kind != CHECK_GID_V4 || routes_to(o, g->gid_v4))
		return CHECK_OK;
	v4(g->gid_v4, addr, sizeof addr);
	if (s->reach_all == 1)
		snprintf(how, sizeof how, "UCX_IB_ROCE_REACHABILITY_MODE=all");
	else
		snprintf(how, sizeof how, "UCX %.31s (before 1.19.0's route check)", s->ucx_version);
	snprintf(why, n, "%s: UCX stripes KV over %s, off the KV fabric, which has no route to "
		 "%s's GID %s, and %s keeps that lane: transfers over it fail; %s%s on the worker",
		 sn, o->what, pn, addr, how, *s->net_sugg ? "set UCX_NET_DEVICES=" :
		 "list only the KV rails in UCX_NET_DEVICES", s->net_sugg);
	return CHECK_FAIL;
}

enum check_status verdict_pair_offfab(const struct check_summary *a, const char *an,
				      const struct check_summary *b, const char *bn,
				      char *why, size_t n)
{
	enum check_status st = lane_off(a, an, b, bn, why, n);

	return st != CHECK_OK ? st : lane_off(b, bn, a, an, why, n);
}

/* The fields of one netdev view, for the pod-class key. */
static void net_key(const struct check_gid_net *g, struct buf *b)
{
	buf_appendf(b, " g%d:%u:%d:%u:%d:%d:%zu:%s", (int)g->kind, (unsigned)g->gid_v4,
		    g->net_known, (unsigned)g->net_v4, g->net_plen, g->routes_known,
		    strlen(g->what), g->what);
	for (int i = 0; i < g->nroutes; i++)
		buf_appendf(b, ",%u/%d", (unsigned)g->rt_dst[i], g->rt_plen[i]);
}

void verdict_pairnet_key(const struct check_summary *s, struct buf *b)
{
	net_key(&s->gid, b);
	net_key(&s->offfab, b);
	buf_appendf(b, " m%d %zu:%s r%d %zu:%s", s->mnnvl, strlen(s->nvl_domain), s->nvl_domain,
		    s->reach_all, strlen(s->net_sugg), s->net_sugg);
	buf_appendf(b, " i%d %d %d %d %d", s->ipc_path, s->nvlink, s->ipc_get, s->fabric_mem,
		    s->kv_dir);
	buf_appendf(b, " mc%d %d %zu:%s %zu:%s", s->mc_affinity, s->mc_rail_only,
		    strlen(s->mc_rails), s->mc_rails, strlen(s->mc_rank_nics), s->mc_rank_nics);
}

/* The entries of x that y lacks, comma-joined, into out; their number. */
static int mc_missing(const char *x, const char *y, char *out, size_t n)
{
	size_t used = 0;
	int k = 0;

	out[0] = '\0';
	for (const char *p = x; *p;) {
		size_t l = strcspn(p, ",");

		if (l && !clist_has(y, p, l, 0) && used < n) {
			used += (size_t)snprintf(out + used, n - used, "%s%.*s", k ? "," : "", (int)l, p);
			k++;
		}
		p += l;
		p += *p != '\0';
	}
	return k;
}

/* Mooncake with MC_ENABLE_DEST_DEVICE_AFFINITY pins a slice to the peer's
 * device of the same name; where the peer has none, it falls back to its
 * ordinary pick without a word (kvcache-ai/Mooncake#3828: "a miss is
 * silent"), a QP across rails, which a rail-only fabric (each rail its own
 * subnet, no route between them) does not carry: both ends must list the
 * same rails. */
/* Ranks in "x;y" lists: their number. */
static int mc_ranks(const char *v)
{
	int k = *v != '\0';

	for (; *v; v++)
		k += *v == ';';
	return k;
}

/* Without the affinity Mooncake picks the peer's device on its own
 * (worker_pool.cpp selectPeerDevice: no hint; Topology::selectDevice, at
 * random among the preferred NICs of the peer buffer's GPU), so on a
 * rail-only fabric rank r's slices stay on one rail only where both GPUs
 * of rank r prefer one NIC, the same one (NVIDIA-NeMo/RL PR #2935: every
 * cross-rail pair failed on RoCE rail-only runners).  Judged with the same
 * TP on both sides (rank r meets rank r) and every GPU's preference known. */
static enum check_status mc_rails_free(const struct check_summary *a, const char *an,
				       const struct check_summary *b, const char *bn,
				       char *why, size_t n)
{
	const char *p = a->mc_rank_nics, *q = b->mc_rank_nics;
	int nr = mc_ranks(p);

	if (!nr || nr != mc_ranks(q) || strchr(p, '?') || strchr(q, '?'))
		return CHECK_OK;
	for (int r = 0; r < nr; r++) {
		size_t lp = strcspn(p, ";"), lq = strcspn(q, ";");

		if (lp != lq || strncmp(p, q, lp) || memchr(p, '+', lp) || memchr(q, '+', lq)) {
			snprintf(why, n, "rank %d: %s's %.*s, %s's %.*s: without "
				 "MC_ENABLE_DEST_DEVICE_AFFINITY Mooncake picks the peer's device on "
				 "its own (worker_pool.cpp selectPeerDevice, no hint: at random among "
				 "the preferred NICs of the peer GPU), so its slices cross rails, which "
				 "this rail-only fabric does not route (NVIDIA-NeMo/RL PR #2935: every "
				 "cross-rail pair failed; kvcache-ai/Mooncake#3828)",
				 r, an, (int)lp, p, bn, (int)lq, q);
			return CHECK_FAIL;
		}
		p += lp + (p[lp] == ';');
		q += lq + (q[lq] == ';');
	}
	return CHECK_OK;
}

enum check_status verdict_pair_mc_rails(const struct check_summary *a, const char *an,
					const struct check_summary *b, const char *bn,
					char *why, size_t n)
{
	char miss[128];
	const struct check_summary *x = a, *y = b;
	const char *xn = an, *yn = bn;

	if (!*a->mc_rails || !*b->mc_rails || !(a->mc_rail_only == 1 || b->mc_rail_only == 1))
		return CHECK_OK;
	if (!(a->mc_affinity || b->mc_affinity))
		return mc_rails_free(a, an, b, bn, why, n);
	if (!mc_missing(x->mc_rails, y->mc_rails, miss, sizeof miss)) {
		x = b, y = a, xn = bn, yn = an;
		if (!mc_missing(x->mc_rails, y->mc_rails, miss, sizeof miss))
			return CHECK_OK;
	}
	snprintf(why, n, "%s lists %s, which %s does not: with MC_ENABLE_DEST_DEVICE_AFFINITY "
		 "Mooncake pins each slice to the peer's device of the same name and, where the "
		 "peer has none, silently falls back to another rail; on this rail-only fabric "
		 "(each rail its own subnet, no route between them) that QP has no route "
		 "(kvcache-ai/Mooncake#3828)", xn, miss, yn);
	return CHECK_FAIL;
}

/* Whether this NIXL may carry ai-dynamo/nixl PR #2208 ("Enable GET over
 * CUDA IPC on GPU without NVLINK", merged 2026-09-05 for
 * vllm-project/vllm#52607): not in any release up to v1.4.0 (tagged
 * 2026-08-13; the stored history ends at PR #2130, 2026-08-21), so 1 only
 * for a later version, which is assumed to carry it; 0 for 1.4.x and
 * before or an unreported version. */
static int nixl_get_fix(const char *v)
{
	int maj, min;

	if (sscanf(v, "%d.%d", &maj, &min) != 2)
		return 0;
	return maj > 1 || (maj == 1 && min > 4);
}

/* NIXL's part in the READ rule's reason: which NIXL, and whether PR #2208
 * may have turned GET on. */
static void nixl_said(const char *v, int fix, char *out, size_t n)
{
	if (fix)
		snprintf(out, n, "; NIXL %.31s is after v1.4.0 and may carry ai-dynamo/nixl "
			 "PR #2208, which turns GET on", v);
	else if (*v)
		snprintf(out, n, "; NIXL %.31s is before ai-dynamo/nixl PR #2208", v);
	else
		snprintf(out, n, "; NIXL's version not reported, taken as before "
			 "ai-dynamo/nixl PR #2208");
}

enum check_status verdict_pair_ipc_dir(const struct check_summary *a, const char *an,
				       const struct check_summary *b, const char *bn,
				       char *why, size_t n)
{
	char dir = b->kv_dir ? b->kv_dir : a->kv_dir, nx[128];
	int fix = nixl_get_fix(b->nixl_version);

	/* The decode worker issues the READ: its UCX decides GET (cuda_ipc_
	 * iface.c uct_cuda_ipc_iface_get_max_get_zcopy: no NVLink on GPU 0 and
	 * UCX_CUDA_IPC_ENABLE_GET_ZCOPY not y gives cuda_ipc no GET). */
	if (a->ipc_path != 1 || b->ipc_path != 1 || dir != 'R' || b->nvlink != 2 ||
	    b->ipc_get == 1)
		return CHECK_OK;
	nixl_said(b->nixl_version, fix, nx, sizeof nx);
	snprintf(why, n, "KV between %s and %s on one node has only cuda_ipc (no RDMA), and "
		 "vLLM's NixlConnector READs it: without NVLink on %s's GPUs UCX's cuda_ipc "
		 "has no GET, so the READ falls back to TCP (0.5 GB/s where a WRITE moves "
		 "49 GB/s, vllm-project/vllm#52607)%s", an, bn, bn, nx);
	return fix ? CHECK_WARN : CHECK_FAIL;
}

enum check_status verdict_pair_ipc_fabric(const struct check_summary *a, const char *an,
					  const struct check_summary *b, const char *bn,
					  char *why, size_t n)
{
	const struct check_summary *no = a->fabric_mem == 2 ? a : b;

	if (a->ipc_path != 2 || b->ipc_path != 2 || no->fabric_mem != 2 ||
	    (*a->nvl_domain && *b->nvl_domain && strcmp(a->nvl_domain, b->nvl_domain)))
		return CHECK_OK;
	snprintf(why, n, "KV between %s and %s has only multi-node NVLink (cuda_ipc, no RDMA), "
		 "but %s allocates it with plain cudaMalloc: without a CUDA fabric handle "
		 "cuda_ipc cannot export it across trays and UCX downgrades to software "
		 "emulation over TCP (vllm-project/vllm PR #51377)", an, bn,
		 no == a ? an : bn);
	return CHECK_FAIL;
}
