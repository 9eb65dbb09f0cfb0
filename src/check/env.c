/* ENV family: the transport variables of the worker's main process
 * (checks.md I, E4; env-vars.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check/env.h"
#include "check/internal.h"
#include "model/podspec.h"
#include "model/envrules.h"
#include "model/fwrules.h"
#include "model/role.h"
#include "probe/facts.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* The one UCX_TLS parser is the rule book's; this maps its bits onto the
 * probe's transport numbering, which the other families use. */
unsigned ucx_tls_allowed(const char *tls)
{
	unsigned m = envr_tls_allowed(tls), out = 0;

	for (int t = 0; t < PROBE_TL_COUNT; t++) {
		int b = envr_tl_by_name(probe_ucx_tl_name((enum probe_ucx_tl)t));

		if (b >= 0 && (m & (1u << b)))
			out |= TLB(t);
	}
	return out;
}

static void skipped_env(const struct check_input *in, enum check_id id,
			struct check_results *out)
{
	char why[200];

	emit(out, id, CHECK_SKIPPED, NULL, "%s",
	     src_why(&in->f->env.src, "/proc/1/environ", why, sizeof(why)));
}

/* An UCX_NET_DEVICES token names an RDMA port that is up? */
static int token_up(const struct check_input *in, const char *tok, size_t len,
		    int *exists)
{
	const struct probe_rdma_list *l = rdma_list(in->f);

	*exists = 0;
	for (int i = 0; l && i < l->ndevs; i++) {
		const struct probe_rdma_dev *d = &l->dev[i];
		size_t nlen = strcspn(tok, ":");

		if (nlen > len)
			nlen = len;
		if ((strlen(d->name) != nlen || strncmp(d->name, tok, nlen)) &&
		    (strlen(d->netdev) != nlen || strncmp(d->netdev, tok, nlen)))
			continue;
		*exists = 1;
		for (int p = 0; p < d->nports; p++) {
			const struct probe_rdma_port *pt = port_view(in->f, d, p);
			int named;

			if (port_in_use(in, d, pt->num, &named) &&
			    pt->state == PROBE_PORT_ACTIVE)
				return 1;
		}
	}
	return 0;
}

int net_devices_scan(const struct check_input *in, const char *v,
		     struct buf *bad, int *nbad)
{
	int nup = 0;

	*nbad = 0;
	for (const char *p = v; *p;) {
		size_t len = strcspn(p, ",");
		int exists;

		if (token_up(in, p, len, &exists))
			nup++;
		else
			buf_appendf(bad, "%s%.*s %s", (*nbad)++ ? ", " : "",
				    (int)len, p, exists ? "down" : "not an RDMA device here");
		p += len;
		if (*p == ',')
			p++;
	}
	return nup;
}

static int has_nvlink(const struct probe_facts *f)
{
	for (int a = 0; a < f->topo.gpu_rows && a < PROBE_MAX_GPUS; a++)
		for (int b = 0; b < f->topo.ngpus && b < PROBE_MAX_GPUS; b++)
			if (f->topo.gpu_gpu[a][b].link == PROBE_TOPO_NV)
				return 1;
	return 0;
}

static int nixl_is(const struct check_input *in, const char *be)
{
	return in->ctx->nixl_backend && !strcmp(in->ctx->nixl_backend, be);
}

/* check_mooncake_kv: Mooncake carries a live SGLang worker's KV.  A
 * --disaggregation-transfer-backend on the command line wins over the
 * --config YAML (sglang server_args_config_parser.py ConfigArgumentMerger
 * puts the file's flags first, argparse keeps the last), so the file's
 * key (probe section sglang_config) counts only without the flag; with
 * neither, SGLang's default, mooncake (server_args.py), on a worker whose
 * mode, in either place, is prefill or decode.  A value the probe refused
 * leaves the command line's answer. */
int check_mooncake_kv(const struct check_input *in)
{
	const struct probe_sglang_config *g = &in->f->sglang_config;
	const char *a = in->ctx ? in->ctx->args : NULL;

	if (!a)
		return 0;
	if (strstr(a, "--disaggregation-transfer-backend") || g->src.status != PROBE_OK ||
	    g->state != PROBE_ENGINE_OK || (!g->backend[0] && g->nbad))
		return envr_args_mooncake(a);
	if (g->backend[0])
		return !strcmp(g->backend, "mooncake");
	return envr_args_mooncake(a) || !strcmp(g->mode, "prefill") || !strcmp(g->mode, "decode");
}

