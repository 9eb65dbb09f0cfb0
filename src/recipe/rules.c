/* Findings about a recipe's transport env: the fabric's critical variables
 * (missing: warn, the image may set them), dangerous values (fail), and the
 * KV backend choice (env-vars.md "Danger" columns, checks.md J, dynamo.md
 * §5.3).  Run time values (shell, valueFrom) are not judged: unknown. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The one UCX_TLS parser (aliases, ^ deny-lists), shared with the live
 * checks so that a recipe and a pod are judged alike. */
#include "check/internal.h"
#include "recipe/internal.h"
#include "util/xalloc.h"

#define T(x) TLB(PROBE_TL_##x)
#define TL_RDMA (TL_RDMA_IB | T(SRD))

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
	c->findings = xrealloc(c->findings, (c->nfindings + 1) * sizeof *c->findings);
	f = &c->findings[c->nfindings++];
	f->status = st;
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

static int is(const char *v, const char *a)
{
	return v && !strcasecmp(v, a);
}

static int falsy(const char *v)
{
	return is(v, "n") || is(v, "no") || is(v, "0") || is(v, "false") || is(v, "off");
}

static int truthy(const char *v)
{
	return is(v, "y") || is(v, "yes") || is(v, "1") || is(v, "true") || is(v, "on");
}

static int libfabric(const struct recipe_component *c)
{
	return c->kv && strstr(c->kv, "LIBFABRIC");
}

/* KV moves between pods: disagg roles, or any multi-node worker. */
static int moves_kv(const struct recipe_component *c)
{
	return c->disagg || !strcmp(c->role, "prefill") || !strcmp(c->role, "decode");
}

static int has_token(const char *list, const char *tok)
{
	size_t n = strlen(tok);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, tok, n))
			return 1;
		p += len + (p[len] == ',');
	}
	return 0;
}

static void rule_tls(struct recipe_component *c)
{
	const char *v = lit(c, "UCX_TLS");
	unsigned a;
	int deny, mnnvl;

	if (!v || !*v)
		return;
	a = ucx_tls_allowed(v);
	deny = *v == '^';
	mnnvl = (c->fabric & RECIPE_FAB_MNNVL) && (a & T(CUDA_IPC));
	if ((c->fabric & RECIPE_FAB_IB) && !(a & TL_RDMA_IB) && !libfabric(c))
		add(c, mnnvl ? RECIPE_WARN : RECIPE_FAIL,
		    "add rc (or rc_x,dc_x) to UCX_TLS, or leave it unset",
		    "UCX_TLS=%s allows no InfiniBand/RoCE transport: KV transfer %s TCP", v,
		    mnnvl ? "outside the NVLink domain uses" : "falls back to");
	else if ((c->fabric & RECIPE_FAB_EFA) && !(a & TL_RDMA) && !libfabric(c))
		add(c, RECIPE_FAIL, "use the NIXL LIBFABRIC backend, or UCX_TLS=srd,cuda_copy,tcp",
		    "UCX_TLS=%s allows no EFA transport (srd): UCX KV transfer uses TCP", v);
	else if (!c->fabric && moves_kv(c) && !(a & TL_RDMA) && (a & T(TCP)))
		add(c, RECIPE_WARN, "request an RDMA resource and allow rc/srd in UCX_TLS",
		    "UCX_TLS=%s is TCP only for KV transfer between pods", v);
	if (!(a & T(CUDA_COPY)))
		add(c, RECIPE_FAIL, "add cuda_copy (and cuda_ipc) to UCX_TLS",
		    "UCX_TLS=%s lacks cuda_copy: UCX will not recognise GPU memory", v);
	else if (!(a & T(CUDA_IPC)))
		add(c, RECIPE_WARN, deny ? "drop cuda_ipc from the ^ list" : "add cuda_ipc to UCX_TLS",
		    "UCX_TLS=%s excludes cuda_ipc: same-node transfers are staged through host", v);
	if (!deny && (has_token(v, "rc_mlx5") || has_token(v, "rc_verbs")) &&
	    !(a & (T(UD_MLX5) | T(UD_VERBS))))
		add(c, RECIPE_WARN, "add ud_x (or use the alias rc)",
		    "UCX_TLS=%s has RC without UD, which RC needs for bootstrap", v);
}

