/* check --suggest-env's `kubectl patch` line per DynamoGraphDeployment
 * component (issue 44 point 5).  A JSON merge patch would replace the
 * component's whole env list, so this is a JSON patch (RFC 6902, kubectl
 * patch --type=json) computed from the list the tool read: `replace` at
 * the index of a variable the list has, `add .../-` for a new one, and
 * `test` ops first (the component's and container's names at their
 * indexes, the name at each index it changes, the last entry before an
 * append), so a DGD changed since it was read is refused, not clobbered.
 * Printed, never run: the plugin only reads. */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "model/dgd.h"
#include "util/buf.h"
#include "util/safe.h"
#include "util/xalloc.h"

#define PATCH_MAX (1u << 20)
#define MAX_SUGGEST 64

struct suggestion {
	char name[128];
	const char *value;   /* borrowed from a check result: after the '=' */
	int conflict;        /* the component's pods suggest different values */
};

static int of_component(const struct run_pod *p, const struct dgd_info *d,
			const struct dgd_component *k)
{
	const struct pod_info *pod = p->pod;

	return p->probed && pod->namespace && pod->graph && pod->component &&
	       !strcmp(pod->namespace, d->namespace) && !strcmp(pod->graph, d->name) &&
	       !strcmp(pod->component, k->name);
}

int report_suggest_is_arg(const char *suggest)
{
	return suggest && !strncmp(suggest, "--", 2);
}

/* A variable the pod's checks suggest into v (an engine flag is not
 * one: it stays out of the env patch). */
static void take(struct suggestion *v, size_t *n, const char *s)
{
	const char *eq = strchr(s, '=');
	size_t i, len = eq ? (size_t)(eq - s) : 0;

	if (!eq || !len || len >= sizeof(v->name) || report_suggest_is_arg(s))
		return;
	for (i = 0; i < *n; i++)
		if (strlen(v[i].name) == len && !strncmp(v[i].name, s, len)) {
			v[i].conflict |= strcmp(v[i].value, eq + 1) != 0;
			return;
		}
	if (*n == MAX_SUGGEST)
		return;
	memcpy(v[*n].name, s, len);
	v[*n].name[len] = '\0';
	v[*n].value = eq + 1;
	v[*n].conflict = 0;
	(*n)++;
}

/* The variables the checks suggest for k's pods. */
static size_t collect(const struct report *r, const struct dgd_info *d,
		      const struct dgd_component *k, struct suggestion *v)
{
	size_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		if (of_component(&r->pods[i], d, k))
			for (size_t c = 0; c < r->pods[i].results.n; c++)
				if (r->pods[i].results.v[c].suggest)
					take(v, &n, r->pods[i].results.v[c].suggest);
	return n;
}

static void op(cJSON *ops, const char *what, const char *path, cJSON *value)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "op", what);
	cJSON_AddStringToObject(o, "path", path);
	if (value)
		cJSON_AddItemToObject(o, "value", value);
	cJSON_AddItemToArray(ops, o);
}

static cJSON *entry(const struct suggestion *s)
{
	cJSON *e = cJSON_CreateObject();

	cJSON_AddStringToObject(e, "name", s->name);
	cJSON_AddStringToObject(e, "value", s->value);
	return e;
}

/* Index of the last entry named name in "NAME\n" lines (the one that
 * wins), -1 when none; *count gets how many entries there are. */
static long index_of(const char *names, const char *name, long *count)
{
	size_t len = strlen(name);
	long at = -1, i = 0;

	for (const char *l = names; *l; i++) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		if (n == len && !strncmp(l, name, len))
			at = i;
		l += n + (nl != NULL);
	}
	*count = i;
	return at;
}

/* The nth line of "NAME\n" lines into out. */
static void nth_name(const char *names, long nth, char *out, size_t n)
{
	for (; nth > 0 && names; nth--) {
		names = strchr(names, '\n');
		names = names ? names + 1 : NULL;
	}
	snprintf(out, n, "%.*s", names ? (int)strcspn(names, "\n") : 0, names ? names : "");
}

