/* nvidia-smi topo -m (B4, D1): the GPU x (GPU, NIC) matrix and NIC legend.
 * Columns are found from the header row (GPUn, then NICn or, on older
 * drivers, device names such as mlx5_0, up to "CPU Affinity"); cells are
 * blank-separated, tabs or spaces. */
#include "internal.h"

#include <string.h>

static const char *const link_names[] = {
	"?", "X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS",
};

const char *probe_topo_link_name(enum probe_topo_link l)
{
	return (unsigned)l < sizeof link_names / sizeof link_names[0] ? link_names[l] : "?";
}

static struct probe_topo_cell cell_of(struct pslice tok)
{
	struct probe_topo_cell c = { PROBE_TOPO_UNKNOWN, 0 };
	long nv;

	if (ps_eq(tok, "X"))
		c.link = PROBE_TOPO_SELF;
	else if (ps_starts(tok, "NV") && ps_long(ps_from(tok, 2), &nv) && nv > 0) {
		c.link = PROBE_TOPO_NV;
		c.nv = (unsigned char)(nv > 255 ? 255 : nv);
	} else if (ps_eq(tok, "PIX"))
		c.link = PROBE_TOPO_PIX;
	else if (ps_eq(tok, "PXB"))
		c.link = PROBE_TOPO_PXB;
	else if (ps_eq(tok, "PHB"))
		c.link = PROBE_TOPO_PHB;
	else if (ps_eq(tok, "NODE"))
		c.link = PROBE_TOPO_NODE;
	else if (ps_eq(tok, "SYS") || ps_eq(tok, "SOC"))
		c.link = PROBE_TOPO_SYS;
	return c;
}

/* Column kinds in header order: 'G' GPU, 'N' NIC. */
struct cols {
	int n;
	char kind[PROBE_MAX_GPUS + PROBE_MAX_NICS];
};

static int gpu_label(struct pslice tok, long *idx)
{
	return ps_starts(tok, "GPU") && ps_is_digits(ps_from(tok, 3)) &&
	       ps_long(ps_from(tok, 3), idx) && *idx < PROBE_MAX_GPUS;
}

static int header(struct pslice line, struct probe_topo *tp, struct cols *c)
{
	struct pslice rest = line, tok;
	long idx;

	while (ps_token(&rest, &tok) && !ps_eq(tok, "CPU") && c->n < (int)sizeof c->kind) {
		if (gpu_label(tok, &idx)) {
			c->kind[c->n++] = 'G';
			tp->ngpus++;
		} else if (tp->nnics < PROBE_MAX_NICS) {
			ps_copy(tp->nic_name[tp->nnics++], sizeof tp->nic_name[0], tok);
			c->kind[c->n++] = 'N';
		}
	}
	return tp->ngpus > 0;
}

/* The leading part of tok before any of the bytes in stop. */
static struct pslice head_until(struct pslice tok, const char *stop)
{
	size_t i = 0;

	while (i < tok.n && !strchr(stop, tok.s[i]))
		i++;
	return ps_make(tok.s, i);
}

static void gpu_row(struct pslice rest, long g, struct probe_topo *tp,
		    const struct cols *c)
{
	struct pslice tok;
	int i, gi = 0, ni = 0;
	long numa;

	for (i = 0; i < c->n && ps_token(&rest, &tok); i++) {
		if (c->kind[i] == 'G' && gi < PROBE_MAX_GPUS)
			tp->gpu_gpu[g][gi++] = cell_of(tok);
		else if (c->kind[i] == 'N' && ni < PROBE_MAX_NICS)
			tp->gpu_nic[g][ni++] = cell_of(tok);
	}
	if (ps_token(&rest, &tok))
		ps_copy(tp->cpu_affinity[g], sizeof tp->cpu_affinity[0], tok);
	/* NUMA Affinity: a node, or a list on Grace ("0,3-9,11-17"): its first */
	if (ps_token(&rest, &tok) && ps_long(head_until(tok, ",-"), &numa))
		tp->numa[g] = (int)numa;
	if (ps_token(&rest, &tok) && ps_long(tok, &numa) && numa >= 0)
		tp->gpu_numa[g] = (int)numa;
}

/* "  NIC0: mlx5_0" */
static void legend(struct pslice line, struct probe_topo *tp)
{
	struct pslice k, v;
	long idx;

	if (ps_split(line, ':', &k, &v) && ps_starts(k, "NIC") &&
	    ps_long(ps_from(k, 3), &idx) && idx >= 0 && idx < tp->nnics && v.n)
		ps_copy(tp->nic_name[idx], sizeof tp->nic_name[0], v);
}

int probe_parse_topo(const char *t, size_t n, struct probe_topo *tp)
{
	struct ptext it;
	struct pslice line, rest, tok;
	struct cols c = { 0, { 0 } };
	int state = 0;  /* 0 before header, 1 matrix, 2 legends */
	long g;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		rest = line;
		if (!ps_token(&rest, &tok))
			continue;
		if (state == 0 && line.n && (line.s[0] == ' ' || line.s[0] == '\t') &&
		    gpu_label(tok, &g) && g == 0) {
			state = header(line, tp, &c) ? 1 : 0;
		} else if (state == 1 && ps_starts(tok, "Legend")) {
			state = 2;
		} else if (state == 1 && line.s[0] != ' ' && line.s[0] != '\t' &&
			   gpu_label(tok, &g) && g < tp->ngpus) {
			gpu_row(rest, g, tp, &c);
			if (g + 1 > tp->gpu_rows)
				tp->gpu_rows = (int)(g + 1);
		} else if (state == 2 && ps_starts(tok, "NIC") && tok.s[tok.n - 1] == ':') {
			legend(line, tp);
		} else if (state == 2 && ps_starts(tok, "#")) {
			break;  /* the next command's output (topo -p2p) */
		}
	}
	return tp->ngpus;
}
