/* The LOGS family: log signatures (probe/logscan.c) judged per part of the
 * stack.  One result per part that spoke (logs-nixl, logs-ucx, logs-nccl,
 * logs-libfabric), plus logs-read for the read itself. */
#include "check/logs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "model/vocab.h"
#include "probe/logscan.h"
#include "util/buf.h"
#include "util/xalloc.h"

enum part { P_NIXL, P_UCX, P_NCCL, P_FI, P__COUNT };

/* 0 is "not in the table", so a new signature without a meaning shows up
 * in check_logs_table_complete(). */
enum weight { W_UNSET = 0, W_IGNORE, W_GOOD, W_DEGRADED, W_BAD };

static const enum check_id part_check[P__COUNT] = {
	CK_LOGS_NIXL, CK_LOGS_UCX, CK_LOGS_NCCL, CK_LOGS_LIBFABRIC,
};

static const struct meaning {
	enum part part;
	enum weight w;
	const char *what;     /* what the line proves, a few words */
	const char *remedy;   /* NULL: the check's default */
} meanings[LOGSIG_COUNT] = {
	/* node-level and active-test lines: other checks judge them */
	[LOGSIG_PEERMEM_INVALID_CONTEXT] = { P_UCX, W_IGNORE, NULL, NULL },
	[LOGSIG_PEERMEM_UNKNOWN_SYMBOL] = { P_UCX, W_IGNORE, NULL, NULL },
	[LOGSIG_PEERMEM_INSERT_FAILED] = { P_UCX, W_IGNORE, NULL, NULL },
	[LOGSIG_GDRCOPY_SANITY_FAILED] = { P_UCX, W_IGNORE, NULL, NULL },
	[LOGSIG_GDRCOPY_SANITY_PASSED] = { P_UCX, W_IGNORE, NULL, NULL },
	[LOGSIG_UCX_CUDA_IPC_NO_NVLINK] = { P_UCX, W_IGNORE, NULL, NULL },
	[LOGSIG_NIXL_PLUGIN_LOADED] = { P_NIXL, W_IGNORE, NULL, NULL },
	/* the generic form; its cuda/gdr_copy/rdma second looks judge */
	[LOGSIG_UCX_TL_UNAVAILABLE] = { P_UCX, W_IGNORE, NULL, NULL },

	[LOGSIG_NIXL_TCP_FALLBACK] = { P_NIXL, W_BAD, "NIXL fell back to TCP",
		"give the workers RDMA (devices, IPC_LOCK, a UCX with rc_mlx5/dc_mlx5) and keep RDMA in UCX_TLS; see the RDMA and UCX checks" },
	[LOGSIG_NIXL_ERR] = { P_NIXL, W_BAD, "NIXL reported an error",
		"read the worker log around this line: NIXL_ERR_BACKEND on registerMem usually means UCX cannot register GPU memory (UCX without CUDA, no GPUDirect RDMA)" },
	[LOGSIG_UCX_NO_CUDA_SUPPORT] = { P_NIXL, W_BAD, "NIXL's UCX has no CUDA support",
		"use a UCX built with CUDA (the one bundled with NIXL) so GPU memory can be registered" },
	/* The NIXL plugin was built against another UCX than the one it
	 * loads: "not supported" (ai-dynamo/nixl #386, maintainer), and the
	 * sglang #5709 worker then failed with NIXL_ERR_BACKEND although the
	 * backend was instantiated, so it outweighs that line. */
	[LOGSIG_UCX_VERSION_INCOMPATIBLE] = { P_NIXL, W_BAD, "NIXL runs on another UCX than it was built for",
		"use the UCX NIXL was built with (the one bundled with NIXL) or rebuild NIXL against the UCX in the image" },
	[LOGSIG_NIXL_BACKEND_FAILED] = { P_NIXL, W_BAD, "NIXL could not create its transfer backend",
		"make the backend's plugin and its libraries loadable (NIXL_PLUGIN_DIR, the UCX/libfabric NIXL was built with) and read the error before this line" },
	[LOGSIG_NIXL_UCX_WORKER_FAILED] = { P_NIXL, W_BAD, "NIXL could not create its UCX worker",
		"read the UCX error before this line (an RDMA device UCX cannot open: UD QP, GID, memlock) and fix it, or restrict UCX_NET_DEVICES to working ports" },
	/* ai-dynamo/nixl#909, #1983, ai-dynamo/dynamo#4185: KV across EFA
	 * nodes then takes a slow or failing path (checks.md G4). */
	[LOGSIG_NIXL_EFA_WITH_UCX] = { P_NIXL, W_BAD, "EFA with the UCX backend",
		"on EFA use the NIXL LIBFABRIC backend (kv_connector_extra_config.backends=[\"LIBFABRIC\"])" },
	[LOGSIG_UCX_NO_ACCEL_IB] = { P_NIXL, W_DEGRADED, "NIXL's UCX lacks accelerated IB",
		"use a UCX built with mlx5 (rc_mlx5/dc_mlx5), e.g. the UCX bundled with NIXL" },
	[LOGSIG_NIXL_SLOW_INIT_XFER] = { P_NIXL, W_DEGRADED, "slow NIXL transfer setup (over 100 ms)",
		"a transfer setup this slow usually means TCP: check that ucx_info -d lists RDMA devices in the worker" },
	[LOGSIG_NIXL_UCX_INSTANTIATED] = { P_NIXL, W_GOOD, "NIXL UCX backend instantiated", NULL },
	[LOGSIG_NIXL_LIBFABRIC_LOADED] = { P_NIXL, W_GOOD, "NIXL LIBFABRIC backend loaded", NULL },
	[LOGSIG_NIXL_FABRIC_DEVICES] = { P_NIXL, W_GOOD, "NIXL found fabric devices", NULL },
	[LOGSIG_NIXL_AGENT_BACKEND] = { P_NIXL, W_GOOD, "NIXL transfer agent backend chosen", NULL },

	[LOGSIG_UCX_NO_RDMA] = { P_UCX, W_BAD, "UCX has no RDMA transport",
		"give the pod RDMA devices (rdma/ib or EFA resource) and a UCX with verbs/mlx5; see the RDMA and UCX checks" },
	[LOGSIG_UCX_MEMLOCK] = { P_UCX, W_BAD, "UCX disabled RDMA (memlock limit)",
		"add securityContext.capabilities.add: [IPC_LOCK] or set memlock to unlimited" },
	[LOGSIG_UCX_RDMA_TL_UNAVAILABLE] = { P_UCX, W_BAD, "an RDMA transport UCX was told to use is missing",
		"set UCX_TLS to transports ucx_info -d lists (or unset it) and give the pod its RDMA devices" },
	/* ib_device.c uct_ib_device_query_ports() says this with ucs_debug,
	 * once per device and transport that does not fit (dc_mlx5 on a
	 * RoCE-only port, ud on an EFA device...): at UCX_LOG_LEVEL=debug a
	 * healthy node prints it too, so it is a degradation at most. */
	[LOGSIG_UCX_NO_IB_PORTS] = { P_UCX, W_DEGRADED, "UCX found no usable IB port",
		"bring the HCA ports up and point UCX_NET_DEVICES at Active ports (or unset it)" },
	[LOGSIG_UCX_GID_QUERY_FAILED] = { P_UCX, W_BAD, "UCX could not read the GID it would use",
		"unset UCX_IB_GID_INDEX (UCX picks a RoCE v2 GID) or set it to a populated index of show_gids; on RoCE give the NIC an IP address so its GID table fills" },
	[LOGSIG_UCX_TCP_LANES] = { P_UCX, W_BAD, "UCX put RMA (KV reads/writes) on TCP",
		"make RDMA available to UCX (devices, IPC_LOCK, rc_mlx5/dc_mlx5 in ucx_info -d) and keep it in UCX_TLS" },
	[LOGSIG_UCX_CUDA_TL_UNAVAILABLE] = { P_UCX, W_BAD, "UCX has no CUDA transports",
		"install UCX's CUDA module (libuct_cuda.so) or use a UCX built --with-cuda" },
	[LOGSIG_UCX_GDR_DISABLED] = { P_UCX, W_DEGRADED, "UCX GPUDirect RDMA disabled (host staging)",
		"load nvidia_peermem or enable DMA-BUF (open kernel module, kernel >= 5.12)" },
	[LOGSIG_UCX_DMABUF_UNSUPPORTED] = { P_UCX, W_DEGRADED, "UCX cannot use DMA-BUF",
		"use the NVIDIA open kernel module on kernel >= 5.12, or load nvidia_peermem" },
	[LOGSIG_UCX_CANNOT_REGISTER_CUDA] = { P_UCX, W_DEGRADED, "the NIC cannot register GPU memory (host staging)",
		"load nvidia_peermem or enable DMA-BUF so the NIC can reach GPU memory" },
	[LOGSIG_UCX_HOST_STAGING] = { P_UCX, W_DEGRADED, "UCX stages GPU data through host memory",
		"make GPUDirect RDMA work (nvidia_peermem or DMA-BUF) so UCX picks zero-copy lanes" },
	[LOGSIG_UCX_GDR_COPY_UNAVAILABLE] = { P_UCX, W_DEGRADED, "UCX has no gdr_copy",
		"put libgdrapi.so on the library path and mount /dev/gdrdrv" },
	[LOGSIG_UCX_RC_LANES] = { P_UCX, W_GOOD, "UCX put RMA on RDMA lanes", NULL },

	[LOGSIG_NCCL_NET_SOCKET] = { P_NCCL, W_DEGRADED, "NCCL uses sockets (TCP) between nodes",
		"give the pod RDMA devices and unset NCCL_IB_DISABLE / NCCL_NET=Socket so NCCL uses NET/IB" },
	[LOGSIG_NCCL_SOCKET_INIT] = { P_NCCL, W_DEGRADED, "NCCL network is sockets (no NET/IB)",
		"give the pod RDMA devices and unset NCCL_IB_DISABLE / NCCL_NET=Socket so NCCL uses NET/IB" },
	[LOGSIG_NCCL_GDR_DISABLED] = { P_NCCL, W_DEGRADED, "NCCL GPUDirect RDMA disabled",
		"load nvidia_peermem or enable DMA-BUF; unset NCCL_NET_GDR_LEVEL=LOC" },
	[LOGSIG_NCCL_P2P_FORCED_OFF] = { P_NCCL, W_DEGRADED, "NCCL P2P forced off by the environment",
		"unset NCCL_P2P_LEVEL / NCCL_P2P_DISABLE" },
	[LOGSIG_NCCL_GDRDMA] = { P_NCCL, W_GOOD, "NCCL NET/IB with GPUDirect RDMA", NULL },
	[LOGSIG_NCCL_NET_IB] = { P_NCCL, W_GOOD, "NCCL uses NET/IB", NULL },

	/* issue 41: the engines' own pair faults (checks.md J11, J12, J7b),
	 * and the fabric failing under a transfer; patterns and sources in
	 * probe/logscan.c */
	[LOGSIG_KV_HANDSHAKE_FAILED] = { P_NIXL, W_BAD, "the KV handshake with the peer failed (handshake_setup_failed)",
		"compare prefill and decode: side-channel host reachable (fw-vllm), same connector and block size (fw-pd-connector, fw-pd-blocks)" },
	[LOGSIG_KV_COMPAT_HASH] = { P_NIXL, W_BAD, "prefill and decode refused each other (NIXL compatibility hash mismatch)",
		"give prefill and decode the same kv_connector, kv_connector_extra_config, block size and attention backend (fw-pd-connector)" },
	[LOGSIG_KV_PD_UNSUPPORTED] = { P_NIXL, W_BAD, "SGLang refused this prefill/decode layout",
		"give prefill and decode the same --tp-size for this model (fw-pd-parallel)" },
	[LOGSIG_UCX_NO_FABRIC_PROPERTY] = { P_UCX, W_DEGRADED, "KV memory is not NVLink-fabric memory (cuda_ipc dropped it)",
		"allocate the KV cache with fabric handles (IMEX channel, ComputeDomain) or let KV take RDMA" },
	[LOGSIG_UCX_SW_EMULATION] = { P_UCX, W_DEGRADED, "UCX emulates RMA in software",
		"on EFA use the NIXL LIBFABRIC backend; elsewhere make GPUDirect RDMA work so UCX picks zero-copy" },
	[LOGSIG_IB_RETRY_EXCEEDED] = { P_UCX, W_BAD, "RDMA to the peer timed out (transport retry counter exceeded)",
		"check the route between the two NICs (same subnet or routed RoCE v2 GID, link up, PFC/ECN), and UCX_NET_DEVICES" },
	[LOGSIG_IB_LOCAL_PROTECTION] = { P_UCX, W_BAD, "an RDMA work request hit unregistered memory (local protection error)",
		"make GPUDirect RDMA work (nvidia_peermem or DMA-BUF) so GPU memory registers with the NIC" },
	[LOGSIG_IB_PORT_ERROR] = { P_UCX, W_BAD, "an RDMA port went down under traffic",
		"check the port's cable and switch; list only Active ports in UCX_NET_DEVICES" },
	[LOGSIG_RDMA_GID_QUERY_FAILED] = { P_UCX, W_BAD, "the transfer engine could not read its GID",
		"set MC_GID_INDEX (or UCX_IB_GID_INDEX) to a populated RoCE v2 index of show_gids" },
	[LOGSIG_UCX_DEVX_MODIFY_FAILED] = { P_UCX, W_BAD, "UCX could not bring a queue pair up (mlx5dv_devx_obj_modify)",
		"check the GID index, SL and MTU UCX uses on that port (UCX_IB_GID_INDEX, UCX_IB_SL), and the firmware" },

	[LOGSIG_FI_HMEM_P2P_UNAVAILABLE] = { P_FI, W_BAD, "libfabric cannot reach GPU memory on EFA",
		"use an EFA driver/libfabric with CUDA P2P (efa_nv_peermem or DMA-BUF)" },
	[LOGSIG_FI_CUDA_REG_FAILED] = { P_FI, W_BAD, "libfabric could not register CUDA memory with EFA",
		"use an EFA driver/libfabric with CUDA P2P (efa_nv_peermem or DMA-BUF)" },
};

