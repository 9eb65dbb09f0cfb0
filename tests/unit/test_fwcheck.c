/* The framework rule book on a running worker (check/framework.c,
 * checks.md J5-J10): the fw-* results from the pod spec's args and the
 * process env, skipped when the env could not be read, the pair rule
 * from the context's prefill args, the device lists against the pod's
 * RDMA devices. */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "model/podspec.h"
#include "probe/facts.h"
#include "t.h"

#define SERVE "vllm serve m --kv-transfer-config {\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}"

/* ai-dynamo/dynamo#10027's two connector configs */
#define PD_CONN "--kv-transfer-config '{\"kv_connector\":\"PdConnector\",\"kv_role\":\"kv_both\"," \
	"\"kv_connector_extra_config\":{\"connectors\":[{\"kv_connector\":\"DynamoConnector\"}," \
	"{\"kv_connector\":\"NixlConnector\",\"kv_connector_extra_config\":{\"enable_cross_layers_blocks\":true}}]}}'"
#define NIXL_CROSS "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"," \
	"\"kv_connector_extra_config\":{\"enable_cross_layers_blocks\":true}}'"
#define KV_EVENTS "--kv-events-config '{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:5557\"}'"

static struct probe_facts *facts(const char *env)
{
	struct probe_facts *f = probe_facts_new();
	struct probe_rdma_dev *d;

	f->sysfs_ib.src.status = PROBE_OK;
	d = probe_rdma_dev_add(&f->sysfs_ib);
	snprintf(d->name, sizeof d->name, "mlx5_0");
	d->nports = 1;
	d->port[0].state = PROBE_PORT_ACTIVE;
	d->port[0].link_layer = PROBE_LL_IB;
	if (env) {
		f->env.src.status = PROBE_OK;
		probe_parse_env(env, strlen(env), &f->env);
	}
	return f;
}

/* The status of check name on facts f (freed here) with context c, the
 * pod asking for 8 GPUs; -1 when it is not reported.  A result that is
 * not ok must carry a remedy, and its detail want when given. */
static int judge(struct probe_facts *f, const struct check_context *c, const char *name, const char *want)
{
	struct pod_spec_facts s = { .gpus = 8, .rdma_devices = 1, .efa_devices = -1, .ipc_lock = 1,
				    .shm_bytes = -1 };
	struct check_results r;
	const struct check_result *x;
	int st;

	check_results_init(&r);
	check_pod(f, &s, c, &r);
	x = check_results_find(&r, name);
	st = x ? (int)x->status : -1;
	if (x && x->status != CHECK_OK)
		CHECK(x->remedy && *x->remedy);
	if (x && want)
		CHECK_HAS(x->detail, want);
	check_results_release(&r);
	probe_facts_free(f);
	return st;
}

/* The status of check name on a decode pod with args and env; -1 when it
 * is not reported. */
static int status(const char *args, const char *env, const char *peer, const char *name)
{
	struct check_context c = { .role = "decode", .kv_cross_pod = 1, .kv_cross_node = 1,
				   .kv_known = 1, .peer_args = peer, .args = args };

	return judge(facts(env), &c, name, NULL);
}

/* fw-pd-parallel on an SGLang decode with TP flag dtp against a prefill
 * with ptp, serving a model whose config.json the probe read. */
static int status_model(const char *dtp, const char *ptp, const char *type, int mla, int swa)
{
	struct probe_facts *f = facts("");
	char da[160], pa[160];
	struct check_context c = { .role = "decode", .kv_cross_pod = 1, .kv_cross_node = 1,
				   .kv_known = 1, .peer_args = pa, .args = da };

	snprintf(da, sizeof da, "python3 -m dynamo.sglang %s --disaggregation-mode decode", dtp);
	snprintf(pa, sizeof pa, "python3 -m dynamo.sglang %s --disaggregation-mode prefill", ptp);
	f->model_config.src.status = PROBE_OK;
	f->model_config.state = PROBE_MODEL_OK;
	snprintf(f->model_config.model_type, sizeof f->model_config.model_type, "%s", type);
	f->model_config.mla = mla;
	f->model_config.sliding_window = swa;
	f->model_config.hybrid_linear = 0;
	return judge(f, &c, "fw-pd-parallel", NULL);
}

/* fw-trtllm from the engine file section (probe.sh trtllm_engine, parsed
 * by probe/engine.c) with rc, on a TensorRT-LLM worker. */
