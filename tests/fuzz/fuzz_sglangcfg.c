/* libFuzzer target: the sglang_config section (probe/sglang_config.c, the
 * two keys of SGLang's --config YAML) and the env rule book over it
 * (check/env.c live_mooncake -> model/envrules.c), all on pod text.  The
 * bytes are the section's body; the checks run on the facts of an SGLang
 * decode worker whose backend is only in that file. */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An odd size reads as a section that ended well, an even one as a
 * failed one: both paths of check/env.c live_mooncake. */
static void parse(const char *t, size_t n, struct probe_facts *f)
{
	static const char env[] = "UCX_TLS=tcp,cuda_copy\n";

	probe_parse_sglang_config(t, n, &f->sglang_config);
	f->sglang_config.src.status = n & 1 ? PROBE_OK : PROBE_FAILED;
	f->env.src.status = PROBE_OK;
	probe_parse_env(env, sizeof env - 1, &f->env);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pod_spec_facts spec = { .gpus = 8, .rdma_devices = 8 };
	static const struct check_context ctx = {
		.kv_cross_pod = 1, .kv_known = 1, .npods = 2, .role = "decode",
		.args = "python3 -m dynamo.sglang --config /etc/sgl/decode.yaml",
	};

	return fuzz_section(data, size, parse, &spec, &ctx);
}
