/* Checks on hand-built facts: one healthy node per fabric, then one
 * broken thing at a time (checks.md A-I, M; user-pain.md cases). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/env.h"
#include "check/internal.h"
#include "check/links.h"
#include "model/envrules.h"
#include "kube/api/pods.h"
#include "probe/facts.h"
#include "probe_fixture.h"
#include "pod_fixture.h"
#include "t.h"
#include "verdict/verdict.h"

static void set_env(struct probe_facts *f, const char *text)
{
	set_ok(&f->env.src);
	probe_parse_env(text, strlen(text), &f->env);
}

static void add_port(struct probe_rdma_dev *d, enum probe_link_layer ll,
		     double rate)
{
	struct probe_rdma_port *p = &d->port[d->nports++];

	p->num = d->nports;
	p->state = PROBE_PORT_ACTIVE;
	p->phys_state = PROBE_PHYS_LINKUP;
	p->rate_gbps = rate;
	p->link_layer = ll;
	p->first_roce_v2 = -1;
}

static void add_dev(struct probe_facts *f, const char *name,
		    enum probe_link_layer ll, double rate)
{
	struct probe_rdma_dev *d = probe_rdma_dev_add(&f->sysfs_ib);

	snprintf(d->name, sizeof(d->name), "%s", name);
	add_port(d, ll, rate);
}

static void add_tl(struct probe_ucx *u, const char *tl, const char *dev,
		   enum probe_ucx_tl id)
{
	struct probe_ucx_tl_entry *e = probe_ucx_tl_add(u);

	snprintf(e->name, sizeof(e->name), "%s", tl);
	snprintf(e->device, sizeof(e->device), "%s", dev);
	u->tl_count[id]++;
}

static void add_md(struct probe_ucx *u, const char *name, const char *comp,
		   int cuda)
{
	struct probe_ucx_md *m = probe_ucx_md_add(u);

	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->component, sizeof(m->component), "%s", comp);
	m->host = 1;
	m->cuda = cuda;
	if (!strcmp(comp, "ib")) {
		u->n_ib_mds++;
		u->n_ib_mds_cuda += cuda;
	}
}

static void gpus(struct probe_facts *f, int n, int nvlink)
{
	set_ok(&f->nvsmi.src);
	snprintf(f->nvsmi.driver_version, 32, "550.54.15");
	f->nvsmi.ngpus = f->nvsmi.attached = n;
	set_ok(&f->topo.src);
	f->topo.ngpus = f->topo.gpu_rows = n;
	set_ok(&f->nvlink.src);
	for (int g = 0; g < n; g++) {
		snprintf(f->nvsmi.gpu[g].name, 64, "NVIDIA H100 80GB HBM3");
		f->nvsmi.gpu[g].fabric_state = nvlink ? PROBE_FABRIC_COMPLETED
						      : PROBE_FABRIC_NA;
		snprintf(f->nvsmi.gpu[g].fabric_status, 40, nvlink ? "Success" : "N/A");
		snprintf(f->nvsmi.gpu[g].health_summary, 32, nvlink ? "Healthy" : "");
		for (int h = 0; h < n; h++) {
			f->topo.gpu_gpu[g][h].link = g == h ? PROBE_TOPO_SELF :
				nvlink ? PROBE_TOPO_NV : PROBE_TOPO_PHB;
			f->topo.gpu_gpu[g][h].nv = nvlink ? 18 : 0;
		}
		if (!nvlink)
			continue;
		f->nvlink.gpu[g].index = g;
		f->nvlink.gpu[g].nlinks = 18;
		for (int l = 0; l < 18; l++)
			f->nvlink.gpu[g].speed_gbs[l] = 26.562;
		f->nvlink.ngpus++;
	}
}

/* An HGX H100 decode pod with two 400G InfiniBand rails, everything right. */
/* A8, E1, H3, H4 as a healthy 8-GPU IB node shows them. */
static void host_facts(struct probe_facts *f)
{
	set_ok(&f->pci.src);
	f->pci.ndevs = 180;
	f->pci.n_ib = 8;
	f->pci.n_gpu = 8;
	set_ok(&f->shm.src);
	f->shm.size_kb = 80LL << 20;
	f->shm.avail_kb = 80LL << 20;
	set_ok(&f->meminfo.src);
	f->meminfo.hp_total = 5128;
	f->meminfo.hp_free = 5128;
	f->meminfo.hp_size_kb = 2048;
	set_ok(&f->nixl_ucx_ldd.src);
	snprintf(f->nixl_ucx_ldd.plugin, 256, "/opt/nvidia/nvda_nixl/lib/plugins/libplugin_UCX.so");
	snprintf(f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCP], 256, "/usr/local/ucx/lib/libucp.so.0");
	snprintf(f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCS], 256, "/usr/local/ucx/lib/libucs.so.0");
	snprintf(f->ucx.library_path, 256, "/usr/local/ucx/lib/libucs.so.0");
}

static struct probe_facts *healthy_ib(void)
{
	struct probe_facts *f = probe_facts_new();
	struct probe_ucx *u = &f->ucx;

