/* libFuzzer target: the trtllm_engine section (probe/engine.c) and the
 * rule book over it (check/framework.c -> model/fwrules.c fw-trtllm and
 * fw-tp-nodes), all on pod text.  The bytes are the section's body; the
 * checks run on the facts of a TensorRT-LLM worker. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "model/podspec.h"
#include "probe/facts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct probe_facts *f;
	static const struct pod_spec_facts spec = { .gpus = 8, .rdma_devices = 8 };
	static const struct check_context ctx = {
		.kv_cross_pod = 1, .kv_known = 1, .npods = 2, .role = "prefill",
		.args = "python3 -m dynamo.trtllm --extra-engine-args /engine_configs/prefill.yaml",
	};
	struct check_results r;
	char *copy = malloc(size ? size : 1);   /* exact size: ASan sees overreads */

	if (!f)
		f = probe_facts_new();
	memcpy(copy, data, size);
	probe_parse_trtllm_engine(copy, size, &f->trtllm_engine);
	f->trtllm_engine.src.status = size & 1 ? PROBE_OK : PROBE_FAILED;
	f->env.src.status = PROBE_OK;
	check_results_init(&r);
	check_pod(f, &spec, &ctx, &r);
	check_results_release(&r);
	probe_facts_release(f);
	free(copy);
	return 0;
}
