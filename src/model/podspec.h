/* What a pod object asks for, as the checks need it (checks.md M): read
 * by kube/api/pods.c and kube/api/claims.c from the API, judged by src/check/.
 * A leaf: plain data, no I/O, so the checks need no kube header. */
#ifndef MODEL_PODSPEC_H
#define MODEL_PODSPEC_H

/* What the pod spec says about the transport (checks.md M), read from the
 * API object so that no exec is needed.  -1 = not stated. */
struct pod_spec_facts {
	long gpus;              /* nvidia.com/gpu limit (or request) */
	long rdma_devices;      /* sum of the rdma/ resources (rdma/ib, rdma/shared_ib, ...) */
	char rdma_resource[128];/* the first rdma/ resource name, "" when none */
	long efa_devices;       /* vpc.amazonaws.com/efa */
	int ipc_lock;           /* capabilities.add has IPC_LOCK (or privileged) */
	int sys_resource;       /* capabilities.add has SYS_RESOURCE (or privileged) */
	int privileged;
	int host_ipc;
	int host_network;
	long long shm_bytes;    /* sizeLimit of a memory emptyDir on /dev/shm; 0 none, -1 unlimited */
	int has_resource_claims;/* DRA claims (ComputeDomain, dranet) */
	/* NIXL backend the container asks for ("UCX", "LIBFABRIC"), read from
	 * vLLM's kv_connector_extra_config.backends in its args or from
	 * SGLang's env; "" when the spec does not say. */
	char nixl_backend[32];
	/* DRA ResourceClaims the container uses (kube/api/claims.c), as read from
	 * the API: claims_read + claims_unread is how many it uses. */
	int claims_read;        /* ResourceClaims read */
	int claims_unread;      /* could not be read: claims_why says why */
	char claims_why[200];
	char claim_drivers[256];/* ","-joined drivers of the allocated devices */
	char claim_classes[256];/* ","-joined device classes requested */
	char claim_devices[256];/* "driver/device, ..." for the detail */
};

#endif
