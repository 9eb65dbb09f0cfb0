/* Verdicts: per pod and over the whole deployment (product.md "Results",
 * checks.md N).
 *
 *   READY       every link of the KV path the pod will use is proven
 *               (check/links.h) and no check failed; warnings off the
 *               path are listed and counted, never withhold READY.
 *   NOT READY   at least one fail (or a fail across pods, e.g. prefill
 *               and decode on different NIXL backends).
 *   UNVERIFIED  no fail, but a link of the path has no evidence (every
 *               check that could show it skipped), or the pod was not
 *               probed; `unconfirmed` names the link and what would
 *               show it.
 *
 * A layer above the run: it reads the per-pod objects (run/run.h) as the
 * run left them (the pod, its results, whether it was probed and why not)
 * and never changes them.  Ownership: struct verdict owns every string and
 * array in it and is freed with verdict_release().
 */
#ifndef VERDICT_VERDICT_H
#define VERDICT_VERDICT_H

#include <stddef.h>

#include "check/check.h"
#include "run/run.h"

enum verdict_status {
	VERDICT_READY = 0,
	VERDICT_NOT_READY,
	VERDICT_UNVERIFIED,
};

/* "READY", "NOT READY", "UNVERIFIED". */
const char *verdict_name(enum verdict_status v);
/* 0, 2, 3 (product.md exit codes). */
int verdict_exit_code(enum verdict_status v);

/* The pod's own verdict, from its results alone (no cross-pod finding). */
enum verdict_status verdict_pod(const struct run_pod *p);

/* A line below the table.  Grouped across pods: one finding per check
 * and status, naming the pods it affects.  Cross-pod findings (graph.h)
 * have the names "pair-consistency" (prefill vs decode),
 * and "node-consistency" (the odd node out). */
struct verdict_finding {
	const char *name;         /* check name (static) */
	enum check_family family;
	enum check_status status;
	int rank;
	char *text;               /* owned, one line */
	/* Owned: text without the first pod's detail ("rdma-devices fail on
	 * 1 of 7 pods: a; node n"), for a line that gives the fix instead;
	 * NULL where text has no such part (cross-pod findings). */
	char *head;
	char *remedy;             /* owned, one line, or NULL */
	/* Owned; NULL/0 when the finding names none: an example prefill and
	 * decode pod, or the odd nodes out (at most VERDICT_NAMES_MAX). */
	char **pods;
	size_t npods;
	char **nodes;
	size_t nnodes;
	const char *about;        /* static: the per-pod check it explains, or NULL */
	/* Owned array of static names: the checks and cross-pod findings
	 * folded under this one because they follow from it (check.h
	 * check_cause: "caused by rdma-devices"); NULL/0 when none. */
	const char **folded;
	size_t nfolded;
};

/* A growing list of findings (verdict.c and graph.c append to it). */
struct verdict_findings {
	struct verdict_finding *v;
	size_t n, cap;
};

/* Appends *f (its owned members move into the list). */
void verdict_findings_add(struct verdict_findings *fs, const struct verdict_finding *f);
/* Frees the owned members of one finding. */
void verdict_finding_release(struct verdict_finding *f);
/* Adds name to f's folded list once. */
void verdict_finding_fold(struct verdict_finding *f, const char *name);

/* One root cause per pod (fold.c): files each per-pod result that
 * follows from another failed one (check_cause) under the root's
 * finding in fs, and moves each finding of extra (pair and node
 * findings) whose per-pod check is already explained by a finding of fs
 * into that finding's folded list; extra keeps the others. */
void verdict_fold(const struct run_pod *pods, size_t n, struct verdict_findings *fs,
		  struct verdict_findings *extra);

struct verdict {
	enum verdict_status status;
	int exit_code;
	enum fabric fabric;       /* most common among probed pods */
	char *fix_first;          /* owned; one line; NULL unless NOT READY */
	char *unconfirmed;        /* owned; one line; NULL unless UNVERIFIED */
	struct verdict_finding *findings;  /* owned; worst first, then rank */
	size_t nfindings;
	enum verdict_status *pod; /* owned; npods of them: pod i's verdict_pod() */
	size_t npods, nprobed, nready, nnot_ready, nunverified;
	size_t nwarnings;         /* warn findings (grouped lines) */
};

/* Consolidates the n pods of a run (n may be 0: UNVERIFIED, "no worker
 * pods"); pods[] stays borrowed only for the call.  The caller releases
 * out with verdict_release(). */
void verdict_compute(const struct run_pod *pods, size_t n,
		     struct verdict *out);
void verdict_release(struct verdict *v);

struct dgd_findings;
/* A DGD component with replicas and no running pod (checks.md P2,
 * status "fail") leaves no disaggregated path: the run is NOT READY
 * whatever its pods say, and the document's verdict and exit code say so
 * (exit 2, as the process exits).  When no pod failed, fix_first names
 * that component.  P1/P3 (warn) change nothing.  f may be NULL. */
void verdict_apply_dgd(struct verdict *v, const struct dgd_findings *f);

/* "3 of 8 pods: a, b, c" / "all 8 pods" with at most max names, then
 * "and N more".  Exposed for tests and for the table's finding lines.
 * idx lists the affected pods by index into pods; returns an owned
 * string. */
char *verdict_pod_list(const struct run_pod *pods, size_t npods,
		       const size_t *idx, size_t nidx, size_t max);

#endif