static int engine_in(const char *args, const char *secret_env, const char *plain_env,
		     const char *section, int rc, const char *want_detail)
{
	struct probe_facts *f = facts("");
	struct check_context c = { .role = "prefill", .kv_cross_pod = 1, .kv_known = 1,
				   .args = args, .secret_env = secret_env, .plain_env = plain_env };

	probe_parse_trtllm_engine(section, strlen(section), &f->trtllm_engine);
	f->trtllm_engine.src.status = rc == 0 ? PROBE_OK : rc == 127 ? PROBE_ABSENT : PROBE_FAILED;
	f->trtllm_engine.src.rc = rc;
	return judge(f, &c, "fw-trtllm", want_detail);
}

static int engine(const char *section, int rc, const char *want_detail)
{
	return engine_in("python3 -m dynamo.trtllm --extra-engine-args /engine_configs/prefill.yaml",
			 "", "", section, rc, want_detail);
}

/* issue 37: the path printed is the spec's word, expanded only from plain
 * values; a word a Secret made is named as the spec wrote it and its file
 * not used, whatever the probe read. */
static void test_engine_secret(void)
{
	const char *ok = "state=ok\ncache_transceiver_config.max_tokens_in_buffer=8192\nmax_input_len=32768\n";
	const char *secret = "*=hf-token-secret\nHF_TOKEN=hf-token-secret\n!ENGINE_ARGS\n!POD_NAME\n";
	const char *plain = "ENGINE_ARGS=/opt/dynamo/configs/config-prefill.yaml\n";
	static const struct {
		const char *args, *probe_path;
	} hostile[] = {
		{ "trtllm-serve --extra-engine-args /${HF_TOKEN}", "path=/${HF_TOKEN}\n" },
		{ "trtllm-serve --extra-engine-args \"${HF_TOKEN}.yaml\"", "path=${HF_TOKEN}.yaml\n" },
		{ "trtllm-serve --extra-engine-args $(HF_TOKEN)", "path=/S3NT1NEL/x==\n" },
		{ "trtllm-serve --extra-engine-args /cfg/$(HF_TOKEN).yaml", "path_hidden=1\n" },
		{ "trtllm-serve --extra-engine-args $(POD_NAME)", "path=/S3NT1NEL\n" },
		{ "trtllm-serve --extra-engine-args ${MISC}", "path=${MISC}\n" },
	};
	char b[512];

	for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
		snprintf(b, sizeof b, "flag=--extra-engine-args\n%s%s", hostile[i].probe_path, ok);
		CHECK_INT(engine_in(hostile[i].args, secret, plain, b, 0, "unresolved"), CHECK_SKIPPED);
		CHECK_INT(engine_in(hostile[i].args, secret, plain, b, 0, "not judged"), CHECK_SKIPPED);
	}
	CHECK_INT(engine_in(hostile[0].args, secret, plain, "flag=--extra-engine-args\npath=/${HF_TOKEN}\nstate=ok\n",
			    0, "HF_TOKEN is from Secret hf-token-secret"), CHECK_SKIPPED);
	/* a plain value: the path shown is the spec's, the file judged */
	snprintf(b, sizeof b, "flag=--extra-engine-args\npath=${ENGINE_ARGS}\n%s", ok);
	CHECK_INT(engine_in("sh -c trtllm-serve --extra-engine-args \"${ENGINE_ARGS}\"", secret, plain, b, 0,
			    "32768"), CHECK_FAIL);
	snprintf(b, sizeof b, "flag=--extra-engine-args\npath_hidden=1\nstate=ok\n");
	CHECK_INT(engine_in("trtllm-serve --extra-engine-args $(ENGINE_ARGS)", secret, plain, b, 0,
			    "/opt/dynamo/configs/config-prefill.yaml read"), CHECK_OK);
	/* $$(X) is the kubelet's escape: a literal "$(X)", a command
	 * substitution for a shell, never run: unresolved */
	CHECK_INT(engine_in("trtllm-serve --extra-engine-args $$(ENGINE_ARGS)", secret, plain, b, 0,
			    "unresolved"), CHECK_SKIPPED);
	/* argv's word is none of the spec's: not printed, still judged */
	snprintf(b, sizeof b, "flag=--extra-engine-args\npath=/S3NT1NEL.yaml\n%s", ok);
	CHECK_INT(engine_in("trtllm-serve --extra-engine-args /cfg/e.yaml", secret, plain, b, 0, "32768"),
		  CHECK_FAIL);
	snprintf(b, sizeof b, "flag=--extra-engine-args\npath=/S3NT1NEL.yaml\nstate=absent\n");
	CHECK_INT(engine_in("trtllm-serve --extra-engine-args /cfg/e.yaml", secret, plain, b, 1, "not shown"),
		  CHECK_SKIPPED);
	CHECK_INT(engine_in("python3 -m dynamo.trtllm", secret, plain, b, 1, "not by the pod spec"),
		  CHECK_SKIPPED);
	/* no flag line (a section cut short; fuzz_engine's empty input read
	 * past args with the empty flag name) */
	CHECK_INT(engine_in("trtllm-serve --extra-engine-args /cfg/e.yaml", secret, plain, "state=absent\n", 1,
			    "not shown) not found"), CHECK_SKIPPED);
}

