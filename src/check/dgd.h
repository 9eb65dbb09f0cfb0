/* The DGD checks (checks.md P): the DynamoGraphDeployment the operator
 * applied against the pods that run.  Reads model/dgd.h only; the pods come
 * as dgd_pod views the caller builds. */
#ifndef CHECK_DGD_H
#define CHECK_DGD_H

#include <stddef.h>

#include "../model/dgd.h"
#include "check.h"

/* Every DGD check by id, DGD_CK_<ID> of its dgd.def row. */
#define DGD_CHECK(id, ...) DGD_CK_##id,
enum dgd_check {
#include "dgd.def"
	DGD_CK__COUNT
};
#undef DGD_CHECK

/* One row of dgd.def (each field explained there). */
struct dgd_check_def {
	const char *name;
	enum check_status status;
	const char *anchor;
	const char *rule;
};

/* The row of id (< DGD_CK__COUNT); the whole table with dgd_check_defs. */
const struct dgd_check_def *dgd_check_def(enum dgd_check id);
const struct dgd_check_def *dgd_check_defs(size_t *n);

/* One DGD finding (checks.md P). */
struct dgd_finding {
	enum check_status status; /* its check's (dgd.def): warn or fail */
	enum dgd_check check;     /* dgd-generation, dgd-component-pods, ... */
	/* namespace/name, interned (util/intern.h: one copy per DGD however
	 * many findings name it); dgd_findings_release gives it back. */
	const char *dgd;
	char *detail;            /* owned; one line, at most 511 bytes */
};

/* What dgd_judge counted for one worker component of a read DGD. */
struct dgd_count {
	size_t item, comp;       /* dgd_set.items[item].comp[comp] */
	long running;            /* its running pods */
	long current;            /* of them, of the active worker generation */
};

struct dgd_findings {
	struct dgd_finding *items; /* owned; dgd_findings_release (check/dgd.h) */
	size_t n, cap;
	struct dgd_count *counts;  /* owned, one per judged component */
	size_t ncounts, ccap;
};


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
