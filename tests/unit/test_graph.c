/* Consistency across the graph (graph.c): prefill/decode pair rules,
 * grouping of identical mismatches, and the odd node out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check/check.h"
#include "verdict/graph.h"
#include "verdict/verdict.h"
#include "t.h"

#define MAXP 1024

struct g {
	char names[MAXP][24], nodes[MAXP][24];
	struct pod_info info[MAXP];
	struct run_pod pods[MAXP];
	size_t n;
	struct verdict_findings out;
};

static struct g G;

/* A healthy InfiniBand worker's digest. */
static void healthy(struct check_summary *s)
{
	snprintf(s->ucx_version, sizeof(s->ucx_version), "1.18.0");
	snprintf(s->nixl_version, sizeof(s->nixl_version), "0.9.0");
	snprintf(s->nixl_backend, sizeof(s->nixl_backend), "UCX");
	snprintf(s->driver_version, sizeof(s->driver_version), "570.124.06");
	snprintf(s->ucx_tls, sizeof(s->ucx_tls), "rc_x,dc_x,cuda_copy,cuda_ipc");
	snprintf(s->ucx_tls_shown, sizeof(s->ucx_tls_shown), "rc_x,dc_x,cuda_copy,cuda_ipc");
	snprintf(s->rdma_request, sizeof(s->rdma_request), "rdma/ib=8");
	s->spec_known = 1;
	s->env_known = 1;
	s->rdma_usable = 1;
	s->peermem = 1;
	s->gdrdrv = 1;
	s->active_ports = 8;
	s->port_rate_gbps = 400;
}

static void reset(void)
{
	for (size_t i = 0; i < G.n; i++)
		check_results_release(&G.pods[i].results);
	for (size_t i = 0; i < G.out.n; i++)
		verdict_finding_release(&G.out.v[i]);
	free(G.out.v);
	memset(&G, 0, sizeof(G));
}

/* Adds a probed, healthy pod; returns its digest to spoil. */
static struct check_summary *pod(const char *name, const char *role,
				 const char *node, const char *graph)
{
	size_t i = G.n++;

	snprintf(G.names[i], sizeof(G.names[i]), "%s", name);
	snprintf(G.nodes[i], sizeof(G.nodes[i]), "%s", node);
	check_results_init(&G.pods[i].results);
	G.pods[i].results.fabric = FABRIC_INFINIBAND;
	healthy(&G.pods[i].results.summary);
	G.info[i].name = G.names[i];
	G.info[i].node = G.nodes[i];
	G.info[i].role = (char *)role;
	G.info[i].namespace = "dynamo";
	G.info[i].graph = (char *)graph;
	G.pods[i].pod = &G.info[i];
	G.pods[i].probed = 1;
	return &G.pods[i].results.summary;
}

static void compare(void)
{
	for (size_t i = 0; i < G.out.n; i++)
		verdict_finding_release(&G.out.v[i]);
	G.out.n = 0;
	verdict_graph_compare(G.pods, G.n, &G.out);
}

static const struct verdict_finding *find(const char *needle)
{
	for (size_t i = 0; i < G.out.n; i++)
		if (strstr(G.out.v[i].text, needle))
			return &G.out.v[i];
	return NULL;
}

static const char *text(const struct verdict_finding *f)
{
	return f ? f->text : NULL;
}

static int status(const struct verdict_finding *f)
{
	return f ? (int)f->status : -1;
}

/* 2 prefill + 2 decode of graph qwen, each on its own node. */
static void qwen(void)
{
	reset();
	pod("qwen-prefill-0", "prefill", "gpu-a1", "qwen");
	pod("qwen-prefill-1", "prefill", "gpu-a2", "qwen");
	pod("qwen-decode-0", "decode", "gpu-a3", "qwen");
	pod("qwen-decode-1", "decode", "gpu-a4", "qwen");
}

static void test_consistent(void)
{
	qwen();
	compare();
	CHECK_INT(G.out.n, 0);
}

