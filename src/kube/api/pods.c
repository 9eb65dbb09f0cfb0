#define _GNU_SOURCE
#include "pods.h"
#include "claims.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/role.h"
#include "model/vocab.h"
#include "util/buf.h"
#include "util/intern.h"
#include "util/log.h"
#include "util/xalloc.h"
#include "sidecar.h"
#include "listguard.h"
#include "podenv.h"
#include "podjson.h"
#include "podspec.h"

#define LABEL_TYPE "nvidia.com/dynamo-component-type"
#define LABEL_SUBTYPE "nvidia.com/dynamo-sub-component-type"
#define LABEL_GRAPH "nvidia.com/dynamo-graph-deployment-name"
/* The operator's consts.go KubeLabelDynamoComponent / KubeLabelDynamoWorkerHash. */
#define LABEL_COMPONENT "nvidia.com/dynamo-component"
#define LABEL_WORKER_HASH "nvidia.com/dynamo-worker-hash"
/* LeaderWorkerSet's group size: pods of one multinode worker (an annotation
 * of every pod of the group; LWS also injects it as LWS_GROUP_SIZE). */
#define LWS_SIZE "leaderworkerset.sigs.k8s.io/size"
/* Grove's labels on the pods of one PodCliqueScalingGroup replica: one
 * multinode worker (the Dynamo operator's multinode services). */
#define GROVE_PCSG "grove.io/podcliquescalinggroup"
#define GROVE_PCSG_REPLICA "grove.io/podcliquescalinggroup-replica-index"
#define ANNOT_DEFAULT_CONTAINER "kubectl.kubernetes.io/default-container"

static char *dup_or_empty(const char *s)
{
	return xstrdup(s ? s : "");
}

const char *pods_role(const char *type, const char *sub)
{
	return pods_role_cmd(type, sub, NULL);
}

/* model/role.h decides as Dynamo does: the type and sub-type, else the
 * worker's own --disaggregation-mode (issue 38).  `main` is the type of
 * Dynamo's older workers and frontends alike: one running no engine worker
 * is no worker. */
const char *pods_role_cmd(const char *type, const char *sub, const char *args)
{
	const char *r;

	if (!type) {
		r = model_role_from_args(args);
		return r ? r : "";
	}
	if (!strcmp(type, "frontend") || !strcmp(type, "planner") ||
	    !strcmp(type, "epp"))
		return NULL;
	r = model_role(type, sub, args);
	if (!strcmp(r, "prefill") || !strcmp(r, "decode") || !strcmp(r, "worker"))
		return r;
	if (!strcmp(type, "main") && args && *args)
		return NULL;   /* runs something else; no command at all: unknown, kept */
	return "";   /* a type we do not know: keep it, unclassified */
}

/* Pods of one DGD component share its role: a multinode worker's other
 * pods (a Ray or MPI worker) do not repeat the leader's flags. */
static void share_roles(struct pod_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct pod_info *p = &l->items[i];

		if (strcmp(p->role, "worker") || !*p->component)
			continue;
		for (size_t j = 0; j < l->n; j++) {
			const struct pod_info *o = &l->items[j];

			if ((!strcmp(o->role, "prefill") || !strcmp(o->role, "decode")) &&
			    !strcmp(o->namespace, p->namespace) && !strcmp(o->graph, p->graph) &&
			    !strcmp(o->component, p->component)) {
				free(p->role);
				p->role = xstrdup(o->role);
				break;
			}
		}
	}
}

static int has_container(const cJSON *containers, const char *name)
{
	const cJSON *ct;

	cJSON_ArrayForEach(ct, containers) {
		const char *n = jstr(ct, "name");
		if (n && !strcmp(n, name))
			return 1;
	}
	return 0;
}

