/* Shared pieces of the RDMA parsers: device and port lookup, and the
 * state words the various tools print for the same kernel codes. */
#include "internal.h"

#include <string.h>

void rdma_port_reset(struct probe_rdma_port *p, int num)
{
	memset(p, 0, sizeof *p);
	p->num = num;
	p->base_lid = p->sm_lid = -1;
	p->active_mtu = p->max_mtu = -1;
	p->first_roce_v2 = -1;
	p->netdev_up = -1;
}

struct probe_rdma_dev *rdma_dev_get(struct probe_rdma_list *l, struct pslice name)
{
	struct probe_rdma_dev *d;
	char buf[sizeof d->name];
	int i;

	ps_copy(buf, sizeof buf, name);
	if (!buf[0])
		return NULL;
	for (i = 0; i < l->ndevs; i++)
		if (!strcmp(l->dev[i].name, buf))
			return &l->dev[i];
	if (!(d = probe_rdma_dev_add(l))) {
		l->dropped++;
		return NULL;
	}
	memcpy(d->name, buf, sizeof d->name);
	d->part_id = -1;
	d->nports_declared = -1;
	return d;
}

struct probe_rdma_port *rdma_port_get(struct probe_rdma_dev *d, long num)
{
	int i;

	if (!d || num < 0 || num > 255)
		return NULL;
	for (i = 0; i < d->nports; i++)
		if (d->port[i].num == num)
			return &d->port[i];
	if (d->nports >= PROBE_MAX_PORTS)
		return NULL;
	rdma_port_reset(&d->port[d->nports], (int)num);
	return &d->port[d->nports++];
}

/* A code in parentheses ("PORT_ACTIVE (4)") or leading ("4: ACTIVE"). */
static long code_of(struct pslice v)
{
	long c, open = ps_find(v, "(");

	if (open >= 0 && ps_long(ps_from(v, (size_t)open + 1), &c))
		return c;
	if (ps_long(v, &c))
		return c;
	return -1;
}

static const struct { const char *word; int code; } state_words[] = {
	{ "PORT_ACTIVE_DEFER", 5 }, { "ACTIVE_DEFER", 5 }, { "Active Defer", 5 },
	{ "PORT_ACTIVE", 4 }, { "Active", 4 }, { "PORT_ARMED", 3 }, { "Armed", 3 },
	{ "PORT_INIT", 2 }, { "Init", 2 }, { "PORT_DOWN", 1 }, { "Down", 1 },
};

enum probe_port_state rdma_state_parse(struct pslice v)
{
	long c = code_of(v = ps_trim(v));
	size_t i;

	if (c >= 1 && c <= 5)
		return (enum probe_port_state)c;
	for (i = 0; i < sizeof state_words / sizeof state_words[0]; i++)
		if (ps_starts_ci(v, state_words[i].word))
			return (enum probe_port_state)state_words[i].code;
	return PROBE_PORT_UNKNOWN;
}

static const struct { const char *word; int code; } phys_words[] = {
	{ "Sleep", 1 }, { "Polling", 2 }, { "Disabled", 3 },
	{ "PortConfigurationTraining", 4 }, { "LinkUp", 5 },
	{ "LinkErrorRecovery", 6 }, { "Phy Test", 7 }, { "PhyTest", 7 },
};

enum probe_phys_state rdma_phys_parse(struct pslice v)
{
	long c = code_of(v = ps_trim(v));
	size_t i;

	if (c >= 1 && c <= 7)
		return (enum probe_phys_state)c;
	for (i = 0; i < sizeof phys_words / sizeof phys_words[0]; i++)
		if (ps_starts_ci(v, phys_words[i].word))
			return (enum probe_phys_state)phys_words[i].code;
	return PROBE_PHYS_UNKNOWN;
}

enum probe_link_layer rdma_ll_parse(struct pslice v)
{
	v = ps_trim(v);
	if (ps_starts_ci(v, "InfiniBand"))
		return PROBE_LL_IB;
	if (ps_starts_ci(v, "Ethernet"))
		return PROBE_LL_ETH;
	return PROBE_LL_UNKNOWN;
}

void rdma_rate_parse(struct pslice v, struct probe_rdma_port *p)
{
	long open = ps_find(v, "("), close;
	double r;

	if (ps_double(v, &r) && r >= 0 && r < 1e6)
		p->rate_gbps = r;
	if (open >= 0) {
		struct pslice in = ps_from(v, (size_t)open + 1);
		close = ps_find(in, ")");
		if (close >= 0)
			in.n = (size_t)close;
		ps_copy(p->rate_str, sizeof p->rate_str, ps_trim(in));
	}
}

int rdma_part_id(struct pslice v)
{
	long id;

	v = ps_trim(v);
	if (ps_starts_ci(v, "MT"))
		v = ps_from(v, 2);
	if (ps_long(v, &id) && id >= 0 && id < 1000000)
		return (int)id;
	return -1;
}

int quoted(struct pslice line, struct pslice *out)
{
	long a = ps_find(line, "'"), b;
	struct pslice in;

	if (a < 0)
		return 0;
	in = ps_from(line, (size_t)a + 1);
	b = ps_find(in, "'");
	if (b < 0)
		return 0;
	*out = ps_make(in.s, (size_t)b);
	return 1;
}
