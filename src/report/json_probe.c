/* The "probe" object of a pod in the JSON/YAML report (issue 46): what the
 * probe cost in that pod (docs/report-format.md). */
#include <cjson/cJSON.h>

#include "report_int.h"

static void add_ms(cJSON *o, const char *key, long v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)v);
}

cJSON *report_probe_json(const struct run_pod *p)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "bytes", (double)p->cost.bytes);
	add_ms(o, "durationMs", p->cost.wall_ms);
	add_ms(o, "cpuMs", p->cost.cpu_ms);
	return o;
}
