/* Log evidence for probed pods (run.c): read the tail of the probed
 * container's log and judge it into LOGS results (check/logs.h). */
#ifndef RUN_LOGS_H
#define RUN_LOGS_H

#include "run/run.h"

/* Reads pod i's log and appends its LOGS results to pr->pod[i].results.
 * Runs in an engine worker thread (http_get is thread-safe); the request
 * is bounded by o->timeout_ms and stops on cancel_run(). */
void run_logs_pod(struct run *pr, struct http_client *c,
		  const struct run_options *o, size_t i);

#endif
