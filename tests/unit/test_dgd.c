/* DGD reading (kube/api/dgd.c) and judging (check/dgd.c, checks.md P). */
#include <string.h>

#include "t.h"

#include "check/dgd.h"
#include "kube/api/dgd.h"
#include "kube/api/pods.h"
#include "run/dgd.h"
#include "util/buf.h"
#include "util/sha256.h"
#include "util/xalloc.h"

static const char beta[] =
	"{\"kind\":\"DynamoGraphDeploymentList\",\"items\":[{\"metadata\":{\"name\":\"qwen\","
	"\"namespace\":\"dynamo\",\"annotations\":{\"nvidia.com/current-worker-hash\":\"aaa\"}},"
	"\"spec\":{\"components\":[{\"name\":\"decode\",\"componentType\":\"decode\",\"replicas\":2,"
	"\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"side\"},{\"name\":\"main\",\"env\":["
	"{\"name\":\"UCX_TLS\",\"value\":\"rc,cuda_copy\"},{\"name\":\"TOKEN\",\"valueFrom\":{}}]}]}}},"
	"{\"name\":\"prefill\",\"componentType\":\"prefill\",\"replicas\":1}]},"
	"\"status\":{\"state\":\"successful\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}]}";

static const char alpha[] =
	"{\"metadata\":{\"name\":\"old\",\"namespace\":\"dynamo\"},\"spec\":{\"envs\":[{\"name\":"
	"\"UCX_TLS\",\"value\":\"all\"}],\"services\":{\"VllmWorker\":{\"componentType\":\"worker\","
	"\"replicas\":1,\"envs\":[{\"name\":\"NIXL_LOG\",\"value\":\"x\\ny\"}]}}}}";

/* The field names of the real CRDs (deploy/operator/api/v1beta1 and
 * v1alpha1): v1beta1 "type", spec.env, status.components; v1alpha1
 * subComponentType, resources, extraPodSpec.mainContainer.env,
 * status.services. */
static const char beta_real[] =
	"{\"metadata\":{\"name\":\"g\"},\"spec\":{\"env\":[{\"name\":\"UCX_TLS\",\"value\":\"all\"}],"
	"\"components\":[{\"name\":\"decode\",\"type\":\"decode\",\"podTemplate\":{\"spec\":"
	"{\"containers\":[{\"name\":\"main\",\"env\":[{\"name\":\"UCX_TLS\",\"value\":\"rc\"}],"
	"\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"8\",\"bad\":3}}}]}}}]},"
	"\"status\":{\"components\":{\"decode\":{\"replicas\":2,\"updatedReplicas\":1,"
	"\"readyReplicas\":-4}}}}";

static const char alpha_real[] =
	"{\"metadata\":{\"name\":\"g\"},\"spec\":{\"envs\":[{\"name\":\"NCCL_IB_HCA\",\"value\":\"a\"}],"
	"\"services\":{\"Dec\":{\"componentType\":\"worker\",\"subComponentType\":\"decode\","
	"\"resources\":{\"requests\":{\"cpu\":\"8\"}},\"envs\":[{\"name\":\"NCCL_IB_HCA\",\"value\":\"b\"}],"
	"\"extraPodSpec\":{\"mainContainer\":{\"env\":[{\"name\":\"FI_PROVIDER\",\"value\":\"efa\"}]}}}}},"
	"\"status\":{\"services\":{\"Dec\":{\"availableReplicas\":1}}}}";