	set_ok(&f->kernel.src);
	snprintf(f->kernel.release, 64, "5.15.0-105-generic");
	f->kernel.major = 5;
	f->kernel.minor = 15;
	set_ok(&f->nvdriver.src);
	f->nvdriver.open_module = 1;
	snprintf(f->nvdriver.version, 32, "550.54.15");
	set_ok(&f->sysfs_ib.src);
	add_dev(f, "mlx5_0", PROBE_LL_IB, 400);
	add_dev(f, "mlx5_1", PROBE_LL_IB, 400);
	set_ok(&f->dev_ib.src);
	f->dev_ib.n_uverbs = 2;
	set_ok(&f->modules.proc_src);
	f->modules.loaded[PROBE_MOD_NVIDIA] = 1;
	f->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM] = 1;
	f->modules.loaded[PROBE_MOD_GDRDRV] = 1;
	f->modules.gdrdrv_dev = 1;
	gpus(f, 2, 1);
	f->topo.nnics = 2;
	snprintf(f->topo.nic_name[0], 32, "mlx5_0");
	snprintf(f->topo.nic_name[1], 32, "mlx5_1");
	for (int g = 0; g < 2; g++) {
		f->topo.gpu_nic[g][g].link = PROBE_TOPO_PIX;
		f->topo.gpu_nic[g][1 - g].link = PROBE_TOPO_SYS;
	}
	set_ok(&u->v_src);
	set_ok(&u->d_src);
	snprintf(u->version, 32, "1.17.0");
	u->major = 1;
	u->minor = 17;
	u->patch = 0;
	u->feature[PROBE_UCXF_CUDA] = PROBE_CFG_WITH;
	add_md(u, "mlx5_0", "ib", 1);
	add_md(u, "mlx5_1", "ib", 1);
	add_md(u, "cuda_cpy", "cuda_cpy", 1);
	u->cuda_cpy_dmabuf = 1;
	add_tl(u, "rc_mlx5", "mlx5_0:1", PROBE_TL_RC_MLX5);
	add_tl(u, "dc_mlx5", "mlx5_0:1", PROBE_TL_DC_MLX5);
	add_tl(u, "ud_mlx5", "mlx5_0:1", PROBE_TL_UD_MLX5);
	add_tl(u, "rc_mlx5", "mlx5_1:1", PROBE_TL_RC_MLX5);
	add_tl(u, "cuda_copy", "cuda", PROBE_TL_CUDA_COPY);
	add_tl(u, "cuda_ipc", "cuda", PROBE_TL_CUDA_IPC);
	add_tl(u, "gdr_copy", "gdr_copy", PROBE_TL_GDR_COPY);
	add_tl(u, "tcp", "eth0", PROBE_TL_TCP);
	f->fi.src.status = PROBE_ABSENT;
	f->fi.src.rc = 127;
	set_ok(&f->limits_pid1.limits_src);
	f->limits_pid1.memlock_soft = PROBE_UNLIMITED;
	set_ok(&f->nixl.python_src);
	set_ok(&f->nixl.plugins_src);
	f->nixl.python_ok = 1;
	snprintf(f->nixl.python_version, 32, "0.9.0");
	snprintf(f->nixl.plugin_dir, 256, "/opt/nvidia/nvda_nixl/lib/plugins");
	snprintf(f->nixl.plugin[f->nixl.nplugins++], 48, "libplugin_UCX.so");
	snprintf(f->nixl.plugin[f->nixl.nplugins++], 48, "libplugin_GDS.so");
	set_env(f, "UCX_TLS=rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc\nUCX_RNDV_THRESH=0\n");
	host_facts(f);
	return f;
}

static const struct pod_spec_facts ib_spec = {
	.gpus = 2, .rdma_devices = 2, .rdma_resource = "rdma/ib", .ipc_lock = 1,
	.shm_bytes = 16LL << 30,
};
static const struct check_context decode_ctx = {
	.node = "gpu-a2", .role = "decode", .kv_cross_pod = 1,
	.kv_cross_node = 1, .kv_known = 1, .npods = 8,
};

static void run(const struct probe_facts *f, const struct pod_spec_facts *s,
		const struct check_context *c, struct check_results *r)
{
	check_results_init(r);
	check_pod(f, s, c, r);
}

static int status_of(const struct check_results *r, const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	if (!c)
		fprintf(stderr, "no result %s\n", name);
	return c ? (int)c->status : -1;
}

static enum verdict_status pod_verdict(const struct check_results *r)
{
	struct pod_info info = { .name = "p", .node = "n", .role = "decode" };
	struct run_pod p = { .pod = &info, .probed = 1, .results = *r };   /* borrowed */

	return verdict_pod(&p);
}

static void dump_unexpected(const struct check_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (getenv("T_DUMP") || (r->v[i].status != CHECK_OK &&
					 !(r->v[i].flags & CHECK_F_NA)))
			fprintf(stderr, "  %s %s: %s\n", r->v[i].name,
				check_status_name(r->v[i].status), r->v[i].detail);
}

/* The index of a check's row in the table. */
static size_t row_of(const char *name)
{
	size_t n;
	const struct check_def *d = check_defs(&n);

	return check_def(name) ? (size_t)(check_def(name) - d) : n;
}