static void id_tests(cJSON *ops, const char *ids)
{
	char line[1024];

	for (const char *l = ids; l && *l;) {
		const char *nl = strchr(l, '\n'), *eq;
		size_t n = nl ? (size_t)(nl - l) : strlen(l);

		snprintf(line, sizeof(line), "%.*s", (int)n, l);
		eq = strchr(line, '=');
		if (eq) {
			line[eq - line] = '\0';
			op(ops, "test", line, cJSON_CreateString(eq + 1));
		}
		l += n + (nl != NULL);
	}
}

/* The ops that set v[0..n) (conflicts left out) in k's own env list. */
static cJSON *ops_for(const struct dgd_component *k, const struct suggestion *v, size_t n)
{
	cJSON *ops = cJSON_CreateArray();
	char path[1200], last[128];
	long count = 0, at;
	int appended = 0;

	id_tests(ops, k->patch_ids);
	if (!k->patch_listed)
		op(ops, "add", k->patch_path, cJSON_CreateArray());
	for (size_t i = 0; i < n; i++) {
		if (v[i].conflict)
			continue;
		at = index_of(k->patch_names ? k->patch_names : "", v[i].name, &count);
		if (at < 0) {
			if (!appended++ && count > 0) {
				nth_name(k->patch_names, count - 1, last, sizeof(last));
				snprintf(path, sizeof(path), "%s/%ld/name", k->patch_path, count - 1);
				op(ops, "test", path, cJSON_CreateString(last));
			}
			snprintf(path, sizeof(path), "%s/-", k->patch_path);
			op(ops, "add", path, entry(&v[i]));
			continue;
		}
		snprintf(path, sizeof(path), "%s/%ld/name", k->patch_path, at);
		op(ops, "test", path, cJSON_CreateString(v[i].name));
		snprintf(path, sizeof(path), "%s/%ld", k->patch_path, at);
		op(ops, "replace", path, entry(&v[i]));
	}
	return ops;
}

/* The command, the JSON single-quoted for a POSIX shell. */
static void command(FILE *out, const struct dgd_info *d, const cJSON *ops)
{
	char *json = cJSON_PrintUnformatted(ops);
	struct buf b = BUF_INIT(PATCH_MAX);

	if (!json)
		return;
	buf_appendf(&b, "kubectl patch dynamographdeployments.%s.nvidia.com %s -n %s --type=json -p '",
		    d->version, d->name, d->namespace);
	for (const char *c = json; *c; c++) {
		if (*c == '\'')
			buf_appends(&b, "'\\''");
		else
			buf_append(&b, c, 1);
	}
	buf_appends(&b, "'");
	safe_put_line(out, "", buf_str(&b));
	buf_release(&b);
	free(json);
}

static void one_component(FILE *out, const struct report *r, const struct dgd_info *d,
			  const struct dgd_component *k)
{
	struct suggestion v[MAX_SUGGEST];
	size_t n = collect(r, d, k, v), usable = 0;

	if (!n)
		return;
	fprintf(out, "\n# DynamoGraphDeployment %s/%s component %s: ", safe_show(d->namespace),
		safe_show(d->name), safe_show(k->name));
	if (!k->patch_path || !*k->patch_path) {
		fprintf(out, "no container env in the DGD to patch; add the block above by hand\n");
		return;
	}
	fprintf(out, "a JSON patch (its test ops refuse a DGD changed since it was read)\n");
	for (size_t i = 0; i < n; i++) {
		usable += !v[i].conflict;
		if (v[i].conflict)
			fprintf(out, "# %s: its pods suggest different values; set it per pod, not in "
				"the component\n", safe_show(v[i].name));
	}
	if (usable) {
		cJSON *ops = ops_for(k, v, n);

		command(out, d, ops);
		cJSON_Delete(ops);
	}
}

void report_print_suggest_patch(FILE *out, const struct report *r)
{
	if (!r->dgd)
		return;
	for (size_t i = 0; i < r->dgd->n; i++) {
		const struct dgd_info *d = &r->dgd->items[i];

		if (d->skipped && *d->skipped)
			continue;
		for (size_t k = 0; k < d->ncomp; k++)
			one_component(out, r, d, &d->comp[k]);
	}
}
