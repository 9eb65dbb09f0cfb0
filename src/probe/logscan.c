/* Each signature is a set of substrings that must all appear in one line;
 * a few need a second look (which transport, how many ms, how many
 * devices).  The one table below holds every pattern; a row with no
 * substrings names a signature that only a second look finds. */
#include "logscan.h"

#include <string.h>

#include "ptext.h"

static const struct sig {
	enum logsig id;
	const char *name;
	const char *all[3];
} sigs[] = {
	/* dmesg (node level) */
	{ LOGSIG_PEERMEM_INVALID_CONTEXT, "peermem-invalid-context",
	  { "nv_get_p2p_free_callback", "invalid context", NULL } },
	{ LOGSIG_PEERMEM_UNKNOWN_SYMBOL, "peermem-unknown-symbol",
	  { "nvidia_peermem", "Unknown symbol", NULL } },
	{ LOGSIG_PEERMEM_UNKNOWN_SYMBOL, "peermem-unknown-symbol",
	  { "nvidia_peermem", "disagrees about version of symbol", NULL } },
	{ LOGSIG_PEERMEM_INSERT_FAILED, "peermem-insert-failed",
	  { "could not insert 'nvidia_peermem'", NULL, NULL } },
	/* UCX */
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
	{ LOGSIG_UCX_CUDA_TL_UNAVAILABLE, "ucx-cuda-transport-unavailable", { NULL } },
	{ LOGSIG_UCX_GDR_COPY_UNAVAILABLE, "ucx-gdr-copy-unavailable", { NULL } },
	{ LOGSIG_UCX_RDMA_TL_UNAVAILABLE, "ucx-rdma-transport-unavailable", { NULL } },
	{ LOGSIG_UCX_MEMLOCK, "ucx-memlock",
	  { "RDMA transports are disabled because max locked memory", NULL, NULL } },
	{ LOGSIG_UCX_NO_RDMA, "ucx-no-rdma",
	  { "no RDMA transports available", NULL, NULL } },
	{ LOGSIG_UCX_CANNOT_REGISTER_CUDA, "ucx-cannot-register-cuda",
	  { "cannot register cuda memory", NULL, NULL } },
	{ LOGSIG_UCX_NO_IB_PORTS, "ucx-no-ib-ports",
	  { "no compatible IB ports found", NULL, NULL } },
	/* openucx/ucx src/uct/ib/base/ib_device.c uct_ib_device_query_gid_info()
	 * ucs_error("ibv_query_gid(dev=%s port=%d index=%d) failed: %m"): the
	 * GID index UCX would use (UCX_IB_GID_INDEX, or its RoCE pick) does not
	 * exist on that port, and the iface of that device is not opened. */
	{ LOGSIG_UCX_GID_QUERY_FAILED, "ucx-gid-query-failed",
	  { "ibv_query_gid(dev=", ") failed", NULL } },
	{ LOGSIG_UCX_NO_CUDA_SUPPORT, "ucx-no-cuda-support",
	  { "UCX CUDA support was not found", NULL, NULL } },
	{ LOGSIG_UCX_NO_CUDA_SUPPORT, "ucx-no-cuda-support",
	  { "check that UCX is configured with CUDA support", NULL, NULL } },
	/* memReg() since nixl PR 1393: the old warning became an error that
	 * refuses the registration ("... by UCX. UCX is likely not configured
	 * with CUDA[/ROCm] support. VRAM registration cannot proceed."). */
	{ LOGSIG_UCX_NO_CUDA_SUPPORT, "ucx-no-cuda-support",
	  { "VRAM memory is detected as host by UCX", NULL, NULL } },
	{ LOGSIG_UCX_NO_ACCEL_IB, "ucx-no-accelerated-ib",
	  { "accelerated IB support was not found", NULL, NULL } },
	{ LOGSIG_UCX_TCP_LANES, "ucx-tcp-lanes", { NULL } },
	{ LOGSIG_UCX_RC_LANES, "ucx-rdma-lanes", { NULL } },
	{ LOGSIG_UCX_CUDA_IPC_NO_NVLINK, "ucx-cuda-ipc-no-nvlink",
	  { "get zcopy disabled as no nvlinks detected", NULL, NULL } },
	{ LOGSIG_UCX_HOST_STAGING, "ucx-host-staging",
	  { "selected 0 lanes", NULL, NULL } },
	{ LOGSIG_UCX_HOST_STAGING, "ucx-host-staging",
	  { "put/am/bcopy", NULL, NULL } },
	/* ucp_context.c ucp_check_version(): before UCX 1.13 "UCP version is
	 * incompatible, required: 1.18, actual: 1.12", since then "UCP API
	 * version is incompatible: required >= 1.20, actual 1.18.0"
	 * (openucx/ucx PR #7986). */
	{ LOGSIG_UCX_VERSION_INCOMPATIBLE, "ucx-version-incompatible",
	  { "UCP version is incompatible", NULL, NULL } },
	{ LOGSIG_UCX_VERSION_INCOMPATIBLE, "ucx-version-incompatible",
	  { "UCP API version is incompatible", NULL, NULL } },
	/* NIXL */
	{ LOGSIG_NIXL_ERR, "nixl-error", { "NIXL_ERR_", NULL, NULL } },
	/* nixl_agent.cpp createBackend(): NIXL_ERROR "createBackend: backend
	 * creation failed for 'X'" (the plugin's engine threw) and
	 * "createBackend: unsupported backend 'X'" (no plugin of that name
	 * loaded, ai-dynamo/nixl#1561); judged by kv_backend_failed(). */
	{ LOGSIG_NIXL_BACKEND_FAILED, "nixl-backend-failed", { NULL } },
	/* src/plugins/ucx/ucx_utils.cpp createUcpWorker(): "Failed to create
	 * UCX worker: " + ucs_status_string; the UCX backend is then gone. */
	{ LOGSIG_NIXL_UCX_WORKER_FAILED, "nixl-ucx-worker-failed",
	  { "Failed to create UCX worker", NULL, NULL } },
	{ LOGSIG_NIXL_PLUGIN_LOADED, "nixl-plugin-loaded",
	  { "Discovered and loaded backend plugin:", NULL, NULL } },
	{ LOGSIG_NIXL_SLOW_INIT_XFER, "nixl-slow-init-xfer", { NULL } },
	{ LOGSIG_NIXL_UCX_INSTANTIATED, "nixl-ucx-instantiated",
	  { "Backend UCX was instantiated", NULL, NULL } },
	{ LOGSIG_NIXL_LIBFABRIC_LOADED, "nixl-libfabric-loaded",
	  { "Loaded backend plugin: LIBFABRIC", NULL, NULL } },
	{ LOGSIG_NIXL_FABRIC_DEVICES, "nixl-fabric-devices", { NULL } },
	{ LOGSIG_NIXL_AGENT_BACKEND, "nixl-agent-backend",
	  { "NixlTransferAgent using NIXL backend:", NULL, NULL } },
	{ LOGSIG_NIXL_TCP_FALLBACK, "nixl-tcp-fallback",
	  { "falling back to TCP", NULL, NULL } },
	{ LOGSIG_NIXL_TCP_FALLBACK, "nixl-tcp-fallback",
	  { "Falling back to TCP", NULL, NULL } },
	{ LOGSIG_NIXL_EFA_WITH_UCX, "nixl-efa-with-ucx",
	  { "EFA(s) were detected, but the UCX backend was configured", NULL, NULL } },
	/* NCCL */
	{ LOGSIG_NCCL_P2P_FORCED_OFF, "nccl-p2p-forced-off",
	  { "NCCL_P2P_LEVEL set by environment to LOC", NULL, NULL } },
	{ LOGSIG_NCCL_P2P_FORCED_OFF, "nccl-p2p-forced-off",
	  { "NCCL_P2P_DISABLE set by environment to 1", NULL, NULL } },
	{ LOGSIG_NCCL_NET_IB, "nccl-net-ib", { "NET/IB : Using [0]", NULL, NULL } },
	{ LOGSIG_NCCL_NET_IB, "nccl-net-ib", { "Using network IB", NULL, NULL } },
	{ LOGSIG_NCCL_NET_IB, "nccl-net-ib", { "via NET/IB/", NULL, NULL } },
	{ LOGSIG_NCCL_GDRDMA, "nccl-gdrdma", { "via NET/IB/", "/GDRDMA", NULL } },
	{ LOGSIG_NCCL_GDRDMA, "nccl-gdrdma",
	  { "NET/IB : GPU Direct RDMA Enabled", NULL, NULL } },
	{ LOGSIG_NCCL_GDR_DISABLED, "nccl-gdr-disabled",
	  { "NET/IB : GPU Direct RDMA Disabled", NULL, NULL } },
	{ LOGSIG_NCCL_NET_SOCKET, "nccl-net-socket", { "Using network Socket", NULL, NULL } },
	{ LOGSIG_NCCL_NET_SOCKET, "nccl-net-socket", { "via NET/Socket", NULL, NULL } },
	{ LOGSIG_NCCL_NET_SOCKET, "nccl-net-socket",
	  { "Assigned NET plugin Socket", NULL, NULL } },
	{ LOGSIG_NCCL_NET_SOCKET, "nccl-net-socket", { "NET/IB : No device found", NULL, NULL } },
	{ LOGSIG_NCCL_SOCKET_INIT, "nccl-socket-init", { "NET/Socket : Using [0]", NULL, NULL } },
	/* libfabric */
	{ LOGSIG_FI_HMEM_P2P_UNAVAILABLE, "fi-hmem-p2p-unavailable",
	  { "FI_HMEM_CUDA P2P support is not available", NULL, NULL } },
	{ LOGSIG_FI_CUDA_REG_FAILED, "fi-cuda-register-failed",
	  { "Failed to register CUDA buffer with the EFA device", NULL, NULL } },
	/* The engines' KV exchange failing between two healthy servers
	 * (issue 41, checks.md J).  vLLM nixl_connector.py _log_failure(
	 * failure_type="handshake_setup_failed"): the peer's NIXL agent was
	 * not reached or refused (vllm-project/vllm#42895, #27083). */
	{ LOGSIG_KV_HANDSHAKE_FAILED, "kv-handshake-failed",
	  { "handshake_setup_failed", NULL, NULL } },
	/* vLLM kv_connector/v1/nixl: the peers' compatibility hashes differ
	 * (ai-dynamo/dynamo#10027, PR vllm#29503). */
	{ LOGSIG_KV_COMPAT_HASH, "kv-compat-hash-mismatch",
	  { "compatibility hash mismatch", NULL, NULL } },
	/* SGLang disaggregation/nixl/conn.py maybe_send_extra
	 * (sgl-project/sglang#38552) */
	{ LOGSIG_KV_PD_UNSUPPORTED, "kv-pd-unsupported",
	  { "PD Disaggregation does NOT support", NULL, NULL } },
	/* UCX libuct_cuda cuda_ipc: "allocated memory at %p of size %ld does
	 * not have fabric property": the MNNVL lane drops for that memory and
	 * KV goes over the NIC */
	{ LOGSIG_UCX_NO_FABRIC_PROPERTY, "ucx-no-fabric-property",
	  { "does not have fabric property", NULL, NULL } },
	/* UCX_PROTO_INFO=y table row (openucx/ucx#10950: srd on EFA) */
	{ LOGSIG_UCX_SW_EMULATION, "ucx-software-emulation",
	  { "| software emulation", NULL, NULL } },
	/* ibv_wc_status_str(IBV_WC_RETRY_EXC_ERR), (IBV_WC_LOC_PROT_ERR), as
	 * Mooncake's worker_pool.cpp and NIXL's UCX print a failed completion;
	 * UCX's own mlx5 wording of the first */
	{ LOGSIG_IB_RETRY_EXCEEDED, "ib-retry-exceeded",
	  { "transport retry counter exceeded", NULL, NULL } },
	{ LOGSIG_IB_RETRY_EXCEEDED, "ib-retry-exceeded",
	  { "Transport retry count exceeded", NULL, NULL } },
	{ LOGSIG_IB_LOCAL_PROTECTION, "ib-local-protection",
	  { "local protection error", NULL, NULL } },
	{ LOGSIG_IB_LOCAL_PROTECTION, "ib-local-protection",
	  { "Local protection", NULL, NULL } },
	/* Mooncake rdma_context.cpp "Worker: Received context async event: "
	 * + ibv_event_type_str(IBV_EVENT_PORT_ERR); UCX ib_device.c "IB Async
	 * event on <dev>: port error on port N" */
	{ LOGSIG_IB_PORT_ERROR, "ib-port-error", { "async event: port error", NULL, NULL } },
	{ LOGSIG_IB_PORT_ERROR, "ib-port-error", { "IB Async event on", ": port error", NULL } },
	/* Mooncake transport contexts: LOG(ERROR) << "Failed to query GID" */
	{ LOGSIG_RDMA_GID_QUERY_FAILED, "rdma-gid-query-failed",
	  { "Failed to query GID", NULL, NULL } },
	/* UCX ib_mlx5_dv.c: "mlx5dv_devx_obj_modify(502) failed, syndrome 0:
	 * ..." (openucx/ucx#7738, #5657): a QP could not be brought up */
	{ LOGSIG_UCX_DEVX_MODIFY_FAILED, "ucx-devx-modify-failed",
	  { "mlx5dv_devx_obj_modify(", ") failed", NULL } },
	/* gdrcopy_sanity (second look) */
	{ LOGSIG_GDRCOPY_SANITY_FAILED, "gdrcopy-sanity-failed", { NULL } },
	{ LOGSIG_GDRCOPY_SANITY_PASSED, "gdrcopy-sanity-passed", { NULL } },
};

