/* check --observe's KV metrics (issue 45, docs/checks.md O7-O10): the
 * bounded Prometheus text parser (probe/promtext.c) on real and hostile
 * text, the pod proxy's path (kube/api/podproxy.c), and the rows O7-O10
 * (check/observed_kv.c): each rule's firing case and its near miss. */
#include <stdio.h>
#include <string.h>

#include "check/observed.h"
#include "kube/api/podproxy.h"
#include "probe/promtext.h"
#include "run/observe.h"
#include "t.h"

static int parse(const char *text, struct kv_metrics *m, char *why, size_t n)
{
	memset(m, 0, sizeof *m);
	why[0] = '\0';
	return promtext_parse(text, strlen(text), m, why, n);
}

static void test_parse_real(void)
{
	static const char text[] =
		"# HELP agent_tx_bytes_total Number of bytes sent by the agent\n"
		"# TYPE agent_tx_bytes_total counter\n"
		"agent_tx_bytes_total{agent_name=\"a\",category=\"NIXL_TELEMETRY_TRANSFER\",hostname=\"h\"} 100\n"
		"agent_tx_bytes_total{agent_name=\"b\",category=\"NIXL_TELEMETRY_TRANSFER\",hostname=\"h\"} 23\n"
		"agent_errors_total{status=\"NIXL_ERR_BACKEND\"} 2\r\n"
		"agent_errors_total{status=\"NIXL_ERR_REMOTE_DISCONNECT\",} 3 1700000000000\n"
		"\n"
		"vllm:prompt_tokens_by_source_total{engine=\"0\",model_name=\"m \\\"q\\\"\",source=\"external_kv_transfer\"} 1.5e+03\n"
		"vllm:prompt_tokens_by_source_total{engine=\"0\",source=\"local_compute\"} 7.0\n"
		"vllm:prompt_tokens_by_source_total{engine=\"0\",source=\"local_cache_hit\"} 99.0\n"
		"vllm:nixl_bytes_transferred_bucket{le=\"+Inf\"} 4.0\n"
		"vllm:nixl_bytes_transferred_sum 4096.0\n"
		"vllm:nixl_num_failed_transfers_total{engine=\"0\"} 0.0\n"
		"vllm:gpu_cache_usage_perc NaN\n";
	struct kv_metrics m;
	char why[160];

	CHECK_INT(parse(text, &m, why, sizeof why), 0);
	CHECK(m.v[KVM_NIXL_TX] == 123);
	CHECK(m.v[KVM_NIXL_ERRORS] == 5);          /* every status summed */
	CHECK(m.v[KVM_TOK_PULLED] == 1500);
	CHECK(m.v[KVM_TOK_COMPUTED] == 7);
	CHECK(m.v[KVM_VLLM_BYTES] == 4096);
	CHECK(m.seen & (1u << KVM_VLLM_FAILED));
	CHECK(!(m.seen & (1u << KVM_NIXL_RX)));
}

static void test_parse_garbage(void)
{
	static const char *const bad[] = {
		"<html><body>502</body></html>\n",
		"agent_tx_bytes_total{agent_name=\"a} 1\n",          /* unterminated value */
		"agent_tx_bytes_total{agent_name=\"a\"\n",            /* no } */
		"agent_tx_bytes_total 1 2 3\n",                       /* text after the value */
		"agent_tx_bytes_total abc\n",
		"agent_tx_bytes_total -1\n",                          /* a counter below 0 */
		"agent_tx_bytes_total +Inf\n",
		"agent_tx_bytes_total{a=\"\\x\"} 1\n",                /* a bad escape */
		"agent_tx_bytes_total\n",
		"9metric 1\n",
		"agent_tx_bytes_total 1 1.5\n",                       /* a timestamp not whole */
	};
	struct kv_metrics m;
	char why[160];

	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_INT(parse(bad[i], &m, why, sizeof why), -1);
		CHECK_HAS(why, "not the Prometheus text format at line 1");
	}
	/* a text that is not NUL-terminated is read to its length only */
	memset(&m, 0, sizeof m);
	CHECK_INT(promtext_parse("agent_rx_bytes_total 12XYZ", 23, &m, why, sizeof why), 0);
	CHECK(m.v[KVM_NIXL_RX] == 12);
}

static void test_parse_caps(void)
{
	struct kv_metrics m = { 0 };
	char why[160];
	size_t n = PROMTEXT_MAX_LINE + 10;
	char *line = malloc(n + 1);

	memset(line, 'a', n);
	line[n] = '\0';
	CHECK_INT(promtext_parse(line, n, &m, why, sizeof why), -1);
	CHECK_HAS(why, "past");
	CHECK_INT(promtext_parse(line, PROMTEXT_MAX_BYTES + 1u, &m, why, sizeof why), -1);
	CHECK_HAS(why, "over 4 MiB");
	free(line);
}

