/* UCX family: the NICs UCX will use for KV, and the UCX_NET_DEVICES to
 * paste instead (checks.md E7, issue 25 items 1-2).
 *
 * UCX's own choice, from its source: UCX_NET_DEVICES defaults to "all"
 * (ucp_context.c config table), and ucp_is_resource_in_device_list() then
 * takes every resource; otherwise an IB resource is taken when its
 * "dev:port" name is listed exactly.  uct_ib enumerates every device verbs
 * opens and keeps every port that is ACTIVE (uct_ib_device_port_check():
 * other states are UCS_ERR_UNREACHABLE), InfiniBand or Ethernet alike.  So
 * "all" binds an Active Ethernet port beside the InfiniBand rails (the
 * host network, often a BlueField bond), which ai-dynamo/dynamo PR #10852
 * saw end in NIXL_ERR_BACKEND; a down port is not taken (rdma-ports judges
 * it).  Only a port without a GID is a certain failure (its iface does not
 * open, smg-project/smg#2520); with GIDs it is a risk, as real nodes of
 * that layout run Dynamo's recipe with UCX_NET_DEVICES unset (calibration).
 * Off the fabric too: a BlueField DPU function on RoCE (rule_out_dpus) and
 * a bond member without a RoCE LAG (bond_of).  Per GPU, the ports UCX
 * stripes one NIXL put/get over (gpu_ports). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "probe/facts.h"
#include "util/buf.h"
#include "util/clist.h"
#include "util/xalloc.h"

#include "check/nicsel_int.h"

/* UCX_NET_DEVICES unset or "all": UCX's default, every resource. */
static int takes_all(const char *v)
{
	return !v || !strcmp(v, "all");
}

/* "dev:port" listed exactly, as ucp_str_array_search() compares it. */
static int listed(const char *v, const char *dev, int port)
{
	char want[48];

	dev_port(want, sizeof(want), dev, (size_t)-1, port);
	return clist_has(v, want, strlen(want), 0);
}

static int topo_column(const struct probe_topo *t, const char *dev)
{
	for (int i = 0; i < t->nnics && i < PROBE_MAX_NICS; i++)
		if (!strcmp(t->nic_name[i], dev))
			return i;
	return -1;
}

/* Does UCX open device d: 1, 0, or -1 unknown.  ucx_info -d lists a
 * memory domain for each device verbs opens (whatever UCX_NET_DEVICES
 * says); without it, as many uverbs nodes as devices show that verbs
 * opens each (it opens none without its node; the probe counts the nodes
 * but does not map them to devices). */
static int ucx_opens(const struct check_input *in, const struct probe_rdma_list *l,
		     const struct probe_rdma_dev *d)
{
	const struct probe_ucx *u = &in->f->ucx;

	if (u->d_src.status == PROBE_OK && u->n_ib_mds > 0) {
		for (int i = 0; i < u->nmds; i++)
			if (!strcmp(u->md[i].name, d->name))
				return 1;
		return 0;
	}
	return in->f->dev_ib.n_uverbs >= l->ndevs ? 1 : -1;
}

/* A BlueField DPU/SuperNIC function, by PCI part id as UCX's device
 * table names them (ib_device.c uct_ib_builtin_device_specs: 0xa2d2
 * BlueField, 0xa2d6 BlueField 2; 0xa2dc BlueField-3, UCX PR #9013). */
static int dpu(const struct probe_rdma_dev *d)
{
	int id = d->part_id;

	if (id <= 0 && !strncmp(d->hca_type, "MT", 2)) {
		/* ibstat's "MT41692" is the part id in decimal (0xa2dc). */
		long v = strtol(d->hca_type + 2, NULL, 10);

		id = v > 0 && v < 0x10000 ? (int)v : 0;
	}
	return id == 0xa2d2 || id == 0xa2d3 || id == 0xa2d6 || id == 0xa2dc;
}

/* d's entry in the sysfs list (the list UCX's view comes from may be
 * another tool's), NULL when sysfs lacks it. */
static const struct probe_rdma_dev *sysfs_dev(const struct check_input *in,
					      const struct probe_rdma_dev *d)
{
	const struct probe_rdma_list *sl = &in->f->sysfs_ib;

	for (int i = 0; i < sl->ndevs; i++)
		if (!strcmp(sl->dev[i].name, d->name))
			return &sl->dev[i];
	return NULL;
}

