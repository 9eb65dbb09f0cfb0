/* The LOGS family: every log signature from a real line (its source next
 * to it), the judge (status, quoted line, masking, extra-evidence skips,
 * verdict), and the log request path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/logs.h"
#include "kube/api/logs.h"
#include "probe/logscan.h"
#include "probe_fixture.h"
#include "t.h"
#include "verdict/verdict.h"

struct line_case {
	const char *line;
	enum logsig sig;
	const char *source;
};

/* Real lines, verbatim unless the note says what was cut. */
static const struct line_case lines[] = {
	/* dynamo.md 5.2 (disagg-communication.md "Logs") */
	{ "NIXL INFO Backend UCX was instantiated", LOGSIG_NIXL_UCX_INSTANTIATED, "dynamo docs" },
	{ "UCX WARN no RDMA transports available", LOGSIG_UCX_NO_RDMA, "dynamo docs" },
	{ "NIXL INFO falling back to TCP transport", LOGSIG_NIXL_TCP_FALLBACK, "dynamo docs" },
	{ "NIXL  INFO Loaded backend plugin: LIBFABRIC", LOGSIG_NIXL_LIBFABRIC_LOADED, "dynamo docs, EFA" },
	{ "NIXL  INFO Found 32 fabric devices", LOGSIG_NIXL_FABRIC_DEVICES, "dynamo docs, EFA" },
	/* dynamo.md 5.2, TRT-LLM kv-cache-transfer.md "Verifying EFA is Active" */
	{ "NixlTransferAgent using NIXL backend: UCX", LOGSIG_NIXL_AGENT_BACKEND, "trt-llm docs" },
	/* the docs elide the line ("ucp_context ... rma_am(srd/rdmap...)"):
	 * UCX's worker-config format of fixture nixl149 with that lane */
	{ "[1744331142.028115] [ip-10-1-2-3:2802608:3]      ucp_worker.c:1903 UCX  INFO    "
	  "ucp_context_0 inter-node cfg#1 rma_am(srd/rdmap79s0:1)  am(srd/rdmap79s0:1)",
	  LOGSIG_UCX_RC_LANES, "trt-llm docs, UCX format" },
	/* checks.md F3 (nixl test/gtest/hw_warning_test.cpp, ucx_utils.cpp) */
	{ "NVIDIA GPU(s) were detected, but UCX CUDA support was not found! GPU memory is not supported.",
	  LOGSIG_UCX_NO_CUDA_SUPPORT, "nixl hw_warning_test" },
	{ "IB device(s) were detected, but accelerated IB support was not found! Performance may be degraded.",
	  LOGSIG_UCX_NO_ACCEL_IB, "nixl hw_warning_test" },
	{ "Amazon EFA(s) were detected, but the UCX backend was configured",
	  LOGSIG_NIXL_EFA_WITH_UCX, "nixl hw_warning_test" },
	/* a vLLM worker (GitHub issue text quoted in a public write-up) */
	{ "ucx_utils.cpp:581] memory is detected as host, check that UCX is configured with CUDA support",
	  LOGSIG_UCX_NO_CUDA_SUPPORT, "vllm worker log" },
	{ "nixl_cu12._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND", LOGSIG_NIXL_ERR, "vllm worker log" },
	/* fixtures lmcache605, nixl334 */
	{ "Backend UCX was instantiated", LOGSIG_NIXL_UCX_INSTANTIATED, "lmcache605" },
	{ "nixl._bindings.nixlBackendError: NIXL_ERR_BACKEND", LOGSIG_NIXL_ERR, "nixl334" },
	/* UCX's warning of fixture ucx7917 for an RDMA transport
	 * (the message a UCX_TLS=rc_x on VFs without mlx5 accel gives) */
	{ "[1644294680.522058] [gpu39:4970 :0]     ucp_context.c:779  UCX  WARN  transport 'rc_x' is not "
	  "available, please use one or more of: cma, cuda, cuda_copy, cuda_ipc, rc_verbs, self, tcp",
	  LOGSIG_UCX_RDMA_TL_UNAVAILABLE, "ucx7917 format" },
	/* NCCL INFO lines from public logs */
	{ "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB enp1s0f0np0:10.0.0.1<0>",
	  LOGSIG_NCCL_NET_IB, "nccl log" },
	{ "NCCL INFO Using network IB", LOGSIG_NCCL_NET_IB, "nccl log" },
	{ "tpgds-aihub0008:207007:207007 [0] NCCL INFO Channel 00/0 : 1[1] -> 8[0] [receive] via NET/IB/0/GDRDMA",
	  LOGSIG_NCCL_GDRDMA, "nccl log" },
	{ "NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'",
	  LOGSIG_NCCL_GDR_DISABLED, "nccl log" },
	{ "9cce34ff6c6c:505250:505433 [1] NCCL INFO NET/IB : No device found.",
	  LOGSIG_NCCL_NET_SOCKET, "nccl log" },
	{ "9cce34ff6c6c:505250:505433 [1] NCCL INFO Using network Socket",
	  LOGSIG_NCCL_NET_SOCKET, "nccl log" },
	{ "llama-3-8b-node-0-0:152:386 [0] NCCL INFO Assigned NET plugin Socket to comm",
	  LOGSIG_NCCL_NET_SOCKET, "nccl log" },
	{ "9cce34ff6c6c:505250:505433 [1] NCCL INFO NET/Socket : Using [0]eth0:172.17.0.2<0>",
	  LOGSIG_NCCL_SOCKET_INIT, "nccl log" },
	{ "NCCL_P2P_LEVEL set by environment to LOC", LOGSIG_NCCL_P2P_FORCED_OFF, "nccl-tests228" },
	/* issue 41: the engines' pair faults and the fabric under traffic */
	{ "RuntimeError: PD Disaggregation does NOT support PD different TP sizes for non-MLA SWA hybrid models yet.",
	  LOGSIG_KV_PD_UNSUPPORTED, "sgl-project/sglang#38552" },
	/* the words the reports quote; the prefix around them is vLLM's logger
	 * format, not quoted by the reports */
	{ "ERROR 05-12 10:21:33 [nixl_connector.py:1187] NIXL transfer failure: handshake_setup_failed",
	  LOGSIG_KV_HANDSHAKE_FAILED, "vllm#42895 (failure_type)" },
	{ "RuntimeError: NIXL compatibility hash mismatch", LOGSIG_KV_COMPAT_HASH, "ai-dynamo/dynamo#10027" },
	{ "cuda_ipc_md.c:412  UCX  WARN  allocated memory at 0x7f3a40000000 of size 2097152 does not have fabric property",
	  LOGSIG_UCX_NO_FABRIC_PROPERTY, "libuct_cuda string, address and size filled" },
	{ " |                         0..inf | software emulation                       | srd/rdmap135s0:1 |",
	  LOGSIG_UCX_SW_EMULATION, "openucx/ucx#10950" },
	{ "E0617 08:42:45.470683   413 worker_pool.cpp:291] Worker: Process failed for slice (opcode: 0, "
	  "local_nic: mlx5_6, peer_nic: 10.10.251.105:mlx5_6, error: transport retry counter exceeded)",
	  LOGSIG_IB_RETRY_EXCEEDED, "kvcache-ai/Mooncake#507 format, ibv_wc_status_str" },
	{ "E0617 08:42:45.470683   413 worker_pool.cpp:291] Worker: Process failed for slice (opcode: 1, "
	  "local_nic: mlx5_6, error: local protection error)",
	  LOGSIG_IB_LOCAL_PROTECTION, "Mooncake#507 format, ibv_wc_status_str" },
	{ "W0617 08:43:02.118211   420 rdma_context.cpp:312] Worker: Received context async event: port error for context mlx5_6",
	  LOGSIG_IB_PORT_ERROR, "Mooncake rdma_context.cpp, ibv_event_type_str" },
	{ "E0101 00:00:01.000000  77 efa_context.cpp:71] Failed to query GID",
	  LOGSIG_RDMA_GID_QUERY_FAILED, "Mooncake efa context" },
	{ "      ib_mlx5_dv.c:238  UCX  ERROR mlx5dv_devx_obj_modify(502) failed, syndrome 0: Operation canceled",
	  LOGSIG_UCX_DEVX_MODIFY_FAILED, "openucx/ucx#7738" },
};

