/* The named combinations of the known-issues table (condition "case",
 * docs/known-issues.md) and its computed ways out ("way"): what the small
 * vocabulary of known_cond.c cannot say in one word, each tied to the
 * report that describes it.  Moved from knownbad.c's rows (issue 26 item
 * 2) unchanged in what they judge. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/known_int.h"
#include "probe/facts.h"
#include "util/buf.h"

/* nixl >= 1.1.0 installs both CUDA builds, and before 1.3.0 both wrote
 * site-packages/nixl_ep/nixl_ep_cpp.so: the one installed last wins and
 * needs its own libcudart (ai-dynamo/nixl#1705). */
static int both_cuda_builds(const struct kb_in *k, char *why, size_t n)
{
	const struct probe_nixl *x = &k->in->f->nixl;

	if (!x->dist_version[PROBE_NIXL_DIST_CU12][0] ||
	    !x->dist_version[PROBE_NIXL_DIST_CU13][0])
		return 0;
	snprintf(why, n, "nixl-cu12 %s and nixl-cu13 %s both installed",
		 x->dist_version[PROBE_NIXL_DIST_CU12],
		 x->dist_version[PROBE_NIXL_DIST_CU13]);
	return 1;
}

/* A RoCE LAG device: the kernel names it mlx5_bond_N, or its GIDs sit on
 * a bond netdev (rdma_bond0 when renamed). */
const struct probe_rdma_dev *known_bond_dev(const struct probe_facts *f)
{
	const struct probe_rdma_list *l = rdma_list(f);

	for (int i = 0; l && i < l->ndevs; i++) {
		const struct probe_rdma_dev *d = &l->dev[i];

		if (strstr(d->name, "bond"))
			return d;
		for (int p = 0; p < d->nports; p++)
			if (d->port[p].link_layer == PROBE_LL_ETH &&
			    !strncmp(d->port[p].gid_ndev, "bond", 4))
				return d;
	}
	return NULL;
}

/* UCX offers rc_mlx5 on device dev (ucx_info -d); 1 also when ucx_info -d
 * was not read (rc_mlx5 is then taken to be there, as on any mlx5). */
static int has_rc_mlx5(const struct probe_ucx *u, const char *dev)
{
	size_t l = strlen(dev);

	if (u->d_src.status != PROBE_OK)
		return 1;
	for (int i = 0; i < u->ntls; i++)
		if (!strcmp(u->tl[i].name, "rc_mlx5") &&
		    !strncmp(u->tl[i].device, dev, l) &&
		    (u->tl[i].device[l] == ':' || !u->tl[i].device[l]))
			return 1;
	return 0;
}

/* openucx/ucx#11955: rc_verbs on a RoCE LAG bond with ECE applied
 * (PR #11262) runs at 2.9 MB/s; rc_mlx5 on the same bond does not.  UCX
 * takes rc_mlx5 where it is allowed and offered, so rc_verbs carries RC
 * only when UCX_TLS leaves it alone or the device has no rc_mlx5. */
static int bond_rc_verbs_ece(const struct kb_in *k, char *why, size_t n)
{
	const struct probe_rdma_dev *d = known_bond_dev(k->in->f);
	unsigned tls = ucx_tls_allowed(envr_get(&k->env, "UCX_TLS"));

	if (!d || !(tls & TLB(PROBE_TL_RC_VERBS)) || envr_ucx_rc_ece_off(&k->env))
		return 0;
	if ((tls & TLB(PROBE_TL_RC_MLX5)) && has_rc_mlx5(&k->in->f->ucx, d->name))
		return 0;
	snprintf(why, n, "rc_verbs on the RoCE LAG device %s, UCX_RC_ECE not 0",
		 d->name);
	return 1;
}

/* ucx_info -d lists transport tl on device dev ("mlx5_bond_0:1"): 1 or 0,
 * -1 when ucx_info -d was not read. */
int known_tl_listed(const struct probe_ucx *u, const char *tl, const char *dev)
{
	size_t l = strlen(dev);

	if (u->d_src.status != PROBE_OK)
		return -1;
	for (int i = 0; i < u->ntls; i++)
		if (!strcmp(u->tl[i].name, tl) && !strncmp(u->tl[i].device, dev, l) &&
		    (!l || u->tl[i].device[l] == ':' || !u->tl[i].device[l]))
			return 1;
	return 0;
}