const char *check_logs_shows(enum logsig s)
{
	return (unsigned)s < LOGSIG_COUNT && meanings[s].w > W_IGNORE ? meanings[s].what : NULL;
}

const char *check_logs_check(enum logsig s)
{
	return (unsigned)s < LOGSIG_COUNT ? check_def_of(part_check[meanings[s].part])->name : NULL;
}

int check_logs_table_complete(void)
{
	for (size_t i = 0; i < LOGSIG_COUNT; i++)
		if (meanings[i].w == W_UNSET ||
		    (meanings[i].w != W_IGNORE && !meanings[i].what))
			return 0;
	return 1;
}

/* ---- quoting ------------------------------------------------------- */

static int key_char(int c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '-';
}

/* Where the key before the '=' at eq begins (spaces around '=' allowed). */
static size_t key_start(const char *s, size_t eq, size_t *end)
{
	size_t e = eq, b;

	while (e > 0 && s[e - 1] == ' ')
		e--;
	b = e;
	while (b > 0 && key_char((unsigned char)s[b - 1]))
		b--;
	*end = e;
	return b;
}

/* Masks values in place into out (bounded), reading clean (ASCII-only). */
static void mask_pairs(const char *s, char *out, size_t n)
{
	size_t i = 0, o = 0, len = strlen(s);

	while (i < len && o + 1 < n) {
		size_t kb, ke;

		if (s[i] != '=') {
			out[o++] = s[i++];
			continue;
		}
		kb = key_start(s, i, &ke);
		out[o++] = s[i++];
		if (kb < ke && model_env_allowed(s + kb, ke - kb))
			continue;
		while (i < len && s[i] == ' ')
			i++;
		if (i < len && (s[i] == '"' || s[i] == '\'')) {
			const char *q = strchr(s + i + 1, s[i]);
			i = q ? (size_t)(q - s) + 1 : len;
		} else {
			while (i < len && s[i] != ' ')
				i++;
		}
		o += (size_t)snprintf(out + o, n - o, "<masked>");
		if (o >= n)
			o = n - 1;
	}
	out[o] = '\0';
}