static int var_listed(const char *vars, const char *var)
{
	size_t len = strlen(var);

	for (const char *p = vars; (p = strstr(p, var)); p += len)
		if ((p == vars || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return 1;
	return 0;
}

static void test_table(void)
{
	size_t n, nr;
	const struct check_def *d = check_defs(&n);
	const struct envr_rule *rules = envr_rules(&nr);
	char why[160] = "";

	CHECK_INT(n, CK__COUNT);
	for (size_t i = 0; i < n; i++) {
		CHECK(d[i].name && d[i].remedy && d[i].rule && d[i].env && d[i].anchor);
		CHECK(check_def(d[i].name) == &d[i]);
		CHECK(check_def_of((enum check_id)i) == &d[i]);
		for (int p = 0; p < CHECK_PATH__COUNT; p++)
			CHECK(d[i].links[p] < 1u << LINK__COUNT);
	}
	/* Every rule of the env rule book is under an ENV check of the table
	 * that names its variable: the row says what the check reads. */
	for (size_t i = 0; i < nr; i++) {
		const struct check_def *c = check_def_of(check_env_row(rules[i].check));

		CHECK(c && c->family == FAM_ENV);
		if (c && !var_listed(c->env, rules[i].var))
			fprintf(stderr, "  %s does not list %s\n", c->name, rules[i].var);
		CHECK(c && var_listed(c->env, rules[i].var));
	}
	/* links.c proves links only with checks the table puts on them. */
	CHECK_INT(check_links_consistent(why, sizeof why), 0);
	if (*why)
		fprintf(stderr, "  %s\n", why);
	CHECK(check_def("rdma-devices")->rank < check_def("rdma-ports")->rank);
	CHECK(check_def("rdma-ports")->rank < check_def("gpudirect-peermem")->rank);
	CHECK(check_def("nope") == NULL);
	CHECK_STR(check_family_name(FAM_GPUDIRECT), "GPUDIRECT");
	CHECK_STR(check_family_name(FAM_TRANSFER), "TRANSFER");
	CHECK_STR(check_status_name(CHECK_SKIPPED), "skipped");
	CHECK_STR(fabric_name(FABRIC_INFINIBAND), "infiniband");
	CHECK_STR(fabric_name(FABRIC_TCP), "tcp");
}

/* The table is in emission order: a probed pod's results follow its rows
 * (the driver calls each judge once, so a judge's rows are adjacent). */
static void check_table_order(const struct check_results *r)
{
	for (size_t i = 1; i < r->n; i++) {
		if (row_of(r->v[i].name) < row_of(r->v[i - 1].name))
			fprintf(stderr, "  %s before %s\n", r->v[i - 1].name, r->v[i].name);
		CHECK(row_of(r->v[i].name) >= row_of(r->v[i - 1].name));
	}
}

static void test_ucx_tls(void)
{
	unsigned a = ucx_tls_allowed("rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc");

	CHECK(a & TLB(PROBE_TL_RC_MLX5));
	CHECK(a & TLB(PROBE_TL_UD_MLX5));
	CHECK(!(a & TLB(PROBE_TL_TCP)));
	CHECK(ucx_tls_allowed(NULL) & TLB(PROBE_TL_DC_MLX5));
	CHECK(!(ucx_tls_allowed("tcp") & TL_RDMA_IB));
	a = ucx_tls_allowed("^cuda_ipc");
	CHECK(!(a & TLB(PROBE_TL_CUDA_IPC)) && (a & TLB(PROBE_TL_RC_MLX5)));
	a = ucx_tls_allowed("^rc,dc,ud");
	CHECK(!(a & TL_RDMA_IB) && (a & TLB(PROBE_TL_TCP)));
	CHECK(ucx_tls_allowed("cuda,sm") & TLB(PROBE_TL_GDR_COPY));
	CHECK(ucx_tls_allowed("rc_mlx5:aux,ud") & TLB(PROBE_TL_RC_MLX5));
}

static void test_healthy_ib(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;

	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(r.fabric, FABRIC_INFINIBAND);
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_table_order(&r);
	dump_unexpected(&r);
	/* Kept per pod until the report: grown 8 at a time (results.c). */
	CHECK(r.n > 0 && r.cap >= r.n && r.cap - r.n < 8);
	CHECK_INT(status_of(&r, "rdma-devices"), CHECK_OK);
	CHECK_HAS(check_results_find(&r, "rdma-devices")->detail, "mlx5_0, mlx5_1");
	CHECK_INT(status_of(&r, "rdma-ports"), CHECK_OK);
	CHECK_INT(status_of(&r, "gpudirect-peermem"), CHECK_OK);
	CHECK_INT(status_of(&r, "gpudirect-ucx-md"), CHECK_OK);
	CHECK_INT(status_of(&r, "nvlink-links"), CHECK_OK);
	CHECK_INT(status_of(&r, "nvlink-fabric"), CHECK_OK);
	CHECK_INT(status_of(&r, "efa-devices"), CHECK_SKIPPED);
	CHECK(check_results_find(&r, "efa-devices")->flags & CHECK_F_NA);
	CHECK(check_results_find(&r, "rdma-ports")->remedy == NULL);
	CHECK_INT(check_results_family_status(&r, FAM_RDMA), CHECK_OK);
	CHECK_INT(check_results_family_status(&r, FAM_LOGS), -1);
	/* EFA does not apply on InfiniBand: the cell is "-", not "skipped". */
	CHECK_INT(check_results_family_status(&r, FAM_EFA), -1);
	CHECK_STR(r.summary.ucx_version, "1.17.0");
	CHECK_STR(r.summary.ucx_tls, "rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc");
	for (size_t i = 0; i < r.n; i++)
		CHECK(check_def(r.v[i].name) != NULL);
	check_results_release(&r);
	probe_facts_free(f);
}

/* One broken fact; the named check must fail and the pod is NOT READY. */
struct broken {
	const char *what;
	void (*breakit)(struct probe_facts *f);
	const char *check;
	const char *detail;
};

static void no_uverbs(struct probe_facts *f) { f->dev_ib.n_uverbs = 0; }
static void port_down(struct probe_facts *f)
{
	for (int i = 0; i < 2; i++) {
		f->sysfs_ib.dev[i].port[0].state = PROBE_PORT_DOWN;
		f->sysfs_ib.dev[i].port[0].phys_state = PROBE_PHYS_POLLING;
	}
}
/* As UCX prints it then: without a peer-memory driver its IB memory
 * domains list host memory only (ib_md.c), and cuda_cpy no dmabuf. */
static void no_gdr(struct probe_facts *f)
{
	f->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM] = 0;
	f->ucx.cuda_cpy_dmabuf = 0;
	f->ucx.md[0].cuda = f->ucx.md[1].cuda = 0;
	f->ucx.n_ib_mds_cuda = 0;
}
static void ucx_no_cuda(struct probe_facts *f)
{
	f->ucx.tl_count[PROBE_TL_CUDA_COPY] = 0;
	f->ucx.tl_count[PROBE_TL_CUDA_IPC] = 0;
}
static void ucx_no_rdma(struct probe_facts *f)
{
	for (int t = PROBE_TL_RC_MLX5; t <= PROBE_TL_UD_VERBS; t++)
		f->ucx.tl_count[t] = 0;
	f->ucx.ntls = 0;
}
static void tls_tcp(struct probe_facts *f) { set_env(f, "UCX_TLS=tcp,cuda_copy\n"); }
static void memlock64k(struct probe_facts *f)
{
	f->limits_pid1.memlock_soft = 64 * 1024;
	f->limits_pid1.have_caps = 1;
}
static void nixl_no_ucx(struct probe_facts *f)
{
	f->nixl.nplugins = 1;
	snprintf(f->nixl.plugin[0], 48, "libplugin_GDS.so");
}
static void nccl_ib_off(struct probe_facts *f) { set_env(f, "NCCL_IB_DISABLE=1\n"); }
static void net_dev_eth(struct probe_facts *f) { set_env(f, "UCX_NET_DEVICES=eth0\n"); }
static void gdr_env_off(struct probe_facts *f) { set_env(f, "UCX_IB_GPU_DIRECT_RDMA=no\n"); }
static void nixl_import(struct probe_facts *f)
{
	f->nixl.python_ok = 0;
	f->nixl.python_src.status = PROBE_FAILED;
	f->nixl.python_src.rc = 1;
	snprintf(f->nixl.python_src.err, 160, "ModuleNotFoundError: No module named 'nixl'");
}
static void no_gpu(struct probe_facts *f) { f->nvsmi.ngpus = f->nvsmi.attached = 0; }
static void fabric_down(struct probe_facts *f)
{
	f->nvsmi.gpu[1].fabric_state = PROBE_FABRIC_NOT_STARTED;
	snprintf(f->nvsmi.gpu[1].fabric_state_str, 32, "Not Started");
}
static void p2p_off(struct probe_facts *f) { set_env(f, "NCCL_P2P_DISABLE=1\n"); }

static const struct broken broken[] = {
	{ "no uverbs in the pod", no_uverbs, "rdma-devices", "no /dev/infiniband/uverbs" },
	{ "ports down", port_down, "rdma-ports", "mlx5_0 port 1 Down (Polling)" },
	{ "no peermem, no dmabuf", no_gdr, "gpudirect-peermem", "no DMA-BUF" },
	{ "UCX without CUDA", ucx_no_cuda, "ucx-cuda", "no cuda_copy" },
	{ "UCX without RDMA", ucx_no_rdma, "ucx-rdma", "tcp" },
	{ "UCX_TLS=tcp", tls_tcp, "env-ucx-tls", "UCX_TLS=tcp,cuda_copy" },
	{ "memlock 64k", memlock64k, "limits-memlock", "64 KiB" },
	{ "NIXL without UCX plugin", nixl_no_ucx, "nixl-plugin", "libplugin_UCX.so" },
	{ "UCX_NET_DEVICES=eth0", net_dev_eth, "env-ucx-net-devices", "names only network interfaces" },
	{ "UCX_IB_GPU_DIRECT_RDMA=no", gdr_env_off, "env-ucx-gpudirect", "staged" },
	{ "import nixl fails", nixl_import, "nixl-installed", "No module named" },
	{ "no GPU", no_gpu, "limits-gpus", "no GPU" },
	{ "fabric manager down", fabric_down, "nvlink-fabric", "Not Started" },
	{ "NCCL_P2P_DISABLE=1 on NVLink", p2p_off, "env-nccl-p2p", "NVLink" },
};

/* NCCL_IB_DISABLE=1 breaks a worker whose TP/EP group spans nodes; on one
 * pod on one node NCCL never uses the network and recipes set it on purpose
 * (issue 38 point 4), so it left the table above for this shape test. */
static void test_nccl_ib_shape(void)
{
	for (int nodes = 1; nodes <= 2; nodes++) {
		struct probe_facts *f = healthy_ib();
		struct check_context ctx = decode_ctx;
		const struct check_result *c;
		struct check_results r;

		nccl_ib_off(f);
		ctx.nodes = nodes;
		run(f, &ib_spec, &ctx, &r);
		c = check_results_find(&r, "env-nccl-net");
		CHECK(c != NULL);
		CHECK_INT(c ? (int)c->status : -1, nodes > 1 ? (int)CHECK_FAIL : (int)CHECK_OK);
		if (nodes > 1) {
			CHECK_HAS(c ? c->detail : NULL, "NCCL_IB_DISABLE=1");
			CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
		}
		check_results_release(&r);
		probe_facts_free(f);
	}
}

static void test_broken(void)
{
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		struct probe_facts *f = healthy_ib();
		const struct check_result *c;
		struct check_results r;

		broken[i].breakit(f);
		run(f, &ib_spec, &decode_ctx, &r);
		c = check_results_find(&r, broken[i].check);
		CHECK(c != NULL);
		if (c && c->status != CHECK_FAIL)
			fprintf(stderr, "%s: %s is %s: %s\n", broken[i].what,
				c->name, check_status_name(c->status), c->detail);
		CHECK(c && c->status == CHECK_FAIL);
		CHECK_HAS(c ? c->detail : NULL, broken[i].detail);
		CHECK(c && c->remedy && *c->remedy);
		CHECK_INT(pod_verdict(&r), VERDICT_NOT_READY);
		check_results_release(&r);
		probe_facts_free(f);
	}
}

