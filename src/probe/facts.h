/* Facts read from one pod (or the local node) by the probe script.
 *
 * This is the data model the checks (src/check/) are written against: the
 * probe report (report.h) is split into sections, and one parser per tool
 * output fills one part of a struct probe_facts.  Checks never see report
 * text, only these fields.
 *
 * Every source carries a struct probe_src saying whether it was looked at,
 * was absent (tool or file missing: exit 127), failed (with its exit status
 * and the first error-looking line) or answered.  A check must turn
 * NOT_LOOKED and ABSENT into "skipped, because ...", never into a pass or a
 * fail, and must not trust an empty list when the source is not OK.  A
 * source can be FAILED and still hold data: ibstat prints the devices it
 * could stat before an ibpanic (exit 255).
 *
 * Sizes: every list has a fixed maximum so that facts from a hostile or
 * broken pod stay bounded; a list that had more entries than fit counts them
 * in its `dropped` field.  Strings are NUL-terminated and truncated to fit.
 * The big lists (RDMA devices, UCX memory domains and transports) are heap
 * arrays grown to what the pod lists, added to with their _add function;
 * they, and the other heap fields (env, NIXL lines, UCX configure line),
 * belong to the struct and are freed by probe_facts_release().
 *
 * Numbers: -1 means "not reported" where 0 is a meaningful value.
 */
#ifndef PROBE_FACTS_H
#define PROBE_FACTS_H

#include <stddef.h>
#include <stdint.h>

#include "../util/err.h"

/* ---- Provenance of every fact -------------------------------------- */

enum probe_status {
	PROBE_NOT_LOOKED = 0, /* section missing from the report */
	PROBE_ABSENT,         /* rc 127: tool, file or directory not there */
	PROBE_FAILED,         /* other non-zero rc (124: timed out) */
	PROBE_OK,             /* rc 0 (the data may still be empty) */
};

struct probe_src {
	enum probe_status status;
	int rc;               /* exit status as reported; -1 if cut short */
	int timed_out;        /* rc 124 */
	char err[160];        /* FAILED: first error-looking line of output */
};

const char *probe_status_name(enum probe_status s);

/* ---- RDMA devices (A1-A7) ------------------------------------------ */

#define PROBE_MAX_RDMA_DEVS 32
#define PROBE_MAX_PORTS 4
#define PROBE_MAX_GID_INDEX 64  /* GID facts kept for indices below this */
#define PROBE_GID_ADDRS 16      /* GID addresses kept (the probe prints 0-15) */

enum probe_link_layer { PROBE_LL_UNKNOWN = 0, PROBE_LL_IB, PROBE_LL_ETH };

/* IB port state codes as the kernel numbers them (state file "4: ACTIVE"). */
enum probe_port_state {
	PROBE_PORT_UNKNOWN = 0,
	PROBE_PORT_DOWN = 1,
	PROBE_PORT_INIT = 2,
	PROBE_PORT_ARMED = 3,
	PROBE_PORT_ACTIVE = 4,
	PROBE_PORT_ACTIVE_DEFER = 5,
};

/* Physical state codes ("5: LinkUp"). */
enum probe_phys_state {
	PROBE_PHYS_UNKNOWN = 0,
	PROBE_PHYS_SLEEP = 1,
	PROBE_PHYS_POLLING = 2,
	PROBE_PHYS_DISABLED = 3,
	PROBE_PHYS_TRAINING = 4,
	PROBE_PHYS_LINKUP = 5,
	PROBE_PHYS_ERROR_RECOVERY = 6,
	PROBE_PHYS_PHY_TEST = 7,
};

