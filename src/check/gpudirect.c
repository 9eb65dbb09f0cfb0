/* GPUDIRECT family: peer memory or DMA-BUF, UCX's view, GPU-NIC affinity
 * (checks.md B). */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"

/* B1/B2: the NIC reaches GPU memory by peer memory or DMA-BUF, from the
 * evidence (which also holds UCX's view, so this check and
 * gpudirect-ucx-md cannot disagree about DMA-BUF). */
static void peermem(const struct check_input *in, struct check_results *out)
{
	const struct evidence *ev = &in->ev;
	const struct probe_facts *f = in->f;

	if (in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE) {
		emit_na(out, CK_GPUDIRECT_PEERMEM, "no InfiniBand/RoCE path (%s)",
			fabric_name(in->fabric));
		return;
	}
	if (ev->peermem.state == EV_SHOWN)
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_OK, NULL, "%s loaded%s%s (%s)",
		     ev->peermem_name, ev->peermem_version[0] ? ", version " : "",
		     ev->peermem_version, ev->peermem.source);
	else if (ev->dmabuf.state == EV_SHOWN)
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_OK, NULL,
		     "DMA-BUF: %s (no nvidia_peermem)", ev->dmabuf.source);
	if (ev->peermem.state == EV_SHOWN || ev->dmabuf.state == EV_SHOWN) {
		emit_source(out, ev->gpu_reach.source);
		return;
	}
	/* UCX saw a peer-memory driver the module lists do not show: UCX is
	 * what carries the KV, so the path works; the two sources disagree. */
	if (ev->gpu_reach.state == EV_SHOWN) {
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_WARN,
		     "compare /proc/modules and /sys/module on the node with what UCX reads (/sys/kernel/mm/memory_peers, /sys/module/nvidia_peermem)",
		     "%s", ev->gpu_reach.conflict[0] ? ev->gpu_reach.conflict :
		     "UCX reaches GPU memory but no module list shows how");
		emit_source(out, ev->gpu_reach.source);
		return;
	}
	if (ev->gpu_reach.state == EV_ABSENT)
		emit(out, CK_GPUDIRECT_PEERMEM, hard(in), NULL,
		     "no nvidia_peermem/nv_peer_mem/memory_peers and no DMA-BUF (%s)%s: the NIC cannot reach GPU memory, KV is staged through host",
		     ev->driver_open == 0 ? "proprietary kernel module" :
		     ev->cuda_cpy_dmabuf == 0 ? "UCX cuda_cpy lacks dmabuf" :
		     ev->ib_mds > 0 && ev->ib_mds_dmabuf == 0 ?
		     "UCX IB memory domains do not register dmabuf" :
		     "kernel < 5.12", in->on_node);
	else if (ev->peermem.state == EV_ABSENT && ev->dmabuf_likely)
		/* No source shows either path: an open question, not a fault. */
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_SKIPPED, NULL,
		     "no nvidia_peermem; DMA-BUF likely (kernel %s, open module) but not confirmed: %s",
		     f->kernel.release, ev->dmabuf.missing[0] ? ev->dmabuf.missing :
		     "ucx_info -d shows no dmabuf");
	else
		emit(out, CK_GPUDIRECT_PEERMEM, CHECK_SKIPPED, NULL,
		     "neither path confirmed: %s", ev->gpu_reach.missing[0] ?
		     ev->gpu_reach.missing : ev->dmabuf.missing);
	emit_source(out, ev->gpu_reach.state == EV_ABSENT ? ev->gpu_reach.source : NULL);
}

/* B1b: UCX's IB memory domains reach cuda memory, by either form: cuda in
 * the md's memory types (peer memory, ib_md.c), or ", dmabuf" on its
 * register line with cuda_cpy exporting dmabuf (ucp_context.c). */
static int md_reaches_gpu(const struct probe_ucx_md *m, int cuda_cpy_dmabuf)
{
	return m->cuda || (m->reg_dmabuf && cuda_cpy_dmabuf == 1);
}

