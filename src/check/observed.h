/* OBSERVED O7-O10 (issue 45, docs/checks.md O): what the worker's own KV
 * metrics moved in check --observe's window, next to what its RDMA ports
 * moved.  run/observe_kv.c reads the metrics (twice, through the pod
 * proxy) and calls check_observed_kv() after the probe, as the LOGS rows
 * are added after check_pod().  Evidence of use: the rows can lower a
 * verdict, never raise one (LINKS NONE); metrics that could not be read
 * give skipped rows with the reason, never ok. */
#ifndef CHECK_OBSERVED_H
#define CHECK_OBSERVED_H

#include <stdint.h>

#include "check/check.h"
#include "probe/promtext.h"

struct observed_kv {
	const char *unread;          /* why no two reads: every row skipped with it; NULL: read */
	struct kv_metrics start, end;
	long window_s;               /* between the two reads */
	const char *endpoints;       /* "NIXL telemetry :19090" etc., for the detail */
	/* The pod's RDMA ports whose data counters were sampled twice (-1:
	 * the counter window gave none: no section, or it failed) and the
	 * bytes they moved. */
	long rails_sampled;
	int64_t rail_bytes;
};

/* Appends O7-O10 of one pod (ctx: its role and whether a peer of the
 * other role shares its node; may be NULL). */
void check_observed_kv(const struct observed_kv *o, const struct check_context *ctx,
		       struct check_results *out);

#endif
