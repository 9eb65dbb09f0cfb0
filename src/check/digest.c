/* The per-pod digest graph.c compares across pods and nodes (the tail of
 * struct check_summary): a few numbers and short strings taken from the
 * facts while they are still in memory. */
#include <stdio.h>
#include <string.h>

#include "check/internal.h"
#include "model/podspec.h"
#include "model/shown.h"
#include "probe/facts.h"
#include "util/buf.h"

/* Active ports and the fastest of them, over the device list UCX sees. */
static void ports(const struct probe_facts *f, struct check_summary *s)
{
	const struct probe_rdma_list *l = rdma_list(f);
	double best = 0;

	s->active_ports = -1;
	if (!l)
		return;
	s->active_ports = 0;
	for (int i = 0; i < l->ndevs; i++)
		for (int p = 0; p < l->dev[i].nports; p++) {
			const struct probe_rdma_port *pt = port_view(f, &l->dev[i], p);

			if (pt->state != PROBE_PORT_ACTIVE)
				continue;
			s->active_ports++;
			if (pt->rate_gbps > best)
				best = pt->rate_gbps;
		}
	s->port_rate_gbps = (int)best;
}

/* Can KV leave this pod over RDMA?  An IB/RoCE device without its uverbs
 * node or without an Active port carries nothing (checks.md A1, A2). */
static int rdma_usable(const struct check_input *in, const struct check_summary *s)
{
	const struct probe_dev_ib *d = &in->f->dev_ib;

	if (in->fabric == FABRIC_TCP)
		return 0;
	if (in->fabric == FABRIC_EFA)
		return 1;
	if (!is_rdma_fabric(in->fabric))
		return -1;  /* unknown, or NVLink: not judged here */
	if (src_known(&d->src) && d->n_uverbs == 0)
		return 0;
	return s->active_ports == 0 ? 0 : 1;
}

static void net_dev_bad(const struct check_input *in, struct check_summary *s)
{
	const char *v = envv(in, "UCX_NET_DEVICES");
	struct buf bad = BUF_INIT(512);
	char shown[sizeof s->net_dev_bad];
	int nbad;

	if (!v || !*v || !strcmp(v, "all") || !is_rdma_fabric(in->fabric))
		return;
	net_devices_scan(in, v, &bad, &nbad);
	/* A Secret's entries are never printed, whole or cut at the size */
	if (nbad)
		snprintf(s->net_dev_bad, sizeof(s->net_dev_bad), "%s",
			 env_secret(in, "UCX_NET_DEVICES")
				 ? shown_value(v, env_secret(in, "UCX_NET_DEVICES"), shown, sizeof shown)
				 : buf_str(&bad));
	buf_release(&bad);
}

void check_digest(const struct check_input *in, struct check_summary *s)
{
	const struct probe_modules *m = &in->f->modules;

	s->env_known = env_readable(in);
	s->peermem = in->ev.peermem.state;
	s->gdrdrv = src_known(&m->proc_src) ? m->loaded[PROBE_MOD_GDRDRV] != 0 : -1;
	ports(in->f, s);
	hca_firmware(in->f, s->hca_fw, sizeof s->hca_fw);
	s->rdma_usable = rdma_usable(in, s);
	net_dev_bad(in, s);
	check_digest_net(in, s);
}

void check_digest_spec(const struct pod_spec_facts *spec, struct check_summary *s)
{
	struct buf b = BUF_INIT(512);

	/* What only the probe can tell stays unknown until check_digest(). */
	check_summary_unknown(s);
	s->spec_known = spec != NULL;
	if (!spec)
		return;
	if (spec->rdma_devices > 0)
		buf_appendf(&b, "%s=%ld", spec->rdma_resource, spec->rdma_devices);
	if (spec->efa_devices > 0)
		buf_appendf(&b, "%svpc.amazonaws.com/efa=%ld", b.len ? ", " : "",
			    spec->efa_devices);
	/* A DRA claim is an RDMA request when it holds NICs (podspec.c);
	 * claims not read keep the benefit of the doubt. */
	if (claims_of_kind(spec, CLAIM_NIC) > 0)
		buf_appendf(&b, "%sDRA NIC claims", b.len ? ", " : "");
	else if (claims_of_kind(spec, CLAIM_NIC) < 0)
		buf_appendf(&b, "%sresourceClaims", b.len ? ", " : "");
	copy_str(s->rdma_request, sizeof(s->rdma_request), buf_str(&b));
	buf_release(&b);
}
