/* The observe window on the probe's stdin and deadline (observe.h). */
#include "run/observe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
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

/* The error counters kept per rail, as the prometheus series name them
 * (the sysfs file names, docs/checks.md O3). */
static const enum probe_ctr kept[RUN_RAIL_NERR] = {
	CTR_SYMBOL_ERROR, CTR_LINK_DOWNED, CTR_LINK_ERROR_RECOVERY, CTR_RCV_ERRORS,
	CTR_LOCAL_LINK_INTEGRITY, CTR_EXCESSIVE_BUF_OVERRUN, CTR_XMIT_DISCARDS,
	CTR_RNR_NAK_RETRY, CTR_LOCAL_ACK_TIMEOUT,
};
static const char *const kept_name[RUN_RAIL_NERR] = {
	"symbol_error", "link_downed", "link_error_recovery", "port_rcv_errors",
	"local_link_integrity_errors", "excessive_buffer_overrun_errors",
	"port_xmit_discards", "rnr_nak_retry_err", "local_ack_timeout_err",
};

struct run_rails *run_rails_keep(const struct probe_counters *c)
{
	struct run_rails *r;

	if (c->src.status != PROBE_OK)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->window_s = c->window_s;
	r->err_name = kept_name;
	r->v = xcalloc(c->n ? c->n : 1, sizeof(*r->v));
	for (size_t i = 0; i < c->n; i++) {
		struct run_rail *d = &r->v[r->n++];
		uint64_t delta;

		snprintf(d->dev, sizeof(d->dev), "%s", c->port[i].dev);
		d->port = c->port[i].port;
		d->bytes = probe_rail_bytes(&c->port[i]);
		for (size_t k = 0; k < RUN_RAIL_NERR; k++)
			d->err[k] = probe_ctr_delta(&c->port[i], kept[k], &delta)
				? (delta > INT64_MAX ? INT64_MAX : (int64_t)delta) : -1;
	}
	return r;
}

void run_rails_free(struct run_rails *r)
{
	if (!r)
		return;
	free(r->v);
	free(r);
}
