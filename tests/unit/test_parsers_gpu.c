/* GPU-side parsers (nvidia-smi -q, topo -m, nvlink --status, driver). */
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
#include "t.h"
#include "probe_fixture.h"

static struct probe_facts *F;

static void fresh(void)
{
	probe_facts_release(F);
}

static void test_nvsmi_h100(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_q_h100_fabric_completed_success_gpud.txt", &n);
	int i, done = 0;

	fresh();
	CHECK_INT(probe_parse_nvsmi_q(t, n, &F->nvsmi), 8);
	CHECK_STR(F->nvsmi.driver_version, "535.161.08");
	CHECK_STR(F->nvsmi.cuda_version, "12.2");
	CHECK_INT(F->nvsmi.attached, 8);
	for (i = 0; i < F->nvsmi.ngpus; i++)
		done += F->nvsmi.gpu[i].fabric_state == PROBE_FABRIC_COMPLETED &&
			!strcmp(F->nvsmi.gpu[i].fabric_status, "Success") &&
			!strcmp(F->nvsmi.gpu[i].name, "NVIDIA H100 80GB HBM3");
	CHECK_INT(done, 8);
	CHECK_STR(F->nvsmi.gpu[0].bus_id, "00000000:19:00.0");
	CHECK_STR(F->nvsmi.gpu[0].uuid, "GPU-ee7954ec-da95-fd7a-ddfd-c6b32cc2f8aa");
	free(t);
}

static void test_nvsmi_a10(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_q_a10_pcie_fabric_na_gpud.txt", &n);

	fresh();
	CHECK_INT(probe_parse_nvsmi_q(t, n, &F->nvsmi), 1);
	CHECK_STR(F->nvsmi.driver_version, "535.129.03");
	CHECK_INT(F->nvsmi.gpu[0].fabric_state, PROBE_FABRIC_NA);
	CHECK_STR(F->nvsmi.gpu[0].fabric_status, "N/A");
	CHECK_STR(F->nvsmi.gpu[0].name, "NVIDIA A10");
	free(t);
}

static void test_nvsmi_unhealthy(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_q_fabric_unhealthy_dra626.txt", &n);
	const struct probe_gpu *g = &F->nvsmi.gpu[0];

	fresh();
	CHECK_INT(probe_parse_nvsmi_q(t, n, &F->nvsmi), 1);
	CHECK_INT(g->fabric_state, PROBE_FABRIC_COMPLETED);
	CHECK_STR(g->fabric_status, "Success");
	CHECK_STR(g->clique_id, "2");
	CHECK_STR(g->cluster_uuid, "dc6e40c4-d722-4357-9ba6-5291dd461278");
	CHECK_STR(g->health_summary, "Unhealthy");
	CHECK_STR(g->health_bandwidth, "Full");
	free(t);
}

static void test_nvsmi_states(void)
{
	const char *t =
		"Driver Version : 570.1\r\n"
		"GPU 00000000:01:00.0\r\n"
		"    Product Name : NVIDIA B200\r\n"
		"    Fabric\r\n"
		"        State : Not Started\r\n"
		"        Status : N/A\r\n"
		"    Performance State : P0\r\n"
		"        State : Bogus\r\n"
		"GPU 00000000:02:00.0\r\n"
		"    Fabric\r\n"
		"        State : In Progress\r\n"
		"        Status : Insufficient Resources\r\n";

	fresh();
	CHECK_INT(probe_parse_nvsmi_q(t, strlen(t), &F->nvsmi), 2);
	CHECK_INT(F->nvsmi.gpu[0].fabric_state, PROBE_FABRIC_NOT_STARTED);
	CHECK_INT(F->nvsmi.gpu[1].fabric_state, PROBE_FABRIC_IN_PROGRESS);
	CHECK_STR(F->nvsmi.gpu[1].fabric_status, "Insufficient Resources");
	CHECK_STR(F->nvsmi.driver_version, "570.1");
}

/* Keys keep their padding to the " : " (nvsmi.c's key_is): a key is the
 * name followed by blanks only, tabs too, never a longer key that starts
 * with it; an empty value ("Key :") still counts. */
static void test_nvsmi_padded_keys(void)
{
	const char *t =
		"Driver Version\t\t\t\t : 580.2\n"
		"Driver Version Extra                      : wrong\n"
		"GPU 00000000:01:00.0\n"
		"    Product Name                          : NVIDIA H200\n"
		"    Product Names                         : wrong\n"
		"    Product Name Alias                    : wrong\n"
		"    GPU UUID :\n"
		"    Fabric\n"
		"        Status \t                         : Success\n"
		"        StatusX                           : wrong\n";

	fresh();
	CHECK_INT(probe_parse_nvsmi_q(t, strlen(t), &F->nvsmi), 1);
	CHECK_STR(F->nvsmi.driver_version, "580.2");
	CHECK_STR(F->nvsmi.gpu[0].name, "NVIDIA H200");
	CHECK_STR(F->nvsmi.gpu[0].uuid, "");
	CHECK_STR(F->nvsmi.gpu[0].fabric_status, "Success");
}

