/* Each signature is a set of substrings that must all appear in one line;
 * a few need a second look (which transport, how many ms). */
#include "logscan.h"

#include <string.h>

#include "ptext.h"

static const struct sig {
	enum logsig id;
	const char *name;
	const char *all[3];
} sigs[] = {
	{ LOGSIG_PEERMEM_INVALID_CONTEXT, "peermem-invalid-context",
	  { "nv_get_p2p_free_callback", "invalid context", NULL } },
	{ LOGSIG_PEERMEM_UNKNOWN_SYMBOL, "peermem-unknown-symbol",
	  { "nvidia_peermem", "Unknown symbol", NULL } },
	{ LOGSIG_PEERMEM_UNKNOWN_SYMBOL, "peermem-unknown-symbol",
	  { "nvidia_peermem", "disagrees about version of symbol", NULL } },
	{ LOGSIG_PEERMEM_INSERT_FAILED, "peermem-insert-failed",
	  { "could not insert 'nvidia_peermem'", NULL, NULL } },
	{ LOGSIG_UCX_GDR_DISABLED, "ucx-gdr-disabled",
	  { "cuda GPUDirect RDMA is disabled", NULL, NULL } },
	{ LOGSIG_UCX_GDR_DISABLED, "ucx-gdr-disabled",
	  { "Couldn't enable GPUDirect RDMA", NULL, NULL } },
	{ LOGSIG_UCX_DMABUF_UNSUPPORTED, "ucx-dmabuf-unsupported",
	  { "dmabuf is not supported", NULL, NULL } },
	{ LOGSIG_UCX_TL_UNAVAILABLE, "ucx-transport-unavailable",
	  { "UCX", "is not available, please use", NULL } },
	{ LOGSIG_UCX_TL_UNAVAILABLE, "ucx-transport-unavailable",
	  { "UCX", "are not available, please use", NULL } },
	{ LOGSIG_UCX_MEMLOCK, "ucx-memlock",
	  { "RDMA transports are disabled because max locked memory", NULL, NULL } },
	{ LOGSIG_UCX_CANNOT_REGISTER_CUDA, "ucx-cannot-register-cuda",
	  { "cannot register cuda memory", NULL, NULL } },
	{ LOGSIG_UCX_NO_IB_PORTS, "ucx-no-ib-ports",
	  { "no compatible IB ports found", NULL, NULL } },
	{ LOGSIG_UCX_NO_CUDA_SUPPORT, "ucx-no-cuda-support",
	  { "UCX CUDA support was not found", NULL, NULL } },
	{ LOGSIG_UCX_NO_ACCEL_IB, "ucx-no-accelerated-ib",
	  { "accelerated IB support was not found", NULL, NULL } },
	{ LOGSIG_UCX_CUDA_IPC_NO_NVLINK, "ucx-cuda-ipc-no-nvlink",
	  { "get zcopy disabled as no nvlinks detected", NULL, NULL } },
	{ LOGSIG_UCX_HOST_STAGING, "ucx-host-staging",
	  { "selected 0 lanes", NULL, NULL } },
	{ LOGSIG_UCX_HOST_STAGING, "ucx-host-staging",
	  { "put/am/bcopy", NULL, NULL } },
	{ LOGSIG_NIXL_ERR_BACKEND, "nixl-err-backend",
	  { "NIXL_ERR_BACKEND", NULL, NULL } },
	{ LOGSIG_NIXL_PLUGIN_LOADED, "nixl-plugin-loaded",
	  { "Discovered and loaded backend plugin:", NULL, NULL } },
	{ LOGSIG_NCCL_P2P_FORCED_OFF, "nccl-p2p-forced-off",
	  { "NCCL_P2P_LEVEL set by environment to LOC", NULL, NULL } },
	{ LOGSIG_NCCL_P2P_FORCED_OFF, "nccl-p2p-forced-off",
	  { "NCCL_P2P_DISABLE set by environment to 1", NULL, NULL } },
	{ LOGSIG_FI_HMEM_P2P_UNAVAILABLE, "fi-hmem-p2p-unavailable",
	  { "FI_HMEM_CUDA P2P support is not available", NULL, NULL } },
	{ LOGSIG_FI_CUDA_REG_FAILED, "fi-cuda-register-failed",
	  { "Failed to register CUDA buffer with the EFA device", NULL, NULL } },
};

static const char *const names[LOGSIG_COUNT] = {
	"peermem-invalid-context", "peermem-unknown-symbol", "peermem-insert-failed",
	"ucx-gdr-disabled", "ucx-dmabuf-unsupported", "ucx-transport-unavailable",
	"ucx-cuda-transport-unavailable", "ucx-gdr-copy-unavailable", "ucx-memlock",
	"ucx-cannot-register-cuda", "ucx-no-ib-ports", "ucx-no-cuda-support",
	"ucx-no-accelerated-ib", "ucx-tcp-lanes", "ucx-rc-lanes",
	"ucx-cuda-ipc-no-nvlink", "ucx-host-staging", "nixl-err-backend",
	"nixl-plugin-loaded", "nixl-slow-init-xfer", "nccl-p2p-forced-off",
	"fi-hmem-p2p-unavailable", "fi-cuda-register-failed",
	"gdrcopy-sanity-failed", "gdrcopy-sanity-passed",
};

