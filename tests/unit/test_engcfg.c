/* One role's engine configuration (model/engcfg.c) and the prefill/decode
 * pair rules over two of them (checks.md J7b, J11, J12), on the flags of
 * the real reports: each a firing case and its healthy near miss. */
#include <stdio.h>
#include <string.h>

#include "model/engcfg.h"
#include "t.h"

/* ai-dynamo/dynamo#10027: the prefill's PdConnector (KVBM's
 * DynamoConnector + NixlConnector), the decode's standalone NixlConnector,
 * both asking for cross-layer blocks. */
#define PD_CONN \
	"--kv-transfer-config '{\"kv_connector\": \"PdConnector\", \"kv_role\": \"kv_both\", " \
	"\"kv_connector_module_path\": \"kvbm.vllm_integration.connector\", \"kv_connector_extra_config\": " \
	"{\"connectors\": [{\"kv_connector\": \"DynamoConnector\", \"kv_role\": \"kv_both\", " \
	"\"kv_connector_module_path\": \"kvbm.vllm_integration.connector\"}, {\"kv_connector\": " \
	"\"NixlConnector\", \"kv_role\": \"kv_both\", \"kv_connector_extra_config\": " \
	"{\"enable_cross_layers_blocks\": true}}]}}'"
#define NIXL_CROSS \
	"--kv-transfer-config '{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\", " \
	"\"kv_connector_extra_config\": {\"enable_cross_layers_blocks\": true}}'"
#define NIXL "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'"
#define NIXL_LF \
	"--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"," \
	"\"kv_connector_extra_config\":{\"backends\":[\"LIBFABRIC\"]}}'"

static const struct engcfg_model hybrid = { 1, 0, 1, 0, "qwen3_5", NULL };
static const struct engcfg_model dense = { 1, 0, 0, 0, "llama", NULL };

/* The finding of check among the pair's findings into *f; 0 when none. */
static int pair(const char *pa, const char *da, const struct engcfg_model *m, enum fwr_check check,
		struct fwr_finding *f)
{
	struct engcfg p, d;
	struct fwr_finding out[8];
	size_t n;

	engcfg_read(pa, NULL, &p);
	engcfg_read(da, NULL, &d);
	n = engcfg_pair(&p, &d, m, out, 8);
	for (size_t i = 0; i < n; i++)
		if (out[i].check == check) {
			*f = out[i];
			return 1;
		}
	return 0;
}

static void test_read(void)
{
	struct engcfg c;

	engcfg_read("python3 -m dynamo.vllm --model Qwen/Qwen3-0.6B " PD_CONN " --block-size 32 -tp 2", NULL, &c);
	CHECK_INT(c.engine, ENGCFG_VLLM);
	CHECK_INT(c.kvcfg, 1);
	CHECK_STR(c.connector, "PdConnector");
	CHECK_STR(c.kv_role, "kv_both");
	CHECK_INT(c.nixl, 1);
	CHECK_INT(c.nixl_alone, 0);
	CHECK_INT(c.cross_layers, 0);    /* DynamoConnector does not prefer them */
	CHECK_STR(c.backends, "UCX");
	CHECK_INT(c.backends_default, 1);
	CHECK_INT(c.block_size, 32);
	CHECK_INT(c.tp, 2);
	engcfg_read("vllm serve m " NIXL_CROSS, NULL, &c);
	CHECK_INT(c.nixl_alone, 1);
	CHECK_INT(c.cross_layers, 1);
	engcfg_read("vllm serve m " NIXL_LF, NULL, &c);
	CHECK_STR(c.backends, "LIBFABRIC");
	CHECK_INT(c.backends_default, 0);
	/* a recipe's argv joined by newlines; `sh -c` text with \" */
	engcfg_read("vllm\nserve\nm\n--kv-transfer-config\n{\"kv_connector\":\"NixlPushConnector\",\"kv_role\":\"kv_producer\"}", NULL, &c);
	CHECK_INT(c.mode, ENGCFG_PUSH);
	engcfg_read("sh -c \"vllm serve m --kv-transfer-config {\\\"kv_connector\\\":\\\"NixlConnector\\\"}\"", NULL, &c);
	CHECK_INT(c.kvcfg, 1);
	CHECK_INT(c.nixl, 1);
	engcfg_read("vllm serve m --kv-transfer-config '{\"kv_connector\": '", NULL, &c);
	CHECK_INT(c.kvcfg, -1);
	engcfg_read("vllm serve m --kv-events-config '{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:5557\"}'",
		    NULL, &c);
	CHECK_INT(c.kv_events_port, 5557);
	engcfg_read("python3 -m sglang.launch_server --disaggregation-mode prefill --tp 8 --dp 8 --enable-dp-attention", NULL, &c);
	CHECK_INT(c.engine, ENGCFG_SGLANG);
	CHECK_INT(c.attn_tp, 1);
	CHECK_STR(c.sgl_backend, "mooncake");
}