struct probe_rdma_port {
	int num;                        /* port number, 1-based */
	enum probe_port_state state;
	enum probe_phys_state phys_state;
	double rate_gbps;               /* 0 = not reported */
	char rate_str[32];              /* "4X NDR" when given */
	enum probe_link_layer link_layer;
	int base_lid, sm_lid;           /* -1 = not reported */
	int active_mtu, max_mtu;        /* bytes (ibv_devinfo); -1 = not reported */
	/* GID table (sysfs only; RoCE A6), indices < PROBE_MAX_GID_INDEX. */
	int gids_listed;                /* gids/I entries read, zero or not */
	int n_gids;                     /* non-zero GIDs seen */
	int n_roce_v1, n_roce_v2;       /* typed "IB/RoCE v1", "RoCE v2" */
	int first_roce_v2;              /* index, -1 when none */
	uint64_t roce_v2_mask;          /* bit i: GID i is RoCE v2 */
	uint64_t ipv4_mask;             /* bit i: GID i is IPv4-mapped */
	uint64_t gid_mask;              /* bit i: GID i read and non-zero (the probe
					 * prints indices 0-15 only) */
	uint64_t link_local_mask;       /* bit i: GID i is link-local fe80::/64 */
	char gid_ndev[32];              /* netdev of the first RoCE v2 GID */
	/* bit i: gid_attrs/ndevs/i names a netdev (Mooncake ranks GIDs
	 * without one lower); that name for i < PROBE_GID_ADDRS. */
	uint64_t ndev_mask;
	char gid_ndevs[PROBE_GID_ADDRS][16];
	/* GID i's IPv4 address (host order) when it is IPv4-mapped, for
	 * i < PROBE_GID_ADDRS (A10 compares prefill's and decode's). */
	uint32_t gid_ipv4[PROBE_GID_ADDRS];
	int netdev_up;                  /* ibdev2netdev: 1 Up, 0 Down, -1 n/a */
};

struct probe_rdma_dev {
	char name[32];                  /* mlx5_0, rdmap79s0, efa_0 */
	char hca_type[24];              /* "MT4129" (sysfs, ibstat) */
	int part_id;                    /* 4129 (ConnectX-7); -1 unknown */
	char fw_ver[32];
	char board_id[32];
	char transport[24];             /* ibv_devinfo "InfiniBand (0)" */
	char netdev[32];                /* sysfs device/net or ibdev2netdev */
	int nports_declared;            /* "Number of ports"/phys_port_cnt; -1 */
	int nports;
	struct probe_rdma_port port[PROBE_MAX_PORTS];
	char net_master[32];            /* sysfs: bond netdev is enslaved to, "" */
	char pci_path[160];             /* sysfs: physical path of device, "" */
};

/* One list per source: sysfs, ibstat, ibstatus, ibv_devinfo, ibdev2netdev. */
struct probe_rdma_list {
	struct probe_src src;
	int ndevs;
	int dropped;                    /* devices beyond PROBE_MAX_RDMA_DEVS */
	int no_devices;                 /* tool said "No IB devices found" */
	int truncated;                  /* last device cut short (excerpt/panic) */
	/* Owned, grown as devices are listed (most lists hold a handful of
	 * the 32 allowed): ndevs used of devcap allocated. */
	struct probe_rdma_dev *dev;
	int devcap;
};

/* A new all-zero device at the end of l (grows dev), NULL when
 * PROBE_MAX_RDMA_DEVS are listed already; the caller counts dropped. */
struct probe_rdma_dev *probe_rdma_dev_add(struct probe_rdma_list *l);

/* /dev/infiniband (A1). */
struct probe_dev_ib {
	struct probe_src src;           /* ABSENT: no /dev/infiniband */
	int n_uverbs;                   /* uverbsN character devices */
	int rdma_cm;                    /* /dev/infiniband/rdma_cm present */
	int n_umad;
};

/* The userspace verbs stack in the image (A5's file source): libibverbs
 * and rdma-core's providers, "mlx5" for libmlx5-rdmav34.so. */
#define PROBE_MAX_VERBS_PROVIDERS 24
struct probe_verbs_libs {
	struct probe_src src;           /* ABSENT: none of it found */
	char lib[256];                  /* path of libibverbs.so.1; "" none */
	int nproviders;
	char provider[PROBE_MAX_VERBS_PROVIDERS][24];
};

/* A provider for driver family drv ("mlx5", "efa") is installed. */
int probe_verbs_has_provider(const struct probe_verbs_libs *v, const char *drv);

/* ---- Kernel modules and GPUDirect plumbing (B1-B3, C1) ------------- */

enum probe_module {
	PROBE_MOD_NVIDIA = 0,
	PROBE_MOD_NVIDIA_PEERMEM,
	PROBE_MOD_NV_PEER_MEM,
	PROBE_MOD_GDRDRV,
	PROBE_MOD_EFA,
	PROBE_MOD_IB_CORE,
	PROBE_MOD_IB_UVERBS,
	PROBE_MOD_MLX5_IB,
	PROBE_MOD_MLX5_CORE,
	PROBE_MOD_NVIDIA_UVM,
	PROBE_MOD_NVIDIA_FS,
	PROBE_MOD_COUNT,
};

