/* DRA ResourceClaims of the probed container (see claims.h).
 *
 * The object shapes are the Kubernetes API's (k8s.io/api resource/v1 and
 * v1beta1 types.go): a claim's requests carry the device class directly
 * (v1beta1 `deviceClassName`) or under `exactly` (v1, v1beta2), or as
 * `firstAvailable` alternatives; the allocation lists one result per
 * device: {request, driver, pool, device}. */
#define _GNU_SOURCE
#include "claims.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/vocab.h"
#include "util/buf.h"
#include "util/log.h"
#include "util/xalloc.h"

/* A run never makes more claim GETs than this (two per claim at most). */
#define CLAIMS_MAX_GETS 512
/* From this many claims in a namespace one LIST replaces the GETs (needs
 * list on resourceclaims; without it the GETs follow). */
#define CLAIMS_LIST_MIN 8
#define CLAIMS_LIST_PAGE 500
#define CLAIMS_LIST_MAX_PAGES 100

static const char *jstr(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *jget(const cJSON *o, const char *a, const char *b)
{
	o = cJSON_GetObjectItemCaseSensitive(o, a);
	return b ? cJSON_GetObjectItemCaseSensitive(o, b) : o;
}

/* A DNS-ish name from the cluster: printable, no separators of ours. */
static int name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 253)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '.' || *s == '_'))
			return 0;
	return 1;
}

/* An object name that goes into a request path: a DNS subdomain
 * (RFC 1123: lowercase alphanumerics, '-' and '.', alphanumeric at both
 * ends, as Kubernetes validates names), so never "." or ".." or a '/'. */
static int object_name_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n > 253 || s[0] == '-' || s[0] == '.' || s[n - 1] == '-' || s[n - 1] == '.' ||
	    strstr(s, ".."))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

/* Appends s to a ","-joined list, once; silently stops when full. */
static void join_raw(char *list, size_t n, const char *s)
{
	size_t len = strlen(list), sl = strlen(s);

	if (model_list_has(list, s))
		return;
	if (len + sl + 2 > n)
		return;
	snprintf(list + len, n - len, "%s%s", len ? "," : "", s);
}

/* join_raw of a name from the cluster, dropped when it is no plain name. */
static void join(char *list, size_t n, const char *s)
{
	if (name_ok(s))
		join_raw(list, n, s);
}

/* ---- which claims the container uses ------------------------------ */

/* The ResourceClaim object behind the pod's claim entry name. */
static const char *claim_object(const cJSON *pod, const char *name)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, jget(pod, "spec", "resourceClaims")) {
		if (!jstr(it, "name") || strcmp(jstr(it, "name"), name))
			continue;
		if (jstr(it, "resourceClaimName"))
			return jstr(it, "resourceClaimName");
		break;  /* from a template: the status names what was made */
	}
	cJSON_ArrayForEach(it, jget(pod, "status", "resourceClaimStatuses"))
		if (jstr(it, "name") && !strcmp(jstr(it, "name"), name))
			return jstr(it, "resourceClaimName");
	return NULL;
}

static void add_ref(struct buf *b, char *seen, size_t n, const char *obj)
{
	size_t before = strlen(seen);

	if (!object_name_ok(obj))
		return;
	join(seen, n, obj);
	if (strlen(seen) != before)
		buf_appendf(b, "%s\n", obj);
}

char *claims_refs(const void *pod_json, const char *container)
{
	const cJSON *pod = pod_json, *ct = NULL, *it;
	struct buf b = BUF_INIT(16u << 10);
	char seen[4096] = "";
	int named = 0;

	cJSON_ArrayForEach(it, jget(pod, "spec", "containers"))
		if (container && jstr(it, "name") && !strcmp(jstr(it, "name"), container))
			ct = it;
	/* A claim reaches a container only through its resources.claims
	 * (pod spec docs, "resources.claims"); a pod whose container names
	 * none still shows its pod-level claims (DraNet moves NICs into the
	 * pod's network namespace, which every container shares). */
	cJSON_ArrayForEach(it, jget(ct, "resources", "claims")) {
		named = 1;
		if (jstr(it, "name"))
			add_ref(&b, seen, sizeof seen, claim_object(pod, jstr(it, "name")));
	}
	if (!named)
		cJSON_ArrayForEach(it, jget(pod, "spec", "resourceClaims"))
			if (jstr(it, "name"))
				add_ref(&b, seen, sizeof seen, claim_object(pod, jstr(it, "name")));
	return buf_detach(&b, NULL);
}

