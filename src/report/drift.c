/* check --recipe's table: each pod's transport env in the recipe, its
 * pod spec and its running process side by side, after the drift lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/drift.h"
#include "report/table.h"
#include "run/drift.h"
#include "util/safe.h"
#include "util/xalloc.h"

static void drift_rows(struct table *t, const struct pod_info *pod,
		       const struct recipe_component *c, const struct recipe_kv *spec,
		       size_t nspec, const struct recipe_kv *proc, size_t nproc, int probed)
{
	/* Union of the three, in recipe order, then spec, then process. */
	const char **names = NULL;
	size_t nn = 0, total = (c ? c->nenv : 0) + nspec + nproc;

	names = xcalloc(total + 1, sizeof *names);
	for (size_t i = 0; i < total; i++) {
		const char *n = c && i < c->nenv ? c->env[i].name :
				i < (c ? c->nenv : 0) + nspec ? spec[i - (c ? c->nenv : 0)].name :
				proc[i - (c ? c->nenv : 0) - nspec].name;
		size_t j;

		for (j = 0; j < nn && strcmp(names[j], n); j++)
			;
		if (j == nn)
			names[nn++] = n;
	}
	for (size_t i = 0; i < nn; i++) {
		const char *sv = NULL, *pv = NULL, *row[5];

		for (size_t j = 0; j < nspec; j++)
			if (!strcmp(spec[j].name, names[i]))
				sv = spec[j].value;
		for (size_t j = 0; j < nproc; j++)
			if (!strcmp(proc[j].name, names[i]))
				pv = proc[j].value;
		row[0] = pod->name, row[1] = names[i];
		row[2] = c && recipe_env_get(c, names[i]) ? recipe_env_get(c, names[i]) : "-";
		row[3] = sv ? sv : "-";
		row[4] = !probed ? "<not probed>" : pv ? pv : "-";
		table_add_row(t, row);
	}
	free(names);
}

/* The verdict groups findings by check; drift differs pod by pod, so each
 * pod's lines are listed too. */
static void drift_lines(FILE *out, const struct run *pr)
{
	int first = 1;

	for (size_t i = 0; i < pr->pods->n; i++)
		for (size_t j = 0; j < pr->pod[i].results.n; j++) {
			const struct check_result *r = &pr->pod[i].results.v[j];
			if (strcmp(r->name, check_def_of(CK_ENV_DRIFT)->name) || r->status == CHECK_OK)
				continue;
			fprintf(out, "%swarn %s: %s\n", first ? "\n" : "", safe_show(pr->pods->items[i].name),
			       safe_show(r->detail));
			if (r->remedy)
				fprintf(out, "     fix: %s\n", safe_show(r->remedy));
			first = 0;
		}
}

void report_print_drift(FILE *out, const struct recipe_set *s, const char *recipe,
			const struct run *pr)
{
	static const char *const h[] = { "POD", "VARIABLE", "RECIPE", "POD-SPEC", "PROCESS" };
	struct table *t;

	drift_lines(out, pr);
	t = table_new(5, h);
	for (size_t i = 0; i < pr->pods->n; i++) {
		const struct pod_info *pod = &pr->pods->items[i];
		const struct recipe_component *c = recipe_match(s, pod->graph, pod->role);
		struct run_drift_env de;

		run_drift_env(pr, i, c, &de);
		drift_rows(t, pod, c, de.spec, de.nspec, de.proc, de.nproc, de.probed);
		run_drift_env_release(&de);
	}
	if (table_rows(t)) {
		fprintf(out, "\nTransport env: recipe %s vs pod spec vs running process\n", recipe);
		table_print(t, out, 0);
	}
	table_free(t);
}