static void parse_real_fields(void)
{
	struct dgd_set s = { 0 };
	struct dgd_findings f = { 0 };
	struct err e;
	const struct dgd_component *k;
	const struct dgd_pod pods[] = {
		/* UCX_TLS as the component says (its entry over spec.env's) */
		{ "", "d-1", "g", "decode", "", "UCX_TLS=rc\n", 1, NULL },
		/* a value from a Secret is not compared */
		{ "", "d-2", "g", "decode", "", "UCX_TLS=" DGD_POD_SECRET "\n", 1, NULL },
	};

	err_clear(&e);
	CHECK_INT(dgd_parse(beta_real, sizeof(beta_real) - 1, "v1beta1", &s, &e), 0);
	k = &s.items[0].comp[0];
	CHECK_STR(k->type, "decode");
	CHECK_STR(k->env, "UCX_TLS=all\nUCX_TLS=rc\n");
	CHECK_STR(k->limits, "nvidia.com/gpu=8\n");
	CHECK_INT(k->st_replicas, 2);
	CHECK_INT(k->st_updated, 1);
	CHECK_INT(k->st_ready, -1);
	CHECK_INT(k->st_available, -1);
	dgd_judge(&s, pods, 2, &f);
	CHECK_INT(f.n, 0);
	CHECK_INT(f.ncounts, 1);
	CHECK_INT(f.counts[0].running, 2);
	CHECK_INT(f.counts[0].current, -1);
	dgd_findings_release(&f);
	dgd_set_release(&s);

	err_clear(&e);
	CHECK_INT(dgd_parse(alpha_real, sizeof(alpha_real) - 1, "v1alpha1", &s, &e), 0);
	k = &s.items[0].comp[0];
	CHECK_STR(k->type, "decode");
	CHECK_STR(k->env, "NCCL_IB_HCA=a\nNCCL_IB_HCA=b\nFI_PROVIDER=efa\n");
	CHECK_STR(k->requests, "cpu=8\n");
	CHECK_INT(k->st_available, 1);
	CHECK_INT(k->st_replicas, -1);
	dgd_set_release(&s);
}

/* The main container's image and launch line (command then args, space-
 * joined) of each component, the DGD rules' input (checks.md P5): v1beta1
 * podTemplate's "main" container, v1alpha1 extraPodSpec.mainContainer;
 * "" when absent or not strings. */
static void parse_launch(void)
{
	static const char b[] =
		"{\"metadata\":{\"name\":\"g\"},\"spec\":{\"components\":[{\"name\":\"prefill\",\"type\":\"prefill\","
		"\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"side\",\"image\":\"busybox\"},"
		"{\"name\":\"main\",\"image\":\"nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0rc5\","
		"\"command\":[\"python3\",\"-m\",\"dynamo.vllm\"],\"args\":[\"--connector\",\"nixl\",7]}]}}},"
		"{\"name\":\"fe\",\"type\":\"frontend\",\"podTemplate\":{\"spec\":{\"containers\":[{\"image\":3}]}}}]}}";
	static const char a[] =
		"{\"metadata\":{\"name\":\"g\"},\"spec\":{\"services\":{\"P\":{\"componentType\":\"worker\","
		"\"subComponentType\":\"prefill\",\"extraPodSpec\":{\"mainContainer\":{\"image\":\"vllm-runtime:0.9.0\","
		"\"args\":[\"python3 -m dynamo.vllm --is-prefill-worker\"]}}}}}}";
	struct dgd_set s = { 0 };
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(b, sizeof(b) - 1, "v1beta1", &s, &e), 0);
	CHECK_STR(s.items[0].comp[0].image, "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0rc5");
	CHECK_STR(s.items[0].comp[0].args, "python3 -m dynamo.vllm --connector nixl");
	CHECK_STR(s.items[0].comp[1].image, "");
	CHECK_STR(s.items[0].comp[1].args, "");
	dgd_set_release(&s);
	err_clear(&e);
	CHECK_INT(dgd_parse(a, sizeof(a) - 1, "v1alpha1", &s, &e), 0);
	CHECK_STR(s.items[0].comp[0].image, "vllm-runtime:0.9.0");
	CHECK_STR(s.items[0].comp[0].args, "python3 -m dynamo.vllm --is-prefill-worker");
	dgd_set_release(&s);
}

/* P3 on a value from a Secret: judged on the real value through its
 * SHA-256, which never shows: equal is no finding, different is one
 * dgd-env warn that names neither the digest nor the value. */
