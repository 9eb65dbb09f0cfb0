/* libFuzzer target: ucx_perftest client output (check --transfer), which
 * comes from inside a pod and is untrusted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe/perftest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perftest_result r;
	char *copy = malloc(size ? size : 1);

	/* exactly size bytes, no terminator: the parser must stay in bounds */
	memcpy(copy, data, size);
	perftest_parse(copy, size, &r);
	if (!memchr(r.lanes, '\0', sizeof(r.lanes)) || !memchr(r.error, '\0', sizeof(r.error)))
		abort();
	free(copy);
	return 0;
}
