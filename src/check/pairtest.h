/* The next step after the static checks: the exact commands for a pairwise
 * GPU-memory transfer test between a prefill and a decode worker, chosen
 * from what the two images have (ucx_perftest, nixlbench) and carrying the
 * workers' own UCX settings.  The commands are printed for the user; this
 * tool never runs them (they are active tests). */
#ifndef CHECK_PAIRTEST_H
#define CHECK_PAIRTEST_H

#include "../util/buf.h"

struct probe_facts;

struct pairtest_side {
	const char *namespace;
	const char *pod;
	const char *container;
	const char *ip;                 /* pod IP */
	const char *role;
	const struct probe_facts *f;    /* NULL when the pod could not be probed */
};

/* Appends the plan, several lines, to out.  peer may be NULL (none
 * found): the plan then says what is missing. */
void pairtest_plan(const struct pairtest_side *self,
		   const struct pairtest_side *peer, int efa, struct buf *out);

#endif