/* UCX starts each line with "[time] [host:pid:thread]": noise in a
 * one-line quote, and the host name says nothing the NODE column does not. */
static size_t skip_prefix(const char *line)
{
	size_t i = 0;

	for (int groups = 0; groups < 2; groups++) {
		const char *close;

		while (line[i] == ' ' || line[i] == '\t')
			i++;
		close = line[i] == '[' ? strchr(line + i, ']') : NULL;
		if (!close || close - (line + i) > 80 || close[1] != ' ')
			break;
		i = (size_t)(close - line) + 1;
	}
	while (line[i] == ' ' || line[i] == '\t')
		i++;
	return i;
}

void check_logs_quote(const char *line, char *out, size_t n)
{
	char clean[512], masked[1024];
	size_t i = skip_prefix(line), o = 0, len;
	for (; line[i] && o + 1 < sizeof clean; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c == '\t')
			c = ' ';
		if (c == ' ' && o && clean[o - 1] == ' ')
			continue;   /* UCX pads its columns: room for the content */
		clean[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
	}
	while (o > 0 && clean[o - 1] == ' ')
		o--;
	clean[o] = '\0';
	mask_pairs(clean, masked, sizeof masked);
	len = strlen(masked);
	if (n == 0)
		return;
	if (len > CHECK_LOGS_QUOTE_MAX && n > CHECK_LOGS_QUOTE_MAX) {
		memcpy(out, masked, CHECK_LOGS_QUOTE_MAX - 3);
		memcpy(out + CHECK_LOGS_QUOTE_MAX - 3, "...", 4);
	} else {
		copy_str(out, n, masked);
	}
}

