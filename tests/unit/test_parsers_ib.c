/* RDMA parsers against the real outputs in tests/fixtures/tools. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
#include "t.h"
#include "probe_fixture.h"

static struct probe_facts *F;

static const struct probe_rdma_dev *dev(const struct probe_rdma_list *l, const char *name)
{
	int i;
	for (i = 0; i < l->ndevs; i++)
		if (!strcmp(l->dev[i].name, name))
			return &l->dev[i];
	return NULL;
}

static void fresh(void)
{
	probe_facts_release(F);
}

static void test_sysfs_h100(void)
{
	size_t n;
	char *t = fx_sysfs("sysfs_infiniband_h100", &n);
	const struct probe_rdma_dev *d;
	int i, active400 = 0;

	fresh();
	CHECK_INT(probe_parse_sysfs_ib(t, n, &F->sysfs_ib), 9);
	for (i = 0; i < F->sysfs_ib.ndevs; i++) {
		const struct probe_rdma_port *p = &F->sysfs_ib.dev[i].port[0];
		CHECK_INT(F->sysfs_ib.dev[i].nports, 1);
		CHECK_INT(p->state, PROBE_PORT_ACTIVE);
		CHECK_INT(p->phys_state, PROBE_PHYS_LINKUP);
		active400 += p->rate_gbps == 400 && p->link_layer == PROBE_LL_IB;
	}
	CHECK_INT(active400, 8);
	d = dev(&F->sysfs_ib, "mlx5_0");
	CHECK(d != NULL);
	if (d) {
		CHECK_STR(d->hca_type, "MT4129");
		CHECK_INT(d->part_id, 4129);
		CHECK_STR(d->port[0].rate_str, "4X NDR");
	}
	d = dev(&F->sysfs_ib, "mlx5_bond_0");
	CHECK(d != NULL);
	if (d) {
		CHECK_INT(d->port[0].link_layer, PROBE_LL_ETH);
		CHECK(d->port[0].rate_gbps == 200);
		CHECK_STR(d->port[0].rate_str, "2X NDR");
		CHECK_INT(d->part_id, 41692);
	}
	free(t);
}

static void test_sysfs_gids(void)
{
	const char *t =
		"mlx5_2/net=eth1\n"
		"mlx5_2/ports/1/state=4: ACTIVE\n"
		"mlx5_2/ports/1/link_layer=Ethernet\n"
		"mlx5_2/ports/1/gids/0=fe80:0000:0000:0000:8ae9:a4ff:fe9c:7f1a\n"
		"mlx5_2/ports/1/gid_attrs/types/0=IB/RoCE v1\n"
		"mlx5_2/ports/1/gid_attrs/ndevs/0=eth1\n"
		"mlx5_2/ports/1/gids/3=0000:0000:0000:0000:0000:ffff:0a00:0001\n"
		"mlx5_2/ports/1/gid_attrs/types/3=RoCE v2\n"
		"mlx5_2/ports/1/gid_attrs/ndevs/3=eth1\n"
		"mlx5_2/ports/1/gids/4=0000:0000:0000:0000:0000:ffff:0a00:0002\n"
		"mlx5_2/ports/1/gid_attrs/types/4=RoCE v2\n"
		"mlx5_2/ports/1/gid_attrs/ndevs/4=\n"
		"mlx5_2/ports/1/gids/5=0000:0000:0000:0000:0000:0000:0000:0000\n"
		"garbage without equals\n=\nx/=y\n";
	const struct probe_rdma_port *p;

	fresh();
	CHECK_INT(probe_parse_sysfs_ib(t, strlen(t), &F->sysfs_ib), 1);
	p = &F->sysfs_ib.dev[0].port[0];
	CHECK_STR(F->sysfs_ib.dev[0].netdev, "eth1");
	CHECK_INT(p->n_gids, 3);
	CHECK_INT(p->n_roce_v1, 1);
	CHECK_INT(p->n_roce_v2, 2);
	CHECK_INT(p->first_roce_v2, 3);
	CHECK(p->roce_v2_mask == 0x18);
	CHECK(p->ipv4_mask == 0x18);
	/* Index 5 is listed but zero: no GID there (what UCX's
	 * uct_ib_device_is_gid_raw_empty and Mooncake's isNullGid refuse). */
	CHECK(p->gid_mask == 0x19);
	CHECK(p->link_local_mask == 1);
	CHECK_STR(p->gid_ndev, "eth1");
	/* GID 4 lists no netdev (Mooncake's GID without network device) */
	CHECK(p->ndev_mask == 9);
	CHECK_STR(p->gid_ndevs[0], "eth1");
	CHECK_STR(p->gid_ndevs[4], "");
}

