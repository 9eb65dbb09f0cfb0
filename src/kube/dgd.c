/* DynamoGraphDeployments from the API server (kube/dgd.h).  The shapes
 * read are the operator's (ai-dynamo/dynamo deploy/cloud/operator/api):
 * v1alpha1 spec.services{NAME: {componentType, replicas, envs}} with the
 * graph-wide spec.envs under them; v1beta1 spec.components[] {name,
 * componentType, replicas, podTemplate.spec.containers[].env}.  The CR is
 * untrusted: every field is type-checked and the lists are bounded. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dgd.h"
#include "../util/buf.h"
#include "../util/xalloc.h"

#define ANN_HASH "nvidia.com/current-worker-hash"
#define ANN_HASH_V2 "nvidia.com/current-worker-hash-v2"
#define ENV_CAP (1u << 20)

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

static char *str(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return xstrdup(cJSON_IsString(v) ? v->valuestring : "");
}

/* A present field of the wrong JSON type is a reason, an absent one not. */
static int want(const cJSON *v, int ok, const char *what, struct err *e)
{
	if (v && !ok)
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: %s has the wrong type", what);
	return 0;
}

/* One env entry as "NAME=VALUE\n"; control characters become '?' so one
 * entry stays one line. */
static int env_entry(const cJSON *ev, struct buf *b, struct err *e)
{
	const cJSON *n = get(ev, "name"), *v = get(ev, "value");
	size_t start = b->len, i;

	if (!cJSON_IsString(n) || !*n->valuestring || strchr(n->valuestring, '='))
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: an env entry without a valid name");
	if (want(v, cJSON_IsString(v), "env[].value", e))
		return -1;
	if (buf_appendf(b, "%s=%s\n", n->valuestring,
			v ? v->valuestring : get(ev, "valueFrom") ? "<valueFrom>" : "") < 0)
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: env larger than %u bytes", ENV_CAP);
	for (i = start; i + 1 < b->len; i++)
		if ((unsigned char)b->data[i] < 0x20)
			b->data[i] = '?';
	return 0;
}

static int env_list(const cJSON *list, const char *what, struct buf *b, struct err *e)
{
	const cJSON *ev;

	if (!list)
		return 0;
	if (!cJSON_IsArray(list))
		return want(list, 0, what, e);
	if (cJSON_GetArraySize(list) > DGD_MAX_ENV)
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: %s has more than %d entries",
			       what, DGD_MAX_ENV);
	cJSON_ArrayForEach(ev, list)
		if (env_entry(ev, b, e) < 0)
			return -1;
	return 0;
}

static int replicas(const cJSON *o, long *out, struct err *e)
{
	const cJSON *r = get(o, "replicas");

	*out = -1;
	if (want(r, cJSON_IsNumber(r) && r->valuedouble >= 0 && r->valuedouble < 1e9,
		 "replicas", e))
		return -1;
	if (r)
		*out = (long)r->valuedouble;
	return 0;
}

/* The main container of a v1beta1 podTemplate: "main" (the operator's
 * consts.go MainContainerName), else the first. */
static const cJSON *main_container(const cJSON *tmpl)
{
	const cJSON *cs = get(get(tmpl, "spec"), "containers"), *c;

	if (!cJSON_IsArray(cs))
		return NULL;
	cJSON_ArrayForEach(c, cs) {
		const cJSON *n = get(c, "name");

		if (cJSON_IsString(n) && !strcmp(n->valuestring, "main"))
			return c;
	}
	return cJSON_GetArrayItem(cs, 0);
}

static struct dgd_component *add_comp(struct dgd_info *d, size_t *cap, struct err *e)
{
	struct dgd_component *k;

	if (d->ncomp >= DGD_MAX_COMPONENTS) {
		err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: more than %d components",
			DGD_MAX_COMPONENTS);
		return NULL;
	}
	d->comp = xalloc_grow(d->comp, d->ncomp + 1, cap, sizeof(*d->comp));
	k = &d->comp[d->ncomp++];
	memset(k, 0, sizeof(*k));
	k->replicas = -1;
	return k;
}

/* Fills k's type, replicas and env from its spec object; graph_env
 * (v1alpha1 spec.envs) goes first so the component's own entries follow. */
static int fill_comp(struct dgd_component *k, const cJSON *spec, const cJSON *env,
		     const cJSON *graph_env, struct err *e)
{
	struct buf b = BUF_INIT(ENV_CAP);
	int rc;

	k->type = str(spec, "componentType");
	rc = replicas(spec, &k->replicas, e);
	if (!rc)
		rc = env_list(graph_env, "spec.envs", &b, e);
	if (!rc)
		rc = env_list(env, "env", &b, e);
	k->env = buf_detach(&b, NULL);
	return rc;
}

