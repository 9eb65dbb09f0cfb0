#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "table.h"
#include "../check/links.h"
#include "../util/safe.h"
#include "../util/xalloc.h"

#define MAX_COLS 24
#define FIX_INDENT 5     /* a wrapped fix line, as under check's findings */

/* TRANSFER and OBSERVED are columns only when a pod has such a result
 * (check --transfer, --observe): the table without them stays as it was.
 * One bit per family shown. */
static int any_transfer(const struct report *r)
{
	size_t i, k;
	int shown = 0;

	for (i = 0; i < r->n; i++)
		for (k = 0; k < r->pods[i].results.n; k++)
			if (r->pods[i].results.v[k].family == FAM_TRANSFER ||
			    r->pods[i].results.v[k].family == FAM_OBSERVED)
				shown |= 1 << r->pods[i].results.v[k].family;
	return shown;
}

/* xfer: any_transfer()'s bits (OBSERVED likewise: check --observe). */
static int hidden(enum check_family f, int xfer)
{
	return (f == FAM_TRANSFER || f == FAM_OBSERVED) && !(xfer & (1 << f));
}

static int headers(const struct report *r, const struct report_style *st,
		   int xfer, const char **h)
{
	int n = 0;
	size_t i;

	if (r->all_namespaces)
		h[n++] = "NAMESPACE";
	h[n++] = "POD";
	h[n++] = "ROLE";
	h[n++] = "NODE";
	for (i = 0; i < report_ncolumns; i++)
		if (!hidden(report_columns[i], xfer))
			h[n++] = report_column_name(report_columns[i]);
	if (st->wide) {
		/* Not "UCX"/"NIXL": those are family columns already. */
		h[n++] = "CONTAINER";
		h[n++] = "NODE-IP";
		h[n++] = "UCX-VERSION";
		h[n++] = "NIXL-VERSION";
		h[n++] = "IMAGE";
	}
	h[n++] = "VERDICT";
	return n;
}

/* One pod's cells into c[] and their colours into sgr[] (NULL without
 * colour); returns the number of cells. */
static int row(const struct report *r, size_t at,
	       const struct report_style *st, int xfer, const char **c,
	       const char **sgr)
{
	const struct run_pod *p = &r->pods[at];
	const struct pod_info *pod = p->pod;
	enum verdict_status verdict = report_pod_verdict(r, at);
	int n = 0;
	size_t i;

	memset(sgr, 0, MAX_COLS * sizeof(*sgr));
	if (r->all_namespaces)
		c[n++] = pod->namespace;
	c[n++] = pod->name;
	c[n++] = pod->role;
	c[n++] = pod->node;
	for (i = 0; i < report_ncolumns; i++) {
		int s;
		if (hidden(report_columns[i], xfer))
			continue;
		s = report_family_status(p, report_columns[i]);
		if (st->color)
			sgr[n] = report_status_sgr(s);
		c[n++] = s < 0 ? "-" : check_status_name((enum check_status)s);
	}
	if (st->wide) {
		c[n++] = pod->container;
		c[n++] = pod->node_ip;
		c[n++] = p->results.summary.ucx_version;
		c[n++] = p->results.summary.nixl_version;
		c[n++] = pod->image;
	}
	if (st->color)
		sgr[n] = report_status_sgr(report_verdict_color(verdict));
	c[n++] = report_verdict_token(verdict);
	return n;
}

/* The default table's cells of pod at (POD, ROLE, NODE when with_node,
 * VERDICT, and its NOT OK cell, filled by report_brief_fit()), its family
 * statuses into fam. */
