/* src/model/role.c: a worker's role the way Dynamo decides it (issue 38
 * point 1): type and sub-type, else --disaggregation-mode and the other
 * role flags of the worker's own command, shell comments not read. */
#include <stdlib.h>
#include <string.h>

#include "kube/api/pods.h"
#include "model/role.h"
#include "t.h"

static int role_is(const char *args, const char *want)
{
	const char *r = model_role_from_args(args);

	return want ? r && !strcmp(r, want) : r == NULL;
}

static void test_from_args(void)
{
	CHECK(role_is("python3 -m dynamo.sglang --disaggregation-mode decode --tp 8", "decode"));
	CHECK(role_is("--disaggregation-mode=prefill", "prefill"));
	CHECK(role_is("python3 -m dynamo.vllm --model m \"--disaggregation-mode\" \"prefill\"", "prefill"));
	/* a sh -c script with a line continuation */
	CHECK(role_is("python3 -m dynamo.trtllm \\\n  --extra-engine-args x \\\n  --disaggregation-mode prefill\n",
		      "prefill"));
	/* aggregated and combined modes are no KV role */
	CHECK(role_is("--disaggregation-mode agg", NULL));
	CHECK(role_is("--disaggregation-mode pd", NULL));
	CHECK(role_is("--disaggregation-mode null", NULL));
	/* a variable: not known from the recipe */
	CHECK(role_is("--disaggregation-mode $MODE", NULL));
	/* one script starting both: no single role */
	CHECK(role_is("a --disaggregation-mode prefill & b --disaggregation-mode decode &", NULL));
	/* a commented-out flag is no flag */
	CHECK(role_is("run --disaggregation-mode decode\n# run --disaggregation-mode prefill\n", "decode"));
	CHECK(role_is("run # --disaggregation-mode prefill\n", NULL));
	/* ...but a # inside quotes or a word is no comment */
	CHECK(role_is("run --x 'a #b' --disaggregation-mode decode", "decode"));
	CHECK(role_is("run --x=a#b --disaggregation-mode decode", "decode"));
	/* the flag must stand alone */
	CHECK(role_is("--disaggregation-modes decode", NULL));
	/* deprecated aliases and vLLM's kv_role */
	CHECK(role_is("python3 -m dynamo.vllm --is-prefill-worker", "prefill"));
	CHECK(role_is("--kv-transfer-config '{\"kv_connector\":\"X\",\"kv_role\":\"kv_consumer\"}'", "decode"));
	CHECK(role_is("--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'", NULL));
	CHECK(role_is(NULL, NULL));
	CHECK(role_is("", NULL));
}

static void test_role(void)
{
	CHECK_STR(model_role("prefill", NULL, "--disaggregation-mode decode"), "prefill");
	CHECK_STR(model_role("worker", "decode", NULL), "decode");
	CHECK_STR(model_role("worker", NULL, "python3 -m dynamo.sglang --disaggregation-mode decode"), "decode");
	CHECK_STR(model_role("worker", "", "python3 -m dynamo.sglang"), "worker");
	CHECK_STR(model_role("main", NULL, "python3 -m dynamo.trtllm --disaggregation-mode prefill"), "prefill");
	CHECK_STR(model_role("main", NULL, "python3 -m dynamo.trtllm"), "worker");
	CHECK_STR(model_role("main", NULL, "python3 -m dynamo.frontend"), "main");
	CHECK_STR(model_role("frontend", NULL, "--disaggregation-mode decode"), "frontend");
	CHECK_STR(model_role(NULL, NULL, "--disaggregation-mode decode"), "decode");
	CHECK_STR(model_role("", NULL, NULL), "-");
	CHECK(model_args_engine("exec python3 -m dynamo.vllm --model m"));
	CHECK(!model_args_engine("python3 -m dynamo.frontend"));
	CHECK(!model_args_engine("# python3 -m dynamo.vllm\npython3 -m dynamo.frontend"));
}

static void test_uncomment(void)
{
	char *t = model_shell_uncomment("a # b\nc '#d' e#f \"#g\" # h");

	CHECK_STR(t, "a    \nc '#d' e#f \"#g\"    ");
	free(t);
}

/* check's side (kube/api/pods.c): the same decision from the pod's labels
 * and its container's command and args. */
static void test_pods(void)
{
	CHECK_STR(pods_role_cmd("worker", NULL, "python3 -m dynamo.sglang --disaggregation-mode prefill"),
		  "prefill");
	CHECK_STR(pods_role_cmd("worker", "decode", "--disaggregation-mode prefill"), "decode");
	CHECK_STR(pods_role_cmd("worker", NULL, "python3 -m dynamo.sglang"), "worker");
	CHECK_STR(pods_role_cmd("main", NULL, "/bin/sh -c python3 -m dynamo.trtllm \\\n --disaggregation-mode decode"),
		  "decode");
	CHECK(pods_role_cmd("main", NULL, "/bin/sh -c python3 -m dynamo.frontend --http-port 8000") == NULL);
	CHECK_STR(pods_role_cmd("main", NULL, NULL), "");
	CHECK_STR(pods_role_cmd("main", NULL, ""), "");   /* image entrypoint: kept, unclassified */
	CHECK(pods_role_cmd("frontend", NULL, "--disaggregation-mode decode") == NULL);
	CHECK_STR(pods_role_cmd(NULL, NULL, "vllm serve m --disaggregation-mode decode"), "decode");
	CHECK_STR(pods_role_cmd(NULL, NULL, NULL), "");
	CHECK_STR(pods_role("worker", NULL), "worker");
}

/* No TP flag on an engine worker: the engines' default, 1. */
static void test_tp_default(void)
{
	CHECK(model_tp_default("python3 -m dynamo.vllm --model m", -1) == 1);
	CHECK(model_tp_default("python3 -m dynamo.sglang --tp 8", 8) == 8);
	CHECK(model_tp_default("python3 -m dynamo.vllm --tensor-parallel-size \"${TP}\"", -1) == -1);
	CHECK(model_tp_default("python3 -m dynamo.sglang --tp $TP", -1) == -1);
	CHECK(model_tp_default("python3 serve.py", -1) == -1);
	CHECK(model_tp_default(NULL, -1) == -1);
}

int main(void)
{
	test_tp_default();
	test_pods();
	test_from_args();
	test_role();
	test_uncomment();
	return T_DONE("test_role");
}
