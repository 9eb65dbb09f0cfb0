/* src/recipe, issue 38: rules gated by the transport that carries KV and by
 * the worker's shape (TP, nodes, ComputeDomains), and reading as the shell
 * and the kubelet do.  The recipes, schemas and edge cases are
 * test_recipe.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/recipe.h"
#include "recipe_fixture.h"
#include "t.h"

/* ------------------------------------------------- issue 38: gating */

/* A v1beta1 graph of `type: worker` prefill and decode (role in the
 * command), each: res (a resources block's limits lines), env lines, the
 * command's extra words, and extra component lines. */
/* A prefill and a decode of one graph (v1beta1): per-role limits and
 * pod-spec lines, extra lines of each component. */
static void pd_graph2(struct recipe_set *s, const char *const lim[2], const char *env,
		      const char *cmd, const char *extra, const char *const spec[2])
{
	char y[4096], comp[2][1800];

	for (int i = 0; i < 2; i++)
		snprintf(comp[i], sizeof comp[i],
			 "  - name: %s\n    type: worker\n%s"
			 "    podTemplate:\n      spec:\n%s        containers:\n        - name: main\n"
			 "          command: [python3, -m, %s, --disaggregation-mode, %s]\n"
			 "          env:\n%s"
			 "          resources:\n            limits:\n%s",
			 i ? "Decode" : "Prefill", extra, spec[i], cmd, i ? "decode" : "prefill", env, lim[i]);
	snprintf(y, sizeof y, "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\n"
		 "metadata: {name: g}\nspec:\n  components:\n%s%s", comp[0], comp[1]);
	CHECK_INT(load(y, s), 0);
}

static void pd_graph(struct recipe_set *s, const char *limits, const char *env,
		     const char *cmd, const char *extra)
{
	const char *lim[2] = { limits, limits }, *spec[2] = { "", "" };

	pd_graph2(s, lim, env, cmd, extra, spec);
}

#define IB4 "              nvidia.com/gpu: \"4\"\n              rdma/ib: \"4\"\n"
#define NOENV "          - {name: HF_HOME, value: /m}\n"

static int any_ucx(const struct recipe_component *c)
{
	for (size_t i = 0; c && i < c->nfindings; i++)
		if (strstr(c->findings[i].detail, "UCX_"))
			return 1;
	return 0;
}

static void test_gate_transport(void)
{
	struct recipe_set s;
	const char *tls = "          - {name: UCX_TLS, value: \"tcp,cuda_copy\"}\n";

	/* SGLang, no backend named: Mooncake (server_args.py default): UCX
	 * carries nothing, its variables are not judged */
	pd_graph(&s, IB4, tls, "dynamo.sglang", "");
	CHECK_STR(comp(&s, "Decode")->role, "decode");
	CHECK(!any_ucx(comp(&s, "Decode")));
	recipe_set_release(&s);
	/* ...the same flags with the NIXL backend: UCX carries the KV */
	pd_graph(&s, IB4, tls, "dynamo.sglang, --disaggregation-transfer-backend, nixl", "");
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_FAIL, "allows no InfiniBand"));
	recipe_set_release(&s);
	/* NIXL over LIBFABRIC (SGLang's env): no UCX rule either */
	pd_graph(&s, IB4, "          - {name: UCX_TLS, value: \"tcp,cuda_copy\"}\n"
		 "          - {name: SGLANG_DISAGGREGATION_NIXL_BACKEND, value: LIBFABRIC}\n",
		 "dynamo.sglang, --disaggregation-transfer-backend, nixl", "");
	CHECK(!any_ucx(comp(&s, "Decode")));
	recipe_set_release(&s);
}

static void test_gate_shape(void)
{
	struct recipe_set s;
	const char *ncl = "          - {name: NCCL_IB_DISABLE, value: \"1\"}\n";
	const char *ipc = "          - {name: UCX_TLS, value: \"^cuda_ipc\"}\n";

	/* TP4 in one 4-GPU pod: NCCL never leaves the pod */
	pd_graph(&s, IB4, ncl, "dynamo.vllm, --tensor-parallel-size, \"4\"", "");
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_FAIL, "NCCL_IB_DISABLE"));
	recipe_set_release(&s);
	/* ...across 2 nodes it does */
	pd_graph(&s, IB4, ncl, "dynamo.vllm, --tensor-parallel-size, \"8\"", "    multinode: {nodeCount: 2}\n");
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_FAIL, "NCCL_IB_DISABLE=1"));
	recipe_set_release(&s);
	/* ^cuda_ipc on TP1: no GPU pair */
	pd_graph(&s, IB4, ipc, "dynamo.vllm, --tensor-parallel-size, \"1\"", "");
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "excludes cuda_ipc"));
	recipe_set_release(&s);
	pd_graph(&s, IB4, ipc, "dynamo.vllm, --tensor-parallel-size, \"4\"", "");
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_WARN, "excludes cuda_ipc"));
	recipe_set_release(&s);
}