/* E7's sysfs facts: the bond a device's netdev is enslaved to (the first
 * one kept) and the device's physical PCI path. */
static void test_sysfs_bond_and_pci(void)
{
	const char *t =
		"mlx5_8/net=ens3f0np0\n"
		"mlx5_8/net_master=bond0\n"
		"mlx5_8/net_master=bond9\n"
		"mlx5_8/pci=/sys/devices/pci0000:27/0000:27:01.0/0000:29:00.0\n"
		"mlx5_8/ports/1/state=4: ACTIVE\n"
		"mlx5_0/ports/1/state=4: ACTIVE\n";

	fresh();
	CHECK_INT(probe_parse_sysfs_ib(t, strlen(t), &F->sysfs_ib), 2);
	CHECK_STR(F->sysfs_ib.dev[0].net_master, "bond0");
	CHECK_STR(F->sysfs_ib.dev[0].pci_path, "/sys/devices/pci0000:27/0000:27:01.0/0000:29:00.0");
	CHECK_STR(F->sysfs_ib.dev[1].net_master, "");
	CHECK_STR(F->sysfs_ib.dev[1].pci_path, "");
}

static void test_ibstat_ib400_eth_down(void)
{
	size_t n;
	char *t = fx_load("ibstat_h100_ib400_active_plus_eth_down.txt", &n);
	int i, ib_active = 0, eth_down = 0;

	fresh();
	CHECK_INT(probe_parse_ibstat(t, n, &F->ibstat), 12);
	for (i = 0; i < F->ibstat.ndevs; i++) {
		const struct probe_rdma_port *p = &F->ibstat.dev[i].port[0];
		if (p->link_layer == PROBE_LL_IB && p->state == PROBE_PORT_ACTIVE &&
		    p->rate_gbps == 400 && p->phys_state == PROBE_PHYS_LINKUP)
			ib_active++;
		if (p->link_layer == PROBE_LL_ETH && p->state == PROBE_PORT_DOWN &&
		    p->phys_state == PROBE_PHYS_DISABLED)
			eth_down++;
	}
	CHECK_INT(ib_active, 8);
	CHECK_INT(eth_down, 3);
	CHECK_INT(dev(&F->ibstat, "mlx5_2")->port[0].state, PROBE_PORT_DOWN);
	CHECK(dev(&F->ibstat, "mlx5_2")->port[0].rate_gbps == 40);
	CHECK_INT(dev(&F->ibstat, "mlx5_1")->port[0].link_layer, PROBE_LL_ETH);
	CHECK_INT(dev(&F->ibstat, "mlx5_1")->port[0].state, PROBE_PORT_ACTIVE);
	CHECK_INT(dev(&F->ibstat, "mlx5_0")->part_id, 4129);
	CHECK_INT(dev(&F->ibstat, "mlx5_1")->part_id, 4125);
	CHECK_INT(dev(&F->ibstat, "mlx5_0")->port[0].sm_lid, 334);
	CHECK_INT(F->ibstat.truncated, 0);
	free(t);
}

static void test_ibstat_all_active(void)
{
	size_t n;
	char *t = fx_load("ibstat_h100_all_active.txt", &n);
	int i, active = 0, ib400 = 0;

	fresh();
	CHECK_INT(probe_parse_ibstat(t, n, &F->ibstat), 9);
	for (i = 0; i < F->ibstat.ndevs; i++) {
		const struct probe_rdma_port *p = &F->ibstat.dev[i].port[0];
		active += p->state == PROBE_PORT_ACTIVE;
		ib400 += p->link_layer == PROBE_LL_IB && p->rate_gbps == 400;
	}
	CHECK_INT(active, 9);
	CHECK_INT(ib400, 8);
	CHECK_INT(F->ibstat.truncated, 0);
	free(t);
}

