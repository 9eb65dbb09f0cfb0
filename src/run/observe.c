/* The observe window on the probe's stdin and deadline (observe.h). */
#include "run/observe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/invoke.h"
#include "util/xalloc.h"

char *run_observe_stdin(const char *script, long window_s, size_t *len)
{
	char *plain = invoke_stdin(script, len), *out;
	char line[32];
	int n;

	if (window_s < OBSERVE_MIN_S || window_s > OBSERVE_MAX_S)
		return plain;
	/* %ld of a bounded long: digits only, whatever the flag said. */
	n = snprintf(line, sizeof(line), "_di_obs=%ld\n", window_s);
	out = xmalloc((size_t)n + *len + 1);
	memcpy(out, line, (size_t)n);
	memcpy(out + n, plain, *len + 1);
	*len += (size_t)n;
	free(plain);
	return out;
}

long run_observe_timeout_ms(long timeout_ms, long window_s)
{
	if (window_s < OBSERVE_MIN_S || window_s > OBSERVE_MAX_S)
		return timeout_ms;
	return timeout_ms + window_s * 1000L + OBSERVE_MARGIN_MS;
}
