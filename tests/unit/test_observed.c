/* check --observe (issue 45): section rail_counters parsed from a probe
 * report, and the OBSERVED rows it gives (checks.md O): bytes per rail,
 * idle rails, error counters by NVSentinel's rules; nothing without the
 * section; the stdin window line and the grown deadline (run/observe.h). */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "probe/facts.h"
#include "run/observe.h"
#include "report_fixture.h"
#include "t.h"

#define HEAD "dynamo-interconnect-probe v1\n"
#define SEC(body) HEAD "@@@ rail_counters\nwindow=10\n" body "@@@ end rail_counters rc=0\n@@@ done\n"
#define IB(d) "port " d " 1 InfiniBand 400\n"

static int status_of(const struct check_results *r, const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	return c ? (int)c->status : -1;
}

static const char *detail_of(const struct check_results *r, const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	return c ? c->detail : "";
}

static void test_parse(void)
{
	static const char body[] =
		"window=30\n" IB("mlx5_0") "port efa_0 1 unspecified 100\n"
		"s0 mlx5_0 1 counters/port_xmit_data 100\ns1 mlx5_0 1 counters/port_xmit_data 350\n"
		"s0 mlx5_0 1 counters/port_rcv_data 0\ns1 mlx5_0 1 counters/port_rcv_data 0\n"
		"s0 efa_0 1 hw_counters/tx_bytes 5\ns1 efa_0 1 hw_counters/tx_bytes 9\n"
		"s0 efa_0 1 hw_counters/rx_bytes 1\ns1 efa_0 1 hw_counters/rx_bytes 1\n"
		/* refused: unknown name, bad number, bad device, new port in s1 */
		"s0 mlx5_0 1 counters/../../x 1\ns0 mlx5_0 1 counters/symbol_error 1e3\n"
		"s0 mlx$0 1 counters/symbol_error 1\ns1 mlx5_9 1 counters/symbol_error 1\n"
		"s0 mlx5_0 1 counters/link_downed 99999999999999999999\n"
		"s1 mlx5_0 1 counters/link_downed 1\n";
	struct probe_counters c;
	uint64_t d;

	memset(&c, 0, sizeof c);
	CHECK_INT(probe_parse_counters(body, strlen(body), &c), 9);
	CHECK_INT(c.window_s, 30);
	CHECK_INT(c.n, 2);
	CHECK_STR(c.port[0].dev, "mlx5_0");
	CHECK_INT(c.port[0].rate_gbps, 400);
	CHECK_STR(c.port[0].link_layer, "InfiniBand");
	/* IBA PortXmitData counts 4-octet words */
	CHECK_INT(probe_rail_bytes(&c.port[0]), 1000);
	CHECK_INT(probe_rail_bytes(&c.port[1]), 4);
	/* only one sample of link_downed (the other overflowed 64 bits) */
	CHECK(!probe_ctr_delta(&c.port[0], CTR_LINK_DOWNED, &d));
	CHECK(!probe_ctr_delta(&c.port[0], CTR_SYMBOL_ERROR, &d));
}

/* A counter that went back (reset, wrap) gives no delta. */
static void test_reset(void)
{
	static const char body[] = IB("mlx5_0")
		"s0 mlx5_0 1 counters/port_xmit_data 500\ns1 mlx5_0 1 counters/port_xmit_data 10\n"
		"s0 mlx5_0 1 counters/port_rcv_data 0\ns1 mlx5_0 1 counters/port_rcv_data 0\n";
	struct probe_counters c;
	uint64_t d;

	memset(&c, 0, sizeof c);
	probe_parse_counters(body, strlen(body), &c);
	CHECK(!probe_ctr_delta(&c.port[0], CTR_XMIT_DATA, &d));
	CHECK_INT(probe_rail_bytes(&c.port[0]), -1);
}

#define DATA(d, x0, x1) "s0 " d " 1 counters/port_xmit_data " #x0 "\ns1 " d " 1 counters/port_xmit_data " #x1 "\n" \
	"s0 " d " 1 counters/port_rcv_data 0\ns1 " d " 1 counters/port_rcv_data 0\n"