const char *logsig_name(enum logsig s)
{
	return (unsigned)s < LOGSIG_COUNT ? names[s] : "?";
}

void logscan_init(struct logscan *s)
{
	memset(s, 0, sizeof *s);
}

static void hit(struct logscan *s, enum logsig id, struct pslice line)
{
	if (!s->count[id]++)
		ps_copy(s->first[id], sizeof s->first[id], ps_trim(line));
}

/* The quoted names in "transport 'gdr_copy' is not available" or
 * "transports 'cuda_ipc','cuda_copy' are not available": only the part
 * before ", please use" names what is missing. */
static void unavailable(struct logscan *s, struct pslice line)
{
	long cut = ps_find(line, "available, please use");
	struct pslice head = ps_make(line.s, cut >= 0 ? (size_t)cut : line.n);

	if (ps_find(head, "'cuda") >= 0)
		hit(s, LOGSIG_UCX_CUDA_TL_UNAVAILABLE, line);
	if (ps_find(head, "'gdr_copy'") >= 0)
		hit(s, LOGSIG_UCX_GDR_COPY_UNAVAILABLE, line);
}

/* "ucp_context_0 intra-node cfg#2 rma_am(tcp/eth1) ... am(rc_mlx5/...)". */
static void worker_cfg(struct logscan *s, struct pslice line)
{
	if (ps_find(line, " cfg#") < 0)
		return;
	if (ps_find(line, "rma(tcp/") >= 0 || ps_find(line, "rma_am(tcp/") >= 0)
		hit(s, LOGSIG_UCX_TCP_LANES, line);
	if (ps_find(line, "rma(rc_mlx5/") >= 0 || ps_find(line, "rma(dc_mlx5/") >= 0 ||
	    ps_find(line, "rma(rc_verbs/") >= 0)
		hit(s, LOGSIG_UCX_RC_LANES, line);
}

static void plugin(struct logscan *s, struct pslice line)
{
	const char *tag = "Discovered and loaded backend plugin:";
	long at = ps_find(line, tag);
	struct pslice name = ps_trim(ps_from(line, (size_t)at + strlen(tag)));
	size_t used = strlen(s->nixl_plugins);

	if (!name.n || used + name.n + 2 >= sizeof s->nixl_plugins)
		return;
	if (used)
		s->nixl_plugins[used++] = ',';
	ps_copy(s->nixl_plugins + used, sizeof s->nixl_plugins - used, name);
}

static void misc(struct logscan *s, struct pslice line)
{
	long at = ps_find(line, "Time to init xfer:");
	double ms;

	if (at >= 0 && ps_double(ps_from(line, (size_t)at + 18), &ms)) {
		if (ms > s->max_init_xfer_ms)
			s->max_init_xfer_ms = ms;
		if (ms > 100)
			hit(s, LOGSIG_NIXL_SLOW_INIT_XFER, line);
	}
	at = ps_find(line, "Failed: ");
	if (ps_starts(ps_trim(line), "Total: ") && at >= 0 && ps_double(ps_from(line, (size_t)at + 8), &ms))
		hit(s, ms > 0 ? LOGSIG_GDRCOPY_SANITY_FAILED : LOGSIG_GDRCOPY_SANITY_PASSED, line);
}

static int scan_line(struct logscan *s, struct pslice line)
{
	size_t i, j;
	int matched = 0;
	unsigned before = 0, after = 0;

	for (i = 0; i < LOGSIG_COUNT; i++)
		before += s->count[i];
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		for (j = 0; j < 3 && sigs[i].all[j]; j++)
			if (ps_find(line, sigs[i].all[j]) < 0)
				break;
		if (j < 3 && sigs[i].all[j])
			continue;
		/* Two patterns of one signature on one line count once. */
		if (i > 0 && sigs[i - 1].id == sigs[i].id && matched == (int)sigs[i].id + 1)
			continue;
		hit(s, sigs[i].id, line);
		matched = (int)sigs[i].id + 1;
		if (sigs[i].id == LOGSIG_UCX_TL_UNAVAILABLE)
			unavailable(s, line);
		else if (sigs[i].id == LOGSIG_NIXL_PLUGIN_LOADED)
			plugin(s, line);
	}
	worker_cfg(s, line);
	misc(s, line);
	for (i = 0; i < LOGSIG_COUNT; i++)
		after += s->count[i];
	return after > before;
}

int logscan_text(struct logscan *s, const char *text, size_t len)
{
	struct ptext it;
	struct pslice line;
	int n = 0;

	ptext_init(&it, text, len);
	while (ptext_line(&it, &line)) {
		if (line.n > 65536)
			line.n = 65536;
		n += scan_line(s, line);
	}
	return n;
}