#define NSIGS (sizeof sigs / sizeof sigs[0])

_Static_assert(LOGSIG_COUNT <= 64, "scan_line keeps a 64-bit set of signatures");

const char *logsig_name(enum logsig s)
{
	for (size_t i = 0; i < NSIGS; i++)
		if (sigs[i].id == s)
			return sigs[i].name;
	return "?";
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
	static const char *const rdma[] = { "'rc", "'dc", "'ud", "'ib'", "'srd'" };
	long cut = ps_find(line, "available, please use");
	struct pslice head = ps_make(line.s, cut >= 0 ? (size_t)cut : line.n);

	if (ps_find(head, "'cuda") >= 0)
		hit(s, LOGSIG_UCX_CUDA_TL_UNAVAILABLE, line);
	if (ps_find(head, "'gdr_copy'") >= 0)
		hit(s, LOGSIG_UCX_GDR_COPY_UNAVAILABLE, line);
	for (size_t i = 0; i < sizeof rdma / sizeof rdma[0]; i++)
		if (ps_find(head, rdma[i]) >= 0) {
			hit(s, LOGSIG_UCX_RDMA_TL_UNAVAILABLE, line);
			break;
		}
}

/* The transport of the first RMA lane after tag: "rma(rc_mlx5/mlx5_0:1)". */
static int rma_lane(struct pslice line, const char *tag, const char *tl)
{
	long at = ps_find(line, tag);

	return at >= 0 && ps_starts(ps_from(line, (size_t)at + strlen(tag)), tl);
}

