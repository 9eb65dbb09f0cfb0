/* Unit tests of the per-pod run (src/run/): the deployment-wide context
 * each pod's checks get, and a report entering as text (node). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
#include "run/run.h"
#include "run/transfer.h"
#include "t.h"
#include "util/intern.h"
#include "verdict/verdict.h"

/* kv_cross_node: some prefill and some decode pod on different nodes. */
static int cross_node(const char *const *roles, const char *const *nodes, size_t n)
{
	struct pod_list l = { 0 };
	struct run pr;
	int x;

	l.items = calloc(n, sizeof(*l.items));
	l.n = n;
	for (size_t i = 0; i < n; i++) {
		l.items[i].role = (char *)roles[i];
		l.items[i].node = (char *)nodes[i];
	}
	run_init(&pr, &l);
	x = pr.pod[0].ctx.kv_cross_node;
	for (size_t i = 1; i < n; i++)
		CHECK_INT(pr.pod[i].ctx.kv_cross_node, x);   /* deployment-wide */
	CHECK(pr.pod[n - 1].pod == &l.items[n - 1]);
	run_release(&pr);
	free(l.items);
	return x;
}

static void test_contexts(void)
{
	const char *r1[] = { "prefill", "prefill", "decode" }, *n1[] = { "a", "b", "a" };
	const char *r2[] = { "prefill", "decode", "worker" }, *n2[] = { "a", "a", "b" };
	const char *r3[] = { "prefill", "prefill" }, *n3[] = { "a", "b" };
	const char *r4[] = { "decode", "worker", "prefill" }, *n4[] = { "b", "a", "a" };
	const char *r5[] = { "decode", "prefill", "decode" }, *n5[] = { "a", "a", "a" };

	CHECK_INT(cross_node(r1, n1, 3), 1);   /* the second prefill is on b */
	CHECK_INT(cross_node(r2, n2, 3), 0);   /* only the worker is elsewhere */
	CHECK_INT(cross_node(r3, n3, 2), 0);   /* no decode at all */
	CHECK_INT(cross_node(r4, n4, 3), 1);
	CHECK_INT(cross_node(r5, n5, 3), 0);
}

/* node's path: the probe text itself, no exec.  Text that is not a
 * report is an unprobed pod with the parser's reason, and a verdict. */
static void test_digest_report(void)
{
	struct pod_list l = { 0 };
	struct run pr;
	struct verdict v;
	static const char junk[] = "this is not a probe report\n";
	static struct pod_spec_facts spec;

	l.items = calloc(1, sizeof(*l.items));
	l.n = 1;
	l.items[0].role = l.items[0].node = l.items[0].name = (char *)"";
	l.items[0].namespace = l.items[0].graph = (char *)"";
	l.items[0].secret_env = (char *)"";
	spec.gpus = spec.rdma_devices = -1;
	l.items[0].spec = &spec;           /* borrowed: l is not released */
	run_init(&pr, &l);
	run_digest_report(&pr, 0, junk, sizeof(junk) - 1);
	CHECK_INT(pr.pod[0].probed, 0);
	CHECK_INT(pr.pod[0].reason.kind, REASON_REPORT);
	CHECK(pr.pod[0].reason.why && strstr(pr.pod[0].reason.why, "cannot read the probe report"));
	CHECK(check_results_find(&pr.pod[0].results, "pod-probe") != NULL);
	verdict_compute(pr.pod, l.n, &v);
	CHECK_INT(v.npods, 1);
	CHECK(pr.pod[0].pod == &l.items[0]);
	CHECK(v.exit_code != 0);
	verdict_release(&v);
	run_release(&pr);
	free(l.items);
}

/* A sink that keeps every notice, one per line. */
static void keep(const char *line, void *arg)
{
	buf_appendf(arg, "%s\n", line);
}

/* The library says what it does only through the caller's sink: a
 * transfer that cannot run (no ucx_perftest: no exec is made, so no
 * client is needed) is one notice there and a TRANSFER result on both
 * pods; without a sink it is silent and judges the same. */