/* ---- one ResourceClaim --------------------------------------------- */

static void request_classes(const cJSON *req, struct claim_facts *out)
{
	const cJSON *alt;

	join(out->classes, sizeof out->classes, jstr(req, "deviceClassName"));
	join(out->classes, sizeof out->classes,
	     jstr(cJSON_GetObjectItemCaseSensitive(req, "exactly"), "deviceClassName"));
	cJSON_ArrayForEach(alt, cJSON_GetObjectItemCaseSensitive(req, "firstAvailable"))
		join(out->classes, sizeof out->classes, jstr(alt, "deviceClassName"));
}

/* One claim object (a GET's answer, or an item of a list, which has no
 * kind). */
static int parse_obj(const cJSON *o, struct claim_facts *out)
{
	const cJSON *it, *alloc;
	const char *kind = jstr(o, "kind");

	memset(out, 0, sizeof *out);
	if (!cJSON_IsObject(o) || (kind && strcmp(kind, "ResourceClaim")))
		return -1;
	cJSON_ArrayForEach(it, jget(jget(o, "spec", "devices"), "requests", NULL))
		request_classes(it, out);
	alloc = jget(o, "status", "allocation");
	out->allocated = cJSON_IsObject(alloc);
	cJSON_ArrayForEach(it, jget(jget(alloc, "devices", NULL), "results", NULL)) {
		const char *drv = jstr(it, "driver"), *dev = jstr(it, "device");
		char both[300];

		join(out->drivers, sizeof out->drivers, drv);
		if (name_ok(drv) && name_ok(dev) && strlen(drv) + strlen(dev) < 200) {
			snprintf(both, sizeof both, "%.120s/%.120s", drv, dev);
			join_raw(out->devices, sizeof out->devices, both);
		}
	}
	return 0;
}

int claims_parse(const char *body, size_t len, struct claim_facts *out)
{
	cJSON *o = cJSON_ParseWithLength(body, len);
	int rc = parse_obj(o, out);

	cJSON_Delete(o);
	return rc;
}

/* ---- reading them --------------------------------------------------- */

/* One run's memory: the API version that answers, and claims already
 * read (a named claim may be shared by many pods). */
struct claims_run {
	int version;            /* 0: try v1 first; 1: v1beta1 only; -1: neither */
	unsigned gets;
	struct { char *key; struct claim_facts f; int ok; char why[200]; } *seen;
	size_t nseen;
	char forbidden[1024];   /* ","-joined namespaces that answered 403 */
	size_t seen_alloc;
};

static const char *const versions[] = { "v1", "v1beta1" };
#define FORBIDDEN "reading ResourceClaims is forbidden (needs get on resourceclaims in " \
	"API group resource.k8s.io)"


/* GET one claim: 0 with *f, or -1 with why. */
static int get_claim(struct http_client *c, struct claims_run *r, const char *ns,
		     const char *name, struct claim_facts *f, char *why, size_t n)
{
	int absent_v1 = 0;

	if (!object_name_ok(ns) || !object_name_ok(name)) {
		snprintf(why, n, "a claim name that is no Kubernetes name");
		return -1;
	}
	if (model_list_has(r->forbidden, ns)) {
		snprintf(why, n, "%s", FORBIDDEN);
		return -1;
	}
	for (int v = r->version; v >= 0 && v < 2; v++) {
		char *path = xasprintf("/apis/resource.k8s.io/%s/namespaces/%s/resourceclaims/%s",
				       versions[v], ns, name);
		struct http_response resp;
		struct err e;
		int rc;

		if (r->gets++ >= CLAIMS_MAX_GETS) {
			free(path);
			snprintf(why, n, "more than %d ResourceClaim reads in one run", CLAIMS_MAX_GETS);
			return -1;
		}
		err_clear(&e);
		memset(&resp, 0, sizeof resp);
		rc = http_get(c, path, &resp, &e);
		free(path);
		if (rc == 0) {
			rc = claims_parse(buf_str(&resp.body), resp.body.len, f);
			http_response_release(&resp);
			r->version = v;
			if (rc < 0)
				snprintf(why, n, "the ResourceClaim %s is not a ResourceClaim object", name);
			return rc;
		}
		http_response_release(&resp);
		/* The generic 404 is the API server's answer for a version it
		 * does not serve; a missing claim names the claim. */
		if (resp.status == 404 && strstr(e.msg, "could not find the requested resource")) {
			if (v == 1 && absent_v1)
				r->version = -1;
			absent_v1 |= v == 0;
			if (v == 0)
				continue;
			break;
		}
		if (resp.status == 404 && v == 0)
			continue;  /* not under v1: perhaps under v1beta1 */
		if (resp.status == 403) {
			/* RBAC is per namespace and verb: the next claim here
			 * would be refused too. */
			join(r->forbidden, sizeof r->forbidden, ns);
			snprintf(why, n, "%s", FORBIDDEN);
		}
		else if (resp.status == 404)
			snprintf(why, n, "ResourceClaim %s not found (resource.k8s.io v1/v1beta1)", name);
		else
			snprintf(why, n, "ResourceClaim %.50s not read: %.110s", name, e.msg);
		return -1;
	}
	snprintf(why, n, "the server serves no resource.k8s.io ResourceClaims");
	return -1;
}

