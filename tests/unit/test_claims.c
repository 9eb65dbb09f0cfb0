/* DRA ResourceClaims (src/kube/api/claims.c) and how pod-rdma-resource judges
 * them (src/check/podspec.c): a claim counts as RDMA only when the devices
 * it allocated are NICs.  The claims are shaped like real ones: NVIDIA's
 * k8s-dra-driver-gpu (driver gpu.nvidia.com, devices gpu-N), google/dranet
 * (DeviceClass dranet, driver dra.net), k8snetworkplumbingwg/dra-driver-sriov
 * (class and driver sriovnetwork.k8snetworkplumbingwg.io, devices named by
 * PCI address), in resource.k8s.io v1 (requests[].exactly) and v1beta1
 * (requests[].deviceClassName) form. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check/check.h"
#include "kube/api/claims.h"
#include "kube/api/pods.h"
#include "t.h"

static const char gpu_only_v1[] =
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","
	"\"metadata\":{\"name\":\"decode-0-gpu-x7k2q\",\"namespace\":\"demo\"},"
	"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpu\",\"exactly\":{"
	"\"deviceClassName\":\"gpu.nvidia.com\",\"allocationMode\":\"ExactCount\",\"count\":2}}]}},"
	"\"status\":{\"allocation\":{\"devices\":{\"results\":["
	"{\"request\":\"gpu\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"gpu-b1\",\"device\":\"gpu-0\"},"
	"{\"request\":\"gpu\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"gpu-b1\",\"device\":\"gpu-1\"}]},"
	"\"nodeSelector\":{\"nodeSelectorTerms\":[]}},"
	"\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"decode-0\",\"uid\":\"u\"}]}}";

static const char dranet_v1beta1[] =
	"{\"apiVersion\":\"resource.k8s.io/v1beta1\",\"kind\":\"ResourceClaim\","
	"\"metadata\":{\"name\":\"decode-0-rdma\",\"namespace\":\"demo\"},"
	"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"nic\",\"deviceClassName\":\"dranet\","
	"\"selectors\":[{\"cel\":{\"expression\":\"device.attributes[\\\"dra.net\\\"].rdma == true\"}}],"
	"\"allocationMode\":\"ExactCount\",\"count\":1}]}},"
	"\"status\":{\"allocation\":{\"devices\":{\"results\":["
	"{\"request\":\"nic\",\"driver\":\"dra.net\",\"pool\":\"gpu-b2\",\"device\":\"eth2\"}]}}}}";

/* One claim, a GPU and an SR-IOV VF, the VF request as firstAvailable. */
static const char mixed_v1[] =
	"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","
	"\"metadata\":{\"name\":\"gpu-nic-aligned\"},"
	"\"spec\":{\"devices\":{\"requests\":["
	"{\"name\":\"gpu\",\"exactly\":{\"deviceClassName\":\"gpu.nvidia.com\"}},"
	"{\"name\":\"vf\",\"firstAvailable\":[{\"name\":\"cx7\",\"deviceClassName\":"
	"\"sriovnetwork.k8snetworkplumbingwg.io\"}]}],"
	"\"constraints\":[{\"matchAttribute\":\"resource.kubernetes.io/pcieRoot\"}]}},"
	"\"status\":{\"allocation\":{\"devices\":{\"results\":["
	"{\"request\":\"gpu\",\"driver\":\"gpu.nvidia.com\",\"pool\":\"n\",\"device\":\"gpu-3\"},"
	"{\"request\":\"vf/cx7\",\"driver\":\"sriovnetwork.k8snetworkplumbingwg.io\",\"pool\":\"n\","
	"\"device\":\"0000-08-00-3\"}]}}}}";

static void test_parse(void)
{
	struct claim_facts f;

	CHECK_INT(claims_parse(gpu_only_v1, strlen(gpu_only_v1), &f), 0);
	CHECK(f.allocated);
	CHECK_STR(f.drivers, "gpu.nvidia.com");
	CHECK_STR(f.classes, "gpu.nvidia.com");
	CHECK_STR(f.devices, "gpu.nvidia.com/gpu-0,gpu.nvidia.com/gpu-1");

	CHECK_INT(claims_parse(dranet_v1beta1, strlen(dranet_v1beta1), &f), 0);
	CHECK_STR(f.drivers, "dra.net");
	CHECK_STR(f.classes, "dranet");
	CHECK_STR(f.devices, "dra.net/eth2");

	CHECK_INT(claims_parse(mixed_v1, strlen(mixed_v1), &f), 0);
	CHECK_STR(f.drivers, "gpu.nvidia.com,sriovnetwork.k8snetworkplumbingwg.io");
	CHECK_STR(f.classes, "gpu.nvidia.com,sriovnetwork.k8snetworkplumbingwg.io");

	/* Not a claim, not JSON, not allocated, hostile names. */
	CHECK_INT(claims_parse("{\"kind\":\"Pod\"}", 14, &f), -1);
	CHECK_INT(claims_parse("[1,2]", 5, &f), -1);
	CHECK_INT(claims_parse("{\"kind\":", 8, &f), -1);
	CHECK_INT(claims_parse("{\"kind\":\"ResourceClaim\"}", 24, &f), 0);
	CHECK(!f.allocated && !f.drivers[0] && !f.classes[0]);
	{
		static const char bad[] =
			"{\"kind\":\"ResourceClaim\",\"status\":{\"allocation\":{\"devices\":{\"results\":["
			"{\"driver\":\"dra.net\\u001b[31m\",\"device\":\"x\"},{\"driver\":7},"
			"{\"driver\":\"a,b\",\"device\":\"y\"}]}}}}";

		CHECK_INT(claims_parse(bad, strlen(bad), &f), 0);
		CHECK_STR(f.drivers, "");     /* control bytes and separators are no names */
		CHECK_STR(f.devices, "");
	}
}