static void test_missed_cases(void)
{
	struct recipe_set s;
	const char *gpu = "              nvidia.com/gpu: \"4\"\n";

	/* no RDMA resource, UCX_TLS without tcp: no KV path at all */
	pd_graph(&s, gpu, "          - {name: UCX_TLS, value: \"cuda_copy,cuda_ipc\"}\n", "dynamo.vllm", "");
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_FAIL, "no KV path"));
	recipe_set_release(&s);
	/* J1: no RDMA on one node warns, across nodes fails */
	pd_graph(&s, gpu, NOENV, "dynamo.vllm", "");
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_WARN, "no RDMA resource requested"));
	recipe_set_release(&s);
	pd_graph(&s, gpu, NOENV, "dynamo.vllm", "    multinode: {nodeCount: 2}\n");
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_FAIL, "no RDMA resource requested"));
	recipe_set_release(&s);
}

static void test_clique(void)
{
	/* the claim's template names the ComputeDomain (recipe.c fabric_key) */
	const char *cd = "              nvidia.com/gpu: \"4\"\n"
			 "          resourceClaimTemplateName: x-compute-domain-channel\n";
	const char *mc = "          - {name: SGLANG_MOONCAKE_CUSTOM_MEM_POOL, value: NVLINK}\n";
	struct recipe_set s;

	pd_graph(&s, cd, mc, "dynamo.sglang", "");
	CHECK(comp(&s, "Decode")->fabric & RECIPE_FAB_MNNVL);
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_WARN, "NVLink clique"));
	recipe_set_release(&s);
	/* pinned by a node selector on the clique label: no finding */
	pd_graph(&s, cd, mc, "dynamo.sglang", "    extraSelector: {nvidia.com/gpu.clique: abc.1}\n");
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "NVLink clique"));
	recipe_set_release(&s);
	/* or a podAffinity topologyKey */
	pd_graph(&s, cd, mc, "dynamo.sglang", "    aff: {topologyKey: nvidia.com/gpu.clique}\n");
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "NVLink clique"));
	recipe_set_release(&s);
}

/* Issue 38 corpus (kimi-k3 disagg-gb200): a ComputeDomain per role is
 * each role's own IMEX domain, so KV cannot ride NVLink between them and
 * ^cuda_ipc costs it nothing; GB200 trays hold 4 GPUs, so 4-GPU pods
 * share a node with no other GPU pod. */
static void test_cd_per_role(void)
{
	const char *ipc = "          - {name: UCX_TLS, value: \"^cuda_ipc\"}\n";
	const char *cd2[2] = {
		"              nvidia.com/gpu: \"4\"\n              rdma/ib: \"4\"\n"
		"          resourceClaimTemplateName: p-compute-domain-channel\n",
		"              nvidia.com/gpu: \"4\"\n              rdma/ib: \"4\"\n"
		"          resourceClaimTemplateName: d-compute-domain-channel\n" };
	const char *cd1[2] = { cd2[0], cd2[0] };
	const char *none[2] = { "", "" };
	const char *gb200[2] = { "        nodeSelector: {nvidia.com/gpu.product: NVIDIA-GB200}\n",
				 "        nodeSelector: {nvidia.com/gpu.product: NVIDIA-GB200}\n" };
	const char *tp4 = "dynamo.vllm, --tensor-parallel-size, \"4\"";
	struct recipe_set s;

	/* one shared ComputeDomain: KV may ride NVLink, ^cuda_ipc costs it */
	pd_graph2(&s, cd1, ipc, tp4, "", none);
	CHECK(comp(&s, "Decode")->cd_kv);
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_WARN, "UCX's only multi-node NVLink transport"));
	recipe_set_release(&s);
	/* one per role: not the KV's NVLink */
	pd_graph2(&s, cd2, ipc, tp4, "", none);
	CHECK(!comp(&s, "Decode")->cd_kv);
	CHECK(comp(&s, "Decode")->fabric & RECIPE_FAB_MNNVL);
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "multi-node NVLink"));
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_WARN, "same-node GPU transfers"));
	recipe_set_release(&s);
	/* ...on 4-GPU GB200 trays the pods fill their nodes: no same-node peer */
	pd_graph2(&s, cd2, ipc, tp4, "", gb200);
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "excludes cuda_ipc"));
	recipe_set_release(&s);
}

/* TensorRT-LLM's DEFAULT cache transceiver is NIXL over UCX unless
 * TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC: on EFA that warns; KVBM's own
 * backend switch (DYN_KVBM_NIXL_BACKEND_LIBFABRIC) does not change it. */
