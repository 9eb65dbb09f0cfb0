/* NVLINK family: links, NVSwitch fabric, multi-node NVLink (checks.md D). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "check/internal.h"
#include "model/envrules.h"
#include "model/podspec.h"
#include "probe/facts.h"
#include "util/buf.h"

/* D1: GPUs of this pod that reach each other only over PCIe. */
static int pcie_only_pairs(const struct probe_topo *t)
{
	int n = 0;

	for (int a = 0; a < t->gpu_rows && a < PROBE_MAX_GPUS; a++)
		for (int b = a + 1; b < t->ngpus && b < PROBE_MAX_GPUS; b++)
			n += t->gpu_gpu[a][b].link >= PROBE_TOPO_PIX;
	return n;
}

struct link_tally {
	int gpus, links, inactive, dead_gpus, slow;
	struct buf bad;
};

/* D2: inactive links, and links slower than the GPU's own mode. */
static void tally_gpu(const struct probe_nvlink_gpu *g, struct link_tally *t)
{
	double mode = probe_nvlink_mode_speed(g);
	int slow = 0;

	t->gpus++;
	t->links += g->nlinks;
	t->inactive += g->n_inactive;
	if (g->nlinks && g->n_inactive == g->nlinks)
		t->dead_gpus++;
	for (int l = 0; l < g->nlinks && l < PROBE_MAX_NVLINKS; l++)
		if (!g->inactive[l] && mode > 0 && g->speed_gbs[l] < 0.9 * mode)
			slow++;
	t->slow += slow;
	if (g->n_inactive || slow)
		buf_appendf(&t->bad, "%sGPU%d %d inactive, %d slow (of %d at %.3f GB/s)",
			    t->bad.len ? "; " : "", g->index, g->n_inactive,
			    slow, g->nlinks, mode);
}

static void links(const struct check_input *in, struct check_results *out)
{
	const struct probe_nvlink *nv = &in->f->nvlink;
	struct link_tally t = { 0 };
	int pairs = pcie_only_pairs(&in->f->topo);
	char why[200];

	if (nv->src.status != PROBE_OK) {
		emit(out, CK_NVLINK_LINKS, CHECK_SKIPPED, NULL, "%s",
		     src_why(&nv->src, "nvidia-smi nvlink", why, sizeof(why)));
		return;
	}
	buf_init(&t.bad, 1024);
	for (int i = 0; i < nv->ngpus && i < PROBE_MAX_GPUS; i++)
		tally_gpu(&nv->gpu[i], &t);
	if (!t.links && pairs)
		emit(out, CK_NVLINK_LINKS, CHECK_WARN,
		     "use NVLink-connected GPUs for TP groups, or expect slow all-reduce and staged cuda_ipc",
		     "no NVLink: %d GPU pair%s in the pod talk over PCIe (TP all-reduce and cuda_ipc slow)",
		     pairs, pairs == 1 ? "" : "s");
	else if (!t.links)
		emit_na(out, CK_NVLINK_LINKS, "no NVLink (PCIe board or single GPU)");
	else if (t.dead_gpus == t.gpus)
		emit(out, CK_NVLINK_LINKS, CHECK_FAIL, NULL,
		     "all NVLinks inactive on %d GPUs (fabric manager down?)", t.gpus);
	else if (t.inactive || t.slow)
		emit(out, CK_NVLINK_LINKS, CHECK_WARN, NULL,
		     "degraded NVLink: %s", buf_str(&t.bad));
	else
		emit(out, CK_NVLINK_LINKS, CHECK_OK, NULL,
		     "%d GPUs, %d NVLinks active at full speed", t.gpus, t.links);
	buf_release(&t.bad);
}

static int zero_id(const char *s)
{
	return !*s || strspn(s, "0-:x") == strlen(s);
}

/* D3: "N/A" and "Not Supported" mean the driver does not report it,
 * never "degraded": a healthy 8x H100 reports Completed/Success with
 * Health Bandwidth N/A (jdh4/job_data_2023 della H100, driver 560.35.03;
 * NVIDIA/k8s-test-infra testdata qx-h100.xml, driver 580.105.08). */
static int not_reported(const char *v)
{
	return !*v || !strcasecmp(v, "N/A") || !strcasecmp(v, "Not Supported");
}