static void test_backend(void)
{
	const struct verdict_finding *f;

	qwen();
	snprintf(G.pods[3].results.summary.nixl_backend, 32, "LIBFABRIC");
	compare();
	f = find("NIXL backend");
	CHECK_STR(text(f), "prefill qwen-prefill-0 and decode qwen-decode-1: "
		  "NIXL backend UCX vs LIBFABRIC (and 1 more pair)");
	CHECK_INT(status(f), CHECK_FAIL);
	CHECK_STR(f ? f->name : NULL, "pair-consistency");
	CHECK_INT(f ? f->npods : 0, 2);
	CHECK_STR(f && f->npods == 2 ? f->pods[0] : NULL, "qwen-prefill-0");
	CHECK_STR(f && f->npods == 2 ? f->pods[1] : NULL, "qwen-decode-1");
	/* Sharing one backend is a warning, not a wall. */
	snprintf(G.pods[3].results.summary.nixl_backend, 32, "UCX,GDS");
	compare();
	CHECK_INT(status(find("NIXL backend UCX vs UCX,GDS")), CHECK_WARN);
	/* Unknown (no backend in the spec) says nothing. */
	G.pods[3].results.summary.nixl_backend[0] = '\0';
	compare();
	CHECK(find("NIXL backend") == NULL);
}

/* J5b: vLLM's NixlConnector refuses a peer with another attention
 * backend (nixl_connector.py _validate_remote_agent_handshake); the
 * backend as each pod's spec names it (--attention-backend, or
 * VLLM_ATTENTION_BACKEND=X on its command line). */
static void test_attention_backend(void)
{
	static const char fi[] = "python3 -m dynamo.vllm --attention-backend FLASHINFER --is-prefill-worker";
	static const char fa[] = "python3 -m dynamo.vllm --attention-backend=FLASH_ATTN";
	const struct verdict_finding *f;

	qwen();
	G.info[0].args = G.info[1].args = (char *)fi;
	G.info[2].args = G.info[3].args = (char *)fa;
	compare();
	f = find("attention backend");
	CHECK_STR(text(f), "prefill qwen-prefill-0 and decode qwen-decode-0: vLLM attention "
		  "backend FLASHINFER vs FLASH_ATTN (and 3 more pairs)");
	CHECK_INT(status(f), CHECK_FAIL);
	CHECK_STR(f ? f->about : NULL, "fw-vllm");
	/* One prefill differs: pods of one role are judged apart, not as a class. */
	G.info[0].args = (char *)fa;
	compare();
	CHECK_STR(text(find("attention backend")), "prefill qwen-prefill-1 and decode qwen-decode-0: "
		  "vLLM attention backend FLASHINFER vs FLASH_ATTN (and 1 more pair)");
	/* Near misses: the same backend in the variable and another case ... */
	G.info[0].args = G.info[1].args = (char *)fi;
	G.info[2].args = G.info[3].args =
		(char *)"env VLLM_ATTENTION_BACKEND=flashinfer python3 -m dynamo.vllm";
	compare();
	CHECK(find("attention backend") == NULL);
	/* ... one side leaving it to vLLM's own pick ... */
	G.info[2].args = G.info[3].args = (char *)"python3 -m dynamo.vllm";
	compare();
	CHECK(find("attention backend") == NULL);
	/* ... and SGLang, whose --attention-backend this handshake does not compare. */
	G.info[0].args = G.info[1].args =
		(char *)"python3 -m dynamo.sglang --attention-backend fa3";
	G.info[2].args = G.info[3].args =
		(char *)"python3 -m dynamo.sglang --attention-backend flashinfer";
	compare();
	CHECK(find("attention backend") == NULL);
	CHECK_INT(G.out.n, 0);
}

/* What check_pod() and the mask leave: the judged value and the shown one. */
static void set_tls(int i, const char *v)
{
	struct check_summary *s = &G.pods[i].results.summary;

	snprintf(s->ucx_tls, sizeof(s->ucx_tls), "%s", v);
	snprintf(s->ucx_tls_shown, sizeof(s->ucx_tls_shown), "%s", v);
}

