/* The known-bad table (issue 26 item 2, checks.md F5): combinations of a
 * component's version with a setting or a topology that public reports
 * show broken, each row with its source.  The data is the array below; the
 * code only finds the pod's versions and evaluates each row's condition.
 * Adding a row: docs/adding-a-check.md "A known-bad row".
 *
 * Two checks read it, one per component, so that a finding lands in the
 * column of the thing to change (UCX or NIXL) and breaks that component's
 * link (table.def): ucx-known-bad and nixl-known-bad. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "model/envrules.h"
#include "probe/facts.h"
#include "util/buf.h"

/* What a row's condition may read: the pod, and its environment as the
 * rule book sees it (model/envrules.c parses each variable). */
struct kb_in {
	const struct check_input *in;
	struct envr_view env;
};

struct kb_row {
	enum check_id check;     /* CK_UCX_KNOWN_BAD or CK_NIXL_KNOWN_BAD */
	/* Versions affected: space-separated ranges FROM-UNTIL, FROM the
	 * first version affected and UNTIL the first fixed ("" none yet). */
	const char *versions;
	/* The rest of the combination; 1 when the pod has it, with what it
	 * saw in why.  NULL: the version alone. */
	int (*cond)(const struct kb_in *k, char *why, size_t n);
	enum check_status sev;   /* CHECK_FAIL: fail where KV crosses pods */
	const char *effect;
	/* The remedy; after the pasted variable when way gives one. */
	const char *fix;
	const char *source;      /* the public report, owner/repo#N */
	/* The variable that avoids the bug as "NAME=value", ready to paste
	 * (issue 39 item 7): 1 when there is one for this pod.  NULL: the
	 * way out is a version or a rebuild, which fix names. */
	int (*way)(const struct kb_in *k, char *paste, size_t n);
};

/* ---- conditions ------------------------------------------------------ */

/* NIXL 1.3.0/1.3.1/1.4.x nixlAgentData (src/core/nixl_agent.cpp): an
 * explicit NIXL_TELEMETRY_ENABLE=false beats captureTelemetry, so no
 * telemetry object exists and getXferTelemetry returns
 * NIXL_ERR_NO_TELEMETRY, which vLLM's connector counts as a failed
 * transfer (it sets capture_telemetry=True, vllm-project/vllm PR #29305). */
static int telemetry_off(const struct kb_in *k, char *why, size_t n)
{
	if (envr_nixl_telemetry(&k->env) != 0)
		return 0;
	snprintf(why, n, "NIXL_TELEMETRY_ENABLE=%s",
		 envr_get(&k->env, "NIXL_TELEMETRY_ENABLE"));
	return 1;
}

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
static const struct probe_rdma_dev *bond_dev(const struct probe_facts *f)
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
	const struct probe_rdma_dev *d = bond_dev(k->in->f);
	unsigned tls = ucx_tls_allowed(envr_get(&k->env, "UCX_TLS"));

	if (!d || !(tls & TLB(PROBE_TL_RC_VERBS)) || envr_ucx_rc_ece_off(&k->env))
		return 0;
	if ((tls & TLB(PROBE_TL_RC_MLX5)) && has_rc_mlx5(&k->in->f->ucx, d->name))
		return 0;
	snprintf(why, n, "rc_verbs on the RoCE LAG device %s, UCX_RC_ECE not 0",
		 d->name);
	return 1;
}

static int ver_cmp(const char *a, const char *b);

/* ucx_info -d lists transport tl on device dev ("mlx5_bond_0:1"): 1 or 0,
 * -1 when ucx_info -d was not read. */
