/* The corrections of issue 17, each on the real output that shows it
 * (tests/fixtures/tools, first line names the source): DMA-BUF from the
 * IB md's register line (B1b), fabric N/A is not degraded (D3), the
 * driver from any source (H6), UCP version-incompatible is a LOGS fail,
 * and UCX's debug dmabuf line is no degradation with peer memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/logs.h"
#include "evidence/evidence.h"
#include "probe/facts.h"
#include "probe/logscan.h"
#include "probe_fixture.h"
#include "pod_fixture.h"
#include "t.h"
#include "verdict/verdict.h"

/* A decode pod on one Active 200G InfiniBand port, verbs open, NIXL with
 * its UCX plugin, memlock unlimited, env read: only what a test varies
 * is left to it. */
static struct probe_facts *ib_pod(void)
{
	struct probe_facts *f = fx_rdma_pod("mlx5_ib0", PROBE_LL_IB, 200,
					    "UCX_TLS=rc,cuda_copy,cuda_ipc\n");

	set_ok(&f->kernel.src);
	snprintf(f->kernel.release, sizeof(f->kernel.release), "5.15.0-1064-azure");
	f->kernel.major = 5;
	f->kernel.minor = 15;
	set_ok(&f->modules.proc_src);
	f->modules.loaded[PROBE_MOD_NVIDIA] = f->modules.in_proc[PROBE_MOD_NVIDIA] = 1;
	return f;
}

static const struct check_context decode = {
	.node = "gpu-az-1", .role = "decode", .kv_cross_pod = 1,
	.kv_cross_node = 1, .kv_known = 1, .npods = 2,
};

static const struct check_result *result(const struct check_results *r,
					 const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	if (!c)
		fprintf(stderr, "no result %s\n", name);
	return c;
}

static int status(const struct check_results *r, const char *name)
{
	const struct check_result *c = result(r, name);

	return c ? (int)c->status : -1;
}

static void ucx_d(struct probe_facts *f, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *t = fx_load_repo(names[i], &len);

		probe_parse_ucx_d(t, len, &f->ucx);
		free(t);
	}
	set_ok(&f->ucx.d_src);
}

/* B1b: an Azure ConnectX VF without peermem prints "register: unlimited,
 * dmabuf" with host-only memory types; with cuda_cpy exporting dmabuf
 * that is GPU memory reachable by DMA-BUF, and both GPUDirect checks say
 * so (before: gpudirect-ucx-md failed with "list only host memory"). */
static void test_dmabuf_register_line(void)
{
	static const char *const both[] = {
		"ucx_info_d_ib_md_register_dmabuf_azure_flux.txt",
		"ucx_info_d_cuda_cpy_md_with_dmabuf_vllm26382.txt",
	};
	static const char *const no_export[] = {
		"ucx_info_d_ib_md_register_dmabuf_azure_flux.txt",
		"ucx_info_d_cuda_cpy_md_without_dmabuf_ucx9908.txt",
	};
	struct probe_facts *f = ib_pod();
	struct check_results r;
	struct evidence ev;

	ucx_d(f, both, 2);
	CHECK_INT(f->ucx.n_ib_mds, 1);
	CHECK_INT(f->ucx.n_ib_mds_cuda, 0);
	CHECK_INT(f->ucx.md[0].reg_dmabuf, 1);
	CHECK_INT(f->ucx.n_ib_mds_dmabuf, 1);
	CHECK_INT(f->ucx.cuda_cpy_dmabuf, 1);
	evidence_collect(f, &ev);
	CHECK_INT(ev.peermem.state, EV_ABSENT);
	CHECK_INT(ev.gpu_reach.state, EV_SHOWN);
	CHECK_INT(ev.path, EV_PATH_DMABUF);
	check_results_init(&r);
	check_pod(f, NULL, &decode, &r);
	CHECK_INT(status(&r, "gpudirect-ucx-md"), CHECK_OK);
	CHECK_HAS(result(&r, "gpudirect-ucx-md")->detail, "DMA-BUF");
	CHECK_INT(status(&r, "gpudirect-peermem"), CHECK_OK);
	CHECK_HAS(result(&r, "gpudirect-peermem")->detail, "DMA-BUF");
	check_results_release(&r);
	probe_facts_free(f);

	/* The same HCA with a cuda_cpy that cannot export (ucx #9908): no
	 * path at all, and again both checks agree. */
	f = ib_pod();
	ucx_d(f, no_export, 2);
	CHECK_INT(f->ucx.cuda_cpy_dmabuf, 0);
	check_results_init(&r);
	check_pod(f, NULL, &decode, &r);
	CHECK_INT(status(&r, "gpudirect-ucx-md"), CHECK_FAIL);
	CHECK_INT(status(&r, "gpudirect-peermem"), CHECK_FAIL);
	check_results_release(&r);
	probe_facts_free(f);
}

