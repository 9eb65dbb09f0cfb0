/* The finding list both the verdict (verdict.c) and the graph comparison
 * (graph.c) append to: a file of its own, so neither calls the other to
 * grow it. */
#include <stdlib.h>
#include <string.h>

#include "verdict/verdict.h"
#include "util/xalloc.h"

void verdict_findings_add(struct verdict_findings *fs, const struct verdict_finding *f)
{
	ALLOC_GROW(fs->v, fs->n + 1, fs->cap);
	fs->v[fs->n++] = *f;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void verdict_finding_release(struct verdict_finding *f)
{
	free(f->text);
	free(f->head);
	free(f->remedy);
	free_names(f->pods, f->npods);
	free_names(f->nodes, f->nnodes);
	free(f->folded);
	memset(f, 0, sizeof(*f));
}

void verdict_finding_fold(struct verdict_finding *f, const char *name)
{
	for (size_t i = 0; i < f->nfolded; i++)
		if (!strcmp(f->folded[i], name))
			return;
	f->folded = xrealloc(f->folded, (f->nfolded + 1) * sizeof(*f->folded));
	f->folded[f->nfolded++] = name;
}
