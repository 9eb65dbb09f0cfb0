/* Recipe drift for a run (drift.h): each pod's transport env in the pod
 * spec and in its running process against the recipe's, as env-drift
 * results, and the three side by side for the table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/facts.h"
#include "run/drift.h"
#include "util/xalloc.h"

/* A Secret never shows (product.md): a running value is printed only when
 * the pod spec sets that variable literally or the recipe sets it; else
 * it may come from an envFrom Secret, so only its presence is told. */
static const char *const HIDDEN = "<set outside the pod spec>";

static struct recipe_kv *proc_visible(const struct probe_env *proc,
				      const struct recipe_kv *spec, size_t nspec,
				      const struct recipe_component *c)
{
	struct recipe_kv *pk = xcalloc(proc->n + 1, sizeof *pk);

	for (size_t j = 0; j < proc->n; j++) {
		const char *n = proc->var[j].name;
		int shown = c && recipe_env_get(c, n);

		for (size_t k = 0; k < nspec && !shown; k++)
			shown = !strcmp(spec[k].name, n) && spec[k].value[0] != '<';
		pk[j].name = n;
		pk[j].value = shown ? proc->var[j].value : HIDDEN;
	}
	return pk;
}

/* Drift of one pod as env-drift results (family ENV), so that it counts
 * in the verdict and appears in every output format like any check. */
static void drift_results(const struct recipe_set *s, const char *recipe,
			  struct run *pr, size_t i)
{
	const struct pod_info *pod = &pr->pods->items[i];
	const struct recipe_component *c = recipe_match(s, pod->graph, pod->role);
	struct probe_env view;
	const struct probe_env *proc = run_pod_env_view(&pr->pod[i], &view) ? &view : NULL;
	struct recipe_kv *spec, *pk = NULL;
	struct recipe_finding *f = NULL;
	size_t nspec, nf = 0;
	char *store, *why;

	if (!c) {
		why = xasprintf("no component of graph %s with role %s in %s",
				*pod->graph ? pod->graph : "<none>", pod->role, recipe);
		check_results_add_id(&pr->pod[i].results, CK_ENV_DRIFT, CHECK_WARN, why,
				      "pass the recipe this graph was deployed from");
		free(why);
		free(view.var);
		return;
	}
	if (pod->spec_env_unread && *pod->spec_env_unread) {
		/* a spec env past its cap is not "every variable unset" */
		check_results_add_id(&pr->pod[i].results, CK_ENV_DRIFT, CHECK_SKIPPED,
				      pod->spec_env_unread,
				      "shorten the container's env list (a ConfigMap via envFrom)");
		free(view.var);
		return;
	}
	recipe_kv_lines(pod->spec_env, &spec, &nspec, &store);
	if (proc)
		pk = proc_visible(proc, spec, nspec, c);
	recipe_drift(c, spec, nspec, 1, pk, proc ? proc->n : 0, proc != NULL, &f, &nf);
	free(view.var);
	for (size_t j = 0; j < nf; j++)
		check_results_add_id(&pr->pod[i].results, CK_ENV_DRIFT, CHECK_WARN,
				      f[j].detail, f[j].remedy);
	if (nf == 0)
		check_results_add_id(&pr->pod[i].results, CK_ENV_DRIFT, CHECK_OK,
				      "recipe, pod spec and process agree", NULL);
	recipe_findings_free(f, nf);
	free(pk), free(spec), free(store);
}

void run_drift_judge(const struct recipe_set *s, const char *recipe,
			 struct run *pr)
{
	for (size_t i = 0; i < pr->pods->n; i++)
		drift_results(s, recipe, pr, i);
}

void run_drift_env(const struct run *pr, size_t i, const struct recipe_component *c,
		   struct run_drift_env *out)
{
	const struct pod_info *pod = &pr->pods->items[i];
	struct probe_env view;
	const struct probe_env *proc = run_pod_env_view(&pr->pod[i], &view) ? &view : NULL;

	memset(out, 0, sizeof(*out));
	recipe_kv_lines(pod->spec_env, &out->spec, &out->nspec, &out->store);
	if (proc) {
		out->proc = proc_visible(proc, out->spec, out->nspec, c);
		out->nproc = proc->n;
	}
	out->probed = proc != NULL;
	free(view.var);
}

void run_drift_env_release(struct run_drift_env *d)
{
	free(d->proc), free(d->spec), free(d->store);
	memset(d, 0, sizeof(*d));
}