static void scan(struct logscan *s, const char *text)
{
	logscan_init(s);
	logscan_text(s, text, strlen(text));
}

static void test_every_line(void)
{
	struct logscan s;

	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		scan(&s, lines[i].line);
		if (s.count[lines[i].sig] != 1)
			fprintf(stderr, "line %zu (%s): %s not matched\n", i, lines[i].source,
				logsig_name(lines[i].sig));
		CHECK_INT(s.count[lines[i].sig], 1);
	}
	/* Which backend, how many devices. */
	scan(&s, "NixlTransferAgent using NIXL backend: UCX\n");
	CHECK_STR(s.nixl_backend, "UCX");
	scan(&s, "NIXL  INFO Loaded backend plugin: LIBFABRIC\nNIXL  INFO Found 32 fabric devices\n");
	CHECK_STR(s.nixl_backend, "LIBFABRIC");
	CHECK_INT(s.fabric_devices, 32);
	/* Near misses: none found proves nothing; the plugin list is not a choice;
	 * an IB plugin with no device ("[RO]" only) is not NET/IB. */
	scan(&s, "NIXL  INFO Found 0 fabric devices\n"
		 "I0214 02:57:25.925919 25 nixl_plugin_manager.cpp:461] Discovered and loaded backend plugin: LIBFABRIC\n"
		 "llama-3-8b-node-0-0:152:386 [0] NCCL INFO NET/IB : Using [RO]; OOB eth0:10.0.4.51<0>\n"
		 "NCCL INFO NET/Socket : GPU Direct RDMA Disabled for HCA 0 'eth0'\n");
	CHECK_INT(s.count[LOGSIG_NIXL_FABRIC_DEVICES], 0);
	CHECK_INT(s.count[LOGSIG_NIXL_LIBFABRIC_LOADED], 0);
	CHECK_INT(s.count[LOGSIG_NCCL_NET_IB], 0);
	CHECK_INT(s.count[LOGSIG_NCCL_GDR_DISABLED], 0);
	CHECK_STR(s.nixl_plugins, "LIBFABRIC");
	/* gdr_copy missing is not an RDMA transport missing (ucx7917). */
	scan(&s, "UCX  WARN  transport 'gdr_copy' is not available, please use one or more of: rc, dc, ud, ib\n");
	CHECK_INT(s.count[LOGSIG_UCX_RDMA_TL_UNAVAILABLE], 0);
	CHECK_INT(s.count[LOGSIG_UCX_GDR_COPY_UNAVAILABLE], 1);
	/* Near misses (issue 41): UCX's zero-copy row, a healthy async
	 * event, the UCX GID line that already has its own signature. */
	scan(&s, " |                         0..1651 | zero-copy                                | srd/rdmap85s0:1 |\n"
		 "Worker: Received context async event: port active for context mlx5_6\n"
		 "ib_device.c:1450 UCX ERROR ibv_query_gid(dev=mlx5_0 port=1 index=3) failed: Invalid argument\n"
		 "INFO nixl_connector.py: NIXL compatibility hash: 0x1f3a matches the remote\n");
	CHECK_INT(s.count[LOGSIG_UCX_SW_EMULATION], 0);
	CHECK_INT(s.count[LOGSIG_IB_PORT_ERROR], 0);
	CHECK_INT(s.count[LOGSIG_RDMA_GID_QUERY_FAILED], 0);
	CHECK_INT(s.count[LOGSIG_UCX_GID_QUERY_FAILED], 1);
	CHECK_INT(s.count[LOGSIG_KV_COMPAT_HASH], 0);
	/* Every signature has a stable name. */
	for (int g = 0; g < LOGSIG_COUNT; g++)
		CHECK(strcmp(logsig_name((enum logsig)g), "?") != 0);
	CHECK(check_logs_table_complete());
}

