/* nvidia-smi nvlink --status (D2): per GPU, per link "26.562 GB/s" or
 * "<inactive>".  PCIe boards print nothing. */
#include "internal.h"

#include <string.h>

double probe_nvlink_mode_speed(const struct probe_nvlink_gpu *g)
{
	double best = 0;
	int i, j, best_n = 0;

	for (i = 0; i < g->nlinks && i < PROBE_MAX_NVLINKS; i++) {
		int cnt = 0;
		if (g->inactive[i] || g->speed_gbs[i] <= 0)
			continue;
		/* A speed already counted at an earlier link would count the
		 * same again and lose the same comparison: once per speed (18
		 * links at one speed: 18 steps, not 324; issue 46). */
		for (j = 0; j < i && (g->inactive[j] || g->speed_gbs[j] != g->speed_gbs[i]); j++)
			;
		if (j < i)
			continue;
		for (j = 0; j < g->nlinks && j < PROBE_MAX_NVLINKS; j++)
			cnt += !g->inactive[j] && g->speed_gbs[j] == g->speed_gbs[i];
		/* Ties go to the faster speed: a half-degraded GPU is compared
		 * with what its healthy links do. */
		if (cnt > best_n || (cnt == best_n && g->speed_gbs[i] > best)) {
			best_n = cnt;
			best = g->speed_gbs[i];
		}
	}
	return best;
}

/* "GPU 0: NVIDIA H200 (UUID: GPU-...)" */
static struct probe_nvlink_gpu *gpu_head(struct probe_nvlink *nv, struct pslice line)
{
	struct pslice k, v;
	struct probe_nvlink_gpu *g;
	long idx, uuid;

	if (!ps_split(line, ':', &k, &v) || !ps_long(ps_from(k, 4), &idx))
		return NULL;
	if (nv->ngpus >= PROBE_MAX_GPUS) {
		nv->dropped++;
		return NULL;
	}
	g = &nv->gpu[nv->ngpus++];
	memset(g, 0, sizeof *g);
	g->index = (int)idx;
	uuid = ps_find(v, " (UUID");
	if (uuid >= 0)
		v.n = (size_t)uuid;
	ps_copy(g->name, sizeof g->name, ps_trim(v));
	return g;
}

static void link_line(struct probe_nvlink_gpu *g, struct pslice line)
{
	struct pslice k, v;
	long idx;
	double speed;

	if (!ps_split(line, ':', &k, &v) || !ps_long(ps_from(k, 5), &idx) ||
	    idx < 0 || idx >= PROBE_MAX_NVLINKS)
		return;
	if (idx + 1 > g->nlinks)
		g->nlinks = (int)idx + 1;
	if (ps_find_ci(v, "inactive") >= 0) {
		if (!g->inactive[idx])
			g->n_inactive++;
		g->inactive[idx] = 1;
		g->speed_gbs[idx] = 0;
	} else if (ps_double(v, &speed)) {
		g->speed_gbs[idx] = speed;
	}
}

int probe_parse_nvlink(const char *t, size_t n, struct probe_nvlink *nv)
{
	struct ptext it;
	struct pslice line;
	struct probe_nvlink_gpu *g = NULL;

	ptext_init(&it, t, n);
	while (ptext_line(&it, &line)) {
		line = ps_trim(line);
		if (ps_starts(line, "GPU "))
			g = gpu_head(nv, line);
		else if (g && ps_starts(line, "Link "))
			link_line(g, line);
	}
	return nv->ngpus;
}
