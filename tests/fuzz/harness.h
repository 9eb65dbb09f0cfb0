/* Shared by the section fuzz targets (fuzz_stack, fuzz_engine): the bytes
 * copied to a buffer of their exact size (so ASan sees overreads), parsed
 * into reused facts by parse, then every check run on them with spec and
 * ctx.  Header-only: each target is one file linked with libdi.a. */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "model/podspec.h"
#include "probe/facts.h"

static int fuzz_section(const uint8_t *data, size_t size,
			void (*parse)(const char *t, size_t n, struct probe_facts *f),
			const struct pod_spec_facts *spec, const struct check_context *ctx)
{
	static struct probe_facts *f;
	struct check_results r;
	char *copy = malloc(size ? size : 1);

	if (!f)
		f = probe_facts_new();
	memcpy(copy, data, size);
	parse(copy, size, f);
	check_results_init(&r);
	check_pod(f, spec, ctx, &r);
	check_results_release(&r);
	probe_facts_release(f);
	free(copy);
	return 0;
}

#endif
