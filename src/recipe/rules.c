/* Findings about a recipe's transport env: the fabric's critical variables
 * (missing: warn, the image may set them), dangerous values (fail), and the
 * KV backend choice (env-vars.md "Danger" columns, checks.md J, dynamo.md
 * §5.3).  Run time values (shell, valueFrom) are not judged: unknown. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The variables are judged by the rule book shared with `check`. */
#include "model/envrules.h"
#include "model/role.h"
#include "model/fwrules.h"
#include "recipe/internal.h"
#include "util/buf.h"
#include "util/xalloc.h"

static void add(struct recipe_component *c, enum recipe_status st, const char *remedy,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add(struct recipe_component *c, enum recipe_status st, const char *remedy,
		const char *fmt, ...)
{
	struct recipe_finding *f;
	char d[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d, sizeof d, fmt, ap);
	va_end(ap);
	ALLOC_GROW(c->findings, c->nfindings + 1, c->findings_alloc);
	f = &c->findings[c->nfindings++];
	f->status = st;
	f->check = NULL;
	f->book = 0;
	f->detail = xstrdup(d);
	f->remedy = xstrdup(remedy);
}

/* A literal (not run time) value of name, or NULL. */
static const char *lit(const struct recipe_component *c, const char *name)
{
	for (size_t i = 0; i < c->nenv; i++)
		if (!strcmp(c->env[i].name, name))
			return c->env[i].dynamic ? NULL : c->env[i].value;
	return NULL;
}

static int libfabric(const struct recipe_component *c)
{
	static const char kvbm[] = "kvbm backend=";

	/* KVBM's own NIXL agent (DYN_KVBM_NIXL_BACKEND_*) is not the
	 * engine's KV transfer: its LIBFABRIC says nothing of that path. */
	for (const char *p = c->kv ? strstr(c->kv, "LIBFABRIC") : NULL; p; p = strstr(p + 1, "LIBFABRIC"))
		if ((size_t)(p - c->kv) < sizeof kvbm - 1 || strncmp(p - (sizeof kvbm - 1), kvbm, sizeof kvbm - 1))
			return 1;
	return 0;
}

/* KV moves between pods: the disaggregated roles. */
static int moves_kv(const struct recipe_component *c)
{
	return c->disagg || !strcmp(c->role, "prefill") || !strcmp(c->role, "decode");
}

/* s in the KV backend choice, any case (TRT-LLM's backend names are). */
static int kv_has(const struct recipe_component *c, const char *s)
{
	size_t n = strlen(s);

	for (const char *p = c->kv; p && *p; p++)
		if (!strncasecmp(p, s, n))
			return 1;
	return 0;
}

/* Mooncake carries the KV: SGLang's backend named mooncake (flag or its
 * --config YAML), or not named on a disaggregated SGLang worker (mooncake
 * is server_args.py's default); TensorRT-LLM's cache transceiver MOONCAKE. */
static int mooncake_kv(const struct recipe_component *c)
{
	if (kv_has(c, "transfer-backend=mooncake") || kv_has(c, "backend=MOONCAKE"))
		return 1;
	if (kv_has(c, "transfer-backend="))
		return 0;
	return moves_kv(c) && c->args &&
	       (strstr(c->args, "dynamo.sglang") || strstr(c->args, "sglang.launch_server"));
}

/* The recipe as the rule book's context: the fabric its resources ask
 * for; whether its devices exist only a running pod can tell. */
struct envr_ctx recipe_book_ctx(const struct recipe_component *c)
{
	struct envr_ctx x = { 0, 0, 0, 0, -1, -1, 0, 0, NULL, 0, NULL, 0, 0, 0, 0, 0, 0 };

	x.fabric = (c->fabric & RECIPE_FAB_IB ? ENVR_FAB_IB : 0) |
		   (c->fabric & RECIPE_FAB_EFA ? ENVR_FAB_EFA : 0) |
		   (c->fabric & RECIPE_FAB_MNNVL ? ENVR_FAB_MNNVL : 0);
	x.kv_nvl_apart = !c->cd_kv;
	x.kv_cross = moves_kv(c);
	x.libfabric = libfabric(c) != 0;
	x.mooncake = mooncake_kv(c);
	envr_shape(&x, model_tp_default(c->args, fwr_tp(c->args)), c->gpus, c->nodes > 0 ? c->nodes : 1);
	/* A pod that takes every GPU of its node shares that node with no
	 * other GPU pod: its KV peers are on other nodes, out of cuda_ipc's
	 * same-host reach. */
	x.peer_apart = c->node_gpus > 0 && c->gpus >= c->node_gpus;
	return x;
}

/* The rule book (model/envrules.c) over the component's effective env:
 * the same rules `check` applies to a running worker. */
static void rule_book(struct recipe_component *c)
{
	struct envr_var *v = xcalloc(c->nenv + 1, sizeof *v);
	struct envr_view view = { v, c->nenv };
	struct envr_ctx x = recipe_book_ctx(c);
	struct envr_finding *f;
	size_t n;

	for (size_t i = 0; i < c->nenv; i++) {
		v[i].name = c->env[i].name;
		v[i].value = c->env[i].value;
		v[i].origin = ENVR_FROM_RECIPE;
		v[i].dynamic = c->env[i].dynamic;
	}
	n = envr_eval(&view, &x, &f);
	for (size_t i = 0; i < n; i++) {
		add(c, f[i].sev == ENVR_FAIL ? RECIPE_FAIL : RECIPE_WARN, f[i].rule->remedy,
		    "%s", f[i].detail);
		c->findings[c->nfindings - 1].book = (int)f[i].rule->check + 1;
	}
	free(f);
	free(v);
}

int recipe_book_judge(const struct recipe_component *c, const char *name,
		      const char *value, char *why, size_t n)
{
	struct envr_var v = { name, value, ENVR_FROM_PROCESS, 0, NULL };
	struct envr_view view = { &v, 1 };
	struct envr_ctx x = recipe_book_ctx(c);
	struct envr_finding *f;
	size_t nf;
	int sev = 0;
	char ck[ENVR_CHECK_NAME_MAX];

	x.process = 1;
	nf = envr_eval(&view, &x, &f);
	for (size_t i = 0; i < nf; i++)
		if ((int)f[i].sev > sev) {
			sev = f[i].sev;
			snprintf(why, n, "%s (%s)", f[i].detail,
				 envr_check_name(f[i].rule->check, ck, sizeof ck));
		}
	free(f);
	return sev;
}

/* Recipe-only: whether an RDMA resource is requested at all (a live pod
 * has pod-rdma-resource for that). */
static void rule_resource(struct recipe_component *c)
{
	/* A ComputeDomain carries KV only to peers claiming the same one
	 * (mark_cd): one a role claims alone (Dynamo's glm-5-nvfp4 SGLang
	 * disagg: decode's, prefill outside it) is no KV path.  Only a graph
	 * with both roles shows who the peers are. */
	unsigned alone = c->disagg && !c->cd_kv ? RECIPE_FAB_MNNVL : 0u;
	const char *cd = c->fabric & alone ? "; its ComputeDomain is claimed by no KV peer" : "";

	if (!moves_kv(c) || (c->fabric & ~alone))
		return;
	/* checks.md J1: fail for multi-node disaggregation */
	if (c->nodes > 1)
		add(c, RECIPE_FAIL, "request rdma/ib (one per GPU) or vpc.amazonaws.com/efa for the workers",
		    "no RDMA resource requested (rdma/ib, vpc.amazonaws.com/efa, ComputeDomain) for a worker across %d nodes%s: KV transfer between nodes has no RDMA path",
		    c->nodes, cd);
	else
		add(c, RECIPE_WARN, "request rdma/ib (one per GPU) or vpc.amazonaws.com/efa for the workers",
		    "no RDMA resource requested (rdma/ib, vpc.amazonaws.com/efa, ComputeDomain)%s: KV transfer between pods will use TCP unless they share a node",
		    cd);
}

/* KV over the NVLink fabric (Mooncake's NVLINK memory pool or
 * MC_FORCE_MNNVL, SGLang; UCX's cuda_ipc with no RDMA resource) reaches
 * only GPUs of the same NVLink domain: prefill and decode free to land in
 * different cliques fail quietly.  Dynamo's deepseek-v4.1-flash SGLang
 * disagg-gb200 recipe: "reports Ready and chat completions return HTTP 200
 * with content null" across cliques. */
static void rule_clique(struct recipe_component *c)
{
	const char *pool = recipe_env_get(c, "SGLANG_MOONCAKE_CUSTOM_MEM_POOL");
	int nvl;

	if (!moves_kv(c) || !(c->fabric & RECIPE_FAB_MNNVL) || !c->cd_kv || c->clique)
		return;
	if (mooncake_kv(c))
		nvl = (pool && !strcasecmp(pool, "NVLINK")) || envr_is_yes(recipe_env_get(c, "MC_FORCE_MNNVL")) ||
		      kv_has(c, "mem-pool=NVLINK");
	else
		nvl = !(c->fabric & (RECIPE_FAB_IB | RECIPE_FAB_EFA)) && !libfabric(c);
	if (nvl)
		add(c, RECIPE_WARN, "pin prefill and decode to one NVLink clique (node affinity on nvidia.com/gpu.clique, or podAffinity with topologyKey nvidia.com/gpu.clique)",
		    "KV over multi-node NVLink with nothing keeping prefill and decode in one NVLink clique (nvidia.com/gpu.clique): across cliques the transfer fails while the pods report Ready");
}

/* TensorRT-LLM's cache transceiver DEFAULT is NIXL, whose plugin is UCX
 * unless TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC (ai-dynamo/dynamo docs/
 * backends/trtllm/kv-cache-transfer.md "Configuring the NIXL Backend";
 * TensorRT-LLM docs/features/disagg-serving.md). */
static int trtllm_nixl(const struct recipe_component *c)
{
	return kv_has(c, "cache_transceiver backend=DEFAULT") || kv_has(c, "cache_transceiver backend=NIXL");
}

static void rule_kv(struct recipe_component *c)
{
	if (!c->kv)
		return;
	if (!(c->fabric & RECIPE_FAB_EFA) || libfabric(c))
		return;
	if (trtllm_nixl(c) && moves_kv(c))
		add(c, RECIPE_WARN, "set TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC on prefill and decode",
		    "TensorRT-LLM's NIXL cache transceiver uses UCX unless TRTLLM_NIXL_KVCACHE_BACKEND=LIBFABRIC: on AWS EFA, UCX without srd moves KV over TCP");
	if (strstr(c->kv, "backends=UCX"))
		add(c, RECIPE_FAIL, "set kv_connector_extra_config.backends to [\"LIBFABRIC\"]",
		    "NIXL backend UCX on AWS EFA: KV transfer runs on TCP emulation (~0.3 GB/s)");
	else if (strstr(c->kv, "NixlConnector"))
		add(c, RECIPE_WARN, "set kv_connector_extra_config.backends to [\"LIBFABRIC\"]",
		    "NixlConnector without backends uses UCX, which on EFA needs UCX_TLS=srd");
}

#define ARGS_MAX (256u << 10)

void recipe_args_add(struct recipe_component *c, const char *text)
{
	size_t have = c->args ? strlen(c->args) : 0;
	char *j;

	if (have + strlen(text) > ARGS_MAX)
		return;
	j = c->args ? xasprintf("%s\n%s", c->args, text) : xstrdup(text);
	free(c->args);
	c->args = j;
}

/* The component as the framework book's worker (model/fwrules.h); v is
 * the caller's, filled here. */
static struct fwr_worker fw_worker(const struct recipe_component *c, struct envr_view *view)
{
	struct fwr_worker w = { c->args, view, c->role, moves_kv(c), -1, 0, -1, 1, NULL, NULL, NULL, -1,
				NULL, FWR_HOSTIP_UNKNOWN };
	struct envr_var *v = xcalloc(c->nenv + 1, sizeof *v);

	for (size_t i = 0; i < c->nenv; i++) {
		v[i].name = c->env[i].name;
		v[i].value = c->env[i].value;
		v[i].origin = ENVR_FROM_RECIPE;
		v[i].dynamic = c->env[i].dynamic;
	}
	view->v = v, view->n = c->nenv;
	w.fabric = recipe_book_ctx(c).fabric;
	w.gpus = c->gpus;
	w.nodes = c->nodes > 0 ? c->nodes : 1;
	return w;
}

static void fw_add(struct recipe_component *c, const struct fwr_finding *f)
{
	if (f->sev == ENVR_OK)
		return;
	add(c, f->sev == ENVR_FAIL ? RECIPE_FAIL : RECIPE_WARN, f->remedy, "%s", f->detail);
	/* f->check is the book's id (model/fwfind.h); the row's name is the
	 * check table's, which a recipe does not see */
}

/* checks.md J5-J7, J9, J10: the framework book over the component's args
 * and env, the same rules `check` applies to a pod's spec. */
static void rule_framework(struct recipe_component *c)
{
	struct fwr_finding f[FWR_MAX];
	struct envr_view view;
	struct fwr_worker w = fw_worker(c, &view);
	size_t n = fwr_eval(&w, f);

	for (size_t i = 0; i < n; i++)
		fw_add(c, &f[i]);
	free((void *)view.v);
}

/* The prefill/decode pair rules (fwrules.h fwr_pairs; the model's kind
 * is not in a recipe: a rule that needs it is not judged). */
static void rule_fw_pair(struct recipe_component *p, struct recipe_component *d)
{
	struct envr_view pv, dv;
	struct fwr_worker pw = fw_worker(p, &pv), dw = fw_worker(d, &dv);
	struct fwr_finding f[FWR_MAX];
	size_t n = fwr_pairs(&pw, &dw, NULL, f, FWR_MAX);

	for (size_t i = 0; i < n; i++)
		if (!f[i].unknown)
			fw_add(d, &f[i]);
	free((void *)pv.v), free((void *)dv.v);
}

/* checks.md J3: prefill and decode of one graph must agree. */
static void rule_pair(struct recipe_set *s, struct recipe_component *d)
{
	for (size_t i = 0; i < s->n; i++) {
		struct recipe_component *p = &s->comps[i];
		const char *pt, *dt;

		if (strcmp(p->role, "prefill") || strcmp(p->file, d->file) || strcmp(p->graph, d->graph))
			continue;
		rule_fw_pair(p, d);
		pt = lit(p, "UCX_TLS"), dt = lit(d, "UCX_TLS");
		if ((pt || dt) && (!pt || !dt || strcmp(pt, dt)))
			add(d, RECIPE_WARN, "set the same UCX_TLS on prefill and decode",
			    "UCX_TLS differs: prefill %s %s, decode %s", p->name,
			    pt ? pt : "unset", dt ? dt : "unset");
		return;
	}
}

void recipe_judge(struct recipe_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct recipe_component *c = &s->comps[i];

		if (!c->worker)
			continue;
		recipe_findings_free(c->findings, c->nfindings);
		c->findings = NULL, c->nfindings = 0, c->findings_alloc = 0;
		for (size_t j = 0; j < c->nnotes; j++)
			add(c, RECIPE_WARN, "keep the paths the kustomization names beside it, "
			    "or pass the output of `kustomize build`", "%s", c->notes[j]);
		rule_resource(c);
		rule_clique(c);
		rule_book(c);
		rule_kv(c);
		rule_framework(c);
		if (!strcmp(c->role, "decode"))
			rule_pair(s, c);
	}
}

enum recipe_status recipe_worst(const struct recipe_set *s)
{
	enum recipe_status w = RECIPE_OK;

	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; s->comps[i].worker && j < s->comps[i].nfindings; j++)
			if (s->comps[i].findings[j].status > w)
				w = s->comps[i].findings[j].status;
	return w;
}