static void test_gdr_ucx_md(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;

	no_gdr(f);
	f->ucx.md[0].cuda = f->ucx.md[1].cuda = 0;
	f->ucx.n_ib_mds_cuda = 0;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "gpudirect-ucx-md"), CHECK_FAIL);
	CHECK_HAS(check_results_find(&r, "gpudirect-ucx-md")->detail, "only host");
	CHECK_HAS(check_results_find(&r, "gpudirect-peermem")->detail, "on node gpu-a2");
	check_results_release(&r);
	/* cuda_cpy exporting dmabuf is not enough while no IB md imports it
	 * (B1b: the register line needs ", dmabuf" too). */
	f->ucx.cuda_cpy_dmabuf = 1;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "gpudirect-peermem"), CHECK_FAIL);
	CHECK_INT(status_of(&r, "gpudirect-ucx-md"), CHECK_FAIL);
	check_results_release(&r);
	/* DMA-BUF alone is a working GPUDirect path: both checks agree. */
	f->ucx.md[0].reg_dmabuf = f->ucx.md[1].reg_dmabuf = 1;
	f->ucx.n_ib_mds_dmabuf = 2;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "gpudirect-peermem"), CHECK_OK);
	CHECK_HAS(check_results_find(&r, "gpudirect-peermem")->detail, "DMA-BUF");
	CHECK_INT(status_of(&r, "gpudirect-ucx-md"), CHECK_OK);
	CHECK_HAS(check_results_find(&r, "gpudirect-ucx-md")->detail, "by DMA-BUF");
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
	probe_facts_free(f);
}

/* A port that is up but slow, one of two down, a mgmt Ethernet port. */
static void test_ports_partial(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;

	f->sysfs_ib.dev[1].port[0].state = PROBE_PORT_DOWN;
	f->sysfs_ib.dev[1].port[0].phys_state = PROBE_PHYS_DISABLED;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "rdma-ports"), CHECK_WARN);
	CHECK_HAS(check_results_find(&r, "rdma-ports")->detail, "mlx5_1 port 1 Down (Disabled)");
	/* checks.md N: one Active port proves the link; the down one is a
	 * degradation listed with READY. */
	CHECK_INT(pod_verdict(&r), VERDICT_READY);
	check_results_release(&r);
	/* Named in UCX_NET_DEVICES: fatal. */
	set_env(f, "UCX_NET_DEVICES=mlx5_1:1\n");
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "rdma-ports"), CHECK_FAIL);
	CHECK_INT(status_of(&r, "env-ucx-net-devices"), CHECK_FAIL);
	check_results_release(&r);
	probe_facts_free(f);

	f = healthy_ib();
	f->sysfs_ib.dev[1].port[0].rate_gbps = 100;
	add_port(&f->sysfs_ib.dev[1], PROBE_LL_ETH, 0);
	f->sysfs_ib.dev[1].port[1].state = PROBE_PORT_DOWN;
	run(f, &ib_spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "rdma-rate"), CHECK_WARN);
	CHECK_HAS(check_results_find(&r, "rdma-rate")->detail, "mlx5_1 port 1 100 Gb/s");
	CHECK_INT(status_of(&r, "rdma-ports"), CHECK_OK);
	CHECK_HAS(check_results_find(&r, "rdma-ports")->detail, "ignored");
	check_results_release(&r);
	probe_facts_free(f);
}