static void secret_judged(void)
{
	struct dgd_set s = { 0 };
	struct dgd_findings f = { 0 };
	struct err e;
	char same[SHA256_HEX_LEN + 1], other[SHA256_HEX_LEN + 1];
	char env_same[128], env_other[128];

	sha256_hex("rc", 2, same);
	sha256_hex("tcp", 3, other);
	CHECK_INT((int)strlen(same), SHA256_HEX_LEN);
	/* the known digest of "abc" (FIPS 180-2, appendix B.1) */
	{
		char abc[SHA256_HEX_LEN + 1];

		sha256_hex("abc", 3, abc);
		CHECK_STR(abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	}
	snprintf(env_same, sizeof env_same, "UCX_TLS=" DGD_POD_SECRET ":%s\n", same);
	snprintf(env_other, sizeof env_other, "UCX_TLS=" DGD_POD_SECRET ":%s\n", other);
	{
		const struct dgd_pod pods[] = {
			{ "", "d-1", "g", "decode", "", env_same, 1, NULL },
			{ "", "d-2", "g", "decode", "", env_other, 1, NULL },
		};

		err_clear(&e);
		CHECK_INT(dgd_parse(beta_real, sizeof(beta_real) - 1, "v1beta1", &s, &e), 0);
		dgd_judge(&s, pods, 2, &f);
		CHECK_INT(f.n, 1);
		if (f.n == 1) {
			CHECK_STR(dgd_check_def(f.items[0].check)->name, "dgd-env");
			CHECK(strstr(f.items[0].detail, "pod d-2: UCX_TLS (from a Secret, not shown)") != NULL);
			CHECK(strstr(f.items[0].detail, other) == NULL);
			CHECK(strstr(f.items[0].detail, "tcp") == NULL);
		}
		dgd_findings_release(&f);
		dgd_set_release(&s);
	}
}

static void parse_beta(void)
{
	struct dgd_set s = { 0 };
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(beta, sizeof(beta) - 1, "v1beta1", &s, &e), 0);
	CHECK_INT(s.n, 1);
	CHECK_STR(s.items[0].worker_hash, "aaa");
	CHECK_STR(s.items[0].state, "successful");
	CHECK_STR(s.items[0].ready, "True");
	CHECK_INT(s.items[0].ncomp, 2);
	CHECK_STR(s.items[0].comp[0].type, "decode");
	CHECK_INT(s.items[0].comp[0].replicas, 2);
	CHECK_STR(s.items[0].comp[0].env, "UCX_TLS=rc,cuda_copy\nTOKEN=<valueFrom>\n");
	dgd_set_release(&s);
}

static void parse_alpha(void)
{
	struct dgd_set s = { 0 };
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(alpha, sizeof(alpha) - 1, "v1alpha1", &s, &e), 0);
	CHECK_INT(s.n, 1);
	CHECK_STR(s.items[0].comp[0].name, "VllmWorker");
	CHECK_STR(s.items[0].comp[0].type, "worker");
	/* graph-wide first, the service's own after; the newline made '?' */
	CHECK_STR(s.items[0].comp[0].env, "UCX_TLS=all\nNIXL_LOG=x?y\n");
	dgd_set_release(&s);
}

static void bad_input(void)
{
	static const char *const bad[] = {
		"[1,2]", "{\"items\":3}", "nope",
		"{\"metadata\":{\"name\":\"a\"},\"spec\":{\"components\":{}}}",
		"{\"metadata\":{\"name\":\"a\"},\"spec\":{\"components\":[{\"replicas\":\"2\"}]}}",
		"{\"metadata\":{\"name\":\"a\"},\"spec\":{\"components\":[{\"podTemplate\":{\"spec\":"
		"{\"containers\":[{\"env\":[{\"value\":\"x\"}]}]}}}]}}",
		"{\"metadata\":{}}",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct dgd_set s = { 0 };
		struct err e;

		err_clear(&e);
		CHECK_INT(dgd_parse(bad[i], strlen(bad[i]), "v1beta1", &s, &e), -1);
		CHECK(e.msg[0] && !strchr(e.msg, '\n'));
		dgd_set_release(&s);
	}
}

static void too_many(void)
{
	struct dgd_set s = { 0 };
	struct err e;
	char *body = malloc(20 * (DGD_MAX_COMPONENTS + 2) + 100), *p = body;
	int i;

	p += sprintf(p, "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"components\":[");
	for (i = 0; i <= DGD_MAX_COMPONENTS; i++)
		p += sprintf(p, "%s{\"name\":\"c%d\"}", i ? "," : "", i);
	strcpy(p, "]}}");
	err_clear(&e);
	CHECK_INT(dgd_parse(body, strlen(body), "v1beta1", &s, &e), -1);
	CHECK(strstr(e.msg, "more than") != NULL);
	dgd_set_release(&s);
	free(body);
}

static int has(const struct dgd_findings *f, const char *check, const char *needle)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(dgd_check_def(f->items[i].check)->name, check) && strstr(f->items[i].detail, needle))
			return 1;
	return 0;
}

/* A list body: items wrapped around a bad DGD ("bad") and a good one
 * ("good", a decode component with replicas 1 and no pod). */
