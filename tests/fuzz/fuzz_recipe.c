/* libFuzzer target for the recipe reader (YAML tree, both DGD schemas,
 * shell and KV scans, the rules).
 *
 * Build (with every other target, sanitizers on) and run about a minute:
 *   sh tests/fuzz/build.sh build/fuzz
 *   build/fuzz/bin/fuzz_recipe -max_total_time=60 -max_len=65536 \
 *     -artifact_prefix=build/fuzz/crash/fuzz_recipe/ build/fuzz/corpus/fuzz_recipe
 * or `sh tests/fuzz/run.sh 60`, which seeds the corpus from the fixtures.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "recipe/recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recipe_set s;

	memset(&s, 0, sizeof s);
	recipe_load_buffer("fuzz.yaml", (const char *)data, size, &s);
	recipe_judge(&s);
	for (size_t i = 0; i < s.n; i++) {
		struct recipe_finding *f = NULL;
		size_t n = 0;
		struct recipe_kv kv[2] = { { "UCX_TLS", "tcp" }, { "NIXL_TELEMETRY_ENABLE", "n" } };

		recipe_drift(&s.comps[i], kv, 2, 1, kv, 1, 1, &f, &n);
		recipe_findings_free(f, n);
	}
	recipe_set_release(&s);
	return 0;
}
