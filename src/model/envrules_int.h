/* Internal to the rule book: the judges its table (envrules.c) names,
 * kept by concept: UCX (envrules_ucx.c), the GID index (envrules_gid.c),
 * NCCL, libfabric and multi-node NVLink (envrules.c). */
#ifndef MODEL_ENVRULES_INT_H
#define MODEL_ENVRULES_INT_H

#include "model/envrules.h"

#include <strings.h>

/* ENVR_OK = not dangerous here; why may be pointed at a reason of the
 * context. */
#define JUDGE(fn) enum envr_sev envj_##fn(const char *v, const struct envr_view *env, \
					  const struct envr_ctx *c, const char **why)
#define UNUSED4 (void)v, (void)env, (void)c, (void)why
#define WARN_IF(fn, cond) JUDGE(fn) { UNUSED4; return (cond) ? ENVR_WARN : ENVR_OK; }
#define FAIL_IF(fn, cond) JUDGE(fn) { UNUSED4; return (cond) ? ENVR_FAIL : ENVR_OK; }

/* v is a, in any case (NULL never is). */
static inline int envr_is(const char *v, const char *a)
{
	return v && !strcasecmp(v, a);
}

/* UCX is not on the KV path when NIXL uses LIBFABRIC or Mooncake carries
 * the KV: then no UCX_ rule applies (envr_eval). */
int envr_ucx_off(const struct envr_ctx *c);

JUDGE(tls_rdma);
JUDGE(tls_cuda);
JUDGE(tls_ipc);
JUDGE(tls_rc_ud);
JUDGE(nd_syntax);
JUDGE(nd_port);
JUDGE(nd_netdev);
JUDGE(gdr_off);
JUDGE(dmabuf_off);
JUDGE(rndv_scheme);
JUDGE(rndv_thresh);
JUDGE(ucp_no);
JUDGE(ucs_no);
JUDGE(warn_yes);
JUDGE(nccl_eq0);
JUDGE(nccl_eq1);
JUDGE(warn_loc);
JUDGE(nccl_ib_off);
JUDGE(nccl_socket);
JUDGE(plugin_none);
JUDGE(fi_no_efa);
JUDGE(efa_rdma_off);
JUDGE(efa_shm_on);
JUDGE(p2p_off);
JUDGE(mnnvl_no_cd);
JUDGE(need_efa_shm);
JUDGE(gid_ucx);
JUDGE(gid_nccl);
JUDGE(gid_ucx_auto);
JUDGE(gid_nccl_auto);
JUDGE(gid_mooncake);

#endif