static char *list_with(const char *bad_spec)
{
	return xasprintf("{\"kind\":\"DynamoGraphDeploymentList\",\"metadata\":{\"resourceVersion\":"
			 "\"1\"},\"items\":[{\"metadata\":{\"name\":\"bad\",\"namespace\":\"t\"},"
			 "\"spec\":%s},{\"metadata\":{\"name\":\"good\",\"namespace\":\"d\"},"
			 "\"spec\":{\"components\":[{\"name\":\"decode\",\"type\":\"decode\","
			 "\"replicas\":1}]}}]}", bad_spec);
}

static char *env_spec(size_t n, const char *name)
{
	struct buf b = BUF_INIT(1u << 24);
	size_t i;

	buf_appends(&b, "{\"components\":[{\"name\":\"x\",\"type\":\"decode\",\"podTemplate\":"
		    "{\"spec\":{\"containers\":[{\"name\":\"main\",\"env\":[");
	for (i = 0; i < n; i++)
		buf_appendf(&b, "%s{\"name\":\"%s%zu\",\"value\":\"v\"}", i ? "," : "", name, i);
	buf_appends(&b, "]}]}}}]}");
	return buf_detach(&b, NULL);
}

static char *comps_spec(size_t n)
{
	struct buf b = BUF_INIT(1u << 24);
	size_t i;

	buf_appends(&b, "{\"components\":[");
	for (i = 0; i < n; i++)
		buf_appendf(&b, "%s{\"name\":\"c%zu\",\"type\":\"frontend\"}", i ? "," : "", i);
	buf_appends(&b, "]}");
	return buf_detach(&b, NULL);
}

/* Issue 37 item 2: a bad item is skipped with its reason, named; the rest
 * of the list is read and judged. */
static void bad_item_is_that_item(void)
{
	char *big = xasprintf("{\"components\":[],\"pad\":\"%0*d\"}", (int)DGD_MAX_ITEM_BYTES, 0);
	char *specs[] = {
		xstrdup("{\"components\":[{\"name\":\"d\",\"type\":\"decode\",\"replicas\":3000000000}]}"),
		comps_spec(DGD_MAX_COMPONENTS + 1),
		env_spec(1, "A=B"),
		env_spec(DGD_MAX_ENV + 1, "E"),
		xstrdup("{\"components\":{}}"),
		big,
	};
	static const char *const why[] = { "replicas", "128 components", "A=B", "1000 entries",
					   "spec.components", "MiB" };

	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		char *body = list_with(specs[i]);
		struct dgd_set s = { 0 };
		struct dgd_findings f = { 0 };
		struct err e;

		err_clear(&e);
		CHECK_INT(dgd_parse(body, strlen(body), "v1beta1", &s, &e), 0);
		CHECK_INT((int)s.n, 2);
		if (s.n == 2) {
			CHECK_STR(s.items[0].name, "bad");
			CHECK_STR(s.items[0].namespace, "t");
			CHECK(strstr(s.items[0].skipped, why[i]) != NULL);
			CHECK(!strchr(s.items[0].skipped, '\n'));
			CHECK_INT((int)s.items[0].ncomp, 0);
			CHECK_STR(s.items[1].skipped, "");
			CHECK_INT((int)s.items[1].ncomp, 1);
			dgd_judge(&s, NULL, 0, &f);
			CHECK(has(&f, "dgd-component-pods", "component decode"));
			CHECK(has(&f, "dgd-skipped", why[i]));
		}
		dgd_findings_release(&f);
		dgd_set_release(&s);
		free(body);
		free(specs[i]);
	}
}

/* Bounds are the API's own: replicas is an int32 (the operator's Replicas
 * *int32, Minimum=0), a name valid under IsRelaxedEnvVarName is kept. */
