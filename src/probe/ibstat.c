/* ibstat and ibstatus (A4).  Both print one block per CA and port; ibstat
 * may stop half way with "ibpanic: ..." (exit 255), so whatever was printed
 * before is kept and the list marked truncated. */
#include "internal.h"

#include <string.h>

static void ibstat_kv(struct probe_rdma_dev *d, struct probe_rdma_port *p,
		      struct pslice k, struct pslice v)
{
	long x;

	if (ps_eq(k, "CA type")) {
		ps_copy(d->hca_type, sizeof d->hca_type, v);
		d->part_id = rdma_part_id(v);
	} else if (ps_eq(k, "Number of ports") && ps_long(v, &x)) {
		d->nports_declared = (int)x;
	} else if (ps_eq(k, "Firmware version")) {
		ps_copy(d->fw_ver, sizeof d->fw_ver, v);
	} else if (!p) {
		return;
	} else if (ps_eq(k, "State")) {
		p->state = rdma_state_parse(v);
	} else if (ps_eq(k, "Physical state")) {
		p->phys_state = rdma_phys_parse(v);
	} else if (ps_eq(k, "Rate")) {
		rdma_rate_parse(v, p);
	} else if (ps_eq(k, "Base lid") && ps_long_auto(v, &x)) {
		p->base_lid = (int)x;
	} else if (ps_eq(k, "SM lid") && ps_long_auto(v, &x)) {
		p->sm_lid = (int)x;
	} else if (ps_eq(k, "Link layer")) {
		p->link_layer = rdma_ll_parse(v);
	}
}

/* A port whose block lacks its link layer was cut off mid-way. */
static int port_cut(const struct probe_rdma_port *p)
{
	return p && (p->state == PROBE_PORT_UNKNOWN || p->link_layer == PROBE_LL_UNKNOWN);
}

int probe_parse_ibstat(const char *t, size_t n, struct probe_rdma_list *l)
{
	struct ptext it;
	struct pslice line, k, v, name;
	struct probe_rdma_dev *d = NULL;
	struct probe_rdma_port *p = NULL;
	long num;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (ps_starts(line, "CA '") && quoted(line, &name)) {
			d = rdma_dev_get(l, name);
			p = NULL;
		} else if (ps_starts(line, "ibpanic:") || ps_starts(line, "ibwarn:")) {
			if (ps_starts(line, "ibpanic:"))
				l->truncated = 1;
		} else if (d && ps_starts(line, "Port ") &&
			   ps_long(ps_from(line, 5), &num) && line.s[line.n - 1] == ':') {
			p = rdma_port_get(d, num);
		} else if (d && ps_split(line, ':', &k, &v)) {
			ibstat_kv(d, p, k, v);
		}
	}
	if (port_cut(p))
		l->truncated = 1;
	return l->ndevs;
}

/* "Infiniband device 'mlx5_0' port 1 status:" */
static struct probe_rdma_port *ibstatus_head(struct probe_rdma_list *l,
					     struct pslice line)
{
	struct pslice name, rest, tok;
	long num;

	if (!quoted(line, &name))
		return NULL;
	rest = ps_from(line, (size_t)(name.s - line.s) + name.n + 1);
	if (!ps_token(&rest, &tok) || !ps_eq(tok, "port") || !ps_token(&rest, &tok) ||
	    !ps_long(tok, &num))
		return NULL;
	return rdma_port_get(rdma_dev_get(l, name), num);
}

int probe_parse_ibstatus(const char *t, size_t n, struct probe_rdma_list *l)
{
	struct ptext it;
	struct pslice line, k, v;
	struct probe_rdma_port *p = NULL;
	long x;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (ps_starts(line, "Infiniband device '")) {
			p = ibstatus_head(l, line);
		} else if (p && ps_split(line, ':', &k, &v)) {
			if (ps_eq(k, "state"))
				p->state = rdma_state_parse(v);
			else if (ps_eq(k, "phys state"))
				p->phys_state = rdma_phys_parse(v);
			else if (ps_eq(k, "rate"))
				rdma_rate_parse(v, p);
			else if (ps_eq(k, "link_layer"))
				p->link_layer = rdma_ll_parse(v);
			else if (ps_eq(k, "base lid") && ps_long_auto(v, &x))
				p->base_lid = (int)x;
			else if (ps_eq(k, "sm lid") && ps_long_auto(v, &x))
				p->sm_lid = (int)x;
		}
	}
	if (port_cut(p))
		l->truncated = 1;
	return l->ndevs;
}