static void test_transfer_notice(void)
{
	struct pod_info a = { .name = "p-0", .role = "prefill", .node = "n1" };
	struct pod_info b = { .name = "d-0", .role = "decode", .node = "n2" };
	struct check_results ra, rb;
	struct transfer_side cl = { &a, NULL, &ra }, sv = { &b, NULL, &rb };
	struct buf said = BUF_INIT(1 << 12);
	struct run_sink sink = { .notice = keep, .arg = &said };

	check_results_init(&ra);
	check_results_init(&rb);
	run_transfer_pair(NULL, &cl, &sv, 1000, &sink);
	CHECK_STR(buf_str(&said), "transfer: not run between p-0 and d-0: no ucx_perftest in p-0\n");
	CHECK(check_results_find(&ra, "transfer") != NULL);
	CHECK(check_results_find(&rb, "transfer") != NULL);
	check_results_release(&ra);
	check_results_release(&rb);
	check_results_init(&ra);
	check_results_init(&rb);
	run_transfer_pair(NULL, &cl, &sv, 1000, NULL);
	CHECK(check_results_find(&ra, "transfer") != NULL);
	run_say(NULL, "nothing %d", 1);
	CHECK_INT((int)said.len, (int)strlen("transfer: not run between p-0 and d-0: no ucx_perftest in p-0\n"));
	check_results_release(&ra);
	check_results_release(&rb);
	buf_release(&said);
}

/* check_context.peer_args: a decode pod gets the args of a prefill pod of
 * its own graph (the framework book's pair rule), nobody else does. */
static void test_peer_args(void)
{
	struct pod_info it[4] = {
		{ .name = "d", .role = "decode", .graph = "g", .namespace = "n", .node = "b" },
		{ .name = "p2", .role = "prefill", .graph = "other", .namespace = "n", .node = "a" },
		{ .name = "p", .role = "prefill", .graph = "g", .namespace = "n", .node = "a" },
		{ .name = "w", .role = "worker", .graph = "g", .namespace = "n", .node = "a" },
	};
	struct pod_list l = { .items = it, .n = 4 };
	struct run pr;

	it[1].args = "sglang --tp 8";
	it[2].args = "sglang --tp 3";
	it[3].args = "sglang --tp 2";
	run_init(&pr, &l);
	CHECK(pr.pod[0].ctx.peer_args == it[2].args);
	CHECK(pr.pod[1].ctx.peer_args == NULL);
	CHECK(pr.pod[2].ctx.peer_args == NULL);
	CHECK(pr.pod[3].ctx.peer_args == NULL);
	run_release(&pr);
}

/* The env a run keeps per pod (keep_env): pods with the same process env
 * share one block, and the view gives back every name, value, Secret mark
 * and the section's status. */
static void test_env_block(void)
{
	struct probe_env_var va[] = {
		{ (char *)"UCX_TLS", (char *)"rc,cuda_copy", NULL, NULL },
		{ (char *)"NCCL_SOCKET_IFNAME", (char *)"<from secret net>", (char *)"net", (char *)"0123abcd" },
		{ (char *)"UCX_NET_DEVICES", (char *)"", NULL, NULL },
	};
	struct probe_env e = { .n = 3, .var = va }, other = { .n = 1, .var = va }, v;
	struct run_pod a = { 0 }, b = { 0 }, c = { 0 };
	size_t before = intern_count();

	e.src.status = PROBE_OK;
	other.src.status = PROBE_FAILED;
	a.env_block = run_env_block(&e);
	b.env_block = run_env_block(&e);
	CHECK(a.env_block != NULL && a.env_block == b.env_block);  /* shared */
	CHECK_INT((int)(intern_count() - before), 1);
	CHECK_INT(run_pod_env_view(&a, &v), 1);
	CHECK_INT(v.src.status, PROBE_OK);
	CHECK_INT((int)v.n, 3);
	for (size_t i = 0; i < 3 && v.n == 3; i++) {
		CHECK_STR(v.var[i].name, va[i].name);
		CHECK_STR(v.var[i].value, va[i].value);
		CHECK((v.var[i].secret == NULL) == (va[i].secret == NULL));
		CHECK((v.var[i].digest == NULL) == (va[i].digest == NULL));
	}
	CHECK(v.n == 3 && v.var[1].secret && !strcmp(v.var[1].secret, "net"));
	CHECK(v.n == 3 && v.var[1].digest && !strcmp(v.var[1].digest, "0123abcd"));
	CHECK_STR(probe_env_get(&v, "UCX_TLS"), "rc,cuda_copy");
	free(v.var);
	c.env_block = run_env_block(&other);
	CHECK(c.env_block != a.env_block);
	CHECK_INT(run_pod_env_view(&c, &v), 1);
	CHECK_INT(v.src.status, PROBE_FAILED);
	CHECK_INT((int)v.n, 1);
	free(v.var);
	intern_unref(a.env_block, NULL);
	intern_unref(b.env_block, NULL);
	intern_unref(c.env_block, NULL);
	CHECK_INT((int)intern_count(), (int)before);
	memset(&a, 0, sizeof(a));
	CHECK_INT(run_pod_env_view(&a, &v), 0);   /* nothing kept */
	CHECK(v.var == NULL && v.n == 0);
}

int main(void)
{
	test_env_block();
	test_contexts();
	test_peer_args();
	test_digest_report();
	test_transfer_notice();
	return T_DONE("test_run");
}