static void test_rows(void)
{
	struct check_results r;

	/* no section (no --observe): no OBSERVED row at all */
	judge_report(HEAD "@@@ done\n", &r);
	CHECK(check_results_find(&r, "observed-rdma-bytes") == NULL);
	CHECK_INT(check_results_family_status(&r, FAM_OBSERVED), -1);
	check_results_release(&r);

	/* two busy rails */
	judge_report(SEC(IB("mlx5_0") IB("mlx5_1") DATA("mlx5_0", 0, 100000000) DATA("mlx5_1", 0, 90000000)), &r);
	CHECK_INT(status_of(&r, "observed-rdma-bytes"), CHECK_OK);
	CHECK(strstr(detail_of(&r, "observed-rdma-bytes"), "760.0 MB over 2 of 2") != NULL);
	CHECK(strstr(detail_of(&r, "observed-rdma-bytes"), "other pods") != NULL);
	CHECK_INT(status_of(&r, "observed-idle-rails"), CHECK_OK);
	CHECK_INT(status_of(&r, "observed-port-errors"), CHECK_OK);
	check_results_release(&r);

	/* one rail idle next to a busy one of its kind; the Ethernet bond is
	 * another kind and not compared */
	judge_report(SEC(IB("mlx5_0") IB("mlx5_1") "port mlx5_bond_0 1 Ethernet 200\n"
		  DATA("mlx5_0", 0, 100000000) DATA("mlx5_1", 5, 5) DATA("mlx5_bond_0", 0, 0)), &r);
	CHECK_INT(status_of(&r, "observed-idle-rails"), CHECK_WARN);
	CHECK(strstr(detail_of(&r, "observed-idle-rails"), "1 of 2 InfiniBand rails idle (mlx5_1/1)") != NULL);
	check_results_release(&r);

	/* a counter near 2^64 (fuzz_counters): bytes capped, no overflow in
	 * the idle comparison, the rail is busy, not idle */
	judge_report(SEC("port efa_0 1 unspecified 100\nport efa_1 1 unspecified 100\n"
		  "s0 efa_0 1 hw_counters/tx_bytes 5\ns1 efa_0 1 hw_counters/tx_bytes 18446744073709551615\n"
		  "s0 efa_0 1 hw_counters/rx_bytes 0\ns1 efa_0 1 hw_counters/rx_bytes 1\n"
		  "s0 efa_1 1 hw_counters/tx_bytes 0\ns1 efa_1 1 hw_counters/tx_bytes 4611686018427387904\n"
		  "s0 efa_1 1 hw_counters/rx_bytes 0\ns1 efa_1 1 hw_counters/rx_bytes 0\n"), &r);
	CHECK_INT(status_of(&r, "observed-idle-rails"), CHECK_OK);
	CHECK_INT(status_of(&r, "observed-rdma-bytes"), CHECK_OK);
	check_results_release(&r);

	/* nothing moved: "no KV traffic", a skip that lowers nothing */
	judge_report(SEC(IB("mlx5_0") DATA("mlx5_0", 7, 7)), &r);
	CHECK_INT(status_of(&r, "observed-rdma-bytes"), CHECK_SKIPPED);
	CHECK(strstr(detail_of(&r, "observed-rdma-bytes"), "no KV traffic in the window (10s)") != NULL);
	CHECK_INT(status_of(&r, "observed-port-errors"), CHECK_OK);
	check_results_release(&r);
}

