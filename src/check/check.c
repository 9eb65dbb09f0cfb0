/* The per-pod driver: fabric detection (checks.md N1), then every family
 * in turn (internal.h), then the cross-pod digest. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/internal.h"
#include "model/podspec.h"
#include "model/envrules.h"
#include "model/reason.h"
#include "probe/facts.h"
#include "util/xalloc.h"

/* ---- fabric (checks.md N1) ----------------------------------------- */

static enum fabric link_fabric(const struct probe_rdma_list *l)
{
	int ib = 0, eth = 0, ib_up = 0, eth_up = 0;

	for (int i = 0; i < l->ndevs; i++) {
		if (dev_is_efa(&l->dev[i]))
			continue;
		for (int p = 0; p < l->dev[i].nports; p++) {
			const struct probe_rdma_port *pt = &l->dev[i].port[p];
			int up = pt->state == PROBE_PORT_ACTIVE;

			if (pt->link_layer == PROBE_LL_IB) {
				ib++;
				ib_up += up;
			} else if (pt->link_layer == PROBE_LL_ETH) {
				eth++;
				eth_up += up;
			}
		}
	}
	if (ib_up || eth_up)
		return ib_up ? FABRIC_INFINIBAND : FABRIC_ROCE;
	if (ib || eth)
		return ib >= eth ? FABRIC_INFINIBAND : FABRIC_ROCE;
	return FABRIC_UNKNOWN;
}

static int mnnvl_configured(const struct probe_facts *f)
{
	const char *v;

	if (f->env.src.status != PROBE_OK)
		return 0;
	v = probe_env_get(&f->env, "UCX_CUDA_IPC_ENABLE_MNNVL");
	return v && (is_yes(v));
}

static int resolve_cross_pod(const struct check_context *ctx)
{
	if (ctx->kv_known)
		return ctx->kv_cross_pod > 0;
	/* An aggregated worker keeps its KV; anything else may ship it. */
	return !(ctx->role && !strcmp(ctx->role, "worker"));
}

enum fabric check_fabric(const struct probe_facts *f,
			 const struct pod_spec_facts *spec,
			 const struct check_context *ctx)
{
	const struct probe_rdma_list *l = f ? rdma_list(f) : NULL;
	int nib, nefa;
	enum fabric lf;

	if (!resolve_cross_pod(ctx))
		return FABRIC_NVLINK;
	rdma_count(l, &nib, &nefa);
	if (nefa || (f && f->fi.n_efa_rdm > 0))
		return FABRIC_EFA;
	if (f && mnnvl_configured(f) && !nib)
		return FABRIC_NVLINK;
	if (nib) {
		lf = l ? link_fabric(l) : FABRIC_UNKNOWN;
		if (lf != FABRIC_UNKNOWN)
			return lf;
		return ctx->expected == FABRIC_ROCE ? FABRIC_ROCE
						    : FABRIC_INFINIBAND;
	}
	/* Every KV pod on this one node and in the host's IPC namespace, no
	 * NIC: cuda_ipc carries KV over NVLink/PCIe (openucx/ucx#10070), no
	 * RDMA needed (issue 39 item 5). */
	if (l && ctx->kv_known && !ctx->kv_cross_node && spec && spec->host_ipc > 0)
		return FABRIC_NVLINK;
	if (!l)  /* could not look at all */
		return spec && spec->efa_devices > 0 ? FABRIC_EFA : FABRIC_UNKNOWN;
	return FABRIC_TCP;
}

/* ---- the driver ---------------------------------------------------- */

static const struct pod_spec_facts unknown_spec = {
	.gpus = -1, .rdma_devices = -1, .efa_devices = -1, .ipc_lock = -1,
	.sys_resource = -1, .privileged = -1, .host_ipc = -1, .host_network = -1,
	.shm_bytes = -1, .has_resource_claims = -1,
};
static const struct check_context unknown_ctx = { 0 };

static void input_init(struct check_input *in, const struct probe_facts *f,
		       const struct pod_spec_facts *spec,
		       const struct check_context *ctx)
{
	memset(in, 0, sizeof(*in));
	in->f = f;
	in->spec = spec ? spec : &unknown_spec;
	in->ctx = ctx ? ctx : &unknown_ctx;
	in->cross_pod = resolve_cross_pod(in->ctx);
	if (in->ctx->node && *in->ctx->node)
		snprintf(in->on_node, sizeof(in->on_node), " on node %s",
			 in->ctx->node);
}