/* ---- judging ------------------------------------------------------- */

static void add(struct check_results *out, enum check_id id,
		enum check_status st, unsigned flags, const char *remedy,
		const char *detail)
{
	const struct check_def *d = check_def_of(id);
	struct check_result r;

	memset(&r, 0, sizeof(r));
	r.name = d->name;
	r.family = d->family;
	r.status = st;
	r.rank = d->rank;
	r.flags = flags;
	r.detail = (char *)detail;
	r.remedy = (char *)(st == CHECK_OK ? NULL : remedy ? remedy : d->remedy);
	check_results_add(out, &r);
}

/* A NET/Socket "Using" line is also what an IB job prints for its
 * bootstrap: telling only when NET/IB never showed. */
static int counts(const struct logscan *s, enum logsig g, int peermem)
{
	if (g == LOGSIG_NCCL_SOCKET_INIT && s->count[LOGSIG_NCCL_NET_IB])
		return 0;
	/* cuda_copy_md.c probes dmabuf at start-up and says so at debug
	 * level ("dmabuf is not supported on cuda device 0"): with a peer-
	 * memory driver loaded UCX does not need it (ib_md.c tries peer
	 * memory first), so the line is no degradation there. */
	if (g == LOGSIG_UCX_DMABUF_UNSUPPORTED && peermem == 1)
		return 0;
	/* Lanes on rc/dc/srd prove UCX found RDMA ports: the per-device
	 * "no compatible IB ports" debug line, or a GID that one device
	 * lacks, is then about another one. */
	if ((g == LOGSIG_UCX_NO_IB_PORTS || g == LOGSIG_UCX_GID_QUERY_FAILED) &&
	    s->count[LOGSIG_UCX_RC_LANES])
		return 0;
	return s->count[g] > 0;
}