static void test_engine(void)
{
	const char *head = "flag=--extra-engine-args\npath=/engine_configs/prefill.yaml\n";
	char b[512];

	snprintf(b, sizeof b, "%sstate=ok\ncache_transceiver_config.max_tokens_in_buffer=8192\nmax_input_len=32768\n", head);
	CHECK_INT(engine(b, 0, "32768"), CHECK_FAIL);                  /* dynamo PR #5523 */
	snprintf(b, sizeof b, "%sstate=ok\ncache_transceiver_config.max_tokens_in_buffer=32768\nmax_input_len=32768\n", head);
	CHECK_INT(engine(b, 0, NULL), CHECK_OK);
	/* the ok names the file it read (Dynamo's recipes: through ENGINE_ARGS) */
	CHECK_INT(engine_in("python3 -m dynamo.trtllm --extra-engine-args \"${ENGINE_ARGS}\"", "!ENGINE_ARGS\n",
			    "ENGINE_ARGS=/opt/dynamo/configs/config-prefill.yaml\n",
			    "flag=--extra-engine-args\npath=${ENGINE_ARGS}\nstate=ok\n"
			    "cache_transceiver_config.backend=DEFAULT\n", 0, "/opt/dynamo/configs/config-prefill.yaml read"),
		  CHECK_OK);
	CHECK_INT(engine("flag=--extra-engine-args\npath=${ENGINE_ARGS}\nstate=unresolved\n", 1, "unresolved"),
		  CHECK_SKIPPED);
	snprintf(b, sizeof b, "%sstate=absent\n", head);
	CHECK_INT(engine(b, 1, "not found"), CHECK_SKIPPED);          /* never ok */
	snprintf(b, sizeof b, "%sstate=too_large\n", head);
	CHECK_INT(engine(b, 1, "256 KiB"), CHECK_SKIPPED);
	/* the section cut short: still skipped */
	CHECK_INT(engine("flag=--extra-engine-args\npath=/engine_configs/prefill.yaml\n", -1,
			 "/engine_configs/prefill.yaml"), CHECK_SKIPPED);
	/* values the probe would never pass are refused again */
	snprintf(b, sizeof b, "%sstate=ok\ncache_transceiver_config.max_tokens_in_buffer=8x\nmax_input_len=32768\n", head);
	CHECK_INT(engine(b, 0, "no plain number"), CHECK_SKIPPED);
	snprintf(b, sizeof b, "%sstate=ok\nbad=max_input_len\ncache_transceiver_config.max_tokens_in_buffer=8192\n", head);
	CHECK_INT(engine(b, 0, "no plain number"), CHECK_SKIPPED);
	/* no engine file named (section absent): judged from args as before */
	CHECK_INT(engine("", 127, NULL), CHECK_OK);
	{
		struct probe_trtllm_engine e = { 0 };
		const char *t = "state=ok\ncache_transceiver_config.backend=NIXL\ntensor_parallel_size=16\n"
				"cache_transceiver_config.backend=a;rm\nmax_input_len=-5\n";

		CHECK_INT(probe_parse_trtllm_engine(t, strlen(t), &e), 2);
		CHECK_STR(e.backend, "NIXL");
		CHECK_INT(e.tensor_parallel_size, 16);
		CHECK_INT(e.max_input_len, -1);
		CHECK_INT(e.nbad, 2);
		CHECK_INT(e.state, PROBE_ENGINE_OK);
	}
}

/* J7 on a running pod: the group size its pod carries (check_context
 * .nodes, from the LeaderWorkerSet size) counts its nodes. */
static int tp_status(const char *args, int nodes)
{
	struct check_context c = { .role = "prefill", .kv_cross_pod = 1, .kv_known = 1, .args = args,
				   .nodes = nodes };

	return judge(facts(""), &c, "fw-tp-nodes", NULL);
}

static void test_tp_nodes(void)
{
	const char *ray = "ray start --head --port=6379 && python3 -m dynamo.vllm --tensor-parallel-size 16";

	CHECK_INT(tp_status(ray, 2), CHECK_OK);
	CHECK_INT(tp_status(ray, 0), CHECK_SKIPPED);      /* spans nodes, count unknown */
	CHECK_INT(tp_status("python3 -m dynamo.vllm --tensor-parallel-size 16", 0), CHECK_FAIL);
	CHECK_INT(tp_status("python3 -m dynamo.vllm --tensor-parallel-size 16", 2), CHECK_OK);
}

