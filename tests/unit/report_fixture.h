/* One pod judged from a whole probe report (test_observed, test_linkhealth):
 * the report parsed as the plugin parses it, then check_pod() without a
 * spec or context. */
#ifndef TESTS_REPORT_FIXTURE_H
#define TESTS_REPORT_FIXTURE_H

#include <string.h>

#include "check/check.h"
#include "probe/facts.h"
#include "t.h"

static inline void judge_report(const char *rep, struct check_results *r)
{
	struct probe_facts *f = probe_facts_new();
	struct err e;

	CHECK_INT(probe_parse_report(rep, strlen(rep), f, &e), 0);
	check_results_init(r);
	check_pod(f, NULL, NULL, r);
	probe_facts_free(f);
}

#endif
