/* GPUDIRECT family: peer memory or DMA-BUF, UCX's view, GPU-NIC affinity
 * (checks.md B). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

/* B1: UCX's three paths, then /proc/modules. -1 when nothing was read. */
int peermem_loaded(const struct probe_facts *f)
{
	const struct probe_modules *m = &f->modules;

	if (m->nv_mem_peer || m->loaded[PROBE_MOD_NVIDIA_PEERMEM] ||
	    m->loaded[PROBE_MOD_NV_PEER_MEM])
		return 1;
	if (src_known(&m->proc_src) || src_known(&m->sys_src) ||
	    src_known(&m->peers_src))
		return 0;
	return -1;
}

/* B2: 1 when UCX's cuda_cpy md lists dmabuf (the decisive signal), 0
 * when UCX says no or the kernel/driver cannot, 2 when kernel and open
 * module allow it but UCX was not seen, -1 unknown. */
int dmabuf_path(const struct probe_facts *f)
{
	int kernel_ok = f->kernel.major > 5 ||
			(f->kernel.major == 5 && f->kernel.minor >= 12);

	if (f->ucx.d_src.status == PROBE_OK && f->ucx.cuda_cpy_dmabuf >= 0)
		return f->ucx.cuda_cpy_dmabuf;
	if (f->nvdriver.open_module == 0 ||
	    (f->kernel.major > 0 && !kernel_ok))
		return 0;
	if (f->nvdriver.open_module == 1 && kernel_ok)
		return 2;
	return -1;
}

static void peermem(const struct check_input *in, struct check_results *out)
{
	const struct probe_facts *f = in->f;
	int pm = peermem_loaded(f), db = dmabuf_path(f);
	char why[200];

	if (in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE) {
		emit_na(out, CK_GPUDIRECT_PEERMEM, "no InfiniBand/RoCE path (%s)",
			fabric_name(in->fabric));
		return;
	}
	if (pm == 1)
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_OK, NULL, "%s loaded%s%s",
		     f->modules.loaded[PROBE_MOD_NV_PEER_MEM] ? "nv_peer_mem" :
		     f->modules.loaded[PROBE_MOD_NVIDIA_PEERMEM] ? "nvidia_peermem" :
		     "memory_peers/nv_mem",
		     f->modules.nv_mem_version[0] ? ", version " : "",
		     f->modules.nv_mem_version);
	else if (db == 1)
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_OK, NULL,
		     "DMA-BUF: UCX cuda_cpy lists dmabuf (no nvidia_peermem)");
	else if (db == 2 && pm == 0)
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_WARN, NULL,
		     "no nvidia_peermem; DMA-BUF likely (kernel %s, open module) but UCX's support not seen",
		     f->kernel.release);
	else if (pm == 0 && db == 0)
		emit(out, CK_GPUDIRECT_PEERMEM, hard(in), NULL,
		     "no nvidia_peermem/nv_peer_mem/memory_peers and no DMA-BUF (%s)%s: the NIC cannot reach GPU memory, KV is staged through host",
		     f->nvdriver.open_module == 0 ? "proprietary kernel module" :
		     f->ucx.cuda_cpy_dmabuf == 0 ? "UCX cuda_cpy lacks dmabuf" :
		     "kernel < 5.12", in->on_node);
	else if (pm == 0)
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_WARN, NULL,
		     "no nvidia_peermem; DMA-BUF support unknown (%s)",
		     src_why(&f->ucx.d_src, "ucx_info -d", why, sizeof(why)));
	else
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_SKIPPED, NULL, "%s",
		     src_why(&f->modules.proc_src, "/proc/modules", why,
			     sizeof(why)));
}