static void test_quote(void)
{
	char q[CHECK_LOGS_QUOTE_MAX + 1];
	char long_line[600];

	check_logs_quote("  NIXL INFO falling back to TCP transport  ", q, sizeof q);
	CHECK_STR(q, "NIXL INFO falling back to TCP transport");
	/* A secret-looking pair on a transport line is masked; transport
	 * variables are not. */
	check_logs_quote("UCX WARN no RDMA transports available HF_TOKEN=hf_abc123 UCX_TLS=rc,cuda "
			 "--api-key=sk-999 password = \"p w\"", q, sizeof q);
	CHECK(!strstr(q, "hf_abc123"));
	CHECK(!strstr(q, "sk-999"));
	CHECK(!strstr(q, "p w"));
	CHECK_HAS(q, "HF_TOKEN=<masked>");
	CHECK_HAS(q, "--api-key=<masked>");
	CHECK_HAS(q, "UCX_TLS=rc,cuda");
	/* UCX's column padding is squeezed. */
	/* UCX's "[time] [host:pid:thread]" prefix is dropped, the rest kept. */
	check_logs_quote("[1744331142.028115] [ccw-gpu-51:2802608:3]      ucp_worker.c:1903 "
			 "UCX  INFO    ucp_context_2 inter-node cfg#3 rma(rc_mlx5/mlx5_ib2:1)", q, sizeof q);
	CHECK_STR(q, "ucp_worker.c:1903 UCX INFO ucp_context_2 inter-node cfg#3 rma(rc_mlx5/mlx5_ib2:1)");
	check_logs_quote("[INFO] UCX ready", q, sizeof q);
	CHECK_STR(q, "UCX ready");
	check_logs_quote("[no close bracket UCX", q, sizeof q);
	CHECK_STR(q, "[no close bracket UCX");
	check_logs_quote("ucp_worker.c:1903 UCX  INFO    ucp_context_2 inter-node", q, sizeof q);
	CHECK_STR(q, "ucp_worker.c:1903 UCX INFO ucp_context_2 inter-node");
	/* Escapes and non-ASCII never reach a terminal or JSON. */
	check_logs_quote("\033[31mUCX WARN\033[0m caf\xc3\xa9", q, sizeof q);
	CHECK(!strchr(q, '\033'));
	CHECK_HAS(q, "?[31mUCX WARN?[0m caf??");
	/* Long lines are cut with "...", at the limit. */
	memset(long_line, 'x', sizeof long_line - 1);
	long_line[sizeof long_line - 1] = '\0';
	check_logs_quote(long_line, q, sizeof q);
	CHECK_INT(strlen(q), CHECK_LOGS_QUOTE_MAX);
	CHECK(!strcmp(q + CHECK_LOGS_QUOTE_MAX - 3, "..."));
	/* A secret right at the cut: masked before cutting. */
	memset(long_line, 'y', 150);
	strcpy(long_line + 150, " TOKEN=abcdefghijklmnopqrstuvwxyz");
	check_logs_quote(long_line, q, sizeof q);
	CHECK(!strstr(q, "abcdefgh"));
}