/* KV that stays in the pod does not need RDMA: a fallback is a note. */
static enum check_status bad_status(const struct check_context *ctx)
{
	if (ctx && ctx->kv_known && !ctx->kv_cross_pod)
		return CHECK_WARN;
	return CHECK_FAIL;
}

/* One result for part p when any of its signatures matched; returns 1
 * when it added one. */
static int judge_part(const struct logscan *s, enum part p,
		      const struct check_context *ctx, struct check_results *out)
{
	/* The pod's own digest (check_pod ran first): peer memory seen. */
	int pm = out->summary.peermem;
	static const enum check_status of[] = {
		CHECK_SKIPPED, CHECK_SKIPPED, CHECK_OK, CHECK_WARN, CHECK_FAIL,
	};
	enum logsig worst = LOGSIG_COUNT;
	struct buf b = BUF_INIT(1024);
	char quote[CHECK_LOGS_QUOTE_MAX + 1];
	enum check_status st;
	size_t g, others = 0;
	char *detail;

	for (g = 0; g < LOGSIG_COUNT; g++) {
		if (meanings[g].part != p || meanings[g].w <= W_IGNORE || !counts(s, g, pm))
			continue;
		if (worst == LOGSIG_COUNT || meanings[g].w > meanings[worst].w)
			worst = (enum logsig)g;
	}
	if (worst == LOGSIG_COUNT)
		return 0;
	for (g = 0; g < LOGSIG_COUNT; g++)
		others += g != worst && meanings[g].part == p &&
			  meanings[g].w > W_GOOD && counts(s, g, pm);
	st = of[meanings[worst].w];
	if (st == CHECK_FAIL)
		st = bad_status(ctx);
	check_logs_quote(s->first[worst], quote, sizeof quote);
	buf_appendf(&b, "%s: \"%s\"", meanings[worst].what, quote);
	if (s->count[worst] > 1)
		buf_appendf(&b, " (%u lines)", s->count[worst]);
	if (others)
		buf_appendf(&b, "; %zu more warning sign%s", others, others == 1 ? "" : "s");
	detail = buf_detach(&b, NULL);
	add(out, part_check[p], st, 0, meanings[worst].remedy, detail);
	free(detail);
	return 1;
}

