/* Native sidecars seen as containers (sidecar.h). */
#include "sidecar.h"

#include <string.h>

static cJSON *named(cJSON *arr, const char *name)
{
	cJSON *it;

	cJSON_ArrayForEach(it, arr) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(it, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return it;
	}
	return NULL;
}

/* obj[key], created as an empty array when absent; NULL when it is there
 * but is not an array. */
static cJSON *array_at(cJSON *obj, const char *key)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);

	if (!a && cJSON_IsObject(obj)) {
		a = cJSON_CreateArray();
		cJSON_AddItemToObject(obj, key, a);
	}
	return cJSON_IsArray(a) ? a : NULL;
}

const char *sidecar_expose(cJSON *pod, const char *name)
{
	cJSON *spec = cJSON_GetObjectItemCaseSensitive(pod, "spec");
	cJSON *status = cJSON_GetObjectItemCaseSensitive(pod, "status");
	cJSON *init = named(cJSON_GetObjectItemCaseSensitive(spec, "initContainers"), name);
	cJSON *init_st, *policy, *containers, *statuses;

	if (!init || named(cJSON_GetObjectItemCaseSensitive(spec, "containers"), name))
		return NULL;
	policy = cJSON_GetObjectItemCaseSensitive(init, "restartPolicy");
	if (!cJSON_IsString(policy) || strcmp(policy->valuestring, "Always"))
		return "it is an init container: it runs to completion before the "
		       "pod's containers start (only native sidecars, restartPolicy: "
		       "Always, keep running to be probed)";
	containers = array_at(spec, "containers");
	if (containers)
		cJSON_AddItemToArray(containers, cJSON_Duplicate(init, 1));
	init_st = named(cJSON_GetObjectItemCaseSensitive(status, "initContainerStatuses"), name);
	statuses = init_st && cJSON_IsObject(status) ? array_at(status, "containerStatuses") : NULL;
	if (statuses)
		cJSON_AddItemToArray(statuses, cJSON_Duplicate(init_st, 1));
	return NULL;
}
