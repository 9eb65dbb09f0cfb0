/* The framework rule book (model/fwrules.h): each rule on the settings of
 * its report, and the near miss that must stay quiet. */
#include <string.h>

#include "check/check.h"
#include "model/engcfg.h"
#include "model/fwrules.h"
#include "t.h"

static struct envr_var vars[8];
static struct envr_view view;

static void env(const char *a, const char *av, const char *b, const char *bv)
{
	memset(vars, 0, sizeof vars);
	view.v = vars, view.n = 0;
	if (a)
		vars[view.n++] = (struct envr_var){ a, av, ENVR_FROM_SPEC, av == NULL, NULL };
	if (b)
		vars[view.n++] = (struct envr_var){ b, bv, ENVR_FROM_SPEC, bv == NULL, NULL };
}

/* The severity of check for args, or -1 when it does not report. */
static int sev(const char *args, enum fwr_check check, long gpus)
{
	struct fwr_worker w = { args, &view, "prefill", 1, 1, ENVR_FAB_IB, gpus, 1, NULL, NULL, NULL, -1,
				NULL, FWR_HOSTIP_UNKNOWN };
	struct fwr_finding f[FWR_MAX];
	size_t n = fwr_eval(&w, f);

	for (size_t i = 0; i < n; i++)
		if (f[i].check == check) {
			CHECK(f[i].source && *f[i].source);
			return (int)f[i].sev;
		}
	return -1;
}

static void test_vllm(void)
{
	const char *serve = "vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"} --port 8000";

	env(NULL, NULL, NULL, NULL);
	CHECK_INT(sev(serve, FWR_VLLM, 2), ENVR_FAIL);                    /* vllm#27083 */
	CHECK_INT(sev("python3 -m dynamo.vllm --model m", FWR_VLLM, 2), ENVR_OK);
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", "127.0.0.1", NULL, NULL);
	CHECK_INT(sev("python3 -m dynamo.vllm", FWR_VLLM, 2), ENVR_FAIL);
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", NULL, NULL, NULL);             /* status.podIP */
	CHECK_INT(sev(serve, FWR_VLLM, 2), ENVR_OK);
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", NULL, "VLLM_NIXL_SIDE_CHANNEL_PORT", "8000");
	CHECK_INT(sev(serve, FWR_VLLM, 2), ENVR_FAIL);
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", NULL, "VLLM_NIXL_SIDE_CHANNEL_PORT", "5600");
	CHECK_INT(sev(serve, FWR_VLLM, 2), ENVR_OK);
	CHECK_INT(sev("sglang.launch_server", FWR_VLLM, 2), -1);
	/* args without a command: the image's entrypoint runs them, which
	 * may be Dynamo's launcher; the unset host is not judged then */
	env(NULL, NULL, NULL, NULL);
	CHECK_INT(sev("--model m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}",
		      FWR_VLLM, 2), -1);
	CHECK_INT(sev("vllm\nserve\n--kv-transfer-config\n{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}",
		      FWR_VLLM, 2), ENVR_FAIL);                         /* a recipe's argv */
}

/* checks.md J5: the side-channel host on the host network (ray-project/ray
 * PR #60817: the auto-detected address is the node's external one); the
 * explicit loopback value Dynamo keeps (args.py ensure_side_channel_host). */
static void test_side_channel_hostnet(void)
{
	const char *dyn = "python3 -m dynamo.vllm --model m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}";
	struct fwr_worker w = { dyn, &view, "decode", 1, 1, ENVR_FAB_IB, 8, 1, NULL, NULL, NULL, 1,
				NULL, FWR_HOSTIP_UNKNOWN };
	struct fwr_finding f[FWR_MAX];
	size_t n;

	env(NULL, NULL, NULL, NULL);
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].check == FWR_VLLM);
	CHECK_INT(f[0].sev, ENVR_WARN);
	CHECK(strstr(f[0].detail, "hostNetwork") != NULL);
	CHECK(f[0].remedy && strstr(f[0].remedy, "status.podIP"));
	/* near misses: the pod IP set (status.podIP), no host network,
	 * unknown (a recipe), KV staying in the pod */
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", "10.0.3.7", NULL, NULL);
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_OK);
	env(NULL, NULL, NULL, NULL);
	w.host_network = 0;
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_OK);
	w.host_network = -1;
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_OK);
	w.host_network = 1, w.kv_cross = 0;
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_OK);
	/* loopback named outright fails on the host network too, ::1 and
	 * the whole of 127.0.0.0/8 */
	w.kv_cross = 1;
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", "::1", NULL, NULL);
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_FAIL);
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", "127.1.2.3", NULL, NULL);
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_FAIL);
}

