/* The captures of issue 22 item 6 (tests/calibration/captures: what real
 * images, nodes and workers print) through the parser that reads each kind,
 * and the one correction they showed: NIXL's "VRAM memory is detected as
 * host by UCX" (ucx_utils.cpp memReg since nixl PR 1393) is UCX without CUDA
 * support, a LOGS failure even when no NIXL_ERR_* line follows; and the
 * probe must report a RoCE GID table that is listed but all zero (show_gids
 * n_gids_found=0 in a pod), which it used to drop, so rdma-roce could only
 * say "not readable".  Parser assertions are on the capture's own text
 * (header line stripped). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/logs.h"
#include "probe/facts.h"
#include "probe/logscan.h"
#include "probe_fixture.h"
#include "t.h"

static struct probe_facts *F;

extern const char probe_script[];
extern const size_t probe_script_len;

/* A calibration capture without its "# source:" line; aborts when
 * missing (a silent skip would hide a renamed capture). */
static char *capture(const char *name, size_t *len)
{
	char path[512];
	char *buf, *nl;
	size_t n;

	snprintf(path, sizeof path, "tests/calibration/captures/%s", name);
	buf = fx_read_path(path, &n);
	if (!buf || strncmp(buf, "# source: ", 10) || !(nl = strchr(buf, '\n'))) {
		fprintf(stderr, "missing or headerless capture %s\n", path);
		exit(2);
	}
	n -= (size_t)(nl + 1 - buf);
	memmove(buf, nl + 1, n + 1);
	*len = n;
	return buf;
}

/* Empty facts and a capture for the parser under test; the caller frees. */
static char *fresh_capture(const char *name, size_t *len)
{
	probe_facts_release(F);
	return capture(name, len);
}

static struct check_context cross = {
	.node = "n1", .role = "decode", .kv_cross_pod = 1,
	.kv_cross_node = 1, .kv_known = 1, .npods = 2,
};

/* The status of logs-nixl for one log text (-1: no such result), and
 * its detail must hold want when want is given. */
static int logs_nixl(const char *text, const char *want)
{
	struct logscan s;
	struct logs_outcome o = { &s, NULL, 0, "main", 5000 };
	struct check_results r;
	const struct check_result *c;
	int st;

	logscan_init(&s);
	logscan_text(&s, text, strlen(text));
	check_results_init(&r);
	check_logs(&o, &cross, &r);
	c = check_results_find(&r, "logs-nixl");
	st = c ? (int)c->status : -1;
	if (want)
		CHECK_HAS(c ? c->detail : NULL, want);
	check_results_release(&r);
	return st;
}

static void scan(const char *name, struct logscan *s)
{
	size_t n;
	char *t = capture(name, &n);

	logscan_init(s);
	logscan_text(s, t, n);
	free(t);
}

/* nixl#1628 (nixl-cu13 1.0.0) and NIXL main's wording ("CUDA/ROCm"): the
 * VRAM refusal alone is the failure; the old code matched only the
 * NIXL_ERR_BACKEND that happens to follow it in the issue. */
static void test_vram_detected_as_host(void)
{
	static const char *const alone[] = {
		"E ucx_utils.cpp:592  VRAM memory is detected as host by UCX.\n",
		"E0521 10:01:02.000000 1 ucx_utils.cpp:661] ctx 0x1: VRAM memory is detected as host "
		"by UCX. UCX is likely not configured with CUDA/ROCm support. VRAM registration cannot "
		"proceed.\n",
	};
	struct logscan s;

	scan("nixl_log_vram_detected_as_host_cu13_nixl1628.txt", &s);
	CHECK_INT(s.count[LOGSIG_UCX_NO_CUDA_SUPPORT], 1);
	CHECK_INT(s.count[LOGSIG_NIXL_ERR], 1);
	for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++)
		CHECK_INT(logs_nixl(alone[i], "no CUDA support"), CHECK_FAIL);
}

/* vllm#41048: eight warnings of the older wording, one signature each. */
static void test_vram_as_host_vllm(void)
{
	struct logscan s;

	scan("nixl_log_vram_detected_as_host_vllm41048.txt", &s);
	CHECK_INT(s.count[LOGSIG_UCX_NO_CUDA_SUPPORT], 8);
	CHECK_INT(s.count[LOGSIG_NIXL_ERR], 0);
}

