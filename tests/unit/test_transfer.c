/* check --transfer: ucx_perftest output parsing (real output of Debian's
 * ucx-utils 1.13.1 over TCP between two test-cluster pods, and UCX lane
 * lines from real IB logs), the TRANSFER judgement and the pair choice. */
#include <stdlib.h>
#include <string.h>

#include "check/transfer.h"
#include "probe/facts.h"
#include "probe/perftest.h"
#include "t.h"

static const char tcp_out[] =
	"+--------------+--------------+----------+---------+---------+----------+----------+-----------+-----------+\n"
	"|              |              |       overhead (usec)        |   latency (usec)   |   bandwidth (MB/s)  |  message rate (msg/s) |\n"
	"[1795992046.869681] [qwen-prefill-0:5    :0]          parser.c:1916 UCX  INFO  UCX_* env variable: UCX_LOG_LEVEL=info\n"
	"[1795992046.874263] [qwen-prefill-0:5    :0]      ucp_worker.c:1763 UCX  INFO    ep_cfg[0]: tag(tcp/eth0)\n"
	"Final:                    32      9.894 102434.412 102434.412      624.79     624.79          10          10\n"
	"di-transfer: client exit 0 after 1 tries\n";

static const char lo_out[] =
	"[1795991638.1] [vm:4    :0]     ucp_worker.c:1763 UCX  INFO    ep_cfg[0]: tag(tcp/lo)\n"
	"Final:                   200     11.933   595.189   595.189     1680.14    1680.14        1680        1680\n";

static const char ib_out[] =
	"[1744331142.028115] [ccw-gpu-51:2802608:3]      ucp_worker.c:1903 UCX  INFO    ucp_context_2 inter-node cfg#3 rma(rc_mlx5/mlx5_ib2:1)  amo(rc_mlx5/mlx5_ib2:1)  am(rc_mlx5/mlx5_ib2:1 rc_mlx5/mlx5_ib7:1)\n"
	"Final:                   100      0.000  2800.000  2800.000    22857.14   22857.14          357         357\n";

static const char refused_out[] =
	"[1795992019.572783] [qwen-prefill-0:181  :0]        perftest.c:405  UCX  ERROR client failed. connect() failed: Connection refused\n"
	"di-transfer: client exit 255 after 10 tries\n";

static const char timeout_out[] =
	"[1795992024.864762] [qwen-prefill-0:183  :0]         libperf.c:1080 UCX  ERROR ucp_ep_create() failed: Endpoint timeout\n"
	"[1795992024.868595] [qwen-prefill-0:183  :0]    perftest_run.c:334  UCX  ERROR Failed to run test: Endpoint timeout\n";

static void test_parse(void)
{
	struct perftest_result r;

	perftest_parse(tcp_out, strlen(tcp_out), &r);
	CHECK(r.final);
	CHECK_INT(r.iterations, 32);
	CHECK(r.bw_mbs > 624.7 && r.bw_mbs < 624.8);
	CHECK(r.lat_avg_us > 102434 && r.lat_avg_us < 102435);
	CHECK_STR(r.lanes, "tag(tcp/eth0)");
	CHECK_STR(r.error, "");

	perftest_parse(lo_out, strlen(lo_out), &r);
	CHECK(r.final && r.bw_mbs > 1680 && r.bw_mbs < 1681);
	CHECK_STR(r.lanes, "tag(tcp/lo)");

	perftest_parse(ib_out, strlen(ib_out), &r);
	CHECK_HAS(r.lanes, "rma(rc_mlx5/mlx5_ib2:1)");
	CHECK(r.bw_mbs > 22857);

	perftest_parse(refused_out, strlen(refused_out), &r);
	CHECK(!r.final);
	CHECK_STR(r.error, "client failed. connect() failed: Connection refused");

	perftest_parse(timeout_out, strlen(timeout_out), &r);
	CHECK_STR(r.error, "ucp_ep_create() failed: Endpoint timeout");

	/* a torn table row is no result */
	perftest_parse("Final:  32  9.8  10\n", 20, &r);
	CHECK(!r.final);
	perftest_parse("", 0, &r);
	CHECK(!r.final && !r.lanes[0] && !r.error[0]);
	perftest_parse("di-transfer: ucx_perftest not found\n", 36, &r);
	CHECK_STR(r.error, "ucx_perftest not found");
}

static void test_valid_ip(void)
{
	CHECK(perftest_valid_ip("10.88.0.4"));
	CHECK(perftest_valid_ip("fd00::1"));
	CHECK(!perftest_valid_ip(""));
	CHECK(!perftest_valid_ip(NULL));
	CHECK(!perftest_valid_ip("10.88.0.4; rm -rf /"));
	CHECK(!perftest_valid_ip("$(id)"));
	CHECK(!perftest_valid_ip("host.example"));
}

static const struct check_result *judge(const char *out, double gbps, const char *failure,
					struct check_results *cr, struct perftest_result *r)
{
	struct transfer_outcome o;

	memset(&o, 0, sizeof(o));
	o.client_pod = "p0";
	o.server_pod = "d0";
	o.expect_gbps = gbps;
	o.failure = failure;
	perftest_parse(out, strlen(out), r);
	o.res = r;
	check_results_init(cr);
	transfer_judge(&o, cr);
	return check_results_find(cr, "transfer");
}

