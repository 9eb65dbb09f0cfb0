/* The facts' lifecycle and the whole-report parser: each known section is
 * handed to its parser and its rc turned into the source's status. */
#include "facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "report.h"
#include "../util/xalloc.h"

const char *probe_status_name(enum probe_status s)
{
	switch (s) {
	case PROBE_NOT_LOOKED: return "not looked";
	case PROBE_ABSENT: return "absent";
	case PROBE_FAILED: return "failed";
	case PROBE_OK: return "ok";
	}
	return "?";
}

static void ucx_init(struct probe_ucx *u)
{
	u->major = u->minor = u->patch = -1;
	u->cuda_cpy_dmabuf = -1;
}

static void ucx_free(struct probe_ucx *u)
{
	free(u->md);
	free(u->tl);
	free(u->configured);
}

void probe_ucx_reset(struct probe_ucx *u)
{
	ucx_free(u);
	memset(u, 0, sizeof *u);
	ucx_init(u);
}

/* One clear of the struct (its big lists are empty pointers, so this is
 * ~30 KiB, not the 180 KiB of the fixed arrays it had), then the fields
 * whose "not reported" is -1. */
void probe_facts_init(struct probe_facts *f)
{
	int i;

	memset(f, 0, sizeof *f);
	f->kernel.major = f->kernel.minor = -1;
	f->nvdriver.open_module = -1;
	f->nvdev.ngpu_nodes = -1;
	f->modules.gdrdrv_in_proc_devices = -1;
	f->nvsmi.attached = -1;
	for (i = 0; i < PROBE_MAX_GPUS; i++)
		f->topo.numa[i] = f->topo.gpu_numa[i] = -1;
	ucx_init(&f->ucx);
	f->limits_self.memlock_soft = f->limits_self.memlock_hard = -1;
	f->limits_pid1.memlock_soft = f->limits_pid1.memlock_hard = -1;
	f->shm.size_kb = f->shm.avail_kb = -1;
	f->vm.cpu_hypervisor = -1;
	f->meminfo.mem_total_kb = f->meminfo.hp_total = -1;
	f->meminfo.hp_free = f->meminfo.hp_size_kb = -1;
	f->trtllm_engine.max_input_len = f->trtllm_engine.max_tokens_in_buffer = -1;
	f->trtllm_engine.tensor_parallel_size = -1;
	f->trtllm_engine.kv_manager_v2 = -1;
	f->model_config.sliding_window = f->model_config.hybrid_linear = -1;
	f->model_config.mla = f->model_config.num_kv_heads = -1;
	f->model_config.num_layers = -1;
	f->cost.wall_ms = f->cost.cpu_ms = -1;
}

/* The heap fields only: free() needs no re-init after. */
static void free_members(struct probe_facts *f)
{
	struct probe_rdma_list *lists[] = {
		&f->sysfs_ib, &f->ibstat, &f->ibstatus, &f->ibv_devinfo, &f->ibdev2netdev,
	};
	size_t i;

	for (i = 0; i < sizeof lists / sizeof lists[0]; i++)
		free(lists[i]->dev);
	ucx_free(&f->ucx);
	for (i = 0; i < f->nixl.nversion_lines; i++)
		free(f->nixl.version_lines[i]);
	free(f->nixl.version_lines);
	probe_env_release(&f->env);
	probe_stack_free(&f->stack);
}

void probe_facts_release(struct probe_facts *f)
{
	free_members(f);
	probe_facts_init(f);
}

struct probe_facts *probe_facts_new(void)
{
	struct probe_facts *f = xmalloc(sizeof *f);
	probe_facts_init(f);
	return f;
}

void probe_facts_free(struct probe_facts *f)
{
	if (!f)
		return;
	free_members(f);
	free(f);
}

/* The line most likely to say what went wrong: the first one that looks
 * like an error, else the first non-empty one. */