static int brief_row(const struct report *r, size_t at, const struct report_style *st,
		     int with_node, const char **c, const char **sgr, int *fam)
{
	const struct run_pod *p = &r->pods[at];
	enum verdict_status verdict = report_pod_verdict(r, at);
	int n = 0;

	memset(sgr, 0, MAX_COLS * sizeof(*sgr));
	for (size_t i = 0; i < report_ncolumns; i++)
		fam[i] = report_family_status(p, report_columns[i]);
	if (r->all_namespaces)
		c[n++] = p->pod->namespace;
	c[n++] = p->pod->name;
	c[n++] = p->pod->role;
	if (with_node)
		c[n++] = p->pod->node;
	if (st->color)
		sgr[n] = report_status_sgr(report_verdict_color(verdict));
	c[n++] = report_verdict_token(verdict);
	if (st->color)
		sgr[n] = report_status_sgr(report_brief_worst(fam, report_ncolumns));
	c[n++] = "-";
	return n;
}

static int in_group(const struct report *r, size_t i, const char *g, int all)
{
	const char *pg = r->group ? r->group[i] : NULL;

	return all || (g ? pg && !strcmp(pg, g) : pg == NULL);
}

/* The default table, fitted to the width (80 off a terminal); NODE only
 * where it fits. */
static struct table *brief_table(const struct report *r, const struct report_style *st,
				 const char *g, int all, int with_node)
{
	const char *h[MAX_COLS], *c[MAX_COLS], *sgr[MAX_COLS];
	int (*fam)[REPORT_MAX_FAMS] = xcalloc(r->n ? r->n : 1, sizeof(*fam));
	size_t rows = 0;
	int n = 0;
	struct table *t;

	if (r->all_namespaces)
		h[n++] = "NAMESPACE";
	h[n++] = "POD";
	h[n++] = "ROLE";
	if (with_node)
		h[n++] = "NODE";
	h[n++] = "VERDICT";
	h[n++] = "NOT OK";
	t = table_new(n, h);
	for (size_t i = 0; i < r->n; i++)
		if (in_group(r, i, g, all)) {
			brief_row(r, i, st, with_node, c, sgr, fam[rows++]);
			table_add_row_sgr(t, c, sgr);
		}
	if (!report_brief_fit(t, (const int (*)[REPORT_MAX_FAMS])fam,
			      st->width ? st->width : 80, st->no_headers) && with_node) {
		table_free(t);
		t = brief_table(r, st, g, all, 0);
	}
	free(fam);
	return t;
}

/* The rows of the pods whose group is g (NULL: of none), or all. */
static void table_of(FILE *out, const struct report *r, const struct report_style *st,
		     const char *g, int all)
{
	const char *h[MAX_COLS], *c[MAX_COLS], *sgr[MAX_COLS];
	int xfer = any_transfer(r);
	struct table *t;

	if (!st->wide) {
		t = brief_table(r, st, g, all, 1);
	} else {
		t = table_new(headers(r, st, xfer, h), h);
		for (size_t i = 0; i < r->n; i++)
			if (in_group(r, i, g, all)) {
				row(r, i, st, xfer, c, sgr);
				table_add_row_sgr(t, c, sgr);
			}
	}
	table_print(t, out, st->no_headers);
	table_free(t);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* check -A with DGDs read: one table per DGD under its name, by name,
 * then the pods of none. */
static void grouped(FILE *out, const struct report *r, const struct report_style *st)
{
	const char **names = calloc(r->n + 1, sizeof(*names));
	size_t i, j, n = 0;

	if (!names)
		return;
	for (i = 0; i < r->n; i++) {
		for (j = 0; r->group[i] && j < n && strcmp(names[j], r->group[i]); j++)
			;
		if (r->group[i] && j == n)
			names[n++] = r->group[i];
	}
	qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		if (!st->no_headers)
			fprintf(out, "%sDynamoGraphDeployment %s:\n", i ? "\n" : "", safe_show(names[i]));
		table_of(out, r, st, names[i], 0);
	}
	for (i = 0; i < r->n && r->group[i]; i++)
		;
	if (i < r->n) {
		if (!st->no_headers)
			fprintf(out, "\nPods of no DynamoGraphDeployment:\n");
		table_of(out, r, st, NULL, 0);
	}
	free(names);
}

void report_print_table(FILE *out, const struct report *r,
			const struct report_style *st)
{
	if (r->group)
		grouped(out, r, st);
	else
		table_of(out, r, st, NULL, 1);
}