/* "ucp_context_0 intra-node cfg#2 rma_am(tcp/eth1) ... am(rc_mlx5/...)":
 * the rma lanes carry NIXL's reads and writes. */
static void worker_cfg(struct logscan *s, struct pslice line)
{
	static const char *const fast[] = {
		"rc_mlx5/", "dc_mlx5/", "rc_verbs/", "srd/",
	};
	size_t i;

	if (ps_find(line, " cfg#") < 0)
		return;
	if (rma_lane(line, "rma(", "tcp/") || rma_lane(line, "rma_am(", "tcp/"))
		hit(s, LOGSIG_UCX_TCP_LANES, line);
	for (i = 0; i < sizeof fast / sizeof fast[0]; i++)
		if (rma_lane(line, "rma(", fast[i]) || rma_lane(line, "rma_am(", fast[i])) {
			hit(s, LOGSIG_UCX_RC_LANES, line);
			break;
		}
}

/* Appends "NAME" to a comma list in dst (bounded). */
static void list_add(char *dst, size_t size, struct pslice name)
{
	size_t used = strlen(dst);

	if (!name.n || used + name.n + 2 >= size)
		return;
	if (used)
		dst[used++] = ',';
	ps_copy(dst + used, size - used, name);
}

/* The word after tag: "... plugin: UCX", "... NIXL backend: UCX". */
static struct pslice word_after(struct pslice line, const char *tag)
{
	long at = ps_find(line, tag);
	struct pslice rest, w = { "", 0 };

