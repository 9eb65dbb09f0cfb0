/* The DGD checks (checks.md P): the DynamoGraphDeployment the operator
 * applied against the pods that run.  Reads model/dgd.h only; the pods come
 * as dgd_pod views the caller builds. */
#ifndef CHECK_DGD_H
#define CHECK_DGD_H

#include <stddef.h>

#include "../model/dgd.h"

/* Adds to out one finding per pod of an older worker generation (P1), per
 * component with replicas but no running pod (P2) and per DGD env entry the
 * running pod does not have as stated (P3).  Only DGDs read (access
 * DGD_READ) are judged; out starts zeroed. */
void dgd_judge(const struct dgd_set *s, const struct dgd_pod *pods, size_t npods,
	       struct dgd_findings *out);

/* The one-line note for a set not read (403, no API, error); NULL when read. */
const char *dgd_access_note(const struct dgd_set *s, char *buf, size_t n);

void dgd_findings_release(struct dgd_findings *f);

#endif