const char *probe_module_name(enum probe_module m);

struct probe_modules {
	struct probe_src proc_src;      /* /proc/modules (or lsmod text) */
	struct probe_src sys_src;       /* /sys/module/<name> */
	int loaded[PROBE_MOD_COUNT];    /* 1 loaded, 0 not seen */
	int live[PROBE_MOD_COUNT];      /* /proc/modules state "Live" */
	int in_proc[PROBE_MOD_COUNT];   /* seen in /proc/modules (or as a user) */
	int in_sys[PROBE_MOD_COUNT];    /* /sys/module/<name> exists */
	char version[PROBE_MOD_COUNT][24]; /* /sys/module/<m>/version */
	/* /sys/kernel/mm/memory_peers (legacy peer-memory API). */
	struct probe_src peers_src;     /* ABSENT: directory missing */
	int nv_mem_peer;                /* memory_peers/nv_mem present */
	char nv_mem_version[24];
	/* /dev/gdrdrv and /proc/devices. */
	struct probe_src gdrdrv_src;
	int gdrdrv_dev;                 /* /dev/gdrdrv is a char device */
	int gdrdrv_in_proc_devices;     /* -1 unknown */
};

/* /proc/driver/nvidia/version (B2, H6). */
struct probe_nvdriver {
	struct probe_src src;
	int open_module;                /* 1 open, 0 proprietary, -1 unknown */
	char version[32];               /* "535.161.08" */
};

/* /dev/nvidiactl and /dev/nvidiaN (H6: the driver's device nodes, which
 * the NVIDIA container runtime mounts into every GPU container). */
struct probe_nvdev {
	struct probe_src src;           /* ABSENT: no /dev/nvidiactl */
	int nvidiactl;                  /* 1 character device */
	int ngpu_nodes;                 /* /dev/nvidiaN character devices; -1 */
};

/* ---- GPUs, topology, NVLink, fabric (D, B4, H6-H7) ----------------- */

#define PROBE_MAX_GPUS 16
#define PROBE_MAX_NICS 32
#define PROBE_MAX_NVLINKS 24

enum probe_fabric_state {
	PROBE_FABRIC_UNKNOWN = 0,       /* not reported */
	PROBE_FABRIC_NA,                /* "N/A" (PCIe boards; SKIP) */
	PROBE_FABRIC_NOT_STARTED,
	PROBE_FABRIC_IN_PROGRESS,
	PROBE_FABRIC_COMPLETED,
	PROBE_FABRIC_OTHER,
};

struct probe_gpu {
	char bus_id[24];                /* "00000000:19:00.0" */
	char name[64];                  /* "NVIDIA H100 80GB HBM3" */
	char uuid[48];
	enum probe_fabric_state fabric_state;
	char fabric_state_str[32];      /* as printed */
	char fabric_status[40];         /* "Success", "N/A", ... */
	char clique_id[24];
	char cluster_uuid[48];
	char health_summary[32];        /* "Healthy", "Unhealthy", "" */
	char health_bandwidth[32];      /* "Full", "" */
};

/* nvidia-smi -q (filtered in the pod to the lines below). */
struct probe_nvsmi {
	struct probe_src src;
	char driver_version[32];
	char cuda_version[16];
	int attached;                   /* "Attached GPUs"; -1 not reported */
	int ngpus;
	int dropped;
	struct probe_gpu gpu[PROBE_MAX_GPUS];
};

enum probe_topo_link {
	PROBE_TOPO_UNKNOWN = 0,
	PROBE_TOPO_SELF,                /* X */
	PROBE_TOPO_NV,                  /* NV#, count in .nv */
	PROBE_TOPO_PIX,
	PROBE_TOPO_PXB,
	PROBE_TOPO_PHB,
	PROBE_TOPO_NODE,
	PROBE_TOPO_SYS,
};

struct probe_topo_cell {
	unsigned char link;             /* enum probe_topo_link */
	unsigned char nv;               /* number of bonded NVLinks for NV# */
};