/* Healthy and broken NIXL logs of real images, as the scanner reads them. */
static void test_worker_logs(void)
{
	struct logscan s;
	size_t n;
	char *t;
	int st;

	/* vllm#29369: NIXL's Python logger behind vLLM's EngineCore prefix */
	scan("nixl_log_ucx_instantiated_vllm29369.txt", &s);
	CHECK_INT(s.count[LOGSIG_NIXL_UCX_INSTANTIATED], 1);
	CHECK_STR(s.nixl_backend, "UCX");
	t = capture("nixl_log_ucx_instantiated_vllm29369.txt", &n);
	CHECK_INT(logs_nixl(t, NULL), CHECK_OK);
	free(t);
	/* dynamo#1108: instantiated, then NIXL_ERR_BACKEND: the error wins */
	t = capture("nixl_log_ucx_instantiated_then_err_backend_dynamo1108.txt", &n);
	CHECK_INT(logs_nixl(t, "NIXL_ERR_BACKEND"), CHECK_FAIL);
	free(t);
	/* dynamo#741: UCX's tcp connect refused, then NIXL_ERR_BACKEND */
	scan("ucx_log_connect_refused_dynamo741.txt", &s);
	CHECK_INT(s.count[LOGSIG_NIXL_ERR], 1);
	/* nixl#838: only storage plugins (GDS, GDS_MT, GPUNETIO's CUDA deps)
	 * fail to load from the wheel's .nixl.mesonpy.libs: no KV failure */
	scan("nixl_log_plugin_load_failed_mesonpy_nixl838.txt", &s);
	CHECK_INT(s.count[LOGSIG_NIXL_BACKEND_FAILED], 0);
	CHECK_INT(s.count[LOGSIG_NIXL_ERR], 0);
	/* nixl#299: UCX_MODULE_LOG_LEVEL=error prints module loading as
	 * "UCX ERROR": not a failure of any kind */
	scan("ucx_log_module_load_error_level_nixl299.txt", &s);
	for (int i = 0; i < LOGSIG_COUNT; i++)
		CHECK_INT(s.count[i], 0);
	/* llm-d PR 391: an older NIXL's "Discovered and loaded plugin: X"
	 * (no "backend"), then the LIBFABRIC rail manager: nothing bad */
	t = capture("nixl_log_libfabric_wheel_debug_old_wording_llmd391.txt", &n);
	st = logs_nixl(t, NULL);
	CHECK(st != CHECK_FAIL && st != CHECK_WARN);
	free(t);
}

/* dynamo#1209: ibdev2netdev of bonded RoCE ports, then UCX refusing
 * UCX_NET_DEVICES=mlx5_bond_0:1 (the quote marks of the issue kept). */
static void test_ibdev2netdev_bonds(void)
{
	const struct probe_rdma_list *l = &F->ibdev2netdev;
	struct logscan s;
	size_t n;
	char *t = fresh_capture("ibdev2netdev_bond_ucx_net_device_unavailable_dynamo1209.txt", &n);

	CHECK_INT(probe_parse_ibdev2netdev(t, n, &F->ibdev2netdev), 4);
	if (l->ndevs == 4) {
		CHECK_STR(l->dev[0].name, "mlx5_bond_0");
		CHECK_STR(l->dev[3].name, "mlx5_bond_3");
		CHECK_STR(l->dev[3].netdev, "bond3");
		CHECK_INT(l->dev[3].port[0].netdev_up, 1);
	}
	logscan_init(&s);
	logscan_text(&s, t, n);
	CHECK_INT(s.count[LOGSIG_UCX_TL_UNAVAILABLE], 1);
	free(t);
}

/* dynamo#814 (BlueField-3 on Ethernet, cut after mlx5_11's header) and
 * k8s-rdma-shared-dev-plugin#164 (a port block with no hca_id above it). */
static void test_ibv_devinfo_excerpts(void)
{
	const struct probe_rdma_dev *d;
	size_t n;
	char *t = fresh_capture("ibv_devinfo_bf3_roce_two_node_dynamo814.txt", &n);

	CHECK_INT(probe_parse_ibv_devinfo(t, n, &F->ibv_devinfo), 2);
	d = F->ibv_devinfo.ndevs == 2 ? F->ibv_devinfo.dev : NULL;
	if (d) {
		CHECK_STR(d[0].name, "mlx5_10");
		CHECK_INT(d->part_id, 41692);
		CHECK_INT(d->nports, 1);
		CHECK_INT(d->port[0].state, PROBE_PORT_ACTIVE);
		CHECK_INT(d->port[0].link_layer, PROBE_LL_ETH);
		CHECK_INT(d->port[0].active_mtu, 4096);
		CHECK_STR(d[1].name, "mlx5_11");
		CHECK_INT(d[1].nports, 0);
	}
	free(t);
	/* no device header: the ports belong to no device and are dropped */
	t = fresh_capture("ibv_devinfo_v_roce_25g_gid_shared_dev_plugin164.txt", &n);
	CHECK_INT(probe_parse_ibv_devinfo(t, n, &F->ibv_devinfo), 0);
	free(t);
}

/* nccl#1453: tab-separated, 9 NICs, GPU i PIX to one NIC, NIC0 the host's. */
static void test_topo_tabs(void)
{
	int g, nv18 = 0, pix = 0;
	size_t n;
	char *t = fresh_capture("nvidia-smi_topo_h100_9nic_tabs_nccl1453.txt", &n);

	CHECK_INT(probe_parse_topo(t, n, &F->topo), 8);
	CHECK_INT(F->topo.nnics, 9);
	CHECK_INT(F->topo.gpu_rows, 8);
	for (g = 0; g < 8; g++) {
		for (int k = 0; k < 8; k++)
			nv18 += F->topo.gpu_gpu[g][k].link == PROBE_TOPO_NV && F->topo.gpu_gpu[g][k].nv == 18;
		for (int k = 0; k < 9; k++)
			pix += F->topo.gpu_nic[g][k].link == PROBE_TOPO_PIX;
		CHECK_INT(F->topo.gpu_nic[g][0].link, PROBE_TOPO_SYS);
	}
	CHECK_INT(nv18, 56);
	CHECK_INT(pix, 8);
	CHECK_INT(F->topo.gpu_nic[0][8].link, PROBE_TOPO_PIX);
	CHECK_INT(F->topo.gpu_nic[7][1].link, PROBE_TOPO_PIX);
	CHECK_INT(F->topo.numa[0], 0);
	CHECK_INT(F->topo.numa[4], 1);
	CHECK_STR(F->topo.cpu_affinity[4], "80-159");
	free(t);
}

