/* B7 gpudirect-vm-p2p: GPUDirect RDMA between passthrough devices of a
 * virtual machine (issue 25 item 1, ai-dynamo/dynamo#12463).
 *
 * The report: 8x H200 + 8x ConnectX-7 in KVM guests with PCIe
 * passthrough; GPUDirect RDMA fails for GPU/NIC pairs that are PIX
 * (direct peer-to-peer below one PCIe switch, never through the host
 * bridge), because two passthrough devices doing P2P get no IOMMU
 * translation in the guest and the HCA's reads of GPU memory are
 * rejected: the transfer dies and the request still returns HTTP 200
 * with garbage tokens.  With UCX_NET_DEVICES unset, UCX puts each GPU's
 * KV on its nearest NIC (nicsel.c, ucs_topo distance), which is exactly
 * that PIX partner; a fixed UCX_NET_DEVICES moved most GPUs off their
 * pair and "fixed" them by accident.  Whether the hypervisor translates
 * P2P (ATS on the NIC, ACS and the hypervisor's P2P setting) cannot be
 * seen from the guest, so a VM with such pairs is a warning, never a
 * fail; without DMI the check is skipped (no ok claim on no evidence). */
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

/* DMI values hypervisors set (QEMU/KVM, VMware, Hyper-V, Xen,
 * VirtualBox, Parallels, Nutanix AHV, OpenStack Nova, cloud guests):
 * substrings of sys_vendor or product_name. */
static const char *const hv_names[] = {
	"QEMU", "KVM", "VMware", "Virtual Machine", "Xen", "VirtualBox",
	"innotek", "Parallels", "Nutanix", "OpenStack", "Bochs", "Cloud Hypervisor",
};

static int dmi_hypervisor(const struct probe_vm *v)
{
	for (size_t i = 0; i < sizeof(hv_names) / sizeof(hv_names[0]); i++)
		if (strstr(v->sys_vendor, hv_names[i]) || strstr(v->product_name, hv_names[i]))
			return 1;
	return 0;
}

/* Is NIC `name` one UCX_NET_DEVICES (v, set) lists, any port? */
static int nic_listed(const char *v, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = v; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ':')
			return 1;
	return 0;
}

static int rdma_name(const char *name)
{
	return !strncmp(name, "mlx", 3) || !strncmp(name, "bnxt", 4) ||
	       !strncmp(name, "ionic", 5) || !strncmp(name, "rdmap", 5);
}

/* The PIX/PXB GPU-NIC pairs of topo -m into b ("GPU0-mlx5_0 PIX"), only
 * those UCX_NET_DEVICES lets UCX use when `v` is set; their number, and
 * in *ngpus the GPUs with one. */
static int p2p_pairs(const struct probe_topo *t, const char *v, struct buf *b, int *ngpus)
{
	int k = 0;

	*ngpus = 0;
	for (int g = 0; g < t->gpu_rows && g < PROBE_MAX_GPUS; g++) {
		int had = 0;

		for (int n = 0; n < t->nnics && n < PROBE_MAX_NICS; n++) {
			int link = t->gpu_nic[g][n].link;

			if ((link != PROBE_TOPO_PIX && link != PROBE_TOPO_PXB) ||
			    !rdma_name(t->nic_name[n]) || (v && !nic_listed(v, t->nic_name[n])))
				continue;
			buf_appendf(b, "%sGPU%d-%s %s", k++ ? ", " : "", g, t->nic_name[n],
				    probe_topo_link_name(link));
			had = 1;
		}
		*ngpus += had;
	}
	return k;
}

static void judge_vm(const struct check_input *in, const struct probe_vm *vm,
		     struct check_results *out)
{
	const char *v = envv(in, "UCX_NET_DEVICES");
	int all = !v || !strcmp(v, "all");
	struct buf pairs = BUF_INIT(512);
	int ngpus, npairs = p2p_pairs(&in->f->topo, all ? NULL : v, &pairs, &ngpus);
	int hv = dmi_hypervisor(vm);