static void test_judge(void)
{
	struct check_results cr;
	struct perftest_result r;
	const struct check_result *x;
	struct transfer_outcome o;
	char fast[512];

	x = judge(tcp_out, 400, NULL, &cr, &r);
	CHECK(x && x->status == CHECK_FAIL && x->family == FAM_TRANSFER);
	CHECK_HAS(x->detail, "KV would move over TCP at 0.61 GB/s");
	CHECK_HAS(x->detail, "tcp/eth0");
	CHECK_HAS(x->detail, "400 Gb/s");
	CHECK(x->remedy != NULL);
	check_results_release(&cr);

	/* RDMA lanes: ok near line rate (HDR 200 Gb/s ~ 23.8 GB/s), warn far below */
	x = judge(ib_out, 200, NULL, &cr, &r);
	CHECK(x && x->status == CHECK_OK && !x->remedy);
	CHECK_HAS(x->detail, "22.32 GB/s");
	check_results_release(&cr);
	x = judge(ib_out, 800, NULL, &cr, &r);
	CHECK(x && x->status == CHECK_WARN);
	check_results_release(&cr);
	/* no port rate: RDMA lanes are ok, unknown lanes are not */
	x = judge(ib_out, 0, NULL, &cr, &r);
	CHECK(x && x->status == CHECK_OK);
	check_results_release(&cr);
	snprintf(fast, sizeof(fast), "Final: 10 1 2 3 100 100 1 1\n");
	x = judge(fast, 0, NULL, &cr, &r);
	CHECK(x && x->status == CHECK_WARN);
	check_results_release(&cr);

	x = judge(refused_out, 400, NULL, &cr, &r);
	CHECK(x && x->status == CHECK_FAIL);
	CHECK_HAS(x->detail, "did not complete: client failed. connect() failed");
	check_results_release(&cr);
	x = judge("", 400, "the time limit (2 s) passed, both sides stopped", &cr, &r);
	CHECK(x && x->status == CHECK_FAIL);
	CHECK_HAS(x->detail, "time limit (2 s)");
	check_results_release(&cr);

	memset(&o, 0, sizeof(o));
	o.client_pod = "p0", o.server_pod = "d0", o.no_tool = 1, o.missing_in = "d0";
	check_results_init(&cr);
	transfer_judge(&o, &cr);
	x = check_results_find(&cr, "transfer");
	CHECK(x && x->status == CHECK_SKIPPED && x->remedy);
	CHECK_HAS(x->detail, "ucx_perftest not found in pod d0");
	check_results_release(&cr);
}

static void test_pairs(void)
{
	const struct transfer_pod pods[] = {
		{ "prefill", "n1", "ns/a", 1 }, { "decode", "n2", "ns/a", 1 },
		{ "decode", "n2", "ns/a", 1 }, { "prefill", "n1", "ns/a", 1 },
		{ "decode", "n3", "ns/a", 1 }, { "prefill", "n4", "ns/a", 0 },
		{ "worker", "n5", "ns/a", 1 }, { "decode", "n6", "ns/a", 0 },
		/* another graph: its own pairs, never mixed with ns/a */
		{ "decode", "n2", "ns/b", 1 }, { "prefill", "n7", "ns/b", 1 },
	};
	struct transfer_pair out[TRANSFER_MAX_PAIRS];
	size_t m = transfer_pick_pairs(pods, sizeof(pods) / sizeof(pods[0]), out,
				       TRANSFER_MAX_PAIRS);

	/* (n1,n2) and (n1,n3) once each in ns/a; unusable and workers left out;
	 * (n7,n2) in ns/b */
	CHECK_INT(m, 3);
	CHECK_INT(out[0].client, 0);
	CHECK_INT(out[0].server, 1);
	CHECK_INT(out[1].client, 0);
	CHECK_INT(out[1].server, 4);
	CHECK_INT(out[2].client, 9);
	CHECK_INT(out[2].server, 8);
	CHECK_INT(transfer_pick_pairs(pods, sizeof(pods) / sizeof(pods[0]), out, 1), 1);
	CHECK_INT(transfer_pick_pairs(pods, 1, out, TRANSFER_MAX_PAIRS), 0);
}

static void test_port_rate(void)
{
	struct probe_facts *f = probe_facts_new();

	CHECK(transfer_port_rate(NULL) == 0);
	CHECK(transfer_port_rate(f) == 0);
	probe_rdma_dev_add(&f->sysfs_ib);
	probe_rdma_dev_add(&f->sysfs_ib);
	f->sysfs_ib.dev[0].nports = 1;
	f->sysfs_ib.dev[0].port[0].state = PROBE_PORT_ACTIVE;
	f->sysfs_ib.dev[0].port[0].rate_gbps = 200;
	f->sysfs_ib.dev[1].nports = 1;
	f->sysfs_ib.dev[1].port[0].state = PROBE_PORT_DOWN;
	f->sysfs_ib.dev[1].port[0].rate_gbps = 400;
	CHECK(transfer_port_rate(f) == 200);
	probe_facts_free(f);
}

int main(void)
{
	test_parse();
	test_valid_ip();
	test_judge();
	test_pairs();
	test_port_rate();
	return T_DONE("test_transfer");
}