struct seen_items {
	char names[256];
	char drivers[256];
};

static void collect(const char *name, const struct claim_facts *f, void *arg)
{
	struct seen_items *x = arg;
	size_t a = strlen(x->names), b = strlen(x->drivers);

	snprintf(x->names + a, sizeof x->names - a, "%.60s ", name);
	snprintf(x->drivers + b, sizeof x->drivers - b, "%.60s ", f->drivers);
}

/* A ResourceClaimList page (items carry no kind), as a namespace LIST
 * answers; an item with a bad name is dropped, the token is kept. */
static void test_list(void)
{
	static const char page[] =
		"{\"kind\":\"ResourceClaimList\",\"apiVersion\":\"resource.k8s.io/v1\","
		"\"metadata\":{\"resourceVersion\":\"600\",\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ\"},"
		"\"items\":[{\"metadata\":{\"name\":\"w-00-d\"},\"status\":{\"allocation\":{\"devices\":"
		"{\"results\":[{\"request\":\"r\",\"driver\":\"gpu.nvidia.com\",\"device\":\"gpu-0\"}]}}}},"
		"{\"metadata\":{\"name\":\"../x\"}},{\"metadata\":{}},7,"
		"{\"metadata\":{\"name\":\"w-01-d\"},\"status\":{\"allocation\":{\"devices\":"
		"{\"results\":[{\"request\":\"r\",\"driver\":\"dra.net\",\"device\":\"eth1\"}]}}}}]}";
	struct seen_items x = { "", "" };
	char *next = NULL;

	CHECK_INT(claims_parse_list(page, strlen(page), collect, &x, &next), 0);
	CHECK_STR(x.names, "w-00-d w-01-d ");
	CHECK_STR(x.drivers, "gpu.nvidia.com dra.net ");
	CHECK_STR(next, "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ");
	free(next);
	CHECK_INT(claims_parse_list("{\"items\":{}}", 12, collect, &x, &next), -1);
	CHECK(next == NULL);
}

static char *refs_of(const char *pod, const char *container)
{
	cJSON *o = cJSON_Parse(pod);
	char *r = claims_refs(o, container);

	cJSON_Delete(o);
	return r;
}

static void test_refs(void)
{
	static const char pod[] =
		"{\"spec\":{\"resourceClaims\":["
		"{\"name\":\"gpu\",\"resourceClaimName\":\"decode-0-gpu\"},"
		"{\"name\":\"rdma\",\"resourceClaimTemplateName\":\"rdma-nic\"},"
		"{\"name\":\"imex\",\"resourceClaimTemplateName\":\"cd-channel\"},"
		"{\"name\":\"evil\",\"resourceClaimName\":\"../../pods/x\"}],"
		"\"containers\":[{\"name\":\"main\",\"resources\":{\"claims\":["
		"{\"name\":\"gpu\"},{\"name\":\"rdma\"},{\"name\":\"evil\"}]}},"
		"{\"name\":\"sidecar\"}]},"
		"\"status\":{\"resourceClaimStatuses\":["
		"{\"name\":\"rdma\",\"resourceClaimName\":\"decode-0-rdma-7qk2x\"},"
		"{\"name\":\"imex\",\"resourceClaimName\":\"decode-0-imex-9zz1a\"}]}}";
	char *r;

	r = refs_of(pod, "main");
	CHECK_STR(r, "decode-0-gpu\ndecode-0-rdma-7qk2x\n");  /* no path escape */
	free(r);
	/* A container naming no claim shows the pod's. */
	r = refs_of(pod, "sidecar");
	CHECK_STR(r, "decode-0-gpu\ndecode-0-rdma-7qk2x\ndecode-0-imex-9zz1a\n");
	free(r);
	/* Only Kubernetes object names reach a request path (fuzz_claims
	 * found "deco....de00" accepted once): no "..", no upper case, no
	 * leading dot. */
	r = refs_of("{\"spec\":{\"resourceClaims\":["
		    "{\"name\":\"a\",\"resourceClaimName\":\"deco....de00\"},"
		    "{\"name\":\"b\",\"resourceClaimName\":\"..\"},"
		    "{\"name\":\"c\",\"resourceClaimName\":\"Decode\"},"
		    "{\"name\":\"d\",\"resourceClaimName\":\".hidden\"},"
		    "{\"name\":\"e\",\"resourceClaimName\":\"ok.claim-1\"}],"
		    "\"containers\":[{\"name\":\"main\"}]}}", "main");
	CHECK_STR(r, "ok.claim-1\n");
	free(r);
	r = refs_of("{\"spec\":{\"containers\":[{\"name\":\"main\"}]}}", "main");
	CHECK_STR(r, "");
	free(r);
}