static void ucx_md(const struct check_input *in, struct check_results *out)
{
	const struct probe_ucx *u = &in->f->ucx;
	const struct evidence *ev = &in->ev;
	struct buf lack = BUF_INIT(512);
	int nlack = 0, ndmabuf = 0;
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
	for (int i = 0; i < u->nmds; i++) {
		const struct probe_ucx_md *m = &u->md[i];

		if (strcmp(m->component, "ib"))
			continue;
		if (!md_reaches_gpu(m, u->cuda_cpy_dmabuf))
			buf_appendf(&lack, "%s%s", nlack++ ? ", " : "", m->name);
		else if (!m->cuda)
			ndmabuf++;
	}
	if (!u->n_ib_mds)
		emit(out, CK_GPUDIRECT_UCX_MD, CHECK_SKIPPED, NULL,
		     "UCX lists no IB memory domain (see ucx-rdma)");
	else if (nlack == u->n_ib_mds)
		emit(out, CK_GPUDIRECT_UCX_MD, hard(in), NULL,
		     "UCX IB memory domains (%s) list only host memory and no DMA-BUF (%s)%s%s: GPUDirect RDMA is not working, KV is staged through host",
		     buf_str(&lack),
		     u->n_ib_mds_dmabuf ? "cuda_cpy lacks dmabuf" : "register: without dmabuf",
		     ev->gpu_reach.conflict[0] ? "; " : "", ev->gpu_reach.conflict);
	else if (nlack)
		emit(out, CK_GPUDIRECT_UCX_MD, CHECK_WARN, NULL,
		     "%d of %d UCX IB memory domains cannot reach cuda memory: %s",
		     nlack, u->n_ib_mds, buf_str(&lack));
	else if (ndmabuf)
		emit(out, CK_GPUDIRECT_UCX_MD, CHECK_OK, NULL,
		     "all %d UCX IB memory domains reach cuda memory (%d by DMA-BUF: register dmabuf, cuda_cpy dmabuf)",
		     u->n_ib_mds, ndmabuf);
	else
		emit(out, CK_GPUDIRECT_UCX_MD, CHECK_OK, NULL,
		     "all %d UCX IB memory domains accept cuda memory (peer memory)",
		     u->n_ib_mds);
	emit_source(out, "ucx_info -d");
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
	int nfar = 0, rows = 0, nc2c = 0;
	char why[200];
	/* A GPU whose memory is a NUMA node of its own reaches its CPU by
	 * NVLink-C2C (Grace: GH200, GB200), so topo -m prints SYS to every NIC;
	 * NCCL then allows GPUDirect RDMA up to PATH_P2C, through the CPU, unless
	 * NCCL_NET_GDR_C2C=0 (ncclTopoCheckGdr). */
	const char *gdr_c2c = envv(in, "NCCL_NET_GDR_C2C");
	int c2c_gdr = !gdr_c2c || strcmp(gdr_c2c, "0");

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
		if (best != PROBE_TOPO_PIX && best != PROBE_TOPO_PXB && best &&
		    t->gpu_numa[g] >= 0 && c2c_gdr)
			nc2c++;
		else if (best != PROBE_TOPO_PIX && best != PROBE_TOPO_PXB)
			buf_appendf(&far, "%sGPU%d %s", nfar++ ? ", " : "", g,
				    best ? probe_topo_link_name(best) : "none");
	}
	if (nfar)
		emit(out, CK_GPUDIRECT_AFFINITY, CHECK_WARN, NULL,
		     "no PIX/PXB RDMA NIC for %d of %d GPUs (best path: %s): NCCL disables GDR beyond PXB",
		     nfar, rows, buf_str(&far));
	else if (nc2c)
		emit(out, CK_GPUDIRECT_AFFINITY, CHECK_OK, NULL,
		     "%d of %d GPUs reach the RDMA NICs through their Grace CPU by NVLink-C2C (GPU NUMA ID "
		     "given; topo -m prints SYS): NCCL keeps GPUDirect RDMA through the CPU (NCCL_NET_GDR_C2C "
		     "on, PATH_P2C)", nc2c, rows);
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
