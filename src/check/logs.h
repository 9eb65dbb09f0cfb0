/* The LOGS family: what the worker's own log says about the transport it
 * chose or was refused (checks.md E6, F3; dynamo.md 5.2).
 *
 * Log evidence is extra evidence: a log that cannot be read or says
 * nothing about transports gives a skipped result flagged CHECK_F_EXTRA,
 * which is shown (LOGS column, findings, JSON) but does not turn an
 * otherwise READY pod into UNVERIFIED.  A log line that proves a fallback
 * (TCP, no RDMA, NIXL_ERR_*) fails like any other check.
 *
 * Only the matching transport line is ever quoted, trimmed, cut to
 * CHECK_LOGS_QUOTE_MAX bytes, blanks squeezed, and with every KEY=VALUE whose key is not a
 * transport variable masked: no other log content reaches the output.
 */
#ifndef CHECK_LOGS_H
#define CHECK_LOGS_H

#include <stddef.h>

#include "check/check.h"
#include "probe/logscan.h"

#define CHECK_LOGS_QUOTE_MAX 160

/* What reading one container's log gave.  All borrowed. */
struct logs_outcome {
	const struct logscan *scan;   /* NULL: not read, error says why */
	const char *error;            /* one line (kubectl's words) */
	long http_status;             /* of the failed read; 0: none */
	const char *container;        /* for the detail; may be NULL */
	long tail_lines;              /* how much was asked for */
};

/* Appends the LOGS results of one pod (ctx may be NULL). */
void check_logs(const struct logs_outcome *o, const struct check_context *ctx,
		struct check_results *out);

/* The log line as it may be shown: trimmed, blank runs as one space,
 * control and non-ASCII bytes as '?', values of non-transport KEY=VALUE
 * pairs as <masked>, cut to CHECK_LOGS_QUOTE_MAX bytes with "...".  out holds at least
 * CHECK_LOGS_QUOTE_MAX + 1 bytes (n). */
void check_logs_quote(const char *line, char *out, size_t n);

/* The words a finding of signature s starts with (what its line proves);
 * NULL for a signature the LOGS family ignores.  links.c proves a part of
 * a link by them, naming the signature by id. */
const char *check_logs_shows(enum logsig s);
/* The name of the LOGS check signature s is filed under ("logs-nixl"). */
const char *check_logs_check(enum logsig s);

/* For tests: 1 when every log signature has a meaning in the judge's
 * table (or is deliberately ignored). */
int check_logs_table_complete(void);

#endif