static int tl_listed(const struct probe_ucx *u, const char *tl, const char *dev)
{
	size_t l = strlen(dev);

	if (u->d_src.status != PROBE_OK)
		return -1;
	for (int i = 0; i < u->ntls; i++)
		if (!strcmp(u->tl[i].name, tl) && !strncmp(u->tl[i].device, dev, l) &&
		    (u->tl[i].device[l] == ':' || !u->tl[i].device[l]))
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
	if (ver_cmp(ucx_version, "1.19.0") >= 0)
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
	const struct probe_rdma_dev *d = bond_dev(k->in->f);
	const struct probe_ucx *u = &k->in->f->ucx;
	const char *tls = envr_get(&k->env, "UCX_TLS");

	if (!d || !gga_allowed(tls, u->version) || tl_listed(u, "gga_mlx5", d->name) != listed)
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

static void ver_parse(const char *s, int v[3]);

/* The UCX a NIXL build was compiled with, newer (major.minor) than the UCX
 * loaded: UCX's ucp_init warns "UCP API version is incompatible: required
 * >= 1.20, actual 1.18.0" (src/ucp/core/ucp_context.c), which NIXL's
 * maintainers call unsupported (ai-dynamo/nixl#386).  The build's UCX is
 * the "ucx vX.Y.Z" line of Dynamo's /opt/dynamo/nixl-versions.txt; the
 * loaded one ucx_info -v's (E1 says when NIXL links another). */
/* The "ucx vX.Y.Z" line of nixl-versions.txt into built ("" none). */
static void build_ucx(const struct probe_facts *f, char built[32])
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
	char built[32];
	int b[3], u[3];

	build_ucx(f, built);
	if (!built[0] || f->ucx.major < 0 || !f->ucx.version[0])
		return 0;
	ver_parse(built, b);
	ver_parse(f->ucx.version, u);
	if (u[0] > b[0] || (u[0] == b[0] && u[1] >= b[1]))
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

/* ai-dynamo/nixl#2266: an explicit y makes nixlAgentData create the
 * telemetry object (src/core/nixl_agent.cpp), whatever the version. */
static int way_telemetry(const struct kb_in *k, char *paste, size_t n)
{
	(void)k;
	snprintf(paste, n, "NIXL_TELEMETRY_ENABLE=y");
	return 1;
}

/* ---- the table --------------------------------------------------------- */

static const struct kb_row rows[] = {
	{ CK_UCX_KNOWN_BAD, "1.22.0-", bond_rc_verbs_ece, CHECK_FAIL,
	  "rc_verbs over a RoCE LAG bond applies ECE and drops from 23 GB/s to 2.9 MB/s",
	  "or let UCX use rc_mlx5: UCX_TLS with rc_x",
	  "openucx/ucx#11955", way_ece },
	{ CK_UCX_KNOWN_BAD, "1.18.0-", gga_lag_listed, CHECK_FAIL,
	  "gga_mlx5's UMR QP gets no LAG port affinity: ibv_modify_qp(UMR QP) fails to RTR (ENODEV) and memory registration segfaults",
	  "or a UCX_TLS list without gga_mlx5; no UCX release fixes it yet (PR #11780 open)",
	  "openucx/ucx#11709", way_gga },
	{ CK_UCX_KNOWN_BAD, "1.18.0-", gga_lag_unseen, CHECK_WARN,
	  "if the device offers gga_mlx5, its UMR QP gets no LAG port affinity and memory registration segfaults",
	  "or a UCX_TLS list without gga_mlx5; no UCX release fixes it yet (PR #11780 open)",
	  "openucx/ucx#11709", way_gga },
	{ CK_NIXL_KNOWN_BAD, "1.3.0-1.3.2 1.4.0-", telemetry_off, CHECK_FAIL,
	  "every KV transfer is counted failed: getXferTelemetry returns NIXL_ERR_NO_TELEMETRY (HTTP 500)",
	  "NIXL 1.3.2 also lets the agent's config win",
	  "ai-dynamo/dynamo#12952, ai-dynamo/nixl#2266", way_telemetry },
	{ CK_NIXL_KNOWN_BAD, "0.6.0-", trt_wrapper_old_api, CHECK_FAIL,
	  "TensorRT-LLM's NIXL wrapper, built for NIXL < 0.6, cannot bind to this NIXL: the cache transceiver does not start",
	  "use a TensorRT-LLM built against the installed NIXL (or let the wrapper load its bundled libnixl: no other NIXL directory on LD_LIBRARY_PATH)",
	  "NVIDIA/TensorRT-LLM#9752", NULL },
	{ CK_NIXL_KNOWN_BAD, "0.1.0-", ucx_older_than_build, CHECK_WARN,
	  "UCP API version is incompatible: NIXL runs on an older UCX than it was built for (unsupported; often works)",
	  "run NIXL on the UCX it was built with (or newer), or rebuild NIXL against the UCX in the image",
	  "ai-dynamo/nixl#386", NULL },
	{ CK_NIXL_KNOWN_BAD, "1.1.0-1.3.0", both_cuda_builds, CHECK_WARN,
	  "both wheels write nixl_ep/nixl_ep_cpp.so; the last installed wins and may need a libcudart the image lacks (ImportError at start)",
	  "install only the nixl-cuNN of the image's CUDA, or NIXL >= 1.3.0",
	  "ai-dynamo/nixl#1705", NULL },
};

/* ---- versions ---------------------------------------------------------- */

/* "1.3.1", "0.10.0.post1", "1.4.0rc2" as major, minor, patch (a
 * pre-release counts as its release). */
static void ver_parse(const char *s, int v[3])
{
	v[0] = v[1] = v[2] = 0;
	for (int i = 0; i < 3 && s && *s >= '0' && *s <= '9'; i++) {
		v[i] = (int)strtol(s, (char **)&s, 10);
		if (*s != '.')
			break;
		s++;
	}
}

static int ver_cmp(const char *a, const char *b)
{
	int x[3], y[3];

	ver_parse(a, x);
	ver_parse(b, y);
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* v in one of r's ranges ("1.3.0-1.3.2 1.4.0-"). */
static int in_range(const struct kb_row *r, const char *v)
{
	char from[32], until[32];
	const char *p = r->versions;
	int used;

	for (;;) {
		used = 0;
		if (sscanf(p, " %31[^- ]-%n", from, &used) != 1 || !used)
			return 0;
		p += used;
		until[0] = 0;
		used = 0;
		if (sscanf(p, "%31[^ ]%n", until, &used) == 1)
			p += used;
		if (ver_cmp(v, from) >= 0 && (!until[0] || ver_cmp(v, until) < 0))
			return 1;
	}
}

/* The versions of the component a check reads, "" ended: UCX's from
 * ucx_info -v; NIXL's the CUDA builds pip holds, else the one wheel
 * (before 1.1.0 "nixl" was the build itself). */
static int versions(const struct check_input *in, enum check_id id,
		    const char *out[PROBE_NIXL_DIST_COUNT])
{
	const struct probe_facts *f = in->f;
	int n = 0;

	if (id == CK_UCX_KNOWN_BAD) {
		if (f->ucx.major >= 0 && f->ucx.version[0])
			out[n++] = f->ucx.version;
		return n;
	}
	for (int d = PROBE_NIXL_DIST_CU12; d < PROBE_NIXL_DIST_COUNT; d++)
		if (f->nixl.dist_version[d][0])
			out[n++] = f->nixl.dist_version[d];
	if (!n && f->nixl.dist_version[PROBE_NIXL_DIST_NIXL][0])
		out[n++] = f->nixl.dist_version[PROBE_NIXL_DIST_NIXL];
	if (!n && f->nixl.python_version[0])
		out[n++] = f->nixl.python_version;
	return n;
}

/* ---- judging ----------------------------------------------------------- */

/* The first row of check id that the pod matches (worst first), with the
 * version and the condition seen in why; NULL when none. */
static const struct kb_row *match(const struct kb_in *k, enum check_id id,
				  const char *const *ver, int nver,
				  char *why, size_t n)
{
	const struct kb_row *hit = NULL;
	char w[200];

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct kb_row *r = &rows[i];

		for (int j = 0; j < nver && r->check == id; j++) {
			if (!in_range(r, ver[j]) || (r->cond && !r->cond(k, w, sizeof w)))
				continue;
			if (!hit || (r->sev == CHECK_FAIL && hit->sev != CHECK_FAIL)) {
				hit = r;
				snprintf(why, n, "%s %s%s%s", id == CK_UCX_KNOWN_BAD ? "UCX" : "NIXL",
					 ver[j], r->cond ? " with " : "", r->cond ? w : "");
			}
			break;
		}
	}
	return hit;
}

static int rows_of(enum check_id id)
{
	int n = 0;

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		n += rows[i].check == id;
	return n;
}

/* The libucp NIXL's UCX plugin loads (E1's ldd) is the one a NIXL wheel
 * bundles: auditwheel copies it into the wheel's <dist>.libs under a
 * private hashed SONAME ("libucp-6b1f3e2a.so.0", "libucp-nixl-..."), and
 * contrib/wheel_add_ucx_plugins.py points the plugin at it (RPATH
 * $ORIGIN/..:$ORIGIN, DT_NEEDED replaced by that name): no other copy has
 * the name, so the wheel runs on the UCX it was built with. */
static const char *wheel_bundled_ucp(const struct probe_facts *f)
{
	const char *p = f->nixl_ucx_ldd.lib[PROBE_UCXLIB_UCP], *base = strrchr(p, '/');
	size_t dl;

	if (f->nixl_ucx_ldd.src.status != PROBE_OK || !base || strncmp(base + 1, "libucp-", 7))
		return NULL;
	dl = (size_t)(base - p);
	return dl >= 5 && !strncmp(base - 5, ".libs", 5) ? p : NULL;
}

/* Without ldd: the plugin directory NIXL uses is a wheel's
 * (SITE/nixl_cuNN.libs/nixl or SITE/.nixl_cuNN.mesonpy.libs/plugins) and
 * the probe listed that wheel's SITE/nixl_cuNN.libs/libucp-* (F6's
 * listing), which the plugins name by that private name. */
static const char *wheel_listed_ucp(const struct probe_facts *f)
{
	const char *dir = f->nixl.plugin_dir[0] ? f->nixl.plugin_dir : f->nixl.wheel_dir;
	const char *w = strstr(dir, "/nixl_cu"), *m = strstr(dir, "/.nixl_cu");
	char want[300];
	size_t site, dl;

	if (m && (!w || m < w))
		w = m;
	if (!w)
		return NULL;
	site = (size_t)(w - dir);
	w += w[1] == '.' ? 2 : 1;
	dl = strspn(w + 7, "0123456789");
	if (!dl)
		return NULL;
	snprintf(want, sizeof want, "%.*s/%.*s.libs/libucp-", (int)site, dir, (int)(7 + dl), w);
	for (int i = 0; i < f->stack.ncopies; i++)
		if (!strncmp(f->stack.copy[i], want, strlen(want)))
			return f->stack.copy[i];
	return NULL;
}

/* What the ok of nixl-known-bad says of the ai-dynamo/nixl#386 row when
 * there was no build UCX to compare: answered by the UCX that loads. */
static void build_ucx_note(const struct probe_facts *f, char *b, size_t n)
{
	char built[32];
	const char *ucp = wheel_bundled_ucp(f), *listed = ucp ? NULL : wheel_listed_ucp(f);

	build_ucx(f, built);
	if (built[0])
		b[0] = '\0';
	else if (ucp)
		snprintf(b, n, "; ai-dynamo/nixl#386 does not apply: NIXL's UCX plugin loads the UCX "
			 "bundled with the wheel (%s), the one it was built with", ucp);
	else if (listed)
		snprintf(b, n, "; ai-dynamo/nixl#386 does not apply: NIXL's plugins are the wheel's, "
			 "which name its bundled UCX (%s) by a private name: the UCX it was built with", listed);
	else
		snprintf(b, n, "; ai-dynamo/nixl#386 not judged: the UCX this NIXL was built with is "
			 "not reported (no nixl-versions.txt, no UCX bundled with a wheel)");
}

/* Emits row r's finding with its way out: the variable to paste first in
 * the remedy and as the result's suggested variable, where there is one. */
static void way_out(const struct kb_in *k, const struct kb_row *r, enum check_id id,
		    const char *why, struct check_results *out)
{
	char paste[300], fix[600], name[64];
	const char *eq;

	if (!r->way || !r->way(k, paste, sizeof paste))
		paste[0] = '\0';
	if (paste[0])
		snprintf(fix, sizeof fix, "set %s on the workers (%s)", paste, r->fix);
	else
		snprintf(fix, sizeof fix, "%s", r->fix);
	emit(out, id, r->sev == CHECK_FAIL ? hard(k->in) : CHECK_WARN, fix,
	     "%s: %s (%s)", why, r->effect, r->source);
	eq = strchr(paste, '=');
	if (!eq)
		return;
	snprintf(name, sizeof name, "%.*s", (int)(eq - paste), paste);
	emit_suggest(out, name, eq + 1);
}

static void judge(const struct kb_in *k, enum check_id id, const char *what,
		  struct check_results *out)
{
	const char *ver[PROBE_NIXL_DIST_COUNT];
	int nver = versions(k->in, id, ver);
	char why[320];
	const struct kb_row *r;

	if (!nver) {
		/* nothing to compare: a skip without a remedy (no ucx_info in
		 * a wheel image, TensorRT-LLM's C++ NIXL) */
		emit_na(out, id, "%s version not reported: no known-bad row judged", what);
		return;
	}
	r = match(k, id, ver, nver, why, sizeof why);
	if (!r) {
		char note[400] = "";

		if (id == CK_NIXL_KNOWN_BAD)
			build_ucx_note(k->in->f, note, sizeof note);
		emit(out, id, CHECK_OK, NULL, "%s %s%s: none of the %d known-bad combinations%s",
		     what, ver[0], nver > 1 ? " (and another build)" : "", rows_of(id), note);
		return;
	}
	way_out(k, r, id, why, out);
}

void check_knownbad(const struct check_input *in, struct check_results *out)
{
	struct kb_in k = { .in = in };
	struct envr_var *owned = book_view(&in->f->env, &k.env);

	if (!in->cross_pod) {
		emit_na(out, CK_UCX_KNOWN_BAD, "KV stays inside this pod");
		emit_na(out, CK_NIXL_KNOWN_BAD, "KV stays inside this pod");
	} else {
		judge(&k, CK_UCX_KNOWN_BAD, "UCX", out);
		judge(&k, CK_NIXL_KNOWN_BAD, "NIXL", out);
	}
	free(owned);
}
