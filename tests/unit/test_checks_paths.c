/* Checks on hand-built facts, by fabric and path: RoCE and its GID
 * index, EFA, PCIe and NVLink, the host, IMEX claims, the NIC a GPU's KV
 * uses (ucx-nic-select), VM P2P and C2C affinity (checks.md A-E). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks_fixture.h"

static void test_roce(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;

	for (int i = 0; i < 2; i++) {
		struct probe_rdma_port *p = &f->sysfs_ib.dev[i].port[0];

		p->link_layer = PROBE_LL_ETH;
		p->rate_gbps = 200;
		p->n_gids = 4;
		p->gid_mask = 0xf;
		p->n_roce_v2 = 2;
		p->roce_v2_mask = 0xa;  /* indices 1 and 3 */
	}
	set_env(f, "UCX_IB_GID_INDEX=3\n");
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(r.fabric, FABRIC_ROCE);
	CHECK_INT(status_of(&r, "rdma-roce"), CHECK_OK);
	dump_unexpected(&r);
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
	set_env(f, "UCX_IB_GID_INDEX=2\n");
	probe_facts_release(f);
	probe_facts_free(f);
	f = healthy_ib();
	for (int i = 0; i < 2; i++) {
		f->sysfs_ib.dev[i].port[0].link_layer = PROBE_LL_ETH;
		f->sysfs_ib.dev[i].port[0].n_gids = 4;
		f->sysfs_ib.dev[i].port[0].gid_mask = 0xf;
		f->sysfs_ib.dev[i].port[0].roce_v2_mask = 0x8;
	}
	set_env(f, "NCCL_IB_GID_INDEX=0\n");
	run(f, &ib_spec, &decode_ctx, &r);
	/* The pinned index is judged once, by the rule book (A9): RoCE v1
	 * reaches the peer on one L2 segment, which one pod cannot tell, so
	 * warn (the one GID rule, issue 39 item 4; the pair line decides). */
	CHECK_INT(status_of(&r, "env-gid-index"), CHECK_WARN);
	CHECK(status_of(&r, "rdma-roce") != CHECK_FAIL);
	check_results_release(&r);
	probe_facts_free(f);
}

/* The real GID table of the roce-ok profile (8x ConnectX-7 in Ethernet
 * mode, tests/cluster/profiles/roce-ok/SOURCE.md): 0/1 link-local RoCE
 * v1/v2, 2/3 IPv4-mapped RoCE v1/v2, the rest empty.  Returns the status
 * of env-gid-index with env, its detail in why. */
static int gid_case(const char *env, int no_ipv4, char *why, size_t n)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;
	const struct check_result *c;
	size_t len;
	char *t = NULL;
	int st;

	free(f->sysfs_ib.dev);   /* the two hand-built IB devices give way */
	memset(&f->sysfs_ib, 0, sizeof f->sysfs_ib);
	set_ok(&f->sysfs_ib.src);
	len = 0;
	fx_append(&t, &len, "");
	fx_walk("tests/cluster/profiles/roce-ok/root/sys/class/infiniband", "", &t, &len);
	CHECK_INT(probe_parse_sysfs_ib(t, len, &f->sysfs_ib), 8);
	free(t);
	for (int i = 0; no_ipv4 && i < f->sysfs_ib.ndevs; i++)
		f->sysfs_ib.dev[i].port[0].gid_mask &= ~f->sysfs_ib.dev[i].port[0].ipv4_mask;
	set_env(f, env);
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(r.fabric, FABRIC_ROCE);
	c = check_results_find(&r, "env-gid-index");
	snprintf(why, n, "%s", c ? c->detail : "");
	st = c ? (int)c->status : -1;
	check_results_release(&r);
	probe_facts_free(f);
	return st;
}

