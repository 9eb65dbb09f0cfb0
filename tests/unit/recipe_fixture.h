/* Helpers shared by test_recipe.c and test_recipe_gate.c: load a recipe
 * from text and judge it, find a component, an env entry or a finding. */
#ifndef TEST_RECIPE_FIXTURE_H
#define TEST_RECIPE_FIXTURE_H

#include <string.h>

#include "recipe/recipe.h"

static inline int load(const char *yaml, struct recipe_set *s)
{
	memset(s, 0, sizeof *s);
	int rc = recipe_load_buffer("t.yaml", yaml, strlen(yaml), s);
	recipe_judge(s);
	return rc;
}

static inline const struct recipe_component *comp(const struct recipe_set *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->comps[i].name, name))
			return &s->comps[i];
	return NULL;
}

static inline const struct recipe_env *env(const struct recipe_component *c, const char *name)
{
	for (size_t i = 0; c && i < c->nenv; i++)
		if (!strcmp(c->env[i].name, name))
			return &c->env[i];
	return NULL;
}

static inline int has_finding(const struct recipe_component *c, enum recipe_status st, const char *text)
{
	for (size_t i = 0; c && i < c->nfindings; i++)
		if (c->findings[i].status == st && strstr(c->findings[i].detail, text))
			return 1;
	return 0;
}


#endif
