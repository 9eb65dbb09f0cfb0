/* /sys/class/infiniband as the probe prints it: one "DEV/PATH=VALUE" line
 * per attribute file read, e.g.
 *
 *     mlx5_0/hca_type=MT4129
 *     mlx5_0/net=ibp26s0
 *     mlx5_0/net_master=bond0      (the netdev is a bond's slave)
 *     mlx5_0/pci=/sys/devices/pci0000:15/0000:15:01.0/.../0000:18:00.0
 *     mlx5_0/ports/1/state=4: ACTIVE
 *     mlx5_0/ports/1/gids/3=0000:0000:0000:0000:0000:ffff:0a00:0001
 *     mlx5_0/ports/1/gid_attrs/types/3=RoCE v2
 *     mlx5_0/ports/1/gid_attrs/ndevs/3=eth1
 */
#include "internal.h"

#include <string.h>

static void dev_attr(struct probe_rdma_dev *d, struct pslice attr, struct pslice v)
{
	if (ps_eq(attr, "hca_type")) {
		ps_copy(d->hca_type, sizeof d->hca_type, v);
		d->part_id = rdma_part_id(v);
	} else if (ps_eq(attr, "fw_ver")) {
		ps_copy(d->fw_ver, sizeof d->fw_ver, v);
	} else if (ps_eq(attr, "board_id")) {
		ps_copy(d->board_id, sizeof d->board_id, v);
	} else if (ps_eq(attr, "net") && !d->netdev[0]) {
		ps_copy(d->netdev, sizeof d->netdev, v);
	} else if (ps_eq(attr, "net_master") && !d->net_master[0]) {
		ps_copy(d->net_master, sizeof d->net_master, v);
	} else if (ps_eq(attr, "pci")) {
		ps_copy(d->pci_path, sizeof d->pci_path, v);
	}
}

static int gid_is_zero(struct pslice v)
{
	size_t i;

	for (i = 0; i < v.n; i++)
		if (v.s[i] != '0' && v.s[i] != ':')
			return 0;
	return 1;
}

/* The IPv4 address of an IPv4-mapped GID: its last two groups
 * ("...:ffff:0a00:1011" is 10.0.16.17); 0 when they are no hex. */
static uint32_t gid_v4(struct pslice v)
{
	unsigned long long hi, lo;

	if (v.n != 39 || !ps_hex64(ps_make(v.s + 30, 4), &hi) ||
	    !ps_hex64(ps_make(v.s + 35, 4), &lo))
		return 0;
	return (uint32_t)(hi << 16 | lo);
}

static void gid_attr(struct probe_rdma_port *p, struct pslice what, long idx,
		     struct pslice v)
{
	uint64_t bit = idx < 64 ? (uint64_t)1 << idx : 0;

	if (ps_eq(what, "gids")) {
		p->gids_listed++;
		if (gid_is_zero(v))
			return;
		p->n_gids++;
		p->gid_mask |= bit;
		if (ps_starts_ci(v, "0000:0000:0000:0000:0000:ffff:")) {
			p->ipv4_mask |= bit;
			if (idx < PROBE_GID_ADDRS)
				p->gid_ipv4[idx] = gid_v4(v);
		}
		/* NCCL's linkLocalGid(): fe80:0000:0000:0000 as the first 64 bits. */
		if (ps_starts_ci(v, "fe80:0000:0000:0000:"))
			p->link_local_mask |= bit;
	} else if (ps_eq(what, "gid_attrs/types")) {
		if (ps_eq_ci(v, "RoCE v2")) {
			p->n_roce_v2++;
			p->roce_v2_mask |= bit;
			if (p->first_roce_v2 < 0 || idx < p->first_roce_v2)
				p->first_roce_v2 = (int)idx;
		} else if (ps_find_ci(v, "RoCE v1") >= 0) {
			p->n_roce_v1++;
		}
	} else if (ps_eq(what, "gid_attrs/ndevs")) {
		if (v.n)
			p->ndev_mask |= bit;
		if (v.n && idx < PROBE_GID_ADDRS)
			ps_copy(p->gid_ndevs[idx], sizeof p->gid_ndevs[0], v);
		if (idx == p->first_roce_v2)
			ps_copy(p->gid_ndev, sizeof p->gid_ndev, v);
	}
}

/* "ports/N/ATTR" or "ports/N/gids/I", "ports/N/gid_attrs/types/I"... */
static void port_attr(struct probe_rdma_dev *d, struct pslice path, struct pslice v)
{
	struct pslice num, attr;
	struct probe_rdma_port *p;
	long n, slash, idx;

	if (!ps_split(path, '/', &num, &attr) || !ps_is_digits(num) || !ps_long(num, &n))
		return;
	if (!(p = rdma_port_get(d, n)))
		return;
	if (ps_eq(attr, "state"))
		p->state = rdma_state_parse(v);
	else if (ps_eq(attr, "phys_state"))
		p->phys_state = rdma_phys_parse(v);
	else if (ps_eq(attr, "rate"))
		rdma_rate_parse(v, p);
	else if (ps_eq(attr, "link_layer"))
		p->link_layer = rdma_ll_parse(v);
	else if (ps_eq(attr, "lid"))
		(void)(ps_long_auto(v, &n) && (p->base_lid = (int)n));
	else if (ps_eq(attr, "sm_lid"))
		(void)(ps_long_auto(v, &n) && (p->sm_lid = (int)n));
	else {
		/* The GID index is the last path element. */
		for (slash = (long)attr.n - 1; slash >= 0 && attr.s[slash] != '/'; slash--)
			;
		if (slash <= 0 || !ps_is_digits(ps_from(attr, (size_t)slash + 1)) ||
		    !ps_long(ps_from(attr, (size_t)slash + 1), &idx) ||
		    idx >= PROBE_MAX_GID_INDEX)
			return;
		gid_attr(p, ps_make(attr.s, (size_t)slash), idx, v);
	}
}

int probe_parse_sysfs_ib(const char *t, size_t n, struct probe_rdma_list *l)
{
	struct ptext it;
	struct pslice line, key, v, dev, path;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		struct probe_rdma_dev *d;
		if (!ps_split(line, '=', &key, &v) || !ps_split(key, '/', &dev, &path) ||
		    !path.n)
			continue;
		if (!(d = rdma_dev_get(l, dev)))
			continue;
		if (ps_starts(path, "ports/"))
			port_attr(d, ps_from(path, 6), v);
		else
			dev_attr(d, path, v);
	}
	return l->ndevs;
}