static void test_gid_index(void)
{
	char why[512];

	CHECK_INT(gid_case("UCX_IB_GID_INDEX=3\nNCCL_IB_GID_INDEX=3\n", 0, why, sizeof why), CHECK_OK);
	/* Unset: UCX and NCCL both pick index 3 (RoCE v2, IPv4) themselves. */
	CHECK_INT(gid_case("UCX_TLS=rc,cuda_copy\n", 0, why, sizeof why), CHECK_OK);
	CHECK_HAS(why, "UCX_IB_GID_INDEX=unset");
	/* link-local and RoCE v1 are L2 only: one pod cannot tell whether its
	 * peer shares the segment, so warn (issue 39 item 4: the one GID rule;
	 * A10's pair line fails them across subnets); empty fails anywhere */
	CHECK_INT(gid_case("UCX_IB_GID_INDEX=1\n", 0, why, sizeof why), CHECK_WARN);
	CHECK_HAS(why, "link-local");
	CHECK_HAS(why, "on mlx5_");
	CHECK_INT(gid_case("NCCL_IB_GID_INDEX=2\n", 0, why, sizeof why), CHECK_WARN);
	CHECK_HAS(why, "RoCE v1");
	CHECK_INT(gid_case("MC_GID_INDEX=5\n", 0, why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "empty (no GID at that index)");
	CHECK_INT(gid_case("UCX_IB_GID_INDEX=x\n", 0, why, sizeof why), CHECK_FAIL);
	CHECK_HAS(why, "not a GID index");
	CHECK_INT(gid_case("NCCL_IB_GID_INDEX=-1\n", 0, why, sizeof why), CHECK_OK);
	/* Mooncake: MC_GID_INDEX read with atoi ("x" is 0), else
	 * NCCL_IB_GID_INDEX, else its own pick (index 3 here). */
	CHECK_INT(gid_case("MC_GID_INDEX=x\nUCX_IB_GID_INDEX=3\nNCCL_IB_GID_INDEX=3\n", 0,
			   why, sizeof why), CHECK_WARN);
	CHECK_HAS(why, "Mooncake uses GID 0");
	CHECK_INT(gid_case("MC_TE_FILTERS=mlx5_0\n", 0, why, sizeof why), CHECK_OK);
	CHECK_INT(gid_case("MC_TE_FILTERS=mlx5_0\nNCCL_IB_GID_INDEX=3\n", 0, why, sizeof why), CHECK_OK);
	CHECK_INT(gid_case("MC_TE_FILTERS=mlx5_0\nNCCL_IB_GID_INDEX=0\nUCX_IB_GID_INDEX=3\n", 0,
			   why, sizeof why), CHECK_WARN);
	CHECK_HAS(why, "Mooncake uses GID 0");
	/* No IPv4 address on the NICs: UCX's own pick is the link-local
	 * RoCE v2 GID 1, NCCL's falls back to 0. */
	CHECK_INT(gid_case("UCX_TLS=rc,cuda_copy\n", 1, why, sizeof why), CHECK_WARN);
	CHECK_HAS(why, "unset: UCX picks GID 1");
	CHECK_HAS(why, "unset: NCCL picks GID 0");
}

/* G1 (issue 42): a non-EFA RDMA device beside the EFA devices.  The EFA
 * device plugin before 0.5.10 hands out p6-b200's ibp* NVLink controllers
 * (mlx5) as EFA devices (aws/sagemaker-hyperpod-cli PR #282); libfabric's
 * EFA provider then reports -61 (aws-samples/aws-do-eks PR #63).  sysfs is
 * host-wide: only a uverbs node the pod holds for it counts.  Leaves f as
 * it found it. */
static void test_efa_mixed(struct probe_facts *f, const struct pod_spec_facts *spec,
			   const struct check_context *ctx)
{
	const struct check_result *c;
	struct check_results r;
	int ndevs = f->sysfs_ib.ndevs, nu = f->dev_ib.n_uverbs;

	add_dev(f, "mlx5_0", PROBE_LL_IB, 400);
	snprintf(f->sysfs_ib.dev[f->sysfs_ib.ndevs - 1].netdev, 32, "ibp115s0f0");
	f->dev_ib.n_uverbs = 2;         /* plugin 0.5.10: the EFA devices' only */
	run(f, spec, ctx, &r);
	CHECK_INT(r.fabric, FABRIC_EFA);
	CHECK_INT(status_of(&r, "efa-devices"), CHECK_OK);
	check_results_release(&r);
	f->dev_ib.n_uverbs = 3;         /* before 0.5.10: mlx5_0's handed out */
	run(f, spec, ctx, &r);
	c = check_results_find(&r, "efa-devices");
	CHECK_INT(c ? (int)c->status : -1, CHECK_FAIL);
	CHECK_HAS(c ? c->detail : NULL, "mlx5_0 (netdev ibp115s0f0)");
	CHECK_HAS(c ? c->detail : NULL, "3 uverbs");
	CHECK_HAS(c ? c->detail : NULL, "aws/sagemaker-hyperpod-cli PR #282");
	CHECK_HAS(c ? c->remedy : NULL, "0.5.10");
	CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
	check_results_release(&r);
	f->dev_ib.src.status = PROBE_FAILED;    /* /dev/infiniband not read */
	run(f, spec, ctx, &r);
	CHECK_INT(status_of(&r, "efa-devices"), CHECK_WARN);
	check_results_release(&r);
	set_ok(&f->dev_ib.src);
	f->sysfs_ib.ndevs = ndevs;
	f->dev_ib.n_uverbs = nu;
}

/* gpuNics of NIXL's LIBFABRIC backend (issue 42 item 4, checks.md E9):
 * each GPU its EFA devices as libfabric_topology.cpp groupNicsWithAccel
 * groups them, from topo -m. */
static void fi_expect(const struct check_results *r, int g, const char *dev, int n)
{
	CHECK(r->n_gpu_nics == 2);
	if (r->n_gpu_nics != 2)
		return;
	CHECK_STR(r->gpu_nics[g].chosen_by, "LIBFABRIC");
	CHECK_INT(r->gpu_nics[g].n, n);
	CHECK_INT(r->gpu_nics[g].max_rails, n);
	if (n > 0)
		CHECK_STR(r->gpu_nics[g].nic[0].dev, dev);
}

static void test_fi_gpus(struct probe_facts *f, const struct pod_spec_facts *spec,
			 const struct check_context *ctx)
{
	struct check_results r;
	struct check_context ucx = *ctx;

	/* each GPU the device on its switch */
	f->topo.gpu_nic[0][0].link = f->topo.gpu_nic[1][1].link = PROBE_TOPO_PIX;
	f->topo.gpu_nic[0][1].link = f->topo.gpu_nic[1][0].link = PROBE_TOPO_SYS;
	run(f, spec, ctx, &r);
	fi_expect(&r, 0, "rdmap79s0:1", 1);
	fi_expect(&r, 1, "rdmap80s0:1", 1);
	check_results_release(&r);
	/* one device on a switch both GPUs share: both get it; the other,
	 * where no GPU stops, is nobody's */
	f->topo.gpu_nic[1][0].link = f->topo.gpu_nic[0][0].link = PROBE_TOPO_PXB;
	f->topo.gpu_nic[1][1].link = PROBE_TOPO_SYS;
	run(f, spec, ctx, &r);
	fi_expect(&r, 0, "rdmap79s0:1", 1);
	fi_expect(&r, 1, "rdmap79s0:1", 1);
	check_results_release(&r);
	/* both devices on the shared switch: split in bus order */
	f->topo.gpu_nic[0][1].link = f->topo.gpu_nic[1][1].link = PROBE_TOPO_PXB;
	run(f, spec, ctx, &r);
	fi_expect(&r, 0, "rdmap79s0:1", 1);
	fi_expect(&r, 1, "rdmap80s0:1", 1);
	check_results_release(&r);
	/* UCX named: not LIBFABRIC's grouping */
	ucx.nixl_backend = "UCX";
	run(f, spec, &ucx, &r);
	CHECK_INT((int)r.n_gpu_nics, 0);
	check_results_release(&r);
	f->topo.gpu_nic[0][0].link = f->topo.gpu_nic[1][1].link = PROBE_TOPO_PIX;
	f->topo.gpu_nic[0][1].link = f->topo.gpu_nic[1][0].link = PROBE_TOPO_SYS;
}

static void test_efa(void)
{
	struct probe_facts *f = healthy_ib();
	struct pod_spec_facts spec = ib_spec;
	struct check_context ctx = decode_ctx;
	struct check_results r;

	f->sysfs_ib.ndevs = 0;
	add_dev(f, "rdmap79s0", PROBE_LL_UNKNOWN, 100);
	add_dev(f, "rdmap80s0", PROBE_LL_UNKNOWN, 100);
	f->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM] = 0;
	f->modules.loaded[PROBE_MOD_GDRDRV] = 0;
	f->modules.gdrdrv_dev = 0;
	snprintf(f->topo.nic_name[0], 32, "rdmap79s0");
	snprintf(f->topo.nic_name[1], 32, "rdmap80s0");
	set_ok(&f->fi.src);
	set_ok(&f->fi.hmem_src);
	f->fi.nentries = 1;
	f->fi.n_efa_rdm = 2;
	f->fi.n_hmem_entries = 2;
	snprintf(f->fi.entry[0].domain, 40, "rdmap79s0-rdm");
	snprintf(f->fi.entry[0].version, 16, "122.0");
	snprintf(f->nixl.plugin[f->nixl.nplugins++], 48, "libplugin_LIBFABRIC.so");
	set_env(f, "FI_EFA_USE_DEVICE_RDMA=1\nNCCL_IB_DISABLE=1\n");
	spec.rdma_devices = 0;
	spec.rdma_resource[0] = '\0';
	spec.efa_devices = 2;
	spec.host_ipc = 1;
	ctx.nixl_backend = "LIBFABRIC";
	run(f, &spec, &ctx, &r);
	CHECK_INT(r.fabric, FABRIC_EFA);
	dump_unexpected(&r);
	CHECK_INT(status_of(&r, "efa-devices"), CHECK_OK);
	CHECK_INT(status_of(&r, "efa-provider"), CHECK_OK);
	CHECK_INT(status_of(&r, "nixl-backend"), CHECK_OK);
	CHECK(check_results_find(&r, "rdma-devices")->flags & CHECK_F_NA);
	CHECK(check_results_find(&r, "gpudirect-peermem")->flags & CHECK_F_NA);
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	CHECK_INT(status_of(&r, "limits-hugepages"), CHECK_OK);
	CHECK(check_results_find(&r, "ucx-nixl-lib")->flags & CHECK_F_NA);
	check_results_release(&r);
	test_fi_gpus(f, &spec, &ctx);
	test_efa_mixed(f, &spec, &ctx);

	/* H4: no hugepages, all in use, unknown, or not wanted. */
	f->meminfo.hp_total = 0;
	run(f, &spec, &ctx, &r);
	CHECK_INT(status_of(&r, "limits-hugepages"), CHECK_WARN);
	CHECK_HAS(check_results_find(&r, "limits-hugepages")->detail, "HugePages_Total 0");
	/* Off the KV path (H4: the provider falls back to regular pages). */
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
	f->meminfo.hp_total = 16;
	f->meminfo.hp_free = 0;
	run(f, &spec, &ctx, &r);
	CHECK_INT(status_of(&r, "limits-hugepages"), CHECK_WARN);
	check_results_release(&r);
	f->meminfo.hp_total = -1;
	run(f, &spec, &ctx, &r);
	CHECK_INT(status_of(&r, "limits-hugepages"), CHECK_SKIPPED);
	CHECK(!(check_results_find(&r, "limits-hugepages")->flags & CHECK_F_NA));
	check_results_release(&r);
	set_env(f, "FI_EFA_USE_DEVICE_RDMA=1\nFI_EFA_USE_HUGE_PAGE=0\n");
	run(f, &spec, &ctx, &r);
	CHECK_INT(status_of(&r, "limits-hugepages"), CHECK_OK);
	CHECK_HAS(check_results_find(&r, "limits-hugepages")->detail, "regular pages");
	check_results_release(&r);
	f->meminfo.hp_total = f->meminfo.hp_free = 5128;
	set_env(f, "FI_EFA_USE_DEVICE_RDMA=1\nNCCL_IB_DISABLE=1\n");

	/* UCX backend on EFA with get_zcopy, and libfabric without FI_HMEM. */
	ctx.nixl_backend = "UCX";
	set_env(f, "UCX_RNDV_SCHEME=get_zcopy\nFI_PROVIDER=tcp\n");
	f->fi.hmem_p2p_unavailable = 1;
	run(f, &spec, &ctx, &r);
	/* issue 22: across nodes UCX on EFA is a slow or failing KV path
	 * (nixl#909, #1983, dynamo#4185): fail, no longer a warning. */
	CHECK_INT(status_of(&r, "nixl-backend"), CHECK_FAIL);
	CHECK_INT(status_of(&r, "env-ucx-rndv"), CHECK_FAIL);
	CHECK_INT(status_of(&r, "env-fi"), CHECK_FAIL);
	CHECK_INT(status_of(&r, "efa-hmem"), CHECK_FAIL);
	check_results_release(&r);
	ctx.kv_cross_node = 0;     /* prefill and decode on one node: a note */
	run(f, &spec, &ctx, &r);
	CHECK_INT(status_of(&r, "nixl-backend"), CHECK_WARN);
	check_results_release(&r);
	ctx.kv_cross_node = 1;

	/* EFA requested but the pod sees none. */
	f->sysfs_ib.ndevs = 0;
	f->fi.n_efa_rdm = 0;
	f->fi.no_data = 1;
	run(f, &spec, &ctx, &r);
	CHECK_INT(status_of(&r, "efa-devices"), CHECK_FAIL);
	check_results_release(&r);
	probe_facts_free(f);
}

