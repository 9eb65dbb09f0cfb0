/* A10 and D4b (src/verdict/pairnet.c, src/probe/ipnet.c): iproute2's
 * listings parsed, and prefill/decode judged on their GIDs' reach and
 * their NVLink domains from the two digests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "probe/facts.h"
#include "t.h"
#include "verdict/pairnet.h"

#define V4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))

static void test_parse(void)
{
	static const char addr[] =
		"1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever\n"
		"10: ens108np0.100@ens108np0    inet 10.14.0.10/26 brd 10.14.0.63 scope global\n"
		"garbage line\n11: ens109np0    inet 300.1.1.1/26 scope global\n"
		"12: ens110np0    inet 10.14.2.10/33 scope global\n";
	static const char route[] =
		"default via 10.244.10.1 dev eth0\n"
		"10.14.0.0/16 via 10.14.0.1 dev ens108np0 proto static metric 100\n"
		"10.14.0.0/26 dev ens108np0 proto kernel scope link src 10.14.0.10\n"
		"10.9.0.0/16 via nonsense dev ens109np0\nblackhole\n10.1.0.0/16 via 10.1.0.1\n";
	struct probe_ipnet *ip = calloc(1, sizeof *ip);

	CHECK_INT(probe_parse_ip_addr(addr, strlen(addr), ip), 2);
	CHECK_STR(ip->addr[1].dev, "ens108np0.100");
	CHECK_INT(ip->addr[1].addr, V4(10, 14, 0, 10));
	CHECK_INT(ip->addr[1].plen, 26);
	CHECK_INT(probe_parse_ip_route(route, strlen(route), ip), 4);
	CHECK_INT(ip->route[0].plen, 0);
	CHECK_STR(ip->route[0].dev, "eth0");
	CHECK_INT(ip->route[1].addr, V4(10, 14, 0, 0));
	CHECK_INT(ip->route[1].via, V4(10, 14, 0, 1));
	CHECK_INT(ip->route[2].via, 0);
	CHECK_INT(ip->route[3].via, 0);      /* "via nonsense": no gateway read */
	/* /proc/net/route as a little-endian pod prints it */
	{
		static const char proc[] =
			"Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
			"eth0\t00000000\t01F40A0A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
			"ens108np0\t00000E0A\t01000E0A\t0003\t0\t0\t100\t0000FFFF\t0\t0\t0\n"
			"ens108np0\t00000E0A\t00000000\t0001\t0\t0\t0\tC0FFFFFF\t0\t0\t0\n"
			"bad\tzz\t00000000\t0001\t0\t0\t0\t00FF00FF\t0\t0\t0\n";

		memset(ip, 0, sizeof *ip);
		CHECK_INT(probe_parse_proc_route(proc, strlen(proc), ip), 3);
		CHECK_INT(ip->route[0].plen, 0);
		CHECK_INT(ip->route[0].via, V4(10, 10, 244, 1));
		CHECK_STR(ip->route[1].dev, "ens108np0");
		CHECK_INT(ip->route[1].addr, V4(10, 14, 0, 0));
		CHECK_INT(ip->route[1].plen, 16);
		CHECK_INT(ip->route[1].via, V4(10, 14, 0, 1));
		CHECK_INT(ip->route[2].plen, 26);
		CHECK_INT(ip->route[2].via, 0);
	}
	free(ip);
}

/* A rail of rack h: GID 10.14.0.h/26 with a /16 route when routed. */
static void rail(struct check_summary *s, enum check_gid_kind k, int h, int routed)
{
	struct check_gid_net *g = &s->gid;

	memset(s, 0, sizeof *s);
	g->kind = k;
	snprintf(g->what, sizeof g->what, "UCX GID %d on mlx5_0:1 (ens108np0)",
		 k == CHECK_GID_V4 ? 3 : 1);
	if (k == CHECK_GID_V4)
		g->gid_v4 = V4(10, 14, 0, h);
	g->net_known = 1;
	g->net_v4 = V4(10, 14, 0, h);
	g->net_plen = 26;
	g->routes_known = 1;
	g->rt_dst[g->nroutes] = V4(10, 14, 0, h & 0xc0);
	g->rt_plen[g->nroutes++] = 26;
	if (routed) {
		g->rt_dst[g->nroutes] = V4(10, 14, 0, 0);
		g->rt_plen[g->nroutes++] = 16;
	}
}