void report_print_checks(FILE *out, const struct check_results *res,
			 const struct report_style *st)
{
	const char *h[] = { "CHECK", "FAMILY", "STATUS", "DETAIL" };
	struct table *t = table_new(4, h);
	size_t i;

	for (i = 0; i < res->n; i++) {
		const struct check_result *c = &res->v[i];
		const char *cells[4] = { c->name, check_family_name(c->family),
					 check_status_name(c->status), c->detail };
		table_add_row(t, cells);
	}
	table_print_wrapped(t, out, st->no_headers, st->width);
	table_free(t);
	for (i = 0; i < res->n; i++)
		if (report_has_fix(res->v[i].status, res->v[i].remedy)) {
			char lead[128];

			snprintf(lead, sizeof(lead), "%s: fix: ", res->v[i].name);
			report_wrap(out, lead, table_text_width(lead), res->v[i].remedy,
				    FIX_INDENT, st->width);
		}
}

/* ---- JSON (product.md field names; stable across versions) ---- */

static cJSON *str_or_null(const char *s)
{
	return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* "NAME=value" as {"NAME": "value"}: an object, so that more variables
 * can join without changing its type. */
static cJSON *suggest_json(const char *s)
{
	cJSON *o = cJSON_CreateObject();
	const char *eq = strchr(s, '=');
	char name[64];

	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - s) : 0, s);
	cJSON_AddStringToObject(o, name, eq ? eq + 1 : "");
	return o;
}

/* One check; cause: the failed check it follows from (check_cause), or
 * NULL when it is a root or fine. */
static cJSON *check_json(const struct check_result *c, const char *cause)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "family", check_family_name(c->family));
	cJSON_AddStringToObject(o, "status", check_status_name(c->status));
	cJSON_AddStringToObject(o, "detail", c->detail ? c->detail : "");
	cJSON_AddItemToObject(o, "remedy", str_or_null(c->remedy));
	cJSON_AddBoolToObject(o, "applicable", !(c->flags & CHECK_F_NA));
	/* "--flag=value": an argument the engine reads (SGLang's
	 * --disaggregation-ib-device), not a variable */
	if (c->suggest)
		cJSON_AddItemToObject(o, report_suggest_is_arg(c->suggest) ? "suggestedArgs" :
				      "suggestedEnv", suggest_json(c->suggest));
	if (cause)
		cJSON_AddStringToObject(o, "cause", cause);
	return o;
}

/* The KV path link by link (check/links.h): name, status, source, detail. */
static cJSON *links_json(const struct check_results *r)
{
	struct check_link l[LINK__COUNT];
	size_t n = check_links(r, l);
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "name", l[i].name);
		cJSON_AddStringToObject(x, "status", check_link_status_name(l[i].status));
		cJSON_AddItemToObject(x, "check", str_or_null(l[i].check));
		cJSON_AddItemToObject(x, "source", str_or_null(l[i].source));
		cJSON_AddStringToObject(x, "detail", l[i].detail);
		cJSON_AddItemToArray(a, x);
	}
	return a;
}

static cJSON *ports_json(const struct check_gpu_nic_port *v, int n)
{
	cJSON *a = cJSON_CreateArray();

	for (int i = 0; i < n && i < CHECK_GPU_NIC_PORTS; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "device", v[i].dev);
		cJSON_AddStringToObject(x, "state", v[i].state);
		cJSON_AddStringToObject(x, "linkLayer", v[i].link_layer);
		cJSON_AddItemToArray(a, x);
	}
	return a;
}

