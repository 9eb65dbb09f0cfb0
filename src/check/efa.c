/* EFA family: devices, libfabric provider, FI_HMEM (checks.md G). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "model/podspec.h"
#include "probe/facts.h"

static int efa_expected(const struct check_input *in)
{
	return in->fabric == FABRIC_EFA || in->ctx->expected == FABRIC_EFA ||
	       in->spec->efa_devices > 0;
}

/* A non-EFA RDMA device beside the EFA devices of an EFA pod (issue 42):
 * the EFA device plugin before 0.5.10 hands out p6-b200's two ibp* NVLink
 * controllers (mlx5) as EFA devices (aws/sagemaker-hyperpod-cli PR #282),
 * and a /dev/infiniband hostPath gives the pod every device
 * (aws-samples/aws-do-eks PR #63).  libfabric's EFA provider opens every
 * verbs device to read its GID (efa_device_list_initialize), which fails
 * on them: fi_info -p efa reports -61 and NCCL/NIXL fall back to TCP. */
static void mixed(const struct check_input *in, const struct probe_rdma_list *l, int nefa,
		  const char *efa, struct check_results *out)
{
	int nu = src_known(&in->f->dev_ib.src) ? in->f->dev_ib.n_uverbs : -1;
	char other[256], nd[200] = "", uv[96];
	size_t k = 0;

	if (nu < 0)
		snprintf(uv, sizeof uv, "/dev/infiniband not read: the pod may open it");
	else
		snprintf(uv, sizeof uv, "%d uverbs nodes in the pod, more than the EFA devices", nu);
	dev_names(l, 0, other, sizeof(other));
	for (int i = 0; i < l->ndevs && k < sizeof(nd); i++)
		if (!dev_is_efa(&l->dev[i]) && *l->dev[i].netdev)
			k += (size_t)snprintf(nd + k, sizeof(nd) - k, "%s%.31s", k ? ", " : "",
					      l->dev[i].netdev);
	emit(out, CK_EFA_DEVICES, nu < 0 ? CHECK_WARN : hard(in),
	     "upgrade the EFA device plugin to 0.5.10 or later (it hands out only the rdmap* EFA devices) and do not mount /dev/infiniband from the host",
	     "%d EFA device%s (%s) and a non-EFA RDMA device beside them: %s%s%s%s, %s: the EFA device plugin before 0.5.10 hands out p6-b200's ibp* NVLink controllers as EFA devices (aws/sagemaker-hyperpod-cli PR #282), as a /dev/infiniband hostPath does; libfabric's EFA provider then fails to open them and fi_info -p efa reports -61, so KV falls back to TCP (aws-samples/aws-do-eks PR #63)",
	     nefa, nefa == 1 ? "" : "s", efa, other, *nd ? " (netdev " : "", nd, *nd ? ")" : "", uv);
}

static void devices(const struct check_input *in, struct check_results *out)
{
	const struct probe_rdma_list *l = rdma_list(in->f);
	int nib, nefa;
	char names[256], why[200];

	if (!efa_expected(in)) {
		emit_na(out, CK_EFA_DEVICES, "not an EFA node");
		return;
	}
	if (!l) {
		emit(out, CK_EFA_DEVICES, CHECK_SKIPPED, NULL, "%s",
		     src_why(&in->f->sysfs_ib.src, "/sys/class/infiniband", why,
			     sizeof(why)));
		return;
	}
	rdma_count(l, &nib, &nefa);
	dev_names(l, 1, names, sizeof(names));
	if (!nefa)
		emit(out, CK_EFA_DEVICES, in->cross_pod ? CHECK_FAIL : CHECK_WARN,
		     NULL, "no EFA device in the pod (requested %ld): KV goes over TCP",
		     in->spec->efa_devices > 0 ? in->spec->efa_devices : 0L);
	else if (src_known(&in->f->dev_ib.src) && !in->f->dev_ib.n_uverbs)
		emit(out, CK_EFA_DEVICES, hard(in), NULL,
		     "%d EFA device%s (%s) but no /dev/infiniband/uverbs* in the pod",
		     nefa, nefa == 1 ? "" : "s", names);
	else if (nib && (!src_known(&in->f->dev_ib.src) || in->f->dev_ib.n_uverbs > nefa))
		mixed(in, l, nefa, names, out);
	else
		emit(out, CK_EFA_DEVICES, CHECK_OK, NULL, "%d EFA device%s (%s)",
		     nefa, nefa == 1 ? "" : "s", names);
}

static void provider(const struct check_input *in, struct check_results *out)
{
	const struct probe_fi *fi = &in->f->fi;
	char why[200];

	if (in->fabric != FABRIC_EFA) {
		emit_na(out, CK_EFA_PROVIDER, "not an EFA fabric");
		return;
	}
	if (fi->n_efa_rdm > 0)
		emit(out, CK_EFA_PROVIDER, CHECK_OK, NULL,
		     "fi_info -p efa: %d FI_EP_RDM endpoint%s (%s)", fi->n_efa_rdm,
		     fi->n_efa_rdm == 1 ? "" : "s", fi->entry[0].domain);
	else if (fi->no_data || fi->src.status == PROBE_OK ||
		 (fi->src.status == PROBE_FAILED && fi->src.rc != 127))
		emit(out, CK_EFA_PROVIDER, hard(in), NULL,
		     "fi_info -p efa offers no FI_EP_RDM endpoint%s",
		     fi->no_data ? " (fi_getinfo: -61, No data available)" : "");
	else
		emit(out, CK_EFA_PROVIDER, CHECK_SKIPPED, NULL, "%s",
		     src_why(&fi->src, "fi_info", why, sizeof(why)));
}

static void hmem(const struct check_input *in, struct check_results *out)
{
	const struct probe_fi *fi = &in->f->fi;
	char why[200];

	if (in->fabric != FABRIC_EFA) {
		emit_na(out, CK_EFA_HMEM, "not an EFA fabric");
		return;
	}
	if (fi->hmem_p2p_unavailable || fi->hmem_cuda_reg_failed)
		emit(out, CK_EFA_HMEM, hard(in), NULL,
		     "libfabric: %s: NIXL LIBFABRIC requires GPUDirect",
		     fi->hmem_cuda_reg_failed ?
		     "failed to register CUDA buffer with the EFA device" :
		     "FI_HMEM_CUDA P2P support is not available");
	else if (fi->hmem_src.status == PROBE_OK && fi->n_hmem_entries > 0)
		emit(out, CK_EFA_HMEM, CHECK_OK, NULL,
		     "fi_info -c FI_HMEM lists %d efa entr%s", fi->n_hmem_entries,
		     fi->n_hmem_entries == 1 ? "y" : "ies");
	else if (fi->hmem_src.status == PROBE_OK)
		emit(out, CK_EFA_HMEM, hard(in), NULL,
		     "fi_info -p efa -c FI_HMEM lists no entry: no GPU memory support");
	else
		emit(out, CK_EFA_HMEM, CHECK_SKIPPED, NULL, "%s",
		     src_why(&fi->hmem_src, "fi_info -c FI_HMEM", why, sizeof(why)));
}

void check_efa(const struct check_input *in, struct check_results *out)
{
	devices(in, out);
	provider(in, out);
	hmem(in, out);
}