/* main, else the default-container annotation, else the first (kubectl). */
static const char *choose_container(const cJSON *pod, const char *want)
{
	static const char *const ck[] = { "spec", "containers", NULL };
	static const char *const ak[] = { "metadata", "annotations", NULL };
	const cJSON *containers = jpath(pod, ck);
	const char *annot = jstr(jpath(pod, ak), ANNOT_DEFAULT_CONTAINER);
	const cJSON *first = cJSON_GetArrayItem(containers, 0);

	if (want)
		return want;
	if (has_container(containers, "main"))
		return "main";
	if (annot && has_container(containers, annot))
		return annot;
	return first ? jstr(first, "name") : NULL;
}

static time_t parse_time(const char *s)
{
	struct tm tm;
	const char *end;

	if (!s)
		return 0;
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return end ? timegm(&tm) : 0;
}

/* What kubectl's STATUS column would say for this container, and whether
 * the container can be exec'd into. */
static const char *container_state(const cJSON *pod, const char *container,
				   int *running)
{
	static const char *const sk[] = { "status", "containerStatuses", NULL };
	const cJSON *cs = find_named(jpath(pod, sk), container);
	const cJSON *state = cJSON_GetObjectItemCaseSensitive(cs, "state");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(state, "waiting");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(state, "terminated");

	*running = cJSON_GetObjectItemCaseSensitive(state, "running") != NULL;
	if (w)
		return jstr(w, "reason") ? jstr(w, "reason") : "Waiting";
	if (t)
		return jstr(t, "reason") ? jstr(t, "reason") : "Terminated";
	if (!cs)
		*running = 1;  /* no status reported: let the exec tell */
	return NULL;
}

/* The API server's words for a container the pod does not have
 * (kube-apiserver pkg/registry/core/pod/strategy.go, ExecLocation and
 * LogLocation: "container %s is not valid for pod %s"), with the pod's own
 * containers, as kubectl's "choose one of" does.  Owned. */
static char *not_valid(const cJSON *containers, const char *container, const char *pod)
{
	struct buf b = BUF_INIT(4096);
	const cJSON *ct;
	int n = 0;

	buf_appendf(&b, "container %s is not valid for pod %s (its containers: ",
		    *container ? container : "\"\"", pod);
	cJSON_ArrayForEach(ct, containers)
		if (jstr(ct, "name"))
			buf_appendf(&b, "%s%s", n++ ? ", " : "", jstr(ct, "name"));
	buf_appends(&b, n ? ")" : "none)");
	return buf_detach(&b, NULL);
}

static void decide_probe(struct pod_info *p, const cJSON *pod)
{
	static const char *const ck[] = { "spec", "containers", NULL };
	static const char *const dk[] = { "metadata", "deletionTimestamp", NULL };
	const char *reason;
	int running = 0;

	p->status = xstrdup(p->phase);
	/* Before the phase, as the API server checks it before the host. */
	if (!*p->container || !has_container(jpath(pod, ck), p->container)) {
		p->skip_reason = not_valid(jpath(pod, ck), p->container, p->name);
		p->no_container = 1;
		return;
	}
	if (strcmp(p->phase, "Running")) {
		p->skip_reason = xasprintf("pod is %s", *p->phase ? p->phase : "in an unknown phase");
		return;
	}
	reason = container_state(pod, p->container, &running);
	if (reason) {
		free(p->status);
		p->status = xstrdup(reason);
	}
	if (!running) {
		p->skip_reason = xasprintf("container \"%s\" is not running%s%s%s",
					   p->container, reason ? " (" : "",
					   reason ? reason : "", reason ? ")" : "");
		return;
	}
	if (jpath(pod, dk)) {
		free(p->status);
		p->status = xstrdup("Terminating");
	}
	p->probe = 1;
	p->skip_reason = xstrdup("");
}

/* The most of a container's command and args read (space-joined): argv
 * past it is no launch line a rule can judge in part. */
#define ARGS_CAP (64u << 10)

/* pod_info.args: command then args of the container, space-joined; past
 * ARGS_CAP "" with *why set (pod_info.args_unread; why may be NULL), never
 * a cut line. */
