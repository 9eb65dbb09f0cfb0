/* UCX, libfabric, limits, NIXL, env parsers, and the log scanner, against
 * the fixtures. */
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "probe/logscan.h"
#include "t.h"
#include "probe_fixture.h"

static struct probe_facts *F;

static void fresh(void)
{
	probe_facts_release(F);
}

static void test_ucx_leonardo(void)
{
	size_t n;
	char *t = fx_load("ucx_info_v_and_transports_hpcx_leonardo_healthy.txt", &n);
	struct probe_ucx *u = &F->ucx;

	fresh();
	CHECK_INT(probe_parse_ucx_v(t, n, u), 1);
	CHECK_STR(u->version, "1.17.0");
	CHECK_INT(u->major, 1);
	CHECK_INT(u->minor, 17);
	CHECK_INT(u->patch, 0);
	CHECK_HAS(u->library_path, "hpcx-2.20/ucx/lib/libucs.so.0");
	CHECK_STR(u->git_branch, "");     /* "# Git branch '', revision 39c8f9b" */
	CHECK_STR(u->revision, "39c8f9b");
	CHECK_HAS(u->configured, "--with-gdrcopy");
	CHECK_INT(u->feature[PROBE_UCXF_CUDA], PROBE_CFG_WITH);
	CHECK_INT(u->feature[PROBE_UCXF_GDRCOPY], PROBE_CFG_WITH);
	CHECK_INT(u->feature[PROBE_UCXF_KNEM], PROBE_CFG_WITHOUT);
	CHECK_INT(u->feature[PROBE_UCXF_XPMEM], PROBE_CFG_WITH);
	CHECK_INT(u->feature[PROBE_UCXF_VERBS], PROBE_CFG_DEFAULT);
	CHECK_INT(probe_parse_ucx_d(t, n, u), 30);
	CHECK_INT(u->tl_count[PROBE_TL_RC_MLX5], 4);
	CHECK_INT(u->tl_count[PROBE_TL_DC_MLX5], 4);
	CHECK_INT(u->tl_count[PROBE_TL_UD_MLX5], 4);
	CHECK_INT(u->tl_count[PROBE_TL_TCP], 3);
	CHECK_INT(u->tl_count[PROBE_TL_CUDA_COPY], 1);
	CHECK_INT(u->tl_count[PROBE_TL_CUDA_IPC], 1);
	CHECK_INT(u->tl_count[PROBE_TL_GDR_COPY], 1);
	CHECK_INT(u->tl_count[PROBE_TL_SRD], 0);
	CHECK_INT(u->nmds, 0);  /* `grep Transport` kept no memory domains */
	CHECK_INT(u->cuda_cpy_dmabuf, -1);
	free(t);
}

/* The git line of ucx_info -v (issue 42 item 2): the branch and revision
 * as UCX's build prints them (src/tools/info/version_info.c), kept only
 * in their own alphabet; a line cut short or hostile keeps nothing. */
static void test_ucx_git_line(void)
{
	static const struct { const char *in, *branch, *rev; } c[] = {
		{ "# Library version: 1.22.0\n# Git branch 'v1.22.x', revision ecb919e\n", "v1.22.x", "ecb919e" },
		{ "# Git branch 'master', revision 38c99d4ff7b67ad9945e019e808752ba260fc786\n", "master",
		  "38c99d4ff7b67ad9945e019e808752ba260fc786" },
		{ "# Git branch '', revision 8a6b06f\n", "", "8a6b06f" },
		{ "# Git branch 'ma\x1b[31mster', revision 12zz\n", "", "" },
		{ "# Git branch 'v1.22.x'\n", "v1.22.x", "" },
		{ "# Git branch 'unterminated, revision abc\n", "", "" },
		{ "# Git branch '', revision \n", "", "" },
	};
	struct probe_ucx *u = &F->ucx;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		fresh();
		probe_parse_ucx_v(c[i].in, strlen(c[i].in), u);
		CHECK_STR(u->git_branch, c[i].branch);
		CHECK_STR(u->revision, c[i].rev);
	}
}

/* E7's tie-break keyed on the build (issue 42 item 2, openucx/ucx#11680):
 * UCX PR #11547 on master since 38c99d4, on v1.22.x since ecb919e, in no
 * tag up to v1.22.0 (8a6b06f). */