/* A claim into the run's memory (key owned by it). */
static size_t remember(struct claims_run *r, char *key)
{
	ALLOC_GROW(r->seen, r->nseen + 1, r->seen_alloc);
	memset(&r->seen[r->nseen], 0, sizeof r->seen[r->nseen]);
	r->seen[r->nseen].key = key;
	return r->nseen++;
}

int claims_parse_list(const char *body, size_t len, claims_item_fn fn, void *arg,
		      char **next)
{
	cJSON *o = cJSON_ParseWithLength(body, len);
	const cJSON *it, *items = cJSON_GetObjectItemCaseSensitive(o, "items");
	const char *cont = jstr(jget(o, "metadata", NULL), "continue");

	*next = NULL;
	if (!cJSON_IsArray(items)) {
		cJSON_Delete(o);
		return -1;
	}
	cJSON_ArrayForEach(it, items) {
		const char *name = jstr(jget(it, "metadata", NULL), "name");
		struct claim_facts f;

		if (object_name_ok(name) && parse_obj(it, &f) == 0)
			fn(name, &f, arg);
	}
	if (cont && *cont && strlen(cont) < 4096)
		*next = xstrdup(cont);
	cJSON_Delete(o);
	return 0;
}

struct list_ctx {
	struct claims_run *r;
	const char *ns;
};

/* A listed claim into the run's memory. */
static void listed(const char *name, const struct claim_facts *f, void *arg)
{
	struct list_ctx *x = arg;
	size_t i = remember(x->r, xasprintf("%s/%s", x->ns, name));

	x->r->seen[i].f = *f;
	x->r->seen[i].ok = 1;
}

/* The pages of one version's list: 0 read (whole or in part), 1 that
 * version is not served (the generic 404), -1 refused or failed (403
 * without list, ...: the GETs follow). */
static int list_version(struct http_client *c, struct claims_run *r, const char *ns, int v)
{
	char *cont = NULL;
	int pages = 0, rc;

	do {
		char *esc = cont ? http_escape(cont) : NULL;
		char *path = xasprintf("/apis/resource.k8s.io/%s/namespaces/%s/resourceclaims?limit=%d%s%s",
				       versions[v], ns, CLAIMS_LIST_PAGE,
				       esc ? "&continue=" : "", esc ? esc : "");
		struct http_response resp;
		struct err e;

		free(esc);
		free(cont);
		cont = NULL;
		err_clear(&e);
		memset(&resp, 0, sizeof resp);
		r->gets++;
		rc = http_get(c, path, &resp, &e);
		free(path);
		if (rc == 0) {
			struct list_ctx x = { r, ns };

			rc = claims_parse_list(buf_str(&resp.body), resp.body.len, listed, &x, &cont);
		}
		else if (resp.status == 404 && !pages &&
			 strstr(e.msg, "could not find the requested resource"))
			rc = 1;
		http_response_release(&resp);
		pages++;
	} while (rc == 0 && cont && pages < CLAIMS_LIST_MAX_PAGES);
	free(cont);
	return rc;
}

