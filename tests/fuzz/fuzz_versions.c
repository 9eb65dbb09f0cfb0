/* libFuzzer target: the versions section (probe/versions.c: libfabric's
 * version, the EFA installer's, uname -m, efa_nv_peermem) and the
 * known-issues rows over it (check/knownbad.c, known_cond.c) through
 * check_pod, on pod text.  The bytes are the section's body; the pod is an
 * EFA decode worker of NIXL's LIBFABRIC backend, so the rows keyed on
 * those facts are judged. */
#include <stdio.h>

#include "harness.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An odd size reads as a section that ended well, an even one as a
 * failed one. */
static void parse(const char *t, size_t n, struct probe_facts *f)
{
	static const char env[] = "FI_PROVIDER=efa\nUCX_TLS=all\n";

	probe_parse_versions(t, n, &f->versions);
	f->versions.src.status = n & 1 ? PROBE_OK : PROBE_FAILED;
	f->env.src.status = PROBE_OK;
	probe_parse_env(env, sizeof env - 1, &f->env);
	snprintf(f->nixl.python_version, sizeof f->nixl.python_version, "1.3.1");
	snprintf(f->mooncake.version, sizeof f->mooncake.version, "0.3.12");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pod_spec_facts spec = { .gpus = 8, .rdma_devices = 8 };
	static const struct check_context ctx = {
		.kv_cross_pod = 1, .kv_known = 1, .npods = 2, .role = "decode",
		.nixl_backend = "LIBFABRIC",
	};

	return fuzz_section(data, size, parse, &spec, &ctx);
}