/* D3: a healthy H100 reports fabric Completed/Success with Health
 * Bandwidth N/A: not reported, never degraded (before: warn). */
static void test_fabric_na(void)
{
	struct probe_facts *f = ib_pod();
	struct check_results r;
	size_t len;
	char *t = fx_load_repo("nvidia-smi_q_h100_fabric_bandwidth_na_della.txt", &len);

	CHECK_INT(probe_parse_nvsmi_q(t, len, &f->nvsmi), 1);
	free(t);
	set_ok(&f->nvsmi.src);
	CHECK_STR(f->nvsmi.gpu[0].health_bandwidth, "N/A");
	check_results_init(&r);
	check_pod(f, NULL, &decode, &r);
	CHECK_INT(status(&r, "nvlink-fabric"), CHECK_OK);
	CHECK_HAS(result(&r, "nvlink-fabric")->detail, "Completed/Success");
	check_results_release(&r);
	/* A degraded bandwidth still warns. */
	snprintf(f->nvsmi.gpu[0].health_bandwidth, 32, "Degraded");
	check_results_init(&r);
	check_pod(f, NULL, &decode, &r);
	CHECK_INT(status(&r, "nvlink-fabric"), CHECK_WARN);
	check_results_release(&r);
	probe_facts_free(f);
}

/* H6: /proc/driver/nvidia/version unreadable, nvidia-smi answers with
 * its Driver Version: not "driver not loaded" (before: fail). */
static void test_driver_any_source(void)
{
	struct probe_facts *f = ib_pod();
	struct check_results r;
	size_t len;
	char *t = fx_load_repo("nvidia-smi_q_h100_fabric_completed_success_gpud.txt", &len);

	probe_parse_nvsmi_q(t, len, &f->nvsmi);
	free(t);
	set_ok(&f->nvsmi.src);
	f->nvdriver.src.status = PROBE_ABSENT;
	f->nvdriver.src.rc = 127;
	memset(&f->modules, 0, sizeof(f->modules));
	f->modules.gdrdrv_in_proc_devices = -1;
	check_results_init(&r);
	check_pod(f, NULL, &decode, &r);
	CHECK(status(&r, "limits-driver") != CHECK_FAIL);
	CHECK_HAS(result(&r, "limits-driver")->detail, "535.161.08");
	CHECK_HAS(result(&r, "limits-driver")->detail, "nvidia-smi");
	CHECK_STR(r.summary.driver_version, "535.161.08");
	check_results_release(&r);

	/* /dev/nvidiactl alone shows it too. */
	memset(&f->nvsmi, 0, sizeof(f->nvsmi));
	f->nvsmi.src.status = PROBE_ABSENT;
	set_ok(&f->nvdev.src);
	f->nvdev.nvidiactl = 1;
	check_results_init(&r);
	check_pod(f, NULL, &decode, &r);
	CHECK(status(&r, "limits-driver") != CHECK_FAIL);
	check_results_release(&r);

	/* Only when every source looked and none shows a driver. */
	f->nvdev.nvidiactl = 0;
	f->nvdev.src.status = PROBE_ABSENT;
	set_ok(&f->modules.proc_src);
	check_results_init(&r);
	check_pod(f, NULL, &decode, &r);
	CHECK_INT(status(&r, "limits-driver"), CHECK_FAIL);
	CHECK_HAS(result(&r, "limits-driver")->detail, "no source shows it");
	check_results_release(&r);
	probe_facts_free(f);
}

