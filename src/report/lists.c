/* Documents other than the InterconnectReport: the worker pod list of
 * `pods`, as a table or as JSON/YAML. */
#include <time.h>

#include "report.h"
#include "table.h"

static void add_str(cJSON *o, const char *k, const char *v)
{
	cJSON_AddItemToObject(o, k, v && *v ? cJSON_CreateString(v) : cJSON_CreateNull());
}

static cJSON *pod_item(const struct pod_info *p)
{
	cJSON *o = cJSON_CreateObject();
	char ts[32] = "";
	struct tm tm;

	add_str(o, "name", p->name);
	add_str(o, "namespace", p->namespace);
	add_str(o, "role", p->role);
	add_str(o, "graph", p->graph);
	add_str(o, "node", p->node);
	add_str(o, "nodeIP", p->node_ip);
	add_str(o, "podIP", p->pod_ip);
	add_str(o, "container", p->container);
	add_str(o, "image", p->image);
	add_str(o, "phase", p->phase);
	add_str(o, "status", p->status);
	/* metav1.Time's RFC 3339 form, as creationTimestamp is in the API. */
	if (p->created && gmtime_r(&p->created, &tm))
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	add_str(o, "creationTimestamp", ts);
	cJSON_AddBoolToObject(o, "probe", p->probe);
	add_str(o, "skipReason", p->skip_reason);
	return o;
}

cJSON *report_pods_json(const struct pod_list *l)
{
	cJSON *doc = cJSON_CreateObject(), *items = cJSON_CreateArray();

	cJSON_AddStringToObject(doc, "apiVersion", "dynamo-interconnect/v1");
	cJSON_AddStringToObject(doc, "kind", "WorkerPodList");
	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(items, pod_item(&l->items[i]));
	cJSON_AddItemToObject(doc, "items", items);
	return doc;
}

void report_print_pods(FILE *out, const struct pod_list *l, int all_ns, int wide,
		       int no_headers)
{
	static const char *const h[] = { "NAMESPACE", "POD", "ROLE", "NODE", "CONTAINER",
					 "STATUS", "AGE", "IP", "IMAGE" };
	int first = all_ns ? 0 : 1, ncols = (wide ? 9 : 7) - first;
	struct table *t = table_new(ncols, h + first);
	time_t now = time(NULL);
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct pod_info *p = &l->items[i];
		char age[32];
		const char *row[9];
		table_age(p->created, now, age, sizeof(age));
		row[0] = p->namespace, row[1] = p->name, row[2] = p->role;
		row[3] = p->node, row[4] = p->container, row[5] = p->status;
		row[6] = age, row[7] = p->pod_ip, row[8] = p->image;
		table_add_row(t, row + first);
	}
	table_print(t, out, no_headers);
	table_free(t);
}
