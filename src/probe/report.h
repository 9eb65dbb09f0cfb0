/* The probe report: what src/probe/probe.sh prints, split into sections.
 *
 * Format, version 1 (the first line names it; anything else is refused):
 *
 *     dynamo-interconnect-probe v1
 *     @@@ NAME
 *     ...body: the tool's output, lines starting "@@@" escaped as " @@@"...
 *     @@@ end NAME rc=N
 *     ...more sections...
 *     @@@ done
 *
 * NAME is [a-z0-9_]{1,32}; rc is the tool's exit status, 127 when the tool,
 * file or directory is absent, 124 when it ran past its time limit.  A
 * section that is not closed (output cut by a byte cap, or a new section
 * starts first) is kept with rc -1 and complete = 0.  A report without the
 * done line was cut short; what came before it is still used.
 *
 * A struct probe_report points into the caller's text and owns nothing.
 */
#ifndef PROBE_REPORT_H
#define PROBE_REPORT_H

#include <stddef.h>

#include "../util/err.h"

#define PROBE_REPORT_MAGIC "dynamo-interconnect-probe"
#define PROBE_REPORT_VERSION 1
#define PROBE_REPORT_MAX_BYTES (8u << 20)
#define PROBE_REPORT_MAX_SECTIONS 96

struct probe_section {
	char name[33];
	int rc;              /* -1 when the section was cut short */
	int complete;
	const char *body;    /* into the report text; not NUL-terminated */
	size_t len;
};

struct probe_report {
	int version;
	int done;            /* the "@@@ done" line was seen */
	int nsections;
	int dropped;         /* sections beyond PROBE_REPORT_MAX_SECTIONS */
	struct probe_section section[PROBE_REPORT_MAX_SECTIONS];
};

/* Splits text into sections.  -1 with e set (ERR_PROTOCOL) when it is not
 * a probe report ("not a probe report"), has another version
 * ("unsupported probe report version \"v2\""), or is larger than
 * PROBE_REPORT_MAX_BYTES. */
int probe_report_split(const char *text, size_t len, struct probe_report *r,
		       struct err *e);

/* The first section called name, or NULL. */
const struct probe_section *probe_report_find(const struct probe_report *r,
					      const char *name);

#endif
