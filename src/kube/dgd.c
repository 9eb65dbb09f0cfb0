/* DynamoGraphDeployments from the API server (kube/dgd.h).  The shapes
 * read are the operator's (ai-dynamo/dynamo deploy/operator/api, before
 * deploy/cloud/operator/api):
 * v1alpha1 (v1alpha1/dynamographdeployment_types.go, the shared spec of
 * dynamocomponentdeployment_types.go): spec.envs graph-wide, spec.services
 * {NAME: {componentType, subComponentType, replicas, envs, resources
 * {requests, limits}, extraPodSpec.mainContainer.env}}, status.services
 * {NAME: ServiceReplicaStatus};
 * v1beta1 (v1beta1/dynamographdeployment_types.go): spec.env graph-wide,
 * spec.components[] {name, type, replicas, podTemplate.spec.containers[]
 * (the one named "main") env and resources}, status.components{NAME:
 * ComponentReplicaStatus {replicas, updatedReplicas, readyReplicas,
 * availableReplicas}}.  Both: status.state, status.conditions[].
 * The CR is untrusted: every field is type-checked and the lists are
 * bounded. */
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
	k->replicas = k->st_replicas = k->st_updated = k->st_ready = k->st_available = -1;
	k->nodes = -1;
	return k;
}

/* "NAME=QUANTITY\n" of a requests/limits object's string values. */
static int quantities(const cJSON *o, const char *what, char **out, struct err *e)
{
	struct buf b = BUF_INIT(ENV_CAP);
	const cJSON *q;
	int rc = 0, n = 0;

	if (o && !cJSON_IsObject(o))
		rc = want(o, 0, what, e);
	if (!rc && o)
		cJSON_ArrayForEach(q, o) {
			if (!cJSON_IsString(q) || !q->string || strpbrk(q->string, "=\n"))
				continue;
			if (++n > DGD_MAX_RESOURCES ||
			    buf_appendf(&b, "%s=%s\n", q->string, q->valuestring) < 0) {
				rc = err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: %s too large", what);
				break;
			}
		}
	*out = buf_detach(&b, NULL);
	for (char *c = *out; *c; c++)
		if ((unsigned char)*c < 0x20 && *c != '\n')
			*c = '?';
	return rc;
}

static int resources(struct dgd_component *k, const cJSON *res, struct err *e)
{
	if (want(res, cJSON_IsObject(res), "resources", e))
		return -1;
	return quantities(get(res, "limits"), "resources.limits", &k->limits, e) ||
	       quantities(get(res, "requests"), "resources.requests", &k->requests, e) ? -1 : 0;
}

static long count(const cJSON *o, const char *key);

/* Fills k's replicas, resources and env from its spec object; the env
 * lists go in order, graph-wide first, so a later entry of a name wins
 * (env_value() reads the last). */
static int fill_comp(struct dgd_component *k, const cJSON *spec, const cJSON *res,
		     const cJSON *const envs[3], struct err *e)
{
	static const char *const what[3] = { "spec.env", "env", "mainContainer.env" };
	struct buf b = BUF_INIT(ENV_CAP);
	int rc, i;

	rc = replicas(spec, &k->replicas, e);
	k->nodes = count(get(spec, "multinode"), "nodeCount");
	if (!rc)
		rc = resources(k, res, e);
	for (i = 0; !rc && i < 3; i++)
		rc = env_list(envs[i], what[i], &b, e);
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
		const cJSON *mc = main_container(get(c, "podTemplate"));
		const cJSON *envs[3] = { get(spec, "env"), get(mc, "env"), NULL };

		k->name = str(c, "name");
		/* "type" in the CRD; componentType read too, the v1alpha1 word. */
		k->type = str(c, get(c, "type") ? "type" : "componentType");
		if (fill_comp(k, c, get(mc, "resources"), envs, e))
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
		const cJSON *sub = get(s, "subComponentType");
		const cJSON *envs[3] = { get(spec, "envs"), get(s, "envs"),
					 get(get(get(s, "extraPodSpec"), "mainContainer"), "env") };

		k->name = xstrdup(s->string ? s->string : "");
		/* subComponentType carries prefill/decode under componentType
		 * worker (the operator's prefill/decode label). */
		k->type = str(s, cJSON_IsString(sub) && *sub->valuestring ? "subComponentType"
									 : "componentType");
		if (fill_comp(k, s, get(s, "resources"), envs, e))
			return -1;
	}
	return 0;
}

static long count(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e9
		       ? (long)v->valuedouble : -1;
}

/* status.components (v1beta1) or status.services (v1alpha1), by name. */
static void replica_status(const cJSON *map, struct dgd_info *d)
{
	size_t i;

	for (i = 0; i < d->ncomp; i++) {
		struct dgd_component *k = &d->comp[i];
		const cJSON *r = get(map, k->name);

		k->st_replicas = count(r, "replicas");
		k->st_updated = count(r, "updatedReplicas");
		k->st_ready = count(r, "readyReplicas");
		k->st_available = count(r, "availableReplicas");
	}
}

static void status(const cJSON *st, struct dgd_info *d)
{
	const cJSON *conds = get(st, "conditions"), *c;

	d->state = str(st, "state");
	if (!cJSON_IsArray(conds))
		return;
	d->cond = xcalloc(DGD_MAX_CONDITIONS, sizeof(*d->cond));
	cJSON_ArrayForEach(c, conds) {
		const cJSON *t = get(c, "type");
		struct dgd_condition *k;

		if (!cJSON_IsString(t) || d->ncond >= DGD_MAX_CONDITIONS)
			continue;
		k = &d->cond[d->ncond++];
		k->type = str(c, "type"), k->status = str(c, "status");
		k->reason = str(c, "reason"), k->message = str(c, "message");
		if (!strcmp(t->valuestring, "Ready") && !*d->ready) {
			free(d->ready);
			d->ready = str(c, "status");
		}
	}
}

static int one(const cJSON *o, const char *version, struct dgd_info *d, struct err *e)
{
	const cJSON *meta = get(o, "metadata"), *ann = get(meta, "annotations");
	const cJSON *spec = get(o, "spec");
	int rc;

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
	if (strcmp(version, "v1alpha1")) {
		rc = beta_components(spec, d, e);
		replica_status(get(get(o, "status"), "components"), d);
	} else {
		rc = alpha_services(spec, d, e);
		replica_status(get(get(o, "status"), "services"), d);
	}
	return rc;
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
		free(d->comp[i].limits);
		free(d->comp[i].requests);
	}
	for (i = 0; i < d->ncond; i++) {
		free(d->cond[i].type), free(d->cond[i].status);
		free(d->cond[i].reason), free(d->cond[i].message);
	}
	free(d->cond);
	free(d->comp);
	free(d->namespace), free(d->name), free(d->version), free(d->state);
	free(d->ready), free(d->worker_hash), free(d->worker_hash_v2);
}

void dgd_set_drop(struct dgd_set *s, size_t i)
{
	if (i >= s->n)
		return;
	release_info(&s->items[i]);
	memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof(*s->items));
	s->n--;
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