static void test_ucx_tls(void)
{
	qwen();
	set_tls(2, "tcp,cuda_copy");
	compare();
	CHECK_INT(status(find("UCX_TLS=tcp,cuda_copy on decode qwen-decode-0 allows no RDMA transport")),
		  CHECK_FAIL);
	/* rc on one side, dc on the other: UCX needs one transport on both. */
	set_tls(2, "dc_x,cuda_copy");
	set_tls(3, "dc_x,cuda_copy");
	set_tls(0, "rc_x,cuda_copy");
	set_tls(1, "rc_x,cuda_copy");
	compare();
	CHECK_HAS(text(find("no RDMA transport in common")),
		  "UCX_TLS rc_x,cuda_copy vs dc_x,cuda_copy: no RDMA transport in common (and 3 more pairs)");
	/* A ^ deny-list that keeps RDMA meets an explicit list: a warning. */
	set_tls(2, "^tcp");
	set_tls(3, "^tcp");
	compare();
	CHECK_INT(status(find("UCX_TLS differs: rc_x,cuda_copy vs ^tcp")), CHECK_WARN);
	CHECK(find("allows no RDMA") == NULL);
	/* Unset is "all"; an env that could not be read is no value. */
	set_tls(2, "");
	compare();
	CHECK(find("vs unset (all)") != NULL);
	G.pods[2].results.summary.env_known = 0;
	compare();
	CHECK(find("vs unset (all)") == NULL);
	CHECK(find("UCX_TLS differs: rc_x,cuda_copy vs ^tcp") != NULL);
	/* A value from a Secret is judged and never quoted (run/mask.h). */
	G.pods[2].results.summary.env_known = 1;
	set_tls(2, "tcp,cuda_copy");
	snprintf(G.pods[2].results.summary.ucx_tls_shown, 128, "<from secret fabric>");
	compare();
	CHECK_INT(status(find("UCX_TLS=<from secret fabric> on decode qwen-decode-0 allows no RDMA")),
		  CHECK_FAIL);
	CHECK(find("tcp,cuda_copy") == NULL);
	/* Neither side uses UCX: UCX_TLS is not compared. */
	for (int i = 0; i < 4; i++)
		snprintf(G.pods[i].results.summary.nixl_backend, 32, "LIBFABRIC");
	compare();
	CHECK(find("UCX_TLS") == NULL);
}

static void test_net_devices(void)
{
	const struct verdict_finding *f;

	qwen();
	snprintf(G.pods[3].results.summary.net_dev_bad, 96, "mlx5_3:1 not an RDMA device here");
	compare();
	f = find("UCX_NET_DEVICES");
	CHECK_STR(text(f), "prefill qwen-prefill-0 and decode qwen-decode-1: UCX_NET_DEVICES "
		  "on decode qwen-decode-1 names mlx5_3:1 not an RDMA device here (and 1 more pair)");
	CHECK_INT(status(f), CHECK_FAIL);
	CHECK_STR(f ? f->about : NULL, "env-ucx-net-devices");
	/* The prefill side is named when it is the bad one. */
	G.pods[3].results.summary.net_dev_bad[0] = '\0';
	snprintf(G.pods[1].results.summary.net_dev_bad, 96, "mlx5_4:1 down");
	compare();
	CHECK_HAS(text(find("UCX_NET_DEVICES")), "on prefill qwen-prefill-1 names mlx5_4:1 down");
}

/* E7b through the graph: decode-1 alone stripes KV over an off-fabric
 * port with no route to the prefill pods' GIDs and reachability "all";
 * its twin decode-0, same mode, does not. */
static void test_offfab(void)
{
	const struct verdict_finding *f;
	struct check_gid_net *o;

	qwen();
	for (size_t i = 0; i < G.n; i++) {
		struct check_gid_net *g = &G.pods[i].results.summary.gid;

		g->kind = CHECK_GID_V4;
		g->gid_v4 = (uint32_t)10 << 24 | (uint32_t)14 << 16 | (uint32_t)(10 + i);
	}
	compare();
	CHECK(find("off the KV fabric") == NULL);
	o = &G.pods[3].results.summary.offfab;
	o->kind = CHECK_GID_V4;
	snprintf(o->what, sizeof o->what, "mlx5_8:1 (enp41s0f0np0)");
	o->routes_known = 1;
	o->rt_dst[0] = (uint32_t)10 << 24 | (uint32_t)20 << 16;
	o->rt_plen[0] = 24;
	o->nroutes = 1;
	for (size_t i = 0; i < G.n; i++)
		G.pods[i].results.summary.reach_all = 1;
	compare();
	f = find("off the KV fabric");
	CHECK_HAS(text(f), "decode qwen-decode-1: UCX stripes KV over mlx5_8:1 (enp41s0f0np0), "
		  "off the KV fabric, which has no route to prefill qwen-prefill-0's GID 10.14.0.10");
	CHECK_INT(status(f), CHECK_FAIL);
	CHECK_STR(f ? f->about : NULL, "ucx-nic-select");
	/* the route check in force: the lane is dropped */
	G.pods[3].results.summary.reach_all = 0;
	compare();
	CHECK(find("off the KV fabric") == NULL);
}