static enum check_status gid(const struct check_summary *a, const struct check_summary *b,
			     char *why)
{
	why[0] = '\0';
	return verdict_pair_gid(a, "prefill p", b, "decode d", why, 400);
}

static void test_gid(void)
{
	struct check_summary a, b;
	char why[400];

	rail(&a, CHECK_GID_V4, 10, 1);
	rail(&b, CHECK_GID_V4, 74, 1);
	CHECK_INT(gid(&a, &b, why), CHECK_OK);
	rail(&b, CHECK_GID_V4, 74, 0);
	CHECK_INT(gid(&a, &b, why), CHECK_FAIL);
	CHECK_HAS(why, "decode d's UCX GID 3 on mlx5_0:1 (ens108np0) has no route to prefill p's GID 10.14.0.10");
	b.gid.routes_known = 0;
	b.gid.nroutes = 0;
	CHECK_INT(gid(&a, &b, why), CHECK_WARN);
	CHECK_HAS(why, "routes of decode d are not readable");
	/* one subnet: no route needed */
	rail(&b, CHECK_GID_V4, 20, 0);
	CHECK_INT(gid(&a, &b, why), CHECK_OK);
	/* subnets not readable: left to the fabric */
	a.gid.net_known = b.gid.net_known = 0;
	rail(&b, CHECK_GID_V4, 74, 0);
	b.gid.net_known = 0;
	CHECK_INT(gid(&a, &b, why), CHECK_OK);
	/* link-local across subnets, within one, and unknown */
	rail(&a, CHECK_GID_LINK_LOCAL, 10, 1);
	rail(&b, CHECK_GID_V4, 74, 1);
	CHECK_INT(gid(&a, &b, why), CHECK_FAIL);
	CHECK_HAS(why, "prefill p uses the link-local fe80:: GID (not routed)");
	CHECK_HAS(why, "in different subnets (10.14.0.0/26 vs 10.14.0.64/26)");
	rail(&b, CHECK_GID_V1, 20, 1);
	CHECK_INT(gid(&a, &b, why), CHECK_OK);
	a.gid.net_known = b.gid.net_known = 0;
	CHECK_INT(gid(&a, &b, why), CHECK_WARN);
	/* RoCE v1 against v2: UCX's version check */
	rail(&a, CHECK_GID_V1, 10, 1);
	rail(&b, CHECK_GID_V4, 20, 1);
	CHECK_INT(gid(&a, &b, why), CHECK_FAIL);
	CHECK_HAS(why, "RoCE versions differ");
	/* an empty GID never reaches anything */
	rail(&a, CHECK_GID_EMPTY, 10, 1);
	rail(&b, CHECK_GID_V4, 20, 1);
	CHECK_INT(gid(&a, &b, why), CHECK_FAIL);
	/* not RoCE on one side: not judged */
	rail(&b, CHECK_GID_NONE, 74, 1);
	CHECK_INT(gid(&a, &b, why), CHECK_OK);
}

