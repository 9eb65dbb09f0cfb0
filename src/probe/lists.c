/* The growable lists of struct probe_facts (RDMA devices, UCX memory
 * domains and transports): allocated as the parsers list entries, so a pod
 * with 9 devices holds 9, not the 32 its fixed array had (issue 16: memory
 * per worker).  Freed with the facts (facts.c). */
#include "facts.h"

#include <string.h>

#include "../util/xalloc.h"

/* Element *n of the growable array *arr (capacity *cap, at most max),
 * zeroed, with *n advanced; NULL at max.  Capacity doubles from first. */
static void *grow_add(void **arr, int *cap, int *n, int max, size_t elem,
		      int first)
{
	char *slot;

	if (*n >= max)
		return NULL;
	if (*n >= *cap) {
		int nc = *cap ? *cap * 2 : first;

		if (nc > max)
			nc = max;
		*arr = xrealloc(*arr, (size_t)nc * elem);
		*cap = nc;
	}
	slot = (char *)*arr + (size_t)*n * elem;
	memset(slot, 0, elem);
	(*n)++;
	return slot;
}

struct probe_rdma_dev *probe_rdma_dev_add(struct probe_rdma_list *l)
{
	/* A GPU node lists 8-10 (a rail per GPU, one or two for the
	 * front end): 16 at once, not 4, 8 and 16 with the ~2.3 KB devices
	 * copied twice (5 lists a pod; issue 46). */
	return grow_add((void **)&l->dev, &l->devcap, &l->ndevs,
			PROBE_MAX_RDMA_DEVS, sizeof *l->dev, 16);
}

struct probe_ucx_md *probe_ucx_md_add(struct probe_ucx *u)
{
	return grow_add((void **)&u->md, &u->mdcap, &u->nmds,
			PROBE_MAX_UCX_MDS, sizeof *u->md, 4);
}

struct probe_ucx_tl_entry *probe_ucx_tl_add(struct probe_ucx *u)
{
	return grow_add((void **)&u->tl, &u->tlcap, &u->ntls,
			PROBE_MAX_UCX_TLS, sizeof *u->tl, 4);
}