/* nvidia-smi topo -m. */
struct probe_topo {
	struct probe_src src;
	int ngpus;                      /* GPU columns in the header */
	int nnics;                      /* NIC columns in the header */
	int gpu_rows;                   /* GPU rows actually printed */
	char nic_name[PROBE_MAX_NICS][32]; /* NIC Legend ("mlx5_0"), else "NIC0" */
	struct probe_topo_cell gpu_gpu[PROBE_MAX_GPUS][PROBE_MAX_GPUS];
	struct probe_topo_cell gpu_nic[PROBE_MAX_GPUS][PROBE_MAX_NICS];
	char cpu_affinity[PROBE_MAX_GPUS][48];
	int numa[PROBE_MAX_GPUS];       /* -1 when N/A or absent; the first node
					 * of a list ("0,3-9,11-17" on GB200) */
	/* "GPU NUMA ID": the GPU's own memory is a NUMA node, as on Grace
	 * (GH200, GB200: the GPU reaches its CPU by NVLink-C2C); -1 N/A. */
	int gpu_numa[PROBE_MAX_GPUS];
};

const char *probe_topo_link_name(enum probe_topo_link l);

struct probe_nvlink_gpu {
	int index;
	char name[64];
	int nlinks;
	double speed_gbs[PROBE_MAX_NVLINKS]; /* GB/s; 0 when <inactive> */
	int inactive[PROBE_MAX_NVLINKS];
	int n_inactive;
};

/* nvidia-smi nvlink --status.  Empty output on PCIe boards (ngpus 0). */
struct probe_nvlink {
	struct probe_src src;
	int ngpus;
	int dropped;
	struct probe_nvlink_gpu gpu[PROBE_MAX_GPUS];
};

/* The most common active link speed of one GPU (the "nominal" one the
 * degraded links are compared with); 0 when it has no active link. */
double probe_nvlink_mode_speed(const struct probe_nvlink_gpu *g);

/* ---- UCX (E1-E5): facts_ucx.h ---------------------------------------- */
#include "facts_ucx.h"

/* ---- libfabric / EFA (G2, G3) --------------------------------------- */

#define PROBE_MAX_FI 32

struct probe_fi_entry {
	char provider[32];              /* "efa", "efa;ofi_rxd" */
	char fabric[64];
	char domain[40];                /* "efa_0-rdm", "rdmap79s0-rdm" */
	char version[16];
	char type[24];                  /* "FI_EP_RDM" */
	char protocol[24];
};

struct probe_fi {
	struct probe_src src;           /* fi_info -p efa (FI_LOG_LEVEL=warn) */
	struct probe_src hmem_src;      /* fi_info -p efa -c FI_HMEM */
	int nentries, dropped;
	struct probe_fi_entry entry[PROBE_MAX_FI];
	int n_efa_rdm;                  /* provider exactly "efa", FI_EP_RDM */
	int n_hmem_entries;             /* entries listed with -c FI_HMEM */
	int no_data;                    /* "fi_getinfo: -61" */
	int hmem_p2p_unavailable;       /* log: FI_HMEM_CUDA P2P not available */
	int hmem_cuda_reg_failed;       /* log: failed to register CUDA buffer */
};

/* ---- Limits and capabilities (E5, H1, H2) --------------------------- */

#define PROBE_UNLIMITED (-2LL)

#define PROBE_CAP_IPC_LOCK 14
#define PROBE_CAP_SYS_ADMIN 21
#define PROBE_CAP_SYS_RESOURCE 24

struct probe_limits {
	struct probe_src limits_src;    /* /proc/<pid>/limits */
	struct probe_src status_src;    /* /proc/<pid>/status */
	long long memlock_soft;         /* bytes, PROBE_UNLIMITED, -1 unknown */
	long long memlock_hard;
	int have_caps;                  /* CapEff was read */
	uint64_t cap_eff, cap_prm, cap_bnd;
	int ipc_lock;                   /* CapEff bit 14 */
	int sys_resource;               /* CapEff bit 24 */
	int sys_admin;                  /* CapEff bit 21 */
};

/* ---- NIXL (F1, F2) -------------------------------------------------- */

#define PROBE_MAX_NIXL_PLUGINS 32

/* The NIXL distributions pip can hold: the meta package and the CUDA
 * builds it installs (since 1.1.0 both, ai-dynamo/nixl#1705). */
