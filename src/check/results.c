/* The check table (names, families, ranks), the result list, and the
 * emit helpers every family appends with.  Calls no family: the families
 * and the driver (check.c) call down into it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/internal.h"
#include "model/podspec.h"
#include "model/envrules.h"
#include "probe/facts.h"
#include "util/xalloc.h"

/* Rank order follows checks.md N and product.md: a pod that cannot see an
 * RDMA device can fix nothing else first; then ports, then what makes UCX
 * drop RDMA (memlock, transports, UCX_TLS), then GPUDirect, then NIXL,
 * then degradations.  Ranks are spaced so new checks slot in. */
static const struct check_def defs[CK__COUNT] = {
	[CK_POD_PROBE] = { "pod-probe", FAM_POD, 5,
		"the in-pod probe ran and its report parsed",
		"make the pod Running and allow exec into its container" },
	[CK_LIMITS_GPUS] = { "limits-gpus", FAM_LIMITS, 8,
		"GPUs visible in the container (H7)",
		"request nvidia.com/gpu for the worker container and check the NVIDIA driver/device plugin" },
	[CK_RDMA_DEVICES] = { "rdma-devices", FAM_RDMA, 10,
		"RDMA devices in /sys/class/infiniband and uverbs nodes in /dev/infiniband (A1)",
		"request an RDMA resource (rdma/ib, rdma/hca_shared_devices_a or a DRA claim) so the device plugin mounts /dev/infiniband" },
	[CK_EFA_DEVICES] = { "efa-devices", FAM_EFA, 11,
		"EFA devices and uverbs nodes in the pod (G1)",
		"request vpc.amazonaws.com/efa for the worker container (EFA device plugin)" },
	[CK_POD_RDMA_RESOURCE] = { "pod-rdma-resource", FAM_POD, 12,
		"the worker requests an RDMA/EFA resource or DRA claim (M3, J1)",
		"add an RDMA resource limit (e.g. rdma/ib: 1, vpc.amazonaws.com/efa) or a DRA resourceClaim to the worker container" },
	[CK_RDMA_PORTS] = { "rdma-ports", FAM_RDMA, 20,
		"ports in use are ACTIVE/LinkUp (A2, A4)",
		"bring the port up: check cable/transceiver and switch, and on InfiniBand that a subnet manager (opensm/UFM) runs" },
	[CK_RDMA_PCI] = { "rdma-pci", FAM_RDMA, 13,
		"the node's PCI RDMA NICs (IB/ConnectX/EFA) reach the pod when it has none (A8)",
		"request an RDMA resource (rdma/ib, rdma/hca_shared_devices_a, vpc.amazonaws.com/efa or a DRA claim) so the NICs the node has reach the pod" },
	[CK_RDMA_VERBS] = { "rdma-verbs", FAM_RDMA, 22,
		"userspace verbs open the devices (ibv_devinfo, A5, G5)",
		"install the verbs provider for the NIC in the image (libmlx5 / libefa from rdma-core matching libibverbs)" },
	[CK_EFA_PROVIDER] = { "efa-provider", FAM_EFA, 24,
		"libfabric efa provider offers FI_EP_RDM, libfabric >= 1.21 (G2)",
		"install the AWS EFA libfabric (>= 1.21) in the image and make fi_info -p efa list FI_EP_RDM endpoints" },
	[CK_LIMITS_MEMLOCK] = { "limits-memlock", FAM_LIMITS, 25,
		"max locked memory unlimited or CAP_IPC_LOCK (E5, H1)",
		"add securityContext.capabilities.add: [IPC_LOCK] or set memlock to unlimited in the container runtime (ulimit -l unlimited)" },
	[CK_POD_IPC_LOCK] = { "pod-ipc-lock", FAM_POD, 27,
		"pod spec adds IPC_LOCK or runs privileged (M4)",
		"add securityContext.capabilities.add: [IPC_LOCK] to the worker container" },
	[CK_UCX_RDMA] = { "ucx-rdma", FAM_UCX, 28,
		"UCX offers an RDMA transport (rc/dc/ud) on the NICs (E3)",
		"use a UCX built with verbs/mlx5 (ucx_info -d must list rc_mlx5/dc_mlx5), e.g. the UCX bundled with NIXL or HPC-X" },
	[CK_ENV_UCX_TLS] = { "env-ucx-tls", FAM_ENV, 30,
		"effective UCX_TLS keeps RDMA and CUDA transports (I, E4)",
		"unset UCX_TLS or set UCX_TLS=rc_x,rc,dc_x,dc,cuda_copy,cuda_ipc" },
	[CK_ENV_UCX_NET_DEVICES] = { "env-ucx-net-devices", FAM_ENV, 31,
		"UCX_NET_DEVICES names RDMA devices that exist and are up (I, E4)",
		"unset UCX_NET_DEVICES or set it to the Active HCA ports, e.g. mlx5_0:1,mlx5_1:1" },
	[CK_ENV_FI] = { "env-fi", FAM_ENV, 33,
		"FI_PROVIDER / FI_EFA_* keep the EFA device path (env-vars 4)",
		"unset FI_PROVIDER (or set FI_PROVIDER=efa) and FI_EFA_USE_DEVICE_RDMA (or set it to 1)" },
	[CK_UCX_CUDA] = { "ucx-cuda", FAM_UCX, 35,
		"UCX has cuda_copy and cuda_ipc transports (E3)",
		"install UCX's CUDA module (ucx-cuda / libuct_cuda.so) or a UCX built --with-cuda; ucx_info -d must list cuda_copy" },
	[CK_GPUDIRECT_PEERMEM] = { "gpudirect-peermem", FAM_GPUDIRECT, 40,
		"GPUDirect RDMA via nvidia_peermem/memory_peers or DMA-BUF (B1, B2)",
		"load nvidia_peermem (modprobe nvidia_peermem, or GPU Operator driver.rdma.enabled=true) or use the open kernel module on kernel >= 5.12 for DMA-BUF" },
	[CK_EFA_HMEM] = { "efa-hmem", FAM_EFA, 41,
		"libfabric can register CUDA memory with EFA (FI_HMEM, G3)",
		"use an EFA driver/libfabric with CUDA P2P support (efa_nv_peermem or DMA-BUF) on this instance type" },
	[CK_GPUDIRECT_UCX_MD] = { "gpudirect-ucx-md", FAM_GPUDIRECT, 42,
		"UCX's IB memory domains accept cuda memory (B1b)",
		"make GPUDirect RDMA work for UCX: load nvidia_peermem or enable DMA-BUF, and use a UCX >= 1.14 built with CUDA" },
	[CK_ENV_UCX_GPUDIRECT] = { "env-ucx-gpudirect", FAM_ENV, 43,
		"UCX_IB_GPU_DIRECT_RDMA / UCX_CUDA_COPY_DMABUF do not disable GPUDirect (env-vars 1)",
		"unset UCX_IB_GPU_DIRECT_RDMA and UCX_CUDA_COPY_DMABUF (defaults are try)" },
	[CK_NIXL_INSTALLED] = { "nixl-installed", FAM_NIXL, 45,
		"NIXL is installed and importable (F1)",
		"use an image with NIXL (pip install nixl[cu12] or the Dynamo runtime image)" },
	[CK_NIXL_PLUGIN] = { "nixl-plugin", FAM_NIXL, 46,
		"the NIXL backend plugin for the fabric is present (F2)",
		"ship libplugin_UCX.so (or libplugin_LIBFABRIC.so on EFA) in NIXL_PLUGIN_DIR" },
	[CK_NIXL_BACKEND] = { "nixl-backend", FAM_NIXL, 47,
		"NIXL backend fits the fabric: LIBFABRIC on EFA, UCX on IB/RoCE (G4)",
		"on EFA use the NIXL LIBFABRIC backend (kv_connector_extra_config.backends=[\"LIBFABRIC\"])" },
	[CK_ENV_UCX_RNDV] = { "env-ucx-rndv", FAM_ENV, 48,
		"UCX rendezvous settings safe for the fabric (G4, env-vars 1)",
		"on EFA with UCX use UCX_RNDV_SCHEME=auto and UCX_RNDV_THRESH=8192" },
	[CK_UCX_VERSION] = { "ucx-version", FAM_UCX, 55,
		"UCX version and build flags (E2): >= 1.14 with CUDA and verbs",
		"use UCX >= 1.14 built --with-cuda --with-verbs (NIXL is tested with 1.18+)" },
	[CK_UCX_NIXL_LIB] = { "ucx-nixl-lib", FAM_UCX, 56,
		"NIXL's UCX plugin links the UCX that ucx_info describes (E1)",
		"keep one UCX in the image: remove the second install or point LD_LIBRARY_PATH at the UCX NIXL was built with" },
	[CK_ENV_NCCL_NET] = { "env-nccl-net", FAM_ENV, 60,
		"NCCL not forced off IB/GDR (NCCL_IB_DISABLE, NCCL_NET, NCCL_NET_GDR_LEVEL)",
		"unset NCCL_IB_DISABLE, NCCL_NET=Socket and NCCL_NET_GDR_LEVEL=LOC" },
	[CK_ENV_NCCL_P2P] = { "env-nccl-p2p", FAM_ENV, 62,
		"NCCL P2P (NVLink) not disabled (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL)",
		"unset NCCL_P2P_DISABLE and NCCL_P2P_LEVEL" },
	[CK_ENV_DRIFT] = { "env-drift", FAM_ENV, 63,
		"the running process's transport env matches the recipe and the pod spec (J, --recipe)",
		"redeploy from the recipe, or update the recipe to what the workers really run with" },
	/* Rules of the env rule book (model/envrules.c) a live pod gained. */
	[CK_ENV_UCX_PROTO] = { "env-ucx-proto", FAM_ENV, 49,
		"UCX_PROTO_ENABLE / UCX_WARN_UNUSED_ENV_VARS keep UCX's defaults (env-vars 1)",
		"unset UCX_PROTO_ENABLE and UCX_WARN_UNUSED_ENV_VARS (defaults are y)" },
	[CK_ENV_UCX_ROCE] = { "env-ucx-roce", FAM_ENV, 64,
		"UCX addressing reaches other pods on InfiniBand/RoCE (UCX_IB_ADDR_TYPE, UCX_IB_ROCE_LOCAL_SUBNET)",
		"set UCX_IB_ADDR_TYPE=eth (RoCE) or ib_global and unset UCX_IB_ROCE_LOCAL_SUBNET" },
	[CK_ENV_MNNVL] = { "env-mnnvl", FAM_ENV, 67,
		"multi-node NVLink settings match a ComputeDomain claim (UCX_CUDA_IPC_ENABLE_MNNVL, NCCL_MNNVL_ENABLE)",
		"claim a ComputeDomain (IMEX channel) for the workers, or unset the MNNVL variables" },
	[CK_ENV_NCCL_SHM] = { "env-nccl-shm", FAM_ENV, 61,
		"NCCL's shared-memory transport not disabled (NCCL_SHM_DISABLE)",
		"unset NCCL_SHM_DISABLE" },
	[CK_ENV_NCCL_CUMEM] = { "env-nccl-cumem", FAM_ENV, 61,
		"NCCL's cuMem allocations not disabled (NCCL_CUMEM_ENABLE)",
		"unset NCCL_CUMEM_ENABLE" },
	[CK_RDMA_ROCE] = { "rdma-roce", FAM_RDMA, 65,
		"RoCE: RoCE v2 GID at the configured index, MTU (A5, A6, A7)",
		"unset UCX_IB_GID_INDEX/NCCL_IB_GID_INDEX or point them at the RoCE v2 GID; raise the netdev MTU to >= 4200" },
	[CK_NVLINK_IMEX] = { "nvlink-imex", FAM_NVLINK, 66,
		"multi-node NVLink has an IMEX channel when UCX relies on it (D4)",
		"attach a ComputeDomain resourceClaim (IMEX channel) or allow RDMA transports in UCX_TLS" },
	[CK_NVLINK_FABRIC] = { "nvlink-fabric", FAM_NVLINK, 68,
		"NVSwitch fabric registration Completed/Success and healthy (D3)",
		"start/repair NVIDIA Fabric Manager on the node (systemctl status nvidia-fabricmanager)" },
	[CK_NVLINK_LINKS] = { "nvlink-links", FAM_NVLINK, 70,
		"NVLink links active at full speed (D1, D2)",
		"drain the node and have the NVLink/NVSwitch hardware checked (inactive or slow links)" },
	[CK_RDMA_RATE] = { "rdma-rate", FAM_RDMA, 72,
		"Active ports run at the expected rate (A3)",
		"reseat or replace the cable/transceiver and check port auto-negotiation" },
	[CK_GPUDIRECT_AFFINITY] = { "gpudirect-affinity", FAM_GPUDIRECT, 74,
		"each GPU has an RDMA NIC at PIX/PXB (B4)",
		"align GPU and NIC allocation (topology-aware device plugin / DRA) so each GPU gets a PIX/PXB NIC" },
	[CK_LIMITS_DRIVER] = { "limits-driver", FAM_LIMITS, 76,
		"kernel >= 5.12 and the NVIDIA open kernel module for DMA-BUF (H5, H6)",
		"use kernel >= 5.12 with the NVIDIA open kernel module (GPU Operator driver.kernelModuleType=open)" },
	[CK_POD_SHM] = { "pod-shm", FAM_POD, 80,
		"/dev/shm large enough for UCX/NCCL shared memory (H3)",
		"mount a memory emptyDir at /dev/shm with sizeLimit of several GiB" },
	[CK_LIMITS_SHM] = { "limits-shm", FAM_LIMITS, 81,
		"/dev/shm in the container is large enough for UCX/NCCL shared memory (H3, df)",
		"mount a memory emptyDir at /dev/shm with sizeLimit of several GiB (docker: --shm-size)" },
	[CK_POD_HOST_IPC] = { "pod-host-ipc", FAM_POD, 82,
		"EFA pods run with hostIPC for the shm provider",
		"set hostIPC: true on EFA worker pods (or FI_EFA_ENABLE_SHM_TRANSFER=0)" },
	[CK_LIMITS_HUGEPAGES] = { "limits-hugepages", FAM_LIMITS, 84,
		"EFA: free hugepages for the EFA provider, or FI_EFA_USE_HUGE_PAGE=0 (H4)",
		"reserve hugepages on EFA nodes (vm.nr_hugepages, e.g. 5128 x 2 MiB) or set FI_EFA_USE_HUGE_PAGE=0" },
	[CK_GDRCOPY_DRIVER] = { "gdrcopy-driver", FAM_GDRCOPY, 90,
		"gdrdrv loaded and /dev/gdrdrv in the pod (C1)",
		"install GDRCopy's gdrdrv on the node (GPU Operator gdrcopy.enabled=true) and mount /dev/gdrdrv" },
	[CK_GDRCOPY_UCX] = { "gdrcopy-ucx", FAM_GDRCOPY, 92,
		"UCX has the gdr_copy transport (C2)",
		"put libgdrapi.so on the library path and mount /dev/gdrdrv so UCX loads gdr_copy" },
	/* Log evidence (check/logs.c): what the worker really chose.  Ranked
	 * after the causes the probe can name, as the log shows the symptom. */
	[CK_LOGS_NIXL] = { "logs-nixl", FAM_LOGS, 94,
		"the worker log shows the NIXL backend instantiated, not a TCP fallback or NIXL_ERR_* (F3, dynamo.md 5.2)",
		"read the worker log around the quoted line and fix the RDMA/UCX checks first" },
	[CK_LOGS_UCX] = { "logs-ucx", FAM_LOGS, 95,
		"the worker log shows UCX on RDMA lanes, not TCP lanes, missing transports or host staging (E6)",
		"read the worker log around the quoted line and fix the RDMA/UCX checks first" },
	[CK_LOGS_LIBFABRIC] = { "logs-libfabric", FAM_LOGS, 96,
		"the worker log shows libfabric reaching GPU memory on EFA (G3)",
		"use an EFA driver/libfabric with CUDA P2P (efa_nv_peermem or DMA-BUF)" },
	[CK_LOGS_NCCL] = { "logs-nccl", FAM_LOGS, 97,
		"the worker log shows NCCL on NET/IB (GDRDMA), not NET/Socket",
		"give the pod RDMA devices and unset NCCL_IB_DISABLE / NCCL_NET=Socket" },
	[CK_LOGS_READ] = { "logs-read", FAM_LOGS, 98,
		"the main container's log was read and names a transport (extra evidence: a skip does not lower the verdict)",
		"set NIXL_LOG_LEVEL=INFO (and UCX_LOG_LEVEL=info) on the workers so their log names the transport chosen" },
	[CK_TRANSFER] = { "transfer", FAM_TRANSFER, 99,
		"check --transfer: a real ucx_perftest prefill -> decode reaches the fabric's rate on RDMA (K, dynamo.md 5.2)",
		"make UCX use RDMA between the workers: RDMA resource, UCX_TLS with rc/dc (not tcp), UCX_NET_DEVICES on the RDMA ports" },
};

