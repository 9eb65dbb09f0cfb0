/* NIXL's LIBFABRIC backend on EFA: each GPU's EFA devices (gpuNics,
 * checks.md E9; issue 42 item 4), as NIXL groups them (ai-dynamo/nixl
 * src/utils/libfabric/libfabric_topology.cpp groupNicsWithAccel, v1.4.0):
 * from each GPU it walks up the PCI tree (hwloc) to the first ancestor
 * with an EFA device below it; each device goes to the first ancestor
 * above it that a GPU stopped at; an ancestor's devices, sorted by bus,
 * are split evenly among its GPUs in bus order (fewer devices than GPUs:
 * each GPU gets them all).  selectRailsForMemory (libfabric_rail_manager
 * .cpp) gives a GPU's memory its group's rails, all of them.
 *
 * The tree is read from nvidia-smi topo -m: the best code from a GPU to
 * any EFA device (PIX/PXB its PCIe switch, PHB its host bridge, NODE its
 * NUMA node, SYS the machine) is the level it stops at, and two GPUs stop
 * at one ancestor when they stop at the same level with the same devices
 * within it; columns stand for bus order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/nicsel_int.h"
#include "util/xalloc.h"

#define FI_LIBFABRIC "LIBFABRIC"

/* Does the pod's KV go through NIXL's LIBFABRIC backend: EFA, and neither
 * the recipe nor SGLang's SGLANG_DISAGGREGATION_NIXL_BACKEND names UCX
 * (NIXL on EFA is LIBFABRIC unless told otherwise, checks.md N)? */
static int runs_libfabric(const struct check_input *in)
{
	const char *sgl = envv(in, "SGLANG_DISAGGREGATION_NIXL_BACKEND");
	const char *be = in->ctx ? in->ctx->nixl_backend : NULL;

	if (in->fabric != FABRIC_EFA)
		return 0;
	if (sgl && *sgl)
		return !strcmp(sgl, FI_LIBFABRIC);
	return !be || strstr(be, FI_LIBFABRIC) != NULL;
}

/* Is topo -m's column name an EFA device of the pod's RDMA list (AWS
 * names them rdmapNsM or efa_N: the list's own test, dev_is_efa)? */
static int is_efa(const struct check_input *in, const char *name)
{
	const struct probe_rdma_list *l = rdma_list(in->f);

	for (int i = 0; l && i < l->ndevs; i++)
		if (!strcmp(l->dev[i].name, name))
			return dev_is_efa(&l->dev[i]);
	return 0;
}

/* The level GPU g stops at: its best topo -m code to an EFA column. */
static int stop_level(const struct check_input *in, int nn, int g)
{
	const struct probe_topo *t = &in->f->topo;
	int best = 0;

	for (int c = 0; c < nn; c++) {
		int l = t->gpu_nic[g][c].link;

		if (is_efa(in, t->nic_name[c]) && l >= PROBE_TOPO_PIX && (!best || l < best))
			best = l;
	}
	return best;
}

/* Do GPUs g and h stop at one ancestor (same level, same devices in it)? */
static int same_stop(const struct check_input *in, int nn, const int *lv, int g, int h)
{
	const struct probe_topo *t = &in->f->topo;

	if (!lv[g] || lv[g] != lv[h])
		return 0;
	for (int c = 0; c < nn; c++)
		if (is_efa(in, t->nic_name[c]) &&
		    (t->gpu_nic[g][c].link == lv[g]) != (t->gpu_nic[h][c].link == lv[h]))
			return 0;
	return 1;
}

/* Is device c assigned to GPU g's ancestor: c is within it, and no GPU
 * stops at a lower ancestor of c? */
static int assigned(const struct check_input *in, int rows, const int *lv, int g, int c)
{
	const struct probe_topo *t = &in->f->topo;

	if (!is_efa(in, t->nic_name[c]) || !lv[g] || t->gpu_nic[g][c].link != lv[g])
		return 0;
	for (int h = 0; h < rows; h++)
		if (lv[h] && t->gpu_nic[h][c].link == lv[h] && lv[h] < lv[g])
			return 0;
	return 1;
}

