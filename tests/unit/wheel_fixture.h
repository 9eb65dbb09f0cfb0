/* The healthy pip-wheel NIXL node of test_nixl_wheel.c (vLLM's image:
 * the plugin directory under site-packages, UCX bundled without
 * ucx_info), shared with test_stack.c, which adds its nixl_stack section:
 * the probe's sections, the node's facts, and helpers to run and read the
 * pod's checks.  Include after t.h and the headers below. */
#ifndef TESTS_WHEEL_FIXTURE_H
#define TESTS_WHEEL_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "check/links.h"
#include "kube/api/pods.h"
#include "probe/facts.h"
#include "t.h"
#include "verdict/verdict.h"

#define SITE "/usr/local/lib/python3.12/dist-packages"
#define WHEEL_PLUGINS SITE "/nixl_cu12.libs/nixl"
#define WHEEL_UCX SITE "/nixl_cu12.libs/ucx"

static inline void set_ok(struct probe_src *s)
{
	s->status = PROBE_OK;
	s->rc = 0;
}

static inline void set_absent(struct probe_src *s)
{
	s->status = PROBE_ABSENT;
	s->rc = 127;
}

/* The probe's sections of a vLLM-like image: the wheel's plugin directory
 * found by the fixed globs (NIXL_PLUGIN_DIR unset), python's import, the
 * bundled UCX's modules, no ucx_info at all. */
static const char wheel_sections[] =
	"@@@ nixl_plugins\n"
	"wheel_dir=" WHEEL_PLUGINS "\n"
	"plugin=libplugin_GDS.so\nplugin=libplugin_POSIX.so\nplugin=libplugin_UCX.so\n"
	"@@@ end nixl_plugins rc=0\n"
	"@@@ nixl_python\n"
	"module=" SITE "/nixl/__init__.py\nversion=nixl 0.10.1\nversion=nixl-cu12 0.10.1\n"
	"plugin_dir=" WHEEL_PLUGINS "\nplugin=libplugin_UCX.so\n"
	"@@@ end nixl_python rc=0\n"
	"@@@ ucx_info_v\n@@@ end ucx_info_v rc=127\n"
	"@@@ ucx_info_d\n@@@ end ucx_info_d rc=127\n"
	"@@@ ucx_modules\n"
	"wheel_dir=" WHEEL_UCX "\n"
	"module=libuct_cma.so.0.0.0\nmodule=libuct_cuda.so.0.0.0\n"
	"module=libuct_cuda_gdrcopy.so.0.0.0\nmodule=libuct_ib.so.0.0.0\n"
	"module=libuct_ib_mlx5.so.0.0.0\nmodule=libuct_rdmacm.so.0.0.0\n"
	"@@@ end ucx_modules rc=0\n";

static inline void add_dev(struct probe_rdma_list *list, const char *name)
{
	struct probe_rdma_dev *d = probe_rdma_dev_add(list);
	struct probe_rdma_port *p = &d->port[d->nports++];

	snprintf(d->name, sizeof(d->name), "%s", name);
	p->num = 1;
	p->state = PROBE_PORT_ACTIVE;
	p->phys_state = PROBE_PHYS_LINKUP;
	p->rate_gbps = 400;
	p->link_layer = PROBE_LL_IB;
	p->first_roce_v2 = -1;
}

/* The rest of a healthy 2-rail HGX H100 IB node, first-hand sources
 * other than UCX's (sysfs, ibv_devinfo, /proc, nvidia-smi, limits). */
static inline void node_facts(struct probe_facts *f)
{
	set_ok(&f->kernel.src);
	snprintf(f->kernel.release, 64, "5.15.0-105-generic");
	f->kernel.major = 5;
	f->kernel.minor = 15;
	set_ok(&f->nvdriver.src);
	f->nvdriver.open_module = 1;
	snprintf(f->nvdriver.version, 32, "550.54.15");
	set_ok(&f->sysfs_ib.src);
	add_dev(&f->sysfs_ib, "mlx5_0");
	add_dev(&f->sysfs_ib, "mlx5_1");
	set_ok(&f->dev_ib.src);
	f->dev_ib.n_uverbs = 2;
	/* ibv_devinfo opens them (the userspace-access link's own source) */
	set_ok(&f->ibv_devinfo.src);
	add_dev(&f->ibv_devinfo, "mlx5_0");
	add_dev(&f->ibv_devinfo, "mlx5_1");
	set_ok(&f->modules.proc_src);
	f->modules.loaded[PROBE_MOD_NVIDIA] = 1;
	f->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM] = 1;
	set_ok(&f->nvsmi.src);
	snprintf(f->nvsmi.driver_version, 32, "550.54.15");
	f->nvsmi.ngpus = f->nvsmi.attached = 2;
	for (int g = 0; g < 2; g++)
		snprintf(f->nvsmi.gpu[g].name, 64, "NVIDIA H100 80GB HBM3");
	set_absent(&f->fi.src);
	set_ok(&f->limits_pid1.limits_src);
	f->limits_pid1.memlock_soft = PROBE_UNLIMITED;
	set_ok(&f->env.src);
	probe_parse_env("VLLM_NIXL_SIDE_CHANNEL_PORT=5600\n", 33, &f->env);
}

/* The wheel node from these probe sections (edit() makes variants). */
static inline struct probe_facts *wheel_node(const char *sections)
{
	struct probe_facts *f = probe_facts_new();
	char *rep = malloc(strlen(sections) + 64);
	struct err e;

	sprintf(rep, "dynamo-interconnect-probe v1\n%s@@@ done\n", sections);
	CHECK_INT(probe_parse_report(rep, strlen(rep), f, &e), 0);
	free(rep);
	node_facts(f);
	return f;
}

static const struct pod_spec_facts ib_spec = {
	.gpus = 2, .rdma_devices = 2, .rdma_resource = "rdma/ib", .ipc_lock = 1,
	.shm_bytes = 16LL << 30,
};
static const struct check_context decode_ctx = {
	.node = "gpu-a2", .role = "decode", .kv_cross_pod = 1,
	.kv_cross_node = 1, .kv_known = 1, .npods = 2,
};

static inline const struct check_result *res(const struct check_results *r,
				      const char *name)
{
	const struct check_result *c = check_results_find(r, name);

	if (!c)
		fprintf(stderr, "no result %s\n", name);
	return c;
}

static inline int status_of(const struct check_results *r, const char *name)
{
	const struct check_result *c = res(r, name);

	return c ? (int)c->status : -1;
}

static inline enum verdict_status pod_verdict(const struct check_results *r)
{
	struct pod_info info = { .name = "p", .node = "n", .role = "decode" };
	struct run_pod p = { .pod = &info, .probed = 1, .results = *r };   /* borrowed */

	return verdict_pod(&p);
}

static inline const struct check_link *link_of(const struct check_link *l, size_t n,
					enum check_link_id id)
{
	for (size_t i = 0; i < n; i++)
		if (l[i].id == id)
			return &l[i];
	return NULL;
}

static inline void dump(const struct check_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (getenv("T_DUMP"))
			fprintf(stderr, "  %s %s: %s\n", r->v[i].name,
				check_status_name(r->v[i].status), r->v[i].detail);
}

static inline void run_pod(const char *sections, struct check_results *r)
{
	struct probe_facts *f = wheel_node(sections);

	check_results_init(r);
	check_pod(f, &ib_spec, &decode_ctx, r);
	dump(r);
	probe_facts_free(f);
}

#endif