static const char *const status_names[] = { "ok", "warn", "fail", "skipped" };
static const char *const family_names[FAM__COUNT] = {
	"RDMA", "GPUDIRECT", "GDRCOPY", "NVLINK", "UCX", "NIXL", "EFA", "ENV",
	"LIMITS", "POD", "LOGS", "TRANSFER",
};
static const char *const fabric_names[] = {
	"unknown", "infiniband", "roce", "efa", "nvlink", "tcp",
};

const char *check_status_name(enum check_status s)
{
	return (unsigned)s < 4 ? status_names[s] : "?";
}

const char *check_family_name(enum check_family f)
{
	return (unsigned)f < FAM__COUNT ? family_names[f] : "?";
}

const char *fabric_name(enum fabric f)
{
	return (unsigned)f <= FABRIC_TCP ? fabric_names[f] : "unknown";
}

const struct check_def *check_def(const char *name)
{
	for (size_t i = 0; i < CK__COUNT; i++)
		if (!strcmp(defs[i].name, name))
			return &defs[i];
	return NULL;
}

const struct check_def *check_defs(size_t *n)
{
	*n = CK__COUNT;
	return defs;
}

void check_summary_unknown(struct check_summary *s)
{
	s->rdma_usable = s->peermem = s->gdrdrv = s->active_ports = -1;
	s->spec_known = 0;
}