static void test_tool_missing(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;
	const struct check_result *c;

	probe_ucx_reset(&f->ucx);
	f->ucx.v_src.status = f->ucx.d_src.status = PROBE_ABSENT;
	f->ucx.v_src.rc = f->ucx.d_src.rc = 127;
	run(f, &ib_spec, &decode_ctx, &r);
	c = check_results_find(&r, "gpudirect-ucx-md");
	CHECK_INT(c->status, CHECK_SKIPPED);
	CHECK(!(c->flags & CHECK_F_NA));
	CHECK_HAS(c->detail, "ucx_info not found");
	CHECK_INT(status_of(&r, "ucx-rdma"), CHECK_SKIPPED);
	CHECK_INT(status_of(&r, "ucx-version"), CHECK_SKIPPED);
	/* peermem still proves GPUDirect by itself */
	CHECK_INT(status_of(&r, "gpudirect-peermem"), CHECK_OK);
	CHECK_INT(pod_verdict(&r), VERDICT_UNVERIFIED);
	check_results_release(&r);
	/* env unreadable: every ENV check skipped, never ok */
	probe_facts_release(f);
	probe_facts_init(f);
	run(f, NULL, NULL, &r);
	CHECK_INT(status_of(&r, "env-ucx-tls"), CHECK_SKIPPED);
	CHECK_INT(status_of(&r, "rdma-devices"), CHECK_SKIPPED);
	CHECK_INT(pod_verdict(&r), VERDICT_UNVERIFIED);
	check_results_release(&r);
	probe_facts_free(f);
}

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

static void test_unprobed(void)
{
	struct pod_spec_facts spec = ib_spec;
	struct check_results r;

	check_results_init(&r);
	spec.rdma_devices = 0;
	spec.rdma_resource[0] = '\0';
	spec.ipc_lock = 0;
	check_pod_unprobed("pod is Pending", &spec, &decode_ctx, &r);
	CHECK_INT(status_of(&r, "pod-probe"), CHECK_SKIPPED);
	CHECK_HAS(check_results_find(&r, "pod-probe")->detail, "Pending");
	CHECK_INT(status_of(&r, "pod-rdma-resource"), CHECK_FAIL);
	CHECK_INT(status_of(&r, "pod-ipc-lock"), CHECK_WARN);
	check_results_release(&r);
	check_results_init(&r);
	check_pod_unprobed(NULL, NULL, NULL, &r);
	CHECK_INT(r.n, 1);
	check_results_release(&r);
}

/* The digest graph.c compares (check.h struct check_summary). */
static void test_digest(void)
{
	struct probe_facts *f = healthy_ib();
	struct check_results r;
	const struct check_summary *s = &r.summary;
	struct pod_spec_facts spec = ib_spec;

	spec.efa_devices = 0;
	set_env(f, "UCX_TLS=rc_x,cuda_copy\nUCX_NET_DEVICES=mlx5_0:1,mlx5_3:1\n");
	run(f, &spec, &decode_ctx, &r);
	CHECK_INT(s->rdma_usable, 1);
	CHECK_INT(s->peermem, 1);
	CHECK_INT(s->gdrdrv, 1);
	CHECK_INT(s->active_ports, 2);
	CHECK_INT(s->port_rate_gbps, 400);
	CHECK_INT(s->spec_known, 1);
	CHECK_STR(s->rdma_request, "rdma/ib=2");
	CHECK_STR(s->net_dev_bad, "mlx5_3:1 not an RDMA device here");
	CHECK_STR(s->ucx_tls, "rc_x,cuda_copy");
	CHECK_INT(s->env_known, 1);
	check_results_release(&r);

	/* No uverbs node: devices on the host, none usable in the pod. */
	f->dev_ib.n_uverbs = 0;
	f->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM] = 0;
	f->sysfs_ib.dev[0].port[0].state = PROBE_PORT_DOWN;
	run(f, NULL, &decode_ctx, &r);
	CHECK_INT(s->rdma_usable, 0);
	CHECK_INT(s->peermem, 0);
	CHECK_INT(s->active_ports, 1);
	CHECK_INT(s->spec_known, 0);
	CHECK_STR(s->net_dev_bad, "mlx5_0:1 down, mlx5_3:1 not an RDMA device here");
	check_results_release(&r);
	probe_facts_free(f);

	/* Unprobed: the spec's part only; the probe's part unknown. */
	check_results_init(&r);
	check_pod_unprobed("pod is Pending", &spec, &decode_ctx, &r);
	CHECK_INT(s->rdma_usable, -1);
	CHECK_INT(s->peermem, -1);
	CHECK_INT(s->active_ports, -1);
	CHECK_STR(s->rdma_request, "rdma/ib=2");
	check_results_release(&r);
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

/* Status of check name on f, whose env gets env added (the last of a name
 * wins, as in the rule book); the detail into why when given. */
static int kb_status(struct probe_facts *f, const char *env, const char *name,
		     char *why, size_t n)
{
	struct check_results r;
	const struct check_result *c;
	int st;

	if (env)
		set_env(f, env);
	run(f, &ib_spec, &decode_ctx, &r);
	st = status_of(&r, name);
	c = check_results_find(&r, name);
	if (why)
		snprintf(why, n, "%s", c ? c->detail : "");
	check_results_release(&r);
	return st;
}