static void test_versions(void)
{
	qwen();
	snprintf(G.pods[2].results.summary.nixl_version, 32, "0.10.1");
	snprintf(G.pods[0].results.summary.libfabric_version, 32, "1.21.0");
	snprintf(G.pods[3].results.summary.libfabric_version, 32, "2.1.0");
	compare();
	CHECK_STR(text(find("NIXL 0.9.0 vs 0.10.1")),
		  "prefill qwen-prefill-0 and decode qwen-decode-0: NIXL 0.9.0 vs 0.10.1 (and 1 more pair)");
	CHECK_INT(status(find("NIXL 0.9.0")), CHECK_WARN);
	CHECK_INT(status(find("libfabric 1.21.0 vs 2.1.0")), CHECK_WARN);
	CHECK(find("UCX 1.18") == NULL);
}

static void test_cross_node_tcp(void)
{
	const struct verdict_finding *f;

	qwen();
	G.pods[0].results.summary.rdma_usable = 0;
	compare();
	f = find("KV would cross nodes over TCP");
	CHECK_STR(text(f), "prefill qwen-prefill-0 and decode qwen-decode-0: on nodes gpu-a1 and "
		  "gpu-a3, and prefill qwen-prefill-0 has no usable RDMA: KV would cross nodes "
		  "over TCP (and 1 more pair)");
	CHECK_INT(status(f), CHECK_FAIL);
	/* Same node: cuda_ipc/shared memory can carry it; not this rule's business. */
	snprintf(G.nodes[2], 24, "gpu-a1");
	snprintf(G.nodes[3], 24, "gpu-a1");
	compare();
	CHECK(find("cross nodes") == NULL);
	/* Unknown RDMA (-1) is not "no RDMA". */
	snprintf(G.nodes[2], 24, "gpu-a3");
	G.pods[0].results.summary.rdma_usable = -1;
	compare();
	CHECK(find("cross nodes") == NULL);
}

/* Pairs counted by node, not judged one by one (graph.c pairs_cross_node):
 * prefill k and decode k share node n-k; prefills 0..2 have no RDMA, so
 * 3 x 6 pairs minus the 3 same-node ones cross nodes over TCP; the first
 * is prefill 0 with decode 1 (decode 0 is on its node); a decode on no
 * known node is never counted. */
static void test_cross_node_counted(void)
{
	char name[24], node[24];
	const struct verdict_finding *f;

	reset();
	for (int k = 0; k < 6; k++) {
		snprintf(node, sizeof(node), "n-%d", k);
		snprintf(name, sizeof(name), "p-%d", k);
		pod(name, "prefill", node, "g")->rdma_usable = k < 3 ? 0 : 1;
	}
	for (int k = 0; k < 6; k++) {
		snprintf(node, sizeof(node), "n-%d", k);
		snprintf(name, sizeof(name), "d-%d", k);
		pod(name, "decode", node, "g");
	}
	pod("d-nowhere", "decode", "", "g");
	compare();
	f = find("KV would cross nodes over TCP");
	CHECK_STR(text(f), "prefill p-0 and decode d-1: on nodes n-0 and n-1, and prefill p-0 "
		  "has no usable RDMA: KV would cross nodes over TCP (and 14 more pairs)");
	CHECK_INT(G.out.n, 1);
	/* All decodes on p-0's node: the first pair is p-1's. */
	for (int k = 6; k < 12; k++)
		snprintf(G.nodes[k], 24, "n-0");
	compare();
	CHECK_HAS(text(find("cross nodes")), "prefill p-1 and decode d-0: on nodes n-1 and n-0");
	CHECK_HAS(text(find("cross nodes")), "(and 11 more pairs)");
	reset();
}

