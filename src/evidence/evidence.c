/* Facts -> evidence: each shared fact from every source that shows it
 * (checks.md N, H6, A5, B1/B1b/B2, C1, E5). */
#include "evidence/evidence.h"

#include <stdio.h>
#include <string.h>

#include "probe/facts.h"

static const char *const state_names[] = { "absent", "shown" };

const char *evidence_state_name(enum ev_state s)
{
	return s == EV_SHOWN || s == EV_ABSENT ? state_names[s] : "unknown";
}

/* Appends ", name" (or "name") to a source list, bounded. */
static void add_src(char *list, size_t n, const char *name)
{
	size_t used = strlen(list);

	/* Cut at the end: the return value is looked at, so a long name
	 * is a truncation on purpose, not a bug. */
	if (used + 1 < n &&
	    snprintf(list + used, n - used, "%s%s", used ? ", " : "", name) < 0)
		list[used] = '\0';
}

static int known(const struct probe_src *s)
{
	return s->status == PROBE_OK || s->status == PROBE_ABSENT;
}

static void fact_init(struct ev_fact *x)
{
	memset(x, 0, sizeof(*x));
	x->state = EV_UNKNOWN;
}

/* SHOWN when a source showed it, else ABSENT when one looked, else
 * UNKNOWN with `missing` as what would have shown it. */
static void settle(struct ev_fact *x, const char *looked, const char *missing)
{
	if (x->source[0]) {
		x->state = EV_SHOWN;
		return;
	}
	if (looked && *looked) {
		x->state = EV_ABSENT;
		snprintf(x->source, sizeof(x->source), "%s", looked);
		return;
	}
	x->state = EV_UNKNOWN;
	snprintf(x->missing, sizeof(x->missing), "%s", missing);
}

/* ---- H6: the NVIDIA driver ------------------------------------------ */

/* Sources, as checks.md H6 lists them: nvidia-smi answering with a
 * Driver Version, /proc/driver/nvidia/version, /sys/module/nvidia,
 * nvidia in /proc/modules, /dev/nvidiactl.  nvidia-smi can print its
 * driver line and still fail later (exit non-zero): the line counts. */
static void driver(const struct probe_facts *f, struct evidence *ev)
{
	const struct probe_modules *m = &f->modules;
	struct ev_fact *x = &ev->driver;
	char looked[128] = "";

	fact_init(x);
	ev->driver_open = f->nvdriver.open_module;
	if (f->nvsmi.driver_version[0]) {
		add_src(x->source, sizeof(x->source), "nvidia-smi");
		snprintf(ev->driver_version, sizeof(ev->driver_version), "%s",
			 f->nvsmi.driver_version);
	} else if (known(&f->nvsmi.src) || f->nvsmi.src.status == PROBE_FAILED) {
		add_src(looked, sizeof(looked), "nvidia-smi");
	}
	if (f->nvdriver.src.status == PROBE_OK && f->nvdriver.version[0]) {
		add_src(x->source, sizeof(x->source), "/proc/driver/nvidia/version");
		if (!ev->driver_version[0])
			snprintf(ev->driver_version, sizeof(ev->driver_version),
				 "%s", f->nvdriver.version);
		else if (strcmp(ev->driver_version, f->nvdriver.version))
			snprintf(x->conflict, sizeof(x->conflict),
				 "nvidia-smi reports driver %s but /proc/driver/nvidia/version %s (user-space and kernel driver differ)",
				 f->nvsmi.driver_version, f->nvdriver.version);
	} else if (f->nvdriver.src.status == PROBE_ABSENT) {
		add_src(looked, sizeof(looked), "/proc/driver/nvidia/version");
	}
	if (m->in_sys[PROBE_MOD_NVIDIA])
		add_src(x->source, sizeof(x->source), "/sys/module/nvidia");
	else if (m->sys_src.status == PROBE_OK)
		add_src(looked, sizeof(looked), "/sys/module");
	if (m->in_proc[PROBE_MOD_NVIDIA])
		add_src(x->source, sizeof(x->source), "/proc/modules");
	else if (m->proc_src.status == PROBE_OK)
		add_src(looked, sizeof(looked), "/proc/modules");
	if (f->nvdev.nvidiactl)
		add_src(x->source, sizeof(x->source), "/dev/nvidiactl");
	else if (known(&f->nvdev.src))
		add_src(looked, sizeof(looked), "/dev/nvidiactl");
	settle(x, looked, "nvidia-smi, /proc/driver/nvidia/version, /sys/module and /dev/nvidiactl not readable");
}

