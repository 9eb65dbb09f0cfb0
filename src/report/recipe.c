/* `env`'s output: the worker components of a recipe set with their
 * transport env, the findings worst first and the verdict (table), or the
 * RecipeEnvReport document (JSON, YAML). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recipe/recipe.h"
#include "report/drift.h"
#include "report/report.h"
#include "report/table.h"
#include "util/buf.h"
#include "util/safe.h"
#include "util/xalloc.h"

/* "NAME=value NAME=value ..." for the table's last column. */
static char *env_line(const struct recipe_component *c)
{
	struct buf b = BUF_INIT(1u << 20);

	for (size_t i = 0; i < c->nenv; i++)
		buf_appendf(&b, "%s%s=%s", i ? " " : "", c->env[i].name, c->env[i].value);
	for (size_t i = 0; i < c->nsecrets; i++)
		buf_appendf(&b, "%s*=<from secret %s>", b.len ? " " : "", c->secrets[i]);
	return buf_detach(&b, NULL);
}

static const char *comp_status(const struct recipe_component *c)
{
	enum recipe_status w = RECIPE_OK;

	for (size_t j = 0; j < c->nfindings; j++)
		if (c->findings[j].status > w)
			w = c->findings[j].status;
	return recipe_status_name(w);
}

/* file as the user finds it: relative to the directory argument it was
 * read under ("deep/g.yaml", not "/tmp/x/deep/g.yaml"); as it is else. */
static const char *shown_file(const char *file, const struct recipe_print *p)
{
	for (int i = 0; i < p->nargs; i++) {
		size_t n = strlen(p->args[i]);

		while (n > 1 && p->args[i][n - 1] == '/')
			n--;
		if (!strncmp(file, p->args[i], n) && file[n] == '/' && file[n + 1])
			return file + n + 1;
	}
	return file;
}

/* The verdict lines, as check words them (report_print_verdict). */
static void recipe_verdict_lines(FILE *out, const struct recipe_set *s,
				 const struct recipe_verdict *v)
{
	int not_ready = !strcmp(v->status, "NOT READY");

	fprintf(out, "\nVerdict: %s (fabric: %s; %zu file%s)\n", v->status, v->fabric, s->files,
	       s->files == 1 ? "" : "s");
	if (v->fix_first && (not_ready || !strcmp(v->status, "UNVERIFIED")))
		fprintf(out, "%s: %s\n", not_ready ? "Fix first" : "Not confirmed",
			safe_show(v->fix_first));
}

void report_print_recipe(FILE *out, const struct recipe_set *s, const struct recipe_verdict *v,
			const struct recipe_print *p)
{
	static const char *const h[] = { "FILE", "GRAPH", "COMPONENT", "ROLE", "FABRIC",
					 "KV-BACKEND", "STATUS", "TRANSPORT-ENV" };
	struct table *t = table_new(8, h);
	int any = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct recipe_component *c = &s->comps[i];
		char fab[64], *env;
		const char *row[8];

		if (!c->worker)
			continue;
		env = env_line(c);
		row[0] = shown_file(c->file, p), row[1] = c->graph, row[2] = c->name, row[3] = c->role;
		row[4] = recipe_fabric_name(c->fabric, fab, sizeof fab);
		row[5] = c->kv ? c->kv : "-", row[6] = comp_status(c), row[7] = *env ? env : "-";
		table_add_row(t, row);
		free(env);
	}
	if (table_rows(t))
		table_print(t, out, p->no_headers);
	table_free(t);
	/* Findings worst first, as check prints them. */
	for (int st = RECIPE_FAIL; st > RECIPE_OK; st--)
		for (size_t i = 0; i < s->n; i++)
			for (size_t j = 0; s->comps[i].worker && j < s->comps[i].nfindings; j++) {
				const struct recipe_finding *f = &s->comps[i].findings[j];

				if ((int)f->status != st)
					continue;
				fprintf(out, "%s%s %s %s/%s: %s\n", any++ ? "" : "\n", recipe_status_name(f->status),
				       safe_show(shown_file(s->comps[i].file, p)), safe_show(s->comps[i].graph),
				       safe_show(s->comps[i].name), safe_show(f->detail));
				if (f->remedy)
					fprintf(out, "     fix: %s\n", safe_show(f->remedy));
			}
	if (!p->errors)
		recipe_verdict_lines(out, s, v);
}

