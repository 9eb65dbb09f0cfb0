/* The verdict over a run and its report (judge.h). */
#include <stdlib.h>
#include <string.h>

#include "run/judge.h"
#include "util/xalloc.h"

void run_judge(const struct run *pr, int all_namespaces, struct run_judgement *j)
{
	size_t n = pr->pods->n;

	memset(j, 0, sizeof(*j));
	j->rec = xcalloc(n ? n : 1, sizeof(*j->rec));
	j->pods = xcalloc(n ? n : 1, sizeof(*j->pods));
	run_records(pr, j->rec);
	verdict_compute(j->rec, n, &j->verdict);
	for (size_t i = 0; i < n; i++) {
		j->pods[i].pod = pr->pod[i].pod;
		j->pods[i].probed = j->rec[i].probed;
		j->pods[i].error = j->rec[i].error;
		j->pods[i].results = j->rec[i].results;
		j->pods[i].verdict = verdict_pod(&j->rec[i]);
	}
	j->report.pods = j->pods;
	j->report.n = n;
	j->report.verdict = &j->verdict;
	j->report.all_namespaces = all_namespaces;
}

enum verdict_status run_pod_verdict(const struct run *pr, size_t i)
{
	struct pod_record *rec = xcalloc(pr->pods->n ? pr->pods->n : 1, sizeof(*rec));
	enum verdict_status v;

	run_records(pr, rec);
	v = verdict_pod(&rec[i]);
	free(rec);
	return v;
}

void run_judgement_release(struct run_judgement *j)
{
	verdict_release(&j->verdict);
	free(j->pods);
	free(j->rec);
	memset(j, 0, sizeof(*j));
}