/* ---- A5/E3/G2: userspace opens the RDMA devices --------------------- */

static void verbs(const struct probe_facts *f, struct evidence *ev)
{
	const struct probe_rdma_list *v = &f->ibv_devinfo;
	const struct probe_ucx *u = &f->ucx;
	struct ev_fact *x = &ev->verbs;
	char looked[128] = "";
	int tls = 0;

	fact_init(x);
	/* "No IB devices found" exits non-zero but is an answer. */
	ev->verbs_ibv_devs = v->src.status == PROBE_OK || v->ndevs ||
			     v->no_devices ? v->ndevs : -1;
	ev->verbs_ucx_tls = -1;
	if (v->ndevs > 0)
		add_src(x->source, sizeof(x->source), "ibv_devinfo");
	else if (v->no_devices || v->src.status == PROBE_OK)
		add_src(looked, sizeof(looked), "ibv_devinfo");
	/* A transport UCX lists on a device is one it opened through verbs
	 * (uct_ib_device_query); srd is EFA's. */
	if (u->d_src.status == PROBE_OK) {
		for (int t = PROBE_TL_RC_MLX5; t <= PROBE_TL_UD_VERBS; t++)
			tls += u->tl_count[t];
		tls += u->tl_count[PROBE_TL_SRD];
		ev->verbs_ucx_tls = tls;
		if (tls)
			add_src(x->source, sizeof(x->source), "ucx_info -d");
		else
			add_src(looked, sizeof(looked), "ucx_info -d");
	}
	/* fi_info -p efa lists an RDM endpoint only for a device it opened. */
	if (f->fi.n_efa_rdm > 0)
		add_src(x->source, sizeof(x->source), "fi_info -p efa");
	if (v->no_devices && (tls || f->fi.n_efa_rdm > 0))
		snprintf(x->conflict, sizeof(x->conflict),
			 "ibv_devinfo finds no device but %s opens them: the image's rdma-core differs from the one %s uses",
			 tls ? "UCX (ucx_info -d)" : "libfabric (fi_info -p efa)",
			 tls ? "UCX" : "libfabric");
	settle(x, looked, v->src.status == PROBE_ABSENT &&
	       u->d_src.status == PROBE_ABSENT ?
	       "ibv_devinfo and ucx_info not found in the container" :
	       "ibv_devinfo and ucx_info -d gave no answer");
}

/* ---- B1: peer memory ------------------------------------------------ */

/* UCX's own order (ib_md.c uct_ib_check_gpudirect_driver): the
 * memory_peers file, then /sys/module, then /proc/modules as a fallback. */
static void peermem(const struct probe_facts *f, struct evidence *ev)
{
	const struct probe_modules *m = &f->modules;
	struct ev_fact *x = &ev->peermem;
	char looked[128] = "";

	fact_init(x);
	if (m->nv_mem_peer) {
		add_src(x->source, sizeof(x->source), "/sys/kernel/mm/memory_peers/nv_mem");
		snprintf(ev->peermem_name, sizeof(ev->peermem_name), "memory_peers/nv_mem");
		snprintf(ev->peermem_version, sizeof(ev->peermem_version), "%s",
			 m->nv_mem_version);
	} else if (known(&m->peers_src)) {
		add_src(looked, sizeof(looked), "/sys/kernel/mm/memory_peers");
	}
	for (int i = PROBE_MOD_NVIDIA_PEERMEM; i <= PROBE_MOD_NV_PEER_MEM; i++) {
		char where[64];

		if (!m->loaded[i])
			continue;
		if (m->in_sys[i])
			snprintf(where, sizeof(where), "/sys/module/%s",
				 probe_module_name((enum probe_module)i));
		else
			snprintf(where, sizeof(where), "%s in /proc/modules",
				 probe_module_name((enum probe_module)i));
		add_src(x->source, sizeof(x->source), where);
		snprintf(ev->peermem_name, sizeof(ev->peermem_name), "%s",
			 probe_module_name((enum probe_module)i));
		if (m->version[i][0] && !ev->peermem_version[0])
			snprintf(ev->peermem_version, sizeof(ev->peermem_version),
				 "%s", m->version[i]);
	}
	if (!x->source[0]) {
		if (m->sys_src.status == PROBE_OK)
			add_src(looked, sizeof(looked), "/sys/module");
		if (m->proc_src.status == PROBE_OK)
			add_src(looked, sizeof(looked), "/proc/modules");
	}
	settle(x, looked, "/proc/modules, /sys/module and memory_peers not readable");
}