/* Do two physical sysfs paths share a PCI bridge below the root complex
 * ("/sys/devices/pciDDDD:BB/<root port>" and more in common)?  That is
 * UCX's near distance (ucs_topo_get_distance_sysfs: a common parent below
 * the PCI root) and topo -m's PIX/PXB; Dynamo PR #10852 compares the same
 * links. */
static int same_switch(const char *a, const char *b)
{
	static const char pre[] = "/sys/devices/";
	int comps = 0;

	if (strncmp(a, pre, sizeof pre - 1) || strncmp(b, pre, sizeof pre - 1))
		return 0;
	a += sizeof pre - 1;
	b += sizeof pre - 1;
	for (;;) {
		size_t la = strcspn(a, "/"), lb = strcspn(b, "/");

		if (!la || la != lb || strncmp(a, b, la))
			break;
		comps++;
		if (a[la] != '/' || b[lb] != '/')
			break;
		a += la + 1;
		b += lb + 1;
	}
	return comps >= 2;
}

/* Without topo -m: is d behind the PCIe switch of a GPU of the pod, from
 * the sysfs paths (1, 0, -1 unknown: no path for it or for the GPUs). */
static int sysfs_affine(const struct check_input *in, const struct probe_rdma_dev *d)
{
	const struct probe_rdma_dev *sd = sysfs_dev(in, d);
	const struct probe_pci *pci = &in->f->pci;

	if (!sd || !sd->pci_path[0] || !pci->n_gpu_paths)
		return -1;
	for (int i = 0; i < pci->n_gpu_paths && i < PROBE_MAX_GPUS; i++)
		if (same_switch(sd->pci_path, pci->gpu_path[i]))
			return 1;
	return 0;
}

/* Is the port in topo -m column c under the PCIe switch of some GPU
 * (PIX/PXB)? */
static int gpu_affine(const struct probe_topo *t, int c)
{
	for (int g = 0; g < t->gpu_rows && g < PROBE_MAX_GPUS; g++)
		if (t->gpu_nic[g][c].link == PROBE_TOPO_PIX ||
		    t->gpu_nic[g][c].link == PROBE_TOPO_PXB)
			return 1;
	return 0;
}

/* On RoCE a BlueField function is a rail only as a SuperNIC: Spectrum-X
 * puts one BlueField-3 in NIC mode under each GPU's PCIe switch (east-
 * west), while a DPU's host function serves the host network (north-
 * south) from the CPU's root complex.  So with topo -m a BlueField port is
 * a rail when it is PIX/PXB to some GPU; without it when sysfs shows it
 * behind a GPU's PCIe switch, and without either only when the pod has no
 * other Active port (all rails BlueField), as it cannot be told. */
static void rule_out_dpus(const struct check_input *in, struct nicsel *s)
{
	const struct probe_topo *t = &in->f->topo;
	int other = 0;

	if (in->fabric != FABRIC_ROCE)
		return;
	for (int i = 0; i < s->count; i++)
		other |= s->n[i].active && !dpu(s->n[i].d);
	for (int i = 0; i < s->count; i++) {
		struct nic *n = &s->n[i];

		if (!dpu(n->d))
			continue;
		int sys = sysfs_affine(in, n->d);

		n->kv = t->src.status == PROBE_OK && n->topo >= 0 ?
			gpu_affine(t, n->topo) : sys >= 0 ? sys : !other;
	}
}

/* The bond whose member port d is, or NULL: its netdev is enslaved
 * (sysfs device/net/X/master, read from the sysfs list whichever list
 * UCX's view comes from) and d is not the bond's own RDMA device.  mlx5
 * offloads a bond of one adapter's ports as a RoCE LAG, one device named
 * mlx5_bond_N over the bond (ibdev2netdev maps it to the bond itself),
 * which UCX drives as one device of ad_num_ports paths
 * (uct_ib_device_get_roce_lag_level); a bond it does not offload leaves
 * each port a device of its own, which UCX takes like any other
 * (uct_ib_device_port_check has no bond test) while the kernel puts the
 * bond's GIDs on the active slave's port only and moves them on failover
 * (drivers/infiniband/core/roce_gid_mgmt.c). */
