/* `env`: the transport variables of a recipe (file or directory tree),
 * per worker component, with what is missing or dangerous (issue 4). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "run/drift.h"
#include "run/run.h"
#include "recipe/recipe.h"
#include "report/report.h"
#include "report/table.h"
#include "util/buf.h"
#include "util/safe.h"
#include "util/xalloc.h"

static const char *const help[] = {
	"Show the transport variables (UCX_, NIXL_, NCCL_, FI_, socket interfaces) that a",
	"Dynamo recipe sets for each worker, the ones it lacks for the fabric it requests,",
	"and the values that push KV transfer off RDMA/NVLink. No cluster is contacted.",
	"",
	"RECIPE_PATH is a YAML file or a directory searched for *.yaml/*.yml. Both",
	"DynamoGraphDeployment schemas (v1alpha1, v1beta1) are read and merged in the",
	"operator's order (graph < service < main container < shell exports in args).",
	"Values from valueFrom show where they come from; Secret data is never read.",
	"Missing variables are warnings (the image may set them); dangerous values fail.",
	"A directory with kustomizations is rendered as `kustomize build` would: each",
	"overlay is one FILE; what it names but cannot be applied is a warning.",
	"",
	"Exit status: 0 nothing to fix, 2 a dangerous value, 3 warnings only, 1 errors",
	"(a file that is not YAML is reported as error: FILE:LINE:COLUMN and the rest read).",
	"",
	"Examples:",
	"  # One recipe",
	"  kubectl dynamo-interconnect env recipes/qwen3-32b-fp8/vllm/disagg/deploy.yaml",
	"",
	"  # Every recipe of a tree, as JSON",
	"  kubectl dynamo-interconnect env recipes/ -o json",
	NULL,
};

struct env_verdict {
	const char *status;
	int code;
	const char *fix_first;   /* borrowed from a finding, or a fixed text */
	char fabric[64];
};

static void verdict_of(const struct recipe_set *s, struct env_verdict *v)
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
	v->code = w == RECIPE_FAIL ? EXIT_NOT_READY : w == RECIPE_WARN ? EXIT_UNVERIFIED : EXIT_READY;
	if (!workers) {
		v->status = "UNVERIFIED", v->code = EXIT_UNVERIFIED;
		v->fix_first = "no DynamoGraphDeployment worker found";
	}
}

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

static void print_table(const struct recipe_set *s, const struct env_verdict *v, int no_headers)
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
		row[0] = c->file, row[1] = c->graph, row[2] = c->name, row[3] = c->role;
		row[4] = recipe_fabric_name(c->fabric, fab, sizeof fab);
		row[5] = c->kv ? c->kv : "-", row[6] = comp_status(c), row[7] = *env ? env : "-";
		table_add_row(t, row);
		free(env);
	}
	if (table_rows(t))
		table_print(t, stdout, no_headers);
	table_free(t);
	/* Findings worst first, as check prints them. */
	for (int st = RECIPE_FAIL; st > RECIPE_OK; st--)
		for (size_t i = 0; i < s->n; i++)
			for (size_t j = 0; s->comps[i].worker && j < s->comps[i].nfindings; j++) {
				const struct recipe_finding *f = &s->comps[i].findings[j];

				if ((int)f->status != st)
					continue;
				printf("%s%s %s %s/%s: %s\n", any++ ? "" : "\n", recipe_status_name(f->status),
				       safe_show(s->comps[i].file), safe_show(s->comps[i].graph),
				       safe_show(s->comps[i].name), safe_show(f->detail));
				if (f->remedy)
					printf("     fix: %s\n", safe_show(f->remedy));
			}
	printf("\nVerdict: %s (fabric: %s; %zu file%s)\n", v->status, v->fabric, s->files,
	       s->files == 1 ? "" : "s");
	if (v->fix_first)
		printf("Fix first: %s\n", safe_show(v->fix_first));
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

