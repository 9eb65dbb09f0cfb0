/* RDMA family: devices, ports, verbs, rate, RoCE (checks.md A). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/internal.h"
#include "model/podspec.h"
#include "probe/facts.h"
#include "util/buf.h"

#define DETAIL_MAX 1024

static const char *const port_state_names[] = {
	"Unknown", "Down", "Init", "Armed", "Active", "Active(defer)",
};
static const char *const phys_names[] = {
	"", "Sleep", "Polling", "Disabled", "Training", "LinkUp",
	"LinkErrorRecovery", "PhyTest",
};

static const char *pstate(enum probe_port_state s)
{
	return (unsigned)s <= PROBE_PORT_ACTIVE_DEFER ? port_state_names[s] : "?";
}

static const char *phys(enum probe_phys_state s)
{
	return (unsigned)s <= PROBE_PHYS_PHY_TEST ? phys_names[s] : "";
}

/* An int from pod-supplied text: atoi() is undefined on overflow, so parse
 * with strtol and clamp (a huge value is as wrong as any other). */
static int to_int(const char *s)
{
	long v = strtol(s, NULL, 10);

	return v > 65535 ? 65535 : v < -1 ? -1 : (int)v;
}

/* Does a comma list (UCX_NET_DEVICES / NCCL_IB_HCA syntax) name this
 * device port?  "mlx5_0:1", "mlx5_0", a netdev, or a prefix for NCCL. */