enum probe_nixl_dist {
	PROBE_NIXL_DIST_NIXL = 0,       /* "nixl" */
	PROBE_NIXL_DIST_CU12,           /* "nixl-cu12" */
	PROBE_NIXL_DIST_CU13,           /* "nixl-cu13" */
	PROBE_NIXL_DIST_COUNT,
};

enum probe_nixl_tool {
	PROBE_NIXL_TOOL_NIXLBENCH = 0,
	PROBE_NIXL_TOOL_NIXL_EXAMPLE,
	PROBE_NIXL_TOOL_KVBENCH,
	PROBE_NIXL_TOOL_UCX_PERFTEST,   /* UCX's own pairwise test */
	PROBE_NIXL_TOOL_COUNT,
};

struct probe_nixl {
	struct probe_src plugins_src;   /* plugin directories listing */
	struct probe_src tools_src;
	struct probe_src python_src;    /* python3 -c 'import nixl' */
	struct probe_src versions_src;  /* /opt/dynamo/nixl-versions.txt */
	char prefix[256];               /* NIXL_PREFIX */
	char plugin_dir[256];           /* first directory that had plugins */
	int nplugins, plugins_dropped;
	char plugin[PROBE_MAX_NIXL_PLUGINS][48]; /* "libplugin_UCX.so" */
	int tool[PROBE_NIXL_TOOL_COUNT];/* 1 on PATH */
	int python_ok;                  /* import worked */
	char python_version[32];        /* distribution version, "0.9.0" */
	char python_dist[24];           /* "nixl", "nixl-cu12" */
	char python_module[256];        /* nixl.__file__ */
	/* Each distribution's version ("" not installed), from the version=
	 * lines, which the probe prints before it imports nixl: an import
	 * that fails still shows what is installed. */
	char dist_version[PROBE_NIXL_DIST_COUNT][32];
	char **version_lines;           /* nixl-versions.txt, owned */
	size_t nversion_lines;
	/* A pip wheel's plugin directory (site-packages/.nixl_cu12.mesonpy.libs/
	 * plugins or nixl_cu12.libs/nixl), from the shell's fixed globs or
	 * the python section; "" when no wheel layout was seen. */
	char wheel_dir[256];
	/* TensorRT-LLM's own NIXL (tensorrt_llm/libs/nixl/plugins, beside its
	 * libnixl.so): driven from C++, no Python package needed; "" none. */
	char cpp_dir[256];
};

/* Plugin "libplugin_UCX.so" listed?  name is "UCX", "LIBFABRIC", ... */
int probe_nixl_has_plugin(const struct probe_nixl *n, const char *name);

/* ---- UCX transport modules (E3, second source) ----------------------- */

#define PROBE_MAX_UCX_MODULES 32

enum probe_ucx_mod_dir {
	PROBE_UCXMOD_NONE = 0,
	PROBE_UCXMOD_LIBUCS,            /* dirname(libucs from ldd)/ucx */
	PROBE_UCXMOD_WHEEL,             /* the NIXL wheel's bundled NAME.libs/ucx */
	PROBE_UCXMOD_ENV,               /* UCX_MODULE_DIR */
};

/* The modules UCX's loader will find (libuct_ib.so, libuct_cuda.so, ...),
 * for images that ship no ucx_info.  Names are cut at ".so". */
struct probe_ucx_modules {
	struct probe_src src;
	char dir[256];                  /* first directory listed */
	enum probe_ucx_mod_dir kind;    /* ... and where it came from */
	int nmods, dropped;
	char mod[PROBE_MAX_UCX_MODULES][40]; /* "libuct_ib_mlx5" */
	int ib;                         /* libuct_ib or libuct_ib_mlx5 */
	int cuda;                       /* libuct_cuda (cuda_copy, cuda_ipc) */
	int gdrcopy;                    /* libuct_cuda_gdrcopy */
};

/* ---- Transport environment (I) --------------------------------------- */

struct probe_env_var {
	char *name;                     /* owned */
	char *value;                    /* owned */
	/* owned; the Secret the value is or may be from (run/mask.h sets it
	 * from the pod spec before the checks judge the real value, and masks
	 * value after them); NULL when from no Secret. */
	char *secret;
	/* owned; set by run/mask.h when it masks value: the SHA-256 (hex) of
	 * the real value, so that P3 compares it with the DGD's without
	 * keeping it (checks.md P3); NULL otherwise. */
	char *digest;
};

