/* The corrections of issue 22 (item 4), each on the output that shows it:
 * UCX_TLS=^cuda_ipc costs nothing when every KV peer is on another node;
 * NIXL's createBackend / UCX-worker failures and UCX's failed GID query
 * are LOGS failures; a RoCE port UCX will use with an empty GID table
 * fails rdma-roce; NIXL's UCX backend on EFA across nodes fails.  Each
 * assertion failed on the code before the correction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/logs.h"
#include "probe/facts.h"
#include "probe/logscan.h"
#include "probe_fixture.h"
#include "pod_fixture.h"
#include "t.h"

/* One Active port of mlx5_0, link layer ll, verbs open, NIXL's UCX
 * plugin, memlock unlimited; env as given (sysfs text for RoCE GIDs). */
static struct probe_facts *pod(enum probe_link_layer ll, const char *env)
{
	struct probe_facts *f = fx_rdma_pod("mlx5_0", ll, 400, env);

	f->sysfs_ib.dev[0].port[0].first_roce_v2 = -1;
	return f;
}

static struct check_context cross = {
	.node = "n1", .role = "decode", .kv_cross_pod = 1,
	.kv_cross_node = 1, .kv_known = 1, .npods = 2,
};

static int status(const struct check_results *r, const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	if (!c)
		fprintf(stderr, "no result %s\n", name);
	return c ? (int)c->status : -1;
}

/* ^cuda_ipc on a decode pod whose prefill peers are all on other nodes:
 * cuda_ipc reaches only same-node GPUs (outside MNNVL), so ok; with a
 * peer on its node the warning stays. */
static void test_tls_not_cuda_ipc(void)
{
	struct probe_facts *f = pod(PROBE_LL_IB, "UCX_TLS=^cuda_ipc\n");
	struct check_context c = cross;
	struct check_results r;

	c.kv_peers_apart = 1;
	check_results_init(&r);
	check_pod(f, NULL, &c, &r);
	CHECK_INT(status(&r, "env-ucx-tls"), CHECK_OK);
	check_results_release(&r);
	c.kv_peers_apart = 0;
	check_results_init(&r);
	check_pod(f, NULL, &c, &r);
	CHECK_INT(status(&r, "env-ucx-tls"), CHECK_WARN);
	check_results_release(&r);
	probe_facts_free(f);
}

static void judge_log(const char *text, struct check_results *r)
{
	struct logscan s;
	struct logs_outcome o = { &s, NULL, 0, "main", 5000 };

	logscan_init(&s);
	logscan_text(&s, text, strlen(text));
	check_results_init(r);
	check_logs(&o, &cross, r);
}

static void test_log_signatures(void)
{
	struct check_results r;
	size_t len;
	char *t = fx_load_repo("nixl_log_unsupported_backend_ucx_nixl1561.txt", &len);
	struct logscan s;

	CHECK(t != NULL);
	/* ai-dynamo/nixl#1561: no UCX plugin, "unsupported backend 'UCX'" */
	judge_log(t ? t : "", &r);
	CHECK_INT(status(&r, "logs-nixl"), CHECK_FAIL);
	CHECK_HAS(check_results_find(&r, "logs-nixl")->detail, "unsupported backend 'UCX'");
	check_results_release(&r);
	free(t);
	/* nixl_agent.cpp createBackend for a transfer backend, not storage */
	judge_log("E... nixl_agent.cpp:404] createBackend: backend creation failed for 'LIBFABRIC'\n", &r);
	CHECK_INT(status(&r, "logs-nixl"), CHECK_FAIL);
	check_results_release(&r);
	logscan_init(&s);
	t = "E0101 nixl_agent.cpp:404] createBackend: backend creation failed for 'GDS'\n";
	logscan_text(&s, t, strlen(t));
	CHECK_INT((int)s.count[LOGSIG_NIXL_BACKEND_FAILED], 0);
	/* NIXL ucx_utils.cpp createUcpWorker, after a UD QP UCX could not make */
	judge_log("uct_iface_open(ud_verbs/roce_benic2p1:1) failed: Input/output error\n"
		  "Failed to create engine: Failed to create UCX worker: Input/output error\n", &r);
	CHECK_INT(status(&r, "logs-nixl"), CHECK_FAIL);
	check_results_release(&r);
	/* UCX ib_device.c uct_ib_device_query_gid_info(), its ucs_error format */
	t = "[1665104310.200076] [gpu-2:39047:0]      ib_device.c:1032 UCX  ERROR "
	    "ibv_query_gid(dev=mlx5_0 port=1 index=3) failed: Invalid argument\n";
	judge_log(t, &r);
	CHECK_INT(status(&r, "logs-ucx"), CHECK_FAIL);
	check_results_release(&r);
	/* ...unless rc lanes show UCX found another port (nixl#149 line) */
	{
		char both[1024];

		snprintf(both, sizeof both, "%s%s", t,
			 "[1744331142.028115] [ccw-gpu-51:2802608:3]      ucp_worker.c:1903 UCX  INFO    "
			 "ucp_context_2 inter-node cfg#3 rma(rc_mlx5/mlx5_ib2:1)  amo(rc_mlx5/mlx5_ib2:1)\n");
		judge_log(both, &r);
		CHECK_INT(status(&r, "logs-ucx"), CHECK_OK);
		check_results_release(&r);
	}
}

/* A RoCE port with its GID table listed but all zero, UCX_NET_DEVICES
 * unset: UCX opens it, the GID query fails, the worker fails. */
