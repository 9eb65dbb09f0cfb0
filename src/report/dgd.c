/* `check --dgd`: the DGD part of the report: as text its header line and
 * findings (report.h); in the JSON/YAML document and as metrics
 * (report_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_int.h"
#include "../check/dgd.h"
#include "../util/safe.h"

void report_print_dgd(FILE *out, const struct dgd_info *d, const struct dgd_findings *f)
{
	char id[512];
	size_t i, n = 0;

	snprintf(id, sizeof(id), "%.250s/%.250s", d->namespace, d->name);
	fprintf(out, "\nDynamoGraphDeployment %s (%s, state %s, Ready %s, worker hash %s):\n",
		safe_show(id), safe_show(d->version), safe_show(*d->state ? d->state : "-"),
		safe_show(*d->ready ? d->ready : "-"),
		safe_show(*d->worker_hash ? d->worker_hash :
			  *d->worker_hash_v2 ? d->worker_hash_v2 : "-"));
	for (i = 0; i < f->n; i++) {
		if (strcmp(f->items[i].dgd, id))
			continue;
		fprintf(out, "  %-4s %-18s %s\n", check_status_name(f->items[i].status),
			dgd_check_def(f->items[i].check)->name,
			safe_show(f->items[i].detail));
		n++;
	}
	if (!n)
		fprintf(out, "  ok   the running pods match it (%zu components)\n", d->ncomp);
}

/* ---- The DGD part of -o json / -o yaml / -o prometheus ---------------- */

static const char *worst(const struct dgd_findings *f, const char *id)
{
	const char *w = "ok";
	size_t i;

	for (i = 0; f && i < f->n; i++) {
		if (strcmp(f->items[i].dgd, id))
			continue;
		if (f->items[i].status == CHECK_FAIL)
			return "fail";
		w = "warn";
	}
	return w;
}

static const struct dgd_count *count_of(const struct dgd_findings *f, size_t item, size_t comp)
{
	size_t i;

	for (i = 0; f && i < f->ncounts; i++)
		if (f->counts[i].item == item && f->counts[i].comp == comp)
			return &f->counts[i];
	return NULL;
}

static void add_count(cJSON *o, const char *key, long v)
{
	if (v >= 0)
		cJSON_AddNumberToObject(o, key, (double)v);
}

/* "NAME=QTY\n" lines as an object of strings; NULL when there are none. */
static cJSON *quantities(const char *lines)
{
	cJSON *o = NULL;
	const char *l, *eq, *nl;

	for (l = lines ? lines : ""; *l && (eq = strchr(l, '=')) && (nl = strchr(eq, '\n'));
	     l = nl + 1) {
		char *k = strndup(l, (size_t)(eq - l)), *v = strndup(eq + 1, (size_t)(nl - eq - 1));

		if (!o)
			o = cJSON_CreateObject();
		if (k && v)
			cJSON_AddStringToObject(o, k, v);
		free(k), free(v);
	}
	return o;
}

static cJSON *component_json(const struct dgd_component *k, const struct dgd_count *c)
{
	cJSON *o = cJSON_CreateObject(), *st = cJSON_CreateObject(), *res = cJSON_CreateObject();
	cJSON *lim = quantities(k->limits), *req = quantities(k->requests);

	cJSON_AddStringToObject(o, "name", k->name);
	cJSON_AddStringToObject(o, "type", k->type);
	if (k->replicas >= 0)
		cJSON_AddNumberToObject(o, "replicas", (double)k->replicas);
	else
		cJSON_AddNullToObject(o, "replicas");
	/* Counted for the worker components only (the pods listed). */
	if (c) {
		cJSON_AddNumberToObject(o, "runningPods", (double)c->running);
		add_count(o, "currentGenerationPods", c->current);
	}
	add_count(st, "replicas", k->st_replicas);
	add_count(st, "updatedReplicas", k->st_updated);
	add_count(st, "readyReplicas", k->st_ready);
	add_count(st, "availableReplicas", k->st_available);
	if (st->child)
		cJSON_AddItemToObject(o, "replicaStatus", st);
	else
		cJSON_Delete(st);
	if (lim)
		cJSON_AddItemToObject(res, "limits", lim);
	if (req)
		cJSON_AddItemToObject(res, "requests", req);
	if (res->child)
		cJSON_AddItemToObject(o, "resources", res);
	else
		cJSON_Delete(res);
	return o;
}

