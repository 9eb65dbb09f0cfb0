/* Completion candidates: see complete.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "complete.h"
#include "kube/api/pods.h"
#include "util/safe.h"
#include "util/xalloc.h"

static const char *const color_values[] = { "auto", "always", "never", NULL };

/* Flags whose value is a file: leave completion to the shell. */
static const char *const file_flags[] = {
	"kubeconfig", "certificate-authority", "client-certificate", "client-key",
	"recipe", "known-issues", NULL,
};

static int in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

static int takes_value(const struct opt *o)
{
	return o->type == OPT_STRING || o->type == OPT_INT || o->type == OPT_STRV ||
	       o->type == OPT_DURATION;
}

void complete_add(struct complete_result *res, const char *value, const char *desc)
{
	const char *match = res->match ? res->match : "";
	size_t len;
	char *s;

	if (strncmp(value, match, strlen(match)))
		return;
	/* A name from the server with a newline, an escape or invalid UTF-8
	 * would fabricate candidates or reach the terminal raw; escaped it
	 * would not name anything real, so it is not offered (issue 12). */
	if (!safe_is_term(value) || (desc && !safe_is_term(desc)))
		return;
	len = strlen(value) + (desc ? strlen(desc) + 1 : 0) + 1;
	s = xcalloc(1, len);
	snprintf(s, len, "%s%s%s", value, desc ? "\t" : "", desc ? desc : "");
	ALLOC_GROW(res->items, res->n + 1, res->cap);
	res->items[res->n++] = s;
}

void complete_release(struct complete_result *res)
{
	size_t i;

	for (i = 0; i < res->n; i++)
		free(res->items[i]);
	free(res->items);
	memset(res, 0, sizeof(*res));
}

/* The flag a word names: "--name", "--name=...", "-x", "-x..." . */
static const struct opt *find_flag(const struct opt *const *tables, const char *w)
{
	const struct opt *o;
	size_t n;

	if (w[0] != '-' || !w[1])
		return NULL;
	for (; *tables; tables++)
		for (o = *tables; o->name; o++) {
			if (w[1] == '-') {
				n = strlen(o->name);
				if (!strncmp(w + 2, o->name, n) && (!w[2 + n] || w[2 + n] == '='))
					return o;
			} else if (o->shorthand && w[1] == o->shorthand) {
				return o;
			}
		}
	return NULL;
}

const char *complete_flag_value(int nwords, char *const *words, const struct opt *flag)
{
	const struct opt one[2] = { *flag, OPT_TABLE_END };
	const struct opt *tables[2] = { one, NULL };
	const char *val = NULL, *w;
	int i;

	for (i = 0; i < nwords - 1; i++) {
		w = words[i];
		if (!strcmp(w, "--"))
			break;
		if (!find_flag(tables, w))
			continue;
		if (w[1] == '-')
			w = strchr(w, '=');
		else
			w = w[2] ? w + 2 + (w[2] == '=') : NULL;
		if (w) {
			val = w + (*w == '=');
		} else if (i + 1 < nwords - 1) {
			val = words[++i];
		}
	}
	return val;
}

static void add_flags(struct complete_result *res, const struct opt *const *tables,
		      const char *cur)
{
	const struct opt *o;
	char name[128];

	for (; *tables; tables++)
		for (o = *tables; o->name; o++) {
			if (!o->help)
				continue;   /* a hidden alias: -h does not list it either */
			snprintf(name, sizeof(name), "--%s", o->name);
			complete_add(res, name, o->help);
			/* Cobra offers shorthands only for a lone "-". */
			if (o->shorthand && !strcmp(cur, "-")) {
				snprintf(name, sizeof(name), "-%c", o->shorthand);
				complete_add(res, name, o->help);
			}
		}
}

static void add_csv(struct complete_result *res, const char *csv)
{
	char *copy = xstrdup(csv), *save = NULL, *tok;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		complete_add(res, tok, NULL);
	free(copy);
}

static void plan_value(struct complete_result *res, const struct opt *o,
		       const struct complete_sub *sub)
{
	size_t i;

	if (!strcmp(o->name, "output") && sub->outputs)
		add_csv(res, sub->outputs);
	else if (!strcmp(o->name, "color"))
		for (i = 0; color_values[i]; i++)
			complete_add(res, color_values[i], NULL);
	else if (!strcmp(o->name, "namespace"))
		res->lookup = LOOKUP_NAMESPACES;
	else if (!strcmp(o->name, "context"))
		res->lookup = LOOKUP_CONTEXTS;
	else if (!strcmp(o->name, "cluster"))
		res->lookup = LOOKUP_CLUSTERS;
	else if (!strcmp(o->name, "user"))
		res->lookup = LOOKUP_USERS;
	else if (!strcmp(o->name, "container"))
		res->lookup = LOOKUP_CONTAINERS;
	else if (!strcmp(o->name, "pod") || !strcmp(o->name, "peer")) {
		res->lookup = LOOKUP_PODS;
		res->directive |= COMPLETE_KEEPORDER;  /* workers first */
	} else if (in_list(file_flags, o->name))
		res->directive = 0;
}

/* The word being completed is "--flag=...", "-x=..." or follows a flag
 * that takes a value: complete that value.  1 when it did.  After '=' the
 * answer is the bare values, as cobra's checkIfFlagCompletion answers
 * (spf13/cobra completions.go: toComplete = lastArg[index+1:]); the shell
 * script puts the "--flag=" back where the shell needs it. */
