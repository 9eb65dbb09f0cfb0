/* libFuzzer target: the pcie_links section (probe/pcie.c, the PCIe links
 * from each RDMA NIC and GPU to its root port) and the link-pcie-trained
 * judge over it (check/linkhealth.c), all on pod text.  The bytes are the
 * section's body. */
#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An odd size reads as a section that ended well, an even one as a
 * failed one: both paths of check_linkhealth. */
static void parse(const char *t, size_t n, struct probe_facts *f)
{
	probe_parse_pcie(t, n, &f->pcie);
	f->pcie.src.status = n & 1 ? PROBE_OK : PROBE_FAILED;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pod_spec_facts spec = { .gpus = 8, .rdma_devices = 8 };
	static const struct check_context ctx = {
		.kv_cross_pod = 1, .kv_known = 1, .npods = 2, .role = "decode",
	};

	return fuzz_section(data, size, parse, &spec, &ctx);
}