static void test_path(void)
{
	char *p = podproxy_metrics_path("demo", "qwen-decode-0", 19090);

	CHECK_STR(p, "/api/v1/namespaces/demo/pods/qwen-decode-0:19090/proxy/metrics");
	free(p);
	CHECK(podproxy_metrics_path("demo", "x", 0) == NULL);
	CHECK(podproxy_metrics_path("demo", "x", 65536) == NULL);
	p = podproxy_metrics_path("a/b", "x?y", 1);
	CHECK(p && !strstr(p, "a/b") && !strchr(p, '?'));
	free(p);
}

/* O7-O10 of one window: start and end set by the caller. */
static const struct check_result *row(const struct observed_kv *o, const char *role, int apart,
				      const char *name, struct check_results *r)
{
	struct check_context ctx = { .role = role, .kv_peers_apart = apart, .kv_known = 1 };

	check_results_init(r);
	check_observed_kv(o, &ctx, r);
	return check_results_find(r, name);
}

static struct observed_kv window(void)
{
	struct observed_kv o = { 0 };

	o.endpoints = "NIXL telemetry :19090";
	o.window_s = 30;
	o.rails_sampled = 8;
	for (int k = 0; k < KVM__COUNT; k++) {
		o.start.seen |= 1u << k;
		o.end.seen |= 1u << k;
		o.start.v[k] = o.end.v[k] = 100;
	}
	return o;
}

static void test_rdma_row(void)
{
	struct check_results r;
	struct observed_kv o = window();
	const struct check_result *c;

	/* idle: no KV traffic, never a failure */
	c = row(&o, "decode", 1, "observed-kv-on-rdma", &r);
	CHECK(c && c->status == CHECK_SKIPPED);
	CHECK_HAS(c ? c->detail : "", "no KV traffic in the window");
	check_results_release(&r);
	/* KV moved, no rail byte: fail (aws-do-eks PR #66) */
	o.end.v[KVM_NIXL_RX] += 5e9;
	c = row(&o, "decode", 1, "observed-kv-on-rdma", &r);
	CHECK(c && c->status == CHECK_FAIL);
	CHECK_HAS(c ? c->detail : "", "NIXL agents moved 5.0 GB");
	check_results_release(&r);
	/* near miss: a peer shares the node, KV may stay on it */
	c = row(&o, "decode", 0, "observed-kv-on-rdma", &r);
	CHECK(c && c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA));
	check_results_release(&r);
	/* near miss: the rails moved */
	o.rail_bytes = 6000000000LL;
	c = row(&o, "decode", 1, "observed-kv-on-rdma", &r);
	CHECK(c && c->status == CHECK_OK);
	check_results_release(&r);
	/* the counters were not sampled: skipped, not ok */
	o.rails_sampled = -1;
	c = row(&o, "decode", 1, "observed-kv-on-rdma", &r);
	CHECK(c && c->status == CHECK_SKIPPED);
	check_results_release(&r);
	/* a counter that went back: no difference */
	o.rails_sampled = 8;
	o.end.v[KVM_TOK_PULLED] = 1;
	c = row(&o, "decode", 1, "observed-kv-on-rdma", &r);
	CHECK(c && c->status == CHECK_SKIPPED);
	CHECK_HAS(c ? c->detail : "", "went back");
	check_results_release(&r);
}

static void test_rise_rows(void)
{
	struct check_results r;
	struct observed_kv o = window();
	const struct check_result *c;

	/* an old count that does not rise: ok */
	c = row(&o, "decode", 1, "observed-kv-failed-transfers", &r);
	CHECK(c && c->status == CHECK_OK);
	check_results_release(&r);
	o.end.v[KVM_VLLM_FAILED] += 1;
	o.end.v[KVM_NIXL_ERRORS] += 4;
	c = row(&o, "decode", 1, "observed-kv-failed-transfers", &r);
	CHECK(c && c->status == CHECK_FAIL);
	CHECK_HAS(c ? c->detail : "", "rose by 1");
	c = check_results_find(&r, "observed-nixl-errors");
	CHECK(c && c->status == CHECK_FAIL);
	check_results_release(&r);
	/* absent series: skipped, never ok */
	o.start.seen &= ~(1u << KVM_VLLM_FAILED);
	c = row(&o, "decode", 1, "observed-kv-failed-transfers", &r);
	CHECK(c && c->status == CHECK_SKIPPED);
	check_results_release(&r);
	/* agent_errors_total absent until the first error, beside NIXL's bytes */
	o = window();
	o.start.seen &= ~(1u << KVM_NIXL_ERRORS);
	o.end.seen &= ~(1u << KVM_NIXL_ERRORS);
	c = row(&o, "decode", 1, "observed-nixl-errors", &r);
	CHECK(c && c->status == CHECK_OK);
	check_results_release(&r);
	o.end.seen |= 1u << KVM_NIXL_ERRORS;
	o.end.v[KVM_NIXL_ERRORS] = 2;
	c = row(&o, "decode", 1, "observed-nixl-errors", &r);
	CHECK(c && c->status == CHECK_FAIL);
	check_results_release(&r);
	/* unread: every row skipped with the reason */
	o.unread = "no get on pods/proxy: the metrics on port 9090 were not read";
	c = row(&o, "decode", 1, "observed-nixl-errors", &r);
	CHECK(c && c->status == CHECK_SKIPPED);
	CHECK_INT(r.n, 4);
	for (size_t i = 0; i < r.n; i++)
		CHECK(r.v[i].status == CHECK_SKIPPED && strstr(r.v[i].detail, "no get on pods/proxy"));
	check_results_release(&r);
}