/* envr_ctx.peer_ipc: a prefill/decode pod whose peer role runs on its node
 * (run.c's kv_peers_apart 0 for a scheduled pod) and that shares the
 * host's IPC namespace, where legacy CUDA IPC handles open. */
static int peer_ipc(const struct check_input *in)
{
	const struct check_context *c = in->ctx;

	if (!c || !c->kv_known || c->kv_peers_apart || !c->node || !*c->node || !c->role)
		return 0;
	if (strcmp(c->role, "prefill") && strcmp(c->role, "decode"))
		return 0;
	return in->spec && in->spec->host_ipc > 0;
}

/* The running pod as the rule book's context: the fabric detected from
 * its devices (checks.md N), NIXL's backend (LIBFABRIC by default on EFA,
 * G4), and what only a pod shows (NVLink, nvidia_peermem). */
static struct envr_ctx book_ctx(const struct check_input *in)
{
	struct envr_ctx x = { 0, 0, 0, 0, -1, -1, 0, 0, NULL, 0, NULL, 0, 0, 0, 0, 0, 0 };
	int imex;

	if (in->fabric == FABRIC_INFINIBAND || in->fabric == FABRIC_ROCE)
		x.fabric = ENVR_FAB_IB;
	else if (in->fabric == FABRIC_EFA)
		x.fabric = ENVR_FAB_EFA;
	/* A ComputeDomain claim gives the IMEX channel; claims that could
	 * not be read are taken to, when the env asks for MNNVL. */
	imex = claims_of_kind(in->spec, CLAIM_IMEX);
	if (imex > 0 || (imex < 0 && (is_yes(envv(in, "UCX_CUDA_IPC_ENABLE_MNNVL")) ||
				      is_yes(envv(in, "NCCL_MNNVL_ENABLE")))))
		x.fabric |= ENVR_FAB_MNNVL;
	x.kv_cross = in->cross_pod;
	x.rdma_needed = needs_rdma(in);
	x.libfabric = nixl_is(in, "LIBFABRIC") || (in->fabric == FABRIC_EFA && !nixl_is(in, "UCX"));
	if (in->f->topo.src.status == PROBE_OK && in->f->topo.ngpus > 1)
		x.nvlink = has_nvlink(in->f);
	/* B1 through the evidence check_pod collected (UCX's three paths,
	 * then /proc/modules), not collected again (3 times a pod). */
	x.peermem = in->ev.peermem.state;
	x.process = 1;
	x.mooncake = check_mooncake_kv(in);
	if (in->ctx && in->spec)
		envr_shape(&x, model_tp_default(in->ctx->args, fwr_tp(in->ctx->args)), in->spec->gpus,
			   in->ctx->nodes > 1 ? in->ctx->nodes : 1);
	x.peer_apart = in->ctx && in->ctx->kv_known && in->ctx->kv_peers_apart;
	x.peer_ipc = peer_ipc(in);
	return x;
}

/* The RoCE ports the workload uses, with their GID tables read (sysfs),
 * as the rule book sees them (envr_ctx.gid_ports). */
#define GID_PORTS_MAX 32
struct gid_view {
	struct envr_gid_port port[GID_PORTS_MAX];
	char name[GID_PORTS_MAX][48];
	size_t n;
};

static void gid_view(const struct check_input *in, struct gid_view *g)
{
	const struct probe_rdma_list *l = &in->f->sysfs_ib;

	g->n = 0;
	if (in->fabric != FABRIC_ROCE)
		return;
	for (int i = 0; i < l->ndevs; i++)
		for (int p = 0; p < l->dev[i].nports && g->n < GID_PORTS_MAX; p++) {
			const struct probe_rdma_port *pt = &l->dev[i].port[p];
			struct envr_gid_port *gp = &g->port[g->n];
			int named;

			if (pt->link_layer != PROBE_LL_ETH || !pt->n_gids ||
			    port_view(in->f, &l->dev[i], p)->state != PROBE_PORT_ACTIVE ||
			    !port_in_use(in, &l->dev[i], pt->num, &named))
				continue;
			dev_port(g->name[g->n], sizeof g->name[0], l->dev[i].name, (size_t)-1, pt->num);
			gid_port_view(pt, g->name[g->n++], gp);
			gp->mc_version = in->f->mooncake.version;
		}
}

void gid_port_view(const struct probe_rdma_port *pt, const char *name, struct envr_gid_port *gp)
{
	*gp = (struct envr_gid_port){ name, pt->gid_mask, pt->roce_v2_mask, pt->ipv4_mask,
				      pt->link_local_mask, 0, 0, 0, NULL };
	for (int i = 0; i < PROBE_GID_ADDRS; i++)
		envr_gid_ndev(gp, i, pt->gid_ndevs[i], pt->gid_ipv4[i]);
	/* indices past the names kept: a netdev, name unknown (not an overlay) */
	gp->ndev |= pt->ndev_mask & ~(((uint64_t)1 << PROBE_GID_ADDRS) - 1);
}