static void test_nvl_domain(void)
{
	struct check_summary a, b;
	char why[400] = "";

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	snprintf(a.nvl_domain, sizeof a.nvl_domain, "ClusterUUID u1, CliqueId 1");
	snprintf(b.nvl_domain, sizeof b.nvl_domain, "ClusterUUID u2, CliqueId 1");
	CHECK_INT(verdict_pair_nvl_domain(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	b.mnnvl = 1;
	CHECK_INT(verdict_pair_nvl_domain(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "prefill p in ClusterUUID u1, CliqueId 1, decode d in ClusterUUID u2");
	snprintf(b.nvl_domain, sizeof b.nvl_domain, "ClusterUUID u1, CliqueId 1");
	CHECK_INT(verdict_pair_nvl_domain(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	b.nvl_domain[0] = '\0';
	CHECK_INT(verdict_pair_nvl_domain(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
}

/* E7b: a lane over an off-fabric port (10.20.0.11/24, connected route
 * only) against the peer's routed rail. */
static void off_port(struct check_summary *s, int reach, int route)
{
	struct check_gid_net *o = &s->offfab;

	o->kind = CHECK_GID_V4;
	snprintf(o->what, sizeof o->what, "mlx5_8:1 (enp41s0f0np0)");
	o->net_known = o->routes_known = 1;
	o->net_v4 = V4(10, 20, 0, 11);
	o->net_plen = 24;
	o->rt_dst[o->nroutes] = V4(10, 20, 0, 0);
	o->rt_plen[o->nroutes++] = 24;
	if (route) {
		o->rt_dst[o->nroutes] = 0;      /* a default route via it */
		o->rt_plen[o->nroutes++] = 0;
	}
	s->reach_all = reach;
	snprintf(s->ucx_version, sizeof s->ucx_version, "1.18.1");
	snprintf(s->net_sugg, sizeof s->net_sugg, "mlx5_0:1,mlx5_1:1");
}

static void test_offfab(void)
{
	struct check_summary a, b;
	char why[400] = "";

	rail(&a, CHECK_GID_V4, 10, 1);
	rail(&b, CHECK_GID_V4, 74, 1);
	CHECK_INT(verdict_pair_offfab(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	off_port(&b, 1, 0);
	CHECK_INT(verdict_pair_offfab(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "decode d: UCX stripes KV over mlx5_8:1 (enp41s0f0np0), off the KV fabric, "
		  "which has no route to prefill p's GID 10.14.0.10");
	CHECK_HAS(why, "UCX_IB_ROCE_REACHABILITY_MODE=all keeps");
	CHECK_HAS(why, "set UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1 on the worker");
	off_port(&b, 2, 0);
	CHECK_INT(verdict_pair_offfab(&b, "decode d", &a, "prefill p", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "UCX 1.18.1 (before 1.19.0's route check) keeps");
	/* the route check drops the lane; unknown: not judged */
	off_port(&b, 0, 0);
	CHECK_INT(verdict_pair_offfab(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	off_port(&b, -1, 0);
	CHECK_INT(verdict_pair_offfab(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	/* a route to the peer (here the default): the lane may work */
	off_port(&b, 1, 1);
	CHECK_INT(verdict_pair_offfab(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	/* its routes unread, or the peer's GID not IPv4: not judged */
	off_port(&b, 1, 0);
	b.offfab.routes_known = 0;
	CHECK_INT(verdict_pair_offfab(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	off_port(&b, 1, 0);
	a.gid.kind = CHECK_GID_V6;
	CHECK_INT(verdict_pair_offfab(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
}

/* D6: a same-node cuda_ipc-only pair on PCIe GPUs (no NVLink). */
static void ipc_side(struct check_summary *s, int path, char dir, const char *nixl)
{
	memset(s, 0, sizeof *s);
	s->ipc_path = path;
	s->nvlink = 2;
	s->kv_dir = dir;
	snprintf(s->nixl_version, sizeof s->nixl_version, "%s", nixl);
}

static void test_ipc_dir(void)
{
	struct check_summary a, b;
	char why[600] = "";

	ipc_side(&a, 1, 'R', "0.7.1");
	ipc_side(&b, 1, 'R', "0.7.1");
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "KV between prefill p and decode d on one node has only cuda_ipc");
	CHECK_HAS(why, "without NVLink on decode d's GPUs");
	CHECK_HAS(why, "NIXL 0.7.1 is before ai-dynamo/nixl PR #2208");
	/* the near misses: WRITE, GET forced on, NVLink, not the only path */
	b.kv_dir = a.kv_dir = 'W';
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	b.kv_dir = a.kv_dir = 'R';
	b.ipc_get = 1;
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	b.ipc_get = 2;   /* n: GET off, as auto on PCIe */
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	b.ipc_get = 0;
	b.nvlink = 1;
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	b.nvlink = 0;    /* unknown: not judged */
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	b.nvlink = 2;
	a.ipc_path = 0;
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	a.ipc_path = 1;
	/* the decode's direction unsaid: the prefill's stands */
	b.kv_dir = 0;
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	/* a NIXL after v1.4.0 may carry PR #2208: warn; none reported: fail */
	snprintf(b.nixl_version, sizeof b.nixl_version, "1.5.0");
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_WARN);
	CHECK_HAS(why, "NIXL 1.5.0 is after v1.4.0 and may carry");
	snprintf(b.nixl_version, sizeof b.nixl_version, "1.4.0");
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	b.nixl_version[0] = '\0';
	CHECK_INT(verdict_pair_ipc_dir(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "NIXL's version not reported, taken as before");
}

static void test_ipc_fabric(void)
{
	struct check_summary a, b;
	char why[600] = "";

	ipc_side(&a, 2, 'R', "0.7.1");
	ipc_side(&b, 2, 'R', "0.7.1");
	a.fabric_mem = 1;
	b.fabric_mem = 2;
	CHECK_INT(verdict_pair_ipc_fabric(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "but decode d allocates it with plain cudaMalloc");
	b.fabric_mem = 1;
	CHECK_INT(verdict_pair_ipc_fabric(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	b.fabric_mem = 0;   /* another engine: not judged */
	CHECK_INT(verdict_pair_ipc_fabric(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	a.fabric_mem = 2;
	CHECK_INT(verdict_pair_ipc_fabric(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "but prefill p allocates");
	/* RDMA beside it, or two domains (D4b's line): no line here */
	b.ipc_path = 0;
	CHECK_INT(verdict_pair_ipc_fabric(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	b.ipc_path = 2;
	snprintf(a.nvl_domain, sizeof a.nvl_domain, "ClusterUUID u1, CliqueId 1");
	snprintf(b.nvl_domain, sizeof b.nvl_domain, "ClusterUUID u2, CliqueId 1");
	CHECK_INT(verdict_pair_ipc_fabric(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
}

/* E8b (issue 42): Mooncake's rail sets on a rail-only fabric with
 * destination affinity (kvcache-ai/Mooncake#3828). */
static void mc_side(struct check_summary *s, const char *rails, int affinity, int rail_only)
{
	memset(s, 0, sizeof *s);
	snprintf(s->mc_rails, sizeof s->mc_rails, "%s", rails);
	s->mc_affinity = affinity;
	s->mc_rail_only = rail_only;
}

static void test_mc_rails(void)
{
	static const char all8[] = "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7";
	struct check_summary a, b;
	char why[600] = "";

	mc_side(&a, all8, 1, 1);
	mc_side(&b, "mlx5_0,mlx5_1,mlx5_2,mlx5_3", 1, 1);
	CHECK_INT(verdict_pair_mc_rails(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "prefill p lists mlx5_4,mlx5_5,mlx5_6,mlx5_7, which decode d does not");
	CHECK_HAS(why, "MC_ENABLE_DEST_DEVICE_AFFINITY");
	CHECK_HAS(why, "kvcache-ai/Mooncake#3828");
	/* the same set in another order */
	mc_side(&b, "mlx5_7,mlx5_6,mlx5_5,mlx5_4,mlx5_3,mlx5_2,mlx5_1,mlx5_0", 1, 1);
	CHECK_INT(verdict_pair_mc_rails(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	/* a fabric that routes between rails: a miss crosses rails, and works */
	mc_side(&a, all8, 1, 0);
	mc_side(&b, "mlx5_0,mlx5_1,mlx5_2,mlx5_3", 1, 0);
	CHECK_INT(verdict_pair_mc_rails(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	/* no affinity on either side: not this rule's */
	mc_side(&a, all8, 0, 1);
	mc_side(&b, "mlx5_0,mlx5_1,mlx5_2,mlx5_3", 0, 1);
	CHECK_INT(verdict_pair_mc_rails(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
	/* affinity on one side is enough (Mooncake tests it per process) */
	b.mc_affinity = 1;
	CHECK_INT(verdict_pair_mc_rails(&b, "decode d", &a, "prefill p", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "prefill p lists mlx5_4,mlx5_5,mlx5_6,mlx5_7, which decode d does not");
	/* no list on a side: every device, not judged */
	mc_side(&b, "", 1, 1);
	CHECK_INT(verdict_pair_mc_rails(&a, "prefill p", &b, "decode d", why, sizeof why), CHECK_OK);
}

/* verdict_pair_mc_rails with decode's per-rank NICs set to ranks. */
static enum check_status mc_free(const struct check_summary *a, struct check_summary *b,
				 const char *ranks, char *why, size_t n)
{
	snprintf(b->mc_rank_nics, sizeof b->mc_rank_nics, "%s", ranks);
	return verdict_pair_mc_rails(a, "prefill p", b, "decode d", why, n);
}

/* E8b without destination affinity (issue 42 item 3): Mooncake picks the
 * peer's device on its own (worker_pool.cpp selectPeerDevice, no hint), so
 * on a rail-only fabric rank r's slices stay on one rail only where both
 * GPUs of rank r prefer one NIC, the same. */
static void test_mc_rails_free(void)
{
	static const char all8[] = "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7";
	struct check_summary a, b;
	char why[800] = "";

	/* prefill GPUs 0-3, decode GPUs 4-7: rank 0 mlx5_0 to mlx5_4 */
	mc_side(&a, "mlx5_0,mlx5_1,mlx5_2,mlx5_3", 0, 1);
	snprintf(a.mc_rank_nics, sizeof a.mc_rank_nics, "mlx5_0;mlx5_1;mlx5_2;mlx5_3");
	mc_side(&b, "mlx5_4,mlx5_5,mlx5_6,mlx5_7", 0, 1);
	CHECK_INT(mc_free(&a, &b, "mlx5_4;mlx5_5;mlx5_6;mlx5_7", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "rank 0: prefill p's mlx5_0, decode d's mlx5_4");
	CHECK_HAS(why, "selectPeerDevice");
	CHECK_HAS(why, "NVIDIA-NeMo/RL PR #2935");
	/* the same GPUs and rails: every rank on one rail, whatever else is listed */
	mc_side(&b, all8, 0, 1);
	CHECK_INT(mc_free(&a, &b, "mlx5_0;mlx5_1;mlx5_2;mlx5_3", why, sizeof why), CHECK_OK);
	/* a GPU preferring two NICs: independent picks cross rails */
	CHECK_INT(mc_free(&a, &b, "mlx5_0+mlx5_4;mlx5_1;mlx5_2;mlx5_3", why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "rank 0: prefill p's mlx5_0, decode d's mlx5_0+mlx5_4");
	/* TP differs: which rank meets which is not modelled */
	CHECK_INT(mc_free(&a, &b, "mlx5_4;mlx5_5", why, sizeof why), CHECK_OK);
	/* a GPU with no preferred NIC known ("?"): not judged */
	CHECK_INT(mc_free(&a, &b, "?;mlx5_5;mlx5_6;mlx5_7", why, sizeof why), CHECK_OK);
	/* a fabric that routes between rails: crossing works */
	a.mc_rail_only = b.mc_rail_only = 0;
	CHECK_INT(mc_free(&a, &b, "mlx5_4;mlx5_5;mlx5_6;mlx5_7", why, sizeof why), CHECK_OK);
}

int main(void)
{
	test_mc_rails_free();
	test_parse();
	test_gid();
	test_nvl_domain();
	test_offfab();
	test_ipc_dir();
	test_ipc_fabric();
	test_mc_rails();
	return T_DONE("test_pairnet");
}
