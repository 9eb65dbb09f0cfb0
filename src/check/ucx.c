/* UCX family: version/build, RDMA and CUDA transports (checks.md E). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

/* On EFA with the LIBFABRIC backend NIXL does not load UCX at all. */
static int ucx_unused(const struct check_input *in)
{
	const char *b = in->ctx->nixl_backend;

	return in->fabric == FABRIC_EFA && b && !strcmp(b, "LIBFABRIC");
}

static const char *cfg_flag(const struct probe_ucx *u, enum probe_ucx_feature f,
			    const char *with)
{
	return u->feature[f] == PROBE_CFG_WITH ? with : "";
}

static void version(const struct check_input *in, struct check_results *out)
{
	const struct probe_ucx *u = &in->f->ucx;
	char why[200];

	if (ucx_unused(in)) {
		emit_na(out, CK_UCX_VERSION, "NIXL uses LIBFABRIC on EFA");
		return;
	}
	if (u->v_src.status != PROBE_OK || u->major < 0) {
		emit(out, CK_UCX_VERSION, CHECK_SKIPPED, NULL, "%s",
		     src_why(&u->v_src, "ucx_info", why, sizeof(why)));
		return;
	}
	if (u->major < 1 || (u->major == 1 && u->minor < 14))
		emit(out, CK_UCX_VERSION, CHECK_WARN, NULL,
		     "UCX %s is older than 1.14: no DMA-BUF GPUDirect", u->version);
	else if (u->feature[PROBE_UCXF_CUDA] == PROBE_CFG_WITHOUT)
		emit(out, CK_UCX_VERSION, CHECK_WARN, NULL,
		     "UCX %s configured --without-cuda", u->version);
	else
		emit(out, CK_UCX_VERSION, CHECK_OK, NULL, "UCX %s%s%s%s",
		     u->version, cfg_flag(u, PROBE_UCXF_CUDA, " --with-cuda"),
		     cfg_flag(u, PROBE_UCXF_VERBS, " --with-verbs"),
		     cfg_flag(u, PROBE_UCXF_GDRCOPY, " --with-gdrcopy"));
}

/* "rc_mlx5/mlx5_0:1, dc_mlx5/mlx5_0:1 ..." for the detail line. */
static void rdma_tls(const struct probe_ucx *u, struct buf *b, int *n)
{
	static const char *const rdma[] = {
		"rc_mlx5", "dc_mlx5", "ud_mlx5", "rc_verbs", "ud_verbs",
	};

	*n = 0;
	for (int i = 0; i < u->ntls; i++)
		for (size_t k = 0; k < sizeof(rdma) / sizeof(rdma[0]); k++)
			if (!strcmp(u->tl[i].name, rdma[k]) && (*n)++ < 3)
				buf_appendf(b, "%s%s/%s", *n > 1 ? ", " : "",
					    u->tl[i].name, u->tl[i].device);
}

/* ---- E3's second source: the transport modules of the UCX NIXL loads.
 * Wheel images (pip install nixl-cu12) bundle UCX without ucx_info; the
 * modules UCX's loader will find show its transports all the same. */

#define MODS_SOURCE "UCX transport modules (libuct_*.so)"

static const struct probe_ucx_modules *mods(const struct check_input *in)
{
	const struct probe_ucx_modules *m = &in->f->ucx_modules;

	return m->src.status == PROBE_OK && m->nmods > 0 ? m : NULL;
}

/* Modules NIXL's own UCX loads (not just any UCX_MODULE_DIR). */
static const struct probe_ucx_modules *nixl_mods(const struct check_input *in)
{
	const struct probe_ucx_modules *m = mods(in);

	return m && m->kind != PROBE_UCXMOD_ENV ? m : NULL;
}

static const char *mods_where(const struct probe_ucx_modules *m, char *b,
			      size_t n)
{
	snprintf(b, n, "%s%s", m->dir,
		 m->kind == PROBE_UCXMOD_WHEEL ? " (the NIXL wheel's bundled UCX)" :
		 m->kind == PROBE_UCXMOD_ENV ? " (UCX_MODULE_DIR)" : "");
	return b;
}

/* "libuct_ib, libuct_ib_mlx5": the modules whose names start so. */
static void mods_named(const struct probe_ucx_modules *m, const char *prefix,
		       struct buf *b)
{
	for (int i = 0; i < m->nmods; i++)
		if (!strncmp(m->mod[i], prefix, strlen(prefix)))
			buf_appendf(b, "%s%s", b->len ? ", " : "", m->mod[i]);
}

static void rdma_from_modules(const struct check_input *in,
			      const struct probe_ucx_modules *m,
			      struct check_results *out)
{
	struct buf names = BUF_INIT(256);
	char where[300];

	mods_where(m, where, sizeof(where));
	mods_named(m, "libuct_ib", &names);
	if (m->ib)
		emit(out, CK_UCX_RDMA, CHECK_OK, NULL,
		     "UCX's IB transport modules (%s: rc/dc/ud) in %s; ucx_info absent",
		     buf_str(&names), where);
	else
		emit(out, CK_UCX_RDMA, hard(in), NULL,
		     "no IB transport module (libuct_ib*.so) in %s although RDMA devices exist: UCX will use tcp",
		     where);
	emit_source(out, MODS_SOURCE);
	buf_release(&names);
}

/* ucx_info -d shows RDMA, but the UCX NIXL loads has no IB module: two
 * UCX installs (E1), and NIXL's is the one without RDMA. */