/* /proc/1/environ, filtered in the pod to transport prefixes. */
struct probe_env {
	struct probe_src src;
	size_t n;
	struct probe_env_var *var;      /* owned array of n */
	size_t dropped, cut;            /* past PROBE_MAX_ENV; values cut */
};
/* Past either cap the section is FAILED with the reason (facts.c h_env). */
#define PROBE_MAX_ENV 512
#define PROBE_MAX_ENV_VALUE 4096

/* Frees the variables (n and var become 0 and NULL; src is kept). */
void probe_env_release(struct probe_env *env);
/* Value of NAME, or NULL when unset. */
const char *probe_env_get(const struct probe_env *env, const char *name);

/* ---- Kernel ----------------------------------------------------------- */

struct probe_kernel {
	struct probe_src src;
	char release[64];               /* "5.15.0-105-generic" */
	int major, minor;               /* -1 when unknown */
};

/* ---- Host PCI inventory, /dev/shm, hugepages, NIXL's UCX (A8, H3, H4, E1) */

/* /sys/bus/pci/devices (the host's: sysfs PCI is not namespaced), as NIXL
 * counts them (hw_info.cpp). */
struct probe_pci {
	struct probe_src src;
	int ndevs;                      /* devices looked at, all vendors */
	int truncated;                  /* the probe stopped at its cap */
	int n_ib;                       /* Mellanox 0x15b3, class 0x0207xx */
	int n_mlx_eth;                  /* Mellanox, class 0x0200xx (RoCE) */
	int n_efa;                      /* Amazon 0x1d0f, device 0xefa0-3 */
	int n_gpu;                      /* NVIDIA 0x10de, class 0x0300/0x0302 */
	/* The GPUs' physical sysfs paths (E7 without topo -m), in bus order. */
	int n_gpu_paths;
	char gpu_path[PROBE_MAX_GPUS][160];
};

/* The machine's identity (checks.md B7): /sys/class/dmi/id sys_vendor and
 * product_name (src OK when either was read) and the "hypervisor" CPU flag
 * of /proc/cpuinfo (1, 0, -1 not read: no such line on non-x86). */
struct probe_vm {
	struct probe_src src;
	char sys_vendor[64];            /* "" when not read */
	char product_name[96];
	int cpu_hypervisor;
	/* 1: /proc/cpuinfo is arm64's ("Features", no "flags" line): it has
	 * no hypervisor flag to read, DMI alone tells a VM. */
	int cpu_arm64;
};

/* df -Pk /dev/shm, else the size= of its mount ("mount=FSTYPE OPTIONS"
 * lines from /proc/self/mounts). */
struct probe_shm {
	struct probe_src src;
	long long size_kb, avail_kb;    /* -1 when not reported */
	int tmpfs_default;              /* tmpfs without size=: half of memory */
};

/* /proc/meminfo, filtered in the pod to MemTotal and the hugepage lines. */
struct probe_meminfo {
	struct probe_src src;
	long long mem_total_kb;         /* -1 when not reported */
	long long hp_total, hp_free;
	long long hp_size_kb;
};

enum probe_ucx_lib { PROBE_UCXLIB_UCP = 0, PROBE_UCXLIB_UCT, PROBE_UCXLIB_UCS,
		     PROBE_UCXLIB_COUNT };

/* ldd of NIXL's libplugin_UCX.so (ABSENT: no plugin found or no ldd). */
struct probe_ucx_ldd {
	struct probe_src src;
	char plugin[256];               /* the plugin's path, "" when none */
	char lib[PROBE_UCXLIB_COUNT][256]; /* resolved path, "" not listed */
	int not_found[PROBE_UCXLIB_COUNT]; /* "libucp.so.0 => not found" */
};

/* ---- The NIXL/UCX copies the loader can take (F6-F8): facts_stack.h -- */
#include "facts_stack.h"
/* ---- Engine config files (J9, SGLang --config): facts_engine.h ------ */
#include "facts_engine.h"
#include "facts_model.h"
#include "facts_versions.h"
#include "facts_counters.h"
#include "facts_pcie.h"
#include "facts_cost.h"

