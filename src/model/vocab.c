/* The shared words (vocab.h). */
#include "vocab.h"

#include <string.h>

/* Prefixes (ending in '_') and exact names; env-vars.md sections 1-6;
 * the probe's env_filter (probe.sh) keeps the same. */
static const char *const allowed[] = {
	"UCX_", "NIXL_", "NCCL_", "FI_", "OFI_NCCL_", "MOONCAKE_", "VLLM_NIXL_", "MC_",
	"GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME", "OMPI_MCA_btl_tcp_if_include",
	"VLLM_HOST_IP", "MASTER_ADDR",
	"PYTORCH_CUDA_ALLOC_CONF",       /* known-issues kvcache-ai/Mooncake#2511 */
	"TRTLLM_NIXL_KVCACHE_BACKEND",   /* the framework book (fwrules.h) */
	"VLLM_KV_CACHE_FABRIC", "SGLANG_NIXL_VMM_MEM_POOL", /* D6: KV with a fabric handle */
	"CUDA_VISIBLE_DEVICES",          /* E8: the GPUs a Mooncake process uses */
};

/* The KV-transfer variables of SGLang and TensorRT-LLM: prefix (ending
 * in '_'), or a word the name contains after its framework prefix
 * (SGLANG_*_IB_*, TRTLLM_*KVCACHE*); probe.sh's env_filter keeps the same. */
static const struct { const char *prefix, *word; } framework[] = {
	{ "SGLANG_DISAGGREGATION_", NULL }, { "SGLANG_MOONCAKE_", NULL },
	{ "SGLANG_", "_IB_" }, { "TRTLLM_UCX_", NULL }, { "TRTLLM_NIXL_", NULL },
	{ "TRTLLM_", "KVCACHE" },
};

/* Does name[from, len) contain word? */
static int has_word(const char *name, size_t len, size_t from, const char *word)
{
	size_t wl = strlen(word);

	for (size_t i = from; i + wl <= len; i++)
		if (!memcmp(name + i, word, wl))
			return 1;
	return 0;
}

static int framework_var(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof framework / sizeof framework[0]; i++) {
		size_t n = strlen(framework[i].prefix);

		if (len <= n || memcmp(name, framework[i].prefix, n))
			continue;
		if (!framework[i].word || has_word(name, len, n - 1, framework[i].word))
			return 1;
	}
	return 0;
}

/* Credentials and metadata-server URLs of Mooncake (MC_REDIS_PASSWORD,
 * MC_METADATA_SERVER), SGLang and TensorRT-LLM are never kept: probe.sh
 * drops them too. */
static int secret_name(const char *name, size_t len)
{
	static const char *const prefixes[] = { "MC_", "SGLANG_", "TRTLLM_" };
	static const char *const words[] = {
		"PASSWORD", "PASSWD", "SECRET", "TOKEN", "CREDENTIAL", "USER", "KEY",
		"SERVER", "URL",
	};

	for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; p++) {
		size_t n = strlen(prefixes[p]);

		if (len < n || memcmp(name, prefixes[p], n))
			continue;
		for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
			if (has_word(name, len, n, words[w]))
				return 1;
	}
	return 0;
}

int model_env_allowed(const char *name, size_t len)
{
	size_t i, n;

	if (secret_name(name, len))
		return 0;
	for (i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
		n = strlen(allowed[i]);
		if (allowed[i][n - 1] == '_' ? (len > n && !memcmp(name, allowed[i], n))
					     : (len == n && !memcmp(name, allowed[i], n)))
			return 1;
	}
	return 0;
}

int model_env_framework(const char *name, size_t len)
{
	return !secret_name(name, len) && framework_var(name, len);
}

int model_list_has(const char *list, const char *s)
{
	size_t sl = strlen(s);

	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ",");

		if (l == sl && !strncmp(p, s, sl))
			return 1;
		p += l + (p[l] == ',');
	}
	return 0;
}

/* RDMA device-plugin resources: rdma/... (Mellanox/NVIDIA network operator,
 * Azure's rdma/hca_shared_devices_a) and GKE multi-networking's RDMA NICs,
 * networking.gke.io.networks/rdma-N (not their .IP companions). */
int model_rdma_resource_name(const char *name)
{
	static const char gke[] = "networking.gke.io.networks/rdma";
	size_t n = strlen(name);

	if (!strncmp(name, "rdma/", 5))
		return 1;
	return !strncmp(name, gke, sizeof(gke) - 1) &&
	       !(n > 3 && !strcmp(name + n - 3, ".IP"));
}
