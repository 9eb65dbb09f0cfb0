/* Verdicts over pods: READY / NOT READY / UNVERIFIED, exit codes,
 * fix-first, list compression, heterogeneity (product.md, checks.md N). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/links.h"
#include "verdict/verdict.h"
#include "check/dgd.h"
#include "t.h"

#define NPODS 8

static void add(struct check_results *r, const char *name,
		enum check_status st, const char *detail)
{
	const struct check_def *d = check_def(name);
	struct check_result res = {
		d->name, d->family, st, (char *)detail,
		st == CHECK_OK ? NULL : (char *)d->remedy, d->rank, 0, NULL, NULL, CK__COUNT,
	};

	check_results_add(r, &res);
}

static void add_na(struct check_results *r, const char *name)
{
	const struct check_def *d = check_def(name);
	struct check_result res = {
		d->name, d->family, CHECK_SKIPPED, "n/a", NULL, d->rank, CHECK_F_NA,
		NULL, NULL, CK__COUNT,
	};

	check_results_add(r, &res);
}

/* A healthy InfiniBand pod, as check_pod() would report it: every link
 * of the KV path (checks.md N) has a check that passed. */
static void healthy(struct check_results *r)
{
	check_results_init(r);
	r->fabric = FABRIC_INFINIBAND;
	snprintf(r->summary.ucx_version, 32, "1.18.0");
	snprintf(r->summary.nixl_version, 32, "0.9.0");
	snprintf(r->summary.nixl_backend, 32, "UCX");
	add(r, "rdma-devices", CHECK_OK, "2 RDMA devices (mlx5_0, mlx5_1), 2 uverbs nodes");
	add(r, "rdma-ports", CHECK_OK, "2 ports Active/LinkUp");
	add(r, "rdma-verbs", CHECK_OK, "ibv_devinfo opens 2 devices");
	add(r, "gpudirect-peermem", CHECK_OK, "nvidia_peermem loaded");
	add(r, "gpudirect-ucx-md", CHECK_OK, "all 2 UCX IB memory domains accept cuda memory");
	add(r, "limits-memlock", CHECK_OK, "max locked memory unlimited");
	add(r, "env-ucx-tls", CHECK_OK, "UCX_TLS unset (all transports)");
	add(r, "nixl-installed", CHECK_OK, "nixl 0.9.0");
	add(r, "nixl-plugin", CHECK_OK, "libplugin_UCX.so");
	add(r, "ucx-rdma", CHECK_OK, "rc_mlx5/mlx5_0:1");
	add(r, "ucx-cuda", CHECK_OK, "cuda_copy and cuda_ipc");
	add_na(r, "efa-devices");
}

struct fleet {
	char names[NPODS][16], nodes[NPODS][16];
	struct pod_info info[NPODS];
	struct run_pod pods[NPODS];
};

static void fleet_init(struct fleet *fl)
{
	for (int i = 0; i < NPODS; i++) {
		snprintf(fl->names[i], 16, "%s-%d", i < 4 ? "prefill" : "decode", i % 4);
		snprintf(fl->nodes[i], 16, "gpu-a%d", i);
		memset(&fl->info[i], 0, sizeof(fl->info[i]));
		memset(&fl->pods[i], 0, sizeof(fl->pods[i]));
		healthy(&fl->pods[i].results);
		fl->info[i].name = fl->names[i];
		fl->info[i].node = fl->nodes[i];
		fl->info[i].role = i < 4 ? "prefill" : "decode";
		fl->info[i].namespace = "dynamo";
		fl->info[i].graph = "qwen";
		fl->pods[i].pod = &fl->info[i];
		fl->pods[i].probed = 1;
		memset(&fl->pods[i].reason, 0, sizeof(fl->pods[i].reason));
	}
}

static void fleet_release(struct fleet *fl)
{
	for (int i = 0; i < NPODS; i++)
		check_results_release(&fl->pods[i].results);
}