/* The process env as the rule book's view (internal.h). */
struct envr_var *book_view(const struct probe_env *e, struct envr_view *view)
{
	struct envr_var *v = xcalloc(e->n + 1, sizeof *v);

	for (size_t i = 0; i < e->n; i++) {
		v[i].name = e->var[i].name;
		v[i].value = e->var[i].value;
		v[i].origin = ENVR_FROM_PROCESS;
		v[i].secret = e->var[i].secret;
	}
	view->v = v;
	view->n = e->n;
	return v;
}

/* What an ENV check says when no rule of the book fires (ok, or not
 * applicable here), where it says more than generic_quiet(). */
struct env_check {
	enum check_id id;       /* its name and all else: table.def */
	void (*quiet)(const struct check_input *in, const struct envr_view *v,
		      struct check_results *out);
};

static void q_tls(const struct check_input *in, const struct envr_view *v,
		  struct check_results *out)
{
	const char *tls = envr_get(v, "UCX_TLS");

	if (book_ctx(in).libfabric)
		emit_na(out, CK_ENV_UCX_TLS, "NIXL uses LIBFABRIC, not UCX");
	else
		emit(out, CK_ENV_UCX_TLS, CHECK_OK, NULL, "UCX_TLS=%s",
		     tls && *tls ? tls : "unset (all transports)");
}

/* Live refinement the book cannot make: the named devices exist and are
 * Active in this pod (A2). */
static void q_net_devices(const struct check_input *in, const struct envr_view *ev,
			  struct check_results *out)
{
	const char *v = envr_get(ev, "UCX_NET_DEVICES");
	struct buf bad = BUF_INIT(512);
	int nbad, nup;

	if (!v || !*v || !strcmp(v, "all") || !is_rdma_fabric(in->fabric)) {
		emit(out, CK_ENV_UCX_NET_DEVICES, CHECK_OK, NULL,
		     "UCX_NET_DEVICES=%s", v && *v ? v : "all (unset)");
		return;
	}
	nup = net_devices_scan(in, v, &bad, &nbad);
	if (!nup && needs_rdma(in))
		emit(out, CK_ENV_UCX_NET_DEVICES, CHECK_FAIL, NULL,
		     "UCX_NET_DEVICES=%s leaves no Active RDMA port (%s): UCX uses TCP",
		     v, buf_str(&bad));
	else if (nbad)
		emit(out, CK_ENV_UCX_NET_DEVICES, CHECK_WARN, NULL,
		     "UCX_NET_DEVICES=%s: %s", v, buf_str(&bad));
	else
		emit(out, CK_ENV_UCX_NET_DEVICES, CHECK_OK, NULL,
		     "UCX_NET_DEVICES=%s (all Active)", v);
	buf_release(&bad);
}

static void q_gpudirect(const struct check_input *in, const struct envr_view *v,
			struct check_results *out)
{
	const char *gdr = envr_get(v, "UCX_IB_GPU_DIRECT_RDMA");

	if (in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE)
		emit_na(out, CK_ENV_UCX_GPUDIRECT, "no InfiniBand/RoCE path");
	else
		emit(out, CK_ENV_UCX_GPUDIRECT, CHECK_OK, NULL,
		     "UCX_IB_GPU_DIRECT_RDMA=%s", gdr ? gdr : "try (unset)");
}

static void q_rndv(const struct check_input *in, const struct envr_view *v,
		   struct check_results *out)
{
	const char *scheme = envr_get(v, "UCX_RNDV_SCHEME");

	if (in->fabric != FABRIC_EFA || nixl_is(in, "LIBFABRIC"))
		emit_na(out, CK_ENV_UCX_RNDV, "UCX not used on EFA");
	else
		emit(out, CK_ENV_UCX_RNDV, CHECK_OK, NULL, "UCX_RNDV_SCHEME=%s",
		     scheme ? scheme : "auto (unset)");
}

static void q_proto(const struct check_input *in, const struct envr_view *v,
		    struct check_results *out)
{
	const char *p = envr_get(v, "UCX_PROTO_ENABLE");

	(void)in;
	emit(out, CK_ENV_UCX_PROTO, CHECK_OK, NULL, "UCX_PROTO_ENABLE=%s",
	     p ? p : "y (unset)");
}

