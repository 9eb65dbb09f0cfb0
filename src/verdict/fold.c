/* One root cause per pod (verdict.h verdict_fold): what follows from a
 * failed check is listed under its finding, not as a paragraph of its
 * own.  Which result follows from which is the check layer's
 * (check_cause); this file only files findings. */
#include <stdlib.h>
#include <string.h>

#include "verdict/verdict.h"

/* The finding of fs about check name, a fail first. */
static struct verdict_finding *finding_of(struct verdict_findings *fs, const char *name)
{
	struct verdict_finding *any = NULL;

	for (size_t i = 0; i < fs->n; i++) {
		if (fs->v[i].about || strcmp(fs->v[i].name, name))
			continue;
		if (fs->v[i].status == CHECK_FAIL)
			return &fs->v[i];
		if (!any)
			any = &fs->v[i];
	}
	return any;
}

static int failed_in(const struct check_results *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].status == CHECK_FAIL && !strcmp(r->v[i].name, name))
			return 1;
	return 0;
}

static void fold_results(const struct run_pod *pods, size_t n, struct verdict_findings *fs)
{
	for (size_t i = 0; i < n; i++) {
		const struct check_results *r = &pods[i].results;

		for (size_t j = 0; pods[i].probed && j < r->n; j++) {
			const char *root = check_cause(r, j);
			struct verdict_finding *f = root ? finding_of(fs, root) : NULL;

			if (f)
				verdict_finding_fold(f, r->v[j].name);
		}
	}
}

/* The root, in a pod x names (f->pods by name, f->nodes by node), of the
 * check a cross-pod finding explains, when that check failed there (a
 * warning of it, a LIBFABRIC backend on IB, says nothing the pair line
 * does not); NULL when no named pod has one. */
static const char *root_of(const struct run_pod *pods, size_t n, const struct verdict_finding *x)
{
	for (size_t i = 0; i < n; i++) {
		const struct pod_info *p = pods[i].pod;
		int named = 0;

		for (size_t k = 0; k < x->npods && !named; k++)
			named = p->name && !strcmp(p->name, x->pods[k]);
		for (size_t k = 0; k < x->nnodes && !named; k++)
			named = p->node && !strcmp(p->node, x->nodes[k]);
		if (named && pods[i].probed && failed_in(&pods[i].results, x->about)) {
			const char *root = check_cause_of(&pods[i].results, x->about);

			if (root)
				return root;
		}
	}
	return NULL;
}

void verdict_fold(const struct run_pod *pods, size_t n, struct verdict_findings *fs,
		  struct verdict_findings *extra)
{
	size_t kept = 0;

	fold_results(pods, n, fs);
	for (size_t i = 0; i < extra->n; i++) {
		struct verdict_finding *x = &extra->v[i];
		const char *root = x->about ? root_of(pods, n, x) : NULL;
		struct verdict_finding *f = root ? finding_of(fs, root) : NULL;

		/* A pair or node line that only says again what a pod's own
		 * line says (its about check failed there) goes under it. */
		if (f && (f->status == CHECK_FAIL || x->status != CHECK_FAIL)) {
			verdict_finding_fold(f, x->name);
			verdict_finding_release(x);
			continue;
		}
		extra->v[kept++] = *x;
	}
	extra->n = kept;
}
