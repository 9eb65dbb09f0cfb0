/* A run's verdict and the report the printers take (report/report.h):
 * built once from the per-pod objects, so no command judges by itself. */
#ifndef RUN_JUDGE_H
#define RUN_JUDGE_H

#include "verdict/verdict.h"
#include "report/report.h"
#include "run/run.h"

/* Owns the arrays and the verdict; borrows everything else from the run,
 * which must outlive it.  report.pods[i] is pr->pod[i]. */
struct run_judgement {
	struct report_pod *pods;
	struct verdict verdict;
	struct report report;
};

void run_judge(const struct run *pr, int all_namespaces, struct run_judgement *j);
void run_judgement_release(struct run_judgement *j);
/* Pod i's own verdict (no cross-pod comparison), as for `nixl`. */
enum verdict_status run_pod_verdict(const struct run *pr, size_t i);

#endif
