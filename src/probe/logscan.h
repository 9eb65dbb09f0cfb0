/* Known failure (and success) lines in logs that are not probe output:
 * a worker's own log (NIXL, UCX, NCCL, libfabric), dmesg, gdrcopy_sanity.
 * For the LOGS family: text in, counts out, no I/O.
 *
 * Every pattern lives in the one table in logscan.c; each has a unit test
 * built from a real log line (tests/unit/test_logs.c, test_parsers_ucx.c).
 */
#ifndef PROBE_LOGSCAN_H
#define PROBE_LOGSCAN_H

#include <stddef.h>

enum logsig {
	LOGSIG_PEERMEM_INVALID_CONTEXT = 0, /* nv_get_p2p_free_callback flood (WARN) */
	LOGSIG_PEERMEM_UNKNOWN_SYMBOL,      /* ib_core symbol mismatch (FAIL) */
	LOGSIG_PEERMEM_INSERT_FAILED,       /* modprobe could not insert */
	LOGSIG_UCX_GDR_DISABLED,            /* "cuda GPUDirect RDMA is disabled" */
	LOGSIG_UCX_DMABUF_UNSUPPORTED,      /* dmabuf not supported (cuda or ib) */
	LOGSIG_UCX_TL_UNAVAILABLE,          /* "transport 'x' is not available" */
	LOGSIG_UCX_CUDA_TL_UNAVAILABLE,     /* ... and x is a cuda transport */
	LOGSIG_UCX_GDR_COPY_UNAVAILABLE,
	LOGSIG_UCX_MEMLOCK,                 /* RDMA disabled by memlock limit */
	LOGSIG_UCX_CANNOT_REGISTER_CUDA,    /* "md X cannot register cuda memory" */
	LOGSIG_UCX_NO_IB_PORTS,             /* no compatible IB ports / no tl resources */
	LOGSIG_UCX_NO_CUDA_SUPPORT,         /* NIXL: UCX CUDA support was not found */
	LOGSIG_UCX_NO_ACCEL_IB,             /* NIXL: accelerated IB support not found */
	LOGSIG_UCX_TCP_LANES,               /* worker cfg puts rma on tcp */
	LOGSIG_UCX_RC_LANES,                /* worker cfg puts rma on rc/dc (mlx5, verbs) or srd */
	LOGSIG_UCX_CUDA_IPC_NO_NVLINK,      /* get zcopy disabled, no nvlinks */
	LOGSIG_UCX_HOST_STAGING,            /* put/am/bcopy or 0 lanes selected */
	LOGSIG_NIXL_ERR,                    /* any NIXL_ERR_* status */
	LOGSIG_NIXL_PLUGIN_LOADED,          /* "Discovered and loaded backend plugin" */
	LOGSIG_NIXL_SLOW_INIT_XFER,         /* "Time to init xfer" over 100 ms */
	LOGSIG_NCCL_P2P_FORCED_OFF,         /* NCCL_P2P_LEVEL/DISABLE by env */
	LOGSIG_FI_HMEM_P2P_UNAVAILABLE,
	LOGSIG_FI_CUDA_REG_FAILED,
	LOGSIG_GDRCOPY_SANITY_FAILED,
	LOGSIG_GDRCOPY_SANITY_PASSED,
	LOGSIG_UCX_RDMA_TL_UNAVAILABLE,     /* "transport 'rc_x' is not available" */
	LOGSIG_UCX_NO_RDMA,                 /* "no RDMA transports available" */
	LOGSIG_NIXL_UCX_INSTANTIATED,       /* "Backend UCX was instantiated" */
	LOGSIG_NIXL_LIBFABRIC_LOADED,       /* "Loaded backend plugin: LIBFABRIC" */
	LOGSIG_NIXL_FABRIC_DEVICES,         /* "Found 32 fabric devices" (N > 0) */
	LOGSIG_NIXL_AGENT_BACKEND,          /* TRT-LLM "NixlTransferAgent using NIXL backend: X" */
	LOGSIG_NIXL_TCP_FALLBACK,           /* "falling back to TCP transport" */
	LOGSIG_NIXL_EFA_WITH_UCX,           /* "EFA(s) were detected, but the UCX backend" */
	LOGSIG_NCCL_GDRDMA,                 /* "via NET/IB/0/GDRDMA", GDR enabled (first:
					     * the judge quotes the first good one) */

	LOGSIG_NCCL_NET_IB,                 /* NET/IB with devices, "Using network IB" */
	LOGSIG_NCCL_GDR_DISABLED,           /* "NET/IB : GPU Direct RDMA Disabled" */
	LOGSIG_NCCL_NET_SOCKET,             /* "Using network Socket", "via NET/Socket" */
	LOGSIG_NCCL_SOCKET_INIT,            /* "NET/Socket : Using [0]": also an IB job's
					     * bootstrap; telling only without NET/IB */
	LOGSIG_UCX_VERSION_INCOMPATIBLE,    /* "UCP version is incompatible" / "UCP API
					     * version is incompatible": NIXL built
					     * against another UCX than it loads */
	LOGSIG_NIXL_BACKEND_FAILED,         /* "createBackend: backend creation failed
					     * for 'UCX'" / "unsupported backend": a KV
					     * backend (not a storage one) */
	LOGSIG_NIXL_UCX_WORKER_FAILED,      /* "Failed to create UCX worker" */
	LOGSIG_UCX_GID_QUERY_FAILED,        /* "ibv_query_gid(dev=.. index=N) failed" */
	/* what the engines' pair faults print once traffic starts (issue 41) */
	LOGSIG_KV_HANDSHAKE_FAILED,         /* vLLM "handshake_setup_failed" */
	LOGSIG_KV_COMPAT_HASH,              /* vLLM "NIXL compatibility hash mismatch" */
	LOGSIG_KV_PD_UNSUPPORTED,           /* SGLang "PD Disaggregation does NOT support" */
	LOGSIG_UCX_NO_FABRIC_PROPERTY,      /* cuda_ipc: memory "does not have fabric property" */
	LOGSIG_UCX_SW_EMULATION,            /* UCX_PROTO_INFO "software emulation" */
	LOGSIG_IB_RETRY_EXCEEDED,           /* "transport retry counter exceeded" */
	LOGSIG_IB_LOCAL_PROTECTION,         /* "local protection error" */
	LOGSIG_IB_PORT_ERROR,               /* async event: port error */
	LOGSIG_RDMA_GID_QUERY_FAILED,       /* "Failed to query GID" (Mooncake) */
	LOGSIG_UCX_DEVX_MODIFY_FAILED,      /* "mlx5dv_devx_obj_modify(N) failed" */
	LOGSIG_COUNT,
};

struct logscan {
	unsigned count[LOGSIG_COUNT];
	char first[LOGSIG_COUNT][200];      /* first matching line, trimmed */
	char nixl_plugins[256];             /* "GDS,LIBFABRIC,UCX" as loaded */
	char nixl_backend[32];              /* last backend instantiated/used */
	double max_init_xfer_ms;            /* largest "Time to init xfer" */
	long fabric_devices;                /* largest "Found N fabric devices" */
};

const char *logsig_name(enum logsig s);
void logscan_init(struct logscan *s);
/* Scans text (any size; lines past 64 KiB are looked at in part);
 * returns the number of lines that matched a signature.  May be called
 * repeatedly to accumulate over several logs. */
int logscan_text(struct logscan *s, const char *text, size_t len);

#endif