/* Replace the status of one check in one pod's results. */
static void set_status(struct check_results *r, const char *name,
		       enum check_status st, const char *detail)
{
	for (size_t i = 0; i < r->n; i++) {
		if (strcmp(r->v[i].name, name))
			continue;
		r->v[i].status = st;
		free(r->v[i].detail);
		r->v[i].detail = strdup(detail);
		free(r->v[i].remedy);
		r->v[i].remedy = st == CHECK_OK ? NULL : strdup(check_def(name)->remedy);
	}
}

static const struct verdict_finding *find(const struct verdict *v,
					  const char *needle)
{
	for (size_t i = 0; i < v->nfindings; i++)
		if (strstr(v->findings[i].text, needle))
			return &v->findings[i];
	return NULL;
}

static void test_names(void)
{
	CHECK_STR(verdict_name(VERDICT_READY), "READY");
	CHECK_STR(verdict_name(VERDICT_NOT_READY), "NOT READY");
	CHECK_STR(verdict_name(VERDICT_UNVERIFIED), "UNVERIFIED");
	CHECK_INT(verdict_exit_code(VERDICT_READY), 0);
	CHECK_INT(verdict_exit_code(VERDICT_NOT_READY), 2);
	CHECK_INT(verdict_exit_code(VERDICT_UNVERIFIED), 3);
}

