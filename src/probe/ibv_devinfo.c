/* ibv_devinfo (A5), ibdev2netdev (A7) and the /dev/infiniband listing (A1). */
#include "internal.h"

#include <string.h>

/* "4096 (5)" -> 4096. */
static int mtu_of(struct pslice v)
{
	long x;
	return ps_long(v, &x) && x > 0 && x <= 65536 ? (int)x : -1;
}

static void devinfo_kv(struct probe_rdma_dev *d, struct probe_rdma_port *p,
		       struct pslice k, struct pslice v)
{
	long x;

	if (ps_eq(k, "transport"))
		ps_copy(d->transport, sizeof d->transport, v);
	else if (ps_eq(k, "fw_ver"))
		ps_copy(d->fw_ver, sizeof d->fw_ver, v);
	else if (ps_eq(k, "board_id"))
		ps_copy(d->board_id, sizeof d->board_id, v);
	else if (ps_eq(k, "vendor_part_id"))
		d->part_id = rdma_part_id(v);
	else if (ps_eq(k, "phys_port_cnt") && ps_long(v, &x))
		d->nports_declared = (int)x;
	else if (!p)
		return;
	else if (ps_eq(k, "state"))
		p->state = rdma_state_parse(v);
	else if (ps_eq(k, "phys_state"))
		p->phys_state = rdma_phys_parse(v);
	else if (ps_eq(k, "max_mtu"))
		p->max_mtu = mtu_of(v);
	else if (ps_eq(k, "active_mtu"))
		p->active_mtu = mtu_of(v);
	else if (ps_eq(k, "sm_lid") && ps_long_auto(v, &x))
		p->sm_lid = (int)x;
	else if (ps_eq(k, "port_lid") && ps_long_auto(v, &x))
		p->base_lid = (int)x;
	else if (ps_eq(k, "link_layer"))
		p->link_layer = rdma_ll_parse(v);
}

int probe_parse_ibv_devinfo(const char *t, size_t n, struct probe_rdma_list *l)
{
	struct ptext it;
	struct pslice line, k, v;
	struct probe_rdma_dev *d = NULL;
	struct probe_rdma_port *p = NULL;
	long num;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (ps_find_ci(line, "No IB devices found") >= 0 ||
		    ps_find_ci(line, "Failed to get IB devices list") >= 0) {
			l->no_devices = 1;
		} else if (!ps_split(line, ':', &k, &v)) {
			continue;
		} else if (ps_eq(k, "hca_id")) {
			d = rdma_dev_get(l, v);
			p = NULL;
		} else if (d && ps_eq(k, "port") && ps_long(v, &num)) {
			p = rdma_port_get(d, num);
		} else if (d) {
			devinfo_kv(d, p, k, v);
		}
	}
	/* An excerpt that ends before a device's port block. */
	if (d && (d->nports < d->nports_declared ||
		  (p && p->link_layer == PROBE_LL_UNKNOWN)))
		l->truncated = 1;
	return l->ndevs;
}

/* "mlx5_0 port 1 ==> ibp26s0 (Down)", with or without `column -t`. */
int probe_parse_ibdev2netdev(const char *t, size_t n, struct probe_rdma_list *l)
{
	struct ptext it;
	struct pslice line, rest, name, w, num, arrow, net, st;
	long x;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		struct probe_rdma_dev *d;
		struct probe_rdma_port *p;
		rest = line;
		if (!ps_token(&rest, &name) || !ps_token(&rest, &w) || !ps_eq(w, "port") ||
		    !ps_token(&rest, &num) || !ps_long(num, &x) ||
		    !ps_token(&rest, &arrow) || !ps_eq(arrow, "==>") ||
		    !ps_token(&rest, &net))
			continue;
		d = rdma_dev_get(l, name);
		if (!(p = rdma_port_get(d, x)))
			continue;
		ps_copy(d->netdev, sizeof d->netdev, net);
		if (ps_token(&rest, &st))
			p->netdev_up = ps_eq(st, "(Up)") ? 1 : ps_eq(st, "(Down)") ? 0 : -1;
	}
	return l->ndevs;
}

/* "uverbs0 c" lines: a name and "c" when it is a character device. */
int probe_parse_dev_ib(const char *t, size_t n, struct probe_dev_ib *d)
{
	struct ptext it;
	struct pslice line, rest, name, kind;
	int count = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		rest = line;
		if (!ps_token(&rest, &name))
			continue;
		count++;
		if (!ps_token(&rest, &kind) || !ps_eq(kind, "c"))
			continue;
		if (ps_starts(name, "uverbs") && ps_is_digits(ps_from(name, 6)))
			d->n_uverbs++;
		else if (ps_eq(name, "rdma_cm"))
			d->rdma_cm = 1;
		else if (ps_starts(name, "umad"))
			d->n_umad++;
	}
	return count;
}

/* "libmlx5-rdmav34.so" or "mlx5.driver": the driver family, "mlx5". */
static void add_provider(struct probe_verbs_libs *v, struct pslice name)
{
	long cut;
	char fam[24];

	if (ps_starts(name, "lib") && (cut = ps_find(name, "-rdmav")) > 3)
		name = ps_make(name.s + 3, (size_t)cut - 3);
	else if ((cut = ps_find(name, ".driver")) > 0)
		name = ps_make(name.s, (size_t)cut);
	else
		return;
	ps_copy(fam, sizeof fam, name);
	if (!*fam || probe_verbs_has_provider(v, fam) ||
	    v->nproviders >= PROBE_MAX_VERBS_PROVIDERS)
		return;
	memcpy(v->provider[v->nproviders++], fam, sizeof fam);
}

int probe_parse_verbs_libs(const char *t, size_t n, struct probe_verbs_libs *v)
{
	struct ptext it;
	struct pslice line, k, val;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_split(line, '=', &k, &val))
			continue;
		if (ps_eq(k, "lib") && !v->lib[0])
			ps_copy(v->lib, sizeof v->lib, val);
		else if (ps_eq(k, "provider") || ps_eq(k, "driver"))
			add_provider(v, val);
	}
	return v->nproviders;
}

int probe_verbs_has_provider(const struct probe_verbs_libs *v, const char *drv)
{
	for (int i = 0; i < v->nproviders; i++)
		if (!strcmp(v->provider[i], drv))
			return 1;
	return 0;
}