static void test_pcie_single_node(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_context agg = {
		.node = "gpu-b1", .role = "worker", .kv_known = 1, .npods = 1,
	};
	struct pod_spec_facts spec = ib_spec;
	struct check_results r;

	/* PCIe board, no NVLink, no RDMA; an aggregated single-pod worker. */
	spec.gpus = 1;
	memset(&f->nvlink, 0, sizeof(f->nvlink));
	memset(&f->nvsmi.gpu, 0, sizeof(f->nvsmi.gpu));
	gpus(f, 1, 0);
	f->sysfs_ib.ndevs = 0;
	f->sysfs_ib.src.status = PROBE_ABSENT;
	f->dev_ib.n_uverbs = 0;
	run(f, &spec, &agg, &r);
	CHECK_INT(r.fabric, FABRIC_NVLINK);
	CHECK(check_results_find(&r, "rdma-devices")->flags & CHECK_F_NA);
	CHECK(check_results_find(&r, "nvlink-fabric")->flags & CHECK_F_NA);
	CHECK(check_results_find(&r, "nvlink-links")->flags & CHECK_F_NA);
	dump_unexpected(&r);
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);

	/* Two PCIe GPUs in one pod: NVLink absent is a warning (D1). */
	gpus(f, 2, 0);
	run(f, NULL, &agg, &r);
	CHECK_INT(status_of(&r, "nvlink-links"), CHECK_WARN);
	CHECK_HAS(check_results_find(&r, "nvlink-links")->detail, "PCIe");
	check_results_release(&r);

	/* The same pod in a disaggregated deployment: KV goes over TCP. */
	run(f, NULL, &decode_ctx, &r);
	CHECK_INT(r.fabric, FABRIC_TCP);
	CHECK_INT(status_of(&r, "rdma-devices"), CHECK_FAIL);
	CHECK_HAS(check_results_find(&r, "rdma-devices")->detail, "TCP");
	check_results_release(&r);
	probe_facts_free(f);
}