static cJSON *report_doc(const struct recipe_set *s, const struct env_verdict *v)
{
	cJSON *d = cJSON_CreateObject(), *vo = cJSON_CreateObject();
	cJSON *cs = cJSON_CreateArray(), *errs = cJSON_CreateArray();

	cJSON_AddStringToObject(d, "apiVersion", "dynamo-interconnect/v1");
	cJSON_AddStringToObject(d, "kind", "RecipeEnvReport");
	cJSON_AddStringToObject(vo, "status", v->status);
	cJSON_AddNumberToObject(vo, "exitCode", s->nerrors ? EXIT_ERROR : v->code);
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

static int print_doc(const struct recipe_set *s, const struct env_verdict *v, int yaml)
{
	cJSON *d = report_doc(s, v);
	int rc = 0;

	if (yaml) {
		rc = report_emit_yaml(stdout, d);
	} else {
		if (report_emit_json(stdout, d) < 0)
			rc = -1;
	}
	cJSON_Delete(d);
	return rc;
}

static int load_all(char **pos, int npos, struct recipe_set *s)
{
	int rc = 0;

	for (int i = 0; i < npos; i++) {
		struct err e;

		err_clear(&e);
		if (recipe_load_path(pos[i], s, &e) < 0) {
			cmd_fail(&e);
			rc = -1;
		}
	}
	return rc;
}

int cmd_env(struct cmd_ctx *ctx, int argc, char **argv)
{
	char **pos = xcalloc((size_t)argc + 1, sizeof(char *));
	struct recipe_set s;
	struct env_verdict v;
	const char *fmt;
	int npos, rc, bad;

	rc = cmd_parse(ctx, "env", NULL, help, argc, argv, pos, &npos);
	if (rc == 0 && npos == 0) {
		fprintf(stderr, "error: RECIPE_PATH is required\nSee '%s env -h' for help and examples\n",
			ctx->usage_name);
		rc = EXIT_ERROR;
	}
	if (rc == 0 && cmd_output_format(ctx, ENV_OUTPUTS, &fmt) < 0)
		rc = EXIT_ERROR;
	if (rc) {
		free(pos);
		return rc < 0 ? 0 : rc;
	}
	memset(&s, 0, sizeof s);
	bad = load_all(pos, npos, &s) < 0;
	free(pos);
	recipe_judge(&s);
	for (size_t i = 0; i < s.nerrors; i++)
		fprintf(stderr, "error: %s\n", safe_show(s.errors[i]));
	verdict_of(&s, &v);
	if (!strcmp(fmt, "table"))
		print_table(&s, &v, ctx->g.no_headers);
	else if (print_doc(&s, &v, !strcmp(fmt, "yaml")) < 0)
		bad = 1;
	rc = bad || s.nerrors ? EXIT_ERROR : v.code;
	recipe_set_release(&s);
	return cmd_flush_stdout() == 0 ? rc : EXIT_ERROR;
}

/* ------------------------------------------------- check --recipe */

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

int cmd_env_drift_load(const char *recipe, struct recipe_set *s)
{
	struct err e;

	memset(s, 0, sizeof(*s));
	err_clear(&e);
	if (recipe_load_path(recipe, s, &e) < 0) {
		recipe_set_release(s);
		return cmd_fail(&e);
	}
	for (size_t i = 0; i < s->nerrors; i++)
		fprintf(stderr, "error: %s\n", safe_show(s->errors[i]));
	if (s->nerrors) {
		recipe_set_release(s);
		return EXIT_ERROR;
	}
	return 0;
}

/* The verdict groups findings by check; drift differs pod by pod, so each
 * pod's lines are listed too. */
static void drift_lines(const struct run *pr)
{
	int first = 1;

	for (size_t i = 0; i < pr->pods->n; i++)
		for (size_t j = 0; j < pr->pod[i].results.n; j++) {
			const struct check_result *r = &pr->pod[i].results.v[j];
			if (strcmp(r->name, "env-drift") || r->status == CHECK_OK)
				continue;
			printf("%swarn %s: %s\n", first ? "\n" : "", safe_show(pr->pods->items[i].name),
			       safe_show(r->detail));
			if (r->remedy)
				printf("     fix: %s\n", safe_show(r->remedy));
			first = 0;
		}
}

void cmd_env_drift_table(const struct recipe_set *s, const char *recipe,
			 const struct run *pr)
{
	static const char *const h[] = { "POD", "VARIABLE", "RECIPE", "POD-SPEC", "PROCESS" };
	struct table *t;

	drift_lines(pr);
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
		printf("\nTransport env: recipe %s vs pod spec vs running process\n", recipe);
		table_print(t, stdout, 0);
	}
	table_free(t);
}