static void test_resources(void)
{
	qwen();
	G.pods[2].results.summary.rdma_request[0] = '\0';
	snprintf(G.pods[3].results.summary.rdma_request, 96, "rdma/ib=4");
	compare();
	CHECK_INT(status(find("RDMA resources requested: rdma/ib=8 vs none")), CHECK_FAIL);
	CHECK_INT(status(find("RDMA resources requested: rdma/ib=8 vs rdma/ib=4")), CHECK_WARN);
	/* An unprobed pod's spec still counts (checks.md M needs no exec);
	 * what only the probe tells does not. */
	G.pods[2].probed = 0;
	G.pods[2].results.summary.rdma_usable = 0;
	set_tls(2, "tcp");
	compare();
	CHECK(find("vs none") != NULL);
	CHECK(find("UCX_TLS") == NULL);
	CHECK(find("cross nodes") == NULL);
	/* No spec read: nothing to compare. */
	G.pods[2].results.summary.spec_known = 0;
	compare();
	CHECK(find("vs none") == NULL);
}

/* Pairs only within a namespace + graph label. */
static void test_graph_groups(void)
{
	reset();
	pod("a-prefill-0", "prefill", "gpu-a1", "a");
	pod("a-decode-0", "decode", "gpu-a2", "a");
	snprintf(pod("b-prefill-0", "prefill", "gpu-a3", "b")->nixl_backend, 32, "LIBFABRIC");
	snprintf(pod("b-decode-0", "decode", "gpu-a4", "b")->nixl_backend, 32, "LIBFABRIC");
	pod("worker-0", "worker", "gpu-a5", "a");
	G.pods[4].results.summary.nixl_backend[0] = '\0';
	set_tls(4, "tcp");
	compare();
	CHECK_INT(G.out.n, 0);
	/* The same graph name in another namespace is another graph. */
	G.info[3].graph = "a";
	G.info[3].namespace = "other";
	compare();
	CHECK_INT(G.out.n, 0);
	G.info[3].namespace = "dynamo";
	compare();
	CHECK_STR(text(find("NIXL backend")), "prefill a-prefill-0 and decode b-decode-0: "
		  "NIXL backend UCX vs LIBFABRIC");
	/* Unlabelled pods: one group per namespace (NULL and "" alike). */
	reset();
	pod("p", "prefill", "gpu-a1", NULL);
	snprintf(pod("d", "decode", "gpu-a2", "")->nixl_backend, 32, "LIBFABRIC");
	compare();
	CHECK(find("NIXL backend UCX vs LIBFABRIC") != NULL);
}

/* Many pods, one broken decode: one line per mismatch, not per pair. */
static void test_grouping(void)
{
	char name[24];

	reset();
	for (int i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "p-%d", i);
		pod(name, "prefill", "gpu-a1", "qwen");
		snprintf(name, sizeof(name), "d-%d", i);
		pod(name, "decode", "gpu-a1", "qwen");
	}
	snprintf(G.pods[5].results.summary.nixl_backend, 32, "LIBFABRIC");   /* d-2 */
	snprintf(G.pods[7].results.summary.nixl_backend, 32, "LIBFABRIC");   /* d-3 */
	snprintf(G.pods[9].results.summary.ucx_version, 32, "1.16.0");      /* d-4 */
	compare();
	CHECK_INT(G.out.n, 2);
	CHECK_STR(text(find("NIXL backend")), "prefill p-0 and decode d-2: NIXL backend UCX vs "
		  "LIBFABRIC (and 11 more pairs)");
	CHECK_STR(text(find("UCX 1.18.0")), "prefill p-0 and decode d-4: UCX 1.18.0 vs 1.16.0 "
		  "(and 5 more pairs)");
}

/* n nodes, one pod each; the first nbad have peermem spoiled. */
static void fleet(int n, int nbad, int value)
{
	char name[24], node[24];

	reset();
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "w-%d", i);
		snprintf(node, sizeof(node), "gpu-b%d", i);
		pod(name, i % 2 ? "decode" : "prefill", node, "qwen")->peermem =
			i < nbad ? value : 1;
	}
}

