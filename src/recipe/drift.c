/* Live drift: the recipe's env against the pod spec's and the running
 * process's (issue 4, "Live environment").  Only transport variables reach
 * here (the probe filters them in the pod), so values may be printed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/internal.h"
#include "util/xalloc.h"

/* Findings being appended to: *v holds *n, alloc allocated. */
struct flist {
	struct recipe_finding **v;
	size_t *n;
	size_t alloc;
};

static void add(struct flist *l, enum recipe_status st,
		const char *remedy, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void add(struct flist *l, enum recipe_status st,
		const char *remedy, const char *fmt, ...)
{
	struct recipe_finding *f;
	char d[800];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d, sizeof d, fmt, ap);
	va_end(ap);
	ALLOC_GROW(*l->v, *l->n + 1, l->alloc);
	f = &(*l->v)[(*l->n)++];
	f->status = st;
	f->detail = xstrdup(d);
	f->remedy = xstrdup(remedy);
	f->check = NULL;
	f->book = 0;
}

static const char *kv_get(const struct recipe_kv *l, size_t n, const char *name)
{
	const char *v = NULL;

	for (size_t i = 0; i < n; i++)   /* the last wins, as in an environment */
		if (!strcmp(l[i].name, name))
			v = l[i].value;
	return v;
}

/* The operator injects these into every worker: expected, not drift. */
static int injected(const char *name)
{
	return !strncmp(name, "NIXL_TELEMETRY_", 15);
}

/* What the env rule book says of a value the recipe did not ask for:
 * ": " + its finding, or "" when it flags nothing.  A hidden or
 * run-time value ("<...>") is not judged. */
static const char *book_note(const struct recipe_component *c, const char *name,
			     const char *value, char *b, size_t n)
{
	char why[360];

	b[0] = '\0';
	if (value[0] != '<' && recipe_book_judge(c, name, value, why, sizeof why) > 0)
		snprintf(b, n, "; the rule book: %s", why);
	return b;
}

static void compare(const struct recipe_component *c, const char *where,
		    const struct recipe_kv *l, size_t n, struct flist *out)
{
	char note[400];

	for (size_t i = 0; i < c->nenv; i++) {
		const struct recipe_env *e = &c->env[i];
		const char *v = kv_get(l, n, e->name);

		if (e->dynamic || injected(e->name))
			continue;
		if (!v)
			add(out, RECIPE_WARN, "redeploy from the recipe, or update the recipe",
			    "%s: recipe sets %s=%s, %s has it unset", c->name, e->name, e->value, where);
		else if (strcmp(v, e->value))
			add(out, RECIPE_WARN, "redeploy from the recipe, or update the recipe",
			    "%s: recipe sets %s=%s, %s has %s%s", c->name, e->name, e->value, where, v,
			    book_note(c, e->name, v, note, sizeof note));
	}
	for (size_t i = 0; i < n; i++)
		if (!injected(l[i].name) && !recipe_env_get(c, l[i].name) &&
		    kv_get(l, n, l[i].name) == l[i].value)
			add(out, RECIPE_WARN, "add it to the recipe, or find what sets it",
			    "%s: %s has %s=%s, which the recipe does not set%s", c->name, where,
			    l[i].name, l[i].value, book_note(c, l[i].name, l[i].value, note, sizeof note));
}

void recipe_drift(const struct recipe_component *c,
		  const struct recipe_kv *spec, size_t nspec, int have_spec,
		  const struct recipe_kv *proc, size_t nproc, int have_proc,
		  struct recipe_finding **out, size_t *nout)
{
	struct flist fl = { out, nout, *nout };   /* what is there is exactly full */

	if (have_spec)
		compare(c, "the pod spec", spec, nspec, &fl);
	if (have_proc)
		compare(c, "the running process", proc, nproc, &fl);
}

const struct recipe_component *recipe_match(const struct recipe_set *s,
					    const char *graph, const char *role)
{
	const struct recipe_component *any = NULL;

	for (size_t i = 0; i < s->n; i++) {
		const struct recipe_component *c = &s->comps[i];

		if (!c->worker || !graph || strcmp(c->graph, graph))
			continue;
		if (role && !strcmp(c->role, role))
			return c;
		if (!strcmp(c->role, "-") && !any)
			any = c;
	}
	return any;
}

void recipe_kv_lines(const char *lines, struct recipe_kv **out, size_t *n, char **store)
{
	char *p;

	size_t alloc = 0;

	*out = NULL, *n = 0;
	*store = p = xstrdup(lines ? lines : "");
	while (*p) {
		char *nl = strchr(p, '\n'), *eq = strchr(p, '=');

		if (nl)
			*nl = 0;
		if (eq && (!nl || eq < nl)) {
			*eq = 0;
			ALLOC_GROW(*out, *n + 1, alloc);
			(*out)[*n].name = p;
			(*out)[*n].value = eq + 1;
			(*n)++;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
}