static void api_bounds(void)
{
	static const char body[] =
		"{\"items\":[{\"metadata\":{\"name\":\"b\"},\"spec\":{\"components\":[{\"name\":\"d\","
		"\"type\":\"decode\",\"replicas\":2147483647,\"podTemplate\":{\"spec\":{\"containers\":"
		"[{\"name\":\"main\",\"env\":[{\"name\":\"my.env-name\",\"value\":\"1\"}]}]}}}]}},"
		"{\"metadata\":{\"name\":\"c\"},\"spec\":{\"components\":[{\"replicas\":2147483648}]}},"
		"{\"metadata\":{\"name\":\"n\"},\"spec\":{\"components\":[{\"replicas\":-1}]}},"
		"{\"metadata\":{\"name\":\"h\"},\"spec\":{\"components\":[{\"replicas\":1.5}]}},"
		"{\"metadata\":{}},7]}";
	struct dgd_set s = { 0 };
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(body, sizeof(body) - 1, "v1beta1", &s, &e), 0);
	CHECK_INT((int)s.n, 6);
	if (s.n == 6) {
		CHECK_STR(s.items[0].skipped, "");
		CHECK_INT((int)s.items[0].comp[0].replicas, 2147483647);
		CHECK_STR(s.items[0].comp[0].env, "my.env-name=1\n");
		for (int i = 1; i < 6; i++)
			CHECK(*s.items[i].skipped);
		CHECK_STR(s.items[4].name, "");
		CHECK(strstr(s.items[5].skipped, "items[5]") != NULL);
	}
	dgd_set_release(&s);
}

/* Past DGD_MAX_CONDITIONS conditions the report keeps 32, but Ready is
 * found wherever it is (a 33rd Ready read as none before). */
static void ready_past_cap(void)
{
	struct buf b = BUF_INIT(1u << 20);
	struct dgd_set s = { 0 };
	struct err e;
	char *body;

	buf_appends(&b, "{\"metadata\":{\"name\":\"g\"},\"spec\":{},\"status\":{\"conditions\":[");
	for (int i = 0; i < 40; i++)
		buf_appendf(&b, "{\"type\":\"T%d\",\"status\":\"False\"},", i);
	buf_appends(&b, "{\"type\":\"Ready\",\"status\":\"True\"}]}}");
	body = buf_detach(&b, NULL);
	err_clear(&e);
	CHECK_INT(dgd_parse(body, strlen(body), "v1beta1", &s, &e), 0);
	if (s.n == 1) {
		CHECK_STR(s.items[0].ready, "True");
		CHECK_INT((int)s.items[0].ncond, DGD_MAX_CONDITIONS);
	}
	dgd_set_release(&s);
	free(body);
}

/* A tenant's 1,001 DGDs do not blind the list (the old cap of 1,000 sent
 * every DGD to labels only); past DGD_MAX_ITEMS it is refused, said. */
static char *many(size_t n)
{
	struct buf b = BUF_INIT(1u << 26);

	buf_appends(&b, "{\"items\":[");
	for (size_t i = 0; i < n; i++)
		buf_appendf(&b, "{\"metadata\":{\"name\":\"x%zu\",\"namespace\":\"t\"}},", i);
	buf_appends(&b, "{\"metadata\":{\"name\":\"good\",\"namespace\":\"d\"},\"spec\":{\"components\":"
		    "[{\"name\":\"decode\",\"type\":\"decode\",\"replicas\":1}]}}]}");
	return buf_detach(&b, NULL);
}

static void many_items(void)
{
	char *body = many(1001);
	struct dgd_set s = { 0 };
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(body, strlen(body), "v1beta1", &s, &e), 0);
	CHECK_INT((int)s.n, 1002);
	if (s.n == 1002)
		CHECK_INT((int)s.items[1001].ncomp, 1);
	dgd_set_release(&s);
	free(body);
	body = many(DGD_MAX_ITEMS);
	memset(&s, 0, sizeof(s));
	err_clear(&e);
	CHECK_INT(dgd_parse(body, strlen(body), "v1beta1", &s, &e), -1);
	CHECK(strstr(e.msg, "more than") != NULL);
	dgd_set_release(&s);
	free(body);
}

/* check without --dgd keeps the DGDs of the listed pods and every skipped
 * one (named), in order; the rest go. */