/* The severity of w's first finding, -1 when none. */
static int first_sev(const struct fwr_worker *w)
{
	struct fwr_finding f[FWR_MAX];

	return fwr_eval(w, f) ? (int)f[0].sev : -1;
}

/* checks.md J5f: Dynamo's vLLM worker with VLLM_NIXL_SIDE_CHANNEL_HOST
 * unset takes its side-channel host from the pod's hostname.  Before
 * ai-dynamo/dynamo PR #6539 (PRs #1878/#2108) an unresolvable hostname
 * became 127.0.0.1 silently, and a loopback answer was used as is; from
 * #6539 non-routable answers are skipped for the default route's address
 * (RuntimeError when there is none). */
static void test_side_channel_hostname(void)
{
	const char *dyn = "python3 -m dynamo.vllm --model m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}";
	struct fwr_worker w = { dyn, &view, "decode", 1, 1, ENVR_FAB_IB, 8, 1, NULL, NULL, NULL, 0,
				"unresolved", FWR_HOSTIP_FALLBACK };
	struct fwr_finding f[FWR_MAX];
	size_t n;

	env(NULL, NULL, NULL, NULL);
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].check == FWR_VLLM && f[0].sev == ENVR_FAIL);
	CHECK(n >= 1 && strstr(f[0].detail, "does not resolve") && strstr(f[0].detail, "127.0.0.1"));
	CHECK(n >= 1 && f[0].source && strstr(f[0].source, "#6539"));
	w.host_self = "127.0.1.1";                     /* Debian's /etc/hosts line */
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_FAIL && strstr(f[0].detail, "127.0.1.1"));
	w.host_self = "169.254.3.1";                   /* link-local */
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_FAIL);
	/* the code unknown: either release's behaviour, a warning */
	w.host_self = "unresolved", w.host_detect = FWR_HOSTIP_UNKNOWN;
	n = fwr_eval(&w, f);
	CHECK(n >= 1 && f[0].sev == ENVR_WARN && strstr(f[0].detail, "RuntimeError"));
	/* near misses: PR #6539's code (the pod IP by the default route), the
	 * hostname resolving to the pod's IP, the host set, KV in the pod,
	 * not known (a recipe) */
	w.host_detect = FWR_HOSTIP_DETECT;
	CHECK_INT(first_sev(&w), ENVR_OK);
	w.host_detect = FWR_HOSTIP_FALLBACK, w.host_self = "10.0.1.17";
	CHECK_INT(first_sev(&w), ENVR_OK);
	w.host_self = "unresolved";
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", "10.0.1.17", NULL, NULL);
	CHECK_INT(first_sev(&w), ENVR_OK);
	env(NULL, NULL, NULL, NULL);
	w.kv_cross = 0;
	CHECK_INT(first_sev(&w), ENVR_OK);
	w.kv_cross = 1, w.host_self = NULL;
	CHECK_INT(first_sev(&w), ENVR_OK);
}

static void test_trtllm(void)
{
	env("NIXL_BACKEND", "LIBFABRIC", "TRTLLM_NIXL_KVCACHE_BACKEND", "LIBFABRIC");
	CHECK_INT(sev("-m dynamo.trtllm", FWR_TRTLLM, 8), ENVR_FAIL);     /* TRT-LLM#10024 */
	env("TRTLLM_NIXL_KVCACHE_BACKEND", "LIBFABRIC", NULL, NULL);
	CHECK_INT(sev("-m dynamo.trtllm", FWR_TRTLLM, 8), ENVR_OK);
	env(NULL, NULL, NULL, NULL);
	CHECK_INT(sev("dynamo.trtllm\nmax_input_len: 32768\ncache_transceiver_config:\n  max_tokens_in_buffer: 8192\n",
		      FWR_TRTLLM, 8), ENVR_FAIL);                           /* dynamo PR #5523 */
	CHECK_INT(sev("dynamo.trtllm\nmax_input_len: 8192\ncache_transceiver_config:\n  max_tokens_in_buffer: 16384\n",
		      FWR_TRTLLM, 8), ENVR_OK);
	CHECK_INT(sev("dynamo.trtllm\nmax_seq_len: 121000\n  max_tokens_in_buffer: 120000\n", FWR_TRTLLM, 8), ENVR_OK);
	CHECK_INT(sev("dynamo.trtllm {\"cache_transceiver_config\":{\"max_tokens_in_buffer\": 1000}}", FWR_TRTLLM, 8),
		  ENVR_FAIL);                                               /* not a multiple of 32 */
}

