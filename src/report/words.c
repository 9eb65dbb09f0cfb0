/* The words and colours every printer shares (report_int.h): the family
 * columns and their headers, status colours, the verdict's token, and
 * whether a result has a fix to show.  Calls no printer, so the table,
 * node, summary and JSON printers all call down into it. */
#include <stdio.h>

#include "report_int.h"

const enum check_family report_columns[] = {
	FAM_RDMA, FAM_GPUDIRECT, FAM_GDRCOPY, FAM_NVLINK, FAM_UCX,
	FAM_NIXL, FAM_EFA, FAM_ENV, FAM_LIMITS, FAM_POD, FAM_LOGS,
	FAM_TRANSFER, FAM_OBSERVED,
};
const size_t report_ncolumns = sizeof(report_columns) / sizeof(report_columns[0]);

/* SGR colour of a check status: fail red, warn yellow, ok green, skipped
 * dim (product.md "Output"). */
const char *report_status_sgr(int status)
{
	static const char *const code[] = { "32", "33", "31", "2" };

	return status >= 0 && status <= 3 ? code[status] : NULL;
}

const char *report_paint(const char *word, int status, int color, char *buf, size_t n)
{
	const char *sgr = report_status_sgr(status);

	if (!color || !sgr)
		return word;
	snprintf(buf, n, "\033[%sm%s\033[0m", sgr, word);
	return buf;
}

enum verdict_status report_pod_verdict(const struct report *r, size_t i)
{
	return r->verdict->pod ? r->verdict->pod[i] : VERDICT_UNVERIFIED;
}

int report_verdict_color(enum verdict_status v)
{
	return v == VERDICT_READY ? CHECK_OK : v == VERDICT_NOT_READY ? CHECK_FAIL : CHECK_WARN;
}

const char *report_verdict_token(enum verdict_status v)
{
	switch (v) {
	case VERDICT_READY: return "Ready";
	case VERDICT_NOT_READY: return "NotReady";
	case VERDICT_UNVERIFIED: return "Unverified";
	}
	return "Unverified";
}

/* A family's column header.  The POD family (the pod spec and whether the
 * pod could be probed) is SPEC: "POD" heads the pod-name column, and every
 * header is one unique token so scripts can find a column by name. */
const char *report_column_name(enum check_family f)
{
	return f == FAM_POD ? "SPEC" : check_family_name(f);
}

int report_family_status(const struct run_pod *p, enum check_family f)
{
	/* Not probed: the verdict judged nothing of it (one line below the
	 * table says why), so no cell may say more than "-". */
	return p->probed ? check_results_family_status(&p->results, f) : -1;
}

int report_has_fix(enum check_status s, const char *remedy)
{
	return (s == CHECK_FAIL || s == CHECK_WARN) && remedy && *remedy;
}
