/* Reads one worker's log and hands the scan to the LOGS judge.  The log's
 * bytes stay here: only the judge's quoted, masked lines go on. */
#include "run/logs.h"

#include <stdlib.h>

#include "check/logs.h"
#include "kube/api/logs.h"
#include "probe/logscan.h"
#include "util/xalloc.h"

void run_logs_pod(struct run *pr, struct http_client *c,
		  const struct run_options *o, size_t i)
{
	const struct pod_info *pod = &pr->pods->items[i];
	struct logs_query q = {
		pod->namespace, pod->name, pod->container,
		o->log_tail > 0 ? o->log_tail : LOGS_DEFAULT_TAIL_LINES,
		LOGS_DEFAULT_LIMIT_BYTES,
		o->timeout_ms > 0 ? o->timeout_ms : LOGS_DEFAULT_TIMEOUT_MS,
	};
	struct logs_outcome out = { NULL, NULL, 0, pod->container, q.tail_lines };
	struct buf text = BUF_INIT(HTTP_MAX_BODY);
	struct logscan *scan = NULL;
	struct err e;

	err_clear(&e);
	if (logs_tail(c, &q, &text, &e) == 0) {
		scan = xmalloc(sizeof(*scan));   /* several KiB: not on a worker's stack */
		logscan_init(scan);
		logscan_text(scan, buf_str(&text), text.len);
		out.scan = scan;
	} else {
		out.error = e.msg;
		out.http_status = e.http_status;
		free(pr->pod[i].log_denied);
		pr->pod[i].log_denied = reason_denial_copy(&e.denied);
	}
	buf_release(&text);
	check_logs(&out, &pr->pod[i].ctx, &pr->pod[i].results);
	free(scan);
}
