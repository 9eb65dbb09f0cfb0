/* The verdict over a run and its report (judge.h). */
#include <stdlib.h>
#include <string.h>

#include "run/judge.h"
#include "util/xalloc.h"

void run_judge(const struct run *pr, int all_namespaces, struct run_judgement *j)
{
	size_t n = pr->pods->n;

	memset(j, 0, sizeof(*j));
	j->pods = xcalloc(n ? n : 1, sizeof(*j->pods));
	verdict_compute(pr->pod, n, &j->verdict);
	for (size_t i = 0; i < n; i++) {
		j->pods[i].pod = pr->pod[i].pod;
		j->pods[i].probed = pr->pod[i].probed;
		j->pods[i].error = pr->pod[i].error;
		j->pods[i].results = &pr->pod[i].results;
		j->pods[i].verdict = j->verdict.pod[i];
	}
	j->report.pods = j->pods;
	j->report.n = n;
	j->report.verdict = &j->verdict;
	j->report.all_namespaces = all_namespaces;
}

enum verdict_status run_pod_verdict(const struct run *pr, size_t i)
{
	return verdict_pod(&pr->pod[i]);
}

void run_judgement_release(struct run_judgement *j)
{
	verdict_release(&j->verdict);
	free(j->pods);
	memset(j, 0, sizeof(*j));
}