/* ---- B1b/B2: DMA-BUF -------------------------------------------------- */

/* UCP registers CUDA memory on every md with UCT_MD_FLAG_REG_DMABUF once
 * a memory-type md exports dmabuf for CUDA (openucx/ucx ucp_context.c:
 * dmabuf_reg_md_map from UCT_MD_FLAG_REG_DMABUF, dmabuf_mds[] from
 * md_attr->dmabuf_mem_types; cuda_copy_md.c sets the latter from
 * CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED).  ucx_info -d shows the first as
 * ", dmabuf" on the md's register line and the second as "dmabuf" in
 * cuda_cpy's cuda memory type (tl_info.c). */
static void dmabuf(const struct probe_facts *f, struct evidence *ev)
{
	const struct probe_ucx *u = &f->ucx;
	struct ev_fact *x = &ev->dmabuf;
	int kern_ok = f->kernel.major > 5 ||
		      (f->kernel.major == 5 && f->kernel.minor >= 12);

	fact_init(x);
	ev->ib_mds = ev->ib_mds_cuda = ev->ib_mds_dmabuf = -1;
	ev->cuda_cpy_dmabuf = -1;
	ev->dmabuf_likely = f->nvdriver.open_module == 1 && kern_ok;
	ev->dmabuf_impossible = f->nvdriver.open_module == 0 ||
				(f->kernel.major > 0 && !kern_ok);
	if (u->d_src.status != PROBE_OK) {
		snprintf(x->missing, sizeof(x->missing), "ucx_info -d %s",
			 u->d_src.status == PROBE_ABSENT ? "not in the image" :
			 u->d_src.status == PROBE_FAILED ? "failed" : "not run");
		return;
	}
	ev->ib_mds = u->n_ib_mds;
	ev->ib_mds_cuda = u->n_ib_mds_cuda;
	ev->ib_mds_dmabuf = u->n_ib_mds_dmabuf;
	ev->cuda_cpy_dmabuf = u->cuda_cpy_dmabuf;
	if (u->cuda_cpy_dmabuf == 1 && (u->n_ib_mds == 0 || u->n_ib_mds_dmabuf > 0))
		add_src(x->source, sizeof(x->source),
			u->n_ib_mds ? "ucx_info -d (IB md register: dmabuf, cuda_cpy dmabuf)" :
			"ucx_info -d (cuda_cpy dmabuf)");
	settle(x, "ucx_info -d", "");
}

/* The NIC reaches GPU memory by peer memory or by DMA-BUF.  UCX's IB md
 * lists cuda only when it found a peer-memory driver file (ib_md.c), so
 * an md with cuda is peer memory seen by UCX itself. */
static void gpu_reach(const struct probe_facts *f, struct evidence *ev)
{
	struct ev_fact *x = &ev->gpu_reach;
	char looked[128] = "";

	fact_init(x);
	ev->path = EV_PATH_NONE;
	if (ev->peermem.state == EV_SHOWN) {
		ev->path = EV_PATH_PEERMEM;
		add_src(x->source, sizeof(x->source), ev->peermem.source);
	}
	if (ev->ib_mds_cuda > 0) {
		if (ev->path == EV_PATH_NONE)
			ev->path = EV_PATH_PEERMEM;
		add_src(x->source, sizeof(x->source), "ucx_info -d (IB md lists cuda)");
		if (ev->peermem.state == EV_ABSENT)
			snprintf(x->conflict, sizeof(x->conflict),
				 "UCX's IB memory domains list cuda (a peer-memory driver) but %s show no nvidia_peermem",
				 ev->peermem.source);
	}
	if (ev->dmabuf.state == EV_SHOWN) {
		if (ev->path == EV_PATH_NONE)
			ev->path = EV_PATH_DMABUF;
		add_src(x->source, sizeof(x->source), ev->dmabuf.source);
	}
	if (ev->peermem.state == EV_SHOWN && ev->ib_mds > 0 &&
	    ev->ib_mds_cuda == 0 && ev->dmabuf.state != EV_SHOWN &&
	    snprintf(x->conflict, sizeof(x->conflict),
			 "%s is loaded (%s) but UCX's IB memory domains list only host memory (ucx_info -d)",
			 ev->peermem_name, ev->peermem.source) < 0)
		x->conflict[0] = '\0';
	/* Absent only when peer memory is absent and DMA-BUF is ruled out by
	 * UCX or by the driver and kernel (B2 FAIL). */
	if (ev->peermem.state == EV_ABSENT &&
	    (ev->dmabuf.state == EV_ABSENT || ev->dmabuf_impossible))
		add_src(looked, sizeof(looked), ev->peermem.source);
	settle(x, looked, ev->peermem.state == EV_UNKNOWN ? ev->peermem.missing :
	       ev->dmabuf.missing);
	(void)f;
}