/* env-ucx-roce judges UCX_IB_ROCE_LOCAL_SUBNET (envrules.c); its ok line
 * names that.  Not UCX_IB_ADDR_TYPE: deprecated since UCX 1.10, and RoCE
 * always routes globally (openucx/ucx src/uct/ib/base/ib_iface.c,
 * uct_ib_iface_is_roce), so its value says nothing (issue 38). */
static void q_roce(const struct check_input *in, const struct envr_view *v,
		   struct check_results *out)
{
	const char *t = envr_get(v, "UCX_IB_ROCE_LOCAL_SUBNET");

	if (in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE)
		emit_na(out, CK_ENV_UCX_ROCE, "no InfiniBand/RoCE path");
	else
		emit(out, CK_ENV_UCX_ROCE, CHECK_OK, NULL, "UCX_IB_ROCE_LOCAL_SUBNET=%s",
		     t ? t : "n (unset)");
}

static void q_mnnvl(const struct check_input *in, const struct envr_view *v,
		    struct check_results *out)
{
	(void)v;
	if (!(book_ctx(in).fabric & ENVR_FAB_MNNVL))
		emit_na(out, CK_ENV_MNNVL, "multi-node NVLink not used");
	else
		emit(out, CK_ENV_MNNVL, CHECK_OK, NULL, "ComputeDomain claimed, MNNVL enabled");
}

static void q_nccl_net(const struct check_input *in, const struct envr_view *v,
		       struct check_results *out)
{
	const char *ibd = envr_get(v, "NCCL_IB_DISABLE"), *net = envr_get(v, "NCCL_NET");

	(void)in;
	emit(out, CK_ENV_NCCL_NET, CHECK_OK, NULL, "NCCL_IB_DISABLE=%s, NCCL_NET=%s",
	     ibd ? ibd : "unset", net ? net : "unset");
}

/* Live refinement: NVL as the P2P level on GPUs that have no NVLink. */
static void q_nccl_p2p(const struct check_input *in, const struct envr_view *v,
		       struct check_results *out)
{
	const char *dis = envr_get(v, "NCCL_P2P_DISABLE"), *lvl = envr_get(v, "NCCL_P2P_LEVEL");

	if (lvl && !strcasecmp(lvl, "NVL") && book_ctx(in).nvlink == 0)
		emit(out, CK_ENV_NCCL_P2P, CHECK_WARN, NULL,
		     "NCCL_P2P_LEVEL=NVL on GPUs without NVLink disables P2P");
	else
		emit(out, CK_ENV_NCCL_P2P, CHECK_OK, NULL,
		     "NCCL_P2P_DISABLE=%s, NCCL_P2P_LEVEL=%s", dis ? dis : "unset",
		     lvl ? lvl : "unset");
}

static void q_nccl_shm(const struct check_input *in, const struct envr_view *v,
		       struct check_results *out)
{
	const char *d = envr_get(v, "NCCL_SHM_DISABLE");

	(void)in;
	emit(out, CK_ENV_NCCL_SHM, CHECK_OK, NULL, "NCCL_SHM_DISABLE=%s", d ? d : "unset");
}

static void q_nccl_cumem(const struct check_input *in, const struct envr_view *v,
			 struct check_results *out)
{
	const char *d = envr_get(v, "NCCL_CUMEM_ENABLE");

	(void)in;
	emit(out, CK_ENV_NCCL_CUMEM, CHECK_OK, NULL, "NCCL_CUMEM_ENABLE=%s", d ? d : "unset");
}

static void q_fi(const struct check_input *in, const struct envr_view *v,
		 struct check_results *out)
{
	const char *prov = envr_get(v, "FI_PROVIDER");
	const char *rdma = envr_get(v, "FI_EFA_USE_DEVICE_RDMA");

	if (in->fabric != FABRIC_EFA)
		emit_na(out, CK_ENV_FI, "not an EFA fabric");
	else
		emit(out, CK_ENV_FI, CHECK_OK, NULL, "FI_PROVIDER=%s, FI_EFA_USE_DEVICE_RDMA=%s",
		     prov ? prov : "unset", rdma ? rdma : "unset");
}