/* UCX_NET_DEVICES: all | dev[:port][,...]; HCAs need their port. */
static void rule_net_devices(struct recipe_component *c)
{
	const char *v = lit(c, "UCX_NET_DEVICES");
	int hca = 0, netdev = 0, bad = 0, noport = 0;

	if (!v)
		return;
	for (const char *p = v;; p++) {
		size_t len = strcspn(p, ","), colon = strcspn(p, ":,");
		size_t i;

		if (len == 0)
			bad = 1;
		for (i = 0; i < colon; i++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", p[i]))
				bad = 1;
		if (colon < len) {
			hca = 1;
			if (colon + 1 == len || strspn(p + colon + 1, "0123456789") != len - colon - 1)
				bad = 1;
		} else if (!(len == 3 && !strncmp(p, "all", 3))) {
			if (!strncmp(p, "mlx5_", 5) || !strncmp(p, "rdmap", 5) || !strncmp(p, "ibp", 3))
				noport = 1;
			else
				netdev = 1;
		} else {
			hca = 1;
		}
		p += len;
		if (!*p)
			break;
	}
	if (bad)
		add(c, RECIPE_FAIL, "write UCX_NET_DEVICES as all or mlx5_0:1,mlx5_1:1",
		    "UCX_NET_DEVICES=%s is not a device list (dev:port,...)", v);
	else if (noport)
		add(c, RECIPE_WARN, "give each HCA its port, e.g. mlx5_0:1",
		    "UCX_NET_DEVICES=%s names an HCA without its port", v);
	else if (netdev && !hca && (c->fabric & (RECIPE_FAB_IB | RECIPE_FAB_EFA)))
		add(c, RECIPE_FAIL, "name the RDMA devices (mlx5_N:1) or leave UCX_NET_DEVICES unset",
		    "UCX_NET_DEVICES=%s names only network interfaces: UCX uses TCP on an RDMA fabric", v);
}

struct simple_rule {
	const char *name;
	int (*bad)(const char *v);
	unsigned fabric;            /* only on these fabrics; 0 = always */
	enum recipe_status st;
	const char *why;
	const char *remedy;
};

static int eq1(const char *v) { return is(v, "1"); }
static int eq0(const char *v) { return is(v, "0"); }
static int ne0(const char *v) { return !is(v, "0"); }
static int socket_net(const char *v) { return is(v, "Socket"); }
static int gdr_off(const char *v) { return is(v, "LOC") || is(v, "0"); }
static int loc(const char *v) { return is(v, "LOC"); }
static int none(const char *v) { return is(v, "none"); }
static int no_efa(const char *v) { return *v != '^' && !strstr(v, "efa"); }
static int get_zcopy(const char *v) { return is(v, "get_zcopy"); }
static int yes(const char *v) { return truthy(v); }

#define IB RECIPE_FAB_IB
#define EFA RECIPE_FAB_EFA
static const struct simple_rule simple[] = {
	{ "NCCL_IB_DISABLE", eq1, IB, RECIPE_FAIL, "disables NCCL's verbs transport: collectives use sockets", "remove NCCL_IB_DISABLE" },
	{ "NCCL_NET", socket_net, IB | EFA, RECIPE_FAIL, "forces NCCL onto sockets", "remove NCCL_NET" },
	{ "NCCL_P2P_DISABLE", eq1, 0, RECIPE_FAIL, "disables CUDA P2P (NVLink) between local GPUs", "remove NCCL_P2P_DISABLE" },
	{ "UCX_IB_GPU_DIRECT_RDMA", falsy, 0, RECIPE_FAIL, "turns GPUDirect RDMA off: GPU buffers are staged through host", "remove it, or set it to yes to fail fast" },
	{ "FI_PROVIDER", no_efa, EFA, RECIPE_FAIL, "does not enable the efa provider", "set FI_PROVIDER=efa or leave it unset" },
	{ "FI_EFA_USE_DEVICE_RDMA", eq0, EFA, RECIPE_FAIL, "emulates RMA in software", "set FI_EFA_USE_DEVICE_RDMA=1" },
	{ "FI_EFA_ENABLE_SHM_TRANSFER", ne0, EFA, RECIPE_FAIL, "must be 0 for NIXL on EFA (Dynamo efa-on-aws)", "set FI_EFA_ENABLE_SHM_TRANSFER=0" },
	{ "UCX_RNDV_SCHEME", get_zcopy, EFA, RECIPE_FAIL, "crashes UCX on EFA with kernel >= 6.8 (remote invalid RD request)", "set UCX_RNDV_SCHEME=auto on EFA" },
	{ "UCX_RNDV_THRESH", eq0, EFA, RECIPE_WARN, "forces zero-copy on CUDA buffers over EFA", "set UCX_RNDV_THRESH=8192 on EFA" },
	{ "NCCL_NET_PLUGIN", none, EFA, RECIPE_WARN, "drops aws-ofi-nccl: NCCL falls back to sockets", "remove NCCL_NET_PLUGIN" },
	{ "UCX_CUDA_COPY_DMABUF", falsy, 0, RECIPE_WARN, "disables the dmabuf GPUDirect path", "remove UCX_CUDA_COPY_DMABUF" },
	{ "UCX_PROTO_ENABLE", falsy, 0, RECIPE_WARN, "selects UCX's legacy protocols", "remove UCX_PROTO_ENABLE" },
	{ "UCX_WARN_UNUSED_ENV_VARS", falsy, 0, RECIPE_WARN, "hides misspelt UCX variables", "remove UCX_WARN_UNUSED_ENV_VARS" },
	{ "UCX_IB_ROCE_LOCAL_SUBNET", yes, 0, RECIPE_WARN, "breaks RoCE across routed subnets", "remove UCX_IB_ROCE_LOCAL_SUBNET" },
	{ "NCCL_NET_GDR_LEVEL", gdr_off, 0, RECIPE_WARN, "disables GPUDirect RDMA for NCCL", "remove NCCL_NET_GDR_LEVEL" },
	{ "NCCL_DMABUF_ENABLE", eq0, 0, RECIPE_WARN, "disables NCCL's dmabuf GPUDirect path", "remove NCCL_DMABUF_ENABLE" },
	{ "NCCL_SHM_DISABLE", eq1, 0, RECIPE_WARN, "forces the network between local GPUs without P2P", "remove NCCL_SHM_DISABLE" },
	{ "NCCL_CUMEM_ENABLE", eq0, 0, RECIPE_WARN, "disables NVLS/MNNVL paths", "remove NCCL_CUMEM_ENABLE" },
	{ "NCCL_P2P_LEVEL", loc, 0, RECIPE_WARN, "disables P2P between GPUs", "remove NCCL_P2P_LEVEL" },
};
#undef IB
#undef EFA

static void rule_simple(struct recipe_component *c)
{
	for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) {
		const struct simple_rule *r = &simple[i];
		const char *v = lit(c, r->name);

		if (v && (!r->fabric || (c->fabric & r->fabric)) && r->bad(v))
			add(c, r->st, r->remedy, "%s=%s %s", r->name, v, r->why);
	}
}