/* GPU g's share of its ancestor's devices into e. */
static void fi_gpu(const struct check_input *in, int nn, int rows, const int *lv, int g,
		   struct check_gpu_nic *e)
{
	const struct probe_topo *t = &in->f->topo;
	int ngpu = 0, me = 0, ndev = 0, per, extra, from, take, code = 0;

	for (int h = 0; h < rows; h++)
		if (same_stop(in, nn, lv, g, h)) {
			me += h < g;
			ngpu++;
		}
	for (int c = 0; c < nn; c++)
		ndev += assigned(in, rows, lv, g, c);
	per = ngpu ? ndev / ngpu : 0;
	extra = ngpu ? ndev % ngpu : 0;
	from = ndev < ngpu ? 0 : me * per + (me < extra ? me : extra);
	take = ndev < ngpu ? ndev : per + (me < extra);
	for (int c = 0, k = 0; c < nn; c++) {
		if (!assigned(in, rows, lv, g, c))
			continue;
		if (k >= from && k < from + take && nicsel_add_port(in, t->nic_name[c], e) &&
		    (!code || t->gpu_nic[g][c].link < code))
			code = t->gpu_nic[g][c].link;
		k++;
	}
	copy_str(e->link, sizeof e->link, code ? probe_topo_link_name(code) : "");
}

int nicsel_add_port(const struct check_input *in, const char *name, struct check_gpu_nic *e)
{
	const struct probe_rdma_list *l = rdma_list(in->f);

	for (int i = 0; l && i < l->ndevs; i++) {
		const struct probe_rdma_dev *d = &l->dev[i];
		const struct probe_rdma_port *pv;
		struct check_gpu_nic_port *o;

		if (strcmp(d->name, name) || d->nports <= 0)
			continue;
		if (e->n < 0 || e->n >= CHECK_GPU_NIC_PORTS) {
			e->n = -1;
			return 0;
		}
		pv = port_view(in->f, d, 0);
		o = &e->nic[e->n++];
		dev_port(o->dev, sizeof o->dev, d->name, 27, pv->num);
		copy_str(o->state, sizeof o->state, nicsel_port_state(pv->state));
		snprintf(o->link_layer, sizeof o->link_layer, "%s",
			 pv->link_layer == PROBE_LL_ETH ? "Ethernet" : "InfiniBand");
		return 1;
	}
	return 0;
}

void nicsel_fi_gpus(const struct check_input *in, struct check_results *out)
{
	const struct probe_topo *t = &in->f->topo;
	int rows = t->src.status == PROBE_OK ? t->gpu_rows : 0;
	int nn = t->nnics < PROBE_MAX_NICS ? t->nnics : PROBE_MAX_NICS;
	int lv[PROBE_MAX_GPUS];
	struct check_gpu_nic *all;

	if (rows > PROBE_MAX_GPUS)
		rows = PROBE_MAX_GPUS;
	if (rows <= 0 || !nn || out->gpu_nics || !runs_libfabric(in))
		return;
	for (int g = 0; g < rows; g++)
		lv[g] = stop_level(in, nn, g);
	all = xcalloc((size_t)rows, sizeof(*all));
	for (int g = 0; g < rows; g++) {
		struct check_gpu_nic *e = &all[g];

		e->gpu = g;
		e->numa = t->numa[g];
		copy_str(e->chosen_by, sizeof e->chosen_by, FI_LIBFABRIC);
		fi_gpu(in, nn, rows, lv, g, e);
		e->max_rails = e->n < 0 ? CHECK_GPU_NIC_PORTS : e->n;
	}
	out->gpu_nics = all;
	out->n_gpu_nics = (size_t)rows;
}
