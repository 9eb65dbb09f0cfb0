/* `env`'s verdict over a judged recipe set (recipe.h recipe_verdict). */
#include <stddef.h>

#include "recipe/recipe.h"

void recipe_verdict(const struct recipe_set *s, struct recipe_verdict *v)
{
	enum recipe_status w = recipe_worst(s);
	unsigned fab = 0;
	size_t workers = 0;

	v->fix_first = NULL;
	for (size_t i = 0; i < s->n; i++) {
		const struct recipe_component *c = &s->comps[i];

		if (!c->worker)
			continue;
		workers++;
		fab |= c->fabric;
		for (size_t j = 0; j < c->nfindings; j++)
			if (c->findings[j].status == w && !v->fix_first && w != RECIPE_OK)
				v->fix_first = c->findings[j].detail;
	}
	recipe_fabric_name(fab, v->fabric, sizeof v->fabric);
	v->status = w == RECIPE_FAIL ? "NOT READY" : w == RECIPE_WARN ? "UNVERIFIED" : "READY";
	v->code = w == RECIPE_FAIL ? 2 : w == RECIPE_WARN ? 3 : 0;   /* product.md exit codes */
	if (!workers) {
		v->status = "UNVERIFIED", v->code = 3;
		v->fix_first = "no DynamoGraphDeployment worker found";
	}
}
