/* libFuzzer target: the rail_counters section (probe/counters.c, check
 * --observe's two samples of every RDMA port's counters) and the OBSERVED
 * judge over it (check/observed.c), all on pod text.  The bytes are the
 * section's body. */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An odd size reads as a section that ended well, an even one as a
 * failed one: both paths of check_observed. */
static void parse(const char *t, size_t n, struct probe_facts *f)
{
	probe_parse_counters(t, n, &f->counters);
	f->counters.src.status = n & 1 ? PROBE_OK : PROBE_FAILED;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pod_spec_facts spec = { .gpus = 8, .rdma_devices = 8 };
	static const struct check_context ctx = {
		.kv_cross_pod = 1, .kv_known = 1, .npods = 2, .role = "decode",
	};

	return fuzz_section(data, size, parse, &spec, &ctx);
}