static const struct check_result *find(const struct check_results *r, const char *name)
{
	return check_results_find(r, name);
}

static void judge(const char *text, const struct check_context *ctx, struct check_results *r)
{
	struct logscan s;
	struct logs_outcome o = { &s, NULL, 0, "main", 5000 };

	scan(&s, text);
	check_results_init(r);
	check_logs(&o, ctx, r);
}

static void test_judge(void)
{
	struct check_context dis = { 0 }, agg = { 0 };
	struct check_results r;
	const struct check_result *c;
	char *t;
	size_t n;

	dis.kv_known = 1, dis.kv_cross_pod = 1, dis.role = "decode";
	agg.kv_known = 1, agg.kv_cross_pod = 0, agg.role = "worker";

	/* Healthy: UCX instantiated and RDMA lanes (fixture nixl149). */
	t = fx_load("ucx_worker_inter_node_rc_mlx5_nixl149.txt", &n);
	{
		char *both = malloc(n + 64);
		snprintf(both, n + 64, "NIXL INFO Backend UCX was instantiated\n%s", t);
		judge(both, &dis, &r);
		free(both);
	}
	free(t);
	c = find(&r, "logs-nixl");
	CHECK(c && c->status == CHECK_OK);
	CHECK_HAS(c ? c->detail : NULL, "\"NIXL INFO Backend UCX was instantiated\"");
	c = find(&r, "logs-ucx");
	CHECK(c && c->status == CHECK_OK && !c->remedy);
	CHECK_HAS(c ? c->detail : NULL, "rma(rc_mlx5/mlx5_ib2:1)");
	CHECK_HAS(c ? c->detail : NULL, "(3 lines)");
	c = find(&r, "logs-read");
	CHECK(c && c->status == CHECK_OK);
	CHECK(find(&r, "logs-nccl") == NULL);
	check_results_release(&r);

	/* Fallback: fail where KV crosses pods, warn where it stays. */
	judge("NIXL INFO Backend UCX was instantiated\nUCX WARN no RDMA transports available\n"
	      "NIXL INFO falling back to TCP transport\n", &dis, &r);
	c = find(&r, "logs-nixl");
	CHECK(c && c->status == CHECK_FAIL && c->remedy);
	CHECK_HAS(c ? c->detail : NULL, "NIXL fell back to TCP: \"NIXL INFO falling back to TCP transport\"");
	c = find(&r, "logs-ucx");
	CHECK(c && c->status == CHECK_FAIL);
	CHECK_INT(check_results_family_status(&r, FAM_LOGS), CHECK_FAIL);
	check_results_release(&r);
	judge("NIXL INFO falling back to TCP transport\n", &agg, &r);
	c = find(&r, "logs-nixl");
	CHECK(c && c->status == CHECK_WARN);
	check_results_release(&r);

	/* UCX_LOG_LEVEL=debug on a healthy node: ib_device.c's per-device
	 * "no compatible IB ports found" debug line beside rc lanes is no
	 * finding; alone it is a degradation, never a failure. */
	t = fx_load("ucx_worker_inter_node_rc_mlx5_nixl149.txt", &n);
	{
		char *both = malloc(n + 160);
		snprintf(both, n + 160, "[1712000000.1] [gpu-1:77:0] ib_device.c:1350 UCX DEBUG mlx5_bond_0: "
			 "no compatible IB ports found for flags 0x8\n%s", t);
		judge(both, &dis, &r);
		free(both);
	}
	free(t);
	c = find(&r, "logs-ucx");
	CHECK(c && c->status == CHECK_OK);
	check_results_release(&r);
	judge("[1712000000.1] [gpu-1:77:0] ib_device.c:1350 UCX DEBUG mlx5_0: "
	      "no compatible IB ports found for flags 0x8\n", &dis, &r);
	c = find(&r, "logs-ucx");
	CHECK(c && c->status == CHECK_WARN);
	check_results_release(&r);

	/* TCP lanes (nixl1097) fail; host staging (nixl307) warns. */
	t = fx_load("ucx_worker_cfg_tcp_lanes_no_nvlink_nixl1097.txt", &n);
	judge(t, &dis, &r);
	free(t);
	c = find(&r, "logs-ucx");
	CHECK(c && c->status == CHECK_FAIL);
	CHECK_HAS(c ? c->detail : NULL, "rma_am(tcp/eth1)");
	check_results_release(&r);
	t = fx_load("ucx_proto_trace_nic_cannot_register_cuda_nixl307.txt", &n);
	judge(t, &dis, &r);
	free(t);
	c = find(&r, "logs-ucx");
	CHECK(c && c->status == CHECK_WARN);
	CHECK_HAS(c ? c->detail : NULL, "more warning sign");
	check_results_release(&r);

	/* NCCL: sockets warn; a NET/Socket bootstrap line next to NET/IB does not. */
	judge("NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB eth0:10.0.0.1<0>\n"
	      "NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
	      "h:1:1 [0] NCCL INFO Channel 00/0 : 1[1] -> 8[0] [receive] via NET/IB/0/GDRDMA\n", &dis, &r);
	c = find(&r, "logs-nccl");
	CHECK(c && c->status == CHECK_OK);
	CHECK_HAS(c ? c->detail : NULL, "GDRDMA");
	check_results_release(&r);
	judge("h [1] NCCL INFO NET/IB : No device found.\nh [1] NCCL INFO NET/Socket : Using [0]eth0:172.17.0.2<0>\n",
	      &dis, &r);
	c = find(&r, "logs-nccl");
	CHECK(c && c->status == CHECK_WARN);
	check_results_release(&r);

	/* EFA: libfabric loaded with devices is ok; UCX on EFA fails
	 * (issue 22: nixl#909, #1983, dynamo#4185), KV crossing pods. */
	judge("NIXL  INFO Loaded backend plugin: LIBFABRIC\nNIXL  INFO Found 32 fabric devices\n", &dis, &r);
	c = find(&r, "logs-nixl");
	CHECK(c && c->status == CHECK_OK);
	check_results_release(&r);
	judge("Amazon EFA(s) were detected, but the UCX backend was configured\n", &dis, &r);
	c = find(&r, "logs-nixl");
	CHECK(c && c->status == CHECK_FAIL);
	check_results_release(&r);

	/* A secret on another line and in the matched line never shows. */
	judge("export HF_TOKEN=hf_secret_other_line\n"
	      "NIXL INFO falling back to TCP transport (AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI)\n", &dis, &r);
	for (size_t i = 0; i < r.n; i++) {
		CHECK(!strstr(r.v[i].detail, "hf_secret"));
		CHECK(!strstr(r.v[i].detail, "wJalrXUtnFEMI"));
	}
	check_results_release(&r);

	/* Nothing about transports: an extra-evidence skip with a remedy. */
	judge("line 1 prefill starting\nline 2 serving\n", &dis, &r);
	CHECK_INT(r.n, 1);
	c = find(&r, "logs-read");
	CHECK(c && c->status == CHECK_SKIPPED && (c->flags & CHECK_F_EXTRA) && c->remedy);
	CHECK_HAS(c ? c->detail : NULL, "no NIXL/UCX/NCCL/libfabric transport line in the last 5000 lines of container main");
	CHECK_INT(check_results_family_status(&r, FAM_LOGS), CHECK_SKIPPED);
	check_results_release(&r);
}