/* The fabric's must-haves, only where KV crosses pods. */
static void rule_critical(struct recipe_component *c)
{
	int ucx = !libfabric(c);

	if (!moves_kv(c))
		return;
	if (!c->fabric)
		add(c, RECIPE_WARN, "request rdma/ib (one per GPU) or vpc.amazonaws.com/efa for the workers",
		    "no RDMA resource requested (rdma/ib, vpc.amazonaws.com/efa, ComputeDomain): KV transfer between pods will use TCP");
	if ((c->fabric & RECIPE_FAB_IB) && ucx && !recipe_env_get(c, "UCX_IB_ADDR_TYPE"))
		add(c, RECIPE_WARN, "set UCX_IB_ADDR_TYPE=eth (RoCE) or ib_global, unless the image does",
		    "UCX_IB_ADDR_TYPE not set: LID addressing does not route between pods on InfiniBand-on-Kubernetes");
	if ((c->fabric & RECIPE_FAB_EFA) && !recipe_env_get(c, "FI_EFA_ENABLE_SHM_TRANSFER"))
		add(c, RECIPE_WARN, "set FI_EFA_ENABLE_SHM_TRANSFER=0, unless the image does",
		    "FI_EFA_ENABLE_SHM_TRANSFER not set: NIXL on EFA needs it 0");
	if ((c->fabric & RECIPE_FAB_MNNVL) && !recipe_env_get(c, "UCX_CUDA_IPC_ENABLE_MNNVL"))
		add(c, RECIPE_WARN, "set UCX_CUDA_IPC_ENABLE_MNNVL=y, unless the image does",
		    "UCX_CUDA_IPC_ENABLE_MNNVL not set on a ComputeDomain (multi-node NVLink) worker");
}