static char *container_args(const cJSON *pod, const char *container, char **why)
{
	static const char *const ck[] = { "spec", "containers", NULL };
	static const char *const lists[] = { "command", "args" };
	const cJSON *ct = find_named(jpath(pod, ck), container), *it;
	struct buf b = BUF_INIT(ARGS_CAP);
	int over = 0;

	for (size_t i = 0; i < 2; i++)
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ct, lists[i]))
			if (!over && cJSON_IsString(it))
				over = buf_appendf(&b, "%s%s", b.len ? " " : "", it->valuestring) < 0;
	if (why)
		*why = over ? xasprintf("the container's command and args are over %u KiB, not read",
					ARGS_CAP >> 10)
			    : xstrdup("");
	return buf_detach(&b, NULL);
}

static const char *container_image(const cJSON *pod, const char *container)
{
	static const char *const ck[] = { "spec", "containers", NULL };

	return jstr(find_named(jpath(pod, ck), container), "image");
}

/* pod_info.nodes: the LeaderWorkerSet group the pod belongs to (its size
 * annotation or label, else the LWS_GROUP_SIZE the controller put in the
 * container's env), 0 when the pod shows none. */
static int group_nodes(const cJSON *pod, const char *container)
{
	static const char *const ak[] = { "metadata", "annotations", NULL };
	static const char *const lk[] = { "metadata", "labels", NULL };
	static const char *const ck[] = { "spec", "containers", NULL };
	const char *v = jstr(jpath(pod, ak), LWS_SIZE);
	const cJSON *it;
	char *end;
	long n;

	if (!v)
		v = jstr(jpath(pod, lk), LWS_SIZE);
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(
			       find_named(jpath(pod, ck), container), "env"))
		if (!v && jstr(it, "name") && !strcmp(jstr(it, "name"), "LWS_GROUP_SIZE"))
			v = jstr(it, "value");
	if (!v)
		return 0;
	n = strtol(v, &end, 10);
	return *end || n < 1 || n > 4096 ? 0 : (int)n;
}

/* Fills p from one item of a PodList; returns 0, or 1 for a pod that is
 * not a worker (skipped). */
static int pod_from_json(const cJSON *pod, const struct pods_query *q,
			 struct pod_info *p)
{
	static const char *const lk[] = { "metadata", "labels", NULL };
	static const char *const mk[] = { "metadata", NULL };
	static const char *const sk[] = { "spec", NULL };
	static const char *const stk[] = { "status", NULL };
	static const char *const ck[] = { "spec", "containers", NULL };
	const cJSON *labels = jpath(pod, lk), *meta = jpath(pod, mk);
	const cJSON *status = jpath(pod, stk), *ct;
	char *cmd = container_args(pod, choose_container(pod, q->container), NULL);
	const char *role = pods_role_cmd(jstr(labels, LABEL_TYPE), jstr(labels, LABEL_SUBTYPE), cmd);
	const char *not_sidecar;
	struct pod_spec_facts spec;   /* zeroed by podspec_facts(), padding too */

