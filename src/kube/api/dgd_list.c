/* The DynamoGraphDeployment list from the API server (kube/dgd.h
 * dgd_fetch, dgd_parse): the request (v1beta1, else v1alpha1), the list
 * walked item by item with each item's bounds, and the set kept.  One
 * item's object is read by dgd.c (dgd_int.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dgd.h"
#include "dgd_int.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* ---- The list, item by item (issue 37 item 5) -----------------------
 * A list is not parsed whole: a cJSON tree costs about 40 times its text
 * (a 60 MiB list held 2.5 GB).  The top-level object is walked key by key
 * and only the extent of each value measured; each item of "items" is
 * size-checked, parsed alone and its tree dropped before the next. */

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* One past the end of the JSON value at p, NULL when it does not end before
 * end.  Its extent only (strings with their escapes, nesting): cJSON checks
 * the text when it parses the value. */
static const char *value_end(const char *p, const char *end)
{
	size_t depth = 0;
	int in_str = 0;

	if (p < end && *p != '"' && *p != '{' && *p != '[') {
		while (p < end && *p && !strchr(",]} \t\r\n", *p))
			p++;
		return p;
	}
	for (; p < end; p++) {
		if (in_str && *p == '\\') {
			p++;
		} else if (in_str && *p == '"') {
			in_str = 0;
			if (!depth)
				return p + 1;
		} else if (in_str) {
			continue;
		} else if (*p == '"') {
			in_str = 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && --depth == 0) {
			return p + 1;
		}
	}
	return NULL;
}

/* 1 when the JSON string text [p, q) reads key (escapes decoded by cJSON). */
static int key_is(const char *p, const char *q, const char *key)
{
	cJSON *k = cJSON_ParseWithLength(p, (size_t)(q - p));
	int hit = cJSON_IsString(k) && !strcmp(k->valuestring, key);

	cJSON_Delete(k);
	return hit;
}

/* The value of key in the JSON object text at [p, end): its first byte,
 * *vend one past its last; NULL when the object has no such key, with
 * *bad set when the text is no JSON object. */
static const char *find_key(const char *p, const char *end, const char *key,
			    const char **vend, int *bad)
{
	*bad = 1;
	p = ws(p, end);
	if (p >= end || *p != '{')
		return NULL;
	for (p = ws(p + 1, end); p < end && *p != '}';) {
		const char *kend = *p == '"' ? value_end(p, end) : NULL, *v, *ve;

		if (!kend || (v = ws(kend, end)) >= end || *v != ':')
			return NULL;
		v = ws(v + 1, end);
		if (!(ve = value_end(v, end)) || ve == v)
			return NULL;
		if (key_is(p, kend, key)) {
			*bad = 0;
			*vend = ve;
			return v;
		}
		p = ws(ve, end);
		if (p < end && *p == ',')
			p = ws(p + 1, end);
		else if (p >= end || *p != '}')
			return NULL;
	}
	*bad = p >= end;
	return NULL;
}

#define REASON_PREFIX "DynamoGraphDeployment: "

/* d as a DGD not read: its namespace and name from o's metadata (or, with
 * no tree, from the item text's metadata when that is small), why. */
static void skipped(struct dgd_info *d, const char *p, const char *q, const cJSON *o,
		    size_t idx, const char *version, const char *why)
{
	cJSON *own = NULL;
	const char *mv, *me;
	int bad;

	if (!o && (mv = find_key(p, q, "metadata", &me, &bad)) && me - mv <= 65536)
		own = cJSON_ParseWithLength(mv, (size_t)(me - mv));
	if (!strncmp(why, REASON_PREFIX, strlen(REASON_PREFIX)))
		why += strlen(REASON_PREFIX);
	dgd_info_skipped(d, o ? cJSON_GetObjectItemCaseSensitive(o, "metadata") : own, idx,
			 version, why);
	cJSON_Delete(own);
}

/* Item idx of a list, the text [p, q), into d: read, or skipped with the
 * reason (a bad item is that item, never the list). */
static void list_item(const char *p, const char *q, size_t idx, const char *version,
		      struct dgd_info *d)
{
	cJSON *o = NULL;
	struct err ie;

	err_clear(&ie);
	if ((size_t)(q - p) > DGD_MAX_ITEM_BYTES)
		err_set(&ie, ERR_PROTOCOL, "larger than %u MiB (the API server's request limit), "
			"not read", DGD_MAX_ITEM_BYTES >> 20);
	else if (!(o = cJSON_ParseWithLength(p, (size_t)(q - p))))
		err_set(&ie, ERR_PROTOCOL, "not JSON");
	else if (dgd_read_item(o, version, d, &ie) == 0) {
		cJSON_Delete(o);
		return;
	} else
		dgd_info_release(d);
	skipped(d, p, q, o, idx, version, ie.msg);
	cJSON_Delete(o);
}

/* A body without "items": one DynamoGraphDeployment (GET by name). */
static int single(const char *body, size_t len, const char *version,
		  struct dgd_set *out, struct err *e)
{
	cJSON *root;
	int rc;

