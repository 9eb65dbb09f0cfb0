/* libFuzzer target: the model_config section (probe/model_config.c, the
 * served model's config.json facts of issue 41) and the checks over the
 * facts (check.c fill_model, the pair rules' inputs) through check_pod,
 * all on pod text.  The bytes are the section's body.  Beyond "no crash",
 * the parser's promise is checked: whatever the text, the words it keeps
 * are plain (model_type: [A-Za-z0-9_.-], no token prefix; architecture: a
 * class name) and the markers are -1, 0 or 1. */
#include <stdlib.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int plain(const char *s, const char *more)
{
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= '0' && *s <= '9') || strchr(more, *s)))
			return 0;
	return 1;
}

static void promise(const struct probe_model_config *m)
{
	if (!plain(m->model_type, "_.-") || !plain(m->architecture, "_") ||
	    !strncmp(m->model_type, "hf_", 3) || !strncmp(m->model_type, "sk-", 3) ||
	    (m->architecture[0] && (m->architecture[0] < 'A' || m->architecture[0] > 'Z')))
		abort();
	if (m->sliding_window < -1 || m->sliding_window > 1 || m->hybrid_linear < -1 ||
	    m->hybrid_linear > 1 || m->mla < -1 || m->mla > 1 || m->num_kv_heads < -1 ||
	    m->num_layers < -1 || m->num_kv_heads > 999999 || m->num_layers > 999999)
		abort();
}

/* An odd size reads as a section that ended well, an even one as a
 * failed one. */
static void parse(const char *t, size_t n, struct probe_facts *f)
{
	probe_parse_model_config(t, n, &f->model_config);
	f->model_config.src.status = n & 1 ? PROBE_OK : PROBE_FAILED;
	promise(&f->model_config);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pod_spec_facts spec = { .gpus = 8, .rdma_devices = 8 };
	static const struct check_context ctx = {
		.kv_cross_pod = 1, .kv_known = 1, .npods = 2, .role = "prefill",
		.args = "python3 -m dynamo.sglang --model-path openai/gpt-oss-120b --tp 4",
	};

	return fuzz_section(data, size, parse, &spec, &ctx);
}
