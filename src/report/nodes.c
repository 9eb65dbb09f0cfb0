/* The per-node view (check --by-node, and "nodes" in -o json): RDMA and
 * GPUDirect faults are node faults, so one row per node with the worst
 * status of each family among that node's pods. */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "table.h"
#include "util/xalloc.h"

#define MAX_FAMS REPORT_MAX_FAMS
#define MAX_NODE_COLS (MAX_FAMS + 4)

/* ok < skipped < warn < fail, as check_results_family_status() ranks them. */
static int worse(int a, int b)
{
	static const int sev[] = { 1, 3, 4, 2 };
	int sa = a < 0 ? 0 : sev[a], sb = b < 0 ? 0 : sev[b];

	return sb > sa ? b : a;
}

static enum verdict_status worse_verdict(enum verdict_status a, enum verdict_status b)
{
	static const int sev[] = { 0, 2, 1 };   /* READY, NOT READY, UNVERIFIED */

	return sev[b] > sev[a] ? b : a;
}

static const char *node_of(const struct run_pod *p)
{
	return p->pod->node ? p->pod->node : "";
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct report_node *)a)->name, ((const struct report_node *)b)->name);
}

struct report_node *report_nodes_collect(const struct report *r, size_t *n)
{
	struct report_node *v = xcalloc(r->n ? r->n : 1, sizeof(*v));
	size_t nv = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct run_pod *p = &r->pods[i];
		struct report_node *row = NULL;

		for (size_t k = 0; k < nv && !row; k++)
			if (!strcmp(v[k].name, node_of(p)))
				row = &v[k];
		if (!row) {
			row = &v[nv++];
			row->name = node_of(p);
			row->verdict = VERDICT_READY;
			for (size_t f = 0; f < MAX_FAMS; f++)
				row->fam[f] = -1;
		}
		row->npods++;
		row->verdict = worse_verdict(row->verdict, report_pod_verdict(r, i));
		for (size_t f = 0; f < report_ncolumns && f < MAX_FAMS; f++)
			row->fam[f] = worse(row->fam[f],
					    report_family_status(p, report_columns[f]));
	}
	qsort(v, nv, sizeof(*v), by_name);
	*n = nv;
	return v;
}

/* TRANSFER and OBSERVED only when some node has such a result, as in the
 * pod table. */
int report_node_family_shown(const struct report_node *v, size_t n, size_t f)
{
	if (report_columns[f] != FAM_TRANSFER && report_columns[f] != FAM_OBSERVED)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (v[i].fam[f] >= 0)
			return 1;
	return 0;
}

/* The default view: NODE, PODS, VERDICT and the NOT OK cell (brief.c),
 * fitted to the width as the pod table is. */
static struct table *brief_nodes(const struct report_node *v, size_t n,
				 const struct report_style *st)
{
	const char *h[] = { "NODE", "PODS", "VERDICT", "NOT OK" }, *sgr[4] = { 0 };
	int (*fam)[REPORT_MAX_FAMS] = xcalloc(n ? n : 1, sizeof(*fam));
	struct table *t = table_new(4, h);
	char npods[24];

	for (size_t i = 0; i < n; i++) {
		const char *c[4] = { v[i].name, npods, report_verdict_token(v[i].verdict), "-" };

		memcpy(fam[i], v[i].fam, sizeof(fam[i]));
		snprintf(npods, sizeof(npods), "%zu", v[i].npods);
		if (st->color) {
			sgr[2] = report_status_sgr(report_verdict_color(v[i].verdict));
			sgr[3] = report_status_sgr(report_brief_worst(fam[i], report_ncolumns));
		}
		table_add_row_sgr(t, c, sgr);
	}
	report_brief_fit(t, (const int (*)[REPORT_MAX_FAMS])fam, st->width ? st->width : 80,
			 st->no_headers);
	free(fam);
	return t;
}

/* -o wide: every family's column. */
static struct table *wide_nodes(const struct report_node *v, size_t n,
				const struct report_style *st)
{
	const char *h[MAX_NODE_COLS], *c[MAX_NODE_COLS], *sgr[MAX_NODE_COLS];
	char npods[24];
	size_t f;
	struct table *t;
	int nc = 0;

	h[nc++] = "NODE";
	h[nc++] = "PODS";
	for (f = 0; f < report_ncolumns && f < MAX_FAMS; f++)
		if (report_node_family_shown(v, n, f))
			h[nc++] = report_column_name(report_columns[f]);
	h[nc++] = "VERDICT";
	t = table_new(nc, h);
	for (size_t i = 0; i < n; i++) {
		int k = 0;

		memset(sgr, 0, sizeof(sgr));
		snprintf(npods, sizeof(npods), "%zu", v[i].npods);
		c[k++] = v[i].name;
		c[k++] = npods;
		for (f = 0; f < report_ncolumns && f < MAX_FAMS; f++) {
			if (!report_node_family_shown(v, n, f))
				continue;
			if (st->color)
				sgr[k] = report_status_sgr(v[i].fam[f]);
			c[k++] = v[i].fam[f] < 0 ? "-" : check_status_name((enum check_status)v[i].fam[f]);
		}
		if (st->color)
			sgr[k] = report_status_sgr(report_verdict_color(v[i].verdict));
		c[k++] = report_verdict_token(v[i].verdict);
		table_add_row_sgr(t, c, sgr);
	}
	return t;
}

void report_print_nodes(FILE *out, const struct report *r, const struct report_style *st)
{
	size_t n;
	struct report_node *v = report_nodes_collect(r, &n);
	struct table *t = st->wide ? wide_nodes(v, n, st) : brief_nodes(v, n, st);

	table_print(t, out, st->no_headers);
	table_free(t);
	free(v);
}

cJSON *report_nodes_json(const struct report *r)
{
	size_t n;
	struct report_node *v = report_nodes_collect(r, &n);
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject(), *fams = cJSON_CreateObject();
		cJSON *names = cJSON_CreateArray();

		cJSON_AddItemToObject(o, "name", *v[i].name ? cJSON_CreateString(v[i].name)
							   : cJSON_CreateNull());
		cJSON_AddNumberToObject(o, "pods", (double)v[i].npods);
		for (size_t p = 0; p < r->n; p++)
			if (!strcmp(node_of(&r->pods[p]), v[i].name))
				cJSON_AddItemToArray(names, cJSON_CreateString(r->pods[p].pod->name));
		cJSON_AddItemToObject(o, "podNames", names);
		for (size_t f = 0; f < report_ncolumns && f < MAX_FAMS; f++)
			if (v[i].fam[f] >= 0)
				cJSON_AddStringToObject(fams, check_family_name(report_columns[f]),
							check_status_name((enum check_status)v[i].fam[f]));
		cJSON_AddItemToObject(o, "families", fams);
		cJSON_AddStringToObject(o, "verdict", verdict_name(v[i].verdict));
		cJSON_AddItemToArray(arr, o);
	}
	free(v);
	return arr;
}