static void test_odd_node(void)
{
	const struct verdict_finding *f;

	fleet(6, 1, 0);
	compare();
	CHECK_INT(G.out.n, 1);
	f = find("nvidia_peermem");
	CHECK_STR(text(f), "nvidia_peermem: not loaded on node gpu-b0; loaded on the other 5 nodes");
	CHECK_INT(status(f), CHECK_WARN);
	CHECK_STR(f ? f->name : NULL, "node-consistency");
	CHECK_STR(f ? f->about : NULL, "gpudirect-peermem");
	CHECK_INT(f ? f->nnodes : 0, 1);
	CHECK_STR(f && f->nnodes ? f->nodes[0] : NULL, "gpu-b0");
	CHECK_HAS(f ? f->remedy : NULL, "load nvidia_peermem");

	/* Two pods on one node count once. */
	pod("w-extra", "decode", "gpu-b0", "qwen")->peermem = 0;
	compare();
	CHECK_HAS(text(find("nvidia_peermem")), "loaded on the other 5 nodes");

	/* Numbers too: the slow node among fast ones. */
	fleet(4, 0, 1);
	G.pods[2].results.summary.port_rate_gbps = 200;
	G.pods[3].results.summary.active_ports = 6;
	compare();
	CHECK_STR(text(find("RDMA port rate")),
		  "RDMA port rate: 200 Gb/s on node gpu-b2; 400 Gb/s on the other 3 nodes");
	CHECK_STR(text(find("Active RDMA ports")),
		  "Active RDMA ports: 6 on node gpu-b3; 8 on the other 3 nodes");

	/* Many odd nodes: at most VERDICT_NAMES_MAX named. */
	fleet(20, 8, 0);
	compare();
	f = find("nvidia_peermem");
	CHECK_STR(text(f), "nvidia_peermem: not loaded on nodes gpu-b0, gpu-b1, gpu-b2, gpu-b3, "
		  "gpu-b4 and 3 more; loaded on the other 12 nodes");
	CHECK_INT(f ? f->nnodes : 0, VERDICT_NAMES_MAX);
}

static void test_no_majority(void)
{
	fleet(2, 1, 0);             /* 1 vs 1 */
	compare();
	CHECK_INT(G.out.n, 0);
	fleet(4, 2, 0);             /* 2 vs 2 */
	compare();
	CHECK_INT(G.out.n, 0);
	fleet(3, 1, -1);            /* unknown is no vote */
	compare();
	CHECK_INT(G.out.n, 0);
	fleet(3, 2, -1);            /* one node known: nothing to compare */
	G.pods[2].results.summary.peermem = 0;
	compare();
	CHECK_INT(G.out.n, 0);
	/* A single node hosting everything. */
	reset();
	pod("p", "prefill", "gpu-b0", "qwen");
	pod("d", "decode", "gpu-b0", "qwen")->peermem = 0;
	compare();
	CHECK_INT(G.out.n, 0);
	/* Unprobed pods give no node facts. */
	fleet(3, 1, 0);
	G.pods[0].probed = 0;
	compare();
	CHECK_INT(G.out.n, 0);
}

/* Through the verdict: a pair fail is NOT READY with the pair in fix-first;
 * a per-pod fail and the pair finding it causes are one line, the pair
 * folded under it (issue 22 item 5: one root cause per pod). */