static const struct env_check env_checks[] = {
	{ CK_ENV_UCX_TLS, q_tls },
	{ CK_ENV_UCX_NET_DEVICES, q_net_devices },
	{ CK_ENV_UCX_GPUDIRECT, q_gpudirect },
	{ CK_ENV_UCX_RNDV, q_rndv },
	{ CK_ENV_UCX_PROTO, q_proto },
	{ CK_ENV_UCX_ROCE, q_roce },
	{ CK_ENV_MNNVL, q_mnnvl },
	{ CK_ENV_NCCL_NET, q_nccl_net },
	{ CK_ENV_NCCL_P2P, q_nccl_p2p },
	{ CK_ENV_NCCL_SHM, q_nccl_shm },
	{ CK_ENV_NCCL_CUMEM, q_nccl_cumem },
	{ CK_ENV_FI, q_fi },
};
#define NQUIET (sizeof env_checks / sizeof env_checks[0])

/* The default when no rule fired: each variable of the check's row
 * (table.def), with its value or "unset". */
static void generic_quiet(const struct check_input *in, enum check_id id,
			  const struct envr_view *v, struct check_results *out)
{
	const char *vars = check_def_of(id)->env;
	struct buf b = BUF_INIT(256);

	(void)in;
	for (const char *p = vars; *p;) {
		size_t len = strcspn(p, " ");
		char name[64];
		const char *val;

		copy_strn(name, sizeof name, p, (size_t)len);
		val = envr_get(v, name);
		buf_appendf(&b, "%s%s=%s", p == vars ? "" : ", ", name, val ? val : "unset");
		p += len;
		p += *p == ' ';
	}
	emit(out, id, CHECK_OK, NULL, "%s", buf_str(&b));
	buf_release(&b);
}

/* The ENV checks a live pod reports: the rows of the table in family ENV
 * that the rule book has rules for, in table order (env-drift, judged from
 * a recipe, has none). */
#define ENV_ROW_(x) [ENVR_CK_##x] = CK_ENV_##x,
static const enum check_id env_rows[ENVR_CK__COUNT] = { ENVR_CHECKS(ENV_ROW_) };
#undef ENV_ROW_

enum check_id check_env_row(enum envr_check c)
{
	return env_rows[c];
}

static int book_check(const struct check_def *d)
{
	size_t n;
	const struct envr_rule *r = envr_rules(&n);

	if (d->family != FAM_ENV)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (check_def_of(check_env_row(r[i].check)) == d)
			return 1;
	return 0;
}

static void quiet(const struct check_input *in, enum check_id id,
		  const struct envr_view *v, struct check_results *out)
{
	for (size_t i = 0; i < NQUIET; i++)
		if (env_checks[i].id == id) {
			env_checks[i].quiet(in, v, out);
			return;
		}
	generic_quiet(in, id, v, out);
}

/* One result per check (the JSON contract): the worst finding of the
 * book for it, then the others in table order, "; "-joined.  0 when no
 * rule of this check fired. */
static int emit_book(struct check_results *out, enum check_id id,
		     const struct envr_finding *f, size_t n)
{
	const struct envr_finding *worst = NULL;
	struct buf b = BUF_INIT(2048);

	for (size_t j = 0; j < n; j++)
		if (check_env_row(f[j].rule->check) == id && (!worst || f[j].sev > worst->sev))
			worst = &f[j];
	if (!worst)
		return 0;
	buf_appendf(&b, "%s", worst->detail);
	for (size_t j = 0; j < n; j++)
		if (&f[j] != worst && check_env_row(f[j].rule->check) == id)
			buf_appendf(&b, "; %s", f[j].detail);
	emit(out, id, worst->sev == ENVR_FAIL ? CHECK_FAIL : CHECK_WARN,
	     worst->rule->remedy, "%s", buf_str(&b));
	buf_release(&b);
	return 1;
}

/* I: the rule book's findings on the process env, under their checks;
 * a check no rule fired for says why it is clean (or not applicable). */
void check_env(const struct check_input *in, struct check_results *out)
{
	struct envr_finding *f = NULL;
	struct envr_ctx x;
	struct envr_view view;
	struct envr_var *vars = NULL;
	size_t n = 0, nd;
	const struct check_def *d = check_defs(&nd);
	int readable = env_readable(in);
	struct gid_view gids;
	char note[200];

	if (readable) {
		vars = book_view(&in->f->env, &view);
		x = book_ctx(in);
		gid_view(in, &gids);
		x.gid_ports = gids.port;
		x.n_gid_ports = gids.n;
		x.note = note;
		x.note_n = sizeof note;
		n = envr_eval(&view, &x, &f);
	}
	for (size_t i = 0; i < nd; i++) {
		if (!book_check(&d[i]))
			continue;
		if (!readable)
			skipped_env(in, (enum check_id)i, out);
		else if (!emit_book(out, (enum check_id)i, f, n))
			quiet(in, (enum check_id)i, &view, out);
	}
	free(f);
	free(vars);
}