static void read_failed(const struct logs_outcome *o, struct check_results *out)
{
	char *detail = xasprintf("cannot read the log of container %s: %s",
				 o->container && *o->container ? o->container : "(default)",
				 o->error && *o->error ? o->error : "unknown error");

	add(out, CK_LOGS_READ, CHECK_SKIPPED, CHECK_F_EXTRA,
	    o->http_status == 403
		? "grant get on pods/log to this user (deploy/rbac.yaml has it) to see which transport the workers chose"
		: NULL, detail);
	free(detail);
}

void check_logs(const struct logs_outcome *o, const struct check_context *ctx,
		struct check_results *out)
{
	const char *ct = o->container && *o->container ? o->container : "(default)";
	int parts = 0;
	char *detail;

	if (!o->scan) {
		read_failed(o, out);
		return;
	}
	for (int p = 0; p < P__COUNT; p++)
		parts += judge_part(o->scan, (enum part)p, ctx, out);
	if (parts) {
		detail = xasprintf("read the last %ld lines of container %s", o->tail_lines, ct);
		add(out, CK_LOGS_READ, CHECK_OK, 0, NULL, detail);
	} else {
		detail = xasprintf("no NIXL/UCX/NCCL/libfabric transport line in the last %ld "
				   "lines of container %s", o->tail_lines, ct);
		add(out, CK_LOGS_READ, CHECK_SKIPPED, CHECK_F_EXTRA, NULL, detail);
	}
	free(detail);
}