/* Sources that contradict each other give one finding naming both. */
static void test_contradiction_named(void)
{
	static const char report[] =
		"dynamo-interconnect-probe v1\n"
		"@@@ nvidia_driver\n"
		"NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build\n"
		"@@@ end nvidia_driver rc=0\n"
		"@@@ dev_nvidia\nnvidiactl=char\ngpus=8\n@@@ end dev_nvidia rc=0\n"
		"@@@ done\n";
	struct probe_facts *f = ib_pod();
	struct check_results r;
	struct err e = { 0 };
	size_t len;
	char *t = fx_load_repo("nvidia-smi_q_h100_fabric_bandwidth_na_della.txt", &len);

	CHECK_INT(probe_parse_report(report, sizeof(report) - 1, f, &e), 0);
	CHECK_INT(f->nvdev.src.status, PROBE_OK);
	CHECK_INT(f->nvdev.nvidiactl, 1);
	CHECK_INT(f->nvdev.ngpu_nodes, 8);
	probe_parse_nvsmi_q(t, len, &f->nvsmi);
	free(t);
	set_ok(&f->nvsmi.src);
	check_results_init(&r);
	check_pod(f, NULL, &decode, &r);
	CHECK_INT(status(&r, "limits-driver"), CHECK_WARN);
	CHECK_HAS(result(&r, "limits-driver")->detail, "nvidia-smi reports driver 560.35.03");
	CHECK_HAS(result(&r, "limits-driver")->detail, "/proc/driver/nvidia/version 550.54.15");
	CHECK_HAS(result(&r, "limits-driver")->source, "/dev/nvidiactl");
	check_results_release(&r);
	probe_facts_free(f);
}

static void logs_of(const char *name, int peermem, struct check_results *r)
{
	struct logscan *s = calloc(1, sizeof(*s));
	struct logs_outcome o = { 0 };
	size_t len;
	char *t = fx_load_repo(name, &len);

	logscan_init(s);
	logscan_text(s, t, len);
	free(t);
	o.scan = s;
	o.container = "main";
	o.tail_lines = 2000;
	check_results_init(r);
	r->summary.peermem = peermem;
	check_logs(&o, &decode, r);
	free(s);
}

/* "UCP version is incompatible" then "Backend UCX was instantiated"
 * (sglang #5709, then NIXL_ERR_BACKEND): a LOGS fail (before: ok). */
static void test_ucp_version_incompatible(void)
{
	struct check_results r;

	logs_of("nixl_log_ucp_version_incompatible_sglang5709.txt", -1, &r);
	CHECK_INT(status(&r, "logs-nixl"), CHECK_FAIL);
	CHECK_HAS(result(&r, "logs-nixl")->detail, "UCP version is incompatible");
	check_results_release(&r);
	logs_of("nixl_log_ucp_api_version_incompatible_nixl386.txt", -1, &r);
	CHECK_INT(status(&r, "logs-nixl"), CHECK_FAIL);
	CHECK_HAS(result(&r, "logs-nixl")->detail, "UCP API version is incompatible");
	check_results_release(&r);
}

/* UCX_LOG_LEVEL=debug prints "dmabuf is not supported on cuda device 0"
 * at start-up: with peer memory loaded that is no degradation; without
 * it, it still is (ucx #9908). */
static void test_debug_dmabuf_with_peermem(void)
{
	static const char line[] =
		"[1716918990.448775] [gpu1:2588768:0]    cuda_copy_md.c:95   UCX  DEBUG dmabuf is not supported on cuda device 0\n";
	struct logscan s;
	struct logs_outcome o = { 0 };
	struct check_results r;
	size_t len;
	char *t = fx_load_repo("ucx_debug_log_gdr_disabled_no_dmabuf_ucx9908.txt", &len);

	/* The line is the fixture's own first line. */
	CHECK(strstr(t, line) == t);
	free(t);
	logscan_init(&s);
	logscan_text(&s, line, strlen(line));
	o.scan = &s;
	o.container = "main";
	o.tail_lines = 2000;
	check_results_init(&r);
	r.summary.peermem = 1;
	check_logs(&o, &decode, &r);
	CHECK(check_results_find(&r, "logs-ucx") == NULL);
	check_results_release(&r);
	check_results_init(&r);
	r.summary.peermem = 0;
	check_logs(&o, &decode, &r);
	CHECK_INT(status(&r, "logs-ucx"), CHECK_WARN);
	check_results_release(&r);
}

int main(void)
{
	test_dmabuf_register_line();
	test_fabric_na();
	test_driver_any_source();
	test_contradiction_named();
	test_ucp_version_incompatible();
	test_debug_dmabuf_with_peermem();
	return T_DONE("test_corrections");
}