static void test_verdict(void)
{
	struct verdict v;

	qwen();
	G.pods[3].results.summary.rdma_usable = 0;
	verdict_compute(G.pods, G.n, &v);
	CHECK_INT(v.status, VERDICT_NOT_READY);
	CHECK_HAS(v.fix_first, "prefill qwen-prefill-0 and decode qwen-decode-1: on nodes");
	CHECK_HAS(v.fix_first, "fix: give both roles RDMA");
	verdict_release(&v);

	/* The pod's own fail; the pair it breaks is folded under it. */
	{
		struct check_result r = { "env-ucx-tls", FAM_ENV, CHECK_OK, "ok", NULL, 30, 0, NULL, NULL, CK__COUNT };

		G.pods[3].results.summary.rdma_usable = 1;
		for (size_t i = 0; i < G.n; i++) {
			r.status = i == 3 ? CHECK_FAIL : CHECK_OK;
			r.remedy = i == 3 ? "fix UCX_TLS" : NULL;
			check_results_add(&G.pods[i].results, &r);
		}
		set_tls(3, "tcp");
		verdict_compute(G.pods, G.n, &v);
		CHECK_INT(v.nfindings, 1);
		CHECK_HAS(v.nfindings ? v.findings[0].text : NULL, "env-ucx-tls fail on 1 of 4 pods");
		CHECK_INT(v.nfindings ? (int)v.findings[0].nfolded : -1, 1);
		CHECK_STR(v.nfindings && v.findings[0].nfolded ? v.findings[0].folded[0] : NULL,
			  "pair-consistency");
		verdict_release(&v);
	}

	fleet(6, 1, 0);
	{
		struct check_result r = { "gpudirect-peermem", FAM_GPUDIRECT, CHECK_OK,
					  "nvidia_peermem loaded", NULL, 40, 0, NULL, NULL, CK__COUNT };

		for (size_t i = 0; i < G.n; i++) {
			r.status = i ? CHECK_OK : CHECK_FAIL;
			r.detail = i ? "nvidia_peermem loaded" : "no nvidia_peermem";
			r.remedy = i ? NULL : "load nvidia_peermem";
			check_results_add(&G.pods[i].results, &r);
		}
	}
	verdict_compute(G.pods, G.n, &v);
	CHECK_INT(v.status, VERDICT_NOT_READY);
	CHECK_HAS(v.fix_first, "gpudirect-peermem fail on 1 of 6 pods: w-0");
	CHECK(v.nfindings == 1);
	CHECK_STR(v.nfindings == 1 && v.findings[0].nfolded ? v.findings[0].folded[0] : NULL,
		  "node-consistency");
	verdict_release(&v);
}

/* 512 prefill x 512 decode in one graph: every pair compared, one line.
 * (Its time is part of `make bench`'s 1024-pod figures, not asserted.) */
static void test_scale(void)
{
	char name[24], node[24];

	reset();
	for (int i = 0; i < MAXP; i++) {
		snprintf(name, sizeof(name), "w-%d", i);
		snprintf(node, sizeof(node), "gpu-c%d", i / 8);
		pod(name, i % 2 ? "decode" : "prefill", node, "big");
	}
	snprintf(G.pods[1].results.summary.ucx_version, 32, "1.16.0");
	compare();
	CHECK_INT(G.out.n, 1);
	CHECK_HAS(text(find("UCX")), "(and 511 more pairs)");
	reset();
}

/* O5 (issue 45 point 3): the HCAs of one board (PSID) run one firmware on
 * every node; a node whose firmware is unknown is not compared. */
static void test_hca_fw(void)
{
	const struct verdict_finding *f;

	fleet(4, 0, 1);
	for (size_t i = 0; i < G.n; i++)
		snprintf(G.pods[i].results.summary.hca_fw, sizeof G.pods[i].results.summary.hca_fw,
			 "%s", i == 2 ? "MT_0000000838 28.37.1014" : "MT_0000000838 28.39.1002");
	compare();
	f = find("HCA firmware");
	CHECK_STR(text(f), "HCA firmware: MT_0000000838 28.37.1014 on node gpu-b2; "
		  "MT_0000000838 28.39.1002 on the other 3 nodes");
	CHECK_INT(status(f), CHECK_WARN);
	CHECK_STR(f ? f->name : NULL, "node-consistency");
	/* near misses: all alike, or the odd one unknown */
	snprintf(G.pods[2].results.summary.hca_fw, sizeof G.pods[2].results.summary.hca_fw,
		 "MT_0000000838 28.39.1002");
	compare();
	CHECK(find("HCA firmware") == NULL);
	G.pods[2].results.summary.hca_fw[0] = 0;
	compare();
	CHECK(find("HCA firmware") == NULL);
}

int main(void)
{
	test_consistent();
	test_backend();
	test_attention_backend();
	test_ucx_tls();
	test_net_devices();
	test_offfab();
	test_versions();
	test_cross_node_tcp();
	test_cross_node_counted();
	test_resources();
	test_graph_groups();
	test_grouping();
	test_odd_node();
	test_hca_fw();
	test_no_majority();
	test_verdict();
	test_scale();
	return T_DONE("test_graph");
}