static void first_error(char *dst, size_t dstsz, const char *t, size_t n)
{
	static const char *const words[] = {
		"error", "fail", "panic", "not found", "denied", "no such",
		"unable", "cannot", "invalid", "not permitted", "timed out",
	};
	struct ptext it;
	struct pslice line, first = { NULL, 0 };
	size_t i;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (!line.n)
			continue;
		if (!first.s)
			first = line;
		for (i = 0; i < sizeof words / sizeof words[0]; i++)
			if (ps_find_ci(line, words[i]) >= 0)
				goto found;
	}
	line = first;
found:
	ps_copy(dst, dstsz, line);
	for (i = 0; dst[i]; i++)
		if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] == 0x7f)
			dst[i] = ' ';
}

static void src_set(struct probe_src *s, const struct probe_section *sec)
{
	s->rc = sec->complete ? sec->rc : -1;
	s->timed_out = sec->rc == 124;
	s->err[0] = '\0';
	if (sec->complete && sec->rc == 0) {
		s->status = PROBE_OK;
	} else if (sec->complete && sec->rc == 127) {
		s->status = PROBE_ABSENT;
	} else {
		s->status = PROBE_FAILED;
		if (!sec->complete)
			snprintf(s->err, sizeof s->err, "output cut short");
		else if (s->timed_out)
			snprintf(s->err, sizeof s->err, "timed out");
		else
			first_error(s->err, sizeof s->err, sec->body, sec->len);
	}
}

typedef void handler_fn(const struct probe_section *s, struct probe_facts *f);

/* Sets the source from the rc and parses the body: an absent tool has
 * none, and some sections say more than the rc (gdrdrv's proc_devices).
 * An empty body (a tool absent, rc 127) costs no parser (issue 46). */
#define SECTION(fn, srcexpr, parser, target)                                 \
	static void fn(const struct probe_section *s, struct probe_facts *f) \
	{                                                                    \
		src_set(&(srcexpr), s);                                      \
		if (s->len)                                                  \
			(void)parser(s->body, s->len, &(target));            \
	}

SECTION(h_kernel, f->kernel.src, probe_parse_kernel, f->kernel)
SECTION(h_nvdriver, f->nvdriver.src, probe_parse_nvdriver, f->nvdriver)
SECTION(h_nvdev, f->nvdev.src, probe_parse_nvdev, f->nvdev)
SECTION(h_sysfs_ib, f->sysfs_ib.src, probe_parse_sysfs_ib, f->sysfs_ib)
SECTION(h_dev_ib, f->dev_ib.src, probe_parse_dev_ib, f->dev_ib)
SECTION(h_ibstat, f->ibstat.src, probe_parse_ibstat, f->ibstat)
SECTION(h_ibstatus, f->ibstatus.src, probe_parse_ibstatus, f->ibstatus)
SECTION(h_ibv, f->ibv_devinfo.src, probe_parse_ibv_devinfo, f->ibv_devinfo)
SECTION(h_ibdev2netdev, f->ibdev2netdev.src, probe_parse_ibdev2netdev, f->ibdev2netdev)
SECTION(h_modules, f->modules.proc_src, probe_parse_modules, f->modules)
SECTION(h_sys_module, f->modules.sys_src, probe_parse_sys_module, f->modules)
SECTION(h_peers, f->modules.peers_src, probe_parse_memory_peers, f->modules)
SECTION(h_gdrdrv, f->modules.gdrdrv_src, probe_parse_gdrdrv, f->modules)
SECTION(h_nvsmi, f->nvsmi.src, probe_parse_nvsmi_q, f->nvsmi)
SECTION(h_topo, f->topo.src, probe_parse_topo, f->topo)
SECTION(h_nvlink, f->nvlink.src, probe_parse_nvlink, f->nvlink)
SECTION(h_ucx_v, f->ucx.v_src, probe_parse_ucx_v, f->ucx)
SECTION(h_ucx_d, f->ucx.d_src, probe_parse_ucx_d, f->ucx)
SECTION(h_fi, f->fi.src, probe_parse_fi_info, f->fi)
SECTION(h_lim_self, f->limits_self.limits_src, probe_parse_limits, f->limits_self)
SECTION(h_st_self, f->limits_self.status_src, probe_parse_status_caps, f->limits_self)
SECTION(h_lim_pid1, f->limits_pid1.limits_src, probe_parse_limits, f->limits_pid1)
SECTION(h_st_pid1, f->limits_pid1.status_src, probe_parse_status_caps, f->limits_pid1)
SECTION(h_nixl_plugins, f->nixl.plugins_src, probe_parse_nixl_plugins, f->nixl)
SECTION(h_nixl_tools, f->nixl.tools_src, probe_parse_nixl_tools, f->nixl)
SECTION(h_nixl_python, f->nixl.python_src, probe_parse_nixl_python, f->nixl)
SECTION(h_nixl_versions, f->nixl.versions_src, probe_parse_nixl_versions, f->nixl)
/* The env past its caps is not judged (issue 37: a UCX_TLS after the
 * 512th variable, or cut, would read as unset or as another value). */