static void test_topo_5090(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_topo_2x5090_pcie_phb_and_p2p_gns.txt", &n);

	fresh();
	CHECK_INT(probe_parse_topo(t, n, &F->topo), 2);
	CHECK_INT(F->topo.nnics, 0);
	CHECK_INT(F->topo.gpu_rows, 2);
	CHECK_INT(F->topo.gpu_gpu[0][0].link, PROBE_TOPO_SELF);
	CHECK_INT(F->topo.gpu_gpu[0][1].link, PROBE_TOPO_PHB);
	CHECK_INT(F->topo.gpu_gpu[1][0].link, PROBE_TOPO_PHB);
	CHECK_STR(F->topo.cpu_affinity[0], "0-63");
	CHECK_INT(F->topo.numa[1], 0);
	free(t);
}

static void test_topo_4xh100(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_topo_4xh100_nv6_pix_nics.txt", &n);
	int g, k;

	fresh();
	CHECK_INT(probe_parse_topo(t, n, &F->topo), 4);
	CHECK_INT(F->topo.nnics, 4);
	CHECK_INT(F->topo.gpu_rows, 4);
	for (g = 0; g < 4; g++)
		for (k = 0; k < 4; k++) {
			if (g != k) {
				CHECK_INT(F->topo.gpu_gpu[g][k].link, PROBE_TOPO_NV);
				CHECK_INT(F->topo.gpu_gpu[g][k].nv, 6);
			}
			CHECK_INT(F->topo.gpu_nic[g][k].link,
				  g == k ? PROBE_TOPO_PIX : PROBE_TOPO_SYS);
		}
	CHECK_STR(F->topo.nic_name[0], "NIC0");  /* legend cut from the excerpt */
	CHECK_INT(F->topo.numa[0], 3);
	CHECK_STR(F->topo.cpu_affinity[1], "4,12,20,28");
	free(t);
}

static void test_topo_no_nvlink(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_topo_8gpu_no_nvlink_pix_nic_per_gpu_deepep128.txt", &n);
	int g, k, sys = 0, pix = 0;

	fresh();
	CHECK_INT(probe_parse_topo(t, n, &F->topo), 8);
	CHECK_INT(F->topo.nnics, 10);
	CHECK_INT(F->topo.gpu_rows, 6);  /* the excerpt stops after GPU5 */
	for (g = 0; g < F->topo.gpu_rows; g++)
		for (k = 0; k < 8; k++)
			if (g != k)
				sys += F->topo.gpu_gpu[g][k].link == PROBE_TOPO_SYS;
	CHECK_INT(sys, 6 * 7);
	for (g = 0; g < F->topo.gpu_rows; g++)
		for (k = 0; k < 10; k++)
			pix += F->topo.gpu_nic[g][k].link == PROBE_TOPO_PIX && g == k;
	CHECK_INT(pix, 6);
	CHECK_INT(F->topo.numa[4], 1);
	free(t);
}

static void test_topo_b200(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_topo_b200_8gpu_8nic_gke_a4_dranet.txt", &n);
	int g, k, nv18 = 0;

	fresh();
	CHECK_INT(probe_parse_topo(t, n, &F->topo), 8);
	CHECK_INT(F->topo.nnics, 8);
	CHECK_INT(F->topo.gpu_rows, 8);
	for (g = 0; g < 8; g++)
		for (k = 0; k < 8; k++)
			nv18 += F->topo.gpu_gpu[g][k].link == PROBE_TOPO_NV &&
				F->topo.gpu_gpu[g][k].nv == 18;
	CHECK_INT(nv18, 56);
	CHECK_STR(F->topo.nic_name[0], "mlx5_0");
	CHECK_STR(F->topo.nic_name[7], "mlx5_7");
	CHECK_INT(F->topo.gpu_nic[0][0].link, PROBE_TOPO_PIX);
	CHECK_INT(F->topo.gpu_nic[0][1].link, PROBE_TOPO_PIX);
	CHECK_INT(F->topo.gpu_nic[0][2].link, PROBE_TOPO_NODE);
	CHECK_INT(F->topo.gpu_nic[0][4].link, PROBE_TOPO_SYS);
	CHECK_INT(F->topo.gpu_nic[7][6].link, PROBE_TOPO_PIX);
	CHECK_INT(F->topo.numa[0], 0);
	CHECK_INT(F->topo.numa[7], 1);
	CHECK_INT(F->topo.gpu_numa[0], -1);   /* GPU NUMA ID N/A */
	CHECK_STR(probe_topo_link_name(PROBE_TOPO_NODE), "NODE");
	free(t);
}

