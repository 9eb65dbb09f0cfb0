/* Link health without a window (issue 45 point 3): section pcie_links
 * parsed from a probe report and the row it gives (checks.md O4): a PCIe
 * link on a GPU or NIC path trained below what both its ends can do
 * warns; a GPU's own link at a lower speed (power saving at idle) and a
 * Gen5 NIC in a Gen4 slot do not. */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "probe/facts.h"
#include "report_fixture.h"
#include "t.h"

#define HEAD "dynamo-interconnect-probe v1\n"
#define SEC(body) HEAD "@@@ pcie_links\n" body "@@@ end pcie_links rc=0\n@@@ done\n"
/* A NIC behind a switch: endpoint, switch downstream port, upstream port, root port. */
#define NIC(n, cw) \
	"link nic " n " 0000:03:00.0 32.0 " cw " 32.0 16\n" \
	"link nic " n " 0000:02:01.0 32.0 " cw " 32.0 16\n" \
	"link nic " n " 0000:01:00.0 32.0 16 32.0 16\n" \
	"link nic " n " 0000:00:01.0 32.0 16 32.0 16\n"

static const struct check_result *row(const struct check_results *r)
{
	return check_results_find(r, "link-pcie-trained");
}

static void test_parse(void)
{
	static const char body[] =
		"link nic mlx5_0 0000:03:00.0 32.0 16 32.0 16\n"
		"link nic mlx5_0 0000:02:01.0 8 x 2.5 16\n"
		"link gpu 0000:1b:00.0 0000:1b:00.0 - - 32.0 16\n"
		/* refused: unknown kind, bad name, bad bdf, short line */
		"link hca mlx5_1 0000:04:00.0 32.0 16 32.0 16\n"
		"link nic mlx$1 0000:04:00.0 32.0 16 32.0 16\n"
		"link nic mlx5_1 ../../x 32.0 16 32.0 16\n"
		"link nic mlx5_1 0000:04:00.0 32.0\n";
	struct probe_pcie p;

	memset(&p, 0, sizeof p);
	CHECK_INT(probe_parse_pcie(body, strlen(body), &p), 3);
	CHECK_INT((int)p.n, 2);
	CHECK_INT((int)p.dropped, 4);
	CHECK_STR(p.path[0].name, "mlx5_0");
	CHECK_INT(p.path[0].gpu, 0);
	CHECK_INT(p.path[0].nhops, 2);
	CHECK_INT(p.path[0].hop[0].cur_speed, 320);
	CHECK_INT(p.path[0].hop[1].cur_speed, 80);
	CHECK_INT(p.path[0].hop[1].cur_width, 0);
	CHECK_INT(p.path[0].hop[1].max_speed, 25);
	CHECK_INT(p.path[1].gpu, 1);
	CHECK_INT(p.path[1].hop[0].cur_speed, 0);
	CHECK_INT(p.path[1].hop[0].max_width, 16);
}

static void test_healthy(void)
{
	struct check_results r;
	const struct check_result *c;

	judge_report(SEC(NIC("mlx5_0", "16")), &r);
	c = row(&r);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT((int)c->status, CHECK_OK);
		CHECK(strstr(c->detail, "2 PCIe links") != NULL);
	}
	check_results_release(&r);
}

/* The NIC's own link at x8 of x16, as the NIC and the switch port above
 * it both report it: one finding for the one link, named by its two ends
 * and the endpoint. */
static void test_narrow_nic(void)
{
	struct check_results r;
	const struct check_result *c;

	judge_report(SEC(NIC("mlx5_0", "8")), &r);
	c = row(&r);
	CHECK(c != NULL);
	if (c) {
		CHECK_INT((int)c->status, CHECK_WARN);
		CHECK(strstr(c->detail, "mlx5_0") != NULL);
		CHECK(strstr(c->detail, "0000:03:00.0-0000:02:01.0 x8 of x16") != NULL);
		CHECK(strstr(c->detail, "0000:02:01.0-") == NULL);
	}
	check_results_release(&r);
}

/* A GPU's own link at 2.5 GT/s of 32.0: the driver lowers it at idle
 * (nvidia-smi pcie.link.gen.current), no finding; its width is judged. */