/* ucx-nic-select's per-GPU NICs (check.h struct check_gpu_nic). */
static cJSON *gpu_nics_json(const struct check_results *r)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < r->n_gpu_nics; i++) {
		const struct check_gpu_nic *e = &r->gpu_nics[i];
		cJSON *x = cJSON_CreateObject();

		cJSON_AddNumberToObject(x, "gpu", e->gpu);
		if (e->numa >= 0)
			cJSON_AddNumberToObject(x, "numa", e->numa);
		else
			cJSON_AddNullToObject(x, "numa");
		cJSON_AddItemToObject(x, "link", str_or_null(e->link));
		cJSON_AddStringToObject(x, "chosenBy", e->chosen_by);
		cJSON_AddNumberToObject(x, "maxRails", e->max_rails);
		cJSON_AddItemToObject(x, "nics", ports_json(e->nic, e->n < 0 ? CHECK_GPU_NIC_PORTS : e->n));
		cJSON_AddBoolToObject(x, "truncated", e->n < 0 || e->nsugg < 0);
		if (e->nsugg) {
			cJSON_AddItemToObject(x, "suggested", ports_json(e->sugg,
				e->nsugg < 0 ? CHECK_GPU_NIC_PORTS : e->nsugg));
			cJSON_AddItemToObject(x, "suggestedLink", str_or_null(e->sugg_link));
		}
		cJSON_AddItemToArray(a, x);
	}
	return a;
}

/* {"vllm": "0.11.0", "ai_dynamo": "1.0.0rc5"}: the wheels the probe
 * listed, names and versions only (docs/product.md). */
static cJSON *engines_json(const struct check_summary *s)
{
	cJSON *o = cJSON_CreateObject();

	for (int i = 0; i < s->nengines; i++)
		cJSON_AddStringToObject(o, s->engines[i].name, s->engines[i].version);
	return o;
}

static cJSON *pod_json(const struct run_pod *p, enum verdict_status verdict)
{
	const struct pod_info *pod = p->pod;
	cJSON *o = cJSON_CreateObject(), *checks = cJSON_CreateArray();
	char *line;
	size_t i;

	cJSON_AddStringToObject(o, "name", pod->name);
	cJSON_AddStringToObject(o, "namespace", pod->namespace);
	cJSON_AddStringToObject(o, "role", pod->role);
	cJSON_AddStringToObject(o, "node", pod->node);
	cJSON_AddStringToObject(o, "nodeIP", pod->node_ip);
	cJSON_AddStringToObject(o, "podIP", pod->pod_ip);
	cJSON_AddStringToObject(o, "container", pod->container);
	cJSON_AddStringToObject(o, "image", pod->image);
	cJSON_AddStringToObject(o, "phase", pod->phase);
	cJSON_AddBoolToObject(o, "probed", p->probed);
	line = p->probed ? NULL : reason_line(&p->reason);
	cJSON_AddItemToObject(o, "error", str_or_null(line));
	free(line);
	cJSON_AddStringToObject(o, "verdict", verdict_name(verdict));
	cJSON_AddStringToObject(o, "fabric", fabric_name(p->results.fabric));
	cJSON_AddItemToObject(o, "ucxVersion", str_or_null(p->results.summary.ucx_version));
	cJSON_AddItemToObject(o, "nixlVersion", str_or_null(p->results.summary.nixl_version));
	for (i = 0; i < p->results.n; i++)
		cJSON_AddItemToArray(checks, check_json(&p->results.v[i],
							check_cause(&p->results, i)));
	cJSON_AddItemToObject(o, "checks", checks);
	cJSON_AddItemToObject(o, "links", links_json(&p->results));
	if (p->results.n_gpu_nics)
		cJSON_AddItemToObject(o, "gpuNics", gpu_nics_json(&p->results));
	if (p->probed && p->results.summary.model.state[0])
		cJSON_AddItemToObject(o, "model", report_model_json(&p->results.summary.model));
	if (p->probed && p->results.summary.nengines)
		cJSON_AddItemToObject(o, "engines", engines_json(&p->results.summary));
	if (p->cost.bytes)
		cJSON_AddItemToObject(o, "probe", report_probe_json(p));
	return o;
}

