/* POD family: what the pod object asks for (checks.md M3, M4, H3).
 * Runs for unprobed pods too, so it must not assume facts (in->f may be
 * NULL). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "model/podspec.h"
#include "model/vocab.h"
#include "probe/facts.h"

#define SHM_SMALL (1LL << 30)

static int spec_known(const struct pod_spec_facts *s)
{
	return s->gpus >= 0 || s->rdma_devices >= 0 || s->ipc_lock >= 0;
}

/* What a DRA driver or device class hands out.  Names as the drivers
 * register them:
 * - dra.net: google/dranet (GKE RDMA NICs; also the name AWS's
 *   karpenter-provider-aws simulates for EFA, pkg/providers/drametadata),
 *   its DeviceClass "dranet" (dranet docs);
 * - sriovnetwork.k8snetworkplumbingwg.io: k8snetworkplumbingwg/dra-driver-sriov,
 *   the driver and the DeviceClass it creates, which the NVIDIA Network
 *   Operator deploys for RDMA VFs (network-operator docs "DRA SR-IOV driver");
 * - gpu.nvidia.com and compute-domain.nvidia.com: NVIDIA/k8s-dra-driver-gpu
 *   (GPUs; IMEX channels of a ComputeDomain, DeviceClasses
 *   compute-domain-default-channel.nvidia.com / compute-domain-daemon.nvidia.com).
 * The same list is what the Kubernetes cluster-autoscaler names as the
 * known drivers (simulator dynamicresources: dra.net, gpu.nvidia.com,
 * compute-domain.nvidia.com, tpu.google.com). */
static const struct { const char *name; enum claim_kind kind; } claim_names[] = {
	{ "dra.net", CLAIM_NIC }, { "dranet", CLAIM_NIC },
	{ "sriovnetwork.k8snetworkplumbingwg.io", CLAIM_NIC },
	{ "gpu.nvidia.com", CLAIM_GPU },
	{ "compute-domain.nvidia.com", CLAIM_IMEX },
	{ "compute-domain-default-channel.nvidia.com", CLAIM_IMEX },
	{ "compute-domain-daemon.nvidia.com", CLAIM_IMEX },
};

int claims_of_kind(const struct pod_spec_facts *s, enum claim_kind k)
{
	if (s->claims_read <= 0)
		return s->claims_unread > 0 || s->has_resource_claims > 0 ? -1 : 0;
	for (size_t i = 0; i < sizeof claim_names / sizeof claim_names[0]; i++)
		if (claim_names[i].kind == k && (model_list_has(s->claim_drivers, claim_names[i].name) ||
						  model_list_has(s->claim_classes, claim_names[i].name)))
			return 1;
	return s->claims_unread > 0 ? -1 : 0;
}

static int is_kind(const char *name, size_t n, enum claim_kind k)
{
	for (size_t i = 0; i < sizeof claim_names / sizeof claim_names[0]; i++)
		if (claim_names[i].kind == k && strlen(claim_names[i].name) == n &&
		    !strncmp(claim_names[i].name, name, n))
			return 1;
	return 0;
}

/* The "driver/device" entries of the claims whose driver hands out NICs. */
static const char *nic_devices(const struct pod_spec_facts *s, char *b, size_t n)
{
	size_t used = 0;

	b[0] = '\0';
	for (const char *p = s->claim_devices; *p;) {
		size_t l = strcspn(p, ","), d = strcspn(p, "/");

		if (d < l && is_kind(p, d, CLAIM_NIC) && used < n) {
			int k = snprintf(b + used, n - used, "%s%.*s", used ? ", " : "", (int)l, p);

			used += k > 0 ? (size_t)k : 0;
		}
		p += l + (p[l] == ',');
	}
	return b[0] ? b : s->claim_classes;
}