static void test_read_failed(void)
{
	struct check_results r;
	struct logs_outcome o = {
		NULL, "Error from server (Forbidden): pods \"qwen-decode-0\" is forbidden: User \"u\" "
		"cannot get resource \"pods/log\" in API group \"\" in the namespace \"demo\"",
		403, "main", 5000,
	};
	const struct check_result *c;

	check_results_init(&r);
	check_logs(&o, NULL, &r);
	c = find(&r, "logs-read");
	CHECK(c && c->status == CHECK_SKIPPED && (c->flags & CHECK_F_EXTRA));
	CHECK_HAS(c ? c->detail : NULL, "cannot read the log of container main: Error from server (Forbidden)");
	CHECK_HAS(c ? c->remedy : NULL, "pods/log");
	check_results_release(&r);
	o.http_status = 400;
	o.error = "Error from server (BadRequest): container \"main\" in pod \"p\" is waiting to start: ContainerCreating";
	check_results_init(&r);
	check_logs(&o, NULL, &r);
	c = find(&r, "logs-read");
	CHECK(c && c->remedy && !strstr(c->remedy, "pods/log"));
	check_results_release(&r);
}

/* The verdict of a probed pod with results r (borrowed). */
static enum verdict_status verdict_of(const struct check_results *r)
{
	struct pod_info info = { .name = "qwen-decode-0", .node = "gpu-a2", .role = "decode",
				 .namespace = "demo", .graph = "qwen" };
	struct run_pod p = { .pod = &info, .probed = 1, .results = *r };

