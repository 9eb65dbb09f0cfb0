/* Reading a pod object's JSON (pods.c, podspec.c): a string field, a path
 * of objects, a list's element by name.  Not for use outside kube/api/. */
#ifndef KUBE_PODJSON_H
#define KUBE_PODJSON_H

#include <string.h>

#include <cjson/cJSON.h>

/* o's string field key, or NULL. */
static inline const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Walks a.b.c through objects; NULL when any step is missing. */
static inline const cJSON *jpath(const cJSON *o, const char *const *keys)
{
	for (; o && *keys; keys++)
		o = cJSON_GetObjectItemCaseSensitive(o, *keys);
	return o;
}

/* The element of arr whose "name" is name, or NULL. */
static inline const cJSON *find_named(const cJSON *arr, const char *name)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, arr) {
		const char *n = jstr(it, "name");
		if (n && name && !strcmp(n, name))
			return it;
	}
	return NULL;
}

#endif