/* The model facts as the report shows them (docs/report-format.md). */
static void fill_model(const struct probe_model_config *m, struct check_model *o)
{
	static const char *const states[] = {
		[PROBE_MODEL_UNKNOWN] = "unknown", [PROBE_MODEL_OK] = "ok",
		[PROBE_MODEL_ABSENT] = "absent", [PROBE_MODEL_DENIED] = "denied",
		[PROBE_MODEL_TOO_LARGE] = "too_large", [PROBE_MODEL_UNRESOLVED] = "unresolved",
	};

	copy_str(o->state, sizeof o->state, m->src.status == PROBE_NOT_LOOKED ||
		 m->src.status == PROBE_ABSENT ? "" : states[m->state]);
	copy_str(o->source, sizeof o->source, m->source == PROBE_MODEL_SRC_PATH ? "path"
		 : m->source == PROBE_MODEL_SRC_HUB ? "hub" : "");
	copy_str(o->type, sizeof o->type, m->model_type);
	copy_str(o->architecture, sizeof o->architecture, m->architecture);
	o->sliding_window = m->sliding_window;
	o->hybrid_linear = m->hybrid_linear;
	o->mla = m->mla;
	o->kv_heads = m->num_kv_heads;
	o->layers = m->num_layers;
}

/* The wheels with a version (the probe refused the others). */
static void fill_engines(const struct probe_engine_dists *e, struct check_summary *s)
{
	s->nengines = 0;
	for (int i = 0; i < e->n && s->nengines < (int)(sizeof s->engines / sizeof s->engines[0]); i++)
		if (e->d[i].version[0]) {
			copy_str(s->engines[s->nengines].name, sizeof s->engines[0].name, e->d[i].name);
			copy_str(s->engines[s->nengines].version, sizeof s->engines[0].version, e->d[i].version);
			s->nengines++;
		}
}

static void fill_summary(const struct check_input *in, struct check_summary *s)
{
	const struct probe_facts *f = in->f;
	const char *fi = "";

	copy_str(s->ucx_version, sizeof(s->ucx_version), f->ucx.version);
	copy_str(s->nixl_version, sizeof(s->nixl_version),
		 f->nixl.python_ok ? f->nixl.python_version : "");
	copy_str(s->nixl_backend, sizeof(s->nixl_backend), in->ctx->nixl_backend);
	for (int i = 0; i < f->fi.nentries && !*fi; i++)
		fi = f->fi.entry[i].version;
	copy_str(s->libfabric_version, sizeof(s->libfabric_version), fi);
	copy_str(s->driver_version, sizeof(s->driver_version),
		 in->ev.driver_version);
	copy_str(s->ucx_tls, sizeof(s->ucx_tls), envv(in, "UCX_TLS"));
	copy_str(s->ucx_tls_shown, sizeof(s->ucx_tls_shown), s->ucx_tls);
	fill_model(&f->model_config, &s->model);
	fill_engines(&f->mooncake.engines, s);
}

/* The judge of each check (table.def), by check id. */
typedef void (*check_judge)(const struct check_input *in, struct check_results *out);
#define CHECK(id, nm, fam, rk, judge, ...) [CK_##id] = judge,
static const check_judge judges[CK__COUNT] = {
#include "check/table.def"
};
#undef CHECK

/* Each judge once, at its first row: the table is in emission order.
 * only_spec: just the judges whose every check reads the pod spec alone
 * (family POD), for a pod that could not be probed. */
static void run_judges(const struct check_input *in, struct check_results *out,
		       int only_spec)
{
	size_t n;
	const struct check_def *d = check_defs(&n);

	for (size_t i = 0; i < n; i++) {
		if (!judges[i] || (i && judges[i] == judges[i - 1]))
			continue;
		if (only_spec && d[i].family != FAM_POD)
			continue;
		judges[i](in, out);
	}
}

void check_pod(const struct probe_facts *f, const struct pod_spec_facts *spec,
	       const struct check_context *ctx, struct check_results *out)
{
	struct check_input in;

	input_init(&in, f, spec, ctx);
	evidence_collect(f, &in.ev);
	in.fabric = check_fabric(f, in.spec, in.ctx);
	out->fabric = in.fabric;
	fill_summary(&in, &out->summary);
	check_digest_spec(spec, &out->summary);
	check_digest(&in, &out->summary);
	run_judges(&in, out, 0);
}

void check_pod_unprobed(const char *reason, const struct pod_spec_facts *spec,
			const struct check_context *ctx,
			struct check_results *out)
{
	struct check_input in;
	char *detail;

	input_init(&in, NULL, spec, ctx);
	in.fabric = check_fabric(NULL, in.spec, in.ctx);
	out->fabric = in.fabric;
	copy_str(out->summary.nixl_backend, sizeof(out->summary.nixl_backend),
		 in.ctx->nixl_backend);
	check_digest_spec(spec, &out->summary);
	/* reason is bare (model/reason.h words every miss). */
	detail = reason_not_probed(reason);
	emit(out, CK_POD_PROBE, CHECK_SKIPPED, NULL, "%s", detail);
	free(detail);
	if (spec)
		run_judges(&in, out, 1);
}