void check_results_init(struct check_results *r)
{
	memset(r, 0, sizeof(*r));
	/* A fresh digest claims nothing about the pod (graph.c). */
	check_summary_unknown(&r->summary);
}

/* A pod has some 40-50 results, kept until the report is printed: grown
 * 8 at a time, the array ends within 8 of its size (1.5x growth left up
 * to 20 unused, ~1 KiB a pod at 1024 pods; issue 16, RSS). */
#define RESULTS_STEP 8

static void results_push(struct check_results *r, const struct check_result *res,
			 char *detail, char *remedy)
{
	if (r->n == r->cap) {
		r->v = xrealloc(r->v, (r->cap + RESULTS_STEP) * sizeof(*r->v));
		r->cap += RESULTS_STEP;
	}
	r->v[r->n] = *res;
	r->v[r->n].detail = detail;
	r->v[r->n].remedy = remedy;
	r->v[r->n].source = NULL;
	r->n++;
}

void check_results_add(struct check_results *r, const struct check_result *res)
{
	results_push(r, res, xstrdup(res->detail ? res->detail : ""),
		     xstrdup(res->remedy));
	r->v[r->n - 1].source = xstrdup(res->source);
}

int check_results_add_def(struct check_results *r, const char *name,
			  enum check_status st, const char *detail,
			  const char *remedy)
{
	const struct check_def *d = check_def(name);
	struct check_result res;

	if (!d)
		return -1;
	memset(&res, 0, sizeof(res));
	res.name = d->name;
	res.family = d->family;
	res.status = st;
	res.rank = d->rank;
	res.detail = (char *)detail;
	res.remedy = (char *)(st == CHECK_OK ? NULL : remedy ? remedy : d->remedy);
	check_results_add(r, &res);
	return 0;
}

