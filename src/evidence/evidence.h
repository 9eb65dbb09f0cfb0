/* Evidence: the facts of one pod reconciled across every source that can
 * show them, between the parsers (probe/facts.h) and the checks.
 *
 * checks.md N: "a link counts as proven by any source that shows it";
 * product.md "Results": one missing source is never evidence of absence
 * when another source shows the fact.  So each fact here says whether it
 * is shown (and by which sources), shown absent (every source that could
 * show it looked and none did), or unknown (nothing could look: then
 * `missing` says what would show it).  Where sources contradict each
 * other, `conflict` names both, for one finding instead of two checks
 * that disagree.
 *
 * A check reads the facts of its own family from probe_facts and the
 * facts shared across families only from here.
 *
 * Everything is fixed-size and owned by the struct; nothing to free.
 */
#ifndef EVIDENCE_EVIDENCE_H
#define EVIDENCE_EVIDENCE_H

struct probe_facts;

enum ev_state {
	EV_UNKNOWN = -1,   /* no source could look */
	EV_ABSENT = 0,     /* the sources looked; none shows it */
	EV_SHOWN = 1,      /* at least one source shows it */
};

struct ev_fact {
	enum ev_state state;
	char source[128];   /* SHOWN: the sources that show it ("nvidia-smi,
			     * /sys/module/nvidia"); ABSENT: those that looked */
	char missing[160];  /* UNKNOWN: what would show it */
	char conflict[224]; /* "" or two sources that disagree, named */
};

enum ev_gpu_path { EV_PATH_NONE = 0, EV_PATH_PEERMEM, EV_PATH_DMABUF };

struct evidence {
	/* H6: an NVIDIA driver is loaded. */
	struct ev_fact driver;
	char driver_version[32];
	int driver_open;            /* 1 open module, 0 proprietary, -1 unknown */

	/* A5/E3/G2: userspace opens the RDMA devices (verbs or libfabric). */
	struct ev_fact verbs;
	int verbs_ibv_devs;         /* devices ibv_devinfo opened; -1 not run */
	int verbs_ucx_tls;          /* UCX rc/dc/ud/srd instances; -1 not run */

	/* B1: a peer-memory driver (nvidia_peermem, nv_peer_mem, memory_peers). */
	struct ev_fact peermem;
	char peermem_name[32];
	char peermem_version[24];

	/* B1b/B2: UCX's DMA-BUF path: an IB md that imports dmabuf and a
	 * cuda_cpy md that exports it.  UNKNOWN without ucx_info -d. */
	struct ev_fact dmabuf;
	int ib_mds, ib_mds_cuda, ib_mds_dmabuf; /* from ucx_info -d; -1 n/a */
	int cuda_cpy_dmabuf;                    /* 1, 0, -1 */
	int dmabuf_likely;          /* kernel >= 5.12 and the open module */
	int dmabuf_impossible;      /* proprietary module or kernel < 5.12 */

	/* B: the NIC reaches GPU memory by either path; `path` says which. */
	struct ev_fact gpu_reach;
	enum ev_gpu_path path;

	/* C1: gdrdrv loaded (module, or its major in /proc/devices) and its
	 * device node in the pod. */
	struct ev_fact gdrdrv;
	int gdrdrv_dev;             /* /dev/gdrdrv in the pod */
	int ucx_gdr_copy;           /* UCX lists gdr_copy: 1, 0, -1 unknown (C2) */
	int gdrdrv_broken;          /* module loaded, /proc/devices lacks it */

	/* E5/H1: locked memory, from the container's first process (the
	 * worker), else the probe's own shell. */
	struct ev_fact memlock;
	long long memlock_soft;     /* bytes, PROBE_UNLIMITED, -1 unknown */
	int ipc_lock;               /* CapEff has CAP_IPC_LOCK: 1, 0, -1 */
	int memlock_of_worker;      /* 1: read from pid 1 */
};

/* Fills ev from f (never NULL). */
void evidence_collect(const struct probe_facts *f, struct evidence *ev);

/* "shown", "absent", "unknown". */
const char *evidence_state_name(enum ev_state s);

#endif