	if (at < 0)
		return w;
	rest = ps_from(line, (size_t)at + strlen(tag));
	ps_token(&rest, &w);
	return w;
}

static void backend(struct logscan *s, enum logsig id, struct pslice line)
{
	struct pslice w = { "UCX", 3 };

	if (id == LOGSIG_NIXL_PLUGIN_LOADED) {
		list_add(s->nixl_plugins, sizeof s->nixl_plugins,
			 word_after(line, "Discovered and loaded backend plugin:"));
		return;
	}
	if (id == LOGSIG_NIXL_LIBFABRIC_LOADED)
		w = ps_make("LIBFABRIC", 9);
	else if (id == LOGSIG_NIXL_AGENT_BACKEND)
		w = word_after(line, "NixlTransferAgent using NIXL backend:");
	else if (id != LOGSIG_NIXL_UCX_INSTANTIATED)
		return;
	ps_copy(s->nixl_backend, sizeof s->nixl_backend, w);
}

/* The backend a createBackend line names ("... for 'UCX'", "...
 * backend 'UCX'"): a failure counts unless it names a storage backend,
 * which never carries KV between workers (NIXL plugins GDS, GDS_MT,
 * POSIX, OBJ, HF3FS, AZURE_BLOB, GUSLI). */
static void kv_backend_failed(struct logscan *s, struct pslice line)
{
	static const char *const storage[] = {
		"'GDS'", "'GDS_MT'", "'POSIX'", "'OBJ'", "'HF3FS'", "'AZURE_BLOB'", "'GUSLI'",
	};

	if (ps_find(line, "createBackend: backend creation failed") < 0 &&
	    ps_find(line, "createBackend: unsupported backend") < 0)
		return;
	for (size_t i = 0; i < sizeof storage / sizeof storage[0]; i++)
		if (ps_find(line, storage[i]) >= 0)
			return;
	hit(s, LOGSIG_NIXL_BACKEND_FAILED, line);
}