static void test_ibstat_ibpanic(void)
{
	size_t n;
	char *t = fx_load("ibstat_a100_ibpanic_exit255.txt", &n);
	int i, ok = 0;

	fresh();
	CHECK_INT(probe_parse_ibstat(t, n, &F->ibstat), 8);
	for (i = 0; i < F->ibstat.ndevs; i++) {
		const struct probe_rdma_port *p = &F->ibstat.dev[i].port[0];
		ok += p->state == PROBE_PORT_ACTIVE && p->rate_gbps == 200 &&
		      p->link_layer == PROBE_LL_IB;
	}
	CHECK_INT(ok, 8);
	CHECK_INT(F->ibstat.truncated, 1);
	CHECK(dev(&F->ibstat, "mlx5_8") == NULL);
	CHECK_INT(dev(&F->ibstat, "mlx5_0")->part_id, 4124);
	free(t);
}

static void test_ibstat_mlx4(void)
{
	size_t n;
	char *t = fx_load("ibstat_mlx4_port1_down_disabled_port2_active.txt", &n);
	const struct probe_rdma_dev *d;

	fresh();
	CHECK_INT(probe_parse_ibstat(t, n, &F->ibstat), 1);
	d = dev(&F->ibstat, "mlx4_0");
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_INT(d->nports, 2);
	CHECK_INT(d->nports_declared, 2);
	CHECK_INT(d->port[0].num, 1);
	CHECK_INT(d->port[0].state, PROBE_PORT_DOWN);
	CHECK_INT(d->port[0].phys_state, PROBE_PHYS_DISABLED);
	CHECK(d->port[0].rate_gbps == 10);
	CHECK_INT(d->port[0].link_layer, PROBE_LL_IB);
	CHECK_INT(d->port[1].num, 2);
	CHECK_INT(d->port[1].state, PROBE_PORT_ACTIVE);
	CHECK_INT(d->port[1].phys_state, PROBE_PHYS_LINKUP);
	CHECK(d->port[1].rate_gbps == 56);
	/* The excerpt stops before port 2's link layer. */
	CHECK_INT(d->port[1].link_layer, PROBE_LL_UNKNOWN);
	CHECK_INT(F->ibstat.truncated, 1);
	free(t);
}

static void test_ibstatus_a100(void)
{
	size_t n;
	char *t = fx_load("ibstatus_a100_all_active.txt", &n);
	int i, at200 = 0, at40 = 0, active = 0;

	fresh();
	CHECK_INT(probe_parse_ibstatus(t, n, &F->ibstatus), 9);
	for (i = 0; i < F->ibstatus.ndevs; i++) {
		const struct probe_rdma_port *p = &F->ibstatus.dev[i].port[0];
		active += p->state == PROBE_PORT_ACTIVE && p->phys_state == PROBE_PHYS_LINKUP;
		at200 += p->rate_gbps == 200 && !strcmp(p->rate_str, "4X HDR");
		at40 += p->rate_gbps == 40 && !strcmp(p->rate_str, "4X QDR");
	}
	CHECK_INT(active, 9);
	CHECK_INT(at200, 8);
	CHECK_INT(at40, 1);
	CHECK_INT(dev(&F->ibstatus, "mlx5_0")->port[0].base_lid, 0x33bf);
	CHECK_INT(dev(&F->ibstatus, "mlx5_0")->port[0].sm_lid, 1);
	CHECK_INT(dev(&F->ibstatus, "mlx5_0")->port[0].link_layer, PROBE_LL_IB);
	free(t);
}

static void test_ibstatus_roce(void)
{
	size_t n;
	char *t = fx_load("ibstatus_roce_ethernet_100g_nccl1866.txt", &n);
	const struct probe_rdma_port *p;

	fresh();
	CHECK(probe_parse_ibstatus(t, n, &F->ibstatus) >= 2);
	p = &dev(&F->ibstatus, "mlx5_1")->port[0];
	CHECK_INT(p->state, PROBE_PORT_ACTIVE);
	CHECK_INT(p->link_layer, PROBE_LL_ETH);
	CHECK(p->rate_gbps == 100);
	CHECK_STR(p->rate_str, "4X EDR");
	CHECK_INT(p->base_lid, 0);
	CHECK_INT(p->sm_lid, 0);
	CHECK_INT(dev(&F->ibstatus, "mlx5_0")->port[0].link_layer, PROBE_LL_ETH);
	free(t);
}