static void test_degraded_nvlink(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;

	f->nvlink.gpu[1].speed_gbs[3] = 1.562;
	f->nvlink.gpu[0].inactive[5] = 1;
	f->nvlink.gpu[0].speed_gbs[5] = 0;
	f->nvlink.gpu[0].n_inactive = 1;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "nvlink-links"), CHECK_WARN);
	CHECK_HAS(check_results_find(&r, "nvlink-links")->detail, "GPU1 0 inactive, 1 slow");
	check_results_release(&r);
	probe_facts_free(f);
}

/* A8, E1, H3 on an InfiniBand decode worker; H4 is in test_efa. */
static void test_host(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;
	const struct check_result *c;

	run(f, &ib_spec, &decode_ctx, &r);
	CHECK(check_results_find(&r, "rdma-pci")->flags & CHECK_F_NA);
	CHECK(check_results_find(&r, "limits-hugepages")->flags & CHECK_F_NA);
	CHECK_INT(status_of(&r, "ucx-nixl-lib"), CHECK_OK);
	CHECK_INT(status_of(&r, "limits-shm"), CHECK_OK);
	check_results_release(&r);

	/* A8: 8 IB NICs on the node, none in the pod. */
	f->sysfs_ib.ndevs = 0;
	f->dev_ib.n_uverbs = 0;
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "rdma-pci");
	CHECK_INT(c->status, CHECK_FAIL);
	CHECK_HAS(c->detail, "8 RDMA NICs on PCI (8 InfiniBand");
	CHECK_HAS(c->remedy, "request an RDMA resource");
	check_results_release(&r);
	/* ... on a node without any: a scheduling problem. */
	f->pci.n_ib = 0;
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "rdma-pci");
	CHECK_INT(c->status, CHECK_FAIL);
	CHECK_HAS(c->remedy, "nodes with RDMA NICs");
	check_results_release(&r);
	/* ... or none among the first 256 read: not proven either way. */
	f->pci.truncated = 1;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "rdma-pci"), CHECK_SKIPPED);
	check_results_release(&r);
	/* ... PCI unreadable: skipped, not passed. */
	f->pci.src.status = PROBE_ABSENT;
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "rdma-pci");
	CHECK(c->status == CHECK_SKIPPED && !(c->flags & CHECK_F_NA));
	check_results_release(&r);
	probe_facts_free(f);

	/* E1: merged /usr is one install; a wheel's own UCX is another. */
	f = healthy_ib();
	snprintf(f->ucx.library_path, 256, "/usr/lib/x86_64-linux-gnu/libucs.so.0");
	snprintf(f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCP], 256, "/lib/x86_64-linux-gnu/libucp.so.0");
	snprintf(f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCS], 256, "/lib/x86_64-linux-gnu/libucs.so.0");
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "ucx-nixl-lib"), CHECK_OK);
	check_results_release(&r);
	snprintf(f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCP], 256,
		 "/site-packages/.nixl_cu12.mesonpy.libs/libucp-5e5bd27f.so.0.0.0");
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "ucx-nixl-lib");
	CHECK_INT(c->status, CHECK_WARN);
	CHECK_HAS(c->detail, "mixes two UCX installs");
	check_results_release(&r);
	snprintf(f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCS], 256,
		 "/site-packages/.nixl_cu12.mesonpy.libs/libucs-1a2b.so.0.0.0");
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "ucx-nixl-lib");
	CHECK_INT(c->status, CHECK_WARN);
	CHECK_HAS(c->detail, "two UCX installs: NIXL loads libucp from /site-packages");
	CHECK_HAS(c->remedy, "keep one UCX");
	/* A warning (E1), not a broken link: READY, with the warning listed. */
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
	f->nixl_ucx_ldd.not_found[PROBE_UCXLIB_UCT] = 1;
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "ucx-nixl-lib");
	CHECK_INT(c->status, CHECK_FAIL);
	CHECK_HAS(c->detail, "libuct.so.0 => not found");
	check_results_release(&r);
	/* ldd missing, or UCX < 1.14 without a Library path: nothing to
	 * compare, so not applicable (the verdict stays READY). */
	f->nixl_ucx_ldd.not_found[PROBE_UCXLIB_UCT] = 0;
	f->nixl_ucx_ldd.src.status = PROBE_ABSENT;
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "ucx-nixl-lib");
	CHECK(c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA));
	CHECK_HAS(c->detail, "ldd not found");
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
	f->nixl_ucx_ldd.src.status = PROBE_OK;
	f->ucx.library_path[0] = '\0';
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "ucx-nixl-lib");
	CHECK(c->status == CHECK_SKIPPED && (c->flags & CHECK_F_NA));
	CHECK_HAS(c->detail, "no Library path");
	check_results_release(&r);
	/* No UCX plugin at all: nixl-plugin judges that. */
	f->nixl_ucx_ldd.src.status = PROBE_ABSENT;
	f->nixl_ucx_ldd.plugin[0] = '\0';
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK(check_results_find(&r, "ucx-nixl-lib")->flags & CHECK_F_NA);
	check_results_release(&r);

	/* H3: the Docker default 64 MiB, and df missing. */
	f->shm.size_kb = 65536;
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "limits-shm");
	CHECK_INT(c->status, CHECK_WARN);
	CHECK_HAS(c->detail, "/dev/shm is 64 MiB");
	check_results_release(&r);
	f->shm.size_kb = -1;
	f->shm.src.status = PROBE_ABSENT;
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "limits-shm");
	CHECK(c->status == CHECK_SKIPPED && !(c->flags & CHECK_F_NA));
	CHECK_HAS(c->detail, "df and the /dev/shm mount not found");
	check_results_release(&r);
	f->shm.tmpfs_default = 1;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "limits-shm"), CHECK_OK);
	check_results_release(&r);
	probe_facts_free(f);
}