int main(void)
{
	/* vllm-project/vllm#27083: unset under vllm serve, across nodes */
	CHECK_INT(status(SERVE, "UCX_TLS=rc\n", NULL, "fw-vllm"), CHECK_FAIL);
	CHECK_INT(status(SERVE, "VLLM_NIXL_SIDE_CHANNEL_HOST=10.0.2.23\n", NULL, "fw-vllm"), CHECK_OK);
	CHECK_INT(status(SERVE, "VLLM_NIXL_SIDE_CHANNEL_HOST=127.0.0.1\n", NULL, "fw-vllm"), CHECK_FAIL);
	/* env unreadable: skipped, never ok */
	CHECK_INT(status(SERVE, NULL, NULL, "fw-vllm"), CHECK_SKIPPED);
	/* no args in the spec: the book has nothing to judge */
	CHECK_INT(status(NULL, "UCX_TLS=rc\n", NULL, "fw-vllm"), -1);
	CHECK_INT(status("python3 -m dynamo.sglang --disaggregation-mode decode", "", NULL, "fw-vllm"), -1);
	/* NVIDIA/TensorRT-LLM#10024, through the probe's kept variables */
	CHECK_INT(status("python3 -m dynamo.trtllm", "NIXL_BACKEND=UCX\nTRTLLM_NIXL_KVCACHE_BACKEND=UCX\n", NULL,
			 "fw-trtllm"), CHECK_FAIL);
	CHECK_INT(status("python3 -m dynamo.trtllm", "TRTLLM_NIXL_KVCACHE_BACKEND=UCX\n", NULL, "fw-trtllm"), CHECK_OK);
	/* llm-d/llm-d#2433: the pair rule from the prefill's args */
	CHECK_INT(status("python3 -m dynamo.sglang --tp 2 --disaggregation-mode decode", "",
			 "python3 -m dynamo.sglang --tp 3 --disaggregation-mode prefill", "fw-pd-parallel"), CHECK_FAIL);
	/* unequal TP: right for an MLA model, refused for a non-MLA
	 * sliding-window one (sgl-project/sglang#38552), not judged while the
	 * model's config.json is unknown */
	CHECK_INT(status_model("--tp 2", "--tp 4", "deepseek_v3", 1, 0), CHECK_OK);
	CHECK_INT(status_model("--tp 4", "--tp 1", "gpt_oss", 0, 1), CHECK_FAIL);
	CHECK_INT(status_model("--tp 1", "--tp 1", "gpt_oss", 0, 1), CHECK_OK);
	CHECK_INT(status("python3 -m dynamo.sglang --tp 2 --disaggregation-mode decode", "",
			 "python3 -m dynamo.sglang --tp 4 --disaggregation-mode prefill", "fw-pd-parallel"), CHECK_SKIPPED);
	CHECK_INT(status("python3 -m dynamo.sglang --tp 2 --disaggregation-mode decode", "", NULL, "fw-pd-parallel"), -1);
	/* ai-dynamo/dynamo#10027 from the prefill's args; the near miss */
	CHECK_INT(status("python3 -m dynamo.vllm " NIXL_CROSS, "", "python3 -m dynamo.vllm " PD_CONN, "fw-pd-connector"),
		  CHECK_FAIL);
	CHECK_INT(status("python3 -m dynamo.vllm " PD_CONN, "", "python3 -m dynamo.vllm " PD_CONN, "fw-pd-connector"),
		  CHECK_OK);
	/* vllm-project/vllm#25059: the side channel on the kv-events port */
	CHECK_INT(status("python3 -m dynamo.vllm " KV_EVENTS, "VLLM_NIXL_SIDE_CHANNEL_PORT=5557\n", NULL, "fw-vllm"),
		  CHECK_FAIL);
	CHECK_INT(status("python3 -m dynamo.vllm " KV_EVENTS, "VLLM_NIXL_SIDE_CHANNEL_PORT=5600\n", NULL, "fw-vllm"),
		  CHECK_OK);
	/* device lists against the pod's devices (mlx5_0 only) */
	CHECK_INT(status("python3 -m dynamo.sglang --disaggregation-mode decode --disaggregation-ib-device mlx5_3", "",
			 NULL, "fw-sglang"), CHECK_FAIL);
	CHECK_INT(status("python3 -m dynamo.sglang --disaggregation-mode decode --disaggregation-ib-device mlx5_0", "",
			 NULL, "fw-sglang"), CHECK_OK);
	CHECK_INT(status("sglang", "MOONCAKE_DEVICE=mlx5_4\n", NULL, "fw-mooncake"), CHECK_FAIL);
	test_engine();
	test_engine_secret();
	test_tp_nodes();
	return T_DONE("test_fwcheck");
}