/* ---- IPv4 addresses and routes of the pod's netns (A10) ------------- */

#define PROBE_MAX_IP4 32

/* One "ip -o -4 addr show" address or "ip -4 route show" route. */
struct probe_ip4 {
	char dev[32];
	uint32_t addr;                  /* address / destination, host order */
	int plen;                       /* prefix length 0-32 (default: 0) */
	uint32_t via;                   /* route gateway, 0 for a connected route */
};

struct probe_ipnet {
	struct probe_src addr_src, route_src;
	struct probe_src proc_route_src;  /* /proc/net/route, read when ip is absent */
	int naddrs, nroutes, dropped;
	struct probe_ip4 addr[PROBE_MAX_IP4];
	struct probe_ip4 route[PROBE_MAX_IP4];
};

/* ---- The whole pod ---------------------------------------------------- */

/* Section mooncake_dist (A9): the pip-installed Mooncake transfer engine,
 * from site-packages/mooncake_transfer_engine*.dist-info.  The first
 * distribution with a version wins; "" when none was found. */
struct probe_mooncake {
	struct probe_src src;
	char dist[64];                  /* "mooncake_transfer_engine-0.3.12.dist-info" */
	char version[32];               /* METADATA's Version:, else the name's */
	int ndists;                     /* dist-info directories listed */
	struct probe_engine_dists engines;  /* every engine wheel listed (issue 41) */
};

struct probe_facts {
	int version;                    /* report format version (1) */
	int complete;                   /* the report ended with its done line */
	char timeout_mode[16];          /* "coreutils", "busybox", "none" */
	struct probe_kernel kernel;
	struct probe_nvdriver nvdriver;
	struct probe_nvdev nvdev;
	struct probe_rdma_list sysfs_ib;    /* /sys/class/infiniband */
	struct probe_rdma_list ibstat;
	struct probe_rdma_list ibstatus;
	struct probe_rdma_list ibv_devinfo;
	struct probe_rdma_list ibdev2netdev;
	struct probe_dev_ib dev_ib;
	struct probe_verbs_libs verbs_libs;
	struct probe_modules modules;
	struct probe_nvsmi nvsmi;
	struct probe_topo topo;
	struct probe_nvlink nvlink;
	struct probe_ucx ucx;
	struct probe_fi fi;
	struct probe_limits limits_self;    /* the probe's own shell */
	struct probe_limits limits_pid1;    /* the container's main process */
	struct probe_nixl nixl;
	struct probe_env env;
	struct probe_pci pci;
	struct probe_vm vm;
	struct probe_shm shm;
	struct probe_meminfo meminfo;
	struct probe_ucx_ldd nixl_ucx_ldd;
	struct probe_ucx_modules ucx_modules;
	struct probe_stack stack;           /* F6-F8 */
	struct probe_ipnet ipnet;
	struct probe_trtllm_engine trtllm_engine;  /* J9 */
	struct probe_sglang_config sglang_config;  /* issue 38 */
	struct probe_model_config model_config;    /* issue 41 */
	struct probe_mooncake mooncake;
	struct probe_versions versions;      /* issue 43 */
	struct probe_counters counters;            /* check --observe, issue 45 */
	struct probe_pcie pcie;                    /* link health, issue 45 point 3 */
	struct probe_counters port_now;            /* one sample, every check (O6) */
	struct probe_cost cost;                    /* the probe's own, issue 46 */
};

/* init: everything NOT_LOOKED and empty; release: frees the heap fields
 * and re-inits.  new/free for callers that keep many (the struct is
 * ~30 KiB: do not put it on a small stack). */
void probe_facts_init(struct probe_facts *f);
void probe_facts_release(struct probe_facts *f);
struct probe_facts *probe_facts_new(void);
void probe_facts_free(struct probe_facts *f);

/* Parses a whole probe report (report.h) into f, which must have been
 * initialised.  -1 with e set (ERR_PROTOCOL) when the text is not a
 * probe report or has a version this build does not understand; f is then
 * left initialised and empty.  Sections it does not know are ignored. */
int probe_parse_report(const char *text, size_t len, struct probe_facts *f,
		       struct err *e);

/* ---- One parser per tool output: facts_parse.h ------------------------ */
#include "facts_parse.h"

#endif
