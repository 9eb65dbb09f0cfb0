/* libFuzzer target for the recipe reader (YAML tree, both DGD schemas,
 * shell and KV scans, the rules) and the kustomize strategic merge: the
 * input, cut at a line "#PATCH" (else whole), is a base and a patch whose
 * documents merge into the base's of the same kind and name, and the
 * result is read like a recipe.
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

#include "recipe/internal.h"
#include "recipe/recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void merged(const char *text, size_t size, struct recipe_set *s)
{
	static const char cut[] = "\n#PATCH\n";
	const char *at = NULL, *patch = text;
	size_t blen = size, plen = size;
	struct ytree_docs d;

	for (size_t i = 0; i + sizeof cut - 1 <= size && !at; i++)
		if (!memcmp(text + i, cut, sizeof cut - 1))
			at = text + i;
	if (at) {
		blen = (size_t)(at - text);
		patch = at + sizeof cut - 1;
		plen = size - blen - (sizeof cut - 1);
	}
	if (memchr(text, 0, size) || recipe_kust_patch_text(text, blen, patch, plen, &d) < 0)
		return;
	recipe_read_docs(s, "fuzz-merged", d.docs, d.n, NULL, 0);
	ytree_docs_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct recipe_set s;

	memset(&s, 0, sizeof s);
	recipe_load_buffer("fuzz.yaml", (const char *)data, size, &s);
	merged((const char *)data, size, &s);
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