void check_results_release(struct check_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].detail);
		free(r->v[i].remedy);
		free(r->v[i].source);
	}
	free(r->v);
	check_results_init(r);
}

const struct check_result *check_results_find(const struct check_results *r,
					      const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return &r->v[i];
	return NULL;
}

/* fail > warn > skipped > ok > not applicable, for a cell: a family with
 * one skipped and one ok result is not shown as a clean pass, but a rule
 * that does not apply here does not hide the ones that passed. */
static int severity(const struct check_result *r)
{
	static const int sev[] = { 1, 3, 4, 2 };

	if (r->flags & CHECK_F_NA)
		return 0;
	return (unsigned)r->status < 4 ? sev[r->status] : 0;
}

int check_results_family_status(const struct check_results *r,
				enum check_family f)
{
	const struct check_result *worst = NULL;
	int applicable = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (r->v[i].family != f)
			continue;
		applicable |= !(r->v[i].flags & CHECK_F_NA);
		if (!worst || severity(&r->v[i]) > severity(worst))
			worst = &r->v[i];
	}
	/* A family that does not apply here (EFA on InfiniBand) is not a
	 * "skipped" the reader must chase: show it as absent. */
	return worst && applicable ? (int)worst->status : -1;
}

static void vemit(struct check_results *out, enum check_id id,
		  enum check_status st, unsigned flags, const char *remedy,
		  const char *fmt, va_list ap)
	__attribute__((format(printf, 6, 0)));