static void h_env(const struct probe_section *s, struct probe_facts *f)
{
	src_set(&f->env.src, s);
	(void)probe_parse_env(s->body, s->len, &f->env);
	if (f->env.src.status != PROBE_OK || (!f->env.dropped && !f->env.cut))
		return;
	f->env.src.status = PROBE_FAILED;
	if (f->env.dropped)
		snprintf(f->env.src.err, sizeof f->env.src.err, "more than %d transport variables, "
			 "not judged on a part", PROBE_MAX_ENV);
	else
		snprintf(f->env.src.err, sizeof f->env.src.err, "a transport variable's value over "
			 "%d bytes, not judged on a part", PROBE_MAX_ENV_VALUE);
}
SECTION(h_pci, f->pci.src, probe_parse_pci, f->pci)
SECTION(h_vm, f->vm.src, probe_parse_vm, f->vm)
SECTION(h_shm, f->shm.src, probe_parse_shm, f->shm)
SECTION(h_meminfo, f->meminfo.src, probe_parse_meminfo, f->meminfo)
SECTION(h_ucx_ldd, f->nixl_ucx_ldd.src, probe_parse_ucx_ldd, f->nixl_ucx_ldd)
SECTION(h_ucx_modules, f->ucx_modules.src, probe_parse_ucx_modules, f->ucx_modules)
SECTION(h_verbs_libs, f->verbs_libs.src, probe_parse_verbs_libs, f->verbs_libs)
SECTION(h_nixl_stack, f->stack.src, probe_parse_nixl_stack, f->stack)
SECTION(h_engine, f->trtllm_engine.src, probe_parse_trtllm_engine, f->trtllm_engine)
SECTION(h_sglang_config, f->sglang_config.src, probe_parse_sglang_config, f->sglang_config)
SECTION(h_model_config, f->model_config.src, probe_parse_model_config, f->model_config)
SECTION(h_ip_addr, f->ipnet.addr_src, probe_parse_ip_addr, f->ipnet)
SECTION(h_ip_route, f->ipnet.route_src, probe_parse_ip_route, f->ipnet)
SECTION(h_mooncake, f->mooncake.src, probe_parse_mooncake, f->mooncake)
SECTION(h_versions, f->versions.src, probe_parse_versions, f->versions)
SECTION(h_counters, f->counters.src, probe_parse_counters, f->counters)
SECTION(h_pcie, f->pcie.src, probe_parse_pcie, f->pcie)
SECTION(h_port_now, f->port_now.src, probe_parse_counters, f->port_now)
SECTION(h_cost, f->cost.src, probe_parse_cost, f->cost)

/* /proc/net/route only where ip -4 route gave nothing: one table, not two. */
static void h_proc_route(const struct probe_section *s, struct probe_facts *f)
{
	src_set(&f->ipnet.proc_route_src, s);
	if (f->ipnet.route_src.status != PROBE_OK)
		(void)probe_parse_proc_route(s->body, s->len, &f->ipnet);
}

/* fi_info -c FI_HMEM lists only the entries that support FI_HMEM. */
static void h_fi_hmem(const struct probe_section *s, struct probe_facts *f)
{
	struct probe_fi *tmp;

	src_set(&f->fi.hmem_src, s);
	if (!s->len)
		return;
	tmp = xcalloc(1, sizeof *tmp);
	probe_parse_fi_info(s->body, s->len, tmp);
	f->fi.n_hmem_entries = tmp->nentries;
	f->fi.hmem_p2p_unavailable |= tmp->hmem_p2p_unavailable;
	f->fi.hmem_cuda_reg_failed |= tmp->hmem_cuda_reg_failed;
	free(tmp);
}