	return verdict_pod(&p);
}

/* Missing log evidence leaves a READY pod READY; a log fail makes it NOT READY. */
static void test_verdict(void)
{
	struct check_results r;
	struct check_context dis = { 0 };
	struct logs_outcome o = { NULL, "forbidden", 403, "main", 5000 };

	dis.kv_known = 1, dis.kv_cross_pod = 1;
	check_results_init(&r);
	r.fabric = FABRIC_INFINIBAND;
	check_results_add_def(&r, "rdma-devices", CHECK_OK, "mlx5_0", NULL);
	check_logs(&o, &dis, &r);
	CHECK_INT(verdict_of(&r), VERDICT_READY);
	check_results_release(&r);

	check_results_init(&r);
	r.fabric = FABRIC_INFINIBAND;
	check_results_add_def(&r, "rdma-devices", CHECK_OK, "mlx5_0", NULL);
	{
		struct logscan s;
		struct logs_outcome ok = { &s, NULL, 0, "main", 5000 };
		scan(&s, "NIXL INFO falling back to TCP transport\n");
		check_logs(&ok, &dis, &r);
	}
	CHECK_INT(verdict_of(&r), VERDICT_NOT_READY);
	check_results_release(&r);
}

static void test_path(void)
{
	struct logs_query q = { "demo", "qwen decode/0", "main", 5000, 1048576, 0 };
	char *p = logs_path(&q);

	CHECK_STR(p, "/api/v1/namespaces/demo/pods/qwen%20decode%2F0/log?container=main&tailLines=5000&limitBytes=1048576");
	free(p);
	q.container = NULL;
	p = logs_path(&q);
	CHECK_STR(p, "/api/v1/namespaces/demo/pods/qwen%20decode%2F0/log?tailLines=5000&limitBytes=1048576");
	free(p);
}

int main(void)
{
	test_every_line();
	test_quote();
	test_judge();
	test_read_failed();
	test_verdict();
	test_path();
	return T_DONE("test_logs");
}