/* D4: only a ComputeDomain claim gives the IMEX channel; a GPU-only DRA
 * claim (gpu.nvidia.com) must not pass nvlink-imex. */
static void test_imex_claim(void)
{
	struct probe_facts *f = healthy_ib();
	struct pod_spec_facts s = ib_spec;
	struct check_results r;

	set_env(f, "UCX_TLS=rc_x,cuda_copy,cuda_ipc\nUCX_CUDA_IPC_ENABLE_MNNVL=y\n");
	for (int i = 0; i < f->nvsmi.ngpus; i++) {
		snprintf(f->nvsmi.gpu[i].clique_id, sizeof f->nvsmi.gpu[i].clique_id, "2");
		snprintf(f->nvsmi.gpu[i].cluster_uuid, sizeof f->nvsmi.gpu[i].cluster_uuid,
			 "7d3c5b1e-0a1f-4c2e-9b6d-3f1e2a4c5d6e");
	}
	s.has_resource_claims = 1;
	s.claims_read = 1;
	snprintf(s.claim_drivers, sizeof s.claim_drivers, "gpu.nvidia.com");
	run(f, &s, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "nvlink-imex"), CHECK_WARN);
	check_results_release(&r);

	snprintf(s.claim_drivers, sizeof s.claim_drivers, "gpu.nvidia.com,compute-domain.nvidia.com");
	run(f, &s, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "nvlink-imex"), CHECK_OK);
	check_results_release(&r);

	s.claims_read = 0;
	s.claims_unread = 1;
	run(f, &s, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "nvlink-imex"), CHECK_SKIPPED);
	check_results_release(&r);
	probe_facts_free(f);
}