static int list_names(const char *list, const struct probe_rdma_dev *d,
		      int port, int prefix_ok)
{
	const char *p = list;
	size_t name_len = strlen(d->name), netdev_len = strlen(d->netdev);

	while (p && *p) {
		size_t len = strcspn(p, ",");
		const char *colon = memchr(p, ':', len);
		size_t nlen = colon ? (size_t)(colon - p) : len;
		const char *tok = p;
		int want_port;

		if (*tok == '=' && nlen) {
			tok++;
			nlen--;
			prefix_ok = 0;
		}
		/* The names first: the port's number is read only for an
		 * entry that names this device (~190 entries a pod; issue 46). */
		if (nlen &&
		    ((name_len == nlen && !strncmp(d->name, tok, nlen)) ||
		     (prefix_ok && !strncmp(d->name, tok, nlen)) ||
		     (netdev_len == nlen && !strncmp(d->netdev, tok, nlen))) &&
		    (!(want_port = colon ? to_int(colon + 1) : 0) || want_port == port))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Which ports the workload uses (A2): those named by UCX_NET_DEVICES,
 * else NCCL_IB_HCA, else all.  *named is set when a variable chose. */
int port_in_use(const struct check_input *in, const struct probe_rdma_dev *d,
		int port, int *named)
{
	const char *ucx = envv(in, "UCX_NET_DEVICES");
	const char *nccl = envv(in, "NCCL_IB_HCA");

	*named = 0;
	if (ucx && *ucx && strcmp(ucx, "all")) {
		*named = 1;
		return list_names(ucx, d, port, 0);
	}
	if (nccl && *nccl) {
		*named = 1;
		if (*nccl == '^')
			return !list_names(nccl + 1, d, port, 1);
		return list_names(nccl, d, port, 1);
	}
	return 1;
}

/* The port as the best source saw it; tools fill in what sysfs lacks. */
const struct probe_rdma_port *port_view(const struct probe_facts *f,
					const struct probe_rdma_dev *d, int p)
{
	const struct probe_rdma_list *ls[] = {
		&f->sysfs_ib, &f->ibstat, &f->ibstatus, &f->ibv_devinfo,
	};
	const struct probe_rdma_port *mine = &d->port[p];

	if (mine->state != PROBE_PORT_UNKNOWN)
		return mine;
	for (size_t i = 0; i < 4; i++)
		for (int j = 0; j < ls[i]->ndevs; j++) {
			const struct probe_rdma_dev *o = &ls[i]->dev[j];

			if (strcmp(o->name, d->name))
				continue;
			for (int k = 0; k < o->nports; k++)
				if (o->port[k].num == mine->num &&
				    o->port[k].state != PROBE_PORT_UNKNOWN)
					return &o->port[k];
		}
	return mine;
}

static int port_up(const struct probe_rdma_port *p)
{
	return p->state == PROBE_PORT_ACTIVE &&
	       (p->phys_state == PROBE_PHYS_LINKUP ||
		p->phys_state == PROBE_PHYS_UNKNOWN);
}

/* The link layer the fabric runs on; other ports are not its rails. */
static int rail_port(const struct check_input *in,
		     const struct probe_rdma_port *p)
{
	if (in->fabric == FABRIC_INFINIBAND)
		return p->link_layer != PROBE_LL_ETH;
	if (in->fabric == FABRIC_ROCE)
		return p->link_layer != PROBE_LL_IB;
	return 1;
}

static void rdma_devices(const struct check_input *in,
			 const struct probe_rdma_list *l,
			 struct check_results *out)
{
	const struct probe_dev_ib *dib = &in->f->dev_ib;
	char names[256], why[200];
	int nib, nefa;

	rdma_count(l, &nib, &nefa);
	if (in->fabric == FABRIC_EFA) {
		emit_na(out, CK_RDMA_DEVICES, "EFA fabric: see efa-devices");
		return;
	}
	if (!l) {
		emit(out, CK_RDMA_DEVICES, CHECK_SKIPPED, NULL, "%s",
		     src_why(&in->f->sysfs_ib.src, "/sys/class/infiniband",
			     why, sizeof(why)));
		return;
	}
	dev_names(l, 0, names, sizeof(names));
	if (!nib) {
		if (!in->cross_pod)
			emit_na(out, CK_RDMA_DEVICES,
				"no RDMA device; KV stays inside this pod");
		else if (!needs_rdma(in))
			emit_na(out, CK_RDMA_DEVICES,
				"no RDMA device; KV stays on this node (cuda_ipc)");
		else
			emit(out, CK_RDMA_DEVICES, CHECK_FAIL, NULL,
			     "no RDMA device in the pod (/sys/class/infiniband empty): KV between pods goes over TCP");
		return;
	}
	if (!src_known(&dib->src)) {
		emit(out, CK_RDMA_DEVICES, CHECK_SKIPPED, NULL,
		     "%d RDMA device%s (%s); %s", nib, nib == 1 ? "" : "s",
		     names, src_why(&dib->src, "/dev/infiniband", why, sizeof(why)));
		return;
	}
	if (dib->n_uverbs > 0) {
		emit(out, CK_RDMA_DEVICES, CHECK_OK, NULL,
		     "%d RDMA device%s (%s), %d uverbs node%s", nib,
		     nib == 1 ? "" : "s", names, dib->n_uverbs,
		     dib->n_uverbs == 1 ? "" : "s");
		return;
	}
	emit(out, CK_RDMA_DEVICES, hard(in),
	     in->spec->rdma_devices > 0 ?
	     "the RDMA device plugin did not mount /dev/infiniband: check its config (e.g. rdma-shared-dev-plugin selectors) on this node" : NULL,
	     "%d RDMA device%s (%s) on the host but no /dev/infiniband/uverbs* in the pod: verbs cannot open them, UCX falls back to TCP",
	     nib, nib == 1 ? "" : "s", names);
}

struct port_tally {
	int used, up, rail_down, other_down, named_down, init_armed;
	struct buf down;      /* "mlx5_1 port 1 Down (Polling)" list */
	struct buf upl;
};

static void tally_port(const struct check_input *in,
		       const struct probe_rdma_dev *d,
		       const struct probe_rdma_port *p, struct port_tally *t)
{
	int named, rail = rail_port(in, p);

	if (!port_in_use(in, d, p->num, &named))
		return;
	t->used++;
	if (port_up(p)) {
		t->up += rail;
		if (rail && t->up <= 4)
			buf_appendf(&t->upl, "%s%s:%d", t->up > 1 ? ", " : "",
				    d->name, p->num);
		return;
	}
	if (p->state == PROBE_PORT_INIT || p->state == PROBE_PORT_ARMED)
		t->init_armed++;
	if (named)
		t->named_down++;
	if (rail)
		t->rail_down++;
	else
		t->other_down++;
	buf_appendf(&t->down, "%s%s port %d %s%s%s%s%s",
		    t->down.len ? ", " : "", d->name, p->num, pstate(p->state),
		    *phys(p->phys_state) ? " (" : "", phys(p->phys_state),
		    *phys(p->phys_state) ? ")" : "",
		    rail ? "" : p->link_layer == PROBE_LL_ETH ? " [Ethernet]" :
		    " [InfiniBand]");
}

static void rdma_ports(const struct check_input *in,
		       const struct probe_rdma_list *l,
		       struct check_results *out)
{
	struct port_tally t = { 0 };
	int nib, nefa;

	rdma_count(l, &nib, &nefa);
	if (!nib || in->fabric == FABRIC_EFA) {
		emit_na(out, CK_RDMA_PORTS, "no InfiniBand/RoCE device");
		return;
	}
	buf_init(&t.down, DETAIL_MAX);
	buf_init(&t.upl, DETAIL_MAX);
	for (int i = 0; i < l->ndevs; i++)
		for (int p = 0; !dev_is_efa(&l->dev[i]) && p < l->dev[i].nports; p++)
			tally_port(in, &l->dev[i],
				   port_view(in->f, &l->dev[i], p), &t);
	if (!t.used)
		emit(out, CK_RDMA_PORTS, CHECK_SKIPPED, NULL,
		     "no port state readable for %d device%s", nib,
		     nib == 1 ? "" : "s");
	else if (!t.up)
		emit(out, CK_RDMA_PORTS, hard(in),
		     t.init_armed ? "start a subnet manager on the fabric (opensm/UFM): ports stay Init without one" : NULL,
		     "no Active port: %s", buf_str(&t.down));
	else if (t.named_down)
		emit(out, CK_RDMA_PORTS, hard(in),
		     "bring the port up or drop it from UCX_NET_DEVICES/NCCL_IB_HCA",
		     "port named in UCX_NET_DEVICES/NCCL_IB_HCA is down: %s",
		     buf_str(&t.down));
	else if (t.rail_down)
		emit(out, CK_RDMA_PORTS, CHECK_WARN, NULL,
		     "%d of %d ports Active; down: %s", t.up,
		     t.up + t.rail_down, buf_str(&t.down));
	else
		emit(out, CK_RDMA_PORTS, CHECK_OK, NULL,
		     "%d port%s Active/LinkUp (%s%s)%s%s", t.up,
		     t.up == 1 ? "" : "s", buf_str(&t.upl),
		     t.up > 4 ? ", ..." : "",
		     t.other_down ? "; not fabric rails, ignored: " : "",
		     t.other_down ? buf_str(&t.down) : "");
	buf_release(&t.down);
	buf_release(&t.upl);
}

/* Active fabric ports with a known rate, in use by the workload. */
static const struct probe_rdma_port *
rated_port(const struct check_input *in, const struct probe_rdma_dev *d, int p)
{
	const struct probe_rdma_port *pt = port_view(in->f, d, p);
	int named;

	if (dev_is_efa(d) || !port_up(pt) || !rail_port(in, pt) ||
	    pt->rate_gbps <= 0 || !port_in_use(in, d, pt->num, &named))
		return NULL;
	return pt;
}

/* A3: compare with the fleet's rate, else with the fastest rail here. */
static void rdma_rate(const struct check_input *in,
		      const struct probe_rdma_list *l,
		      struct check_results *out)
{
	struct buf slow = BUF_INIT(DETAIL_MAX);
	double ref, top = 0;
	int nrated = 0, nslow = 0;

	for (int i = 0; l && i < l->ndevs; i++)
		for (int p = 0; p < l->dev[i].nports; p++) {
			const struct probe_rdma_port *pt = rated_port(in, &l->dev[i], p);

			if (pt && ++nrated && pt->rate_gbps > top)
				top = pt->rate_gbps;
		}
	ref = in->ctx->expected_rate_gbps > 0 ?
	      (double)in->ctx->expected_rate_gbps : top;
	for (int i = 0; l && i < l->ndevs; i++)
		for (int p = 0; p < l->dev[i].nports; p++) {
			const struct probe_rdma_port *pt = rated_port(in, &l->dev[i], p);

			if (pt && pt->rate_gbps < ref)
				buf_appendf(&slow, "%s%s port %d %.0f Gb/s",
					    nslow++ ? ", " : "", l->dev[i].name,
					    pt->num, pt->rate_gbps);
		}
	if (!nrated)
		emit_na(out, CK_RDMA_RATE, "no Active port with a known rate");
	else if (nslow)
		emit(out, CK_RDMA_RATE, CHECK_WARN, NULL,
		     "below %.0f Gb/s: %s", ref, buf_str(&slow));
	else
		emit(out, CK_RDMA_RATE, CHECK_OK, NULL,
		     "%d Active port%s at %.0f Gb/s", nrated,
		     nrated == 1 ? "" : "s", top);
	buf_release(&slow);
}

/* The provider family a device needs: "mlx5" for ConnectX (named mlx5_*
 * or with a Mellanox "MT" hca_type), "efa" for EFA; NULL when the name
 * says nothing (any installed provider then counts). */
static const char *provider_of(const struct probe_rdma_dev *d)
{
	if (!strncmp(d->name, "mlx5", 4) || !strncmp(d->hca_type, "MT", 2))
		return "mlx5";
	if (!strncmp(d->name, "efa", 3) || !strncmp(d->name, "rdmap", 5))
		return "efa";
	return NULL;
}

/* A5's file source, when no tool opened the devices: the device nodes
 * in the pod, libibverbs and every device's provider in the image.
 * Writes what is missing (or what was seen) to why; 1 when all is there. */
static int verbs_stack(const struct check_input *in, const struct probe_rdma_list *l,
		       char *why, size_t n)
{
	const struct probe_verbs_libs *v = &in->f->verbs_libs;

	if (v->src.status != PROBE_OK && v->src.status != PROBE_ABSENT)
		return 0;
	if (in->f->dev_ib.n_uverbs <= 0)
		return snprintf(why, n, "no /dev/infiniband/uverbs* in the pod"), 0;
	if (!v->lib[0])
		return snprintf(why, n, "no libibverbs.so.1 in the image's library "
				"directories (NIXL's wheels do not bundle it)"), 0;
	for (int i = 0; i < l->ndevs; i++) {
		const char *drv = provider_of(&l->dev[i]);

		if (drv ? !probe_verbs_has_provider(v, drv) : !v->nproviders)
			return snprintf(why, n, "no verbs provider for %s (lib%s-rdmav*.so, "
					"rdma-core's ibverbs-providers) in the image",
					l->dev[i].name, drv ? drv : "<driver>"), 0;
	}
	snprintf(why, n, "%s and the provider%s of every device in the image, %d uverbs "
		 "device%s in the pod (no ibv_devinfo or ucx_info to open them)",
		 v->lib, l->ndevs == 1 ? "" : "s", in->f->dev_ib.n_uverbs,
		 in->f->dev_ib.n_uverbs == 1 ? "" : "s");
	return 1;
}

/* A5/G5: can userspace verbs open the devices?  Any source that opened
 * them shows it (evidence.c: ibv_devinfo, UCX listing rc/dc/ud or srd on
 * them, fi_info -p efa); a source that found none while another opened
 * them is a contradiction, named. */
static void rdma_verbs(const struct check_input *in,
		       const struct probe_rdma_list *l,
		       struct check_results *out)
{
	const struct evidence *ev = &in->ev;
	int nib, nefa;
	char stack[640] = "";

	rdma_count(l, &nib, &nefa);
	if (!nib && !nefa) {
		emit_na(out, CK_RDMA_VERBS, "no RDMA device");
		return;
	}
	if (ev->verbs.state == EV_SHOWN && ev->verbs.conflict[0])
		emit(out, CK_RDMA_VERBS, CHECK_WARN,
		     "use one rdma-core in the image (the verbs provider UCX/libfabric load and ibv_devinfo's)",
		     "%s", ev->verbs.conflict);
	else if (ev->verbs.state == EV_SHOWN && ev->verbs_ibv_devs > 0)
		emit(out, CK_RDMA_VERBS, CHECK_OK, NULL,
		     "ibv_devinfo opens %d device%s", ev->verbs_ibv_devs,
		     ev->verbs_ibv_devs == 1 ? "" : "s");
	else if (ev->verbs.state == EV_SHOWN)
		emit(out, CK_RDMA_VERBS, CHECK_OK, NULL,
		     "%s opens the devices (%d RDMA transport instance%s)",
		     ev->verbs.source, ev->verbs_ucx_tls > 0 ? ev->verbs_ucx_tls :
		     in->f->fi.n_efa_rdm,
		     (ev->verbs_ucx_tls > 0 ? ev->verbs_ucx_tls : in->f->fi.n_efa_rdm) == 1 ?
		     "" : "s");
	else if (ev->verbs.state == EV_ABSENT && ev->verbs_ibv_devs == 0)
		emit(out, CK_RDMA_VERBS, hard(in), NULL,
		     "ibv_devinfo: no IB devices found, while /sys/class/infiniband lists %d: provider library (libmlx5/libefa) missing or ABI mismatch, or no device access",
		     nib + nefa);
	else if (verbs_stack(in, l, stack, sizeof stack)) {
		/* Files beat tools (checks.md conventions): what verbs needs to
		 * open the devices is all there, nothing says it failed. */
		emit(out, CK_RDMA_VERBS, CHECK_OK, NULL, "%s", stack);
		emit_source(out, "libibverbs, /dev/infiniband");
		return;
	} else
		emit(out, CK_RDMA_VERBS, CHECK_SKIPPED, NULL, "%s%s%s%s",
		     ev->verbs.missing[0] ? ev->verbs.missing : "no source opened the devices: ",
		     ev->verbs.missing[0] ? "" : ev->verbs.source, *stack ? "; " : "", stack);
	emit_source(out, ev->verbs.source);
}

/* A6-A7 on RoCE: a RoCE v2 GID, and MTU.  The GID index the variables
 * pin (or the libraries pick) is env-gid-index's: the rule book judges
 * every environment variable (A9). */
static void rdma_roce(const struct check_input *in,
		      const struct probe_rdma_list *l,
		      struct check_results *out)
{
	int nports = 0, nv2 = 0, low_mtu = 0, seen = 0, empty = 0;
	char hollow[96] = "";

	if (in->fabric != FABRIC_ROCE) {
		emit_na(out, CK_RDMA_ROCE, "not a RoCE fabric");
		return;
	}
	for (int i = 0; i < l->ndevs; i++)
		for (int p = 0; p < l->dev[i].nports; p++) {
			const struct probe_rdma_port *pt = &l->dev[i].port[p];
			const struct probe_rdma_port *pv;
			int named;

			if (pt->link_layer != PROBE_LL_ETH ||
			    !port_up(port_view(in->f, &l->dev[i], p)) ||
			    !port_in_use(in, &l->dev[i], pt->num, &named))
				continue;
			nports++;
			seen += pt->n_gids > 0;
			/* Listed, all zero: no address UCX can bind (A6). */
			if (pt->gids_listed && !pt->n_gids && !empty++)
				dev_port(hollow, sizeof(hollow), l->dev[i].name, (size_t)-1, pt->num);
			nv2 += pt->n_roce_v2 > 0;
			pv = port_view(in->f, &l->dev[i], p);
			if (pv->active_mtu > 0 && pv->active_mtu < 4096)
				low_mtu++;
		}
	if (!nports)
		emit_na(out, CK_RDMA_ROCE, "no Active RoCE port");
	else if (empty)
		/* ucp_worker.c ucp_worker_add_resource_ifaces(): one iface
		 * that fails to open fails ucp_worker_create, so NIXL's UCX
		 * worker, not just that port. */
		emit(out, CK_RDMA_ROCE, hard(in),
		     "give that NIC's netdev an IP address (RoCE GIDs come from it) or leave "
		     "the port out of UCX_NET_DEVICES",
		     "RoCE port %s (and %d more) has an empty GID table and UCX will use it%s: "
		     "its iface cannot open (ibv_query_gid failed) and the UCX worker fails",
		     hollow, empty - 1, envv(in, "UCX_NET_DEVICES") ? "" : " (UCX_NET_DEVICES unset)");
	else if (!seen)
		emit(out, CK_RDMA_ROCE, CHECK_SKIPPED, NULL,
		     "GID tables not readable for %d RoCE port%s", nports,
		     nports == 1 ? "" : "s");
	else if (nv2 < nports)
		emit(out, CK_RDMA_ROCE, CHECK_WARN, NULL,
		     "%d of %d RoCE ports have no RoCE v2 GID (routed RoCE needs v2)",
		     nports - nv2, nports);
	else if (low_mtu)
		emit(out, CK_RDMA_ROCE, CHECK_WARN, NULL,
		     "%d RoCE port%s run active_mtu below 4096 (netdev MTU < 4200?)",
		     low_mtu, low_mtu == 1 ? "" : "s");
	else
		emit(out, CK_RDMA_ROCE, CHECK_OK, NULL,
		     "%d RoCE port%s with a RoCE v2 GID", nports,
		     nports == 1 ? "" : "s");
}

void check_rdma(const struct check_input *in, struct check_results *out)
{
	const struct probe_rdma_list *l = rdma_list(in->f);

	rdma_devices(in, l, out);
	rdma_ports(in, l, out);
	rdma_verbs(in, l, out);
	rdma_rate(in, l, out);
	rdma_roce(in, l, out);
}