/* A GB200 tray (sgl-project/sglang#11208's layout): NUMA Affinity is a
 * list, each GPU is a NUMA node of its own (GPU NUMA ID), every NIC SYS. */
static void test_topo_gb200(void)
{
	static const char t[] =
		"\tGPU0\tGPU1\tGPU2\tGPU3\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
		"GPU0\t X \tNV18\tNV18\tNV18\tSYS\tSYS\t0-71\t0,3-9,11-17\t\t2\n"
		"GPU1\tNV18\t X \tNV18\tNV18\tSYS\tSYS\t0-71\t0,3-9,11-17\t\t10\n"
		"GPU2\tNV18\tNV18\t X \tNV18\tSYS\tSYS\t72-143\t1,19-25,27-33\t\t18\n"
		"GPU3\tNV18\tNV18\tNV18\t X \tSYS\tSYS\t72-143\t1,19-25,27-33\t\t26\n"
		"NIC0\tSYS\tSYS\tSYS\tSYS\t X \tNODE\n"
		"NIC1\tSYS\tSYS\tSYS\tSYS\tNODE\t X \n\nLegend:\n\n  X    = Self\n\n"
		"NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n";

	fresh();
	CHECK_INT(probe_parse_topo(t, strlen(t), &F->topo), 4);
	CHECK_INT(F->topo.gpu_rows, 4);
	CHECK_INT(F->topo.gpu_nic[0][0].link, PROBE_TOPO_SYS);
	CHECK_STR(F->topo.cpu_affinity[2], "72-143");
	CHECK_INT(F->topo.numa[0], 0);
	CHECK_INT(F->topo.numa[3], 1);
	CHECK_INT(F->topo.gpu_numa[0], 2);
	CHECK_INT(F->topo.gpu_numa[3], 26);
	CHECK_STR(F->topo.nic_name[1], "mlx5_1");
	/* x86: "N/A" (the B200 capture above) */
	fresh();
	CHECK_INT(F->topo.gpu_numa[0], -1);
}

static void test_nvlink_a100(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_nvlink_status_a100_sxm4.txt", &n);
	int g, l, at25 = 0;

	fresh();
	CHECK_INT(probe_parse_nvlink(t, n, &F->nvlink), 8);
	for (g = 0; g < F->nvlink.ngpus; g++) {
		CHECK_INT(F->nvlink.gpu[g].nlinks, 12);
		CHECK_INT(F->nvlink.gpu[g].n_inactive, 0);
		for (l = 0; l < 12; l++)
			at25 += F->nvlink.gpu[g].speed_gbs[l] == 25;
	}
	CHECK_INT(at25, 96);
	CHECK_STR(F->nvlink.gpu[0].name, "NVIDIA A100-SXM4-80GB");
	free(t);
}

static void test_nvlink_h100(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_nvlink_status_h100_18links_healthy.txt", &n);
	int l, nominal = 0;

	fresh();
	CHECK_INT(probe_parse_nvlink(t, n, &F->nvlink), 1);
	CHECK_INT(F->nvlink.gpu[0].nlinks, 18);
	for (l = 0; l < 18; l++)
		nominal += F->nvlink.gpu[0].speed_gbs[l] > 26.5 &&
			   F->nvlink.gpu[0].speed_gbs[l] < 26.6;
	CHECK_INT(nominal, 18);
	free(t);
}

static void test_nvlink_h200_degraded(void)
{
	size_t n;
	char *t = fx_load("nvidia-smi_nvlink_status_h200_degraded_link_speeds_testdata.txt", &n);
	const struct probe_nvlink_gpu *g0 = &F->nvlink.gpu[0], *g1 = &F->nvlink.gpu[1];
	double mode;
	int l, slow = 0;

	fresh();
	CHECK_INT(probe_parse_nvlink(t, n, &F->nvlink), 2);
	mode = probe_nvlink_mode_speed(g0);
	CHECK(mode > 26.5 && mode < 26.6);
	for (l = 0; l < g0->nlinks; l++)
		if (g0->speed_gbs[l] < mode)
			slow |= 1 << l;
	CHECK_INT(slow, (1 << 2) | (1 << 3) | (1 << 4) | (1 << 10));
	CHECK(g0->speed_gbs[2] == 1.0);
	CHECK(g0->speed_gbs[3] == 1.562);
	mode = probe_nvlink_mode_speed(g1);
	for (l = 0, slow = 0; l < g1->nlinks; l++)
		slow += g1->speed_gbs[l] < mode;
	CHECK_INT(slow, 0);
	CHECK_INT(g1->index, 1);
	free(t);
}

