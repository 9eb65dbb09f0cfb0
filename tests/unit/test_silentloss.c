/* No silent loss (issue 37 item 3): a capped input of the pod list makes
 * the checks that needed it skipped with the reason, never absent, and a
 * capped Secret list hides more, never less. */
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/dgd.h"
#include "kube/api/dgd.h"
#include "kube/api/pods.h"
#include "probe/facts.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "t.h"

/* One worker pod whose main container has args (a JSON array's text)
 * and env (ditto); parsed as pods_list does.  l is released by the caller. */
static int parse_pod(const char *args, const char *env, struct pod_list *l)
{
	char *page = xasprintf(
		"{\"kind\":\"PodList\",\"metadata\":{},\"items\":[{\"metadata\":{\"name\":\"p\","
		"\"namespace\":\"n\",\"labels\":{\"nvidia.com/dynamo-component-type\":\"decode\"}},"
		"\"spec\":{\"nodeName\":\"a\",\"containers\":[{\"name\":\"main\",\"command\":"
		"[\"python3\",\"-m\",\"dynamo.vllm\"],\"args\":%s,\"env\":%s}]},"
		"\"status\":{\"phase\":\"Running\"}}]}", args, env);
	struct pods_query q = { .namespace = "n" };
	char *next = NULL;
	struct err e;
	int rc;

	err_clear(&e);
	rc = pods_parse_page(page, strlen(page), &q, l, &next, &e);
	free(next);
	free(page);
	return rc == 0 && l->n == 1 ? 0 : -1;
}

/* A JSON array of n strings of len bytes each. */
static char *words(size_t n, size_t len)
{
	struct buf b = BUF_INIT(1u << 24);

	buf_appends(&b, "[");
	for (size_t i = 0; i < n; i++) {
		buf_appends(&b, i ? ",\"" : "\"");
		for (size_t k = 0; k < len; k++)
			buf_appends(&b, "a");
		buf_appends(&b, "\"");
	}
	buf_appends(&b, "]");
	return buf_detach(&b, NULL);
}

static void args_over_cap(void)
{
	char *big = words(70, 1024);    /* 70 KiB of argv: past the 64 KiB read */
	struct pod_list l = { 0 };

	CHECK_INT(parse_pod("[\"--kv-transfer-config\"]", "[]", &l), 0);
	if (l.n == 1) {
		CHECK_STR(l.items[0].args, "python3 -m dynamo.vllm --kv-transfer-config");
		CHECK_STR(l.items[0].args_unread, "");
	}
	pod_list_release(&l);
	memset(&l, 0, sizeof(l));
	CHECK_INT(parse_pod(big, "[]", &l), 0);
	if (l.n == 1) {
		CHECK_STR(l.items[0].args, "");
		CHECK(strstr(l.items[0].args_unread, "over 64 KiB") != NULL);
	}
	pod_list_release(&l);
	free(big);
}

/* More secretKeyRef entries than the 64 KiB list holds: every variable
 * may be from a Secret (before: none was, and a value went unmasked). */
static void secrets_over_cap(void)
{
	struct buf b = BUF_INIT(1u << 24);
	struct pod_list l = { 0 };
	char *env;

	buf_appends(&b, "[");
	for (int i = 0; i < 6000; i++)
		buf_appendf(&b, "%s{\"name\":\"S%d\",\"valueFrom\":{\"secretKeyRef\":{\"name\":"
			    "\"sec-%d\",\"key\":\"k\"}}}", i ? "," : "", i, i);
	buf_appends(&b, "]");
	env = buf_detach(&b, NULL);
	CHECK_INT(parse_pod("[]", env, &l), 0);
	if (l.n == 1)
		CHECK(!strncmp(l.items[0].secret_env, "*=", 2));
	pod_list_release(&l);
	free(env);
}

/* The fw-* checks of a worker whose args were not read: each skipped,
 * with the reason. */
static void fw_skipped(void)
{
	static const char *const fw[] = { "fw-vllm", "fw-sglang", "fw-trtllm", "fw-mooncake",
					  "fw-tp-nodes" };
	struct pod_spec_facts s = { .gpus = 8, .rdma_devices = 1, .efa_devices = -1, .ipc_lock = 1,
				    .shm_bytes = -1 };
	struct check_context c = { .role = "decode", .kv_cross_pod = 1, .kv_known = 1,
				   .args = NULL,
				   .args_unread = "the container's command and args are over 64 KiB, not read" };
	struct probe_facts *f = probe_facts_new();
	struct check_results r;

	check_results_init(&r);
	check_pod(f, &s, &c, &r);
	for (size_t i = 0; i < sizeof fw / sizeof fw[0]; i++) {
		const struct check_result *x = check_results_find(&r, fw[i]);

		CHECK(x != NULL);
		if (!x)
			continue;
		CHECK_INT((int)x->status, CHECK_SKIPPED);
		CHECK(strstr(x->detail, "over 64 KiB") != NULL);
	}
	check_results_release(&r);
	probe_facts_free(f);
}

/* The probe's env section: n transport variables (UCX_X<i>) and UCX_TLS of
 * vlen bytes last; parsed as a report is. */
static struct probe_facts *env_report(int n, size_t vlen)
{
	struct buf b = BUF_INIT(1u << 24);
	struct probe_facts *f = probe_facts_new();
	struct err e;