static void test_gpu_idle_speed(void)
{
#define IDLE \
		"link gpu 0000:1b:00.0 0000:1b:00.0 2.5 16 32.0 16\n" \
		"link gpu 0000:1b:00.0 0000:1a:00.0 2.5 16 32.0 16\n" \
		"link gpu 0000:1b:00.0 0000:19:00.0 32.0 16 32.0 16\n" \
		"link gpu 0000:1b:00.0 0000:15:01.0 32.0 16 32.0 16\n"
#define NARROW \
		"link gpu 0000:1b:00.0 0000:1b:00.0 32.0 4 32.0 16\n" \
		"link gpu 0000:1b:00.0 0000:1a:00.0 32.0 4 32.0 16\n"
#define SLOW_UP \
		"link gpu 0000:1b:00.0 0000:1b:00.0 32.0 16 32.0 16\n" \
		"link gpu 0000:1b:00.0 0000:1a:00.0 32.0 16 32.0 16\n" \
		"link gpu 0000:1b:00.0 0000:19:00.0 16.0 16 32.0 16\n" \
		"link gpu 0000:1b:00.0 0000:15:01.0 16.0 16 32.0 16\n"
	struct check_results r;
	const struct check_result *c;

	judge_report(SEC(IDLE), &r);
	c = row(&r);
	CHECK(c && c->status == CHECK_OK);
	check_results_release(&r);
	judge_report(SEC(NARROW), &r);
	c = row(&r);
	CHECK(c && c->status == CHECK_WARN && strstr(c->detail, "GPU 0000:1b:00.0") &&
	      strstr(c->detail, "x4 of x16"));
	check_results_release(&r);
	/* the switch's upstream link is not the GPU's own: its speed counts */
	judge_report(SEC(SLOW_UP), &r);
	c = row(&r);
	CHECK(c && c->status == CHECK_WARN && strstr(c->detail, "0000:19:00.0-0000:15:01.0 16.0 of 32.0 GT/s"));
	check_results_release(&r);
}

/* A Gen5 NIC in a Gen4 slot runs at 16.0 GT/s: the most both ends can
 * do, no finding.  Its x8 in an x16-capable slot of an x8 card: none. */
static void test_slower_end(void)
{
#define BODY \
		"link nic mlx5_0 0000:03:00.0 16.0 8 32.0 8\n" \
		"link nic mlx5_0 0000:00:01.0 16.0 8 16.0 16\n"
	struct check_results r;
	const struct check_result *c;

	judge_report(SEC(BODY), &r);
	c = row(&r);
	CHECK(c && c->status == CHECK_OK);
	check_results_release(&r);
#undef BODY
}

/* A switch link two endpoints share is named once. */
static void test_shared_once(void)
{
#define BODY \
		"link nic mlx5_0 0000:03:00.0 32.0 16 32.0 16\n" \
		"link nic mlx5_0 0000:02:01.0 32.0 16 32.0 16\n" \
		"link nic mlx5_0 0000:01:00.0 32.0 8 32.0 16\n" \
		"link nic mlx5_0 0000:00:01.0 32.0 8 32.0 16\n" \
		"link gpu 0000:04:00.0 0000:04:00.0 32.0 16 32.0 16\n" \
		"link gpu 0000:04:00.0 0000:02:02.0 32.0 16 32.0 16\n" \
		"link gpu 0000:04:00.0 0000:01:00.0 32.0 8 32.0 16\n" \
		"link gpu 0000:04:00.0 0000:00:01.0 32.0 8 32.0 16\n"
	struct check_results r;
	const struct check_result *c;

	judge_report(SEC(BODY), &r);
	c = row(&r);
	CHECK(c && c->status == CHECK_WARN);
	if (c) {
		const char *a = strstr(c->detail, "0000:01:00.0-0000:00:01.0 x8");

		CHECK(a && !strstr(a + 1, "0000:01:00.0-0000:00:01.0 x8"));
	}
	check_results_release(&r);
#undef BODY
}

/* No section (an older probe): no row.  A section with nothing read (no
 * device in sysfs, a VM): not applicable. */