static int bandwidth_degraded(const char *v)
{
	return !not_reported(v) && strcmp(v, "Full");
}

/* D3: four-field rule (State, Status, CliqueId, ClusterUUID); N/A is a
 * PCIe board (skip), never a pass. */
static void fabric(const struct check_input *in, struct check_results *out)
{
	const struct probe_nvsmi *s = &in->f->nvsmi;
	int bad = 0, unhealthy = 0, done = 0;
	char why[200], first[128] = "";

	if (s->src.status != PROBE_OK) {
		emit(out, CK_NVLINK_FABRIC, CHECK_SKIPPED, NULL, "%s",
		     src_why(&s->src, "nvidia-smi -q", why, sizeof(why)));
		return;
	}
	for (int i = 0; i < s->ngpus && i < PROBE_MAX_GPUS; i++) {
		const struct probe_gpu *g = &s->gpu[i];

		if (g->fabric_state == PROBE_FABRIC_NA ||
		    g->fabric_state == PROBE_FABRIC_UNKNOWN)
			continue;
		if (g->fabric_state != PROBE_FABRIC_COMPLETED ||
			   strcmp(g->fabric_status, "Success")) {
			if (!bad++)
				snprintf(first, sizeof(first), "GPU%d State %s, Status %s",
					 i, g->fabric_state_str, g->fabric_status);
		} else if (!strcmp(g->health_summary, "Unhealthy") ||
			   bandwidth_degraded(g->health_bandwidth)) {
			if (!unhealthy++ && !bad)
				snprintf(first, sizeof(first), "GPU%d Health %s, Bandwidth %s",
					 i, g->health_summary, g->health_bandwidth);
		} else {
			done++;
		}
	}
	if (bad)
		emit(out, CK_NVLINK_FABRIC, CHECK_FAIL, NULL,
		     "NVSwitch fabric not ready on %d GPU%s: %s", bad,
		     bad == 1 ? "" : "s", first);
	else if (unhealthy)
		emit(out, CK_NVLINK_FABRIC, CHECK_WARN, NULL,
		     "NVLink fabric degraded on %d GPU%s: %s", unhealthy,
		     unhealthy == 1 ? "" : "s", first);
	else if (done)
		emit(out, CK_NVLINK_FABRIC, CHECK_OK, NULL,
		     "fabric Completed/Success on %d GPU%s", done,
		     done == 1 ? "" : "s");
	else
		emit_na(out, CK_NVLINK_FABRIC, "fabric state N/A (no NVSwitch)");
}

/* D4: KV over cuda_ipc across trays needs an IMEX channel and a clique. */
static void imex(const struct check_input *in, struct check_results *out)
{
	const struct probe_nvsmi *s = &in->f->nvsmi;
	int clique = 0, imex_claim;

	if (!is_yes(envv(in, "UCX_CUDA_IPC_ENABLE_MNNVL")) &&
	    !is_yes(envv(in, "NCCL_MNNVL_ENABLE"))) {
		emit_na(out, CK_NVLINK_IMEX, "multi-node NVLink not configured");
		return;
	}
	for (int i = 0; i < s->ngpus && i < PROBE_MAX_GPUS; i++)
		clique += !zero_id(s->gpu[i].clique_id) &&
			  !zero_id(s->gpu[i].cluster_uuid);
	/* Only a ComputeDomain/IMEX claim gives the IMEX channel (podspec.c's
	 * driver names); a GPU-only claim does not. */
	imex_claim = claims_of_kind(in->spec, CLAIM_IMEX);
	if (imex_claim > 0 && clique)
		emit(out, CK_NVLINK_IMEX, CHECK_OK, NULL,
		     "MNNVL: ComputeDomain claim present, %d GPU%s in an NVLink clique",
		     clique, clique == 1 ? "" : "s");
	else if (imex_claim < 0 && clique)
		emit(out, CK_NVLINK_IMEX, CHECK_SKIPPED, NULL,
		     "MNNVL: the pod's resource claims could not be read, so no "
		     "ComputeDomain claim could be confirmed");
	else
		emit(out, CK_NVLINK_IMEX,
		     in->fabric == FABRIC_NVLINK && in->cross_pod ?
		     CHECK_FAIL : CHECK_WARN, NULL,
		     "MNNVL configured but %s: cross-node KV cannot use cuda_ipc",
		     clique ? "no ComputeDomain/IMEX resource claim" :
		     "no GPU reports a non-zero CliqueId/ClusterUUID");
}

