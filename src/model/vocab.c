/* The shared words (vocab.h). */
#include "vocab.h"

#include <string.h>

/* Prefixes (ending in '_') and exact names; env-vars.md sections 1-6;
 * the probe's env_filter (probe.sh) keeps the same. */
static const char *const allowed[] = {
	"UCX_", "NIXL_", "NCCL_", "FI_", "OFI_NCCL_", "MOONCAKE_", "VLLM_NIXL_", "MC_",
	"GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME", "OMPI_MCA_btl_tcp_if_include",
	"VLLM_HOST_IP", "MASTER_ADDR",
	"TRTLLM_NIXL_KVCACHE_BACKEND",   /* the framework book (fwrules.h) */
};

/* Mooncake's MC_ credentials and metadata-server URLs are never kept
 * (MC_REDIS_PASSWORD, MC_METADATA_SERVER): probe.sh drops them too. */
static int mc_secret(const char *name, size_t len)
{
	static const char *const words[] = {
		"PASSWORD", "PASSWD", "SECRET", "TOKEN", "CREDENTIAL", "USER", "KEY",
		"SERVER", "URL",
	};

	if (len < 3 || memcmp(name, "MC_", 3))
		return 0;
	for (size_t w = 0; w < sizeof words / sizeof words[0]; w++)
		for (size_t i = 3; i + strlen(words[w]) <= len; i++)
			if (!memcmp(name + i, words[w], strlen(words[w])))
				return 1;
	return 0;
}

int model_env_allowed(const char *name, size_t len)
{
	size_t i, n;

	if (mc_secret(name, len))
		return 0;
	for (i = 0; i < sizeof allowed / sizeof allowed[0]; i++) {
		n = strlen(allowed[i]);
		if (allowed[i][n - 1] == '_' ? (len > n && !memcmp(name, allowed[i], n))
					     : (len == n && !memcmp(name, allowed[i], n)))
			return 1;
	}
	return 0;
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