static void test_pod_list(void)
{
	struct fleet fl;
	size_t idx[NPODS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
	char *s;

	fleet_init(&fl);
	s = verdict_pod_list(fl.pods, NPODS, idx, 3, 5);
	CHECK_STR(s, "3 of 8 pods: prefill-0, prefill-1, prefill-2");
	free(s);
	s = verdict_pod_list(fl.pods, NPODS, idx, NPODS, 5);
	CHECK_STR(s, "all 8 pods: prefill-0, prefill-1, prefill-2, prefill-3, decode-0 and 3 more");
	free(s);
	s = verdict_pod_list(fl.pods, 1, idx, 1, 5);
	CHECK_STR(s, "1 of 1 pod: prefill-0");
	free(s);
	fleet_release(&fl);
}

static void test_ready(void)
{
	struct fleet fl;
	struct verdict v;

	fleet_init(&fl);
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_INT(v.status, VERDICT_READY);
	CHECK_INT(v.exit_code, 0);
	CHECK_INT(v.fabric, FABRIC_INFINIBAND);
	CHECK(v.fix_first == NULL && v.unconfirmed == NULL);
	CHECK_INT(v.nfindings, 0);
	CHECK_INT(v.nready, NPODS);
	verdict_release(&v);
	fleet_release(&fl);
}

/* One node among eight lacks nvidia_peermem (nccl #897). */
static void test_one_node_without_peermem(void)
{
	struct fleet fl;
	struct verdict v;

	fleet_init(&fl);
	set_status(&fl.pods[5].results, "gpudirect-peermem", CHECK_FAIL,
		   "no nvidia_peermem and no DMA-BUF on node gpu-a5");
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_INT(v.status, VERDICT_NOT_READY);
	CHECK_INT(v.exit_code, 2);
	CHECK_INT(v.nnot_ready, 1);
	CHECK_HAS(v.fix_first, "gpudirect-peermem fail on 1 of 8 pods: decode-1; node gpu-a5");
	CHECK_HAS(v.fix_first, "fix: load nvidia_peermem");
	/* The fail line already says "1 of 8": no second line repeats it. */
	CHECK(find(&v, "differs") == NULL);
	CHECK_INT((int)v.nfindings, 1);
	CHECK_INT(v.findings[0].status, CHECK_FAIL);
	verdict_release(&v);
	fleet_release(&fl);
}

/* Fix first: no RDMA device outranks a down port outranks GPUDirect. */
static void test_fix_first_rank(void)
{
	struct fleet fl;
	struct verdict v;

	fleet_init(&fl);
	set_status(&fl.pods[0].results, "gpudirect-peermem", CHECK_FAIL, "no peermem");
	set_status(&fl.pods[1].results, "rdma-ports", CHECK_FAIL, "no Active port: mlx5_0 port 1 Down (Polling)");
	set_status(&fl.pods[2].results, "rdma-ports", CHECK_FAIL, "no Active port: mlx5_0 port 1 Down (Polling)");
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_HAS(v.fix_first, "rdma-ports fail on 2 of 8 pods: prefill-1, prefill-2; nodes gpu-a1, gpu-a2");
	verdict_release(&v);
	set_status(&fl.pods[7].results, "rdma-devices", CHECK_FAIL, "no /dev/infiniband/uverbs* in the pod");
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_HAS(v.fix_first, "rdma-devices fail on 1 of 8 pods: decode-3");
	CHECK_INT(v.nnot_ready, 4);
	verdict_release(&v);
	fleet_release(&fl);
}

static void test_unverified(void)
{
	struct fleet fl;
	struct verdict v;

	fleet_init(&fl);
	for (int i = 0; i < NPODS; i++)
		set_status(&fl.pods[i].results, "ucx-rdma", CHECK_SKIPPED, "ucx_info not found in the container");
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_INT(v.status, VERDICT_UNVERIFIED);
	CHECK_INT(v.exit_code, 3);
	/* The link it leaves open, and what would show it (checks.md N). */
	CHECK_HAS(v.unconfirmed, "a NIXL backend that can use it on 8 of 8 pods (ucx_info not found in the container)");
	CHECK(v.fix_first == NULL);
	verdict_release(&v);

	/* An unprobed pod is never a pass. */
	fleet_release(&fl);
	fleet_init(&fl);
	fl.pods[3].probed = 0;
	fl.pods[3].reason = (struct reason){ .kind = REASON_SKIPPED, .why = (char *)"pod is Pending" };
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_INT(v.status, VERDICT_UNVERIFIED);
	CHECK_HAS(v.unconfirmed, "1 pod not probed");
	CHECK(find(&v, "pod is Pending") != NULL);
	CHECK_INT(v.nprobed, 7);
	verdict_release(&v);

	/* A pod that found no fast path at all (fabric tcp, nothing failed). */
	fl.pods[3].probed = 1;
	fl.pods[2].results.fabric = FABRIC_TCP;
	CHECK_INT(verdict_pod(&fl.pods[2]), VERDICT_UNVERIFIED);
	fleet_release(&fl);

	verdict_compute(NULL, 0, &v);
	CHECK_INT(v.status, VERDICT_UNVERIFIED);
	CHECK_HAS(v.unconfirmed, "no worker pods");
	verdict_release(&v);
}

/* Prefill and decode on different UCX (warn) or NIXL backends (fail):
 * graph.c's pair findings reach the verdict and fix-first. */
static void test_heterogeneity(void)
{
	struct fleet fl;
	struct verdict v;
	const struct verdict_finding *f;

	fleet_init(&fl);
	for (int i = 4; i < NPODS; i++)
		snprintf(fl.pods[i].results.summary.ucx_version, 32, "1.16.0");
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_INT(v.status, VERDICT_READY);
	/* One finding for all 16 prefill/decode pairs, naming an example. */
	f = find(&v, "UCX 1.18.0 vs 1.16.0");
	CHECK(f != NULL);
	CHECK_INT(f ? (int)f->status : -1, CHECK_WARN);
	CHECK_STR(f ? f->name : NULL, "pair-consistency");
	CHECK_STR(f ? f->text : NULL, "prefill prefill-0 and decode decode-0: "
		  "UCX 1.18.0 vs 1.16.0 (and 15 more pairs)");
	CHECK_INT(v.nfindings, 1);
	verdict_release(&v);

	snprintf(fl.pods[6].results.summary.nixl_backend, 32, "LIBFABRIC");
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_INT(v.status, VERDICT_NOT_READY);
	CHECK_HAS(v.fix_first, "prefill prefill-0 and decode decode-2: "
		  "NIXL backend UCX vs LIBFABRIC (and 3 more pairs)");
	CHECK_HAS(v.fix_first, "fix: configure the same NIXL backend");
	verdict_release(&v);
	fleet_release(&fl);
}

/* check_pod_unprobed results feed the verdict the same way. */
static void test_unprobed_results(void)
{
	struct pod_info info = { .name = "qwen-decode-0", .node = "gpu-a2", .role = "decode",
				 .namespace = "dynamo", .graph = "qwen" };
	struct run_pod p = { .pod = &info, .probed = 0,
			     .reason = { .kind = REASON_EXEC, .why = (char *)"exec refused" } };

	check_results_init(&p.results);
	check_pod_unprobed("exec refused", NULL, NULL, &p.results);
	CHECK_INT(verdict_pod(&p), VERDICT_UNVERIFIED);
	check_results_release(&p.results);
}

/* checks.md N: warnings off the KV path are counted, never withhold
 * READY (old rule: any warning was UNVERIFIED). */
static void test_ready_with_warnings(void)
{
	static const char *const off_path[] = {
		"rdma-rate", "gpudirect-affinity", "nvlink-fabric", "limits-shm",
		"gdrcopy-driver",
	};
	struct fleet fl;
	struct verdict v;

	fleet_init(&fl);
	for (size_t k = 0; k < sizeof(off_path) / sizeof(off_path[0]); k++)
		add(&fl.pods[k].results, off_path[k], CHECK_WARN, "degraded");
	/* A warning on the path that still shows the link works. */
	set_status(&fl.pods[6].results, "rdma-ports", CHECK_WARN, "1 of 2 ports Active; down: mlx5_1 port 1 Down");
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_INT(v.status, VERDICT_READY);
	CHECK_INT(v.exit_code, 0);
	CHECK_INT(v.nready, NPODS);
	CHECK_INT(v.nwarnings, 6);
	CHECK(v.unconfirmed == NULL && v.fix_first == NULL);
	verdict_release(&v);
	fleet_release(&fl);
}

/* The links of one pod: names, statuses, the check and source behind. */
static void test_links(void)
{
	struct fleet fl;
	struct verdict v;
	struct check_link l[LINK__COUNT];
	size_t n;

	fleet_init(&fl);
	n = check_links(&fl.pods[0].results, l);
	CHECK_INT(n, LINK__COUNT);
	CHECK_STR(l[0].name, "device");
	CHECK_STR(l[3].name, "gpu-memory");
	CHECK_STR(l[6].name, "nixl-backend");
	for (size_t i = 0; i < n; i++)
		CHECK_INT(l[i].status, LINK_PROVEN);
	CHECK_STR(l[3].check, "gpudirect-peermem");
	CHECK_STR(l[5].check, "env-ucx-tls");
	/* Several parts: each says what proved it. */
	CHECK_HAS(l[6].detail, "nixl-installed: nixl 0.9.0; nixl-plugin: libplugin_UCX.so");
	CHECK_HAS(l[6].detail, "ucx-cuda: cuda_copy and cuda_ipc");
	CHECK(l[0].source[0] != '\0');

	/* GPU memory with no evidence on two pods: both GPUDirect checks
	 * skipped (the unconfirmed line of product.md "Results"). */
	for (int i = 2; i < 4; i++) {
		set_status(&fl.pods[i].results, "gpudirect-peermem", CHECK_SKIPPED,
			   "neither path confirmed: ucx_info -d not in the image");
		set_status(&fl.pods[i].results, "gpudirect-ucx-md", CHECK_SKIPPED,
			   "ucx_info not found in the container");
	}
	n = check_links(&fl.pods[2].results, l);
	CHECK_INT(l[3].status, LINK_MISSING);
	CHECK_STR(check_link_status_name(l[3].status), "missing");
	verdict_compute(fl.pods, NPODS, &v);
	CHECK_INT(v.status, VERDICT_UNVERIFIED);
	CHECK_INT(v.nunverified, 2);
	CHECK_STR(v.unconfirmed, "GPU memory reachable by the NIC on 2 of 8 pods "
		  "(neither path confirmed: ucx_info -d not in the image)");
	verdict_release(&v);

	/* One source is enough: UCX's memory domains prove it alone. */
	set_status(&fl.pods[2].results, "gpudirect-ucx-md", CHECK_OK, "DMA-BUF");
	n = check_links(&fl.pods[2].results, l);
	CHECK_INT(l[3].status, LINK_PROVEN);
	CHECK_STR(l[3].check, "gpudirect-ucx-md");

	/* A failed ENV check breaks the environment link. */
	set_status(&fl.pods[1].results, "env-ucx-tls", CHECK_FAIL, "UCX_TLS=tcp allows no RDMA transport");
	n = check_links(&fl.pods[1].results, l);
	CHECK_INT(l[5].status, LINK_BROKEN);
	CHECK_STR(check_link_name(l[5].id), "environment");
	CHECK_HAS(l[5].detail, "UCX_TLS=tcp");
	CHECK_INT(verdict_pod(&fl.pods[1]), VERDICT_NOT_READY);
	fleet_release(&fl);
}

/* Pods not probed for one reason are one finding, however many pods. */
static void test_unprobed_grouped(void)
{
	struct fleet fl;
	struct verdict v;
	size_t nprobe = 0;

	fleet_init(&fl);
	for (int i = 0; i < 5; i++) {
		fl.pods[i].probed = 0;
		fl.pods[i].reason = i == 4
			? (struct reason){ .kind = REASON_EXEC, .why = (char *)"pod is Pending" }
			: (struct reason){ .kind = REASON_EXEC, .why = (char *)"exec forbidden" };
	}
	verdict_compute(fl.pods, NPODS, &v);
	for (size_t i = 0; i < v.nfindings; i++)
		nprobe += !strcmp(v.findings[i].name, "pod-probe");
	CHECK_INT((int)nprobe, 2);
	CHECK(find(&v, "pod-probe skipped on 4 of 8 pods: prefill-0, prefill-1, prefill-2, prefill-3; nodes gpu-a0, gpu-a1, gpu-a2, gpu-a3: exec forbidden") != NULL);
	CHECK(find(&v, "pod-probe skipped on 1 of 8 pods: decode-0; node gpu-a4: pod is Pending") != NULL);
	verdict_release(&v);
	fleet_release(&fl);
}

/* checks.md P2: a DGD component with replicas and no running pod makes a
 * READY run NOT READY in the verdict itself (the document's exitCode is
 * the process's), naming it in fix_first; a warn (P1/P3) changes nothing,
 * and a run that already failed keeps its own fix_first. */
static void test_dgd_fail(void)
{
	struct dgd_finding items[2] = {
		{ CHECK_WARN, DGD_CK_GENERATION, "ns/qwen", (char *)"pod qwen-decode-0 is of an older worker generation" },
		{ CHECK_FAIL, DGD_CK_COMPONENT_PODS, "ns/qwen", (char *)"component VllmPrefillWorker has 1 replica and no running pod" },
	};
	struct dgd_findings warn_only = { .items = items, .n = 1 }, both = { .items = items, .n = 2 };
	struct fleet fl;
	struct verdict v;

	fleet_init(&fl);
	verdict_compute(fl.pods, NPODS, &v);
	verdict_apply_dgd(&v, NULL);
	verdict_apply_dgd(&v, &warn_only);
	CHECK_INT(v.status, VERDICT_READY);
	CHECK_INT(v.exit_code, 0);
	verdict_apply_dgd(&v, &both);
	CHECK_INT(v.status, VERDICT_NOT_READY);
	CHECK_INT(v.exit_code, 2);
	CHECK_HAS(v.fix_first, "DynamoGraphDeployment ns/qwen: component VllmPrefillWorker has 1 replica");
	verdict_release(&v);

	set_status(&fl.pods[0].results, "ucx-rdma", CHECK_FAIL, "no rc transport");
	verdict_compute(fl.pods, NPODS, &v);
	verdict_apply_dgd(&v, &both);
	CHECK_INT(v.exit_code, 2);
	CHECK(v.fix_first && !strstr(v.fix_first, "DynamoGraphDeployment"));
	verdict_release(&v);
	fleet_release(&fl);
}

int main(void)
{
	test_names();
	test_pod_list();
	test_ready();
	test_dgd_fail();
	test_one_node_without_peermem();
	test_fix_first_rank();
	test_unverified();
	test_heterogeneity();
	test_unprobed_results();
	test_ready_with_warnings();
	test_links();
	test_unprobed_grouped();
	return T_DONE("test_verdict");
}