static void test_ibv_devinfo_down(void)
{
	size_t n;
	char *t = fx_load("ibv_devinfo_port_down_ethernet_mtu1024_deepep60.txt", &n);
	const struct probe_rdma_dev *d;

	fresh();
	CHECK_INT(probe_parse_ibv_devinfo(t, n, &F->ibv_devinfo), 2);
	d = dev(&F->ibv_devinfo, "mlx5_12");
	CHECK_INT(d->part_id, 4125);
	CHECK_STR(d->transport, "InfiniBand (0)");
	CHECK_STR(d->fw_ver, "22.38.1900");
	CHECK_INT(d->nports, 1);
	CHECK_INT(d->port[0].state, PROBE_PORT_DOWN);
	CHECK_INT(d->port[0].link_layer, PROBE_LL_ETH);
	CHECK_INT(d->port[0].active_mtu, 1024);
	CHECK_INT(d->port[0].max_mtu, 4096);
	d = dev(&F->ibv_devinfo, "mlx5_13");
	CHECK_INT(d->part_id, 4129);
	CHECK_INT(d->nports, 0);
	CHECK_INT(F->ibv_devinfo.truncated, 1);
	CHECK_INT(F->ibv_devinfo.no_devices, 0);
	free(t);
}

static void test_ibv_devinfo_active(void)
{
	size_t n;
	char *t = fx_load("ibv_devinfo_roce_cx7_port_active_deepep38.txt", &n);
	const struct probe_rdma_dev *d;

	fresh();
	CHECK(probe_parse_ibv_devinfo(t, n, &F->ibv_devinfo) >= 1);
	d = dev(&F->ibv_devinfo, "mlx5_2");
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_INT(d->part_id, 4129);
	CHECK_INT(d->port[0].state, PROBE_PORT_ACTIVE);
	CHECK_INT(d->port[0].active_mtu, 4096);
	CHECK_INT(d->port[0].link_layer, PROBE_LL_ETH);
	/* The tail of the previous HCA has no hca_id: it is not a device. */
	CHECK_STR(F->ibv_devinfo.dev[0].name, "mlx5_2");
	free(t);
}

static void test_ibv_devinfo_none(void)
{
	const char *t = "libibverbs: Warning: couldn't load driver 'libvmw_pvrdma-rdmav34.so'\r\n"
			"No IB devices found\r\n";
	fresh();
	CHECK_INT(probe_parse_ibv_devinfo(t, strlen(t), &F->ibv_devinfo), 0);
	CHECK_INT(F->ibv_devinfo.no_devices, 1);
}

static void test_ibdev2netdev(void)
{
	size_t n;
	char *t = fx_load("ibdev2netdev_h100_cx7_ib_cx6_eth.txt", &n);
	const struct probe_rdma_dev *d;

	fresh();
	CHECK_INT(probe_parse_ibdev2netdev(t, n, &F->ibdev2netdev), 12);
	d = dev(&F->ibdev2netdev, "mlx5_1");
	CHECK_STR(d->netdev, "enp27s0f0np0");
	CHECK_INT(d->port[0].netdev_up, 1);
	d = dev(&F->ibdev2netdev, "mlx5_0");
	CHECK_STR(d->netdev, "ibp26s0");
	CHECK_INT(d->port[0].netdev_up, 0);
	free(t);
}

static void test_dev_ib(void)
{
	const char *t = "rdma_cm c\numad0 c\nuverbs0 c\nuverbs1 c\nuverbsX c\nissm0 c\nstale -\n";

	fresh();
	CHECK_INT(probe_parse_dev_ib(t, strlen(t), &F->dev_ib), 7);
	CHECK_INT(F->dev_ib.n_uverbs, 2);
	CHECK_INT(F->dev_ib.rdma_cm, 1);
	CHECK_INT(F->dev_ib.n_umad, 1);
}