static cJSON *dgd_json(const struct dgd_info *d, size_t item, const struct dgd_findings *f)
{
	cJSON *o = cJSON_CreateObject(), *conds = cJSON_CreateArray();
	cJSON *comps = cJSON_CreateArray(), *finds = cJSON_CreateArray();
	char id[512], api[64];
	size_t i;

	snprintf(id, sizeof(id), "%.250s/%.250s", d->namespace, d->name);
	snprintf(api, sizeof(api), "nvidia.com/%.40s", d->version);
	cJSON_AddStringToObject(o, "namespace", d->namespace);
	cJSON_AddStringToObject(o, "name", d->name);
	cJSON_AddStringToObject(o, "apiVersion", api);
	cJSON_AddStringToObject(o, "state", d->state);
	cJSON_AddStringToObject(o, "workerHash", *d->worker_hash ? d->worker_hash : d->worker_hash_v2);
	cJSON_AddStringToObject(o, "status", worst(f, id));
	if (*d->skipped)
		cJSON_AddStringToObject(o, "skipped", d->skipped);
	for (i = 0; i < d->ncond; i++) {
		cJSON *c = cJSON_CreateObject();

		cJSON_AddStringToObject(c, "type", d->cond[i].type);
		cJSON_AddStringToObject(c, "status", d->cond[i].status);
		if (*d->cond[i].reason)
			cJSON_AddStringToObject(c, "reason", d->cond[i].reason);
		if (*d->cond[i].message)
			cJSON_AddStringToObject(c, "message", d->cond[i].message);
		cJSON_AddItemToArray(conds, c);
	}
	cJSON_AddItemToObject(o, "conditions", conds);
	for (i = 0; i < d->ncomp; i++)
		cJSON_AddItemToArray(comps, component_json(&d->comp[i], count_of(f, item, i)));
	cJSON_AddItemToObject(o, "components", comps);
	for (i = 0; f && i < f->n; i++) {
		cJSON *x;

		if (strcmp(f->items[i].dgd, id))
			continue;
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "status", check_status_name(f->items[i].status));
		cJSON_AddStringToObject(x, "check", dgd_check_def(f->items[i].check)->name);
		cJSON_AddStringToObject(x, "detail", f->items[i].detail);
		cJSON_AddItemToArray(finds, x);
	}
	cJSON_AddItemToObject(o, "findings", finds);
	return o;
}

cJSON *report_dgd_json(const struct report *r)
{
	cJSON *a;
	size_t i;

	if (!r->dgd)
		return NULL;
	a = cJSON_CreateArray();
	for (i = 0; i < r->dgd->n; i++)
		cJSON_AddItemToArray(a, dgd_json(&r->dgd->items[i], i, r->dgd_findings));
	return a;
}

static void dgd_labels(FILE *out, const char *metric, const struct dgd_info *d)
{
	fprintf(out, "dynamo_interconnect_%s{namespace=\"", metric);
	report_prom_value(out, d->namespace);
	fputs("\",dgd=\"", out);
	report_prom_value(out, d->name);
	fputc('"', out);
}

void report_prom_dgd(FILE *out, const struct report *r)
{
	static const char *const states[] = { "ok", "warn", "fail" };
	const struct dgd_findings *f = r->dgd_findings;
	size_t i, k;

	if (!r->dgd)
		return;
	report_prom_head(out, "dgd_status", "gauge",
			 "Worst DGD finding (checks.md P) of one DynamoGraphDeployment, 1 for the "
			 "status it has (ok, warn, fail).");
	for (i = 0; i < r->dgd->n; i++) {
		const struct dgd_info *d = &r->dgd->items[i];
		char id[512];

		snprintf(id, sizeof(id), "%.250s/%.250s", d->namespace, d->name);
		for (k = 0; k < 3; k++) {
			dgd_labels(out, "dgd_status", d);
			fprintf(out, ",status=\"%s\"} %d\n", states[k], !strcmp(worst(f, id), states[k]));
		}
	}
	report_prom_head(out, "dgd_component_running_pods", "gauge",
			 "Running pods of one worker component of a DynamoGraphDeployment.");
	for (i = 0; f && i < f->ncounts; i++) {
		const struct dgd_info *d = &r->dgd->items[f->counts[i].item];

		dgd_labels(out, "dgd_component_running_pods", d);
		fputs(",component=\"", out);
		report_prom_value(out, d->comp[f->counts[i].comp].name);
		fprintf(out, "\"} %ld\n", f->counts[i].running);
	}
}
