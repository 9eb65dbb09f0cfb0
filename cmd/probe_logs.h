/* Log evidence for probed pods: read the tail of the probed container's
 * log and judge it into LOGS results (check/logs.h).  Shared by the
 * commands that probe (check; node and nixl when they set o->logs). */
#ifndef CMD_PROBE_LOGS_H
#define CMD_PROBE_LOGS_H

#include "probe_run.h"

/* Reads pod i's log and appends its LOGS results to pr->results[i].
 * Runs in an engine worker thread (http_get is thread-safe); the request
 * is bounded by o->timeout_ms and stops on cancel_run(). */
void probe_logs_pod(struct probe_run *pr, struct http_client *c,
		    const struct probe_options *o, size_t i);

#endif