/* ---- the known-bad table (checks.md F5) ------------------------------ */

/* E7 (ucx-nic-select) on healthy_ib plus mlx5_bond_0, an Active Ethernet
 * BlueField-3 port beside the rails (h100-ib-ok's layout): unset, "all"
 * and a list naming it fail with the rails suggested when UCX opens it
 * (ucx_info -d lists its md, or every device has its uverbs node) and its
 * GID table is empty (nogid), warn with GIDs or when it may not be opened
 * (fewer uverbs nodes than devices, no ucx_info -d); not opened (no md)
 * it is not taken; the rails listed are ok; a list leaving GPU1 its SYS
 * rail warns with both rails suggested.  ucxd: 1 the bond's md listed, 0
 * not, -1 no ucx_info. */
static void nicsel_case(const char *env, int uverbs, int ucxd, int nogid, int want,
			const char *detail, const char *sugg)
{
	struct probe_facts *f = healthy_ib();
	struct probe_rdma_dev *bond;
	struct check_results r;
	const struct check_result *c;
	char text[160];

	add_dev(f, "mlx5_bond_0", PROBE_LL_ETH, 25);
	bond = &f->sysfs_ib.dev[f->sysfs_ib.ndevs - 1];
	snprintf(bond->hca_type, sizeof(bond->hca_type), "MT41692");
	f->dev_ib.n_uverbs = uverbs;
	bond->port[0].gids_listed = nogid ? 1 : 0;
	if (ucxd > 0)
		add_md(&f->ucx, "mlx5_bond_0", "ib", 1);
	if (ucxd < 0)
		f->ucx.d_src.status = PROBE_ABSENT;
	snprintf(text, sizeof(text), "UCX_TLS=rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc\n%s", env);
	set_env(f, text);
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "ucx-nic-select");
	CHECK(c != NULL);
	if (c) {
		CHECK_INT(c->status, want);
		CHECK_HAS(c->detail, detail);
		if (sugg) {
			CHECK_STR(c->suggest ? c->suggest : "", sugg);
			CHECK_HAS(c->remedy ? c->remedy : "", sugg);
		} else {
			CHECK(c->suggest == NULL);
		}
	}
	check_table_order(&r);
	check_results_release(&r);
	probe_facts_free(f);
}

