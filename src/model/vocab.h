/* Words several layers share: which environment variables are transport
 * settings (the probe filters with it in the pod and again here, the pod
 * list and the recipe reader keep only those), ","-joined lists, and which
 * extended resources are RDMA NICs.  A leaf: no I/O, no other module. */
#ifndef MODEL_VOCAB_H
#define MODEL_VOCAB_H

#include <stddef.h>

/* 1 if NAME (len bytes) is a transport variable: UCX_*, NIXL_*, NCCL_*,
 * FI_*, ... (env-vars.md sections 1-6). */
int model_env_allowed(const char *name, size_t len);
/* SGLang's and TensorRT-LLM's KV-transfer variables (SGLANG_DISAGGREGATION_*,
 * SGLANG_MOONCAKE_*, SGLANG_*_IB_*, TRTLLM_UCX_*, TRTLLM_NIXL_*,
 * TRTLLM_*KVCACHE*), never a secret-looking one: what the probe keeps of a
 * running process beside model_env_allowed's (issue 25); a recipe's
 * transport env stays model_env_allowed's. */
int model_env_framework(const char *name, size_t len);
/* name is one entry of the ","-joined list. */
int model_list_has(const char *list, const char *name);
/* An RDMA device-plugin resource name: rdma/..., GKE's
 * networking.gke.io.networks/rdma-N (not .IP). */
int model_rdma_resource_name(const char *name);

#endif
