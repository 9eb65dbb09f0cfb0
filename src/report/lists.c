/* Documents other than the InterconnectReport: the worker pod list of
 * `pods -o json|yaml`. */
#include <time.h>

#include "report.h"

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