static void vemit(struct check_results *out, enum check_id id,
		  enum check_status st, unsigned flags, const char *remedy,
		  const char *fmt, va_list ap)
{
	struct check_result res = {
		defs[id].name, defs[id].family, st, NULL, NULL, defs[id].rank,
		flags, NULL,
	};
	va_list cp;
	char *detail;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	detail = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	detail[0] = '\0';
	if (n > 0)
		vsnprintf(detail, (size_t)n + 1, fmt, ap);
	if (st == CHECK_OK || (flags & CHECK_F_NA))
		remedy = NULL;
	else if (!remedy)
		remedy = defs[id].remedy;
	results_push(out, &res, detail, xstrdup(remedy));
}

void emit(struct check_results *out, enum check_id id, enum check_status st,
	  const char *remedy, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemit(out, id, st, 0, remedy, fmt, ap);
	va_end(ap);
}

void emit_source(struct check_results *out, const char *source)
{
	struct check_result *last = out->n ? &out->v[out->n - 1] : NULL;

	if (!last || !source || !*source)
		return;
	free(last->source);
	last->source = xstrdup(source);
}

void emit_na(struct check_results *out, enum check_id id, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vemit(out, id, CHECK_SKIPPED, CHECK_F_NA, NULL, fmt, ap);
	va_end(ap);
}