static void rule_mnnvl(struct recipe_component *c)
{
	const char *u = lit(c, "UCX_CUDA_IPC_ENABLE_MNNVL"), *n = lit(c, "NCCL_MNNVL_ENABLE");

	if (c->fabric & RECIPE_FAB_MNNVL)
		return;
	if (truthy(u) || truthy(n))
		add(c, RECIPE_WARN, "claim a ComputeDomain (IMEX channel) for the workers",
		    "%s=%s relies on multi-node NVLink but no ComputeDomain claim is requested",
		    truthy(u) ? "UCX_CUDA_IPC_ENABLE_MNNVL" : "NCCL_MNNVL_ENABLE", truthy(u) ? u : n);
}

static void rule_kv(struct recipe_component *c)
{
	if (!c->kv)
		return;
	if (strstr(c->kv, "transfer-backend=fake"))
		add(c, RECIPE_FAIL, "use --disaggregation-transfer-backend nixl",
		    "SGLang transfer backend 'fake' moves no KV (testing only)");
	if (!(c->fabric & RECIPE_FAB_EFA) || libfabric(c))
		return;
	if (strstr(c->kv, "backends=UCX"))
		add(c, RECIPE_FAIL, "set kv_connector_extra_config.backends to [\"LIBFABRIC\"]",
		    "NIXL backend UCX on AWS EFA: KV transfer runs on TCP emulation (~0.3 GB/s)");
	else if (strstr(c->kv, "NixlConnector"))
		add(c, RECIPE_WARN, "set kv_connector_extra_config.backends to [\"LIBFABRIC\"]",
		    "NixlConnector without backends uses UCX, which on EFA needs UCX_TLS=srd");
}

/* checks.md J3: prefill and decode of one graph must agree. */
static void rule_pair(struct recipe_set *s, struct recipe_component *d)
{
	for (size_t i = 0; i < s->n; i++) {
		struct recipe_component *p = &s->comps[i];
		const char *pt, *dt;

		if (strcmp(p->role, "prefill") || strcmp(p->file, d->file) || strcmp(p->graph, d->graph))
			continue;
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
		c->findings = NULL, c->nfindings = 0;
		for (size_t j = 0; j < c->nnotes; j++)
			add(c, RECIPE_WARN, "keep the paths the kustomization names beside it, "
			    "or pass the output of `kustomize build`", "%s", c->notes[j]);
		rule_tls(c);
		rule_net_devices(c);
		rule_simple(c);
		rule_critical(c);
		rule_mnnvl(c);
		rule_kv(c);
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