static void nixl_dists(struct probe_facts *f, const char *cu12, const char *cu13)
{
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_NIXL], 32, "%s", cu13 ? cu13 : cu12);
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_CU12], 32, "%s", cu12 ? cu12 : "");
	snprintf(f->nixl.dist_version[PROBE_NIXL_DIST_CU13], 32, "%s", cu13 ? cu13 : "");
}

/* NIXL 1.3.0-1.3.1 and 1.4.x with NIXL_TELEMETRY_ENABLE false (dynamo#12952,
 * nixl#2266); 1.3.2, a true value or none are near misses. */
static void test_known_bad_telemetry(void)
{
	static const struct { const char *ver, *env; int st; } cases[] = {
		{ "1.3.1", "NIXL_TELEMETRY_ENABLE=n\n", CHECK_FAIL },
		{ "1.3.0", "NIXL_TELEMETRY_ENABLE=Disable\n", CHECK_FAIL },
		{ "1.4.0", "NIXL_TELEMETRY_ENABLE=false\n", CHECK_FAIL },
		{ "1.3.1", "NIXL_TELEMETRY_ENABLE=y\n", CHECK_OK },
		{ "1.3.1", NULL, CHECK_OK },
		{ "1.3.2", "NIXL_TELEMETRY_ENABLE=n\n", CHECK_OK },
		{ "1.2.0", "NIXL_TELEMETRY_ENABLE=n\n", CHECK_OK },
		{ "1.3.1", "NIXL_TELEMETRY_ENABLE=maybe\n", CHECK_OK },
	};
	char why[400];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();

		nixl_dists(f, NULL, cases[i].ver);
		CHECK_INT(kb_status(f, cases[i].env, "nixl-known-bad", why, sizeof why),
			  cases[i].st);
		if (cases[i].st == CHECK_FAIL)
			CHECK(strstr(why, "NIXL_TELEMETRY_ENABLE=") && strstr(why, cases[i].ver));
		probe_facts_free(f);
	}
}

/* nixl-cu12 and nixl-cu13 together before 1.3.0 (nixl#1705). */
static void test_known_bad_cuda_builds(void)
{
	struct probe_facts *f = healthy_ib();

	nixl_dists(f, "1.2.0", "1.2.0");
	CHECK_INT(kb_status(f, NULL, "nixl-known-bad", NULL, 0), CHECK_WARN);
	nixl_dists(f, "1.3.0", "1.3.0");
	CHECK_INT(kb_status(f, NULL, "nixl-known-bad", NULL, 0), CHECK_OK);
	nixl_dists(f, NULL, "1.2.0");
	CHECK_INT(kb_status(f, NULL, "nixl-known-bad", NULL, 0), CHECK_OK);
	/* the telemetry fail outranks the warning of the same pod */
	nixl_dists(f, "1.3.1", "1.2.0");
	CHECK_INT(kb_status(f, "NIXL_TELEMETRY_ENABLE=0\n", "nixl-known-bad", NULL, 0),
		  CHECK_FAIL);
	/* no version lines: the import's version (older reports), else none */
	memset(f->nixl.dist_version, 0, sizeof f->nixl.dist_version);
	snprintf(f->nixl.python_version, 32, "1.3.1");
	CHECK_INT(kb_status(f, "NIXL_TELEMETRY_ENABLE=0\n", "nixl-known-bad", NULL, 0),
		  CHECK_FAIL);
	f->nixl.python_version[0] = 0;
	CHECK_INT(kb_status(f, NULL, "nixl-known-bad", NULL, 0), CHECK_SKIPPED);
	probe_facts_free(f);
}

/* A healthy IB pod whose first device is a RoCE LAG bond, UCX ver. */
static struct probe_facts *bonded(const char *ver, int minor)
{
	struct probe_facts *f = healthy_ib();

	snprintf(f->sysfs_ib.dev[0].name, 32, "mlx5_bond_0");
	f->sysfs_ib.dev[0].port[0].link_layer = PROBE_LL_ETH;
	snprintf(f->ucx.version, 32, "%s", ver);
	f->ucx.minor = minor;
	return f;
}

/* rc_verbs with ECE on a LAG bond from UCX 1.22.0 (ucx#11955). */
static void test_known_bad_bond_ece(void)
{
	static const char *verbs = "UCX_TLS=rc_verbs,ud_verbs,cuda_copy,cuda_ipc\n";
	struct probe_facts *f = bonded("1.22.0", 22);
	char why[400];

	CHECK_INT(kb_status(f, verbs, "ucx-known-bad", why, sizeof why), CHECK_FAIL);
	CHECK(strstr(why, "mlx5_bond_0") && strstr(why, "1.22.0"));
	CHECK_INT(kb_status(f, "UCX_RC_ECE=0\n", "ucx-known-bad", NULL, 0), CHECK_OK);
	probe_facts_free(f);
	/* the rc_x default: rc_mlx5 is listed on the bond, rc_verbs idle */
	f = bonded("1.22.0", 22);
	add_tl(&f->ucx, "rc_mlx5", "mlx5_bond_0:1", PROBE_TL_RC_MLX5);
	CHECK_INT(kb_status(f, "UCX_TLS=rc,cuda_copy\n", "ucx-known-bad", NULL, 0), CHECK_OK);
	probe_facts_free(f);
	/* ... but a UCX that lists no rc_mlx5 there uses rc_verbs */
	f = bonded("1.23.0", 23);
	CHECK_INT(kb_status(f, "UCX_TLS=rc,cuda_copy\n", "ucx-known-bad", NULL, 0), CHECK_FAIL);
	probe_facts_free(f);
	f = bonded("1.21.0", 21);
	CHECK_INT(kb_status(f, verbs, "ucx-known-bad", NULL, 0), CHECK_OK);
	probe_facts_free(f);
	f = healthy_ib();                    /* no bond */
	snprintf(f->ucx.version, 32, "1.22.0");
	CHECK_INT(kb_status(f, verbs, "ucx-known-bad", NULL, 0), CHECK_OK);
	f->ucx.major = -1;
	f->ucx.version[0] = 0;
	CHECK_INT(kb_status(f, verbs, "ucx-known-bad", NULL, 0), CHECK_SKIPPED);
	probe_facts_free(f);
}

