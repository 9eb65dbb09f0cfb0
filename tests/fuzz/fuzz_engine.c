/* libFuzzer target: the trtllm_engine section (probe/engine.c) and the
 * rule book over it (check/framework.c -> model/fwrules.c fw-trtllm and
 * fw-tp-nodes), all on pod text.  The bytes are the section's body; the
 * checks run on the facts of a TensorRT-LLM worker. */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An odd size reads as a section that ended well, an even one as a
 * failed one: both paths of check/framework.c fw_engine. */
static void parse(const char *t, size_t n, struct probe_facts *f)
{
	probe_parse_trtllm_engine(t, n, &f->trtllm_engine);
	f->trtllm_engine.src.status = n & 1 ? PROBE_OK : PROBE_FAILED;
	f->env.src.status = PROBE_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pod_spec_facts spec = { .gpus = 8, .rdma_devices = 8 };
	static const struct check_context ctx = {
		.kv_cross_pod = 1, .kv_known = 1, .npods = 2, .role = "prefill",
		.args = "python3 -m dynamo.trtllm --extra-engine-args /engine_configs/prefill.yaml",
	};

	return fuzz_section(data, size, parse, &spec, &ctx);
}