/* ---- C1: gdrdrv -------------------------------------------------------- */

static void gdrdrv(const struct probe_facts *f, struct evidence *ev)
{
	const struct probe_modules *m = &f->modules;
	struct ev_fact *x = &ev->gdrdrv;
	char looked[128] = "";

	fact_init(x);
	ev->gdrdrv_dev = m->gdrdrv_dev;
	ev->ucx_gdr_copy = f->ucx.d_src.status == PROBE_OK ?
			   f->ucx.tl_count[PROBE_TL_GDR_COPY] > 0 : -1;
	if (m->loaded[PROBE_MOD_GDRDRV])
		add_src(x->source, sizeof(x->source),
			m->in_sys[PROBE_MOD_GDRDRV] ? "/sys/module/gdrdrv" : "/proc/modules");
	if (m->gdrdrv_in_proc_devices == 1)
		add_src(x->source, sizeof(x->source), "/proc/devices");
	if (m->gdrdrv_dev)
		add_src(x->source, sizeof(x->source), "/dev/gdrdrv");
	/* NVIDIA/gdrcopy #115: the module without its major number. */
	ev->gdrdrv_broken = m->loaded[PROBE_MOD_GDRDRV] &&
			    m->gdrdrv_in_proc_devices == 0;
	if (ev->gdrdrv_broken)
		snprintf(x->conflict, sizeof(x->conflict),
			 "gdrdrv is loaded (%s) but /proc/devices lacks it",
			 m->in_sys[PROBE_MOD_GDRDRV] ? "/sys/module" : "/proc/modules");
	if (known(&m->proc_src) || known(&m->sys_src) || known(&m->gdrdrv_src))
		add_src(looked, sizeof(looked), "/proc/modules, /dev/gdrdrv");
	settle(x, looked, "/proc/modules and /dev not readable");
}

/* ---- E5/H1: locked memory ------------------------------------------- */

static void memlock(const struct probe_facts *f, struct evidence *ev)
{
	const struct probe_limits *l = f->limits_pid1.limits_src.status == PROBE_OK ?
				       &f->limits_pid1 : &f->limits_self;
	const struct probe_limits *c = f->limits_pid1.have_caps ?
				       &f->limits_pid1 : &f->limits_self;
	struct ev_fact *x = &ev->memlock;
	const char *who = l == &f->limits_pid1 ? "/proc/1/limits" : "the probe's limits";

	fact_init(x);
	ev->memlock_of_worker = l == &f->limits_pid1;
	ev->memlock_soft = l->memlock_soft;
	ev->ipc_lock = c->have_caps ? c->ipc_lock : -1;
	/* UCX treats CAP_IPC_LOCK as unlimited (sys.c
	 * ucs_sys_get_effective_memlock_rlimit). */
	if (l->memlock_soft == PROBE_UNLIMITED)
		add_src(x->source, sizeof(x->source), who);
	if (ev->ipc_lock == 1)
		add_src(x->source, sizeof(x->source),
			c == &f->limits_pid1 ? "/proc/1/status CapEff" : "CapEff");
	if (l->memlock_soft >= 0 || ev->ipc_lock == 0)
		settle(x, who, "");
	else
		settle(x, NULL, "/proc/1/limits not readable");
	/* A finite limit is judged by the check (how small is too small). */
}

void evidence_collect(const struct probe_facts *f, struct evidence *ev)
{
	memset(ev, 0, sizeof(*ev));
	driver(f, ev);
	verbs(f, ev);
	peermem(f, ev);
	dmabuf(f, ev);
	gpu_reach(f, ev);
	gdrdrv(f, ev);
	memlock(f, ev);
}