/* Many claims in one namespace: one LIST (paged) instead of a GET each,
 * when RBAC allows list; what the list lacks is then read by GET. */
static void list_namespace(struct http_client *c, struct claims_run *r, const char *ns)
{
	if (!object_name_ok(ns))
		return;
	for (int v = r->version; v >= 0 && v < 2; v++) {
		int rc = list_version(c, r, ns, v);

		if (rc == 0)
			r->version = v;
		if (rc != 1)
			return;
	}
}

static void add_claim(struct pod_spec_facts *s, const struct claim_facts *f)
{
	char tmp[256];

	s->claims_read++;
	snprintf(tmp, sizeof tmp, "%s", f->drivers);
	for (char *sv, *p = strtok_r(tmp, ",", &sv); p; p = strtok_r(NULL, ",", &sv))
		join(s->claim_drivers, sizeof s->claim_drivers, p);
	snprintf(tmp, sizeof tmp, "%s", f->classes);
	for (char *sv, *p = strtok_r(tmp, ",", &sv); p; p = strtok_r(NULL, ",", &sv))
		join(s->claim_classes, sizeof s->claim_classes, p);
	snprintf(tmp, sizeof tmp, "%s", f->devices);
	for (char *sv, *p = strtok_r(tmp, ",", &sv); p; p = strtok_r(NULL, ",", &sv))
		join_raw(s->claim_devices, sizeof s->claim_devices, p);
}

static void resolve_one(struct http_client *c, struct claims_run *r, struct pod_info *p)
{
	struct pod_spec_facts spec;   /* the pod's, changed, then interned again */
	int k = 0;

	/* memcpy, not assignment: the bytes, padding included, find the
	 * interned copy (pods.h pod_info_set_spec). */
	memset(&spec, 0, sizeof(spec));
	if (p->spec)
		memcpy(&spec, p->spec, sizeof(spec));
	for (const char *q = p->claim_refs; q && *q; k++) {
		size_t len = strcspn(q, "\n");
		char *name = xstrndup(q, len), *key = xasprintf("%s/%s", p->namespace, name);
		size_t i;

		q += len + (q[len] == '\n');
		for (i = 0; i < r->nseen && strcmp(r->seen[i].key, key); i++)
			;
		if (i == r->nseen && k < CLAIMS_MAX_PER_POD && r->version >= 0) {
			i = remember(r, key), key = NULL;
			r->seen[i].ok = get_claim(c, r, p->namespace, name, &r->seen[i].f,
						  r->seen[i].why, sizeof r->seen[i].why) == 0;
		}
		if (i < r->nseen && r->seen[i].ok) {
			add_claim(&spec, &r->seen[i].f);
		} else {
			spec.claims_unread++;
			if (!spec.claims_why[0])
				snprintf(spec.claims_why, sizeof spec.claims_why, "%s",
					 i < r->nseen ? r->seen[i].why :
					 r->version < 0 ? "the server serves no resource.k8s.io ResourceClaims" :
					 "more claims than are read per pod");
		}
		free(key);
		free(name);
	}
	pod_info_set_spec(p, &spec);
}

/* Namespaces whose pods use at least CLAIMS_LIST_MIN claims are listed
 * first (pods come sorted by namespace). */
static void list_busy_namespaces(struct http_client *c, struct claims_run *r,
				 const struct pod_list *l)
{
	for (size_t i = 0, j; i < l->n; i = j) {
		size_t refs = 0;

		for (j = i; j < l->n && !strcmp(l->items[j].namespace, l->items[i].namespace); j++)
			for (const char *q = l->items[j].claim_refs; q && *q; q++)
				refs += *q == '\n';
		if (refs >= CLAIMS_LIST_MIN)
			list_namespace(c, r, l->items[i].namespace);
	}
}

void claims_resolve(struct http_client *c, struct pod_list *l)
{
	struct claims_run r = { 0, 0, NULL, 0, "", 0 };

	list_busy_namespaces(c, &r, l);
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].claim_refs && *l->items[i].claim_refs)
			resolve_one(c, &r, &l->items[i]);
	for (size_t i = 0; i < r.nseen; i++)
		free(r.seen[i].key);
	free(r.seen);
	if (r.gets)
		log_at(6, "read %zu ResourceClaims in %u requests", r.nseen, r.gets);
}