	buf_appends(&b, "dynamo-interconnect-probe v1\n@@@ env_pid1\n");
	for (int i = 0; i < n; i++)
		buf_appendf(&b, "UCX_X%d=1\n", i);
	buf_appends(&b, "UCX_TLS=");
	for (size_t i = 0; i < vlen; i++)
		buf_appends(&b, "r");
	buf_appends(&b, "\n@@@ end env_pid1 rc=0\n@@@ done\n");
	err_clear(&e);
	CHECK_INT(probe_parse_report(buf_str(&b), b.len, f, &e), 0);
	buf_release(&b);
	return f;
}

/* Past the probe env's caps (512 variables, 4096 bytes a value) the
 * environment is not judged, and says why: never judged on a part (a
 * UCX_TLS after the 512th, or cut to 4096 bytes, read as unset or as
 * another value). */
static void env_over_cap(void)
{
	struct probe_facts *f = env_report(10, 2);

	CHECK_INT(f->env.src.status, PROBE_OK);
	probe_facts_free(f);
	f = env_report(600, 2);
	CHECK_INT(f->env.src.status, PROBE_FAILED);
	CHECK(strstr(f->env.src.err, "512") != NULL);
	probe_facts_free(f);
	f = env_report(1, 5000);
	CHECK_INT(f->env.src.status, PROBE_FAILED);
	CHECK(strstr(f->env.src.err, "4096 bytes") != NULL);
	probe_facts_free(f);
}

/* A decode pod whose prefill peer's args were not read: its pair rule
 * (fw-pd-parallel) is skipped with the reason, not left out. */
static void pair_skipped(void)
{
	struct pod_spec_facts s = { .gpus = 8, .rdma_devices = 1, .efa_devices = -1, .ipc_lock = 1,
				    .shm_bytes = -1 };
	struct check_context c = { .role = "decode", .kv_cross_pod = 1, .kv_known = 1,
				   .args = "python3 -m sglang.launch_server --disaggregation-mode decode --tp 2",
				   .peer_args_unread = "the prefill peer's command and args are over 64 KiB, not read" };
	struct probe_facts *f = probe_facts_new();
	struct check_results r;
	const struct check_result *x;

	check_results_init(&r);
	check_pod(f, &s, &c, &r);
	x = check_results_find(&r, "fw-pd-parallel");
	CHECK(x != NULL);
	if (x) {
		CHECK_INT((int)x->status, CHECK_SKIPPED);
		CHECK(strstr(x->detail, "over 64 KiB") != NULL);
	}
	check_results_release(&r);
	probe_facts_free(f);
}

/* A spec env list past its 64 KiB (transport variables): "" with the
 * reason, and the DGD's P3 says it did not compare rather than calling
 * every variable unset. */
static void spec_env_over_cap(void)
{
	struct buf b = BUF_INIT(1u << 24);
	struct pod_list l = { 0 };
	char *env;

	buf_appends(&b, "[");
	for (int i = 0; i < 2000; i++)
		buf_appendf(&b, "%s{\"name\":\"UCX_V%d\",\"value\":\"%040d\"}", i ? "," : "", i, i);
	buf_appends(&b, "]");
	env = buf_detach(&b, NULL);
	CHECK_INT(parse_pod("[]", env, &l), 0);
	if (l.n == 1) {
		CHECK_STR(l.items[0].spec_env, "");
		CHECK(strstr(l.items[0].spec_env_unread, "over 64 KiB") != NULL);
	}
	pod_list_release(&l);
	free(env);
	memset(&l, 0, sizeof(l));
	CHECK_INT(parse_pod("[]", "[{\"name\":\"UCX_TLS\",\"value\":\"rc\"}]", &l), 0);
	if (l.n == 1) {
		CHECK_STR(l.items[0].spec_env, "UCX_TLS=rc\n");
		CHECK_STR(l.items[0].spec_env_unread, "");
	}
	pod_list_release(&l);
}

static void dgd_env_unread(void)
{
	static const char body[] =
		"{\"metadata\":{\"name\":\"g\",\"namespace\":\"n\"},\"spec\":{\"components\":[{\"name\":"
		"\"decode\",\"type\":\"decode\",\"replicas\":1,\"podTemplate\":{\"spec\":{\"containers\":"
		"[{\"name\":\"main\",\"env\":[{\"name\":\"UCX_TLS\",\"value\":\"rc\"}]}]}}}]}}";
	struct dgd_pod pod = { "n", "p", "g", "decode", "", "", 1,
			       "the container's env list is over 64 KiB, not read" };
	struct dgd_set s = { 0 };
	struct dgd_findings f = { 0 };
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(body, sizeof(body) - 1, "v1beta1", &s, &e), 0);
	dgd_judge(&s, &pod, 1, &f);
	CHECK_INT((int)f.n, 1);
	if (f.n == 1) {
		CHECK_STR(dgd_check_def(f.items[0].check)->name, "dgd-env");
		CHECK(strstr(f.items[0].detail, "not compared") != NULL);
		CHECK(strstr(f.items[0].detail, "unset") == NULL);
	}
	dgd_findings_release(&f);
	dgd_set_release(&s);
}

int main(void)
{
	args_over_cap();
	secrets_over_cap();
	fw_skipped();
	env_over_cap();
	pair_skipped();
	spec_env_over_cap();
	dgd_env_unread();
	printf("test_silentloss: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