static void test_sglang_mooncake_tp(void)
{
	static const struct engcfg_model mla = { 1, 0, 0, 1, "deepseek_v3", NULL };
	static const struct engcfg_model swa = { 1, 1, 0, 0, "gpt_oss", NULL };
	struct fwr_worker p = { "sglang.launch_server --tp-size 3 --disaggregation-mode prefill", &view,
				"prefill", 1, 1, ENVR_FAB_IB, 4, 1, NULL, NULL, NULL, -1, NULL, FWR_HOSTIP_UNKNOWN };
	struct fwr_worker d = p;
	struct fwr_finding f;

	env(NULL, NULL, NULL, NULL);
	d.args = "sglang.launch_server --tp-size 2 --disaggregation-mode decode";
	CHECK_INT(fwr_pairs(&p, &d, NULL, &f, 1), 1);
	CHECK_INT(f.sev, ENVR_FAIL);                                      /* llm-d#2433 */
	p.args = "sglang.launch_server --tp-size 4 --disaggregation-mode prefill";
	CHECK_INT(fwr_pairs(&p, &d, &mla, &f, 1), 1);
	CHECK_INT(f.sev, ENVR_OK);                                        /* MLA: heads need no split */
	CHECK_INT(f.unknown, 0);
	CHECK_INT(fwr_pairs(&p, &d, NULL, &f, 1), 1);
	CHECK_INT(f.unknown, 1);                                          /* model unknown: never a pass */
	CHECK_HAS(f.detail, "model kind is unknown");
	/* sgl-project/sglang#38552, llm-d/llm-d#2433: gpt-oss, TP 1 against 4 */
	p.args = "sglang.launch_server --tp-size 1 --disaggregation-mode prefill";
	d.args = "sglang.launch_server --tp-size 4 --disaggregation-mode decode";
	CHECK_INT(fwr_pairs(&p, &d, &swa, &f, 1), 1);
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK_HAS(f.detail, "gpt_oss");
	d.args = "sglang.launch_server --tp-size 1 --disaggregation-mode decode";
	CHECK_INT(fwr_pairs(&p, &d, &swa, &f, 1), 1);
	CHECK_INT(f.sev, ENVR_OK);                                        /* equal TP on a SWA model */
	CHECK_INT(fwr_pairs(&p, &d, NULL, &f, 1), 1);
	CHECK_INT(f.unknown, 0);                                          /* equal TP needs no model */
	CHECK_INT(fwr_attn_tp("sglang --tp 8 --dp 8 --enable-dp-attention"), 1);
	CHECK_INT(fwr_tp("x --tp-size=16"), 16);
	CHECK_INT(fwr_tp("x --tp-sizes 16"), -1);
	CHECK_INT(sev("sglang.launch_server --disaggregation-mode decode --disaggregation-transfer-backend fake",
		      FWR_SGLANG, 1), ENVR_FAIL);
	env("MOONCAKE_PROTOCOL", "tcp", NULL, NULL);
	CHECK_INT(sev("sglang", FWR_MOONCAKE, 1), ENVR_FAIL);
	env("MOONCAKE_PROTOCOL", "rdma", NULL, NULL);
	CHECK_INT(sev("sglang", FWR_MOONCAKE, 1), ENVR_OK);
	CHECK_INT(sev("vllm serve --tensor-parallel-size 8", FWR_TP_NODES, 4), ENVR_FAIL);
	CHECK_INT(sev("sglang --tp-size 16 --nnodes 2", FWR_TP_NODES, 8), ENVR_OK);
	CHECK_INT(sev("vllm serve --tensor-parallel-size 8", FWR_TP_NODES, -1), -1);
}

/* The severity of check for args on a pod with RDMA devices devs. */
static int sev_dev(const char *args, enum fwr_check check, const char *devs)
{
	struct fwr_worker w = { args, &view, "prefill", 1, 1, ENVR_FAB_IB, 8, 1, devs, NULL, NULL, -1, NULL, FWR_HOSTIP_UNKNOWN };
	struct fwr_finding f[FWR_MAX];
	size_t n = fwr_eval(&w, f);

	for (size_t i = 0; i < n; i++)
		if (f[i].check == check) {
			CHECK(f[i].source && *f[i].source);
			CHECK(f[i].sev == ENVR_OK || (f[i].remedy && *f[i].remedy));
			return (int)f[i].sev;
		}
	return -1;
}

