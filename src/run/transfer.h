/* check --transfer and nixl --transfer: run a real ucx_perftest between a
 * prefill (client) and a decode (server) pod and add a TRANSFER result to
 * both.  NOT read-only: the only other execs the plugin ever makes, and
 * only when asked. */
#ifndef RUN_TRANSFER_H
#define RUN_TRANSFER_H

#include "check/check.h"
#include "kube/http/http.h"
#include "kube/api/pods.h"
#include "run/run.h"

#define TRANSFER_DEFAULT_LIMIT_MS 60000L
/* --transfer-timeout's range: 1s to 1h. */
#define TRANSFER_MIN_LIMIT_MS 1000L
#define TRANSFER_MAX_LIMIT_MS 3600000L

struct probe_facts;

/* One side of a test: the pod, what its probe found (NULL: not probed),
 * and the results the TRANSFER result is added to. */
struct transfer_side {
	const struct pod_info *pod;
	const struct probe_facts *f;
	struct check_results *results;
};

/* Tests client -> server within limit_ms, then always stops what it
 * started in both pods (also after a time-out or a cancel: the cancel is
 * cleared for the cleanup and set again after it).  Says what it runs,
 * or why not, to sink (may be NULL). */
void run_transfer_pair(struct http_client *c, const struct transfer_side *client,
		       const struct transfer_side *server, long limit_ms,
		       const struct run_sink *sink);

/* check --transfer: one pair per prefill-node/decode-node pair of a probed
 * run (at most TRANSFER_MAX_PAIRS), one after the other. */
void run_transfer_pairs(struct http_client *c, struct run *pr, long limit_ms,
			const struct run_sink *sink);

#endif