/* How the check judges the facts the kube layer returns. */
static const struct check_result *judge(struct pod_spec_facts *s, struct check_results *r)
{
	struct check_context ctx = { .role = "decode", .kv_cross_pod = 1, .kv_known = 1 };

	s->gpus = 8, s->rdma_devices = -1, s->efa_devices = -1, s->ipc_lock = 1;
	s->has_resource_claims = 1;
	check_results_init(r);
	check_pod_unprobed("test", s, &ctx, r);
	return check_results_find(r, "pod-rdma-resource");
}

static void facts_of(struct pod_spec_facts *s, const char *claim)
{
	struct claim_facts f;

	CHECK_INT(claims_parse(claim, strlen(claim), &f), 0);
	s->claims_read++;
	snprintf(s->claim_drivers, sizeof s->claim_drivers, "%s", f.drivers);
	snprintf(s->claim_classes, sizeof s->claim_classes, "%s", f.classes);
	snprintf(s->claim_devices, sizeof s->claim_devices, "%s", f.devices);
}

static void test_judged(void)
{
	struct pod_spec_facts s;
	struct check_results r;
	const struct check_result *c;

	memset(&s, 0, sizeof s);
	facts_of(&s, gpu_only_v1);
	c = judge(&s, &r);
	CHECK(c && c->status == CHECK_FAIL);
	CHECK_HAS(c ? c->detail : NULL, "allocate no NIC (gpu.nvidia.com)");
	check_results_release(&r);

	memset(&s, 0, sizeof s);
	facts_of(&s, dranet_v1beta1);
	c = judge(&s, &r);
	CHECK(c && c->status == CHECK_OK);
	CHECK_HAS(c ? c->detail : NULL, "dra.net/eth2");
	check_results_release(&r);

	memset(&s, 0, sizeof s);
	facts_of(&s, mixed_v1);
	c = judge(&s, &r);
	CHECK(c && c->status == CHECK_OK);
	CHECK_HAS(c ? c->detail : NULL, "sriovnetwork.k8snetworkplumbingwg.io/0000-08-00-3");
	CHECK(c && !strstr(c->detail, "gpu-3"));
	check_results_release(&r);

	/* The graph's prefill-vs-decode comparison (M3) sees the same:
	 * a GPU-only claim is no RDMA request, a NIC claim is. */
	{
		struct check_results d;

		memset(&s, 0, sizeof s);
		facts_of(&s, gpu_only_v1);
		judge(&s, &d);
		CHECK_STR(d.summary.rdma_request, "");
		check_results_release(&d);
		memset(&s, 0, sizeof s);
		facts_of(&s, dranet_v1beta1);
		judge(&s, &d);
		CHECK_STR(d.summary.rdma_request, "DRA NIC claims");
		check_results_release(&d);
	}

	/* Forbidden / API absent: unknown, a skip with the reason and the RBAC rule. */
	memset(&s, 0, sizeof s);
	s.claims_unread = 1;
	snprintf(s.claims_why, sizeof s.claims_why, "reading ResourceClaims is forbidden");
	c = judge(&s, &r);
	CHECK(c && c->status == CHECK_SKIPPED);
	CHECK_HAS(c ? c->detail : NULL, "forbidden");
	CHECK_HAS(c ? c->remedy : NULL, "resourceclaims");
	check_results_release(&r);

	/* A GPU claim read and a second one unreadable: not a fail. */
	memset(&s, 0, sizeof s);
	facts_of(&s, gpu_only_v1);
	s.claims_unread = 1;
	c = judge(&s, &r);
	CHECK(c && c->status == CHECK_SKIPPED);
	check_results_release(&r);
}

int main(void)
{
	test_parse();
	test_refs();
	test_list();
	test_judged();
	printf("test_claims: %d passed, %d failed\n", t_pass, t_fail);
	return t_fail ? 1 : 0;
}