static void test_ucx_11547(void)
{
	static const struct { const char *v; int carries, assumed; } c[] = {
		{ "# Library version: 1.19.0\n# Git branch '', revision e4bb802\n", 0, 0 },
		{ "# Library version: 1.21.1\n# Git branch 'v1.21.x', revision 1234567\n", 0, 0 },
		{ "# Library version: 1.22.0\n# Git branch '', revision 8a6b06f\n", 0, 0 },
		{ "# Library version: 1.22.0\n# Git branch 'v1.22.x', revision f04c0b6\n", 0, 0 },
		{ "# Library version: 1.22.0\n# Git branch 'v1.22.x', revision ecb919e\n", 1, 0 },
		{ "# Library version: 1.23.0\n# Git branch 'master', revision 38c99d4ff7b67ad9945e019e808752ba260fc786\n", 1, 0 },
		/* guesses: past the tag on v1.22.x, a master build, a later patch */
		{ "# Library version: 1.22.0\n# Git branch 'v1.22.x', revision 0abcdef\n", 1, 1 },
		{ "# Library version: 1.23.0\n# Git branch 'master', revision 0abcdef\n", 1, 1 },
		{ "# Library version: 1.22.1\n", 1, 1 },
		/* a 1.22.0 of no known revision, or no version: the older choice */
		{ "# Library version: 1.22.0\n", 0, 1 },
		{ "# Git branch 'master', revision 0abcdef\n", 0, 1 },
	};
	struct probe_ucx *u = &F->ucx;
	int assumed;

	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		fresh();
		probe_parse_ucx_v(c[i].v, strlen(c[i].v), u);
		CHECK_INT(nicsel_ucx_11547(u, &assumed), c[i].carries);
		CHECK_INT(assumed, c[i].assumed);
	}
}

static void test_ucx_cuda_cpy_no_dmabuf(void)
{
	size_t n;
	char *t = fx_load("ucx_info_d_cuda_cpy_md_without_dmabuf_ucx9908.txt", &n);
	struct probe_ucx *u = &F->ucx;

	fresh();
	CHECK_INT(probe_parse_ucx_d(t, n, u), 1);
	CHECK_INT(u->nmds, 1);
	CHECK_STR(u->md[0].name, "cuda_cpy");
	CHECK_STR(u->md[0].component, "cuda_cpy");
	CHECK_INT(u->md[0].host, 1);
	CHECK_INT(u->md[0].cuda, 1);
	CHECK_INT(u->md[0].cuda_dmabuf, 0);
	CHECK_STR(u->md[0].cuda_flags, "access,alloc,reg,detect");
	CHECK_INT(u->cuda_cpy_dmabuf, 0);
	CHECK_STR(u->tl[0].name, "cuda_copy");
	CHECK_STR(u->tl[0].device, "cuda");
	CHECK_STR(u->tl[0].type, "accelerator");
	CHECK_STR(u->tl[0].md, "cuda_cpy");
	free(t);
}

static void test_ucx_tcp_ipoib(void)
{
	size_t n;
	char *t = fx_load("ucx_info_d_tcp_on_ipoib_ucx8808.txt", &n);
	struct probe_ucx *u = &F->ucx;

	fresh();
	CHECK_INT(probe_parse_ucx_d(t, n, u), 1);
	CHECK_STR(u->md[0].name, "tcp");
	CHECK_INT(u->md[0].host, 1);
	CHECK_INT(u->md[0].cuda, 0);
	CHECK_STR(u->tl[0].device, "ibs8f0");
	CHECK_INT(u->tl_count[PROBE_TL_TCP], 1);
	CHECK_INT(u->tl_count[PROBE_TL_RC_MLX5] + u->tl_count[PROBE_TL_UD_VERBS], 0);
	CHECK_INT(u->n_ib_mds, 0);
	free(t);
}

