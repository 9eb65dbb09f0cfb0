/* Part of facts.h (which includes it; include facts.h, not this): the UCX facts (ucx_info -v/-d),
 * apart to keep facts.h under the line cap. */
#ifndef DI_PROBE_FACTS_UCX_H
#define DI_PROBE_FACTS_UCX_H

/* ---- UCX (E1-E5) ---------------------------------------------------- */

#define PROBE_MAX_UCX_MDS 48
#define PROBE_MAX_UCX_TLS 128

/* How the configure line treats an optional feature. */
enum probe_cfg { PROBE_CFG_DEFAULT = 0, PROBE_CFG_WITH, PROBE_CFG_WITHOUT };

enum probe_ucx_feature {
	PROBE_UCXF_CUDA = 0,
	PROBE_UCXF_GDRCOPY,
	PROBE_UCXF_VERBS,
	PROBE_UCXF_MLX5,                /* --with-mlx5-dv / --without-mlx5 */
	PROBE_UCXF_RDMACM,
	PROBE_UCXF_EFA,
	PROBE_UCXF_KNEM,
	PROBE_UCXF_XPMEM,
	PROBE_UCXF_ROCM,
	PROBE_UCXF_COUNT,
};

/* Transports the checks ask about by name. */
enum probe_ucx_tl {
	PROBE_TL_CUDA_COPY = 0,
	PROBE_TL_CUDA_IPC,
	PROBE_TL_GDR_COPY,
	PROBE_TL_RC_MLX5,
	PROBE_TL_DC_MLX5,
	PROBE_TL_UD_MLX5,
	PROBE_TL_RC_VERBS,
	PROBE_TL_UD_VERBS,
	PROBE_TL_TCP,
	PROBE_TL_SRD,
	PROBE_TL_POSIX,
	PROBE_TL_SYSV,
	PROBE_TL_CMA,
	PROBE_TL_SELF,
	PROBE_TL_COUNT,
};

const char *probe_ucx_tl_name(enum probe_ucx_tl t);

struct probe_ucx_md {
	char name[32];                  /* "mlx5_0", "cuda_cpy", "tcp" */
	char component[32];             /* "ib", "cuda_cpy", "tcp", ... */
	int host;                       /* memory types list host */
	int cuda;                       /* memory types list cuda (not managed) */
	int cuda_dmabuf;                /* cuda (...) flags contain dmabuf */
	char cuda_flags[64];            /* "access,alloc,reg,detect" */
	/* "register: unlimited, dmabuf, cost: ..." (UCT_MD_FLAG_REG_DMABUF):
	 * the md imports DMA-BUF, so UCP registers GPU memory on it once an
	 * exporter (cuda_cpy with dmabuf) exists (ucp_context.c). */
	int reg_dmabuf;
};

struct probe_ucx_tl_entry {
	char name[24];                  /* "rc_mlx5" */
	char device[32];                /* "mlx5_0:1", "cuda", "eth0" */
	char md[32];                    /* memory domain it was listed under */
	char type[16];                  /* "network", "accelerator", ... */
};

struct probe_ucx {
	struct probe_src v_src;         /* ucx_info -v */
	struct probe_src d_src;         /* ucx_info -d */
	char version[32];               /* "1.17.0" */
	int major, minor, patch;        /* -1 when unknown */
	char library_path[256];
	/* "# Git branch 'v1.22.x', revision ecb919e": the build's branch (""
	 * for a release tarball or unknown) and revision (hex, "" unknown),
	 * each kept only when it is all of its alphabet (issue 42 item 2: E7
	 * keys UCX PR #11547 on it). */
	char git_branch[32];
	char revision[41];
	char *configured;               /* whole configure line, owned; may be NULL */
	enum probe_cfg feature[PROBE_UCXF_COUNT];
	/* md and tl are owned and grown as entries are listed: nmds used of
	 * mdcap allocated, ntls of tlcap. */
	int nmds, mds_dropped, mdcap;
	struct probe_ucx_md *md;
	int ntls, tls_dropped, tlcap;
	struct probe_ucx_tl_entry *tl;
	int tl_count[PROBE_TL_COUNT];   /* instances of each known transport */
	/* Summaries of the memory domains. */
	int n_ib_mds;                   /* component "ib" */
	int n_ib_mds_cuda;              /* ... of which list cuda memory */
	int n_ib_mds_dmabuf;            /* ... of which register dmabuf */
	int cuda_cpy_dmabuf;            /* cuda_cpy md lists dmabuf: 1/0, -1 n/a */
};

/* New all-zero entries at the end of u->md / u->tl, NULL when
 * PROBE_MAX_UCX_MDS / PROBE_MAX_UCX_TLS are listed already. */
struct probe_ucx_md *probe_ucx_md_add(struct probe_ucx *u);
struct probe_ucx_tl_entry *probe_ucx_tl_add(struct probe_ucx *u);
/* Frees u's lists and configure line; u is then NOT_LOOKED and empty, as
 * probe_facts_init() leaves it (for callers that clear one source). */
void probe_ucx_reset(struct probe_ucx *u);

#endif
