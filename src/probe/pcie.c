/* Section pcie_links (facts_pcie.h): the PCIe links on the way from each
 * RDMA device and GPU up to its root port.  Pod output: names and BDFs
 * are checked character by character, numbers strictly, the rest is
 * ignored. */
#include "internal.h"

#include <string.h>

/* [A-Za-z0-9_.:-], 1 to 31 bytes: an ib device name or a BDF. */
static int name_ok(struct pslice d, size_t max)
{
	if (!d.n || d.n >= max)
		return 0;
	for (size_t i = 0; i < d.n; i++) {
		char ch = d.s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		      ch == '_' || ch == '.' || ch == ':' || ch == '-'))
			return 0;
	}
	return 1;
}

/* "32.0" / "8" / "2.5" GT/s in tenths; 0 for "-" or anything else. */
static int speed_of(struct pslice x)
{
	int whole = 0, tenth = 0;
	size_t i = 0;

	for (; i < x.n && i < 4 && x.s[i] >= '0' && x.s[i] <= '9'; i++)
		whole = whole * 10 + (x.s[i] - '0');
	if (!i || i > 3)
		return 0;
	if (i < x.n) {
		if (x.s[i] != '.' || i + 2 != x.n || x.s[i + 1] < '0' || x.s[i + 1] > '9')
			return 0;
		tenth = x.s[i + 1] - '0';
	}
	return whole * 10 + tenth;
}

/* A lane count 1..32 (the PCIe widths: x1 to x32); 0 otherwise. */
static int width_of(struct pslice x)
{
	long w;

	return x.n <= 2 && ps_is_digits(x) && ps_long(x, &w) && w >= 1 && w <= 32 ? (int)w : 0;
}

/* The path of KIND/NAME: the last one when it is that endpoint's (the
 * probe writes one endpoint's hops together), else a new one. */
static struct probe_pcie_path *path_of(struct probe_pcie *p, int gpu, struct pslice name)
{
	struct probe_pcie_path *q = p->n ? &p->path[p->n - 1] : NULL;

	if (q && q->gpu == gpu && ps_eq(name, q->name))
		return q;
	if (p->n == PROBE_MAX_PCIE_PATHS)
		return NULL;
	q = &p->path[p->n++];
	memset(q, 0, sizeof *q);
	q->gpu = gpu;
	ps_copy(q->name, sizeof q->name, name);
	return q;
}

/* "link KIND NAME BDF CS CW MS MW" after "link": 1 when taken. */
static int link_line(struct probe_pcie *p, struct pslice rest)
{
	struct pslice kind, name, bdf, v[4];
	struct probe_pcie_path *q;
	struct probe_pcie_hop *h;

	if (!ps_token(&rest, &kind) || !ps_token(&rest, &name) || !ps_token(&rest, &bdf) ||
	    !(ps_eq(kind, "gpu") || ps_eq(kind, "nic")) || !name_ok(name, 32) || !name_ok(bdf, 16))
		return 0;
	for (int i = 0; i < 4; i++)
		if (!ps_token(&rest, &v[i]))
			return 0;
	q = path_of(p, ps_eq(kind, "gpu"), name);
	if (!q || q->nhops == PROBE_MAX_PCIE_HOPS)
		return 0;
	h = &q->hop[q->nhops++];
	ps_copy(h->bdf, sizeof h->bdf, bdf);
	h->cur_speed = speed_of(v[0]);
	h->cur_width = width_of(v[1]);
	h->max_speed = speed_of(v[2]);
	h->max_width = width_of(v[3]);
	return 1;
}

int probe_parse_pcie(const char *t, size_t n, struct probe_pcie *p)
{
	struct ptext it;
	struct pslice line, k;
	int got = 0;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		if (!ps_token(&line, &k) || !ps_eq(k, "link"))
			continue;
		if (link_line(p, line))
			got++;
		else
			p->dropped++;
	}
	return got;
}