/* nixl#503: `pip list`, `pip show nixl` and a hand-copied ucx_info -v in
 * one paste; the intact "# Library version:" line is the version. */
static void test_ucx_v_pasted(void)
{
	struct probe_ucx *u = &F->ucx;
	size_t n;
	char *t = fresh_capture("pip_list_show_nixl_ucx_info_v_nixl503.txt", &n);

	probe_parse_ucx_v(t, n, u);
	CHECK_STR(u->version, "1.20.0");
	CHECK_INT(u->major, 1);
	CHECK_INT(u->minor, 20);
	CHECK(u->feature[PROBE_UCXF_CUDA] != PROBE_CFG_WITH);
	free(t);
}

/* One shell function of the embedded probe ("NAME() {" to its closing
 * "\n}\n"), appended to *out; 0 when the script has no such function. */
static int script_function(const char *name, char *out, size_t n)
{
	char head[64];
	const char *a, *b;

	snprintf(head, sizeof head, "\n%s() {", name);
	a = strstr(probe_script, head);
	b = a ? strstr(a, "\n}\n") : NULL;
	if (!b || strlen(out) + (size_t)(b + 3 - a) >= n)
		return 0;
	strncat(out, a, (size_t)(b + 3 - a));
	return 1;
}

static void put_file(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	fp = fopen(path, "w");
	if (!fp)
		abort();
	fputs(text, fp);
	fclose(fp);
}

/* k8s-rdma-sriov-dev-plugin#30: show_gids in the pod finds no GID at all
 * (every slot of an Active Ethernet port zero).  The probe's own
 * sysfs_port() on such a port must say the table was listed. */
static void test_probe_empty_gid_table(void)
{
	static const char zero[] = "0000:0000:0000:0000:0000:0000:0000:0000";
	char dir[] = "/tmp/di-caps-gids-XXXXXX", sh[8192] = "", cmd[256], rel[64];
	char out[8192];
	size_t n, len;
	char *t = capture("show_gids_empty_k8s_pod_calico_sriov30.txt", &len);
	FILE *pp;
	int zeros = 0;

	CHECK_HAS(t, "n_gids_found=0");
	free(t);
	CHECK(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof cmd, "mkdir -p %s/gids", dir);
	CHECK_INT(system(cmd), 0);
	put_file(dir, "state", "4: ACTIVE\n");
	put_file(dir, "phys_state", "5: LinkUp\n");
	put_file(dir, "link_layer", "Ethernet\n");
	for (int i = 0; i < 16; i++) {
		snprintf(rel, sizeof rel, "gids/%d", i);
		put_file(dir, rel, zero);
	}
	CHECK(script_function("rd", sh, sizeof sh));
	CHECK(script_function("sysfs_port", sh, sizeof sh));
	strncat(sh, "sysfs_port \"$1\" mlx5_0/ports/1\n", sizeof sh - strlen(sh) - 1);
	put_file(dir, "probe.sh", sh);
	snprintf(cmd, sizeof cmd, "sh %s/probe.sh %s", dir, dir);
	pp = popen(cmd, "r");
	n = pp ? fread(out, 1, sizeof out - 1, pp) : 0;
	if (pp)
		CHECK_INT(pclose(pp), 0);
	out[n] = '\0';
	for (const char *p = out; (p = strstr(p, zero)); p++)
		zeros++;
	CHECK_INT(zeros, 1);    /* the first empty slot, not all sixteen */
	probe_facts_release(F);
	CHECK_INT(probe_parse_sysfs_ib(out, n, &F->sysfs_ib), 1);
	if (F->sysfs_ib.ndevs == 1 && F->sysfs_ib.dev[0].nports == 1) {
		CHECK_INT(F->sysfs_ib.dev[0].port[0].link_layer, PROBE_LL_ETH);
		CHECK(F->sysfs_ib.dev[0].port[0].gids_listed > 0);
		CHECK_INT(F->sysfs_ib.dev[0].port[0].n_gids, 0);
	} else {
		CHECK(0);
	}
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

int main(void)
{
	F = probe_facts_new();
	test_vram_detected_as_host();
	test_vram_as_host_vllm();
	test_worker_logs();
	test_ibdev2netdev_bonds();
	test_ibv_devinfo_excerpts();
	test_topo_tabs();
	test_ucx_v_pasted();
	test_probe_empty_gid_table();
	probe_facts_free(F);
	return T_DONE("test_corrections_caps");
}