	if (len > DGD_MAX_ITEM_BYTES)
		return err_set(e, ERR_PROTOCOL, REASON_PREFIX "larger than %u MiB (the API server's "
			       "request limit), not read", DGD_MAX_ITEM_BYTES >> 20);
	if (!(root = cJSON_ParseWithLength(body, len)))
		return err_set(e, ERR_PROTOCOL, REASON_PREFIX "the answer is not JSON");
	out->items = xrealloc(out->items, (out->n + 1) * sizeof(*out->items));
	rc = dgd_read_item(root, version, &out->items[out->n++], e);
	cJSON_Delete(root);
	return rc;
}

int dgd_parse(const char *body, size_t len, const char *version,
	      struct dgd_set *out, struct err *e)
{
	const char *end = body + len, *p, *q, *ie;
	size_t idx;
	int bad;

	if (!(p = find_key(body, end, "items", &q, &bad)))
		return bad ? err_set(e, ERR_PROTOCOL, REASON_PREFIX "the answer is not a JSON object")
			   : single(body, len, version, out, e);
	if (*p != '[')
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeploymentList: items is not a list");
	for (idx = 0, p = ws(p + 1, q); p < q && *p != ']'; idx++) {
		if (!(ie = value_end(p, q)) || ie == p)
			return err_set(e, ERR_PROTOCOL, "DynamoGraphDeploymentList: items is not JSON");
		if (out->n >= DGD_MAX_ITEMS)
			return err_set(e, ERR_PROTOCOL, "more than %d DynamoGraphDeployments",
				       DGD_MAX_ITEMS);
		out->items = xrealloc(out->items, (out->n + 1) * sizeof(*out->items));
		list_item(p, ie, idx, version, &out->items[out->n++]);
		p = ws(ie, q);
		if (p < q && *p == ',')
			p = ws(p + 1, q);
		else if (p < q && *p != ']')
			return err_set(e, ERR_PROTOCOL, "DynamoGraphDeploymentList: items is not JSON");
	}
	return 0;
}

void dgd_set_keep(struct dgd_set *s, const unsigned char *keep)
{
	size_t i, n = 0;

	/* one pass: dropping one at a time moved the tail each time, quadratic
	 * in a list of 50,000 */
	for (i = 0; i < s->n; i++) {
		if (keep[i])
			s->items[n++] = s->items[i];
		else
			dgd_info_release(&s->items[i]);
	}
	s->n = n;
}

void dgd_set_release(struct dgd_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		dgd_info_release(&s->items[i]);
	free(s->items);
	memset(s, 0, sizeof(*s));
}

static char *path_for(const char *version, const char *ns, int all_ns, const char *name)
{
	char *ens = http_escape(ns ? ns : "default"), *ename = name ? http_escape(name) : NULL;
	char *p;

	if (all_ns && !name)
		p = xasprintf("/apis/nvidia.com/%s/dynamographdeployments", version);
	else
		p = xasprintf("/apis/nvidia.com/%s/namespaces/%s/dynamographdeployments%s%s",
			      version, ens, ename ? "/" : "", ename ? ename : "");
	free(ens), free(ename);
	return p;
}

/* The API server's answer for a group/version it does not serve (as
 * claims.c tells a missing version from a missing object). */
static int generic_404(const struct http_response *r, const struct err *e)
{
	return r->status == 404 && strstr(e->msg, "could not find the requested resource");
}

int dgd_fetch(struct http_client *c, const char *ns, int all_ns,
	      const char *name, struct dgd_set *out, struct err *e)
{
	static const char *const versions[] = { "v1beta1", "v1alpha1" };
	size_t v;

	memset(out, 0, sizeof(*out));
	for (v = 0; v < 2; v++) {
		char *path = path_for(versions[v], ns, all_ns, name);
		struct http_response resp;
		struct err ge;
		int rc;

		memset(&resp, 0, sizeof(resp));
		err_clear(&ge);
		rc = http_get(c, path, &resp, &ge);
		free(path);
		if (rc == 0) {
			if (dgd_parse(buf_str(&resp.body), resp.body.len, versions[v], out, &ge) < 0) {
				dgd_set_release(out);
				out->access = DGD_UNREAD;
				snprintf(out->note, sizeof(out->note), "%.200s", ge.msg);
			}
			http_response_release(&resp);
			return 0;
		}
		http_response_release(&resp);
		if (generic_404(&resp, &ge))
			continue;
		if (resp.status == 404 && name)
			return err_set(e, ERR_API, "DynamoGraphDeployment \"%s\" not found", name);
		out->access = resp.status == 403 ? DGD_FORBIDDEN : DGD_UNREAD;
		snprintf(out->note, sizeof(out->note), "%.200s", ge.msg);
		return 0;
	}
	out->access = DGD_NO_API;
	if (name)
		return err_set(e, ERR_API, "DynamoGraphDeployment \"%s\": the server has no "
			       "nvidia.com DynamoGraphDeployment API", name);
	return 0;
}