static void test_roce_empty_gids(void)
{
	static const char *const sysfs =
		"mlx5_0/ports/1/state=4: ACTIVE\n"
		"mlx5_0/ports/1/phys_state=5: LinkUp\n"
		"mlx5_0/ports/1/rate=400 Gb/sec (4X NDR)\n"
		"mlx5_0/ports/1/link_layer=Ethernet\n"
		"mlx5_0/ports/1/gids/0=0000:0000:0000:0000:0000:0000:0000:0000\n"
		"mlx5_0/ports/1/gids/1=0000:0000:0000:0000:0000:0000:0000:0000\n";
	struct probe_facts *f = pod(PROBE_LL_ETH, "UCX_TLS=rc,cuda_copy\n");
	struct check_results r;

	f->sysfs_ib.ndevs = 0;   /* the parser lists the device itself */
	CHECK_INT(probe_parse_sysfs_ib(sysfs, strlen(sysfs), &f->sysfs_ib), 1);
	set_ok(&f->sysfs_ib.src);
	CHECK_INT(f->sysfs_ib.dev[0].port[0].gids_listed, 2);
	CHECK_INT(f->sysfs_ib.dev[0].port[0].n_gids, 0);
	check_results_init(&r);
	check_pod(f, NULL, &cross, &r);
	CHECK_INT(status(&r, "rdma-roce"), CHECK_FAIL);
	CHECK_HAS(check_results_find(&r, "rdma-roce")->detail, "empty GID table");
	check_results_release(&r);
	probe_facts_free(f);
}

/* TensorRT-LLM's release image: NIXL used from C++ (tensorrt_llm/libs/nixl
 * beside /opt/nvidia/nvda_nixl), no nixl Python package (its
 * requirements.txt has no nixl): the missing module is no failure there,
 * but is in any other image; an import that cannot load a library is. */
static void test_nixl_from_cpp(void)
{
	struct probe_facts *f = pod(PROBE_LL_IB, "UCX_TLS=rc,cuda_copy\n");
	struct check_results r;

	f->nixl.python_ok = 0;
	f->nixl.python_src.status = PROBE_FAILED;
	snprintf(f->nixl.python_src.err, sizeof f->nixl.python_src.err,
		 "ModuleNotFoundError: No module named 'nixl'");
	check_results_init(&r);
	check_pod(f, NULL, &cross, &r);
	CHECK_INT(status(&r, "nixl-installed"), CHECK_FAIL);   /* vLLM needs the module */
	check_results_release(&r);
	snprintf(f->nixl.cpp_dir, sizeof f->nixl.cpp_dir,
		 "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/nixl/plugins");
	check_results_init(&r);
	check_pod(f, NULL, &cross, &r);
	CHECK_INT(status(&r, "nixl-installed"), CHECK_OK);
	check_results_release(&r);
	snprintf(f->nixl.python_src.err, sizeof f->nixl.python_src.err,
		 "ImportError: libucp.so.0: cannot open shared object file");
	check_results_init(&r);
	check_pod(f, NULL, &cross, &r);
	CHECK_INT(status(&r, "nixl-installed"), CHECK_FAIL);
	check_results_release(&r);
	probe_facts_free(f);
}

/* A5's file source (issue 22 item 3): an image without ibv_devinfo and
 * ucx_info (pip NIXL wheel) shows userspace access by the device nodes,
 * libibverbs and the mlx5 provider; without the provider it stays open. */
static void test_verbs_stack(void)
{
	static const char *const libs =
		"lib=/usr/lib/x86_64-linux-gnu/libibverbs.so.1\n"
		"provider=libmlx5-rdmav34.so\nprovider=libefa-rdmav34.so\n"
		"driver=mlx5.driver\ngarbage\nprovider=nothing\n";
	struct probe_facts *f = pod(PROBE_LL_IB, "UCX_TLS=rc,cuda_copy\n");
	struct check_results r;

	f->dev_ib.n_uverbs = 8;
	set_ok(&f->verbs_libs.src);
	CHECK_INT(probe_parse_verbs_libs(libs, strlen(libs), &f->verbs_libs), 2);
	CHECK(probe_verbs_has_provider(&f->verbs_libs, "mlx5"));
	CHECK(!probe_verbs_has_provider(&f->verbs_libs, "bnxt_re"));
	check_results_init(&r);
	check_pod(f, NULL, &cross, &r);
	CHECK_INT(status(&r, "rdma-verbs"), CHECK_OK);
	CHECK_HAS(check_results_find(&r, "rdma-verbs")->detail, "libibverbs.so.1");
	check_results_release(&r);
	/* the wheel excludes libmlx5: an image without it shows nothing */
	memset(&f->verbs_libs, 0, sizeof f->verbs_libs);
	set_ok(&f->verbs_libs.src);
	snprintf(f->verbs_libs.lib, sizeof f->verbs_libs.lib, "/usr/lib/libibverbs.so.1");
	check_results_init(&r);
	check_pod(f, NULL, &cross, &r);
	CHECK_INT(status(&r, "rdma-verbs"), CHECK_SKIPPED);
	CHECK_HAS(check_results_find(&r, "rdma-verbs")->detail, "no verbs provider for mlx5_0");
	check_results_release(&r);
	probe_facts_free(f);
}

int main(void)
{
	test_verbs_stack();
	test_nixl_from_cpp();
	test_tls_not_cuda_ipc();
	test_log_signatures();
	test_roce_empty_gids();
	return T_DONE("test_corrections22");
}