static void test_ucx_ib_md(void)
{
	const char *t =
		"# Memory domain: mlx5_0\r\n"
		"#     Component: ib\r\n"
		"#         memory types: host (access,reg,cache), cuda (access,reg,cache,dmabuf)\r\n"
		"#      Transport: rc_mlx5\r\n"
		"#         Device: mlx5_0:1\r\n"
		"# Memory domain: mlx5_1\n"
		"#     Component: ib\n"
		"#         memory types: host (access,reg,cache), cuda-managed (reg)\n"
		"# Memory domain: cuda_cpy\n"
		"#     Component: cuda_cpy\n"
		"#         memory types: host (reg), cuda (access,alloc,reg,cache,detect,dmabuf)\n";
	struct probe_ucx *u = &F->ucx;

	fresh();
	CHECK_INT(probe_parse_ucx_d(t, strlen(t), u), 1);
	CHECK_INT(u->n_ib_mds, 2);
	CHECK_INT(u->n_ib_mds_cuda, 1);
	CHECK_INT(u->md[1].cuda, 0);  /* cuda-managed is not cuda */
	CHECK_INT(u->cuda_cpy_dmabuf, 1);
	CHECK_STR(u->tl[0].device, "mlx5_0:1");
	CHECK_STR(probe_ucx_tl_name(PROBE_TL_GDR_COPY), "gdr_copy");
}

static void test_fi_info(void)
{
	size_t n;
	char *t = fx_load("fi_info_p_efa_libfabric5689.txt", &n);

	fresh();
	CHECK_INT(probe_parse_fi_info(t, n, &F->fi), 3);
	CHECK_INT(F->fi.n_efa_rdm, 1);
	CHECK_STR(F->fi.entry[0].domain, "efa_0-rdm");
	CHECK_STR(F->fi.entry[0].fabric, "EFA-fe80::39:beff:fe6e:c23");
	CHECK_STR(F->fi.entry[1].type, "FI_EP_DGRAM");
	CHECK_STR(F->fi.entry[2].provider, "efa;ofi_rxd");
	CHECK_STR(F->fi.entry[2].protocol, "FI_PROTO_RXD");
	CHECK_INT(F->fi.hmem_p2p_unavailable, 0);
	free(t);

	fresh();
	t = fx_load("libfabric_efa_cuda_p2p_unavailable_libfabric11256.txt", &n);
	CHECK_INT(probe_parse_fi_info(t, n, &F->fi), 0);
	CHECK_INT(F->fi.hmem_p2p_unavailable, 1);
	CHECK_INT(F->fi.hmem_cuda_reg_failed, 1);
	free(t);

	fresh();
	CHECK_INT(probe_parse_fi_info("fi_getinfo: -61 (No data available)\n", 36, &F->fi), 0);
	CHECK_INT(F->fi.no_data, 1);
}

static void test_limits(void)
{
	const char *lim =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max locked memory         65536                65536                bytes     \n";
	const char *unl = "Max locked memory         unlimited            unlimited            bytes\n";
	const char *st = "Name:\tsh\nCapInh:\t0000000000000000\nCapPrm:\t00000000a80425fb\n"
			 "CapEff:\t00000000a80425fb\nCapBnd:\t00000000a80425fb\n";
	const char *priv = "CapEff:\t000001ffffffffff\n";

	fresh();
	CHECK_INT(probe_parse_limits(lim, strlen(lim), &F->limits_self), 1);
	CHECK(F->limits_self.memlock_soft == 65536);
	CHECK(F->limits_self.memlock_hard == 65536);
	CHECK_INT(probe_parse_status_caps(st, strlen(st), &F->limits_self), 1);
	CHECK(F->limits_self.cap_eff == 0xa80425fbULL);
	CHECK_INT(F->limits_self.ipc_lock, 0);  /* docker default set */
	CHECK_INT(F->limits_self.sys_admin, 0);
	CHECK_INT(probe_parse_limits(unl, strlen(unl), &F->limits_pid1), 1);
	CHECK(F->limits_pid1.memlock_soft == PROBE_UNLIMITED);
	CHECK_INT(probe_parse_status_caps(priv, strlen(priv), &F->limits_pid1), 1);
	CHECK_INT(F->limits_pid1.ipc_lock, 1);
	CHECK_INT(F->limits_pid1.sys_resource, 1);
}