static void keep_listed(void)
{
	char *body = many(3);
	char *bad = list_with("{\"components\":{}}");
	struct dgd_set s = { 0 };
	struct pod_info pods[1];
	struct pod_list l = { pods, 1, 1, 0, 0 };
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(body, strlen(body), "v1beta1", &s, &e), 0);
	CHECK_INT(dgd_parse(bad, strlen(bad), "v1beta1", &s, &e), 0);
	CHECK_INT((int)s.n, 6);
	memset(pods, 0, sizeof pods);
	pods[0] = (struct pod_info){ .namespace = "d", .name = "d-0", .role = "decode", .graph = "good",
				     .component = "decode" };
	run_dgd_keep_listed(&l, &s);
	/* d/good twice (two answers joined: no real server has that) is the
	 * first one's pods only, as dgd_of matches the first */
	CHECK_INT((int)s.n, 2);
	if (s.n == 2) {
		CHECK_STR(s.items[0].name, "good");   /* x0..x2: no pod, read: gone */
		CHECK_INT((int)s.items[0].ncomp, 1);
		CHECK_STR(s.items[1].name, "bad");    /* skipped: stays */
		CHECK(*s.items[1].skipped);
	}
	dgd_set_release(&s);
	free(body);
	free(bad);
}

static void judge(void)
{
	struct dgd_set s = { 0 };
	struct dgd_findings f = { 0 };
	struct err e;
	const struct dgd_pod pods[] = {
		{ "dynamo", "d-1", "qwen", "decode", "aaa", "UCX_TLS=rc,cuda_copy\n", 1, NULL },
		{ "dynamo", "d-2", "qwen", "decode", "old", "UCX_TLS=tcp\n", 1, NULL },
		{ "other", "p-1", "qwen", "prefill", "aaa", "", 1, NULL },
	};

	err_clear(&e);
	CHECK_INT(dgd_parse(beta, sizeof(beta) - 1, "v1beta1", &s, &e), 0);
	dgd_judge(&s, pods, 3, &f);
	CHECK(has(&f, "dgd-generation", "pod d-2 is of worker generation old"));
	CHECK(!has(&f, "dgd-generation", "d-1"));
	CHECK(has(&f, "dgd-env", "pod d-2: UCX_TLS is \"tcp\", the DGD says rc,cuda_copy"));
	CHECK(!has(&f, "dgd-env", "d-1"));
	CHECK(!has(&f, "dgd-env", "TOKEN"));
	/* p-1 is in another namespace: the prefill component has no pod */
	CHECK(has(&f, "dgd-component-pods", "component prefill (type prefill) has no running pod"));
	CHECK(!has(&f, "dgd-component-pods", "decode"));
	CHECK_INT(f.n, 3);
	dgd_findings_release(&f);
	s.access = DGD_FORBIDDEN;
	dgd_judge(&s, pods, 3, &f);
	CHECK_INT(f.n, 0);
	{
		char buf[300];

		CHECK(strstr(dgd_access_note(&s, buf, sizeof(buf)), "403") != NULL);
	}
	dgd_set_release(&s);
}

/* P5 (checks.md J5c): Dynamo's vLLM worker from vllm-runtime 1.0.0rc5 on
 * exits with a ValueError on the removed --connector (ai-dynamo/dynamo PR
 * #6513) and wants --kv-transfer-config (ai-dynamo/aiconfigurator PR #519:
 * prefill in CrashLoopBackOff). */