/* gga_mlx5 on a RoCE LAG device from UCX 1.18.0, not fixed (ucx#11709):
 * fail where ucx_info -d lists gga_mlx5 on the bond and UCX_TLS lets it
 * in, warn where ucx_info -d was not read; ^gga_mlx5, ^gga (1.19+), a list
 * without it, no gga_mlx5 listed, no bond and 1.17 are near misses.  On
 * 1.18.x the aliases ib and gga did not name gga_mlx5 yet. */
/* ucx_info -d lists gga_mlx5 on dev (no PROBE_TL_ id: the name only). */
static void gga_listed(struct probe_facts *f, const char *dev)
{
	struct probe_ucx_tl_entry *e = probe_ucx_tl_add(&f->ucx);

	snprintf(e->name, sizeof(e->name), "gga_mlx5");
	snprintf(e->device, sizeof(e->device), "%s", dev);
}

static void gga_case(const char *ver, int minor, int listed, const char *env,
		     int want)
{
	struct probe_facts *f = bonded(ver, minor);
	char why[400];

	/* a ConnectX-7 bond lists rc_mlx5 too (else ucx#11955's row) */
	add_tl(&f->ucx, "rc_mlx5", "mlx5_bond_0:1", PROBE_TL_RC_MLX5);
	if (listed > 0)
		gga_listed(f, "mlx5_bond_0:1");
	if (listed < 0)
		f->ucx.d_src.status = PROBE_ABSENT;
	CHECK_INT(kb_status(f, env, "ucx-known-bad", why, sizeof why), want);
	if (want != CHECK_OK)
		CHECK(strstr(why, "gga_mlx5") && strstr(why, "mlx5_bond_0") &&
		      strstr(why, ver) && strstr(why, "openucx/ucx#11709"));
	probe_facts_free(f);
}

static void test_known_bad_gga_lag(void)
{
	static const char *rc = "UCX_TLS=rc,cuda_copy\n";
	struct probe_facts *f;

	gga_case("1.18.0", 18, 1, "UCX_TLS=all\n", CHECK_FAIL);
	gga_case("1.22.0", 22, 1, "UCX_TLS=all\n", CHECK_FAIL);
	gga_case("1.19.0", 19, 1, "UCX_TLS=ib,cuda_copy\n", CHECK_FAIL);
	gga_case("1.22.0", 22, 1, "UCX_TLS=rc_x,gga,cuda_copy\n", CHECK_FAIL);
	gga_case("1.22.0", 22, 1, "UCX_TLS=^cuda_ipc\n", CHECK_FAIL);
	gga_case("1.22.0", 22, -1, "UCX_TLS=all\n", CHECK_WARN);  /* no ucx_info -d */
	gga_case("1.22.0", 22, 0, "UCX_TLS=all\n", CHECK_OK);     /* not listed */
	gga_case("1.22.0", 22, 1, "UCX_TLS=^gga\n", CHECK_OK);
	gga_case("1.22.0", 22, 1, "UCX_TLS=^gga_mlx5\n", CHECK_OK);
	gga_case("1.22.0", 22, 1, "UCX_TLS=^ib\n", CHECK_OK);
	gga_case("1.22.0", 22, 1, rc, CHECK_OK);                  /* list without gga */
	gga_case("1.17.0", 17, 1, "UCX_TLS=all\n", CHECK_OK);     /* before gga_mlx5 */
	gga_case("1.18.1", 18, 1, "UCX_TLS=ib,cuda_copy\n", CHECK_OK);
	gga_case("1.18.1", 18, 1, "UCX_TLS=^gga\n", CHECK_FAIL);
	gga_case("1.18.1", 18, 1, "UCX_TLS=^gga_mlx5\n", CHECK_OK);
	gga_case("1.18.1", 18, 1, "UCX_TLS=rc,gga_mlx5\n", CHECK_FAIL);
	f = healthy_ib();                    /* no bond */
	snprintf(f->ucx.version, 32, "1.22.0");
	f->ucx.minor = 22;
	gga_listed(f, "mlx5_0:1");
	CHECK_INT(kb_status(f, "UCX_TLS=all\n", "ucx-known-bad", NULL, 0), CHECK_OK);
	probe_facts_free(f);
}

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

/* TensorRT-LLM's wrapper built for NIXL < 0.6 against NIXL >= 0.6
 * (TensorRT-LLM#9752): ldd -r names nixlDescList undefined. */
static void test_known_bad_trt_wrapper(void)
{
	static const char undef[] =
		"elf=/usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so\n"
		"ldd_rc=0\n"
		"ldd=undefined symbol: _ZN12nixlDescListI14nixlBasicDescEC1ERK10nixl_mem_tRKbi\t(x)\n";
	static const char other[] =
		"elf=/usr/local/lib/python3.12/dist-packages/tensorrt_llm/libs/libtensorrt_llm_nixl_wrapper.so\n"
		"ldd_rc=0\nldd=undefined symbol: _ZN4fooC1Ev\t(x)\n";
	static const struct { const char *ver, *stack; int st; } cases[] = {
		{ "0.6.0", undef, CHECK_FAIL },
		{ "0.10.1", undef, CHECK_FAIL },
		{ "0.5.1", undef, CHECK_OK },      /* the wrapper's own API era */
		{ "0.10.1", other, CHECK_OK },     /* another symbol: F8's, not this row */
		{ "0.10.1", "", CHECK_OK },
	};
	char why[400];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();

		nixl_dists(f, cases[i].ver, NULL);
		f->stack.src.status = PROBE_OK;
		probe_parse_nixl_stack(cases[i].stack, strlen(cases[i].stack), &f->stack);
		CHECK_INT(kb_status(f, NULL, "nixl-known-bad", why, sizeof why), cases[i].st);
		if (cases[i].st == CHECK_FAIL) {
			CHECK(strstr(why, "nixlDescList") != NULL);
			CHECK(strstr(why, "NVIDIA/TensorRT-LLM#9752") != NULL);
		}
		probe_facts_free(f);
	}
}