static void test_recompute_row(void)
{
	struct check_results r;
	struct observed_kv o = window();
	const struct check_result *c;

	o.end.v[KVM_TOK_COMPUTED] += 800;
	c = row(&o, "decode", 1, "observed-kv-recompute", &r);
	CHECK(c && c->status == CHECK_WARN);
	check_results_release(&r);
	/* near miss: it also pulled */
	o.end.v[KVM_TOK_PULLED] += 1;
	c = row(&o, "decode", 1, "observed-kv-recompute", &r);
	CHECK(c && c->status == CHECK_OK);
	check_results_release(&r);
	/* a prefill computes prompts: not applicable */
	o.end.v[KVM_TOK_PULLED] -= 1;
	c = row(&o, "prefill", 1, "observed-kv-recompute", &r);
	CHECK(c && c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA));
	check_results_release(&r);
}

/* Which ports a pod's env names (run/observe_kv.c). */
static void test_ports(void)
{
	long port[2];
	char ends[96], why[200];

	CHECK_INT(run_kv_ports("", port, ends, sizeof ends, why, sizeof why), 0);
	CHECK_INT(run_kv_ports("NIXL_TELEMETRY_ENABLE=y\nNIXL_TELEMETRY_EXPORTER=prometheus\n",
			       port, ends, sizeof ends, why, sizeof why), 1);
	CHECK_INT(port[0], 9090);                        /* NIXL's default */
	CHECK_INT(port[1], 0);
	CHECK_STR(why, "");
	/* enabled without the prometheus exporter, or off: nothing to read */
	CHECK_INT(run_kv_ports("NIXL_TELEMETRY_ENABLE=y\n", port, ends, sizeof ends, why, sizeof why), 0);
	CHECK_INT(run_kv_ports("NIXL_TELEMETRY_ENABLE=n\nNIXL_TELEMETRY_EXPORTER=prometheus\n",
			       port, ends, sizeof ends, why, sizeof why), 0);
	CHECK_INT(run_kv_ports("NIXL_TELEMETRY_ENABLE=TRUE\nNIXL_TELEMETRY_EXPORTER=prometheus\n"
			       "NIXL_TELEMETRY_PROMETHEUS_PORT=19090\nDYN_SYSTEM_PORT=9090\n",
			       port, ends, sizeof ends, why, sizeof why), 1);
	CHECK(port[0] == 19090 && port[1] == 9090);
	CHECK_STR(ends, "NIXL telemetry :19090, Dynamo system :9090");
	/* one server on both: read once */
	CHECK_INT(run_kv_ports("NIXL_TELEMETRY_ENABLE=1\nNIXL_TELEMETRY_EXPORTER=prometheus\n"
			       "DYN_SYSTEM_PORT=9090\n", port, ends, sizeof ends, why, sizeof why), 1);
	CHECK(port[0] == 9090 && port[1] == 0);
	/* Dynamo's default -1 and an explicit false: off */
	CHECK_INT(run_kv_ports("DYN_SYSTEM_PORT=-1\n", port, ends, sizeof ends, why, sizeof why), 0);
	CHECK_INT(run_kv_ports("DYN_SYSTEM_ENABLED=false\nDYN_SYSTEM_PORT=8081\n", port, ends,
			       sizeof ends, why, sizeof why), 0);
	/* named but unreadable: rows skipped with the reason */
	CHECK_INT(run_kv_ports("DYN_SYSTEM_PORT=80;rm\n", port, ends, sizeof ends, why, sizeof why), 1);
	CHECK_HAS(why, "DYN_SYSTEM_PORT is not a port");
	CHECK_INT(run_kv_ports("DYN_SYSTEM_PORT=70000\n", port, ends, sizeof ends, why, sizeof why), 1);
	CHECK_INT(run_kv_ports("NIXL_TELEMETRY_ENABLE=y\nNIXL_TELEMETRY_EXPORTER=prometheus\n"
			       "NIXL_TELEMETRY_PROMETHEUS_LOCAL=yes\n", port, ends, sizeof ends, why,
			       sizeof why), 1);
	CHECK_HAS(why, "127.0.0.1");
}

int main(void)
{
	test_parse_real();
	test_parse_garbage();
	test_parse_caps();
	test_path();
	test_rdma_row();
	test_rise_rows();
	test_recompute_row();
	test_ports();
	return T_DONE("test_promtext");
}