/* Issue 26 item 3: kv_role, kv_buffer_device, the SGLang/Mooncake device
 * lists against the pod's devices, TensorRT-LLM's backend value. */
static void test_item3(void)
{
	const char *devs = "mlx5_0,mlx5_1,mlx5_2";

	env("VLLM_NIXL_SIDE_CHANNEL_HOST", NULL, NULL, NULL);
	CHECK_INT(sev_dev("vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\"}", FWR_VLLM, devs),
		  ENVR_FAIL);                                               /* kv_role required */
	CHECK_INT(sev_dev("vllm serve m --kv-transfer-config {\"kv_role\":\"kv_both\",\"kv_connector\":\"NixlConnector\"}",
			  FWR_VLLM, devs), ENVR_OK);                       /* order does not matter */
	CHECK_INT(sev_dev("vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_sender\"}",
			  FWR_VLLM, devs), ENVR_FAIL);
	CHECK_INT(sev_dev("vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\","
			  "\"kv_buffer_device\":\"xpu\"}", FWR_VLLM, devs), ENVR_FAIL);
	CHECK_INT(sev_dev("vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\","
			  "\"kv_buffer_device\":\"cpu\"}", FWR_VLLM, devs), ENVR_WARN);
	CHECK_INT(sev_dev("vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\","
			  "\"kv_buffer_device\":\"cuda\"}", FWR_VLLM, devs), ENVR_OK);
	{
		/* Dynamo's qwen3-vl hetero recipe: an Intel XPU encoder, no
		 * nvidia.com/gpu, with kv_buffer_device xpu is right */
		struct fwr_worker x = { "python3 -m dynamo.vllm --kv-transfer-config {\"kv_connector\":\"NixlConnector\","
					"\"kv_role\":\"kv_both\",\"kv_buffer_device\":\"xpu\"}", &view, "prefill", 1, 1,
					ENVR_FAB_IB, -1, 1, NULL, NULL, NULL, -1, NULL, FWR_HOSTIP_UNKNOWN };
		struct fwr_finding f[FWR_MAX];
		size_t n = fwr_eval(&x, f);

		for (size_t i = 0; i < n; i++)
			CHECK_INT(f[i].sev, ENVR_OK);
	}
	/* the worst rule wins: an unset host under vllm serve beats the cpu buffer's warning */
	env(NULL, NULL, NULL, NULL);
	CHECK_INT(sev_dev("vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\","
			  "\"kv_buffer_device\":\"cpu\"}", FWR_VLLM, devs), ENVR_FAIL);
	env("VLLM_NIXL_SIDE_CHANNEL_HOST", NULL, NULL, NULL);
	/* Dynamo's worker fills kv_role itself */
	CHECK_INT(sev_dev("python3 -m dynamo.vllm --kv-transfer-config {\"kv_connector\":\"NixlConnector\"}", FWR_VLLM, devs),
		  ENVR_OK);

	env(NULL, NULL, NULL, NULL);
	CHECK_INT(sev_dev("python3 -m dynamo.sglang --disaggregation-mode prefill --disaggregation-ib-device mlx5_0,mlx5_7",
			  FWR_SGLANG, devs), ENVR_FAIL);
	CHECK_INT(sev_dev("python3 -m dynamo.sglang --disaggregation-mode prefill --disaggregation-ib-device mlx5_1,mlx5_2",
			  FWR_SGLANG, devs), ENVR_OK);
	CHECK_INT(sev_dev("python3 -m dynamo.sglang --disaggregation-mode prefill --disaggregation-ib-device mlx5_1",
			  FWR_SGLANG, "mlx5_10,mlx5_11"), ENVR_FAIL);           /* a prefix is no match */
	CHECK_INT(sev_dev("python3 -m dynamo.sglang --disaggregation-mode prefill --disaggregation-ib-device mlx5_7",
			  FWR_SGLANG, NULL), ENVR_OK);                     /* devices unknown */
	CHECK_INT(sev_dev("python3 -m dynamo.sglang --disaggregation-mode prefill --disaggregation-transfer-backend nixl "
			  "--disaggregation-ib-device mlx5_7", FWR_SGLANG, devs), ENVR_OK);  /* Mooncake's flag only */

	env("MOONCAKE_DEVICE", "mlx5_9", NULL, NULL);
	CHECK_INT(sev_dev("sglang", FWR_MOONCAKE, devs), ENVR_FAIL);
	env("MOONCAKE_DEVICE", "mlx5_0", "MOONCAKE_PROTOCOL", "rdma");
	CHECK_INT(sev_dev("sglang", FWR_MOONCAKE, devs), ENVR_OK);
	env("MOONCAKE_DEVICE", "auto", NULL, NULL);
	CHECK_INT(sev_dev("sglang", FWR_MOONCAKE, devs), ENVR_OK);

	env(NULL, NULL, NULL, NULL);
	CHECK_INT(sev_dev("dynamo.trtllm\nbackend: pytorch\ncache_transceiver_config:\n  backend: NIXL\n", FWR_TRTLLM, devs),
		  ENVR_OK);                                                 /* the LLM's own backend is not it */
	CHECK_INT(sev_dev("dynamo.trtllm {\"cache_transceiver_config\":{\"backend\":\"LIBFABRIC\"}}", FWR_TRTLLM, devs),
		  ENVR_FAIL);
	CHECK_INT(sev_dev("dynamo.trtllm {\"cache_transceiver_config\":{\"backend\":\"default\"}}", FWR_TRTLLM, devs),
		  ENVR_OK);
}

