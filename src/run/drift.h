/* check --recipe on a run: the recipe's transport env against each pod's
 * spec and running process (recipe/drift.c judges; this feeds it). */
#ifndef RUN_DRIFT_H
#define RUN_DRIFT_H

#include "recipe/recipe.h"
#include "run/run.h"

/* Adds env-drift results (family ENV) to every pod of pr, so drift counts
 * in the verdict and shows in every output format like any check.  The
 * process env needs pr->keep_env (or keep_facts). */
void run_drift_judge(const struct recipe_set *s, const char *recipe, struct run *pr);

/* Pod i's env as the drift table shows it: the spec's NAME=VALUE list and
 * the process's, a value that may come from a Secret replaced by
 * "<set outside the pod spec>".  Release with run_drift_env_release(). */
struct run_drift_env {
	struct recipe_kv *spec, *proc;
	size_t nspec, nproc;
	int probed;             /* the process env is known */
	char *store;            /* what spec points into */
};
void run_drift_env(const struct run *pr, size_t i, const struct recipe_component *c,
		   struct run_drift_env *out);
void run_drift_env_release(struct run_drift_env *d);

#endif
