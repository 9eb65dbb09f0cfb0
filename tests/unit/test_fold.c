/* One root cause per pod (src/check/fold.c, src/verdict/fold.c; issue 22
 * item 5, checks.md N "One root cause"): what follows from a failed check
 * names it as its cause, roots name none, and the verdict files the
 * followers under the root's finding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "t.h"
#include "verdict/verdict.h"

static void add(struct check_results *r, const char *name, enum check_status st)
{
	CHECK_INT(check_results_add_def(r, name, st, "detail", st == CHECK_OK ? NULL : "fix"), 0);
}

static const char *cause(const struct check_results *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return check_cause(r, i);
	return "(absent)";
}

static void test_chain(void)
{
	struct check_results r;

	check_results_init(&r);
	add(&r, "rdma-devices", CHECK_FAIL);
	add(&r, "rdma-verbs", CHECK_FAIL);
	add(&r, "ucx-rdma", CHECK_FAIL);
	add(&r, "gpudirect-ucx-md", CHECK_SKIPPED);
	add(&r, "logs-ucx", CHECK_FAIL);
	add(&r, "env-ucx-tls", CHECK_OK);
	add(&r, "limits-memlock", CHECK_OK);
	CHECK(cause(&r, "rdma-devices") == NULL);            /* the root */
	CHECK_STR(cause(&r, "rdma-verbs"), "rdma-devices");
	CHECK_STR(cause(&r, "ucx-rdma"), "rdma-devices");
	CHECK_STR(cause(&r, "gpudirect-ucx-md"), "rdma-devices");
	CHECK_STR(cause(&r, "logs-ucx"), "rdma-devices");
	CHECK(cause(&r, "env-ucx-tls") == NULL);             /* ok: nothing to fold */
	CHECK_STR(check_cause_of(&r, "ucx-rdma"), "rdma-devices");
	CHECK_STR(check_cause_of(&r, "rdma-devices"), "rdma-devices");
	CHECK(check_cause_of(&r, "env-ucx-tls") == NULL);
	check_results_release(&r);

	/* No failure above: a failing consequence is a root of its own. */
	check_results_init(&r);
	add(&r, "rdma-devices", CHECK_OK);
	add(&r, "ucx-rdma", CHECK_FAIL);
	add(&r, "logs-ucx", CHECK_FAIL);
	CHECK(cause(&r, "ucx-rdma") == NULL);
	CHECK_STR(cause(&r, "logs-ucx"), "ucx-rdma");
	check_results_release(&r);

	/* A warning above explains nothing: only a fail is a cause. */
	check_results_init(&r);
	add(&r, "gpudirect-peermem", CHECK_WARN);
	add(&r, "limits-driver", CHECK_WARN);
	CHECK(cause(&r, "limits-driver") == NULL);
	check_results_release(&r);
}

/* The verdict: three pods, each broken once with followers, read as three
 * root findings; the followers are listed under them, not on their own. */
static void test_verdict(void)
{
	struct pod_info info[3] = {
		{ .name = "p-0", .node = "n0", .role = "prefill" },
		{ .name = "d-0", .node = "n1", .role = "decode" },
		{ .name = "d-1", .node = "n2", .role = "decode" },
	};
	struct run_pod pods[3];
	struct verdict v;
	size_t nroots = 0;

	memset(pods, 0, sizeof pods);
	for (int i = 0; i < 3; i++) {
		pods[i].pod = &info[i];
		pods[i].probed = 1;
		check_results_init(&pods[i].results);
	}
	add(&pods[0].results, "rdma-devices", CHECK_FAIL);
	add(&pods[0].results, "rdma-verbs", CHECK_FAIL);
	add(&pods[0].results, "logs-nixl", CHECK_FAIL);
	add(&pods[1].results, "env-ucx-tls", CHECK_FAIL);
	add(&pods[1].results, "logs-ucx", CHECK_FAIL);
	add(&pods[2].results, "gpudirect-peermem", CHECK_FAIL);
	add(&pods[2].results, "limits-driver", CHECK_WARN);
	verdict_compute(pods, 3, &v);
	CHECK_INT(v.status, VERDICT_NOT_READY);
	for (size_t i = 0; i < v.nfindings; i++) {
		const struct verdict_finding *f = &v.findings[i];

		CHECK(strcmp(f->name, "rdma-verbs") && strcmp(f->name, "logs-nixl") &&
		      strcmp(f->name, "logs-ucx") && strcmp(f->name, "limits-driver"));
		nroots += f->status == CHECK_FAIL;
		if (!strcmp(f->name, "rdma-devices")) {
			CHECK_INT((int)f->nfolded, 2);
			CHECK_STR(f->nfolded ? f->folded[0] : NULL, "rdma-verbs");
		}
		if (!strcmp(f->name, "gpudirect-peermem"))
			CHECK_STR(f->nfolded ? f->folded[0] : NULL, "limits-driver");
	}
	CHECK_INT((int)nroots, 3);
	CHECK_INT((int)v.nwarnings, 0);                      /* the warn is folded */
	CHECK_HAS(v.fix_first, "rdma-devices");
	verdict_release(&v);
	for (int i = 0; i < 3; i++)
		check_results_release(&pods[i].results);
}

int main(void)
{
	test_chain();
	test_verdict();
	return T_DONE("test_fold");
}