/* The finding of fw-trtllm for a worker with engine file e (NULL none). */
static const struct fwr_finding *eng(const char *args, const struct fwr_engine *e, struct fwr_finding *f)
{
	struct fwr_worker w = { args, &view, "prefill", 1, 1, ENVR_FAB_IB, 8, 1, NULL, e, NULL, -1, NULL, FWR_HOSTIP_UNKNOWN };
	size_t n = fwr_eval(&w, f);

	for (size_t i = 0; i < n; i++)
		if (f[i].check == FWR_TRTLLM)
			return &f[i];
	return NULL;
}

/* J9 from the file --extra-engine-args names (ai-dynamo/dynamo PR #5523). */
static void test_trtllm_engine(void)
{
	const char *a = "python3 -m dynamo.trtllm --extra-engine-args /engine_configs/prefill.yaml";
	struct fwr_engine short_ = { 1, "/engine_configs/prefill.yaml", NULL, 32768, 8192, 8, "DEFAULT" };
	struct fwr_engine fits = { 1, "/engine_configs/prefill.yaml", NULL, 32768, 32768, 8, "DEFAULT" };
	struct fwr_engine gone = { 0, "/engine_configs/prefill.yaml", "not found", -1, -1, -1, NULL };
	struct fwr_engine odd = { 1, "/e.yaml", NULL, -1, -1, -1, "TCP" };
	struct fwr_finding f[FWR_MAX];
	const struct fwr_finding *x;

	env(NULL, NULL, NULL, NULL);
	x = eng(a, &short_, f);
	CHECK(x && x->sev == ENVR_FAIL && !x->unknown);
	CHECK(x && strstr(x->detail, "8192") && strstr(x->detail, "32768"));
	x = eng(a, &fits, f);
	CHECK(x && x->sev == ENVR_OK && !x->unknown);
	x = eng(a, &gone, f);                      /* never ok: skipped, naming why */
	CHECK(x && x->unknown && strstr(x->detail, "/engine_configs/prefill.yaml") && strstr(x->detail, "not found"));
	CHECK(x && x->remedy);
	x = eng(a, &odd, f);
	CHECK(x && x->sev == ENVR_FAIL);           /* backend TCP from the file */
	/* JSON in args wins over the file (the recipe's own text) */
	x = eng("dynamo.trtllm {\"cache_transceiver_config\":{\"max_tokens_in_buffer\":65536},\"max_input_len\":32768}", &short_, f);
	CHECK(x && x->sev == ENVR_OK);
	/* an unreadable file does not hide a fault the env shows */
	env("NIXL_BACKEND", "UCX", "TRTLLM_NIXL_KVCACHE_BACKEND", "UCX");
	x = eng(a, &gone, f);
	CHECK(x && x->sev == ENVR_FAIL && !x->unknown);
	env(NULL, NULL, NULL, NULL);
	/* TensorRT-LLM's TP from its file feeds J7 */
	{
		struct fwr_engine tp16 = { 1, "/e.yaml", NULL, -1, -1, 16, NULL };
		struct fwr_worker w = { a, &view, "prefill", 1, 1, ENVR_FAB_IB, 8, 1, NULL, &tp16, NULL, -1, NULL, FWR_HOSTIP_UNKNOWN };
		size_t n = fwr_eval(&w, f);
		int seen = 0;

		for (size_t i = 0; i < n; i++)
			if (f[i].check == FWR_TP_NODES) {
				seen = 1;
				CHECK_INT(f[i].sev, ENVR_FAIL);
			}
		CHECK(seen);
		w.nodes = 2;
		n = fwr_eval(&w, f);
		for (size_t i = 0; i < n; i++)
			if (f[i].check == FWR_TP_NODES)
				CHECK_INT(f[i].sev, ENVR_OK);
	}
}

