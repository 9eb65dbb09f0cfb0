/* The "model" object of a pod in the JSON/YAML report (issue 41): the
 * served model's config.json facts the probe sent, as the engine pair
 * rules saw them (docs/report-format.md). Only the fixed fields: the
 * model's path or hub id never reached the plugin. */
#include <cjson/cJSON.h>

#include "report_int.h"

/* A 0/1 marker as a boolean, -1 (the file did not say) as null. */
static void add_flag(cJSON *o, const char *key, int v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddBoolToObject(o, key, v);
}

static void add_count(cJSON *o, const char *key, int v)
{
	if (v < 0)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static void add_word(cJSON *o, const char *key, const char *v)
{
	if (*v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

cJSON *report_model_json(const struct check_model *m)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "state", m->state);
	add_word(o, "source", m->source);
	add_word(o, "type", m->type);
	add_word(o, "architecture", m->architecture);
	add_flag(o, "slidingWindow", m->sliding_window);
	add_flag(o, "hybridLinear", m->hybrid_linear);
	add_flag(o, "mla", m->mla);
	add_count(o, "kvHeads", m->kv_heads);
	add_count(o, "layers", m->layers);
	return o;
}
