/* The recipe set's storage (internal.h): each component's env and KV
 * facts, the set's errors and findings, reading one file, and freeing it
 * all.  Calls nothing else of recipe/, so the readers (recipe.c, scan.c,
 * kust*.c) all call down into it and never into each other in a circle. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/internal.h"
#include "util/xalloc.h"

void recipe_env_set(struct recipe_component *c, const char *name, const char *value,
		    enum recipe_src src, int dynamic)
{
	size_t i;

	for (i = 0; i < c->nenv; i++)
		if (!strcmp(c->env[i].name, name))
			break;
	if (i == c->nenv) {
		if (c->nenv >= RECIPE_MAX_ENV)
			return;   /* a real worker has dozens; this bounds the merge */
		ALLOC_GROW(c->env, c->nenv + 1, c->env_alloc);
		c->env[i].name = xstrdup(name);
		c->nenv++;
	} else {
		free(c->env[i].value);
	}
	c->env[i].value = xstrdup(value);
	c->env[i].src = src;
	c->env[i].dynamic = dynamic;
}

void recipe_kv_add(struct recipe_component *c, const char *fmt, ...)
{
	char item[160];
	va_list ap;
	char *joined;

	va_start(ap, fmt);
	vsnprintf(item, sizeof item, fmt, ap);
	va_end(ap);
	if (c->kv && strstr(c->kv, item))
		return;
	if (c->kv && strlen(c->kv) > 400)
		return;   /* enough to say what it is */
	joined = c->kv ? xasprintf("%s; %s", c->kv, item) : xstrdup(item);
	free(c->kv);
	c->kv = joined;
}

void recipe_add_error(struct recipe_set *s, const char *fmt_file, int line, int col,
		      const char *msg)
{
	ALLOC_GROW(s->errors, s->nerrors + 1, s->errors_alloc);
	s->errors[s->nerrors++] = xasprintf("%s:%d:%d: %s", fmt_file, line, col, msg);
}

int recipe_read_file(const char *path, struct buf *b, struct err *e)
{
	FILE *fp = fopen(path, "rb");
	char chunk[65536];
	size_t n;

	if (!fp)
		return err_set(e, ERR_OTHER, "%s: %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		if (buf_append(b, chunk, n) < 0) {
			fclose(fp);
			return err_set(e, ERR_OTHER, "%s: larger than %u MB", path, RECIPE_MAX_FILE >> 20);
		}
	if (ferror(fp)) {
		fclose(fp);
		return err_set(e, ERR_OTHER, "%s: %s", path, strerror(errno));
	}
	fclose(fp);
	return 0;
}

void recipe_findings_free(struct recipe_finding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].detail);
		free(f[i].remedy);
	}
	free(f);
}

void recipe_set_release(struct recipe_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct recipe_component *c = &s->comps[i];

		free(c->file), free(c->graph), free(c->name), free(c->role);
		free(c->kv), free(c->framework), free(c->args), free(c->cd);
		for (size_t j = 0; j < c->nenv; j++)
			free(c->env[j].name), free(c->env[j].value);
		free(c->env);
		for (size_t j = 0; j < c->nsecrets; j++)
			free(c->secrets[j]);
		free(c->secrets);
		recipe_findings_free(c->findings, c->nfindings);
		for (size_t j = 0; j < c->nnotes; j++)
			free(c->notes[j]);
		free(c->notes);
	}
	free(s->comps);
	for (size_t i = 0; i < s->nerrors; i++)
		free(s->errors[i]);
	free(s->errors);
	memset(s, 0, sizeof *s);
}

const char *recipe_env_get(const struct recipe_component *c, const char *name)
{
	for (size_t i = 0; i < c->nenv; i++)
		if (!strcmp(c->env[i].name, name))
			return c->env[i].value;
	return NULL;
}