	free(cmd);
	if (!role && !q->any_component)
		return 1;
	/* -c may name a native sidecar; the list document is ours to extend
	 * (pods_list parsed it and frees it after this loop). */
	not_sidecar = q->container ? sidecar_expose((cJSON *)pod, q->container) : NULL;
	if (!role)
		role = jstr(labels, LABEL_TYPE);
	memset(p, 0, sizeof(*p));
	p->namespace = dup_or_empty(jstr(meta, "namespace"));
	p->name = dup_or_empty(jstr(meta, "name"));
	p->role = xstrdup(role);
	p->graph = dup_or_empty(jstr(labels, LABEL_GRAPH));
	p->component = dup_or_empty(jstr(labels, LABEL_COMPONENT));
	p->worker_hash = dup_or_empty(jstr(labels, LABEL_WORKER_HASH));
	p->node = dup_or_empty(jstr(jpath(pod, sk), "nodeName"));
	p->node_ip = dup_or_empty(jstr(status, "hostIP"));
	p->pod_ip = dup_or_empty(jstr(status, "podIP"));
	p->container = dup_or_empty(choose_container(pod, q->container));
	p->image = dup_or_empty(container_image(pod, p->container));
	p->phase = dup_or_empty(jstr(status, "phase"));
	p->created = parse_time(jstr(meta, "creationTimestamp"));
	podspec_facts(pod, p->container, &spec);
	pod_info_set_spec(p, &spec);
	ct = find_named(jpath(pod, ck), p->container);
	p->secret_env = podenv_secrets(ct);
	p->spec_env = podenv_spec(ct, &p->spec_env_unread);
	p->claim_refs = claims_refs(pod, p->container);
	p->args = container_args(pod, p->container, &p->args_unread);
	p->plain_env = podenv_plain(ct, p->args);
	p->metrics_env = podenv_metrics(ct);
	p->nodes = group_nodes(pod, p->container);
	if (jstr(labels, GROVE_PCSG) && jstr(labels, GROVE_PCSG_REPLICA) &&
	    !strchr(jstr(labels, GROVE_PCSG), '\n'))
		p->group = xasprintf("%s/%s", jstr(labels, GROVE_PCSG), jstr(labels, GROVE_PCSG_REPLICA));
	else
		p->group = xstrdup("");
	decide_probe(p, pod);
	/* An init container is in the pod: a reason, not a -c error. */
	if (not_sidecar) {
		p->no_container = 0;
		free(p->skip_reason);
		p->skip_reason = xasprintf("container \"%s\" cannot be probed: %s",
					   p->container, not_sidecar);
		p->probe = 0;
	}
	return 0;
}

static void pod_info_release(struct pod_info *p)
{
	intern_unref(p->spec, NULL);
	free(p->namespace);
	free(p->name);
	free(p->role);
	free(p->graph);
	free(p->component);
	free(p->worker_hash);
	free(p->node);
	free(p->node_ip);
	free(p->pod_ip);
	free(p->container);
	free(p->image);
	free(p->phase);
	free(p->status);
	free(p->secret_env);
	free(p->spec_env);
	free(p->skip_reason);
	free(p->claim_refs);
	free(p->args);
	free(p->args_unread);
	free(p->spec_env_unread);
	free(p->plain_env);
	free(p->metrics_env);
	free(p->group);
}