/* J7: the nodes a worker spans, from its args or the pod (w.nodes). */
static void test_tp_nodes(void)
{
	struct fwr_worker w = { NULL, &view, "prefill", 1, 1, ENVR_FAB_IB, 8, 1, NULL, NULL, NULL, -1, NULL, FWR_HOSTIP_UNKNOWN };
	struct fwr_finding f[FWR_MAX];
	const char *const cases[][2] = {
		/* Dynamo's DeepSeek-R1 SGLang disagg-32gpu under Grove (backend_sglang.go) */
		{ "sh -c exec python3 -m dynamo.sglang --tp 16 --nnodes 2 --node-rank $((GROVE_PCLQ_POD_INDEX + 1))", "ok" },
		{ "python3 -m dynamo.sglang --tp 16", "fail" },
		{ "python3 -m dynamo.sglang --tp 24 --nnodes 2", "fail" },
		/* TensorRT-LLM's leader (backend_trtllm.go): one host per node */
		{ "mpirun --oversubscribe -n 16 -H ${LWS_LEADER_ADDRESS},${LWS_WORKER_1_ADDRESS} --mca pml ob1 "
		  "bash -c 'trtllm-llmapi-launch python3 -m dynamo.trtllm --tensor-parallel-size 16'", "ok" },
		/* a Ray head (backend_vllm.go) spans nodes it does not count */
		{ "ray start --head --port=6379 && python3 -m dynamo.vllm --tensor-parallel-size 16", "skip" },
		{ "python3 -m dynamo.vllm --tensor-parallel-size 8", "ok" },
	};

	env(NULL, NULL, NULL, NULL);
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		size_t n;
		const struct fwr_finding *x = NULL;

		w.args = cases[c][0];
		w.nodes = 1;
		n = fwr_eval(&w, f);
		for (size_t i = 0; i < n; i++)
			if (f[i].check == FWR_TP_NODES)
				x = &f[i];
		CHECK(x != NULL);
		if (!x)
			continue;
		if (!strcmp(cases[c][1], "skip"))
			CHECK(x->unknown && x->remedy);
		else
			CHECK_INT(x->sev, !strcmp(cases[c][1], "ok") ? ENVR_OK : ENVR_FAIL);
	}
	/* the pod's LeaderWorkerSet size (w.nodes) settles the Ray head */
	w.args = "ray start --head --port=6379 && python3 -m dynamo.vllm --tensor-parallel-size 16";
	w.nodes = 2;
	{
		int seen = 0;

		for (size_t i = 0, n = fwr_eval(&w, f); i < n; i++)
			if (f[i].check == FWR_TP_NODES) {
				seen = 1;
				CHECK_INT(f[i].sev, ENVR_OK);
				CHECK(!f[i].unknown && strstr(f[i].detail, "2 nodes"));
			}
		CHECK(seen);
	}
}

/* The model leaf cannot name a check by its CK_* id, so fwrules.h spells
 * the six names: each must be a row of table.def, or check/framework.c
 * finds no row for the book's findings and drops them. */
/* The book's ids (model/fwfind.h) and the table's fw-* rows are one
 * set: check/framework.c maps each id to its row with a switch that does
 * not compile without one; a row the book never names is caught here. */
static void test_names_are_rows(void)
{
	const char *const names[] = { "fw-vllm", "fw-sglang", "fw-trtllm", "fw-mooncake", "fw-tp-nodes",
				      "fw-pd-parallel", "fw-pd-connector", "fw-pd-blocks" };

	CHECK_INT(sizeof names / sizeof names[0], FWR__COUNT);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!check_def(names[i]))
			fprintf(stderr, "no row of table.def named %s\n", names[i]);
		CHECK(check_def(names[i]) != NULL);
	}
}

int main(void)
{
	test_names_are_rows();
	test_vllm();
	test_side_channel_hostnet();
	test_side_channel_hostname();
	test_trtllm();
	test_sglang_mooncake_tp();
	test_item3();
	test_trtllm_engine();
	test_tp_nodes();
	printf("test_fwrules: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