static void test_modules(void)
{
	size_t n;
	char *t;

	fresh();
	t = fx_load("lsmod_nvidia_peermem_loaded_gpud39.txt", &n);
	CHECK_INT(probe_parse_modules(t, n, &F->modules), 3);
	CHECK_INT(F->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM], 1);
	CHECK_INT(F->modules.loaded[PROBE_MOD_IB_CORE], 1);
	CHECK_INT(F->modules.loaded[PROBE_MOD_NVIDIA], 1);
	CHECK_INT(F->modules.loaded[PROBE_MOD_MLX5_IB], 1);  /* an ib_core user */
	CHECK_INT(F->modules.loaded[PROBE_MOD_GDRDRV], 0);
	CHECK_INT(F->modules.loaded[PROBE_MOD_NV_PEER_MEM], 0);
	free(t);

	fresh();
	t = fx_load("lsmod_gdrdrv_and_nv_peer_mem_gdrcopy205.txt", &n);
	CHECK_INT(probe_parse_modules(t, n, &F->modules), 2);
	CHECK_INT(F->modules.loaded[PROBE_MOD_GDRDRV], 1);
	CHECK_INT(F->modules.loaded[PROBE_MOD_NV_PEER_MEM], 1);  /* a user of nvidia */
	CHECK_INT(F->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM], 0);
	CHECK_INT(F->modules.live[PROBE_MOD_GDRDRV], 0);  /* lsmod has no state */
	free(t);

	fresh();
	t = fx_load("proc_modules_gdrdrv_gdrcopy234.txt", &n);
	CHECK_INT(probe_parse_modules(t, n, &F->modules), 4);
	CHECK_INT(F->modules.loaded[PROBE_MOD_GDRDRV], 1);
	CHECK_INT(F->modules.live[PROBE_MOD_GDRDRV], 1);
	CHECK_INT(F->modules.live[PROBE_MOD_NVIDIA], 1);
	CHECK_INT(F->modules.loaded[PROBE_MOD_NVIDIA_UVM], 1);
	CHECK_INT(F->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM], 0);
	free(t);
}

static void test_sys_module_peers_gdrdrv(void)
{
	const char *sm = "nvidia version=535.161.08\nnvidia_peermem version=535.161.08\nbogus\n";
	const char *mp = "nv_mem version=1.3\n";
	const char *gd = "proc_devices=yes\ndev=char\n";

	fresh();
	CHECK_INT(probe_parse_sys_module(sm, strlen(sm), &F->modules), 2);
	CHECK_INT(F->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM], 1);
	CHECK_STR(F->modules.version[PROBE_MOD_NVIDIA], "535.161.08");
	CHECK_INT(probe_parse_memory_peers(mp, strlen(mp), &F->modules), 1);
	CHECK_INT(F->modules.nv_mem_peer, 1);
	CHECK_STR(F->modules.nv_mem_version, "1.3");
	CHECK_INT(probe_parse_gdrdrv(gd, strlen(gd), &F->modules), 2);
	CHECK_INT(F->modules.gdrdrv_dev, 1);
	CHECK_INT(F->modules.gdrdrv_in_proc_devices, 1);
}

/* The device list grows as ibdev2netdev names devices (lists.c): 40
 * devices keep the first 32 in order, each with its own port, and count 8
 * dropped; a device named again adds nothing. */
static void test_list_growth(void)
{
	char text[4096];
	size_t n = 0;
	int i, ok = 1;

	fresh();
	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, sizeof text - n,
				      "mlx5_%d port 1 ==> ib%d (Up)\n", i, i);
	n += (size_t)snprintf(text + n, sizeof text - n, "mlx5_3 port 2 ==> ib3 (Down)\n");
	CHECK_INT(probe_parse_ibdev2netdev(text, n, &F->ibdev2netdev), 32);
	CHECK_INT(F->ibdev2netdev.dropped, 8);
	CHECK(F->ibdev2netdev.devcap >= 32 && F->ibdev2netdev.devcap <= PROBE_MAX_RDMA_DEVS);
	for (i = 0; i < 32; i++) {
		const struct probe_rdma_dev *d = &F->ibdev2netdev.dev[i];
		char name[16], net[16];

		snprintf(name, sizeof name, "mlx5_%d", i);
		snprintf(net, sizeof net, "ib%d", i);
		ok &= !strcmp(d->name, name) && !strcmp(d->netdev, net) &&
		      d->port[0].num == 1 && d->port[0].netdev_up == 1 &&
		      d->part_id == -1 && d->nports == (i == 3 ? 2 : 1);
	}
	CHECK(ok);
	CHECK_INT(F->ibdev2netdev.dev[3].port[1].netdev_up, 0);
}

int main(void)
{
	F = probe_facts_new();
	test_sysfs_h100();
	test_sysfs_gids();
	test_sysfs_bond_and_pci();
	test_ibstat_ib400_eth_down();
	test_ibstat_all_active();
	test_ibstat_ibpanic();
	test_ibstat_mlx4();
	test_ibstatus_a100();
	test_ibstatus_roce();
	test_ibv_devinfo_down();
	test_ibv_devinfo_active();
	test_ibv_devinfo_none();
	test_ibdev2netdev();
	test_dev_ib();
	test_list_growth();
	test_modules();
	test_sys_module_peers_gdrdrv();
	probe_facts_free(F);
	return T_DONE("test_parsers_ib");
}