static void test_nvlink_inactive_and_empty(void)
{
	const char *t = "GPU 0: NVIDIA H100 (UUID: GPU-x)\n\t Link 0: 26.562 GB/s\n"
			"\t Link 1: <inactive>\n\t Link 2: <inactive>\n";

	fresh();
	CHECK_INT(probe_parse_nvlink(t, strlen(t), &F->nvlink), 1);
	CHECK_INT(F->nvlink.gpu[0].n_inactive, 2);
	CHECK_INT(F->nvlink.gpu[0].inactive[1], 1);
	CHECK_INT(F->nvlink.gpu[0].nlinks, 3);
	fresh();
	CHECK_INT(probe_parse_nvlink("", 0, &F->nvlink), 0);
}

static void test_nvdriver_kernel(void)
{
	const char *open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
			   "535.161.08  Release Build  (dvs-builder@U16-I3-B03-4-3)\n"
			   "GCC version:  gcc version 11.4.0\n";
	const char *closed = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  "
			     "Thu Oct 19 18:56:32 UTC 2023\n";

	fresh();
	CHECK_INT(probe_parse_nvdriver(open, strlen(open), &F->nvdriver), 1);
	CHECK_INT(F->nvdriver.open_module, 1);
	CHECK_STR(F->nvdriver.version, "535.161.08");
	fresh();
	CHECK_INT(probe_parse_nvdriver(closed, strlen(closed), &F->nvdriver), 1);
	CHECK_INT(F->nvdriver.open_module, 0);
	CHECK_STR(F->nvdriver.version, "535.129.03");
	CHECK_INT(probe_parse_kernel("5.15.0-105-generic\n", 19, &F->kernel), 1);
	CHECK_STR(F->kernel.release, "5.15.0-105-generic");
	CHECK_INT(F->kernel.major, 5);
	CHECK_INT(F->kernel.minor, 15);
}

/* The mode as first written: every link counts every link (issue 46
 * made it once per speed); the two agree on every pattern of a few
 * speeds, ties, inactive and zero links. */
static double mode_reference(const struct probe_nvlink_gpu *g)
{
	double best = 0;
	int best_n = 0;

	for (int i = 0; i < g->nlinks && i < PROBE_MAX_NVLINKS; i++) {
		int cnt = 0;

		if (g->inactive[i] || g->speed_gbs[i] <= 0)
			continue;
		for (int j = 0; j < g->nlinks && j < PROBE_MAX_NVLINKS; j++)
			cnt += !g->inactive[j] && g->speed_gbs[j] == g->speed_gbs[i];
		if (cnt > best_n || (cnt == best_n && g->speed_gbs[i] > best)) {
			best_n = cnt;
			best = g->speed_gbs[i];
		}
	}
	return best;
}

static void test_nvlink_mode_patterns(void)
{
	static const double speeds[] = { 0, 1.0, 26.562, 53.125, 1.562 };
	struct probe_nvlink_gpu g;
	unsigned seed = 46;
	int same = 0;

	for (int round = 0; round < 4000; round++) {
		memset(&g, 0, sizeof g);
		g.nlinks = (int)((seed = seed * 1103515245u + 12345u) >> 16) % (PROBE_MAX_NVLINKS + 1);
		for (int l = 0; l < g.nlinks; l++) {
			seed = seed * 1103515245u + 12345u;
			g.speed_gbs[l] = speeds[(seed >> 16) % (round % 4 + 2)];
			g.inactive[l] = ((seed >> 24) % 7) == 0;
		}
		same += probe_nvlink_mode_speed(&g) == mode_reference(&g);
	}
	CHECK_INT(same, 4000);
}

int main(void)
{
	F = probe_facts_new();
	test_nvlink_mode_patterns();
	test_nvsmi_h100();
	test_nvsmi_a10();
	test_nvsmi_unhealthy();
	test_nvsmi_states();
	test_nvsmi_padded_keys();
	test_topo_5090();
	test_topo_4xh100();
	test_topo_no_nvlink();
	test_topo_b200();
	test_topo_gb200();
	test_nvlink_a100();
	test_nvlink_h100();
	test_nvlink_h200_degraded();
	test_nvlink_inactive_and_empty();
	test_nvdriver_kernel();
	probe_facts_free(F);
	return T_DONE("test_parsers_gpu");
}