static cJSON *verdict_json(const struct verdict *v)
{
	cJSON *o = cJSON_CreateObject(), *fs = cJSON_CreateArray();
	size_t i;

	cJSON_AddStringToObject(o, "status", verdict_name(v->status));
	cJSON_AddNumberToObject(o, "exitCode", v->exit_code);
	cJSON_AddItemToObject(o, "fixFirst", str_or_null(v->fix_first));
	cJSON_AddItemToObject(o, "unconfirmed", str_or_null(v->unconfirmed));
	cJSON_AddStringToObject(o, "fabric", fabric_name(v->fabric));
	cJSON_AddNumberToObject(o, "pods", (double)v->npods);
	cJSON_AddNumberToObject(o, "probed", (double)v->nprobed);
	cJSON_AddNumberToObject(o, "ready", (double)v->nready);
	cJSON_AddNumberToObject(o, "warnings", (double)v->nwarnings);
	for (i = 0; i < v->nfindings; i++) {
		const struct verdict_finding *f = &v->findings[i];
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "name", f->name);
		cJSON_AddStringToObject(x, "family", check_family_name(f->family));
		cJSON_AddStringToObject(x, "status", check_status_name(f->status));
		cJSON_AddStringToObject(x, "detail", f->text);
		cJSON_AddItemToObject(x, "remedy", str_or_null(f->remedy));
		if (f->npods)
			cJSON_AddItemToObject(x, "pods", cJSON_CreateStringArray(
				(const char *const *)f->pods, (int)f->npods));
		if (f->nnodes)
			cJSON_AddItemToObject(x, "nodes", cJSON_CreateStringArray(
				(const char *const *)f->nodes, (int)f->nnodes));
		if (f->nfolded)
			cJSON_AddItemToObject(x, "folded", cJSON_CreateStringArray(
				f->folded, (int)f->nfolded));
		cJSON_AddItemToArray(fs, x);
	}
	cJSON_AddItemToObject(o, "findings", fs);
	return o;
}

/* "source": when, by which plugin and probe, against which cluster and
 * scope (schema: InterconnectReport.source). */
static cJSON *source_json(const struct report_source *s)
{
	cJSON *o = cJSON_CreateObject(), *scope = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "generated", str_or_null(s->generated));
	cJSON_AddItemToObject(o, "pluginVersion", str_or_null(s->version));
	cJSON_AddItemToObject(o, "probeScriptSHA256", str_or_null(s->probe_sha256));
	cJSON_AddItemToObject(o, "context", str_or_null(s->context));
	cJSON_AddItemToObject(o, "server", str_or_null(s->server));
	cJSON_AddBoolToObject(scope, "allNamespaces", s->all_namespaces);
	cJSON_AddItemToObject(scope, "namespace",
			      str_or_null(s->all_namespaces ? NULL : s->namespace));
	cJSON_AddItemToObject(o, "scope", scope);
	return o;
}

cJSON *report_json_head(const struct report *r)
{
	cJSON *doc = cJSON_CreateObject();

	cJSON_AddStringToObject(doc, "apiVersion", "dynamo-interconnect/v1");
	cJSON_AddStringToObject(doc, "kind", "InterconnectReport");
	if (r->source)
		cJSON_AddItemToObject(doc, "source", source_json(r->source));
	cJSON_AddItemToObject(doc, "verdict", verdict_json(r->verdict));
	if (r->dgd_note)
		cJSON_AddStringToObject(doc, "dynamoGraphDeploymentsNote", r->dgd_note);
	return doc;
}

cJSON *report_json_pod(const struct report *r, size_t i)
{
	return pod_json(&r->pods[i], report_pod_verdict(r, i));
}

cJSON *report_json(const struct report *r)
{
	cJSON *doc = report_json_head(r), *pods = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < r->n; i++)
		cJSON_AddItemToArray(pods, report_json_pod(r, i));
	cJSON_AddItemToObject(doc, "pods", pods);
	cJSON_AddItemToObject(doc, "nodes", report_nodes_json(r));
	if (r->dgd)
		cJSON_AddItemToObject(doc, "dynamoGraphDeployments", report_dgd_json(r));
	return doc;
}