static void h_meta(const struct probe_section *s, struct probe_facts *f)
{
	struct ptext it;
	struct pslice line, k, v;

	ptext_init(&it, s->body, s->len);
	while (ptext_line(&it, &line))
		if (ps_split(line, '=', &k, &v) && ps_eq(k, "timeout"))
			ps_copy(f->timeout_mode, sizeof f->timeout_mode, v);
}

static const struct {
	const char *name;
	handler_fn *fn;
} handlers[] = {
	{ "meta", h_meta },
	{ "kernel", h_kernel },
	{ "nvidia_driver", h_nvdriver },
	{ "dev_nvidia", h_nvdev },
	{ "sysfs_ib", h_sysfs_ib },
	{ "dev_infiniband", h_dev_ib },
	{ "ibstat", h_ibstat },
	{ "ibstatus", h_ibstatus },
	{ "ibv_devinfo", h_ibv },
	{ "ibdev2netdev", h_ibdev2netdev },
	{ "ip_addr", h_ip_addr },
	{ "ip_route", h_ip_route },
	{ "proc_net_route", h_proc_route },
	{ "proc_modules", h_modules },
	{ "sys_module", h_sys_module },
	{ "memory_peers", h_peers },
	{ "gdrdrv", h_gdrdrv },
	{ "nvsmi_q", h_nvsmi },
	{ "nvsmi_topo", h_topo },
	{ "nvsmi_nvlink", h_nvlink },
	{ "ucx_info_v", h_ucx_v },
	{ "ucx_info_d", h_ucx_d },
	{ "fi_info", h_fi },
	{ "fi_info_hmem", h_fi_hmem },
	{ "limits_self", h_lim_self },
	{ "status_self", h_st_self },
	{ "limits_pid1", h_lim_pid1 },
	{ "status_pid1", h_st_pid1 },
	{ "nixl_plugins", h_nixl_plugins },
	{ "nixl_tools", h_nixl_tools },
	{ "nixl_python", h_nixl_python },
	{ "nixl_versions", h_nixl_versions },
	{ "env_pid1", h_env },
	{ "pci", h_pci },
	{ "vm", h_vm },
	{ "shm", h_shm },
	{ "meminfo", h_meminfo },
	{ "nixl_ucx_ldd", h_ucx_ldd },
	{ "ucx_modules", h_ucx_modules },
	{ "verbs_libs", h_verbs_libs },
	{ "nixl_stack", h_nixl_stack },
	{ "trtllm_engine", h_engine },
	{ "sglang_config", h_sglang_config },
	{ "model_config", h_model_config },
	{ "mooncake_dist", h_mooncake },
	{ "versions", h_versions },
	{ "rail_counters", h_counters },
	{ "pcie_links", h_pcie },
	{ "port_counters", h_port_now },
	{ "probe_cost", h_cost },
};

/* The handler of a section name, -1 when none: the first byte rejects
 * most of the table before strcmp runs. */
static int handler_of(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
		if (handlers[i].name[0] == name[0] && !strcmp(handlers[i].name, name))
			return (int)i;
	return -1;
}

int probe_parse_report(const char *text, size_t len, struct probe_facts *f,
		       struct err *e)
{
	struct probe_report *r = xmalloc(sizeof *r);
	uint64_t seen = 0;
	int j, h;

	_Static_assert(sizeof handlers / sizeof handlers[0] <= 64, "seen is 64 bits");
	if (probe_report_split(text, len, r, e) < 0) {
		free(r);
		return -1;
	}
	f->version = r->version;
	f->complete = r->done;
	/* Duplicates: the first section of a name counts, like find(). */
	for (j = 0; j < r->nsections; j++) {
		h = handler_of(r->section[j].name);
		if (h < 0 || (seen >> h & 1))
			continue;
		seen |= (uint64_t)1 << h;
		handlers[h].fn(&r->section[j], f);
	}
	free(r);
	return 0;
}
