/* The hand-built facts the per-pod check tests share (test_checks.c,
 * test_checks_paths.c, test_checks_known.c): one healthy InfiniBand node,
 * the pieces to change it with, and how a result is read back. */
#ifndef TESTS_CHECKS_FIXTURE_H
#define TESTS_CHECKS_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check/check.h"
#include "check/internal.h"
#include "check/links.h"
#include "model/envrules.h"
#include "kube/api/pods.h"
#include "probe/facts.h"
#include "probe_fixture.h"
#include "pod_fixture.h"
#include "t.h"
#include "verdict/verdict.h"

static inline void set_env(struct probe_facts *f, const char *text)
{
	set_ok(&f->env.src);
	probe_parse_env(text, strlen(text), &f->env);
}

static inline void add_port(struct probe_rdma_dev *d, enum probe_link_layer ll,
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

static inline void add_dev(struct probe_facts *f, const char *name,
		    enum probe_link_layer ll, double rate)
{
	struct probe_rdma_dev *d = probe_rdma_dev_add(&f->sysfs_ib);

	snprintf(d->name, sizeof(d->name), "%s", name);
	add_port(d, ll, rate);
}

static inline void add_tl(struct probe_ucx *u, const char *tl, const char *dev,
		   enum probe_ucx_tl id)
{
	struct probe_ucx_tl_entry *e = probe_ucx_tl_add(u);

	snprintf(e->name, sizeof(e->name), "%s", tl);
	snprintf(e->device, sizeof(e->device), "%s", dev);
	u->tl_count[id]++;
}

static inline void add_md(struct probe_ucx *u, const char *name, const char *comp,
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

static inline void gpus(struct probe_facts *f, int n, int nvlink)
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
static inline void host_facts(struct probe_facts *f)
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

static inline struct probe_facts *healthy_ib(void)
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

static inline void run(const struct probe_facts *f, const struct pod_spec_facts *s,
		const struct check_context *c, struct check_results *r)
{
	check_results_init(r);
	check_pod(f, s, c, r);
}

static inline int status_of(const struct check_results *r, const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	if (!c)
		fprintf(stderr, "no result %s\n", name);
	return c ? (int)c->status : -1;
}

static inline enum verdict_status pod_verdict(const struct check_results *r)
{
	struct pod_info info = { .name = "p", .node = "n", .role = "decode" };
	struct run_pod p = { .pod = &info, .probed = 1, .results = *r };   /* borrowed */

	return verdict_pod(&p);
}

static inline void dump_unexpected(const struct check_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (getenv("T_DUMP") || (r->v[i].status != CHECK_OK &&
					 !(r->v[i].flags & CHECK_F_NA)))
			fprintf(stderr, "  %s %s: %s\n", r->v[i].name,
				check_status_name(r->v[i].status), r->v[i].detail);
}

/* The index of a check's row in the table. */
static inline size_t row_of(const char *name)
{
	size_t n;
	const struct check_def *d = check_defs(&n);

	return check_def(name) ? (size_t)(check_def(name) - d) : n;
}

static inline int var_listed(const char *vars, const char *var)
{
	size_t len = strlen(var);

	for (const char *p = vars; (p = strstr(p, var)); p += len)
		if ((p == vars || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
			return 1;
	return 0;
}

/* The table is in emission order: a probed pod's results follow its rows
 * (the driver calls each judge once, so a judge's rows are adjacent). */
static inline void check_table_order(const struct check_results *r)
{
	for (size_t i = 1; i < r->n; i++) {
		if (row_of(r->v[i].name) < row_of(r->v[i - 1].name))
			fprintf(stderr, "  %s before %s\n", r->v[i - 1].name, r->v[i].name);
		CHECK(row_of(r->v[i].name) >= row_of(r->v[i - 1].name));
	}
}

#endif
