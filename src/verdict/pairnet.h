/* Pair rules on the wire between prefill and decode (checks.md A10, D4b, E8b,
 * E7b):
 * whether the GIDs the two KV libraries use can reach each other, and
 * whether an MNNVL pair sits in one NVLink domain, whether a KV lane
 * UCX keeps leaves the KV fabric.  Judged from the two
 * pods' digests (struct check_summary) only; graph.c runs them per pair. */
#ifndef VERDICT_PAIRNET_H
#define VERDICT_PAIRNET_H

#include <stddef.h>

#include "check/check.h"
#include "util/buf.h"

/* CHECK_OK when prefill a and decode b can meet on this point (or it
 * cannot be judged from the digests and there is nothing to say);
 * otherwise the status and the reason in why.  an/bn name the sides in
 * the reason ("prefill qwen-prefill-0"). */
enum check_status verdict_pair_gid(const struct check_summary *a, const char *an,
				   const struct check_summary *b, const char *bn,
				   char *why, size_t n);
enum check_status verdict_pair_nvl_domain(const struct check_summary *a, const char *an,
					  const struct check_summary *b, const char *bn,
					  char *why, size_t n);
/* E7b: a KV lane over a port off the KV fabric with no route to the
 * peer's KV GID, which UCX keeps (reach_all): fails. */
enum check_status verdict_pair_offfab(const struct check_summary *a, const char *an,
				      const struct check_summary *b, const char *bn,
				      char *why, size_t n);

/* D6 (issue 42): a same-node pair whose only path is cuda_ipc, read by
 * vLLM's NixlConnector on GPUs without NVLink (UCX gives cuda_ipc no GET
 * there: KV falls back to TCP): fails, or warns where NIXL may carry
 * ai-dynamo/nixl PR #2208. */
enum check_status verdict_pair_ipc_dir(const struct check_summary *a, const char *an,
				       const struct check_summary *b, const char *bn,
				       char *why, size_t n);
/* D6: a pair whose only path is multi-node NVLink, KV allocated without
 * a CUDA fabric handle on a side: fails. */
enum check_status verdict_pair_ipc_fabric(const struct check_summary *a, const char *an,
					  const struct check_summary *b, const char *bn,
					  char *why, size_t n);

/* E8b: Mooncake with destination affinity on a rail-only fabric, the two
 * sides listing different rail sets: fails (kvcache-ai/Mooncake#3828);
 * without it, a rank whose two GPUs do not prefer one and the same NIC
 * (mc_rank_nics): fails (issue 42 item 3). */
enum check_status verdict_pair_mc_rails(const struct check_summary *a, const char *an,
					const struct check_summary *b, const char *bn,
					char *why, size_t n);

/* Appends every digest field the two rules read to a pod-class key. */
void verdict_pairnet_key(const struct check_summary *s, struct buf *b);

#endif