static void test_nicsel(void)
{
	const char *rails = "UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1";
	const char *gone = "mlx5_bond_0:1 (Ethernet, BlueField, empty GID table)";

	nicsel_case("", 3, 1, 1, CHECK_FAIL, gone, rails);
	nicsel_case("", 3, -1, 1, CHECK_FAIL, gone, rails);
	nicsel_case("UCX_NET_DEVICES=all\n", 2, 1, 1, CHECK_FAIL, "unset/all", rails);
	nicsel_case("UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1,mlx5_bond_0:1\n", 3, 1, 1,
		    CHECK_FAIL, "lists mlx5_bond_0:1", rails);
	nicsel_case("", 3, 1, 0, CHECK_WARN, "may put KV lanes on the host network", rails);
	nicsel_case("", 2, -1, 1, CHECK_WARN, "may put KV lanes on the host network", rails);
	nicsel_case("", 2, 0, 1, CHECK_OK, "UCX takes 2 Active InfiniBand port(s) (all)", NULL);
	nicsel_case("UCX_NET_DEVICES=mlx5_0:1,mlx5_1:1\n", 3, 1, 1, CHECK_OK,
		    "UCX takes 2 Active InfiniBand port(s)", NULL);
	nicsel_case("UCX_NET_DEVICES=mlx5_0:1\n", 3, 1, 0, CHECK_WARN,
		    "GPU1 SYS (could be PIX)", rails);
	/* A bare device name takes no IB port in UCX: nothing taken. */
	nicsel_case("UCX_NET_DEVICES=mlx5_0,mlx5_1\n", 3, 1, 0, CHECK_SKIPPED,
		    "takes no Active", NULL);
}

/* E7's per-GPU mapping on healthy_ib (GPU g PIX to mlx5_g, SYS to the
 * other): each GPU gets its PIX rail, under UCX_NET_DEVICES=mlx5_0:1 GPU1
 * gets mlx5_0 at SYS and, with the suggestion, mlx5_1 at PIX. */
static void test_nicsel_gpus(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;

	set_env(f, "UCX_TLS=rc_x,cuda_copy\n");
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT((int)r.n_gpu_nics, 2);
	if (r.n_gpu_nics == 2) {
		CHECK_STR(r.gpu_nics[1].nic[0].dev, "mlx5_1:1");
		CHECK_INT(r.gpu_nics[1].n, 1);
		CHECK_STR(r.gpu_nics[1].link, "PIX");
		CHECK_STR(r.gpu_nics[1].chosen_by, "unset");
		CHECK_STR(r.gpu_nics[1].nic[0].state, "ACTIVE");
		CHECK_STR(r.gpu_nics[1].nic[0].link_layer, "InfiniBand");
		CHECK_INT(r.gpu_nics[1].nsugg, 0);
	}
	check_results_release(&r);
	set_env(f, "UCX_TLS=rc_x,cuda_copy\nUCX_NET_DEVICES=mlx5_0:1\n");
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT((int)r.n_gpu_nics, 2);
	if (r.n_gpu_nics == 2) {
		CHECK_STR(r.gpu_nics[1].nic[0].dev, "mlx5_0:1");
		CHECK_STR(r.gpu_nics[1].link, "SYS");
		CHECK_STR(r.gpu_nics[1].chosen_by, "UCX_NET_DEVICES");
		CHECK_INT(r.gpu_nics[1].nsugg, 1);
		CHECK_STR(r.gpu_nics[1].sugg[0].dev, "mlx5_1:1");
		CHECK_STR(r.gpu_nics[1].sugg_link, "PIX");
	}
	check_results_release(&r);
	/* no topo -m: no mapping */
	f->topo.src.status = PROBE_ABSENT;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT((int)r.n_gpu_nics, 0);
	check_results_release(&r);
	probe_facts_free(f);
}

/* B7 (gpudirect-vm-p2p) on healthy_ib's PIX pairs: a QEMU guest warns
 * naming dynamo#12463 and the unset UCX_NET_DEVICES; listing only mlx5_0
 * keeps GPU0's pair; bare metal is ok; no DMI, or DMI without a
 * hypervisor and no cpuinfo flags line, is skipped. */
static int vm_case(const char *vendor, const char *product, int flag, const char *env,
		   const char *detail)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;
	const struct check_result *c;
	int st = -1;

	if (vendor) {
		set_ok(&f->vm.src);
		snprintf(f->vm.sys_vendor, sizeof(f->vm.sys_vendor), "%s", vendor);
		snprintf(f->vm.product_name, sizeof(f->vm.product_name), "%s", product);
	}
	f->vm.cpu_hypervisor = flag == 2 ? -1 : flag;
	f->vm.cpu_arm64 = flag == 2;   /* 2: arm64's cpuinfo, no flags line */
	set_env(f, env);
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "gpudirect-vm-p2p");
	CHECK(c != NULL);
	if (c) {
		st = (int)c->status;
		CHECK_HAS(c->detail, detail);
	}
	check_table_order(&r);
	check_results_release(&r);
	probe_facts_free(f);
	return st;
}

