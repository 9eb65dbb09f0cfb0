/* libFuzzer target: the nixl_stack section (probe/stack.c) and the
 * loader replay that judges it (check/stack.c: path normalisation,
 * $ORIGIN expansion, LD_PRELOAD and LD_LIBRARY_PATH splitting) and the
 * ld.so.conf lines (probe/ldconf.c: include globs, recursion, the cache
 * directories F6 searches), all on pod text.  The bytes are the
 * section's body; the checks run on the facts. */
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
	static const struct pod_spec_facts spec = { .gpus = 2, .rdma_devices = 2 };
	static const struct check_context ctx = { .kv_cross_pod = 1, .kv_known = 1, .npods = 2 };
	struct check_results r;
	char *copy = malloc(size ? size : 1);   /* exact size: ASan sees overreads */

	if (!f)
		f = probe_facts_new();
	memcpy(copy, data, size);
	probe_parse_nixl_stack(copy, size, &f->stack);
	f->stack.src.status = PROBE_OK;
	check_results_init(&r);
	check_pod(f, &spec, &ctx, &r);
	check_results_release(&r);
	probe_facts_release(f);
	free(copy);
	return 0;
}