/* B1b: the HCA memory domains accept cuda memory. */
static void ucx_md(const struct check_input *in, struct check_results *out)
{
	const struct probe_ucx *u = &in->f->ucx;
	struct buf lack = BUF_INIT(512);
	int nlack = 0;
	char why[200];

	if (in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE) {
		emit_na(out, CK_GPUDIRECT_UCX_MD, "no InfiniBand/RoCE path");
		return;
	}
	if (u->d_src.status != PROBE_OK) {
		emit(out, CK_GPUDIRECT_UCX_MD, CHECK_SKIPPED, NULL, "%s",
		     src_why(&u->d_src, "ucx_info", why, sizeof(why)));
		return;
	}
	for (int i = 0; i < u->nmds; i++)
		if (!strcmp(u->md[i].component, "ib") && !u->md[i].cuda)
			buf_appendf(&lack, "%s%s", nlack++ ? ", " : "",
				    u->md[i].name);
	if (!u->n_ib_mds)
		emit(out, CK_GPUDIRECT_UCX_MD, CHECK_SKIPPED, NULL,
		     "UCX lists no IB memory domain (see ucx-rdma)");
	else if (!u->n_ib_mds_cuda)
		emit(out, CK_GPUDIRECT_UCX_MD, hard(in), NULL,
		     "UCX IB memory domains (%s) list only host memory: GPUDirect RDMA is not working, KV is staged through host",
		     buf_str(&lack));
	else if (nlack)
		emit(out, CK_GPUDIRECT_UCX_MD, CHECK_WARN, NULL,
		     "%d of %d UCX IB memory domains lack cuda: %s", nlack,
		     u->n_ib_mds, buf_str(&lack));
	else
		emit(out, CK_GPUDIRECT_UCX_MD, CHECK_OK, NULL,
		     "all %d UCX IB memory domains accept cuda memory",
		     u->n_ib_mds);
	buf_release(&lack);
}

static int rdma_nic(const char *name)
{
	return !strncmp(name, "mlx", 3) || !strncmp(name, "rdmap", 5) ||
	       !strncmp(name, "efa", 3) || !strncmp(name, "NIC", 3) ||
	       !strncmp(name, "bnxt", 4) || !strncmp(name, "ionic", 5);
}

/* B4: best path from each GPU to an RDMA NIC. */
static void affinity(const struct check_input *in, struct check_results *out)
{
	const struct probe_topo *t = &in->f->topo;
	struct buf far = BUF_INIT(512);
	int nfar = 0, rows = 0;
	char why[200];

	if (!is_rdma_fabric(in->fabric) || !in->cross_pod) {
		emit_na(out, CK_GPUDIRECT_AFFINITY, "no RDMA path");
		return;
	}
	if (t->src.status != PROBE_OK || !t->nnics) {
		emit(out, CK_GPUDIRECT_AFFINITY, CHECK_SKIPPED, NULL, "%s",
		     t->src.status == PROBE_OK ? "nvidia-smi topo -m shows no NIC" :
		     src_why(&t->src, "nvidia-smi topo -m", why, sizeof(why)));
		return;
	}
	for (int g = 0; g < t->gpu_rows && g < PROBE_MAX_GPUS; g++) {
		int best = PROBE_TOPO_UNKNOWN;

		rows++;
		for (int n = 0; n < t->nnics && n < PROBE_MAX_NICS; n++) {
			int link = t->gpu_nic[g][n].link;

			if (rdma_nic(t->nic_name[n]) && link >= PROBE_TOPO_PIX &&
			    (best == PROBE_TOPO_UNKNOWN || link < best))
				best = link;
		}
		if (best != PROBE_TOPO_PIX && best != PROBE_TOPO_PXB)
			buf_appendf(&far, "%sGPU%d %s", nfar++ ? ", " : "", g,
				    best ? probe_topo_link_name(best) : "none");
	}
	if (nfar)
		emit(out, CK_GPUDIRECT_AFFINITY, CHECK_WARN, NULL,
		     "no PIX/PXB RDMA NIC for %d of %d GPUs (best path: %s): NCCL disables GDR beyond PXB",
		     nfar, rows, buf_str(&far));
	else if (rows)
		emit(out, CK_GPUDIRECT_AFFINITY, CHECK_OK, NULL,
		     "every GPU (%d) has an RDMA NIC at PIX/PXB", rows);
	else
		emit(out, CK_GPUDIRECT_AFFINITY, CHECK_SKIPPED, NULL,
		     "nvidia-smi topo -m printed no GPU rows");
	buf_release(&far);
}

void check_gpudirect(const struct check_input *in, struct check_results *out)
{
	peermem(in, out);
	ucx_md(in, out);
	affinity(in, out);
}