static void rdma_resource(const struct check_input *in, struct check_results *out)
{
	char nics[256];
	const struct pod_spec_facts *s = in->spec;
	int uverbs = in->f && in->f->dev_ib.n_uverbs > 0;
	int nic = claims_of_kind(s, CLAIM_NIC);

	if (!needs_rdma(in)) {
		emit_na(out, CK_POD_RDMA_RESOURCE, "KV does not leave the pod over RDMA");
		return;
	}
	if (!spec_known(s)) {
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_SKIPPED, NULL, "pod spec not known");
		return;
	}
	if (s->rdma_devices > 0)
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_OK, NULL, "%s: %ld",
		     s->rdma_resource[0] ? s->rdma_resource : "rdma", s->rdma_devices);
	else if (s->efa_devices > 0)
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_OK, NULL,
		     "vpc.amazonaws.com/efa: %ld", s->efa_devices);
	else if (nic > 0)
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_OK, NULL, "DRA claim allocates NICs: %s",
		     nic_devices(s, nics, sizeof nics));
	else if (uverbs)
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_OK, NULL,
		     "no RDMA resource requested, but /dev/infiniband is mounted%s",
		     s->privileged > 0 ? " (privileged)" : "");
	else if (nic < 0)
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_SKIPPED,
		     "grant get on resourceclaims (resource.k8s.io) to the user running check (deploy/rbac.yaml)",
		     "DRA resourceClaims not read, so whether they hold NICs is unknown: %s",
		     s->claims_why[0] ? s->claims_why : "not looked up");
	else if (s->claims_read > 0)
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_FAIL,
		     "claim a NIC (e.g. a DraNet or SR-IOV DeviceClass) or add an RDMA resource limit",
		     "the DRA claims allocate no NIC (%s) on a pod whose KV crosses pods",
		     s->claim_drivers[0] ? s->claim_drivers : s->claim_classes[0] ? s->claim_classes : "nothing allocated");
	else
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_FAIL, NULL,
		     "no rdma/*, vpc.amazonaws.com/efa or resourceClaim on a pod whose KV crosses pods");
}

static void ipc_lock(const struct check_input *in, struct check_results *out)
{
	const struct pod_spec_facts *s = in->spec;
	const struct probe_facts *f = in->f;

	if (!needs_rdma(in)) {
		emit_na(out, CK_POD_IPC_LOCK, "no RDMA in use");
		return;
	}
	if (s->ipc_lock < 0 && s->privileged < 0)
		emit(out, CK_POD_IPC_LOCK, CHECK_SKIPPED, NULL, "pod spec not known");
	else if (s->ipc_lock > 0 || s->privileged > 0)
		emit(out, CK_POD_IPC_LOCK, CHECK_OK, NULL, "%s",
		     s->privileged > 0 ? "privileged" : "capabilities.add IPC_LOCK");
	else if (f && (f->limits_pid1.memlock_soft == PROBE_UNLIMITED ||
		       f->limits_self.memlock_soft == PROBE_UNLIMITED))
		emit(out, CK_POD_IPC_LOCK, CHECK_OK, NULL,
		     "no IPC_LOCK, but memlock is unlimited");
	else
		emit(out, CK_POD_IPC_LOCK, CHECK_WARN, NULL,
		     "no IPC_LOCK capability and not privileged: memlock may cap RDMA registration");
}

static void shm(const struct check_input *in, struct check_results *out)
{
	const struct pod_spec_facts *s = in->spec;

	if (s->gpus >= 0 && s->gpus < 2)
		emit_na(out, CK_POD_SHM, "%ld GPU: no intra-pod shared memory traffic",
			s->gpus);
	else if (!spec_known(s))
		emit(out, CK_POD_SHM, CHECK_SKIPPED, NULL, "pod spec not known");
	else if (s->shm_bytes < 0)
		emit(out, CK_POD_SHM, CHECK_OK, NULL, "/dev/shm memory emptyDir, no size limit");
	else if (s->shm_bytes == 0 && s->gpus < 0)
		emit(out, CK_POD_SHM, CHECK_WARN, NULL,
		     "no /dev/shm emptyDir: container default (64 MiB), GPU count not requested");
	else if (s->shm_bytes == 0)
		emit(out, CK_POD_SHM, CHECK_WARN, NULL,
		     "no /dev/shm emptyDir: container default (64 MiB) for %ld GPUs",
		     s->gpus);
	else if (s->shm_bytes < SHM_SMALL)
		emit(out, CK_POD_SHM, CHECK_WARN, NULL, "/dev/shm limited to %lld MiB",
		     s->shm_bytes >> 20);
	else
		emit(out, CK_POD_SHM, CHECK_OK, NULL, "/dev/shm %lld GiB",
		     s->shm_bytes >> 30);
}

static void host_ipc(const struct check_input *in, struct check_results *out)
{
	const struct pod_spec_facts *s = in->spec;

	if (in->fabric != FABRIC_EFA && !(s->efa_devices > 0))
		emit_na(out, CK_POD_HOST_IPC, "not an EFA pod");
	else if (s->host_ipc < 0)
		emit(out, CK_POD_HOST_IPC, CHECK_SKIPPED, NULL, "pod spec not known");
	else if (s->host_ipc > 0)
		emit(out, CK_POD_HOST_IPC, CHECK_OK, NULL, "hostIPC: true");
	else
		emit(out, CK_POD_HOST_IPC, CHECK_WARN, NULL,
		     "EFA pod without hostIPC: libfabric shm provider cannot reach peers");
}

void check_podspec(const struct check_input *in, struct check_results *out)
{
	rdma_resource(in, out);
	ipc_lock(in, out);
	shm(in, out);
	host_ipc(in, out);
}