static void test_absent(void)
{
	struct check_results r;
	const struct check_result *c;

	judge_report(HEAD "@@@ done\n", &r);
	CHECK(row(&r) == NULL);
	check_results_release(&r);
	judge_report(SEC(""), &r);
	c = row(&r);
	CHECK(c && c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA));
	check_results_release(&r);
}

#define HCA(d, b, fw) d "/hca_type=MT4129\n" d "/fw_ver=" fw "\n" d "/board_id=" b "\n" \
	d "/ports/1/state=4: ACTIVE\n" d "/ports/1/link_layer=InfiniBand\n"
#define IBSEC(body) HEAD "@@@ sysfs_ib\n" body "@@@ end sysfs_ib rc=0\n@@@ done\n"

static const char *fw_of(const char *rep, char *b, size_t n)
{
	struct check_results r;

	judge_report(rep, &r);
	snprintf(b, n, "%s", r.summary.hca_fw);
	check_results_release(&r);
	return b;
}

/* O5's node value: the most numerous board's firmware ("mixed" when its
 * HCAs differ on the node); a storage HCA of another board is not it. */
static void test_hca_fw(void)
{
	char b[64];

	CHECK_STR(fw_of(IBSEC(HCA("mlx5_0", "MT_0000000838", "28.39.1002")
			      HCA("mlx5_1", "MT_0000000838", "28.39.1002")
			      HCA("mlx5_2", "MT_0000000970", "22.41.1000")), b, sizeof b),
		  "MT_0000000838 28.39.1002");
	CHECK_STR(fw_of(IBSEC(HCA("mlx5_0", "MT_0000000838", "28.39.1002")
			      HCA("mlx5_1", "MT_0000000838", "28.37.1014")), b, sizeof b),
		  "MT_0000000838 mixed");
	CHECK_STR(fw_of(HEAD "@@@ done\n", b, sizeof b), "");
}

#define PORTSEC(body) HEAD "@@@ port_counters\nuptime=172800\n" body "@@@ end port_counters rc=0\n@@@ done\n"
#define PORT(d, downed, recov) "port " d " 1 InfiniBand 400\n" \
	"s0 " d " 1 counters/link_downed " downed "\n" \
	"s0 " d " 1 counters/link_error_recovery " recov "\n"

static const struct check_result *flaps(const struct check_results *r)
{
	return check_results_find(r, "link-port-flaps");
}

/* O6: a port whose link_downed is not 0 went down since its counters were
 * cleared (NVSentinel: link_downed is the training state machine failing
 * to keep LinkUp): warn, naming it and the uptime.  Near misses: link
 * errors recovered without going down, all zero. */
static void test_port_flaps(void)
{
	struct check_results r;
	const struct check_result *c;

	judge_report(PORTSEC(PORT("mlx5_0", "0", "0") PORT("mlx5_1", "3", "7")), &r);
	c = flaps(&r);
	CHECK(c && c->status == CHECK_WARN);
	if (c) {
		CHECK(strstr(c->detail, "mlx5_1/1 went down 3 times") != NULL);
		CHECK(strstr(c->detail, "mlx5_0") == NULL);
		CHECK(strstr(c->detail, "2.0 days") != NULL);
	}
	check_results_release(&r);
	judge_report(PORTSEC(PORT("mlx5_0", "0", "2") PORT("mlx5_1", "0", "0")), &r);
	c = flaps(&r);
	CHECK(c && c->status == CHECK_OK);
	CHECK(c && strstr(c->detail, "2 RDMA ports"));
	check_results_release(&r);
	/* no counter readable (EFA has no link_downed): not applicable */
	judge_report(PORTSEC("port efa_0 1 unspecified 100\ns0 efa_0 1 hw_counters/tx_bytes 5\n"), &r);
	c = flaps(&r);
	CHECK(c && c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA));
	check_results_release(&r);
	/* an older probe: no row */
	judge_report(HEAD "@@@ done\n", &r);
	CHECK(flaps(&r) == NULL);
	check_results_release(&r);
}

int main(void)
{
	test_parse();
	test_healthy();
	test_narrow_nic();
	test_gpu_idle_speed();
	test_slower_end();
	test_shared_once();
	test_absent();
	test_hca_fw();
	test_port_flaps();
	return T_DONE("test_linkhealth");
}
