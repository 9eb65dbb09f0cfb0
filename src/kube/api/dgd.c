/* One DynamoGraphDeployment object (kube/dgd.h; the list and the request:
 * dgd_list.c).  The shapes
 * read are the operator's (ai-dynamo/dynamo deploy/operator/api, before
 * deploy/cloud/operator/api):
 * v1alpha1 (v1alpha1/dynamographdeployment_types.go, the shared spec of
 * dynamocomponentdeployment_types.go): spec.envs graph-wide, spec.services
 * {NAME: {componentType, subComponentType, replicas, envs, resources
 * {requests, limits}, extraPodSpec.mainContainer.{env, image, command,
 * args}}}, status.services
 * {NAME: ServiceReplicaStatus};
 * v1beta1 (v1beta1/dynamographdeployment_types.go): spec.env graph-wide,
 * spec.components[] {name, type, replicas, podTemplate.spec.containers[]
 * (the one named "main") env, resources, image, command and args},
 * status.components{NAME:
 * ComponentReplicaStatus {replicas, updatedReplicas, readyReplicas,
 * availableReplicas}}.  Both: status.state, status.conditions[].
 * The CR is untrusted: every field is type-checked and the lists are
 * bounded. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "dgd.h"
#include "dgd_int.h"
#include "util/buf.h"
#include "util/xalloc.h"

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

/* A name a container can get: k8s.io/apimachinery validation.go
 * IsRelaxedEnvVarName (the kubelet's rule since the
 * RelaxedEnvironmentVariableValidation gate; IsEnvVarName's
 * [-._a-zA-Z][-._a-zA-Z0-9]* before it is a subset): not empty, printable
 * ASCII, no '='. */
static int env_name_ok(const char *n)
{
	if (!*n)
		return 0;
	for (; *n; n++)
		if ((unsigned char)*n < 0x20 || (unsigned char)*n > 0x7e || *n == '=')
			return 0;
	return 1;
}

/* s as one short printable line (for a reason): at most 40 bytes. */
static void shown(const char *s, char out[48])
{
	size_t i;

	for (i = 0; s[i] && i < 40; i++)
		out[i] = (unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e ? '?' : s[i];
	out[i] = 0;
}

/* One env entry as "NAME=VALUE\n"; control characters become '?' so one
 * entry stays one line. */
static int env_entry(const cJSON *ev, struct buf *b, struct err *e)
{
	const cJSON *n = get(ev, "name"), *v = get(ev, "value");
	size_t start = b->len, i;
	char nm[48];

	if (!cJSON_IsString(n))
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: an env entry without a name");
	shown(n->valuestring, nm);
	if (!env_name_ok(n->valuestring))
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: env entry name \"%s\" is not a "
			       "valid variable name (non-empty printable ASCII without '=': k8s "
			       "IsRelaxedEnvVarName)", nm);
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

/* A whole number 0..INT32_MAX: the operator's replica and node counts are
 * int32 (v1alpha1 dynamocomponentdeployment_types.go Replicas *int32 with
 * Minimum=0, MultinodeSpec.NodeCount int32). */
static int int32_count(const cJSON *v)
{
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= INT32_MAX &&
	       v->valuedouble == (double)(long)v->valuedouble;
}

static int replicas(const cJSON *o, const char *comp, long *out, struct err *e)
{
	const cJSON *r = get(o, "replicas");
	char nm[48];

	*out = -1;
	if (!r)
		return 0;
	if (want(r, cJSON_IsNumber(r), "replicas", e))
		return -1;
	if (!int32_count(r)) {
		shown(comp, nm);
		return err_set(e, ERR_PROTOCOL, "DynamoGraphDeployment: component \"%s\": replicas %.14g "
			       "is not a whole number 0..2147483647 (the operator's Replicas *int32)", nm,
			       r->valuedouble);
	}
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

	rc = replicas(spec, k->name, &k->replicas, e);
	k->nodes = count(get(spec, "multinode"), "nodeCount");
	if (!rc)
		rc = resources(k, res, e);
	for (i = 0; !rc && i < 3; i++)
		rc = env_list(envs[i], what[i], &b, e);
	k->env = buf_detach(&b, NULL);
	return rc;
}

/* k's image and launch line from its main container mc (may be NULL):
 * command then args, the strings space-joined; past DGD_MAX_ARGS "", never
 * a cut line (a rule judges a flag's absence too). */
static void launch(struct dgd_component *k, const cJSON *mc)
{
	static const char *const lists[] = { "command", "args" };
	struct buf b = BUF_INIT(DGD_MAX_ARGS);
	const cJSON *it;
	int over = 0;

	k->image = str(mc, "image");
	for (size_t i = 0; i < 2; i++)
		cJSON_ArrayForEach(it, get(mc, lists[i]))
			if (!over && cJSON_IsString(it))
				over = buf_appendf(&b, "%s%s", b.len ? " " : "", it->valuestring) < 0;
	k->args = buf_detach(&b, NULL);    /* "" after an overflow: released */
}

/* RFC 6901: a key in a pointer with '~' as "~0" and '/' as "~1". */
static void pointer_key(struct buf *b, const char *key)
{
	for (; *key; key++) {
		if (*key == '~' || *key == '/')
			buf_appends(b, *key == '~' ? "~0" : "~1");
		else
			buf_append(b, key, 1);
	}
}

/* k's patch_* (model/dgd.h) for its own env list, at path (owned, or NULL:
 * no place) identified by ids (owned). */
static void patch_place(struct dgd_component *k, char *path, char *ids, const cJSON *list)
{
	struct buf b = BUF_INIT(ENV_CAP);
	const cJSON *ev;

	k->patch_listed = cJSON_IsArray(list);
	if (k->patch_listed)
		cJSON_ArrayForEach(ev, list) {
			const cJSON *n = get(ev, "name");

			buf_appendf(&b, "%s\n", cJSON_IsString(n) ? n->valuestring : "");
		}
	k->patch_names = buf_detach(&b, NULL);
	k->patch_path = path ? path : xstrdup("");
	k->patch_ids = ids;
}

/* v1beta1 component at index ci: its main container's env. */
static void beta_place(struct dgd_component *k, const cJSON *c, size_t ci)
{
	const cJSON *cs = get(get(get(c, "podTemplate"), "spec"), "containers");
	const cJSON *mc = main_container(get(c, "podTemplate")), *x;
	const cJSON *list = cJSON_IsArray(cs) ? cs : NULL;
	struct buf path = BUF_INIT(ENV_CAP), ids = BUF_INIT(ENV_CAP);
	int mi = 0;

	cJSON_ArrayForEach(x, list) {
		if (x == mc)
			break;
		mi++;
	}
	buf_appendf(&ids, "/spec/components/%zu/name=%s\n", ci, k->name);
	if (!mc || !cJSON_IsString(get(mc, "name"))) {
		patch_place(k, NULL, buf_detach(&ids, NULL), NULL);
		return;
	}
	buf_appendf(&path, "/spec/components/%zu/podTemplate/spec/containers/%d", ci, mi);
	buf_appendf(&ids, "%s/name=%s\n", buf_str(&path), get(mc, "name")->valuestring);
	buf_appends(&path, "/env");
	patch_place(k, buf_detach(&path, NULL), buf_detach(&ids, NULL), get(mc, "env"));
}

/* v1alpha1 service: its own envs, keyed by its name; its componentType
 * as read identifies it (a service gone or remade is refused). */
static void alpha_place(struct dgd_component *k, const cJSON *s)
{
	struct buf path = BUF_INIT(ENV_CAP), ids = BUF_INIT(ENV_CAP);
	const cJSON *ct = get(s, "componentType");

	buf_appends(&path, "/spec/services/");
	pointer_key(&path, k->name);
	if (cJSON_IsString(ct) && !strchr(ct->valuestring, '\n'))
		buf_appendf(&ids, "%s/componentType=%s\n", buf_str(&path), ct->valuestring);
	buf_appends(&path, "/envs");
	patch_place(k, buf_detach(&path, NULL), buf_detach(&ids, NULL), get(s, "envs"));
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
		launch(k, mc);
		if (fill_comp(k, c, get(mc, "resources"), envs, e))
			return -1;
		beta_place(k, c, d->ncomp - 1);
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
		launch(k, get(get(s, "extraPodSpec"), "mainContainer"));
		if (fill_comp(k, s, get(s, "resources"), envs, e))
			return -1;
		alpha_place(k, s);
	}
	return 0;
}

