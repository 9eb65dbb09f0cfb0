/* -o prometheus (report/prom.c) and the Pushgateway grouping key
 * (push/push.h): label escaping as the exposition format says, control
 * bytes never raw, the deployment verdict the worst of its pods, and the
 * base64url form of a grouping value with '/'. */
#include <stdio.h>
#include <stdlib.h>

#include "push/push.h"
#include "report/report.h"
#include "t.h"

/* The metrics of r in a fixed buffer (they are a few KiB here). */
static char *render(const struct report *r)
{
	static char buf[65536];
	FILE *m = fmemopen(buf, sizeof(buf) - 1, "w");

	memset(buf, 0, sizeof(buf));
	CHECK(m && report_print_prometheus(m, r) == 0);
	if (m)
		fclose(m);
	return strdup(buf);
}

static void test_escaping_and_deployments(void)
{
	struct pod_info a = { .namespace = "ns", .name = "a\"b\\c\nd\x1b[2J", .role = "prefill",
			      .graph = "g1", .node = "n1" };
	struct pod_info b = { .namespace = "ns", .name = "b", .role = "decode", .graph = "g1",
			      .node = "n2" };
	struct pod_info c = { .namespace = "ns", .name = "c", .role = "decode", .graph = "g2",
			      .node = "n2" };
	struct run_pod pods[3] = { { .pod = &a, .probed = 1 }, { .pod = &b, .probed = 1 },
				   { .pod = &c } };
	enum verdict_status pv[3] = { VERDICT_READY, VERDICT_NOT_READY, VERDICT_UNVERIFIED };
	struct verdict v = { .status = VERDICT_NOT_READY, .exit_code = 2, .pod = pv,
			     .npods = 3, .nprobed = 2 };
	struct report r = { .pods = pods, .n = 3, .verdict = &v, .duration_s = 1.5 };
	char *out = render(&r);

	/* issue 37 item 4: ESC spelled \x1b (not '?'), the backslash doubled
	 * in the value so the spelling is reversible. */
	CHECK_HAS(out, "pod=\"a\\\"b\\\\\\\\c\\nd\\\\x1b[2J\"");
	CHECK(strchr(out, '\x1b') == NULL);
	CHECK(strstr(out, "deployment_verdict{namespace=\"ns\",deployment=\"g1\",verdict=\"not_ready\"} 1") != NULL);
	CHECK(strstr(out, "deployment_verdict{namespace=\"ns\",deployment=\"g2\",verdict=\"unverified\"} 1") != NULL);
	CHECK(strstr(out, "deployment=\"g1\",verdict=\"ready\"} 1") == NULL);
	CHECK(strstr(out, "dynamo_interconnect_probe_errors 1\n") != NULL);
	CHECK(strstr(out, "dynamo_interconnect_run_duration_seconds 1.500\n") != NULL);
	CHECK(strstr(out, "pod_probe_error{namespace=\"ns\",pod=\"c\",role=\"decode\",node=\"n2\"} 1") != NULL);
	free(out);
}

/* Names that differ only by control bytes, invalid UTF-8 or a C1 control
 * stay distinct series; names that are equal (a NUL cut them) get
 * duplicate="2", "3": every series once, none dropped. */
static void test_series_cannot_collide(void)
{
	struct pod_info p[6] = {
		{ .namespace = "ns", .name = "w\x01", .role = "decode", .graph = "g", .node = "n" },
		{ .namespace = "ns", .name = "w\x02", .role = "decode", .graph = "g", .node = "n" },
		{ .namespace = "ns", .name = "w\xff\xc2\x85", .role = "decode", .graph = "g", .node = "n" },
		{ .namespace = "ns", .name = "w", .role = "decode", .graph = "g", .node = "n" },
		{ .namespace = "ns", .name = "w", .role = "decode", .graph = "g", .node = "n" },
		{ .namespace = "ns", .name = "w", .role = "decode", .graph = "g", .node = "n" },
	};
	struct run_pod pods[6];
	enum verdict_status pv[6];
	struct verdict v = { .status = VERDICT_READY, .pod = pv, .npods = 6, .nprobed = 6 };
	struct report r = { .pods = pods, .n = 6, .verdict = &v };
	char *out;

	for (int i = 0; i < 6; i++) {
		pods[i] = (struct run_pod){ .pod = &p[i], .probed = 1 };
		pv[i] = VERDICT_READY;
	}
	out = render(&r);
	CHECK_HAS(out, "pod_probe_error{namespace=\"ns\",pod=\"w\\\\x01\",role=\"decode\",node=\"n\"} 0\n");
	CHECK_HAS(out, "pod_probe_error{namespace=\"ns\",pod=\"w\\\\x02\",role=\"decode\",node=\"n\"} 0\n");
	CHECK_HAS(out, "pod=\"w\\\\xff\\\\u0085\"");
	CHECK_HAS(out, "pod_probe_error{namespace=\"ns\",pod=\"w\",role=\"decode\",node=\"n\"} 0\n");
	CHECK_HAS(out, "pod_probe_error{namespace=\"ns\",pod=\"w\",role=\"decode\",node=\"n\",duplicate=\"2\"} 0\n");
	CHECK_HAS(out, "pod_probe_error{namespace=\"ns\",pod=\"w\",role=\"decode\",node=\"n\",duplicate=\"3\"} 0\n");
	CHECK_HAS(out, "verdict=\"ready\",duplicate=\"3\"} 1\n");
	CHECK(!strstr(out, "duplicate=\"4\""));
	/* one deployment series per state: all six pods are graph g */
	CHECK(!strstr(out, "deployment=\"g\",verdict=\"ready\",duplicate"));
	CHECK(!strchr(out, '\x01') && !strstr(out, "\xc2\x85"));
	free(out);
}

static void test_grouping_key(void)
{
	char k[128] = "/metrics/job/j";

	CHECK_INT(push_key_append(k, sizeof(k), "namespace", "demo"), 0);
	CHECK_STR(k, "/metrics/job/j/namespace/demo");
	/* pushgateway README: "/path/to/x" -> L3BhdGgvdG8veA== (base64url). */
	strcpy(k, "");
	CHECK_INT(push_key_append(k, sizeof(k), "p", "/path/to/x"), 0);
	CHECK_STR(k, "/p@base64/L3BhdGgvdG8veA==");
	strcpy(k, "");
	CHECK_INT(push_key_append(k, sizeof(k), "p", ""), 0);
	CHECK_STR(k, "/p@base64/=");
	strcpy(k, "");
	CHECK_INT(push_key_append(k, sizeof(k), "p", "\xfb\xff"), 0);
	CHECK_STR(k, "/p@base64/-_8=");
	CHECK_INT(push_key_append(k, 8, "namespace", "long-value"), -1);
	strcpy(k, "/a");
	CHECK_INT(push_key_append(k, 8, "namespace", "long-value"), -1);
}

int main(void)
{
	test_escaping_and_deployments();
	test_series_cannot_collide();
	test_grouping_key();
	return T_DONE("test_prom");
}
