/* POD family: what the pod object asks for (checks.md M3, M4, H3).
 * Runs for unprobed pods too, so it must not assume facts (in->f may be
 * NULL). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "kube/pods.h"
#include "probe/facts.h"

#define SHM_SMALL (1LL << 30)

static int spec_known(const struct pod_spec_facts *s)
{
	return s->gpus >= 0 || s->rdma_devices >= 0 || s->ipc_lock >= 0;
}

static void rdma_resource(const struct check_input *in, struct check_results *out)
{
	const struct pod_spec_facts *s = in->spec;
	int uverbs = in->f && in->f->dev_ib.n_uverbs > 0;

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
	else if (s->has_resource_claims > 0)
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_OK, NULL,
		     "DRA resourceClaims present");
	else if (uverbs)
		emit(out, CK_POD_RDMA_RESOURCE, CHECK_OK, NULL,
		     "no RDMA resource requested, but /dev/infiniband is mounted%s",
		     s->privileged > 0 ? " (privileged)" : "");
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