static int beta_components(const cJSON *spec, struct dgd_info *d, struct err *e)
{
	const cJSON *list = get(spec, "components"), *c;
	size_t cap = 0;

	if (!list)
		return 0;
	if (!cJSON_IsArray(list))
		return want(list, 0, "spec.components", e);
	cJSON_ArrayForEach(c, list) {
		struct dgd_component *k = add_comp(d, &cap, e);

		if (!k)
			return -1;
		k->name = str(c, "name");
		if (fill_comp(k, c, get(main_container(get(c, "podTemplate")), "env"), NULL, e))
			return -1;
	}
	return 0;
}

static int alpha_services(const cJSON *spec, struct dgd_info *d, struct err *e)
{
	const cJSON *svcs = get(spec, "services"), *s;
	size_t cap = 0;

	if (!svcs)
		return 0;
	if (!cJSON_IsObject(svcs))
		return want(svcs, 0, "spec.services", e);
	cJSON_ArrayForEach(s, svcs) {
		struct dgd_component *k = add_comp(d, &cap, e);

		if (!k)
			return -1;
		k->name = xstrdup(s->string ? s->string : "");
		if (fill_comp(k, s, get(s, "envs"), get(spec, "envs"), e))
			return -1;
	}
	return 0;
}

static void status(const cJSON *st, struct dgd_info *d)
{
	const cJSON *conds = get(st, "conditions"), *c;

	d->state = str(st, "state");
	if (cJSON_IsArray(conds))
		cJSON_ArrayForEach(c, conds) {
			const cJSON *t = get(c, "type");

			if (cJSON_IsString(t) && !strcmp(t->valuestring, "Ready") && !*d->ready) {
				free(d->ready);
				d->ready = str(c, "status");
			}
		}
}

static int one(const cJSON *o, const char *version, struct dgd_info *d, struct err *e)
{
	const cJSON *meta = get(o, "metadata"), *ann = get(meta, "annotations");
	const cJSON *spec = get(o, "spec");

	memset(d, 0, sizeof(*d));
	d->namespace = str(meta, "namespace");
	d->name = str(meta, "name");
	d->version = xstrdup(version);
	d->worker_hash = str(ann, ANN_HASH);
	d->worker_hash_v2 = str(ann, ANN_HASH_V2);
	d->ready = xstrdup("");
	status(get(o, "status"), d);
	if (!cJSON_IsObject(o) || !*d->name)
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: not an object with a name");
	if (want(spec, cJSON_IsObject(spec), "spec", e))
		return -1;
	return strcmp(version, "v1alpha1") ? beta_components(spec, d, e)
					   : alpha_services(spec, d, e);
}

int dgd_parse(const char *body, size_t len, const char *version,
	      struct dgd_set *out, struct err *e)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *items, *it;
	int rc = 0;

	if (!root)
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: the answer is not JSON");
	items = get(root, "items");
	if (!items && cJSON_IsObject(root)) {
		out->items = xrealloc(out->items, (out->n + 1) * sizeof(*out->items));
		rc = one(root, version, &out->items[out->n++], e);
	} else if (!cJSON_IsArray(items)) {
		rc = err_set(e, ERR_PROTOCOL, "DynamoGraphDeploymentList: items is not a list");
	} else if (out->n + (size_t)cJSON_GetArraySize(items) > DGD_MAX_ITEMS) {
		rc = err_set(e, ERR_PROTOCOL, "more than %d DynamoGraphDeployments", DGD_MAX_ITEMS);
	} else {
		out->items = xrealloc(out->items, (out->n + (size_t)cJSON_GetArraySize(items) + 1) *
				      sizeof(*out->items));
		cJSON_ArrayForEach(it, items)
			if ((rc = one(it, version, &out->items[out->n++], e)) < 0)
				break;
	}
	cJSON_Delete(root);
	return rc;
}

static void release_info(struct dgd_info *d)
{
	size_t i;

	for (i = 0; i < d->ncomp; i++) {
		free(d->comp[i].name);
		free(d->comp[i].type);
		free(d->comp[i].env);
	}
	free(d->comp);
	free(d->namespace), free(d->name), free(d->version), free(d->state);
	free(d->ready), free(d->worker_hash), free(d->worker_hash_v2);
}

void dgd_set_release(struct dgd_set *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		release_info(&s->items[i]);
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