static void test_nixl_env(void)
{
	const char *pl = "prefix=/opt/nvidia/nvda_nixl\n"
			 "dir=/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins\n"
			 "plugin=libplugin_UCX.so\nplugin=libplugin_LIBFABRIC.so\nplugin=junk.so\n";
	const char *tools = "nixlbench=/usr/local/bin/nixlbench\nnixl_example=\nkvbench=\n";
	const char *py = "module=/usr/lib/python3/site-packages/nixl/__init__.py\n"
			 "version=nixl-cu12 0.9.0\n"
			 "plugin_dir=/x/.nixl_cu12.mesonpy.libs/plugins\nplugin=libplugin_GDS.so\n";
	const char *ver = "nixl 0.9.0\r\nucx 1.19.0\r\n\r\n";
	const char *env = "UCX_TLS=rc_x,cuda_copy\nNCCL_IB_HCA==mlx5_0:1\nSECRET_TOKEN=xyz\n"
			  "GLOO_SOCKET_IFNAME=eth0\nUCX_=bad\nHF_TOKEN=x\nFI_PROVIDER=efa\n"
			  "NCCL_SOCKET_IFNAME_X=1\nGLOO_SOCKET_IFNAMES=no\nMASTER_ADDR=10.0.0.1\n";

	fresh();
	CHECK_INT(probe_parse_nixl_plugins(pl, strlen(pl), &F->nixl), 2);
	CHECK_STR(F->nixl.prefix, "/opt/nvidia/nvda_nixl");
	CHECK(probe_nixl_has_plugin(&F->nixl, "UCX"));
	CHECK(probe_nixl_has_plugin(&F->nixl, "LIBFABRIC"));
	CHECK(!probe_nixl_has_plugin(&F->nixl, "GDS"));
	CHECK_INT(probe_parse_nixl_tools(tools, strlen(tools), &F->nixl), 1);
	CHECK_INT(F->nixl.tool[PROBE_NIXL_TOOL_NIXLBENCH], 1);
	CHECK_INT(F->nixl.tool[PROBE_NIXL_TOOL_KVBENCH], 0);
	CHECK_INT(probe_parse_nixl_python(py, strlen(py), &F->nixl), 1);
	CHECK_INT(F->nixl.python_ok, 1);
	CHECK_STR(F->nixl.python_dist, "nixl-cu12");
	CHECK_STR(F->nixl.python_version, "0.9.0");
	CHECK(probe_nixl_has_plugin(&F->nixl, "GDS"));
	CHECK_INT(probe_parse_nixl_versions(ver, strlen(ver), &F->nixl), 2);
	CHECK_STR(F->nixl.version_lines[1], "ucx 1.19.0");
	CHECK_STR(F->nixl.dist_version[PROBE_NIXL_DIST_CU12], "0.9.0");
	CHECK_STR(F->nixl.dist_version[PROBE_NIXL_DIST_CU13], "");

	/* every distribution, printed before an import that failed (F5) */
	{
		static const char both[] = "version=nixl 1.2.0\nversion=nixl-cu12 1.2.0\n"
					   "version=nixl-cu13 1.2.1\nversion=nixl-cu14 9\n"
					   "ImportError: libcudart.so.12: cannot open shared object file\n";

		fresh();
		CHECK_INT(probe_parse_nixl_python(both, strlen(both), &F->nixl), 0);
		CHECK_STR(F->nixl.dist_version[PROBE_NIXL_DIST_NIXL], "1.2.0");
		CHECK_STR(F->nixl.dist_version[PROBE_NIXL_DIST_CU12], "1.2.0");
		CHECK_STR(F->nixl.dist_version[PROBE_NIXL_DIST_CU13], "1.2.1");
		CHECK_STR(F->nixl.python_dist, "nixl");
	}

	CHECK_INT(probe_parse_env(env, strlen(env), &F->env), 6);
	CHECK_STR(probe_env_get(&F->env, "UCX_TLS"), "rc_x,cuda_copy");
	CHECK_STR(probe_env_get(&F->env, "NCCL_IB_HCA"), "=mlx5_0:1");
	CHECK(probe_env_get(&F->env, "SECRET_TOKEN") == NULL);
	CHECK(probe_env_get(&F->env, "HF_TOKEN") == NULL);
	CHECK(probe_env_get(&F->env, "UCX_") == NULL);
	CHECK(probe_env_get(&F->env, "GLOO_SOCKET_IFNAMES") == NULL);
	CHECK_STR(probe_env_get(&F->env, "MASTER_ADDR"), "10.0.0.1");

	/* Mooncake's transport variables are kept, its credentials and
	 * metadata-server URLs never (model/vocab.c, probe.sh). */
	{
		static const char mc[] = "MC_GID_INDEX=3\nMC_REDIS_PASSWORD=hunter2\n"
					 "MC_METADATA_SERVER=http://u:p@etcd:2379\nMC_IB_PORT=1\n";

		probe_facts_release(F);
		CHECK_INT(probe_parse_env(mc, strlen(mc), &F->env), 2);
		CHECK_STR(probe_env_get(&F->env, "MC_GID_INDEX"), "3");
		CHECK(probe_env_get(&F->env, "MC_REDIS_PASSWORD") == NULL);
		CHECK(probe_env_get(&F->env, "MC_METADATA_SERVER") == NULL);
	}
	/* SGLang's and TensorRT-LLM's KV-transfer variables too (issue 25),
	 * with the same secret filter; their other variables are not kept. */
	{
		static const char fw[] = "SGLANG_DISAGGREGATION_IB_DEVICE=mlx5_0\n"
					 "SGLANG_MOONCAKE_TRANS_THREAD=8\nSGLANG_HOST_IB_DEVICE=mlx5_1\n"
					 "TRTLLM_UCX_INTERFACE=eth1\nTRTLLM_USE_NIXL_KVCACHE=1\n"
					 "TRTLLM_NIXL_KVCACHE_BACKEND=UCX\n"
					 "SGLANG_DISAGGREGATION_BOOTSTRAP_TOKEN=hunter2\n"
					 "TRTLLM_NIXL_METADATA_SERVER_URL=http://u:p@etcd:2379\n"
					 "SGLANG_FORCE_SHUTDOWN=1\nTRTLLM_LOG_LEVEL=info\n";

		probe_facts_release(F);
		CHECK_INT(probe_parse_env(fw, strlen(fw), &F->env), 6);
		CHECK_STR(probe_env_get(&F->env, "SGLANG_DISAGGREGATION_IB_DEVICE"), "mlx5_0");
		CHECK_STR(probe_env_get(&F->env, "SGLANG_HOST_IB_DEVICE"), "mlx5_1");
		CHECK_STR(probe_env_get(&F->env, "TRTLLM_UCX_INTERFACE"), "eth1");
		CHECK_STR(probe_env_get(&F->env, "TRTLLM_USE_NIXL_KVCACHE"), "1");
		CHECK(probe_env_get(&F->env, "SGLANG_DISAGGREGATION_BOOTSTRAP_TOKEN") == NULL);
		CHECK(probe_env_get(&F->env, "TRTLLM_NIXL_METADATA_SERVER_URL") == NULL);
		CHECK(probe_env_get(&F->env, "SGLANG_FORCE_SHUTDOWN") == NULL);
		CHECK(probe_env_get(&F->env, "TRTLLM_LOG_LEVEL") == NULL);
	}
}