static int plan_flag_value(struct complete_result *res, const struct opt *const *tables,
			   const struct complete_sub *sub, const char *prev, const char *cur)
{
	const struct opt *o;
	const char *eq = cur[0] == '-' ? strchr(cur, '=') : NULL;

	if (eq && (cur[1] == '-' || eq == cur + 2) &&
	    (o = find_flag(tables, cur)) && takes_value(o)) {
		res->match = eq + 1;
		plan_value(res, o, sub);
		return 1;
	}
	if (!prev || !(o = find_flag(tables, prev)) || !takes_value(o))
		return 0;
	/* "--name" or "-x" alone: the value is the next word. */
	if (prev[1] == '-' ? strchr(prev, '=') != NULL : prev[2] != '\0')
		return 0;
	res->match = cur;
	plan_value(res, o, sub);
	return 1;
}

static const struct complete_sub *find_sub(const struct complete_sub *subs, size_t n,
					   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(subs[i].name, name))
			return &subs[i];
	return NULL;
}

static int after_dashdash(int nwords, char *const *words)
{
	int i;

	for (i = 1; i < nwords - 1; i++)
		if (!strcmp(words[i], "--"))
			return 1;
	return 0;
}

void complete_plan(int nwords, char *const *words, const struct complete_sub *subs,
		   size_t nsubs, const struct opt *globals, struct complete_result *res)
{
	const char *cur = nwords > 0 ? words[nwords - 1] : "";
	const struct opt *tables[3] = { globals, NULL, NULL };
	const struct complete_sub *sub;
	size_t i;

	memset(res, 0, sizeof(*res));
	res->directive = COMPLETE_NOFILE;
	res->match = cur;
	if (nwords <= 1) {
		/* The subcommand comes first: kubectl passes args as typed. */
		if (cur[0] == '-')
			add_flags(res, tables, cur);
		else
			for (i = 0; i < nsubs; i++)
				complete_add(res, subs[i].name, subs[i].summary);
		return;
	}
	sub = find_sub(subs, nsubs, words[0]);
	if (!sub)
		return;
	/* Its own flags, then the globals: the order its -h lists them. */
	if (sub->globals)
		tables[0] = sub->globals;
	if (sub->opts) {
		tables[1] = tables[0];
		tables[0] = sub->opts;
	}
	if (after_dashdash(nwords, words))
		return;
	if (plan_flag_value(res, tables, sub, nwords > 2 ? words[nwords - 2] : NULL, cur))
		return;
	if (cur[0] == '-')
		add_flags(res, tables, cur);
	else if (sub->file_args)
		res->directive = 0;    /* cobra's ShellCompDirectiveDefault: files */
	else if (sub->args)
		for (i = 0; sub->args[i]; i++)
			complete_add(res, sub->args[i], NULL);
}

static const char *json_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *list_items(const cJSON *doc)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items");

	return cJSON_IsArray(items) ? items : NULL;
}

int complete_add_names_json(struct complete_result *res, const char *json)
{
	cJSON *doc = cJSON_Parse(json);
	const cJSON *it;
	const char *name;

	if (!doc || !list_items(doc)) {
		cJSON_Delete(doc);
		return -1;
	}
	cJSON_ArrayForEach(it, list_items(doc)) {
		name = json_str(cJSON_GetObjectItemCaseSensitive(it, "metadata"), "name");
		if (name)
			complete_add(res, name, NULL);
	}
	cJSON_Delete(doc);
	return 0;
}

/* The pod's Dynamo worker role, or NULL for any other pod. */
static const char *worker_role(const cJSON *pod)
{
	const cJSON *meta = cJSON_GetObjectItemCaseSensitive(pod, "metadata");
	const cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
	const char *role = pods_role(json_str(labels, "nvidia.com/dynamo-component-type"),
				     json_str(labels, "nvidia.com/dynamo-sub-component-type"));

	return role && *role ? role : NULL;
}

int complete_add_pods_json(struct complete_result *res, const char *json)
{
	cJSON *doc = cJSON_Parse(json);
	const cJSON *it;
	const char *name, *role;
	int pass;

	if (!doc || !list_items(doc)) {
		cJSON_Delete(doc);
		return -1;
	}
	for (pass = 0; pass < 2; pass++)
		cJSON_ArrayForEach(it, list_items(doc)) {
			name = json_str(cJSON_GetObjectItemCaseSensitive(it, "metadata"), "name");
			role = worker_role(it);
			if (name && (pass == 0) == (role != NULL))
				complete_add(res, name, role ? role : NULL);
		}
	cJSON_Delete(doc);
	return 0;
}

static void add_once(struct complete_result *res, const char *name)
{
	for (size_t i = 0; i < res->n; i++)
		if (!strcmp(res->items[i], name))
			return;
	complete_add(res, name, NULL);
}

static void add_pod_containers(struct complete_result *res, const cJSON *pod)
{
	const cJSON *spec = cJSON_GetObjectItemCaseSensitive(pod, "spec"), *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(spec, "containers")) {
		const char *name = json_str(it, "name");
		if (name)
			add_once(res, name);
	}
	/* Native sidecars (KEP-753): init containers with restartPolicy
	 * Always run beside the others and take kubectl exec -c. */
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(spec, "initContainers")) {
		const char *name = json_str(it, "name"), *rp = json_str(it, "restartPolicy");
		if (name && rp && !strcmp(rp, "Always"))
			add_once(res, name);
	}
}

int complete_add_containers_json(struct complete_result *res, const char *json)
{
	cJSON *doc = cJSON_Parse(json);
	const cJSON *items = doc ? list_items(doc) : NULL, *it;

	if (!doc) {
		cJSON_Delete(doc);
		return -1;
	}
	if (!items)
		add_pod_containers(res, doc);
	else
		cJSON_ArrayForEach(it, items)
			if (worker_role(it))
				add_pod_containers(res, it);
	cJSON_Delete(doc);
	return 0;
}