void pod_list_release(struct pod_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		pod_info_release(&l->items[i]);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* Room for a page of more pods, exactly: struct pod_info is ~1.3 KiB and
 * 1.5x growth left a third of the array unused (0.7 MiB at 1024 pods;
 * issue 16, RSS).  pod_list_add still grows on its own past it. */
static void pod_list_reserve(struct pod_list *l, size_t more)
{
	if (more && l->n + more > l->cap) {
		if (more > (size_t)-1 / sizeof(*l->items) - l->n)
			xalloc_die();
		l->items = xrealloc(l->items, (l->n + more) * sizeof(*l->items));
		l->cap = l->n + more;
	}
}

static struct pod_info *pod_list_add(struct pod_list *l)
{
	ALLOC_GROW(l->items, l->n + 1, l->cap);
	return &l->items[l->n++];
}

static char *list_path(const struct pods_query *q, const char *cont)
{
	/* Naming one pod means that pod, whatever its labels. */
	char *sel = http_escape(q->selector ? q->selector : q->name ? "" : PODS_DEFAULT_SELECTOR);
	char *ns = q->all_namespaces ? NULL : http_escape(q->namespace);
	char *name = q->name ? http_escape(q->name) : NULL;
	char *c = cont ? http_escape(cont) : NULL;
	char *path;

	path = xasprintf("%s%s%s?labelSelector=%s&limit=%ld%s%s%s%s",
			 ns ? "/api/v1/namespaces/" : "/api/v1/pods",
			 ns ? ns : "", ns ? "/pods" : "", sel,
			 q->page_size > 0 ? q->page_size : (long)PODS_PAGE_SIZE,
			 name ? "&fieldSelector=metadata.name%3D" : "",
			 name ? name : "", c ? "&continue=" : "", c ? c : "");
	free(sel);
	free(ns);
	free(name);
	free(c);
	return path;
}

/* For tests and fuzzing (pods.h): one page, parsed as pods_list does. */
static int add_page(const char *body, size_t len, const struct pods_query *q,
		    struct pod_list *out, char **next, struct err *e);

int pods_parse_page(const char *body, size_t len, const struct pods_query *q,
		    struct pod_list *out, char **next, struct err *e)
{
	return add_page(body, len, q, out, next, e);
}

/* Is out->items[from] one of out->items[start..from)?  (pagination check) */
static int repeats(const struct pod_list *out, size_t start, size_t from)
{
	const struct pod_info *p = &out->items[from];
	size_t i;

	for (i = start; i < from; i++)
		if (!strcmp(out->items[i].name, p->name) &&
		    !strcmp(out->items[i].namespace, p->namespace))
			return 1;
	return 0;
}

/* Adds one page's pods to out; *next gets the continue token (owned) or
 * NULL at the end. */
static int add_page(const char *body, size_t len, const struct pods_query *q,
		    struct pod_list *out, char **next, struct err *e)
{
	static const char *const ck[] = { "metadata", "continue", NULL };
	cJSON *j = cJSON_ParseWithLength(body, len);
	const cJSON *items, *it, *cont;
	const char *kind = jstr(j, "kind");

	*next = NULL;
	if (!j)
		return err_set(e, ERR_PROTOCOL,
			       "cannot decode the pod list from the server: invalid JSON (%zu bytes)",
			       len);
	items = cJSON_GetObjectItemCaseSensitive(j, "items");
	if (!kind || strcmp(kind, "PodList") || !(cJSON_IsArray(items) || cJSON_IsNull(items))) {
		cJSON_Delete(j);
		return err_set(e, ERR_PROTOCOL,
			       "cannot decode the pod list from the server: not a PodList");
	}
	pod_list_reserve(out, (size_t)cJSON_GetArraySize(items));
	cJSON_ArrayForEach(it, items) {
		struct pod_info p;
		if (pod_from_json(it, q, &p))
			out->skipped_components++;
		else
			*pod_list_add(out) = p;
	}
	cont = jpath(j, ck);
	if (cJSON_IsString(cont) && *cont->valuestring)
		*next = xstrdup(cont->valuestring);
	cJSON_Delete(j);
	return 0;
}

static int by_namespace_name(const void *a, const void *b)
{
	const struct pod_info *x = a, *y = b;
	int c = strcmp(x->namespace, y->namespace);

	return c ? c : strcmp(x->name, y->name);
}

int pods_list(struct http_client *c, const struct pods_query *q,
	      struct pod_list *out, struct err *e)
{
	char *cont = NULL, *prev = NULL;
	size_t before, last_start = 0;
	struct listguard guard;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	listguard_init(&guard);
	do {
		struct http_response resp;
		char *path = list_path(q, cont);

		rc = http_get(c, path, &resp, e);
		free(path);
		out->pages++;
		free(prev);
		prev = cont;
		cont = NULL;
		before = out->n;
		if (rc == 0)
			rc = add_page(buf_str(&resp.body), resp.body.len, q, out, &cont, e);
		if (rc == 0)   /* pages, pods, bytes, every token seen */
			rc = listguard_page(&guard, resp.body.len, out->n, cont, e);
		http_response_release(&resp);
		/* A server whose every page carries a fresh token but the same
		 * pods (list-endless-continue) would keep us here for LISTGUARD_MAX_PAGES
		 * requests: a page that repeats a pod of the page before it is
		 * not progress. */
		if (rc == 0 && cont && out->n > before && repeats(out, last_start, before))
			rc = err_set(e, ERR_PROTOCOL,
				     "the server's pod list does not advance (page %u "
				     "repeats pods already listed)", out->pages);
		if (out->n > before)
			last_start = before;
	} while (rc == 0 && cont);
	listguard_release(&guard);
	free(cont);
	free(prev);
	if (rc) {
		pod_list_release(out);
		return -1;
	}
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), by_namespace_name);
	share_roles(out);
	log_at(6, "found %zu pods in %u pages", out->n, out->pages);
	return 0;
}