struct logcase {
	const char *file;
	enum logsig sig;
	unsigned count;
};

static void test_logscan(void)
{
	static const struct logcase cases[] = {
		{ "dmesg_nvidia_peermem_invalid_context.txt", LOGSIG_PEERMEM_INVALID_CONTEXT, 7 },
		{ "dmesg_nvidia_peermem_unknown_symbol_gpu_operator2868.txt", LOGSIG_PEERMEM_UNKNOWN_SYMBOL, 8 },
		{ "dmesg_nvidia_peermem_unknown_symbol_gpu_operator2868.txt", LOGSIG_PEERMEM_INSERT_FAILED, 1 },
		{ "ucx_debug_log_gdr_disabled_no_dmabuf_ucx9908.txt", LOGSIG_UCX_GDR_DISABLED, 1 },
		{ "ucx_debug_log_gdr_disabled_no_dmabuf_ucx9908.txt", LOGSIG_UCX_DMABUF_UNSUPPORTED, 2 },
		{ "ucx_debug_log_gdr_disabled_no_dmabuf_ucx9908.txt", LOGSIG_UCX_NO_IB_PORTS, 3 },
		{ "ucx_log_rdma_disabled_memlock_ucx7930.txt", LOGSIG_UCX_MEMLOCK, 2 },
		{ "ucx_proto_trace_nic_cannot_register_cuda_nixl307.txt", LOGSIG_UCX_CANNOT_REGISTER_CUDA, 1 },
		{ "ucx_proto_trace_nic_cannot_register_cuda_nixl307.txt", LOGSIG_UCX_HOST_STAGING, 1 },
		{ "ucx_proto_trace_nic_cannot_register_cuda_nixl307.txt", LOGSIG_UCX_RC_LANES, 2 },
		{ "ucx_warn_cuda_transports_unavailable_lmcache605.txt", LOGSIG_UCX_CUDA_TL_UNAVAILABLE, 1 },
		{ "ucx_warn_cuda_transports_unavailable_lmcache605.txt", LOGSIG_UCX_TL_UNAVAILABLE, 1 },
		{ "ucx_warn_gdr_copy_not_available_ucx7917.txt", LOGSIG_UCX_GDR_COPY_UNAVAILABLE, 2 },
		{ "ucx_warn_gdr_copy_not_available_ucx7917.txt", LOGSIG_UCX_CUDA_TL_UNAVAILABLE, 0 },
		{ "ucx_worker_cfg_tcp_lanes_no_nvlink_nixl1097.txt", LOGSIG_UCX_TCP_LANES, 1 },
		{ "ucx_worker_cfg_tcp_lanes_no_nvlink_nixl1097.txt", LOGSIG_UCX_CUDA_IPC_NO_NVLINK, 1 },
		{ "ucx_worker_inter_node_rc_mlx5_nixl149.txt", LOGSIG_UCX_RC_LANES, 3 },
		{ "ucx_worker_inter_node_rc_mlx5_nixl149.txt", LOGSIG_UCX_TCP_LANES, 0 },
		{ "nixl_plugin_load_log_libfabric_llmd741.txt", LOGSIG_NIXL_PLUGIN_LOADED, 5 },
		{ "nixl_register_vram_backend_error_nixl334.txt", LOGSIG_NIXL_ERR, 1 },
		{ "nixl_write_blocks_tcp_vs_rdma_dynamo1314.txt", LOGSIG_NIXL_SLOW_INIT_XFER, 1 },
		{ "nccl_log_p2p_level_loc_forced_nccl_tests228.txt", LOGSIG_NCCL_P2P_FORCED_OFF, 1 },
		{ "libfabric_efa_cuda_p2p_unavailable_libfabric11256.txt", LOGSIG_FI_HMEM_P2P_UNAVAILABLE, 1 },
		{ "libfabric_efa_cuda_p2p_unavailable_libfabric11256.txt", LOGSIG_FI_CUDA_REG_FAILED, 1 },
		{ "gdrcopy_sanity_fail_tokens_gdrcopy324.txt", LOGSIG_GDRCOPY_SANITY_FAILED, 1 },
		{ "gdrcopy_sanity_pass_and_dev_gdrdrv.txt", LOGSIG_GDRCOPY_SANITY_PASSED, 1 },
		{ "gdrcopy_sanity_pass_and_dev_gdrdrv.txt", LOGSIG_GDRCOPY_SANITY_FAILED, 0 },
	};
	struct logscan s;
	size_t i, n;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *t = fx_load(cases[i].file, &n);
		logscan_init(&s);
		logscan_text(&s, t, n);
		if (s.count[cases[i].sig] != cases[i].count)
			fprintf(stderr, "%s: %s\n", cases[i].file, logsig_name(cases[i].sig));
		CHECK_INT(s.count[cases[i].sig], cases[i].count);
		if (!strcmp(cases[i].file, "nixl_plugin_load_log_libfabric_llmd741.txt"))
			CHECK_STR(s.nixl_plugins, "GDS,GDS_MT,LIBFABRIC,POSIX,UCX");
		if (!strcmp(cases[i].file, "nixl_write_blocks_tcp_vs_rdma_dynamo1314.txt"))
			CHECK(s.max_init_xfer_ms > 1800 && s.max_init_xfer_ms < 1801);
		if (!strcmp(cases[i].file, "ucx_log_rdma_disabled_memlock_ucx7930.txt"))
			CHECK_HAS(s.first[LOGSIG_UCX_MEMLOCK], "(64 kbytes)");
		free(t);
	}
}

int main(void)
{
	F = probe_facts_new();
	test_ucx_leonardo();
	test_ucx_git_line();
	test_ucx_11547();
	test_ucx_cuda_cpy_no_dmabuf();
	test_ucx_tcp_ipoib();
	test_ucx_ib_md();
	test_fi_info();
	test_limits();
	test_nixl_env();
	test_logscan();
	probe_facts_free(F);
	return T_DONE("test_parsers_ucx");
}