/* D6 (issue 42): which way vLLM's connector moves KV.  NixlConnector is
 * the alias of NixlPullConnector, whose decode worker READs the prefill's
 * blocks (vllm-project/vllm#52607: pull_worker.py make_prepped_xfer("READ",
 * ...)); NixlPushConnector WRITEs them.  0: not said in the args. */
static char kv_direction(const char *args)
{
	if (!args)
		return 0;
	if (strstr(args, "NixlPushConnector"))
		return 'W';
	if (strstr(args, "NixlConnector") || strstr(args, "NixlPullConnector"))
		return 'R';
	return 0;
}

/* 1: some GPU has an active NVLink; 2: none (a PCIe board: nvidia-smi
 * nvlink --status prints nothing, or every link inactive), as UCX finds
 * it: cuda_ipc_iface.c uct_cuda_ipc_get_device_nvlinks() counts the links
 * whose remote end NVML can read; 0 unknown. */
static int nvlink_state(const struct probe_nvlink *nv)
{
	if (nv->src.status != PROBE_OK)
		return 0;
	for (int i = 0; i < nv->ngpus && i < PROBE_MAX_GPUS; i++)
		if (nv->gpu[i].nlinks > nv->gpu[i].n_inactive)
			return 1;
	return 2;
}

/* The engine's switch for KV with a CUDA fabric handle, which cuda_ipc
 * needs to export KV across the trays of an NVLink domain: vLLM's
 * VLLM_KV_CACHE_FABRIC=1 (vllm-project/vllm PR #51377; without it KV is
 * plain cudaMalloc), SGLang's SGLANG_NIXL_VMM_MEM_POOL (sgl-project/sglang
 * PR #23033).  1 on, 2 off, 0 another engine or not said. */
static int fabric_mem(const struct check_input *in)
{
	const char *args = in->ctx->args;
	const char *v;

	if (!args || !env_readable(in))
		return 0;
	if (strstr(args, "vllm"))
		v = envv(in, "VLLM_KV_CACHE_FABRIC");
	else if (strstr(args, "sglang"))
		v = envv(in, "SGLANG_NIXL_VMM_MEM_POOL");
	else
		return 0;
	return is_yes(v) ? 1 : 2;
}

/* Where KV leaving the pod can only take cuda_ipc: NVLink "fabric" for a
 * pod whose KV crosses pods (check.c check_fabric: no RDMA device, and
 * either every KV peer on this node in the host's IPC namespace, or
 * UCX_CUDA_IPC_ENABLE_MNNVL on), NIXL over UCX, cuda_ipc in UCX_TLS. */
static int ipc_path(const struct check_input *in, const struct check_summary *s)
{
	const char *be = in->ctx->nixl_backend;

	if (!in->cross_pod || in->fabric != FABRIC_NVLINK || !env_readable(in) ||
	    (be && *be && !strstr(be, "UCX")) || check_mooncake_kv(in) ||
	    !(envr_tls_allowed(envv(in, "UCX_TLS")) & (1u << ENVR_TL_CUDA_IPC)))
		return 0;
	if (in->ctx->kv_known && !in->ctx->kv_cross_node)
		return 1;
	return s->mnnvl == 1 || s->mnnvl == 2 ? 2 : 0;
}

static void ipc_digest(const struct check_input *in, struct check_summary *s)
{
	const char *get = envv(in, "UCX_CUDA_IPC_ENABLE_GET_ZCOPY");

	s->ipc_path = ipc_path(in, s);
	s->nvlink = nvlink_state(&in->f->nvlink);
	s->kv_dir = kv_direction(in->ctx->args);
	s->ipc_get = is_yes(get) ? 1 : is_no(get) ? 2 : 0;
	s->fabric_mem = fabric_mem(in);
}

void check_nvlink(const struct check_input *in, struct check_results *out)
{
	ipc_digest(in, &out->summary);
	links(in, out);
	fabric(in, out);
	imex(in, out);
}
