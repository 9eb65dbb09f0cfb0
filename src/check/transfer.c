/* Judging one real transfer (check --transfer): fail when it ran on TCP or
 * did not finish, ok near the fabric's line rate, warn far below it. */
#include "transfer.h"

#include <stdio.h>
#include <string.h>

#include "../probe/facts.h"
#include "../probe/perftest.h"

/* Below this share of the port rate the fabric underdelivers (warn): a
 * healthy IB HDR rail gives 20-25 GB/s of its 25 (dynamo.md 5.2). */
#define TRANSFER_OK_SHARE 0.6

size_t transfer_pick_pairs(const struct transfer_pod *pods, size_t n,
			   struct transfer_pair *out, size_t max)
{
	size_t i, j, k, m = 0;

	for (i = 0; i < n && m < max; i++) {
		if (!pods[i].usable || strcmp(pods[i].role, "prefill"))
			continue;
		for (j = 0; j < n && m < max; j++) {
			int seen = 0;
			if (!pods[j].usable || strcmp(pods[j].role, "decode") ||
			    strcmp(pods[j].group, pods[i].group))
				continue;
			for (k = 0; k < m && !seen; k++)
				seen = !strcmp(pods[out[k].client].group, pods[i].group) &&
				       !strcmp(pods[out[k].client].node, pods[i].node) &&
				       !strcmp(pods[out[k].server].node, pods[j].node);
			if (seen)
				continue;
			out[m].client = i;
			out[m].server = j;
			m++;
		}
	}
	return m;
}

static double list_rate(const struct probe_rdma_list *l)
{
	double top = 0;
	int i, p;

	for (i = 0; i < l->ndevs; i++)
		for (p = 0; p < l->dev[i].nports; p++) {
			const struct probe_rdma_port *pt = &l->dev[i].port[p];
			if (pt->state == PROBE_PORT_ACTIVE && pt->rate_gbps > top)
				top = pt->rate_gbps;
		}
	return top;
}

double transfer_port_rate(const struct probe_facts *f)
{
	double r;

	if (!f)
		return 0;
	r = list_rate(&f->sysfs_ib);
	if (r <= 0)
		r = list_rate(&f->ibstat);
	if (r <= 0)
		r = list_rate(&f->ibv_devinfo);
	return r;
}

enum lane_kind { LANES_UNKNOWN, LANES_TCP, LANES_FAST };

/* RDMA (rc/dc/ud, EFA srd) or NVLink (cuda_ipc) lanes are the fast path;
 * tcp with none of them is the fallback disaggregated serving must not use. */
static enum lane_kind lane_kind(const char *lanes)
{
	static const char *const fast[] = { "rc_", "dc_", "ud_", "srd/", "rc/", "dc/",
					    "ud/", "cuda_ipc/", "gga", NULL };
	int i;

	for (i = 0; fast[i]; i++)
		if (strstr(lanes, fast[i]))
			return LANES_FAST;
	return strstr(lanes, "tcp/") ? LANES_TCP : LANES_UNKNOWN;
}

/* MB/s as ucx_perftest counts them (2^20 bytes) from a port rate in Gb/s. */
static double rate_mbs(double gbps)
{
	return gbps * 1e9 / 8 / 1048576.0;
}

static void ran(const struct transfer_outcome *o, struct check_results *out)
{
	const struct perftest_result *r = o->res;
	double gbs = r->bw_mbs / 1024.0, want = rate_mbs(o->expect_gbps);
	enum lane_kind k = lane_kind(r->lanes);
	char detail[512], expect[96];
	enum check_status st;

	if (o->expect_gbps > 0)
		snprintf(expect, sizeof(expect), "; the %.0f Gb/s RDMA port gives ~%.1f GB/s",
			 o->expect_gbps, want / 1024.0);
	else
		snprintf(expect, sizeof(expect), "; no RDMA port rate to compare with");
	if (k == LANES_TCP) {
		snprintf(detail, sizeof(detail), "KV would move over TCP at %.2f GB/s "
			 "(ucx_perftest %s -> %s, latency %.1f us, lanes %s)%s",
			 gbs, o->client_pod, o->server_pod, r->lat_avg_us, r->lanes, expect);
		check_results_add_id(out, CK_TRANSFER, CHECK_FAIL, detail, NULL);
		return;
	}
	if (o->expect_gbps > 0)
		st = r->bw_mbs >= TRANSFER_OK_SHARE * want ? CHECK_OK : CHECK_WARN;
	else
		st = k == LANES_FAST ? CHECK_OK : CHECK_WARN;
	snprintf(detail, sizeof(detail), "%.2f GB/s, latency %.1f us (ucx_perftest %s -> %s, "
		 "lanes %s)%s", gbs, r->lat_avg_us, o->client_pod, o->server_pod,
		 r->lanes[0] ? r->lanes : "not reported", expect);
	check_results_add_id(out, CK_TRANSFER, st, detail,
			     st == CHECK_OK ? NULL : k == LANES_UNKNOWN ?
			     "rerun with UCX_LOG_LEVEL=info to see the lanes; check UCX_TLS/UCX_NET_DEVICES" :
			     "far below the port rate: check the rail's link rate, PCIe/NUMA placement "
			     "of GPU and NIC, and UCX_NET_DEVICES");
}

void transfer_judge(const struct transfer_outcome *o, struct check_results *out)
{
	const struct perftest_result *r = o->res;
	char detail[512];

	if (o->no_tool) {
		snprintf(detail, sizeof(detail), "ucx_perftest not found in pod %s: no transfer "
			 "test between %s and %s", o->missing_in, o->client_pod, o->server_pod);
		check_results_add_id(out, CK_TRANSFER, CHECK_SKIPPED, detail,
				     "install ucx_perftest (UCX's tools) in the worker image to test a real transfer");
		return;
	}
	if (r && r->final) {
		ran(o, out);
		return;
	}
	snprintf(detail, sizeof(detail), "transfer %s -> %s did not complete: %s",
		 o->client_pod, o->server_pod,
		 o->failure ? o->failure : r && r->error[0] ? r->error :
		 o->server_error ? o->server_error : "no result from ucx_perftest");
	check_results_add_id(out, CK_TRANSFER, CHECK_FAIL, detail, NULL);
}