static cJSON *comp_json(const struct recipe_component *c)
{
	cJSON *o = cJSON_CreateObject(), *env = cJSON_CreateArray(), *fs = cJSON_CreateArray();
	char fab[64];

	cJSON_AddStringToObject(o, "file", c->file);
	cJSON_AddStringToObject(o, "graph", c->graph);
	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "role", c->role);
	cJSON_AddStringToObject(o, "fabric", recipe_fabric_name(c->fabric, fab, sizeof fab));
	cJSON_AddNumberToObject(o, "nodes", c->nodes);
	if (c->kv)
		cJSON_AddStringToObject(o, "kvBackend", c->kv);
	else
		cJSON_AddNullToObject(o, "kvBackend");
	for (size_t i = 0; i < c->nenv; i++) {
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "name", c->env[i].name);
		cJSON_AddStringToObject(e, "value", c->env[i].value);
		cJSON_AddStringToObject(e, "source", recipe_src_name(c->env[i].src));
		cJSON_AddItemToArray(env, e);
	}
	cJSON_AddItemToObject(o, "env", env);
	if (c->nsecrets) {
		cJSON *sec = cJSON_CreateArray();

		for (size_t i = 0; i < c->nsecrets; i++)
			cJSON_AddItemToArray(sec, cJSON_CreateString(c->secrets[i]));
		cJSON_AddItemToObject(o, "envFromSecrets", sec);
	}
	for (size_t i = 0; i < c->nfindings; i++) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "status", recipe_status_name(c->findings[i].status));
		cJSON_AddStringToObject(f, "detail", c->findings[i].detail);
		if (c->findings[i].remedy)
			cJSON_AddStringToObject(f, "remedy", c->findings[i].remedy);
		else
			cJSON_AddNullToObject(f, "remedy");
		cJSON_AddItemToArray(fs, f);
	}
	cJSON_AddItemToObject(o, "findings", fs);
	return o;
}

static cJSON *recipe_doc(const struct recipe_set *s, const struct recipe_verdict *v, int error_code)
{
	cJSON *d = cJSON_CreateObject(), *vo = cJSON_CreateObject();
	cJSON *cs = cJSON_CreateArray(), *errs = cJSON_CreateArray();

	cJSON_AddStringToObject(d, "apiVersion", "dynamo-interconnect/v1");
	cJSON_AddStringToObject(d, "kind", "RecipeEnvReport");
	cJSON_AddStringToObject(vo, "status", v->status);
	cJSON_AddNumberToObject(vo, "exitCode", s->nerrors ? error_code : v->code);
	if (v->fix_first)
		cJSON_AddStringToObject(vo, "fixFirst", v->fix_first);
	else
		cJSON_AddNullToObject(vo, "fixFirst");
	cJSON_AddStringToObject(vo, "fabric", v->fabric);
	cJSON_AddItemToObject(d, "verdict", vo);
	cJSON_AddNumberToObject(d, "files", (double)s->files);
	for (size_t i = 0; i < s->nerrors; i++)
		cJSON_AddItemToArray(errs, cJSON_CreateString(s->errors[i]));
	cJSON_AddItemToObject(d, "errors", errs);
	for (size_t i = 0; i < s->n; i++)
		if (s->comps[i].worker)
			cJSON_AddItemToArray(cs, comp_json(&s->comps[i]));
	cJSON_AddItemToObject(d, "components", cs);
	return d;
}

int report_print_recipe_doc(FILE *out, const struct recipe_set *s, const struct recipe_verdict *v,
			    int error_code, int yaml)
{
	cJSON *d = recipe_doc(s, v, error_code);
	int rc = 0;

	if (yaml) {
		rc = report_emit_yaml(out, d);
	} else {
		if (report_emit_json(out, d) < 0)
			rc = -1;
	}
	cJSON_Delete(d);
	return rc;
}
