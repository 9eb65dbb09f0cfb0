/* Known failure (and success) lines in logs that are not probe output:
 * dmesg, UCX debug/info logs, NIXL and NCCL logs, libfabric warnings,
 * gdrcopy_sanity.  For the LOGS family: text in, counts out, no I/O.
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
	LOGSIG_UCX_RC_LANES,                /* worker cfg uses rc_mlx5/dc_mlx5 */
	LOGSIG_UCX_CUDA_IPC_NO_NVLINK,      /* get zcopy disabled, no nvlinks */
	LOGSIG_UCX_HOST_STAGING,            /* put/am/bcopy or 0 lanes selected */
	LOGSIG_NIXL_ERR_BACKEND,
	LOGSIG_NIXL_PLUGIN_LOADED,          /* "Discovered and loaded backend plugin" */
	LOGSIG_NIXL_SLOW_INIT_XFER,         /* "Time to init xfer" over 100 ms */
	LOGSIG_NCCL_P2P_FORCED_OFF,         /* NCCL_P2P_LEVEL/DISABLE by env */
	LOGSIG_FI_HMEM_P2P_UNAVAILABLE,
	LOGSIG_FI_CUDA_REG_FAILED,
	LOGSIG_GDRCOPY_SANITY_FAILED,
	LOGSIG_GDRCOPY_SANITY_PASSED,
	LOGSIG_COUNT,
};

struct logscan {
	unsigned count[LOGSIG_COUNT];
	char first[LOGSIG_COUNT][200];      /* first matching line, trimmed */
	char nixl_plugins[256];             /* "GDS,LIBFABRIC,UCX" as loaded */
	double max_init_xfer_ms;            /* largest "Time to init xfer" */
};

const char *logsig_name(enum logsig s);
void logscan_init(struct logscan *s);
/* Scans text (any size; lines past 64 KiB are looked at in part);
 * returns the number of lines that matched a signature.  May be called
 * repeatedly to accumulate over several logs. */
int logscan_text(struct logscan *s, const char *text, size_t len);

#endif