static void test_errors(void)
{
	struct check_results r;

	/* link_downed rose: fatal (NVSentinel) */
	judge_report(SEC(IB("mlx5_0") DATA("mlx5_0", 0, 10)
		  "s0 mlx5_0 1 counters/link_downed 2\ns1 mlx5_0 1 counters/link_downed 3\n"), &r);
	CHECK_INT(status_of(&r, "observed-port-errors"), CHECK_FAIL);
	CHECK(strstr(detail_of(&r, "observed-port-errors"), "mlx5_0/1 counters/link_downed +1") != NULL);
	check_results_release(&r);
	/* symbol errors: 100 in 10 s is 10/s, not over; 101 is */
	judge_report(SEC(IB("mlx5_0") "s0 mlx5_0 1 counters/symbol_error 0\ns1 mlx5_0 1 counters/symbol_error 100\n"), &r);
	CHECK_INT(status_of(&r, "observed-port-errors"), CHECK_OK);
	check_results_release(&r);
	judge_report(SEC(IB("mlx5_0") "s0 mlx5_0 1 counters/symbol_error 0\ns1 mlx5_0 1 counters/symbol_error 101\n"), &r);
	CHECK_INT(status_of(&r, "observed-port-errors"), CHECK_WARN);
	check_results_release(&r);
	/* EFA-less mlx5 hw counter: RNR retry exhausted is fatal */
	judge_report(SEC(IB("mlx5_0") "s0 mlx5_0 1 hw_counters/rnr_nak_retry_err 0\ns1 mlx5_0 1 hw_counters/rnr_nak_retry_err 4\n"), &r);
	CHECK_INT(status_of(&r, "observed-port-errors"), CHECK_FAIL);
	check_results_release(&r);
	/* no sleep in the pod: the window could not run, a skip */
	judge_report(HEAD "@@@ rail_counters\nwindow=10\n@@@ end rail_counters rc=127\n@@@ done\n", &r);
	CHECK_INT(status_of(&r, "observed-rdma-bytes"), CHECK_SKIPPED);
	CHECK(strstr(detail_of(&r, "observed-rdma-bytes"), "no sleep") != NULL);
	check_results_release(&r);
}

/* The window reaches the script only as "_di_obs=N\n" before the plain
 * stdin; out of range gives the plain stdin, byte for byte. */
static void test_stdin(void)
{
	size_t n0, n1, n2;
	char *plain = run_observe_stdin("echo hi", 0, &n0);
	char *obs = run_observe_stdin("echo hi", 30, &n1);
	char *bad = run_observe_stdin("echo hi", 601, &n2);

	CHECK(!strncmp(obs, "_di_obs=30\n", 11));
	CHECK_INT(n1, n0 + 11);
	CHECK(!strcmp(obs + 11, plain));
	CHECK_INT(n2, n0);
	CHECK(!strcmp(bad, plain));
	CHECK_INT(run_observe_timeout_ms(60000, 0), 60000);
	CHECK_INT(run_observe_timeout_ms(60000, 30), 60000 + 30000 + OBSERVE_MARGIN_MS);
	free(plain);
	free(obs);
	free(bad);
}

/* What a pod keeps of its window for -o prometheus (run/observe.h). */
static void test_rails_kept(void)
{
	static const char body[] = IB("mlx5_0") IB("mlx5_1")
		"s0 mlx5_0 1 counters/port_xmit_data 0\ns1 mlx5_0 1 counters/port_xmit_data 10\n"
		"s0 mlx5_0 1 counters/port_rcv_data 0\ns1 mlx5_0 1 counters/port_rcv_data 5\n"
		"s0 mlx5_1 1 counters/link_downed 3\ns1 mlx5_1 1 counters/link_downed 5\n"
		"s0 mlx5_1 1 counters/symbol_error 9\ns1 mlx5_1 1 counters/symbol_error 2\n";
	struct probe_counters c;
	struct run_rails *r;

	memset(&c, 0, sizeof c);
	CHECK(run_rails_keep(&c) == NULL);     /* no section: nothing kept */
	c.src.status = PROBE_OK;
	c.window_s = 7;
	probe_parse_counters(body, strlen(body), &c);
	r = run_rails_keep(&c);
	CHECK(r != NULL);
	CHECK_INT(r->window_s, 7);
	CHECK_INT(r->n, 2);
	CHECK_STR(r->v[0].dev, "mlx5_0");
	CHECK_INT(r->v[0].bytes, 60);
	CHECK_INT(r->v[1].bytes, -1);
	CHECK_STR(r->err_name[1], "link_downed");
	CHECK_INT(r->v[1].err[1], 2);
	CHECK_INT(r->v[1].err[0], -1);          /* symbol_error went back */
	CHECK_INT(r->v[0].err[1], -1);          /* not sampled */
	run_rails_free(r);
	run_rails_free(NULL);
}

int main(void)
{
	test_parse();
	test_reset();
	test_rows();
	test_errors();
	test_stdin();
	test_rails_kept();
	return T_DONE("test_observed");
}