static const char *bond_of(const struct check_input *in, const struct probe_rdma_dev *d)
{
	const struct probe_rdma_list *nl = &in->f->ibdev2netdev;
	const struct probe_rdma_dev *sd = sysfs_dev(in, d);
	const char *m = sd ? sd->net_master : NULL;

	if (!m || !*m || !strncmp(d->name, "mlx5_bond_", 10))
		return NULL;
	for (int i = 0; i < nl->ndevs; i++)
		if (!strcmp(nl->dev[i].name, d->name) && !strcmp(nl->dev[i].netdev, m))
			return NULL;
	return m;
}

/* The pod's ports: on an InfiniBand fabric an Ethernet port cannot carry
 * the KV (it is the host or management network); on RoCE every Active
 * port may be a rail but a BlueField DPU function (rule_out_dpus). */
static void collect(const struct check_input *in, const struct probe_rdma_list *l,
		    struct nicsel *s)
{
	const char *v = envv(in, "UCX_NET_DEVICES");

	s->listed = !takes_all(v);
	for (int i = 0; i < l->ndevs; i++) {
		int opens = ucx_opens(in, l, &l->dev[i]);

		for (int p = 0; p < l->dev[i].nports && s->count < NICSEL_MAX; p++) {
			const struct probe_rdma_port *pv = port_view(in->f, &l->dev[i], p);
			struct nic *n = &s->n[s->count++];

			n->d = &l->dev[i];
			n->pi = p;
			n->port = pv->num;
			n->bond = pv->link_layer == PROBE_LL_ETH ?
				  bond_of(in, n->d) : NULL;
			n->kv = (in->fabric != FABRIC_INFINIBAND ||
				 pv->link_layer != PROBE_LL_ETH) && !n->bond;
			n->active = pv->state == PROBE_PORT_ACTIVE ||
				    pv->state == PROBE_PORT_ACTIVE_DEFER;
			n->taken = n->active && opens != 0 &&
				   (!s->listed || listed(v, n->d->name, n->port));
			n->unsure = opens < 0;
			n->no_gid = l->dev[i].port[p].gids_listed > 0 &&
				    !l->dev[i].port[p].n_gids;
			n->topo = topo_column(&in->f->topo, n->d->name);
		}
	}
	rule_out_dpus(in, s);
}

/* A port KV can use: on the fabric, Active, and not one whose GID table
 * is read and empty (env-gid-index fails it: UCX's iface on it does not
 * open, smg-project/smg#2520), so the suggestion never names a port
 * another check fails (issue 39 item 1). */
static int usable(const struct nic *n)
{
	return n->kv && n->active && !n->no_gid;
}

/* Best topo link from GPU g to an Active KV port (only_taken: one UCX
 * takes); 0 when none is in topo -m. */
static int best_link(const struct probe_topo *t, const struct nicsel *s, int g,
		     int only_taken)
{
	int best = 0;

	for (int i = 0; i < s->count; i++) {
		const struct nic *n = &s->n[i];
		int link;

		if (!usable(n) || n->topo < 0 || (only_taken && !n->taken))
			continue;
		link = t->gpu_nic[g][n->topo].link;
		if (link >= PROBE_TOPO_PIX && (!best || link < best))
			best = link;
	}
	return best;
}

/* Without topo -m: does sysfs show some Active KV port behind a GPU's
 * PCIe switch (then only those are suggested)? */
static int sysfs_rails(const struct check_input *in, const struct nicsel *s)
{
	for (int i = 0; i < s->count; i++)
		if (usable(&s->n[i]) && sysfs_affine(in, s->n[i].d) > 0)
			return 1;
	return 0;
}

/* The value to paste: the Active KV ports, and where topo -m is known only
 * those nearest some GPU of the pod (the GPU-affine rails); without it,
 * where sysfs shows rails behind the GPUs' PCIe switches, only those
 * (not the host or management ports on root ports of their own). */
static void suggest(const struct check_input *in, const struct nicsel *s,
		    struct buf *b)
{
	const struct probe_topo *t = &in->f->topo;
	int rows = t->src.status == PROBE_OK ? t->gpu_rows : 0;
	int bysys = !rows && sysfs_rails(in, s);
	int k = 0;

	for (int i = 0; i < s->count; i++) {
		const struct nic *n = &s->n[i];
		int near = bysys ? sysfs_affine(in, n->d) > 0 : !rows || n->topo < 0;

		if (!usable(n))
			continue;
		for (int g = 0; g < rows && g < PROBE_MAX_GPUS && !near; g++)
			near = t->gpu_nic[g][n->topo].link == best_link(t, s, g, 0);
		if (near)
			buf_appendf(b, "%s%s:%d", k++ ? "," : "", n->d->name, n->port);
		((struct nic *)n)->suggested = near;
	}
}