static void test_connector(void)
{
	struct fwr_finding f;

	/* ai-dynamo/dynamo#10027 */
	CHECK(pair("python3 -m dynamo.vllm " PD_CONN, "python3 -m dynamo.vllm " NIXL_CROSS, NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK_HAS(f.detail, "compatibility hash mismatch");
	/* near miss: both sides on the same connector */
	CHECK(pair("python3 -m dynamo.vllm " PD_CONN, "python3 -m dynamo.vllm " PD_CONN, NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_OK);
	CHECK_INT(f.unknown, 0);
	CHECK(pair("vllm serve m " NIXL_CROSS, "vllm serve m " NIXL_CROSS, NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_OK);
	/* the default backend named: UCX against LIBFABRIC */
	CHECK(pair("vllm serve m " NIXL, "vllm serve m " NIXL_LF, NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK_HAS(f.detail, "UCX (default)");
	CHECK(pair("vllm serve m " NIXL_LF, "vllm serve m " NIXL_LF, NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_OK);
	/* an empty backend name and one longer than any buffer match nothing
	 * (fuzz_engcfg: the empty name walked past the other list's end) */
	CHECK(pair("vllm serve m --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_connector_extra_config\":"
		   "{\"backends\":[\"\",\"LIBFABRIC_AND_A_NAME_LONGER_THAN_THIRTY_TWO_BYTES\"]}}'",
		   "vllm serve m --kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_connector_extra_config\":"
		   "{\"backends\":[\"LIBFABRIC_AND_A_NAME_LONGER_THAN_THIRTY_TWO_BYTES_TOO\"]}}'",
		   NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	/* push against pull (vLLM PR #50620) */
	CHECK(pair("vllm serve m --kv-transfer-config '{\"kv_connector\":\"NixlPushConnector\"}'", "vllm serve m " NIXL,
		   NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	/* a connector without NIXL on one side */
	CHECK(pair("vllm serve m --kv-transfer-config '{\"kv_connector\":\"LMCacheConnectorV1\"}'", "vllm serve m " NIXL,
		   NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	/* one side not JSON: not compared, said so */
	CHECK(pair("vllm serve m --kv-transfer-config '{\"kv_connector\":'", "vllm serve m " NIXL, NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.unknown, 1);
	/* SGLang: the transfer backend of each side (default mooncake) */
	CHECK(pair("python3 -m dynamo.sglang --disaggregation-mode prefill --disaggregation-transfer-backend nixl",
		   "python3 -m dynamo.sglang --disaggregation-mode decode", NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK_HAS(f.detail, "prefill nixl, decode mooncake");
	CHECK(pair("python3 -m dynamo.sglang --disaggregation-mode prefill --disaggregation-transfer-backend nixl",
		   "python3 -m dynamo.sglang --disaggregation-mode decode --disaggregation-transfer-backend=nixl", NULL,
		   FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_OK);
	/* neither passes one (the wrapper's default): no finding */
	CHECK(!pair("python3 -m dynamo.vllm --model m", "python3 -m dynamo.vllm --model m", NULL, FWR_PD_CONNECTOR, &f));
}

/* Dynamo's vLLM wrapper before 1.0.0rc5: `--connector` names the KV
 * connectors (ai-dynamo/dynamo components/src/dynamo/vllm/args.py,
 * _connector_to_kv_transfer_json: nixl NixlConnector, kvbm DynamoConnector,
 * lmcache LMCacheConnectorV1, flexkv FlexKVConnectorV1; two or more a
 * PdConnector).  J11 compares what they decide. */
static void test_wrapper_connector(void)
{
	struct engcfg c;
	struct fwr_finding f;

	engcfg_read("python3 -m dynamo.vllm --model m --connector kvbm nixl --disaggregation-mode decode", NULL, &c);
	CHECK_INT(c.kvcfg, 1);
	CHECK_STR(c.connector, "PdConnector");
	CHECK_INT(c.nixl, 1);
	CHECK_INT(c.nixl_alone, 0);
	engcfg_read("python3 -m dynamo.vllm --connector\nnixl\n--model\nm", NULL, &c);    /* a recipe's argv */
	CHECK_STR(c.connector, "NixlConnector");
	CHECK_INT(c.nixl_alone, 1);
	CHECK_STR(c.backends, "UCX");
	engcfg_read("python3 -m dynamo.vllm --connector none", NULL, &c);
	CHECK_INT(c.kvcfg, 1);
	CHECK_INT(c.nixl, 0);
	CHECK_STR(c.connector, "");
	/* --kv-transfer-config wins; other engines' --connector is theirs */
	engcfg_read("python3 -m dynamo.vllm --connector lmcache " NIXL, NULL, &c);
	CHECK_STR(c.connector, "NixlConnector");
	engcfg_read("python3 -m dynamo.trtllm --connector kvbm", NULL, &c);
	CHECK_INT(c.kvcfg, 0);
	/* nixl against lmcache: different KV protocols */
	CHECK(pair("python3 -m dynamo.vllm --connector nixl --disaggregation-mode prefill",
		   "python3 -m dynamo.vllm --connector lmcache --disaggregation-mode decode", NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK_HAS(f.detail, "LMCacheConnectorV1");
	/* no connector on the prefill: nothing to hand KV over with */
	CHECK(pair("python3 -m dynamo.vllm --connector none", "python3 -m dynamo.vllm --connector nixl", NULL,
		   FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	/* near misses: KVBM + NIXL against NIXL alone (both NIXL, no cross-layer
	 * blocks); the flag against its JSON equivalent */
	CHECK(pair("python3 -m dynamo.vllm --connector kvbm nixl", "python3 -m dynamo.vllm --connector nixl", NULL,
		   FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_OK);
	CHECK(pair("python3 -m dynamo.vllm --connector nixl", "python3 -m dynamo.vllm " NIXL, NULL, FWR_PD_CONNECTOR, &f));
	CHECK_INT(f.sev, ENVR_OK);
}

static void test_blocks(void)
{
	struct fwr_finding f;

	/* vllm-project/vllm#42895: Qwen3.5 hybrid, physical block sizes 32 and 16 */
	CHECK(pair("vllm serve m -tp 4 --block-size 32 " NIXL, "vllm serve m --block-size 16 " NIXL, &hybrid, FWR_PD_BLOCKS, &f));
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK_HAS(f.detail, "handshake_setup_failed");
	/* near miss: the same model with one block size */
	CHECK(pair("vllm serve m -tp 4 --block-size 32 " NIXL, "vllm serve m --block-size 32 " NIXL, &hybrid, FWR_PD_BLOCKS, &f));
	CHECK_INT(f.sev, ENVR_OK);
	/* an attention-only model translates between sizes (PR #26759) */
	CHECK(pair("vllm serve m --block-size 32 " NIXL, "vllm serve m --block-size 16 " NIXL, &dense, FWR_PD_BLOCKS, &f));
	CHECK_INT(f.sev, ENVR_OK);
	/* the model unknown: not a pass */
	CHECK(pair("vllm serve m --block-size 32 " NIXL, "vllm serve m --block-size 16 " NIXL, NULL, FWR_PD_BLOCKS, &f));
	CHECK_INT(f.unknown, 1);
	/* hybrid, no --block-size, unequal TP: each side derives its own */
	CHECK(pair("vllm serve m -tp 4 " NIXL, "vllm serve m -tp 1 " NIXL, &hybrid, FWR_PD_BLOCKS, &f));
	CHECK_INT(f.sev, ENVR_WARN);
}

static void test_ports(void)
{
	struct engcfg c;
	struct fwr_finding f;
	const char *ev = "vllm serve m " NIXL
			 " --kv-events-config '{\"enable_kv_cache_events\":true,\"publisher\":\"zmq\",\"endpoint\":\"tcp://*:5557\"}'";

	/* vllm-project/vllm#25059: the side channel's old default 5557 */
	engcfg_read(ev, NULL, &c);
	CHECK_INT(engcfg_port_clash(&c, 5557, &f), 1);
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK_INT(engcfg_port_clash(&c, 5600, &f), 0);    /* near miss: today's default */
	/* TP 4 from 5554 reaches 5557 */
	engcfg_read("vllm serve m -tp 4 --kv-events-config '{\"endpoint\":\"tcp://*:5557\"}'", NULL, &c);
	CHECK_INT(engcfg_port_clash(&c, 5554, &f), 1);
	CHECK_INT(engcfg_port_clash(&c, 5553, &f), 0);
	/* events disabled: no publisher */
	engcfg_read("vllm serve m --kv-events-config '{\"enable_kv_cache_events\":false,\"endpoint\":\"tcp://*:5557\"}'",
		    NULL, &c);
	CHECK_INT(engcfg_port_clash(&c, 5557, &f), 0);
	/* a hostile command line: ranks and ports far out of range are no
	 * port range (fuzz_engcfg found the overflow in dp * tp) */
	engcfg_read("vllm serve m -tp 9223372036854775807 -dp 9223372036854775807"
		    " --kv-events-config '{\"endpoint\":\"tcp://*:5557\"}'",
		    NULL, &c);
	CHECK_INT(engcfg_port_clash(&c, 5554, &f), 0);
	CHECK_INT(engcfg_port_clash(&c, 9223372036854775807L, &f), 0);
}

/* checks.md J5e: Dynamo's vLLM worker's own flags against the ai_dynamo
 * wheel's version (ai-dynamo/dynamo PR #6513, args.py
 * _reject_connector_flag; ai-dynamo/aiconfigurator PR #519). */
static void test_dyn_flags(void)
{
	const char *conn = "python3 -m dynamo.vllm --model m --disaggregation-mode decode --connector nixl";
	const char *kv = "python3 -m dynamo.vllm --model m --disaggregation-mode decode " NIXL;
	const char *pre = "python3 -m dynamo.vllm --model m --disaggregation-mode prefill";
	struct fwr_finding f;

	CHECK_INT(engcfg_dyn_flags(conn, "1.0.0", &f), 1);
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK(strstr(f.detail, "--connector nixl") && strstr(f.detail, "1.0.0") && strstr(f.detail, "ValueError"));
	CHECK(f.remedy && strstr(f.remedy, "NixlConnector"));
	CHECK_INT(engcfg_dyn_flags(conn, "1.0.0rc5", &f), 1);
	CHECK_INT(engcfg_dyn_flags(conn, "1.2.1.post1", &f), 1);
	CHECK_INT(engcfg_dyn_flags(conn, "1.0.1rc1", &f), 1);
	/* --connector with --kv-transfer-config too: still refused */
	CHECK_INT(engcfg_dyn_flags("python3 -m dynamo.vllm --connector kvbm nixl " NIXL, "1.1.0", &f), 1);
	/* --connector none: refused as well ("no longer needed") */
	CHECK_INT(engcfg_dyn_flags("python3 -m dynamo.vllm --connector none", "1.0.0", &f), 1);
	CHECK(strstr(f.detail, "--connector none") != NULL);
	/* near misses: the same version with --kv-transfer-config; before rc5;
	 * a version not known; TensorRT-LLM, which keeps --connector;
	 * --kv-connector is another flag */
	CHECK_INT(engcfg_dyn_flags(kv, "1.0.0", &f), 0);
	CHECK_INT(engcfg_dyn_flags(conn, "1.0.0rc4", &f), 0);
	CHECK_INT(engcfg_dyn_flags(conn, "1.0.0a1", &f), 0);
	CHECK_INT(engcfg_dyn_flags(conn, "1.0.0.dev0", &f), 0);
	CHECK_INT(engcfg_dyn_flags(conn, "0.9.1", &f), 0);
	CHECK_INT(engcfg_dyn_flags(conn, NULL, &f), 0);
	CHECK_INT(engcfg_dyn_flags(conn, "x1.0", &f), 0);
	CHECK_INT(engcfg_dyn_flags("python3 -m dynamo.trtllm --connector kvbm", "1.0.0", &f), 0);
	CHECK_INT(engcfg_dyn_flags("vllm serve m --kv-connector nixl", "1.0.0", &f), 0);
	/* a prefill worker without --kv-transfer-config */
	CHECK_INT(engcfg_dyn_flags(pre, "1.0.0", &f), 1);
	CHECK_INT(f.sev, ENVR_FAIL);
	CHECK(strstr(f.detail, "prefill") && strstr(f.detail, "--kv-transfer-config"));
	CHECK_INT(engcfg_dyn_flags("python3 -m dynamo.vllm --model m --is-prefill-worker", "1.0.0", &f), 1);
	CHECK_INT(engcfg_dyn_flags("python3 -m dynamo.vllm --model m --disaggregation-mode prefill " NIXL, "1.0.0", &f), 0);
	CHECK_INT(engcfg_dyn_flags(pre, "0.9.1", &f), 0);
}

int main(void)
{
	test_read();
	test_connector();
	test_wrapper_connector();
	test_blocks();
	test_ports();
	test_dyn_flags();
	printf("test_engcfg: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