	if (!hv && vm->cpu_hypervisor < 0 && vm->cpu_arm64)
		emit(out, CK_GPUDIRECT_VM_P2P, CHECK_OK, NULL,
		     "not a virtual machine (DMI: %s %s; arm64's /proc/cpuinfo carries no hypervisor flag)",
		     vm->sys_vendor, vm->product_name);
	else if (!hv && vm->cpu_hypervisor < 0)
		emit(out, CK_GPUDIRECT_VM_P2P, CHECK_SKIPPED, NULL,
		     "DMI says %s %s but /proc/cpuinfo has no flags line: whether this is a VM is unknown",
		     vm->sys_vendor, vm->product_name);
	else if (!hv && !vm->cpu_hypervisor)
		emit(out, CK_GPUDIRECT_VM_P2P, CHECK_OK, NULL,
		     "not a virtual machine (DMI: %s %s, no hypervisor CPU flag)",
		     vm->sys_vendor, vm->product_name);
	else if (!npairs)
		emit(out, CK_GPUDIRECT_VM_P2P, CHECK_OK, NULL,
		     "a virtual machine (DMI: %s %s), but UCX_NET_DEVICES pairs no GPU with a NIC under its PCIe switch",
		     vm->sys_vendor, vm->product_name);
	else
		emit(out, CK_GPUDIRECT_VM_P2P, CHECK_WARN, NULL,
		     "a virtual machine (DMI: %s %s%s) with %d GPU(s) whose KV goes over a NIC under the same PCIe switch: %s; GPUDirect RDMA between passthrough devices needs peer-to-peer translation by the hypervisor, without it the transfers fail and disaggregated serving returns garbage tokens with HTTP 200 (ai-dynamo/dynamo#12463)%s",
		     vm->sys_vendor, vm->product_name,
		     vm->cpu_hypervisor == 1 ? ", hypervisor CPU flag" : "", ngpus,
		     buf_str(&pairs),
		     !v ? "; UCX_NET_DEVICES is unset, so UCX puts every GPU's KV on that nearest NIC, as in the report" :
		     all ? "; UCX_NET_DEVICES=all, so UCX puts every GPU's KV on that nearest NIC, as in the report" :
		     "");
	emit_source(out, "/sys/class/dmi/id, /proc/cpuinfo, nvidia-smi topo -m, UCX_NET_DEVICES");
	buf_release(&pairs);
}

void check_vm(const struct check_input *in, struct check_results *out)
{
	const struct probe_vm *vm = &in->f->vm;
	const struct probe_topo *t = &in->f->topo;

	if (!is_rdma_fabric(in->fabric) || in->fabric == FABRIC_EFA || !in->cross_pod) {
		emit_na(out, CK_GPUDIRECT_VM_P2P, "no InfiniBand/RoCE path across pods (%s)",
			fabric_name(in->fabric));
		return;
	}
	if (t->src.status != PROBE_OK || !t->nnics) {
		emit(out, CK_GPUDIRECT_VM_P2P, CHECK_SKIPPED, NULL,
		     "nvidia-smi topo -m not read or shows no NIC: the GPU-NIC pairs are unknown");
		return;
	}
	if (vm->src.status != PROBE_OK || (!*vm->sys_vendor && !*vm->product_name)) {
		emit(out, CK_GPUDIRECT_VM_P2P, CHECK_SKIPPED, NULL,
		     "/sys/class/dmi/id not readable in the pod: whether this is a VM is unknown");
		return;
	}
	if (!env_readable(in)) {
		emit(out, CK_GPUDIRECT_VM_P2P, CHECK_SKIPPED, NULL,
		     "the main process's environment was not readable (UCX_NET_DEVICES)");
		return;
	}
	judge_vm(in, vm, out);
}