/* The fabric as the findings name it. */
static const char *fab(enum fabric f)
{
	return f == FABRIC_INFINIBAND ? "InfiniBand" : f == FABRIC_ROCE ? "RoCE" :
	       fabric_name(f);
}

/* The ports UCX takes that cannot carry KV, into b; their number.
 * *dead: one of them is known to be opened and has no GID, so UCX's
 * iface open on it fails (uct_ib_device_query_gid_info: ibv_query_gid
 * "Invalid argument", smg-project/smg#2520). */
static int off_fabric(const struct nicsel *s, struct buf *b, int *dead)
{
	int k = 0;

	*dead = 0;
	for (int i = 0; i < s->count; i++) {
		const struct nic *n = &s->n[i];

		if (!n->taken || n->kv)
			continue;
		*dead |= !n->unsure && n->no_gid;
		buf_appendf(b, "%s%s:%d (Ethernet%s%s%.32s%s)", k++ ? ", " : "", n->d->name,
			    n->port, dpu(n->d) ? ", BlueField" : "",
			    n->bond ? ", member of " : "", n->bond ? n->bond : "",
			    n->no_gid ? ", empty GID table" : "");
	}
	return k;
}

/* GPUs whose nearest port UCX takes is across the CPU interconnect
 * (NODE/SYS) while a nearer KV port exists but is not taken; their
 * number, "GPU4 SYS (mlx5_6 is PIX)" into b. */
static int far_gpus(const struct check_input *in, const struct nicsel *s,
		    struct buf *b)
{
	const struct probe_topo *t = &in->f->topo;
	int k = 0;

	if (t->src.status != PROBE_OK)
		return 0;
	for (int g = 0; g < t->gpu_rows && g < PROBE_MAX_GPUS; g++) {
		int got = best_link(t, s, g, 1), could = best_link(t, s, g, 0);

		if (got < PROBE_TOPO_NODE || !could || could >= got)
			continue;
		buf_appendf(b, "%sGPU%d %s (could be %s)", k++ ? ", " : "", g,
			    probe_topo_link_name(got), probe_topo_link_name(could));
	}
	return k;
}

/* The result's source, with which tie-break among equal lanes was taken
 * (nicsel_ucx_11547) and, where it is a guess, from what. */
static void emit_lane_model(const struct check_input *in, struct check_results *out)
{
	const struct probe_ucx *u = &in->f->ucx;
	char src[160];
	int guess, rr = nicsel_ucx_11547(u, &guess);

	/* short: the KV path's link keeps 127 characters of it */
	snprintf(src, sizeof src, "/sys/class/infiniband, UCX_NET_DEVICES, nvidia-smi topo -m, "
		 "ucx_info -v (ties as %sUCX PR #11547%s%.12s%s%.7s)", rr ? "" : "before ",
		 guess ? "; assumed, UCX " : "", guess && *u->version ? u->version : guess ? "?" : "",
		 guess && *u->revision ? " " : "", guess ? u->revision : "");
	emit_source(out, src);
}

/* Emits the result with the value to paste (sugg) in its remedy and as
 * the result's suggested variable; 1 when it suggests it. */