static void test_trtllm_efa(void)
{
	const char *efa = "              nvidia.com/gpu: \"4\"\n              vpc.amazonaws.com/efa: \"8\"\n";
	const char *kvbm = "          - {name: DYN_KVBM_NIXL_BACKEND_LIBFABRIC, value: \"true\"}\n"
			   "          - {name: FI_PROVIDER, value: efa}\n";
	const char *lf = "          - {name: TRTLLM_NIXL_KVCACHE_BACKEND, value: LIBFABRIC}\n";
	const char *cmd = "dynamo.trtllm, --extra-engine-args, \"cache_transceiver_config:\\n  backend: DEFAULT\"";
	struct recipe_set s;

	pd_graph(&s, efa, kvbm, cmd, "");
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_WARN, "TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC"));
	recipe_set_release(&s);
	pd_graph(&s, efa, lf, cmd, "");
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "TRTLLM_NIXL_KVCACHE_BACKEND"));
	recipe_set_release(&s);
	/* not on EFA: no finding */
	pd_graph(&s, IB4, kvbm, cmd, "");
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "TRTLLM_NIXL_KVCACHE_BACKEND"));
	recipe_set_release(&s);
}

/* An Intel XPU worker (UCX_TLS with ze_copy, Dynamo's qwen3-vl hetero
 * recipe) has no CUDA transport to lack; a TP-1 engine (no TP flag: the
 * engines' default) has no GPU pair for cuda_ipc. */
static void test_xpu_tp1(void)
{
	const char *ze = "          - {name: UCX_TLS, value: \"ib,rc,ud,rc_verbs,ud_verbs,ze_copy\"}\n";
	const char *cu = "          - {name: UCX_TLS, value: \"ib,rc,ud,rc_verbs,ud_verbs,cuda_copy\"}\n";
	struct recipe_set s;

	pd_graph(&s, IB4, ze, "dynamo.vllm", "");
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_FAIL, "lacks cuda_copy"));
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "lacks cuda_copy"));
	recipe_set_release(&s);
	pd_graph(&s, IB4, cu, "dynamo.vllm", "");
	CHECK(!has_finding(comp(&s, "Decode"), RECIPE_WARN, "excludes cuda_ipc"));
	recipe_set_release(&s);
	pd_graph(&s, IB4, cu, "dynamo.vllm, --tensor-parallel-size, \"$(TP)\"", "");
	CHECK(has_finding(comp(&s, "Decode"), RECIPE_WARN, "excludes cuda_ipc"));
	recipe_set_release(&s);
}

static void test_gke_roce_name(void)
{
	struct recipe_set s;
	char name[64];

	pd_graph(&s, "              nvidia.com/gpu: \"4\"\n              networking.gke.io.networks/rdma-0: \"1\"\n",
		 NOENV, "dynamo.vllm", "");
	CHECK(comp(&s, "Decode")->fabric & RECIPE_FAB_IB);
	CHECK_STR(recipe_fabric_name(comp(&s, "Decode")->fabric, name, sizeof name), "roce");
	recipe_set_release(&s);
}

/* Reading as the shell and the kubelet do (issue 38 point 5). */
static void test_reading(void)
{
	static const char comment[] =
		"apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: g}\n"
		"spec:\n  components:\n  - name: D\n    type: decode\n    podTemplate:\n      spec:\n"
		"        containers:\n        - name: main\n          command: [/bin/bash, -c]\n"
		"          args:\n          - |\n"
		"            # python3 -m dynamo.vllm --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\",\"kv_role\":\"kv_both\"}'\n"
		"            python3 -m dynamo.vllm --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n";
	static const char vars[] =
		"apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: g}\n"
		"spec:\n  components:\n  - name: D\n    type: decode\n    podTemplate:\n      spec:\n"
		"        containers:\n        - name: main\n"
		"          command: [python3, -m, dynamo.vllm, --kv-transfer-config, $(KV)]\n"
		"          env:\n"
		"          - {name: KV, value: '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\",\"kv_connector_extra_config\":{\"backends\":[\"LIBFABRIC\"]}}'}\n"
		"  - name: P\n    type: prefill\n    podTemplate:\n      spec:\n"
		"        containers:\n        - name: main\n"
		"          command: [/bin/sh, -c, 'python3 -m dynamo.vllm --kv-transfer-config \"${KV}\"']\n"
		"          env:\n"
		"          - name: KV\n            valueFrom: {secretKeyRef: {name: s, key: k}}\n";
	struct recipe_set s;

	CHECK_INT(load(comment, &s), 0);
	CHECK_HAS(comp(&s, "D")->kv, "NixlConnector");
	CHECK(!strstr(comp(&s, "D")->kv ? comp(&s, "D")->kv : "", "LMCache"));
	recipe_set_release(&s);
	CHECK_INT(load(vars, &s), 0);
	CHECK_HAS(comp(&s, "D")->kv, "backends=LIBFABRIC");
	/* a Secret-fed variable is never read */
	CHECK(comp(&s, "P")->kv == NULL);
	CHECK(comp(&s, "D")->plain == NULL && comp(&s, "P")->plain == NULL);
	recipe_set_release(&s);
}

int main(void)
{
	test_gate_transport();
	test_gate_shape();
	test_missed_cases();
	test_clique();
	test_cd_per_role();
	test_trtllm_efa();
	test_xpu_tp1();
	test_gke_roce_name();
	test_reading();
	return T_DONE("test_recipe_gate");
}