static int rdma_contradicted(const struct check_input *in,
			     struct check_results *out)
{
	const struct probe_ucx_modules *m = nixl_mods(in);
	char where[300];

	if (!m || m->ib)
		return 0;
	emit(out, CK_UCX_RDMA, hard(in),
	     "use one UCX: the one NIXL loads must have its IB module (libuct_ib.so)",
	     "ucx_info -d lists RDMA transports, but the UCX NIXL loads has no IB transport module (libuct_ib*.so) in %s",
	     mods_where(m, where, sizeof(where)));
	emit_source(out, "ucx_info -d, " MODS_SOURCE);
	return 1;
}

static void rdma(const struct check_input *in, struct check_results *out)
{
	const struct probe_ucx *u = &in->f->ucx;
	struct buf list = BUF_INIT(512);
	int n, accel;
	char why[200];

	if (in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE) {
		emit_na(out, CK_UCX_RDMA, "no InfiniBand/RoCE device (%s)",
			fabric_name(in->fabric));
		return;
	}
	if (u->d_src.status != PROBE_OK) {
		if (mods(in))
			rdma_from_modules(in, mods(in), out);
		else
			emit(out, CK_UCX_RDMA, CHECK_SKIPPED, NULL, "%s",
			     src_why(&u->d_src, "ucx_info -d", why, sizeof(why)));
		return;
	}
	rdma_tls(u, &list, &n);
	accel = u->tl_count[PROBE_TL_RC_MLX5] + u->tl_count[PROBE_TL_DC_MLX5] +
		u->tl_count[PROBE_TL_UD_MLX5];
	if (n && rdma_contradicted(in, out))
		;
	else if (!n)
		emit(out, CK_UCX_RDMA, hard(in), NULL,
		     "ucx_info -d lists no rc/dc/ud transport although RDMA devices exist: UCX will use %s",
		     u->tl_count[PROBE_TL_TCP] ? "tcp" : "no network transport");
	else if (!accel)
		emit(out, CK_UCX_RDMA, CHECK_WARN,
		     "use a UCX built with mlx5 support (--with-mlx5-dv) for rc_mlx5/dc_mlx5",
		     "only generic verbs transports (%s): no DC, fewer offloads",
		     buf_str(&list));
	else
		emit(out, CK_UCX_RDMA, CHECK_OK, NULL, "%s%s", buf_str(&list),
		     n > 3 ? ", ..." : "");
	buf_release(&list);
}

static void cuda_from_modules(const struct check_input *in,
			      const struct probe_ucx_modules *m,
			      struct check_results *out)
{
	char where[300];

	mods_where(m, where, sizeof(where));
	if (m->cuda)
		emit(out, CK_UCX_CUDA, CHECK_OK, NULL,
		     "UCX's CUDA transport module (libuct_cuda: cuda_copy, cuda_ipc%s) in %s; ucx_info absent",
		     m->gdrcopy ? ", gdr_copy" : "", where);
	else
		emit(out, CK_UCX_CUDA, in->cross_pod ? CHECK_FAIL : CHECK_WARN,
		     "use a NIXL wheel (or UCX) whose bundled UCX has its CUDA module (libuct_cuda.so)",
		     "no CUDA transport module (libuct_cuda.so) in %s: GPU memory is not recognised, NIXL VRAM registration fails (\"UCX CUDA support was not found\")",
		     where);
	emit_source(out, MODS_SOURCE);
}

static void cuda(const struct check_input *in, struct check_results *out)
{
	const struct probe_ucx *u = &in->f->ucx;
	int copy = u->tl_count[PROBE_TL_CUDA_COPY], ipc = u->tl_count[PROBE_TL_CUDA_IPC];
	char why[300];

	if (ucx_unused(in)) {
		emit_na(out, CK_UCX_CUDA, "NIXL uses LIBFABRIC on EFA");
		return;
	}
	if (u->d_src.status != PROBE_OK) {
		if (mods(in))
			cuda_from_modules(in, mods(in), out);
		else
			emit(out, CK_UCX_CUDA, CHECK_SKIPPED, NULL, "%s",
			     src_why(&u->d_src, "ucx_info -d", why, sizeof(why)));
		return;
	}
	if (copy && nixl_mods(in) && !nixl_mods(in)->cuda) {
		emit(out, CK_UCX_CUDA, in->cross_pod ? CHECK_FAIL : CHECK_WARN,
		     "use one UCX: the one NIXL loads must have its CUDA module (libuct_cuda.so)",
		     "ucx_info -d lists cuda_copy, but the UCX NIXL loads has no CUDA transport module (libuct_cuda.so) in %s",
		     mods_where(nixl_mods(in), why, sizeof(why)));
		emit_source(out, "ucx_info -d, " MODS_SOURCE);
	} else if (!copy)
		emit(out, CK_UCX_CUDA, in->cross_pod ? CHECK_FAIL : CHECK_WARN, NULL,
		     "ucx_info -d lists no cuda_copy%s: GPU memory is not recognised, NIXL VRAM registration fails",
		     ipc ? "" : " or cuda_ipc");
	else if (!ipc)
		emit(out, CK_UCX_CUDA, CHECK_WARN, NULL,
		     "cuda_copy but no cuda_ipc: same-node GPU transfers are staged");
	else
		emit(out, CK_UCX_CUDA, CHECK_OK, NULL, "cuda_copy and cuda_ipc%s",
		     u->tl_count[PROBE_TL_GDR_COPY] ? " and gdr_copy" : "");
}

void check_ucx(const struct check_input *in, struct check_results *out)
{
	version(in, out);
	rdma(in, out);
	cuda(in, out);
}