static int judge(const struct check_input *in, const struct nicsel *s,
		  const char *sugg, struct check_results *out)
{
	struct buf bad = BUF_INIT(512), far = BUF_INIT(512), rem = BUF_INIT(1024),
		   shared = BUF_INIT(512);
	int dead, nbad = off_fabric(s, &bad, &dead), nfar = far_gpus(in, s, &far);
	int nshared = nicsel_shared_rails(in, s, &shared);
	const char *how = s->listed ? "UCX_NET_DEVICES lists" :
			  "UCX_NET_DEVICES is unset/all, so UCX takes every Active port, also";
	int taken = 0;

	for (int i = 0; i < s->count; i++)
		taken += s->n[i].taken && s->n[i].kv;
	if (*sugg)
		buf_appendf(&rem, "set UCX_NET_DEVICES=%s on the worker (the Active %s ports%s)",
			    sugg, fab(in->fabric),
			    in->f->topo.src.status == PROBE_OK ? " nearest each GPU" : "");
	else
		buf_appendf(&rem, "give the worker an Active %s rail (none here can carry KV) and list it in UCX_NET_DEVICES",
			    fab(in->fabric));
	if (nbad && dead)
		emit(out, CK_UCX_NIC_SELECT, hard(in), buf_str(&rem),
		     "%s %s, which cannot carry KV on this %s fabric: with no GID UCX's interface on it fails to open (ibv_query_gid), and NIXL's UCX backend with it (NIXL_ERR_BACKEND at start-up: smg-project/smg#2520, ai-dynamo/dynamo#10852)",
		     how, buf_str(&bad), fab(in->fabric));
	else if (nbad)
		emit(out, CK_UCX_NIC_SELECT, CHECK_WARN, buf_str(&rem),
		     "%s %s, which cannot carry KV on this %s fabric: UCX may put KV lanes on the host network, which fails (NIXL_ERR_BACKEND, hangs) where it does not route between the workers (ai-dynamo/dynamo#10852, smg-project/smg#2520)",
		     how, buf_str(&bad), fab(in->fabric));
	else if (nfar)
		emit(out, CK_UCX_NIC_SELECT, CHECK_WARN, buf_str(&rem),
		     "UCX_NET_DEVICES leaves %d GPU(s) only NICs across the CPU interconnect: %s; their KV crosses UPI/xGMI at up to half the NIC's bandwidth (openucx/ucx#11259)",
		     nfar, buf_str(&far));
	else if (nshared)
		emit(out, CK_UCX_NIC_SELECT, CHECK_WARN,
		     "set UCX_MAX_RNDV_RAILS=1 on the worker: one rail per GPU (NVIDIA/TensorRT-LLM PR #7205)",
		     "TensorRT-LLM's UCX cache transceiver stripes each GPU's KV rendezvous over UCX_MAX_RNDV_RAILS, unset here (UCX's default 2), so %d port(s) are shared between GPUs: %s; TP ranks sending at once contend for them (NVIDIA/TensorRT-LLM PR #7205)",
		     nshared, buf_str(&shared));
	else if (!taken)
		emit(out, CK_UCX_NIC_SELECT, CHECK_SKIPPED, NULL,
		     "UCX takes no Active %s port here (see env-ucx-net-devices, rdma-ports)",
		     fab(in->fabric));
	else
		emit(out, CK_UCX_NIC_SELECT, CHECK_OK, NULL,
		     "UCX takes %d Active %s port(s)%s, none off the fabric%s",
		     taken, fab(in->fabric),
		     s->listed ? " (UCX_NET_DEVICES)" : " (all)",
		     in->f->topo.src.status == PROBE_OK ?
		     ", each GPU's nearest among them" : "");
	if ((nbad || nfar) && *sugg)
		emit_suggest(out, "UCX_NET_DEVICES", sugg);
	else if (!nbad && !nfar && nshared)
		emit_suggest(out, "UCX_MAX_RNDV_RAILS", "1");
	emit_lane_model(in, out);
	buf_release(&bad);
	buf_release(&far);
	buf_release(&rem);
	buf_release(&shared);
	return (nbad || nfar) && *sugg;
}

void check_nicsel(const struct check_input *in, struct check_results *out)
{
	const struct probe_rdma_list *l;
	struct nicsel *s;
	struct buf sugg = BUF_INIT(1024);

	if ((in->fabric != FABRIC_INFINIBAND && in->fabric != FABRIC_ROCE) ||
	    !in->cross_pod) {
		if (in->cross_pod)
			nicsel_fi_gpus(in, out);
		emit_na(out, CK_UCX_NIC_SELECT, "no InfiniBand/RoCE path across pods (%s)",
			fabric_name(in->fabric));
		return;
	}
	l = rdma_list(in->f);
	if (!l || !l->ndevs || !env_readable(in)) {
		emit(out, CK_UCX_NIC_SELECT, CHECK_SKIPPED, NULL, "%s",
		     !env_readable(in) ? "the main process's environment was not readable" :
		     "no RDMA device listed (see rdma-devices)");
		return;
	}
	s = xcalloc(1, sizeof(*s));
	collect(in, l, s);
	suggest(in, s, &sugg);
	nicsel_map_gpus(in, s, judge(in, s, buf_str(&sugg), out), out);
	nicsel_digest_lane_off(in, s, buf_str(&sugg), out);
	buf_release(&sugg);
	free(s);
}