/* NIXL built for a newer UCX (major.minor) than ucx_info's (nixl#386). */
static void test_known_bad_ucx_older(void)
{
	static const struct { const char *built, *loaded; int st; } cases[] = {
		{ "ucx v1.20.0 (openucx/ucx@v1.20.0)", "1.18.0", CHECK_WARN },
		{ "ucx 1.19.0", "1.18.1", CHECK_WARN },
		{ "ucx v1.19.0 (openucx/ucx@v1.19.0)", "1.19.0", CHECK_OK },
		{ "ucx v1.19.1", "1.19.0", CHECK_OK },   /* the API is major.minor */
		{ "ucx v1.18.0", "1.20.0", CHECK_OK },
		{ "ucx garbage", "1.18.0", CHECK_OK },
		{ NULL, "1.18.0", CHECK_OK },
	};
	char why[400];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();
		char lines[160];

		nixl_dists(f, "0.7.1", NULL);
		snprintf(f->ucx.version, 32, "%s", cases[i].loaded);
		f->ucx.major = 1;
		f->ucx.minor = atoi(cases[i].loaded + 2);
		snprintf(lines, sizeof lines, "nixl 0.7.1 (ai-dynamo/nixl@0.7.1)\n%s\n",
			 cases[i].built ? cases[i].built : "");
		probe_parse_nixl_versions(lines, strlen(lines), &f->nixl);
		CHECK_INT(kb_status(f, NULL, "nixl-known-bad", why, sizeof why), cases[i].st);
		if (cases[i].st == CHECK_WARN)
			CHECK(strstr(why, "loaded") && strstr(why, cases[i].loaded) &&
			      strstr(why, "ai-dynamo/nixl#386"));
		probe_facts_free(f);
	}
}

#define SITE12 "/usr/local/lib/python3.12/dist-packages"

/* Without nixl-versions.txt, nixl#386 is answered by the UCX that loads: a
 * wheel's plugin loads the libucp auditwheel bundled under a private name
 * in <dist>.libs (nixl contrib/wheel_add_ucx_plugins.py), the UCX it was
 * built with; any other copy leaves the row unjudged, and a build line
 * judges it as above (no note). */
static void test_known_bad_wheel_ucx(void)
{
	static const struct { const char *ucp, *versions, *want; } cases[] = {
		{ "/usr/local/lib/python3.12/dist-packages/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0", NULL,
		  "#386 does not apply: NIXL's UCX plugin loads the UCX bundled with the wheel "
		  "(/usr/local/lib/python3.12/dist-packages/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0)" },
		{ "/opt/venv/lib/python3.12/site-packages/nixl_cu12.libs/libucp-nixl-1a2b3c4d.so", NULL,
		  "#386 does not apply" },
		{ "/usr/local/ucx/lib/libucp.so.0", NULL, "#386 not judged" },
		{ "/opt/nixl_cu13.libsx/libucp-6b1f3e2a.so.0", NULL, "#386 not judged" },
		{ "libucp-6b1f3e2a.so.0", NULL, "#386 not judged" },
		{ "/usr/local/lib/python3.12/dist-packages/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0",
		  "ucx v1.10.0\n", NULL },
	};
	char why[600];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();

		nixl_dists(f, NULL, "1.3.1");
		f->nixl_ucx_ldd.src.status = PROBE_OK;
		snprintf(f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCP], 256, "%s", cases[i].ucp);
		if (cases[i].versions)
			probe_parse_nixl_versions(cases[i].versions, strlen(cases[i].versions), &f->nixl);
		CHECK_INT(kb_status(f, NULL, "nixl-known-bad", why, sizeof why), CHECK_OK);
		if (cases[i].want)
			CHECK_HAS(why, cases[i].want);
		else
			CHECK(!strstr(why, "#386"));
		probe_facts_free(f);
	}
}

/* The same without ldd: the wheel's plugin directory and the libucp-*
 * the probe listed in that wheel's .libs answer it; another wheel's copy,
 * or a plugin directory outside a wheel, do not. */
static void test_known_bad_wheel_listed(void)
{
	static const struct { const char *dir, *copy, *want; } cases[] = {
		{ SITE12 "/nixl_cu12.libs/nixl", SITE12 "/nixl_cu12.libs/libucp-fb7bfdea.so.0.0.0",
		  "its bundled UCX (" SITE12 "/nixl_cu12.libs/libucp-fb7bfdea.so.0.0.0)" },
		{ SITE12 "/.nixl_cu13.mesonpy.libs/plugins", SITE12 "/nixl_cu13.libs/libucp-6b1f3e2a.so.0.0.0",
		  "#386 does not apply" },
		{ SITE12 "/.nixl_cu13.mesonpy.libs/plugins", SITE12 "/nixl_cu12.libs/libucp-fb7bfdea.so.0.0.0",
		  "#386 not judged" },
		{ "/opt/nvidia/nvda_nixl/lib/x86_64-linux-gnu/plugins", SITE12 "/nixl_cu12.libs/libucp-fb7bfdea.so.0",
		  "#386 not judged" },
		{ SITE12 "/nixl_cu.libs/nixl", SITE12 "/nixl_cu.libs/libucp-fb7bfdea.so.0", "#386 not judged" },
	};
	char why[600];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct probe_facts *f = healthy_ib();
		char sec[400];

		nixl_dists(f, "1.3.1", NULL);
		f->nixl_ucx_ldd.src.status = PROBE_ABSENT;
		snprintf(f->nixl.plugin_dir, sizeof f->nixl.plugin_dir, "%s", cases[i].dir);
		snprintf(sec, sizeof sec, "copy=%s\n", cases[i].copy);
		probe_parse_nixl_stack(sec, strlen(sec), &f->stack);
		CHECK_INT(kb_status(f, NULL, "nixl-known-bad", why, sizeof why), CHECK_OK);
		CHECK_HAS(why, cases[i].want);
		probe_facts_free(f);
	}
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

int main(void)
{
	test_affinity_c2c();
	test_table();
	test_ucx_tls();
	test_healthy_ib();
	test_broken();
	test_nccl_ib_shape();
	test_gdr_ucx_md();
	test_ports_partial();
	test_tool_missing();
	test_roce();
	test_gid_index();
	test_efa();
	test_pcie_single_node();
	test_degraded_nvlink();
	test_unprobed();
	test_digest();
	test_host();
	test_imex_claim();
	test_known_bad_telemetry();
	test_known_bad_cuda_builds();
	test_known_bad_bond_ece();
	test_known_bad_gga_lag();
	test_known_bad_trt_wrapper();
	test_known_bad_ucx_older();
	test_known_bad_wheel_ucx();
	test_known_bad_wheel_listed();
	test_nicsel();
	test_nicsel_gpus();
	test_vm_p2p();
	return T_DONE("test_checks");
}