static void test_vm_p2p(void)
{
	const char *q35 = "Standard PC (Q35 + ICH9, 2009)";

	CHECK_INT(vm_case("QEMU", q35, 1, "UCX_TLS=rc_x\n", "ai-dynamo/dynamo#12463"), CHECK_WARN);
	CHECK_INT(vm_case("QEMU", q35, -1, "UCX_TLS=rc_x\n", "UCX_NET_DEVICES is unset"), CHECK_WARN);
	CHECK_INT(vm_case("Microsoft Corporation", "Virtual Machine", 1,
			  "UCX_NET_DEVICES=all\n", "UCX_NET_DEVICES=all"), CHECK_WARN);
	CHECK_INT(vm_case("QEMU", q35, 1, "UCX_NET_DEVICES=mlx5_0:1\n", "1 GPU(s)"), CHECK_WARN);
	CHECK_INT(vm_case("Supermicro", "SYS-821GE-TNHR", 1, "UCX_TLS=rc_x\n", "hypervisor CPU flag"),
		  CHECK_WARN);
	CHECK_INT(vm_case("Supermicro", "SYS-821GE-TNHR", 0, "UCX_TLS=rc_x\n", "not a virtual machine"),
		  CHECK_OK);
	CHECK_INT(vm_case("Supermicro", "SYS-821GE-TNHR", -1, "UCX_TLS=rc_x\n", "unknown"),
		  CHECK_SKIPPED);
	CHECK_INT(vm_case(NULL, NULL, 1, "UCX_TLS=rc_x\n", "not readable"), CHECK_SKIPPED);
	/* arm64 (Grace): no hypervisor flag exists, DMI decides */
	CHECK_INT(vm_case("Supermicro", "ARS-121GL-NBO-LCC", 2, "UCX_TLS=rc_x\n", "arm64"), CHECK_OK);
	CHECK_INT(vm_case("QEMU", "KVM Virtual Machine", 2, "UCX_TLS=rc_x\n", "ai-dynamo/dynamo#12463"),
		  CHECK_WARN);
}

/* B4 on a Grace host: every GPU-NIC cell SYS warns, unless the GPUs are
 * NUMA nodes of their own (NVLink-C2C, GPU NUMA ID) and NCCL_NET_GDR_C2C
 * is not 0 (NVIDIA/nccl paths.cc ncclTopoCheckGdr: PATH_P2C). */
static int c2c_case(int gpu_numa, const char *env, const char *detail)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;
	const struct check_result *c;
	int st = -1;

	for (int g = 0; g < PROBE_MAX_GPUS; g++) {
		for (int n = 0; n < PROBE_MAX_NICS; n++)
			f->topo.gpu_nic[g][n].link = PROBE_TOPO_SYS;
		f->topo.gpu_numa[g] = gpu_numa >= 0 ? gpu_numa + 8 * g : -1;
	}
	set_env(f, env);
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "gpudirect-affinity");
	CHECK(c != NULL);
	if (c) {
		st = (int)c->status;
		CHECK_HAS(c->detail, detail);
	}
	check_results_release(&r);
	probe_facts_free(f);
	return st;
}

static void test_affinity_c2c(void)
{
	CHECK_INT(c2c_case(-1, "UCX_TLS=rc_x\n", "NCCL disables GDR beyond PXB"), CHECK_WARN);
	CHECK_INT(c2c_case(2, "UCX_TLS=rc_x\n", "NVLink-C2C"), CHECK_OK);
	CHECK_INT(c2c_case(2, "UCX_TLS=rc_x\nNCCL_NET_GDR_C2C=0\n", "NCCL disables GDR beyond PXB"),
		  CHECK_WARN);
}

/* E8c's key (issue 42 item 2): releases up to 0.3.12.post1, the last tag
 * read, rank NICs by getPciDistance (kvcache-ai/Mooncake PR #1974 open). */
static void test_mc_pci_prefix(void)
{
	CHECK(envr_mooncake_pci_prefix("0.3.12.post1") == 1);
	CHECK(envr_mooncake_pci_prefix("0.3.12") == 1);
	CHECK(envr_mooncake_pci_prefix("0.3.9") == 1);
	CHECK(envr_mooncake_pci_prefix("0.3.12rc1") == 1);
	CHECK(envr_mooncake_pci_prefix("0.3.12.post2") == 0);
	CHECK(envr_mooncake_pci_prefix("0.3.13") == 0);
	CHECK(envr_mooncake_pci_prefix("0.4.0") == 0);
	CHECK(envr_mooncake_pci_prefix("1.0") == 0);
	CHECK(envr_mooncake_pci_prefix("") == -1);
	CHECK(envr_mooncake_pci_prefix(NULL) == -1);
	CHECK(envr_mooncake_pci_prefix("v0.3.12") == -1);
	CHECK(envr_mooncake_pci_prefix("0.3.12.postX") == -1);
	CHECK(envr_mooncake_pci_prefix("99999999999.1") == -1);
}

int main(void)
{
	test_mc_pci_prefix();
	test_affinity_c2c();
	test_roce();
	test_gid_index();
	test_efa();
	test_pcie_single_node();
	test_degraded_nvlink();
	test_host();
	test_imex_claim();
	test_nicsel();
	test_nicsel_gpus();
	test_vm_p2p();
	return T_DONE("test_checks_paths");
}