static void vllm_connector(void)
{
	static const char body[] =
		"{\"metadata\":{\"name\":\"g\",\"namespace\":\"dynamo\"},\"spec\":{\"components\":["
		"{\"name\":\"prefill\",\"type\":\"prefill\",\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"main\","
		"\"image\":\"nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0rc5\",\"command\":[\"python3\",\"-m\",\"dynamo.vllm\"],"
		"\"args\":[\"--model\",\"Qwen/Qwen3-0.6B\",\"--is-prefill-worker\",\"--connector\",\"nixl\"]}]}}},"
		"{\"name\":\"decode\",\"type\":\"decode\",\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"main\","
		"\"image\":\"nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0rc5\",\"command\":[\"python3\",\"-m\",\"dynamo.vllm\"],"
		"\"args\":[\"--kv-transfer-config\","
		"\"{\\\"kv_connector\\\":\\\"NixlConnector\\\",\\\"kv_role\\\":\\\"kv_both\\\"}\"]}]}}},"
		"{\"name\":\"both\",\"type\":\"decode\",\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"main\","
		"\"image\":\"nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0rc5\",\"command\":[\"python3\",\"-m\",\"dynamo.vllm\"],"
		"\"args\":[\"--connector\",\"nixl\",\"--kv-transfer-config\","
		"\"{\\\"kv_connector\\\":\\\"NixlConnector\\\",\\\"kv_role\\\":\\\"kv_both\\\"}\"]}]}}},"
		"{\"name\":\"old\",\"type\":\"worker\",\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"main\","
		"\"image\":\"nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0rc4\",\"args\":[\"python3 -m dynamo.vllm --connector nixl\"]}]}}},"
		"{\"name\":\"new\",\"type\":\"worker\",\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"main\","
		"\"image\":\"vllm-runtime:1.0.1\",\"args\":[\"python3 -m dynamo.vllm --connector=nixl\"]}]}}},"
		"{\"name\":\"fe\",\"type\":\"frontend\",\"podTemplate\":{\"spec\":{\"containers\":[{\"name\":\"main\","
		"\"image\":\"vllm-runtime:1.0.1\",\"args\":[\"--connector nixl\"]}]}}}]}}";
	struct dgd_set s = { 0 };
	struct dgd_findings f = { 0 };
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(body, sizeof(body) - 1, "v1beta1", &s, &e), 0);
	dgd_judge(&s, NULL, 0, &f);
	CHECK(has(&f, "dgd-vllm-connector", "component prefill: vllm-runtime:1.0.0rc5 passes "
		  "--connector nixl and no --kv-transfer-config"));
	CHECK(has(&f, "dgd-vllm-connector", "component new: vllm-runtime:1.0.1 passes --connector nixl"));
	/* --connector beside --kv-transfer-config is refused all the same
	 * (args.py _reject_connector_flag runs first) */
	CHECK(has(&f, "dgd-vllm-connector", "component both: vllm-runtime:1.0.0rc5 passes --connector nixl "
		  "beside --kv-transfer-config"));
	/* near misses: --kv-transfer-config alone; rc4, before the removal;
	 * a frontend (no worker) */
	CHECK(!has(&f, "dgd-vllm-connector", "component decode"));
	CHECK(!has(&f, "dgd-vllm-connector", "component old"));
	CHECK(!has(&f, "dgd-vllm-connector", "component fe"));
	for (size_t i = 0; i < f.n; i++)
		if (f.items[i].check == DGD_CK_VLLM_CONNECTOR)
			CHECK_INT(f.items[i].status, CHECK_FAIL);
	dgd_findings_release(&f);
	dgd_set_release(&s);
}

/* multinode.nodeCount of a component (Dynamo's DeepSeek-R1 SGLang
 * disagg-32gpu: 2) reaches its pods' check_context.nodes (checks.md J7). */
static void multinode_nodes(void)
{
	static const char body[] =
		"{\"metadata\":{\"name\":\"g\",\"namespace\":\"dynamo\"},\"spec\":{\"services\":{"
		"\"decode\":{\"componentType\":\"worker\",\"subComponentType\":\"decode\",\"multinode\":{\"nodeCount\":2}},"
		"\"prefill\":{\"componentType\":\"worker\",\"subComponentType\":\"prefill\",\"multinode\":{\"nodeCount\":\"x\"}}}}}";
	struct dgd_set s = { 0 };
	struct pod_info pods[2];
	struct pod_list l = { pods, 2, 2, 0, 0 };
	struct run pr;
	struct err e;

	err_clear(&e);
	CHECK_INT(dgd_parse(body, sizeof(body) - 1, "v1alpha1", &s, &e), 0);
	CHECK_INT(s.n, 1);
	if (s.n != 1 || s.items[0].ncomp != 2) {
		dgd_set_release(&s);
		return;
	}
	memset(pods, 0, sizeof pods);
	pods[0] = (struct pod_info){ .namespace = "dynamo", .name = "d-0", .role = "decode", .graph = "g",
				     .component = "decode", .node = "n1" };
	pods[1] = (struct pod_info){ .namespace = "dynamo", .name = "p-0", .role = "prefill", .graph = "g",
				     .component = "prefill", .node = "n2" };
	run_init(&pr, &l);
	run_dgd_nodes(&pr, &s);
	CHECK_INT(pr.pod[0].ctx.nodes, 2);
	CHECK_INT(pr.pod[1].ctx.nodes, 0);      /* no count stated: the pod's own signs */
	run_release(&pr);
	dgd_set_release(&s);
}

int main(void)
{
	parse_beta();
	parse_alpha();
	parse_real_fields();
	parse_launch();
	secret_judged();
	bad_input();
	too_many();
	judge();
	vllm_connector();
	bad_item_is_that_item();
	api_bounds();
	ready_past_cap();
	many_items();
	keep_listed();
	multinode_nodes();
	printf("test_dgd: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
