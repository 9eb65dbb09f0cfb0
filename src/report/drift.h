/* Printers of recipe drift (check --recipe) and of `env` (report/recipe.c). */
#ifndef REPORT_DRIFT_H
#define REPORT_DRIFT_H

#include <stdio.h>

#include "recipe/recipe.h"
#include "run/run.h"

/* Each pod's drift lines, then the recipe / pod spec / process table. */
void report_print_drift(FILE *out, const struct recipe_set *s, const char *recipe,
			const struct run *pr);

/* `env`: the table with findings and verdict (as check words it: "Fix
 * first" only with NOT READY, "Not confirmed" with UNVERIFIED; none after
 * an error), or the RecipeEnvReport
 * document (yaml 0: JSON); error_code is the exitCode it shows when files
 * could not be read.  The document printer returns -1 on a write error. */
struct recipe_print {
	int no_headers;
	int errors;                /* some file could not be read: no verdict */
	char *const *args;         /* the RECIPE_PATH arguments: FILE is shown */
	int nargs;                 /* relative to the directory it was found in */
};
void report_print_recipe(FILE *out, const struct recipe_set *s, const struct recipe_verdict *v,
			 const struct recipe_print *p);
int report_print_recipe_doc(FILE *out, const struct recipe_set *s, const struct recipe_verdict *v,
			    int error_code, int yaml);

#endif