static long count(const cJSON *o, const char *key)
{
	const cJSON *v = get(o, key);

	return int32_count(v) ? (long)v->valuedouble : -1;
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

		if (!cJSON_IsString(t))
			continue;
		/* Ready wherever it stands; the report keeps the first 32 */
		if (!strcmp(t->valuestring, "Ready") && !*d->ready) {
			free(d->ready);
			d->ready = str(c, "status");
		}
		if (d->ncond >= DGD_MAX_CONDITIONS)
			continue;
		k = &d->cond[d->ncond++];
		k->type = str(c, "type"), k->status = str(c, "status");
		k->reason = str(c, "reason"), k->message = str(c, "message");
	}
}

int dgd_read_item(const cJSON *o, const char *version, struct dgd_info *d, struct err *e)
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
	d->skipped = xstrdup("");
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

/* d as a DGD not read, named by meta (its metadata, may be NULL), why. */
void dgd_info_skipped(struct dgd_info *d, const cJSON *meta, size_t idx, const char *version,
		      const char *why)
{
	memset(d, 0, sizeof(*d));
	d->namespace = str(meta, "namespace");
	d->name = str(meta, "name");
	d->version = xstrdup(version);
	d->state = xstrdup(""), d->ready = xstrdup("");
	d->worker_hash = xstrdup(""), d->worker_hash_v2 = xstrdup("");
	d->skipped = *d->name ? xstrdup(why) : xasprintf("items[%zu]: %s", idx, why);
}

void dgd_info_release(struct dgd_info *d)
{
	size_t i;

	for (i = 0; i < d->ncomp; i++) {
		free(d->comp[i].name);
		free(d->comp[i].type);
		free(d->comp[i].env);
		free(d->comp[i].patch_path), free(d->comp[i].patch_names);
		free(d->comp[i].patch_ids);
		free(d->comp[i].image), free(d->comp[i].args);
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
	free(d->ready), free(d->worker_hash), free(d->worker_hash_v2), free(d->skipped);
}