static void misc(struct logscan *s, struct pslice line)
{
	long at = ps_find(line, "Time to init xfer:");
	long n;
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
	/* "NIXL  INFO Found 32 fabric devices": none found proves nothing. */
	at = ps_find(line, "Found ");
	if (at >= 0 && ps_find(line, " fabric devices") > at &&
	    ps_long(ps_from(line, (size_t)at + 6), &n) && n > 0) {
		if (n > s->fabric_devices)
			s->fabric_devices = n;
		hit(s, LOGSIG_NIXL_FABRIC_DEVICES, line);
	}
}

static int matches(const struct sig *g, struct pslice line)
{
	size_t j;

	if (!g->all[0])
		return 0;
	for (j = 0; j < 3 && g->all[j]; j++)
		if (ps_find(line, g->all[j]) < 0)
			return 0;
	return 1;
}

static int scan_line(struct logscan *s, struct pslice line)
{
	unsigned long long seen = 0;   /* two patterns of one signature count once */
	unsigned before = 0, after = 0;
	size_t i;

	for (i = 0; i < LOGSIG_COUNT; i++)
		before += s->count[i];
	for (i = 0; i < NSIGS; i++) {
		const struct sig *g = &sigs[i];

		if ((seen & (1ull << g->id)) || !matches(g, line))
			continue;
		seen |= 1ull << g->id;
		hit(s, g->id, line);
		if (g->id == LOGSIG_UCX_TL_UNAVAILABLE)
			unavailable(s, line);
		else
			backend(s, g->id, line);
	}
	worker_cfg(s, line);
	kv_backend_failed(s, line);
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