/* UCX_TLS token tok names gga_mlx5 itself (or all), "gga_mlx5:aux" too. */
static int names_gga_mlx5(const char *tls)
{
	for (const char *p = tls; *p;) {
		size_t len = strcspn(p, ","), name = strcspn(p, ":,");

		if (name > len)
			name = len;
		if ((name == 8 && !strncmp(p, "gga_mlx5", 8)) ||
		    (name == 3 && !strncmp(p, "all", 3)))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* UCX_TLS lets gga_mlx5 in.  From 1.19.0 the aliases ib and gga name it
 * (ucp_context.c ucp_tl_aliases[]); 1.18.x knew it only by its name. */
static int gga_allowed(const char *tls, const char *ucx_version)
{
	if (!tls || !*tls)
		return 1;
	if (known_ver_cmp(ucx_version, "1.19.0") >= 0)
		return !!(envr_tls_allowed(tls) & (1u << ENVR_TL_GGA_MLX5));
	if (*tls == '^')
		return !names_gga_mlx5(tls + 1);
	return names_gga_mlx5(tls);
}

/* openucx/ucx#11709: gga_mlx5 always packs exported mkeys (gga_mlx5.c
 * uct_ib_mlx5_gga_mkey_pack, since 1.18.0), which brings up a UMR QP
 * through ibv_modify_qp (ib_mlx5dv_md.c uct_ib_mlx5_devx_umr_modify_qp).
 * On a LAG device INIT2RTR then fails with ENODEV (no
 * lag_tx_port_affinity), and the next memory registration dereferences
 * the uninitialised mkey pool.  listed: 1 the fail row (ucx_info -d lists
 * gga_mlx5 on the bond, the report's case), -1 the warn row (ucx_info -d
 * not read: whether the device offers gga_mlx5 is not seen). */
static int gga_on_lag(const struct kb_in *k, int listed, char *why, size_t n)
{
	const struct probe_rdma_dev *d = known_bond_dev(k->in->f);
	const struct probe_ucx *u = &k->in->f->ucx;
	const char *tls = envr_get(&k->env, "UCX_TLS");

	if (!d || !gga_allowed(tls, u->version) || known_tl_listed(u, "gga_mlx5", d->name) != listed)
		return 0;
	snprintf(why, n, "gga_mlx5 %s the RoCE LAG device %s, UCX_TLS=%s",
		 listed > 0 ? "listed on" : "allowed (ucx_info -d not read) on",
		 d->name, tls ? tls : "unset");
	return 1;
}

static int gga_lag_listed(const struct kb_in *k, char *why, size_t n)
{
	return gga_on_lag(k, 1, why, n);
}

static int gga_lag_unseen(const struct kb_in *k, char *why, size_t n)
{
	return gga_on_lag(k, -1, why, n);
}

/* TensorRT-LLM's NIXL wrapper built for NIXL < 0.6 calls
 * nixlDescList(type, sorted, size), whose `sorted` argument 0.6.0 removed
 * (NVIDIA/TensorRT-LLM#9752): ldd -r of the wrapper (probe section
 * nixl_stack, F8) names that constructor undefined. */
static int trt_wrapper_old_api(const struct kb_in *k, char *why, size_t n)
{
	static const char wrapper[] = "/libtensorrt_llm_nixl_wrapper.so";
	const struct probe_stack *s = &k->in->f->stack;

	for (int i = 0; i < s->nelfs; i++) {
		const struct probe_stack_elf *e = &s->elf[i];
		size_t l = strlen(e->path);

		if (l < sizeof wrapper - 1 || strcmp(e->path + l - (sizeof wrapper - 1), wrapper))
			continue;
		for (int j = 0; j < e->nundef; j++)
			if (strstr(e->undef[j], "nixlDescList")) {
				snprintf(why, n, "TensorRT-LLM's NIXL wrapper with %s undefined (ldd -r)",
					 e->undef[j]);
				return 1;
			}
	}
	return 0;
}

/* The UCX a NIXL build was compiled with, newer (major.minor) than the UCX
 * loaded: UCX's ucp_init warns "UCP API version is incompatible: required
 * >= 1.20, actual 1.18.0" (src/ucp/core/ucp_context.c), which NIXL's
 * maintainers call unsupported (ai-dynamo/nixl#386).  The build's UCX is
 * the "ucx vX.Y.Z" line of Dynamo's /opt/dynamo/nixl-versions.txt; the
 * loaded one ucx_info -v's (E1 says when NIXL links another). */
/* The "ucx vX.Y.Z" line of nixl-versions.txt into built ("" none). */
void known_build_ucx(const struct probe_facts *f, char built[32])
{
	built[0] = '\0';
	for (size_t i = 0; i < f->nixl.nversion_lines && !built[0]; i++) {
		const char *l = f->nixl.version_lines[i];

		if (strncmp(l, "ucx ", 4))
			continue;
		if (sscanf(l + 4, " v%31[0-9.]", built) != 1 &&
		    sscanf(l + 4, " %31[0-9.]", built) != 1)
			built[0] = '\0';
	}
}

static int ucx_older_than_build(const struct kb_in *k, char *why, size_t n)
{
	const struct probe_facts *f = k->in->f;
	char built[32], bmm[32];
	int bmaj = 0, bmin = 0;

	known_build_ucx(f, built);
	if (!built[0] || f->ucx.major < 0 || !f->ucx.version[0])
		return 0;
	/* newer by major.minor: the loaded UCX against the build's X.Y.0 */
	sscanf(built, "%d.%d", &bmaj, &bmin);
	snprintf(bmm, sizeof bmm, "%d.%d.0", bmaj, bmin);
	if (known_ver_cmp(f->ucx.version, bmm) >= 0)
		return 0;
	snprintf(why, n, "NIXL built with UCX %s, UCX %s loaded", built, f->ucx.version);
	return 1;
}

/* ---- ways out ---------------------------------------------------------- */

/* openucx/ucx#11955's workaround: ECE 0.  rc_verbs reads its own
 * UCX_RC_VERBS_ECE before the shared UCX_RC_ECE (rc_iface.c's "ECE" under
 * the RC_VERBS_ and RC_ prefixes), so where the pod sets the first, the
 * paste must be that one. */
static int way_ece(const struct kb_in *k, char *paste, size_t n)
{
	snprintf(paste, n, "%s=0", envr_get(&k->env, "UCX_RC_VERBS_ECE") ?
		 "UCX_RC_VERBS_ECE" : "UCX_RC_ECE");
	return 1;
}

/* UCX_TLS without token tok ("gga_mlx5", "gga_mlx5:aux" too) into out. */
static void tls_drop(const char *tls, const char *tok, struct buf *out)
{
	size_t tl = strlen(tok);

	for (const char *p = tls; *p;) {
		size_t len = strcspn(p, ",");

		if (len && !(!strncmp(p, tok, tl) && (len == tl || p[tl] == ':')))
			buf_appendf(out, "%s%.*s", out->len ? "," : "", (int)len, p);
		p += len;
		if (*p == ',')
			p++;
	}
}

/* openucx/ucx#11709's workaround, UCX_TLS keeping out gga_mlx5 and
 * nothing else the pod's value keeps out or in: unset/all gives
 * ^gga_mlx5, a ^ list gains it, a list loses its gga_mlx5.  None when the
 * result would still let it in (a list naming it through the ib or gga
 * alias, ucp_context.c ucp_tl_aliases[]) or would be empty. */
static int way_gga(const struct kb_in *k, char *paste, size_t n)
{
	const char *tls = envr_get(&k->env, "UCX_TLS");
	struct buf b = BUF_INIT(256);
	int ok;

	if (!tls || !*tls || !strcmp(tls, "all"))
		buf_appendf(&b, "^gga_mlx5");
	else if (*tls == '^')
		buf_appendf(&b, "%s,gga_mlx5", tls);
	else
		tls_drop(tls, "gga_mlx5", &b);
	ok = b.len && !gga_allowed(buf_str(&b), k->in->f->ucx.version);
	if (ok)
		snprintf(paste, n, "UCX_TLS=%s", buf_str(&b));
	buf_release(&b);
	return ok;
}

/* An EFA device, and the one Mooncake distribution pip holds is not the
 * EFA build: the PyPI mooncake-transfer-engine(-cudaNN) wheels are built
 * with USE_EFA=OFF and ship rdma_transport and tcp_transport only
 * (kvcache-ai/Mooncake#2070); the EFA build is its own distribution,
 * mooncake-transfer-engine-efa-cuda13 (sgl-project/sglang PR #39973). */
static int mooncake_wheel_without_efa(const struct kb_in *k, char *why, size_t n)
{
	const struct probe_facts *f = k->in->f;
	const struct probe_rdma_list *l = rdma_list(f);
	int nib = 0, nefa = 0;

	if (l)
		rdma_count(l, &nib, &nefa);
	if (!nefa || f->mooncake.ndists != 1 || !f->mooncake.dist[0] ||
	    strstr(f->mooncake.dist, "_efa"))
		return 0;
	snprintf(why, n, "an EFA device and the distribution %s (not the EFA build)",
		 f->mooncake.dist);
	return 1;
}

/* ---- by name --------------------------------------------------------- */

typedef int (*kb_fn)(const struct kb_in *k, char *out, size_t n);

static const struct { const char *name; kb_fn fn; } cases[] = {
	{ "ucx-bond-rc-verbs-ece", bond_rc_verbs_ece },
	{ "ucx-gga-lag-listed", gga_lag_listed },
	{ "ucx-gga-lag-unseen", gga_lag_unseen },
	{ "trtllm-nixl-wrapper-old-api", trt_wrapper_old_api },
	{ "nixl-ucx-older-than-build", ucx_older_than_build },
	{ "nixl-both-cuda-builds", both_cuda_builds },
	{ "mooncake-wheel-without-efa", mooncake_wheel_without_efa },
}, ways[] = {
	{ "ucx-rc-ece", way_ece },
	{ "ucx-tls-without-gga", way_gga },
};

#define BY_NAME_(tab, name) \
	for (size_t i_ = 0; i_ < sizeof tab / sizeof tab[0]; i_++) \
		if (!strcmp(tab[i_].name, name))

int known_case(const struct kb_in *k, const char *name, char *why, size_t n)
{
	BY_NAME_(cases, name)
		return cases[i_].fn(k, why, n);
	return -1;
}

int known_way(const struct kb_in *k, const char *name, char *paste, size_t n)
{
	BY_NAME_(ways, name)
		return ways[i_].fn(k, paste, n);
	return -1;
}

int known_case_exists(const char *name)
{
	BY_NAME_(cases, name)
		return 1;
	return 0;
}

int known_way_exists(const char *name)
{
	BY_NAME_(ways, name)
		return 1;
	return 0;
}
